/* where.c: the portable name of a source file (where.h). */
#include "where.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../format/psf_text.h"

/* Decode an encoded field into a new NUL-terminated string; NULL if it
 * does not decode or holds a NUL (no path does). */
static char *
decode_new(const char *enc, size_t n, size_t *len)
{
    char *s = cli_xmalloc(n + 1);
    size_t m;
    m = psf_text_decode(enc, n, s);
    if (m == (size_t)-1 || memchr(s, '\0', m) != NULL) {
        free(s);
        return NULL;
    }
    s[m] = '\0';
    *len = m;
    return s;
}

/* A path as a prefix: without its trailing slashes ("/" stays "/"). */
static size_t
trim_slashes(const char *s, size_t n)
{
    while (n > 1 && s[n - 1] == '/')
        n--;
    return n;
}

int
where_init(where *w, const char *cwd_enc, const char *path_enc)
{
    const char *p, *bar;
    size_t n;
    memset(w, 0, sizeof *w);
    if (cwd_enc != NULL && *cwd_enc) {
        w->cwd = decode_new(cwd_enc, strlen(cwd_enc), &w->cwd_len);
        if (w->cwd == NULL || w->cwd[0] != '/')
            goto fail;
        w->cwd_len = trim_slashes(w->cwd, w->cwd_len);
    }
    if (path_enc == NULL || !*path_enc)
        return 0;
    for (n = 1, p = path_enc; *p; p++)
        n += *p == '|';
    w->path = cli_xcalloc(n, sizeof *w->path);
    w->path_len = cli_xcalloc(n, sizeof *w->path_len);
    for (p = path_enc;; p = bar + 1) {
        size_t len;
        char *e;
        bar = strchr(p, '|');
        n = bar ? (size_t)(bar - p) : strlen(p);
        e = decode_new(p, n, &len);
        if (e == NULL)
            goto fail;
        if (e[0] == '/') { /* a relative entry (none are written) or "" */
            w->path[w->npath] = e;
            w->path_len[w->npath++] = trim_slashes(e, len);
        }
        else {
            free(e);
        }
        if (bar == NULL)
            break;
    }
    return 0;
fail:
    where_free(w);
    return -1;
}

void
where_free(where *w)
{
    size_t i;
    for (i = 0; i < w->npath; i++)
        free(w->path[i]);
    free(w->path);
    free(w->path_len);
    free(w->cwd);
    memset(w, 0, sizeof *w);
}

/* Whether file lies under dir (dir_len bytes): returns the length of
 * the part after dir and its slash, and sets *rest to it. */
static int
under(const char *file, size_t flen, const char *dir, size_t dlen, const char **rest)
{
    if (dlen == 1 && dir[0] == '/') { /* the root */
        *rest = file + 1;
        return flen > 1;
    }
    if (flen <= dlen + 1 || memcmp(file, dir, dlen) != 0 || file[dlen] != '/')
        return 0;
    *rest = file + dlen + 1;
    return 1;
}

static int
ident_char(unsigned char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9') || c >= 0x80;
}

/* The dotted module name of a path relative to a sys.path entry, into
 * out (room for n + 1 bytes), or 0 if it is not one: "a/b.py" -> "a.b",
 * "a/__init__.py" -> "a"; "__init__.py" is none.  Identifiers are checked as ASCII, with any
 * non-ASCII byte allowed (Python's identifiers are wider). */
static int
module_of(const char *rel, size_t n, char *out)
{
    size_t i, start = 0;
    if (n < 4 || memcmp(rel + n - 3, ".py", 3) != 0)
        return 0;
    n -= 3;
    if (n == 8 && memcmp(rel, "__init__", 8) == 0)
        return 0; /* a package right at the entry: named from above */
    if (n >= 9 && memcmp(rel + n - 9, "/__init__", 9) == 0)
        n -= 9;
    if (n == 0)
        return 0;
    for (i = 0; i <= n; i++) {
        if (i == n || rel[i] == '/') {
            if (i == start)
                return 0;
            out[i] = '.';
            start = i + 1;
            continue;
        }
        if (!ident_char((unsigned char)rel[i], i == start))
            return 0;
        out[i] = rel[i];
    }
    out[n] = '\0';
    return 1;
}

static char *
encode_new(const char *s, size_t n)
{
    size_t cap = PSF_TEXT_MAX(n) + 1;
    char *e = cli_xmalloc(cap);
    psf_text_encode(s, n, e, cap);
    return e;
}

char *
where_name(const where *w, const char *file_enc, int *kind)
{
    size_t flen, i, best = 0;
    char *file, *mod, *r;
    const char *rest;
    int found = 0;

    *kind = WHERE_AS_IS;
    file = decode_new(file_enc, strlen(file_enc), &flen);
    if (file == NULL || file[0] != '/') {
        free(file);
        return cli_xstrdup(file_enc);
    }
    mod = cli_xmalloc(flen + 1);
    /* The longest entry that makes a module of the file: site-packages
     * lies inside the standard library's directory in many layouts, and
     * the standard library's entry makes no module of it ("-" is no
     * identifier). */
    for (i = 0; i < w->npath; i++)
        if ((!found || w->path_len[i] > w->path_len[best]) &&
            under(file, flen, w->path[i], w->path_len[i], &rest) &&
            module_of(rest, flen - (size_t)(rest - file), mod)) {
            best = i;
            found = 1;
        }
    if (found) {
        under(file, flen, w->path[best], w->path_len[best], &rest);
        module_of(rest, flen - (size_t)(rest - file), mod);
        *kind = WHERE_MODULE;
        r = encode_new(mod, strlen(mod));
    }
    else if (w->cwd != NULL && under(file, flen, w->cwd, w->cwd_len, &rest)) {
        *kind = WHERE_RELATIVE;
        r = encode_new(rest, flen - (size_t)(rest - file));
    }
    else {
        r = cli_xstrdup(file_enc);
    }
    free(mod);
    free(file);
    return r;
}

char *
where_rename(const where *w, const char *s, size_t len, size_t at, size_t end, size_t *out_len,
             char **path)
{
    char *file = cli_xstrndup(s + at, end - at), *port, *out;
    int kind = WHERE_AS_IS;

    port = where_name(w, file, &kind);
    *path = NULL;
    if (kind == WHERE_AS_IS) {
        free(port);
        free(file);
        *out_len = len;
        return cli_xstrndup(s, len);
    }
    *path = file;
    *out_len = at + strlen(port) + (len - end);
    out = cli_xmalloc(*out_len + 1);
    snprintf(out, *out_len + 1, "%.*s%s%.*s", (int)at, s, port, (int)(len - end), s + end);
    free(port);
    return out;
}
