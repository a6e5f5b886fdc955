/* util.c: the command's allocation wrappers (one out-of-memory policy),
 * its one report of a broken invariant, option values, and the escaping
 * of text for people. */
#include "cli.h"
#include "../format/psf_text.h"
#include "../format/psf_detect.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
cli_oom(void)
{
    fputs("pystats: out of memory\n", stderr);
    exit(CLI_EXIT_INTERNAL);
}

void
cli_bug(const char *fmt, ...)
{
    va_list ap;

    fputs("pystats: internal error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(CLI_EXIT_INTERNAL);
}

void *
cli_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        cli_oom();
    return p;
}

void *
cli_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL)
        cli_oom();
    return p;
}

void *
cli_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (p == NULL)
        cli_oom();
    return p;
}

char *
cli_xstrndup(const char *s, size_t n)
{
    char *d = cli_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *
cli_xstrdup(const char *s)
{
    return cli_xstrndup(s, strlen(s));
}

int
cli_opt_version(const char *arg, int *minor)
{
    *minor = psf_parse_version(arg, strlen(arg));
    if (*minor == 0) {
        fputs("pystats: error: --python-version wants 3.X, not '", stderr);
        cli_fput_esc(stderr, arg);
        fputs("'\n", stderr);
        return -1;
    }
    return 0;
}

int
cli_opt_count(const char *name, const char *arg, long max, int *out)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < 1 || v > max) {
        fprintf(stderr, "pystats: error: --%s wants a positive number, not '", name);
        cli_fput_esc(stderr, arg);
        fputs("'\n", stderr);
        return -1;
    }
    *out = (int)v;
    return 0;
}

void
cli_count_str(char *buf, size_t size, uint64_t n)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n), i;
    size_t j = 0;

    for (i = 0; i < len && j + 2 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[j++] = ',';
        buf[j++] = tmp[i];
    }
    buf[j] = '\0';
}

/* ---- text for people ---------------------------------------------------- */

/* One unit of s: either an escape ("\\x1b", "\\u009b") written to esc, or
 * a character to copy (esc[0] left '\0').  Returns the bytes consumed. */
static size_t
esc_unit(const char *s, size_t n, char esc[8])
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = psf_utf8_seq(u, n, 0);

    esc[0] = '\0';
    if (len == 0 || u[0] < 0x20 || u[0] == 0x7F) {
        snprintf(esc, 8, "\\x%02x", u[0]);
        return 1;
    }
    if (len == 2 && u[0] == 0xC2 && u[1] < 0xA0) {
        snprintf(esc, 8, "\\u%04x", u[1]);
        return 2;
    }
    return len;
}

size_t
cli_esc(char *dst, size_t size, const char *s)
{
    size_t n = strlen(s), i = 0, out = 0, k, j;
    char e[8];

    while (i < n) {
        k = esc_unit(s + i, n - i, e);
        if (e[0]) {
            for (j = 0; e[j]; j++, out++)
                if (out + 1 < size)
                    dst[out] = e[j];
        }
        else {
            /* A character is copied whole or not at all. */
            if (out + k < size)
                memcpy(dst + out, s + i, k);
            else if (out < size)
                size = out + 1;
            out += k;
        }
        i += k;
    }
    if (size)
        dst[out < size ? out : size - 1] = '\0';
    return out;
}

char *
cli_esc_dup(const char *s)
{
    size_t n = cli_esc(NULL, 0, s);
    char *d = cli_xmalloc(n + 1);

    cli_esc(d, n + 1, s);
    return d;
}

void
cli_fput_esc(FILE *out, const char *s)
{
    size_t n = strlen(s), i = 0, k;
    char e[8];

    while (i < n) {
        k = esc_unit(s + i, n - i, e);
        if (e[0])
            fputs(e, out);
        else
            fwrite(s + i, 1, k, out);
        i += k;
    }
}

int
cli_fput_md_code(FILE *out, const char *s)
{
    size_t n = strlen(s), i = 0, k;
    char e[8];

    if (memchr(s, '`', n) != NULL)
        return -1;
    while (i < n) {
        k = esc_unit(s + i, n - i, e);
        if (e[0])
            fputs(e, out);
        else if (s[i] == '|')
            fputs("\\|", out);
        else
            fwrite(s + i, 1, k, out);
        i += k;
    }
    return 0;
}

static int
word_char(const char *s, size_t n, size_t i)
{
    unsigned char c;

    if (i >= n)
        return 0;
    c = (unsigned char)s[i];
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c >= 0x80;
}

void
cli_fput_md(FILE *out, const char *s)
{
    size_t n = strlen(s), i = 0, k;
    char e[8];

    while (i < n) {
        k = esc_unit(s + i, n - i, e);
        if (e[0]) {
            fputc('\\', out); /* the escape's backslash, shown as is */
            fputs(e, out);
        }
        else if (k == 1 && (strchr("\\`*<&|~", s[i]) != NULL ||
                            (s[i] == ']' && i + 1 < n && strchr("([:", s[i + 1]) != NULL))) {
            /* "]" only where a link would follow: "[x](...)", "[x][y]". */
            fputc('\\', out);
            fputc(s[i], out);
        }
        else if (s[i] == '_') {
            /* A run of underscores between two word characters
             * (LOAD_FAST__LOAD_FAST) cannot open or close emphasis. */
            size_t b = i;
            while (b < n && s[b] == '_')
                b++;
            if (i > 0 && word_char(s, n, i - 1) && word_char(s, n, b)) {
                fwrite(s + i, 1, b - i, out);
                i = b;
            }
            else {
                for (; i < b; i++)
                    fputs("\\_", out);
            }
            continue;
        }
        else {
            fwrite(s + i, 1, k, out);
        }
        i += k;
    }
}

void
cli_fput_html(FILE *out, const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        switch (s[i]) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(s[i], out);
        }
}

void
cli_fput_html_esc(FILE *out, const char *s)
{
    char *t = cli_esc_dup(s);

    cli_fput_html(out, t, strlen(t));
    free(t);
}
