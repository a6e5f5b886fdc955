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

/* The input of the encoder. */
typedef struct src {
    const char *s;
    size_t n;
} src;

/* The byte at input offset `at` into *b; returns 1, or 0 at the end. */
static size_t
peek(src *r, size_t at, unsigned char *b)
{
    if (at >= r->n)
        return 0;
    *b = (unsigned char)r->s[at];
    return 1;
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
    return (len == 2 && u[0] == 0xC2 && u[1] == 0x85)
        || (len == 3 && u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0xA8 || u[2] == 0xA9));
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

static size_t
encode(src *r, char *out, size_t cap)
{
    dst_t d = {out, cap, 0, 0};
    size_t written = 0, at = 0, total = 0, pos = 0, step;
    unsigned char seq[4];
    size_t steps[4];

    /* The decoded length first, for "a space that ends the field". */
    while ((step = peek(r, at, seq)) != 0) {
        total++;
        at += step;
    }
    at = 0;
    while (pos < total) {
        size_t have = 0, len, a = at, k;
        while (have < 4 && (steps[have] = peek(r, a, &seq[have])) != 0)
            a += steps[have++];
        len = psf_utf8_seq(seq, have, 0);
        if (len == 1 && (reserved(seq[0]) || (seq[0] == ' ' && (pos == 0 || pos == total - 1))))
            len = 0;
        if (line_break(seq, len)) {
            size_t k2;
            for (k2 = 0; k2 < len; k2++) {
                unsigned char esc[3] = {'%', (unsigned char)hex[seq[k2] >> 4],
                                        (unsigned char)hex[seq[k2] & 15]};
                emit(&d, esc, 3);
                if (!d.full)
                    written = d.len;
                at += steps[k2];
            }
            pos += len;
            continue;
        }
        if (len == 0) {
            unsigned char esc[3] = {'%', (unsigned char)hex[seq[0] >> 4],
                                    (unsigned char)hex[seq[0] & 15]};
            emit(&d, esc, 3);
            len = 1;
        } else {
            emit(&d, seq, len);
        }
        if (!d.full)
            written = d.len;
        for (k = 0; k < len; k++)
            at += steps[k];
        pos += len;
    }
    if (cap > 0)
        out[written] = '\0';
    return d.len;
}

size_t
psf_text_encode(const char *s, size_t n, char *dst, size_t cap)
{
    src r = {s, n};
    return encode(&r, dst, cap);
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
        if (n - i < 3 || (h = psf_hexval((unsigned char)s[i + 1])) < 0
            || (l = psf_hexval((unsigned char)s[i + 2])) < 0)
            return (size_t)-1;
        dst[out++] = (char)(h * 16 + l);
        i += 3;
    }
    return out;
}
