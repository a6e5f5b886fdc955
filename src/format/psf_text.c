/* psf_text.c: free text in dumps, encoded and decoded (psf_text.h has
 * the rule). */
#include "psf_text.h"

#include <stdint.h>

static const char hex[] = "0123456789ABCDEF";

int
psf_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

size_t
psf_utf8_seq(const unsigned char *s, size_t n, int allow_surrogates)
{
    unsigned c;
    size_t len, i;
    uint32_t cp;

    if (n == 0)
        return 0;
    c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    if (cp >= 0xD800 && cp <= 0xDFFF && !allow_surrogates)
        return 0;
    return len;
}

static int
reserved(unsigned char c)
{
    return c < 0x20 || c == 0x7F || c == '%' || c == '|' || c == ':' || c == '[' || c == ']';
}

/* U+0085, U+2028 and U+2029, which some readers (Python's
 * str.splitlines, editors) take for line breaks. */
static int
line_break(const unsigned char *u, size_t len)
{
    return (len == 2 && u[0] == 0xC2 && u[1] == 0x85) ||
           (len == 3 && u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0xA8 || u[2] == 0xA9));
}

/* The output: whole units (an escape, a UTF-8 sequence) or nothing, so
 * that a cut encoding still decodes. */
typedef struct dst {
    char *p;
    size_t cap, len;
    int full;
} dst_t;

static void
emit(dst_t *d, const unsigned char *u, size_t n)
{
    size_t i;

    if (!d->full && d->len + n < d->cap)
        for (i = 0; i < n; i++)
            d->p[d->len + i] = (char)u[i];
    else
        d->full = 1;
    d->len += n;
}

/* One byte as an escape. */
static void
emit_escape(dst_t *d, unsigned char c)
{
    unsigned char esc[3] = {'%', (unsigned char)hex[c >> 4], (unsigned char)hex[c & 15]};

    emit(d, esc, 3);
}

size_t
psf_text_encode(const char *s, size_t n, char *out, size_t cap)
{
    const unsigned char *u = (const unsigned char *)s;
    dst_t d = {out, cap, 0, 0};
    size_t written = 0, i = 0, len, k;

    while (i < n) {
        len = psf_utf8_seq(u + i, n - i, 0);
        if (len == 1 && (reserved(u[i]) || (u[i] == ' ' && (i == 0 || i == n - 1))))
            len = 0;
        if (len == 0) {
            emit_escape(&d, u[i]);
            len = 1;
        }
        else if (line_break(u + i, len)) {
            for (k = 0; k < len; k++)
                emit_escape(&d, u[i + k]);
        }
        else {
            emit(&d, u + i, len);
        }
        if (!d.full)
            written = d.len;
        i += len;
    }
    if (cap > 0)
        out[written] = '\0';
    return d.len;
}

size_t
psf_text_decode(const char *s, size_t n, char *dst)
{
    size_t i = 0, out = 0;
    int h, l;

    while (i < n) {
        if (s[i] != '%') {
            dst[out++] = s[i++];
            continue;
        }
        if (n - i < 3 || (h = psf_hexval((unsigned char)s[i + 1])) < 0 ||
            (l = psf_hexval((unsigned char)s[i + 2])) < 0)
            return (size_t)-1;
        dst[out++] = (char)(h * 16 + l);
        i += 3;
    }
    return out;
}
