/* text.c: free text between the dump's encoding and the outputs (text.h).
 *
 * jansson holds only valid UTF-8, refuses lone surrogate escapes and
 * NUL in member names, so those cross it as sentinels inside its
 * strings: the noncharacter U+FFFF followed by four uppercase
 * hexadecimal digits stands for that code point (a surrogate, or U+0000),
 * and a real U+FFFF is doubled.  text_json_dumpf turns the sentinels of
 * the serialized text back into \uXXXX escapes; text_json_loadb turns
 * lone surrogate and NUL escapes into sentinels before jansson reads
 * them.
 */
#include "text.h"

#include "cli.h"
#include "../format/psf_keys.h"
#include "../format/psf_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char hexu[] = "0123456789ABCDEF";
#define SENT "\xEF\xBF\xBF" /* U+FFFF in UTF-8 */
#define SENT_LEN 3

/* A growing byte buffer. */
typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void
put(buf *b, const void *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = cli_xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void
put_c(buf *b, char c)
{
    put(b, &c, 1);
}

static long
hex4(const char *s)
{
    long v = 0;
    int i, h;

    for (i = 0; i < 4; i++) {
        if ((h = psf_hexval((unsigned char)s[i])) < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The three-byte encoding of a surrogate cp. */
static void
put_surrogate(buf *b, long cp)
{
    char u[3] = {(char)0xED, (char)(0x80 | ((cp >> 6) & 0x3F)), (char)(0x80 | (cp & 0x3F))};
    put(b, u, 3);
}

static long
surrogate_of(const unsigned char *s)
{
    return 0xD000 | ((long)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
}

/* s[0..n) as WTF-8: a byte that starts no well-formed sequence becomes
 * the surrogate U+DC00 + byte (surrogateescape). */
static void
put_wtf8(buf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, k;

    while (i < n) {
        k = psf_utf8_seq(u + i, n - i, 1);
        if (k == 0) {
            put_surrogate(b, 0xDC00 + u[i]);
            i++;
        }
        else {
            put(b, u + i, k);
            i += k;
        }
    }
}

/* enc decoded into d (bytes; WTF-8 for canonical text); -1 if it does not decode. */
static int
decode(const char *enc, size_t n, buf *d)
{
    size_t m;

    put(d, enc, n);
    m = psf_text_decode(d->p, n, d->p);
    if (m == (size_t)-1)
        return -1;
    d->n = m;
    return 0;
}

static char *
encode(const buf *d, size_t *len)
{
    size_t cap = PSF_TEXT_MAX(d->n) + 1;
    char *out = cli_xmalloc(cap);

    *len = psf_text_encode(d->p ? d->p : "", d->n, out, cap);
    return out;
}

char *
text_from_dump(int version, const char *s, size_t n, size_t *len)
{
    buf raw = {0}, d = {0};
    char *out;

    if (version < 2) {
        put(&raw, s, n);
    }
    else if (decode(s, n, &raw) < 0) {
        free(raw.p);
        return NULL;
    }
    put(&d, "", 0);
    put_wtf8(&d, raw.p, raw.n);
    out = encode(&d, len);
    free(raw.p);
    free(d.p);
    return out;
}

int
text_header_is_free(const char *key, size_t klen)
{
    static const char *const free_text[] = {
        PSF_H_LABEL,   PSF_H_PY_SYS_VERSION, PSF_H_PY_GIT, PSF_H_PY_CONFIG_ARGS,
        PSF_H_PY_IMPL, PSF_H_INEXACT_CAUSE,  PSF_H_CWD,    PSF_H_CENSUS_ERROR,
    };
    size_t i;

    for (i = 0; i < sizeof free_text / sizeof free_text[0]; i++)
        if (strlen(free_text[i]) == klen && memcmp(free_text[i], key, klen) == 0)
            return 1;
    return 0;
}

/* ---- JSON ---- */

int
text_is_utf8(const char *s)
{
    size_t n = strlen(s), i = 0, k;

    while (i < n) {
        if ((k = psf_utf8_seq((const unsigned char *)s + i, n - i, 0)) == 0)
            return 0;
        i += k;
    }
    return 1;
}

static void
put_sentinel(buf *b, long cp)
{
    char h[4] = {hexu[(cp >> 12) & 15], hexu[(cp >> 8) & 15], hexu[(cp >> 4) & 15], hexu[cp & 15]};

    put(b, SENT, SENT_LEN);
    put(b, h, 4);
}

/* enc[0..n) decoded into j, jansson's form (sentinels); -1 if it does
 * not decode. */
static int
to_jansson(const char *enc, size_t n, buf *j)
{
    buf d = {0};
    const unsigned char *u;
    size_t i = 0, k;
    int ret = -1;

    if (decode(enc, n, &d) < 0)
        goto done;
    u = (const unsigned char *)d.p;
    while (i < d.n) {
        k = psf_utf8_seq(u + i, d.n - i, 1);
        if (k == 0) { /* canonical text never has one; be safe */
            k = 1;
            put_sentinel(j, 0xDC00 + u[i]);
        }
        else if (k == 3 && u[i] == 0xED && u[i + 1] >= 0xA0) {
            put_sentinel(j, surrogate_of(u + i));
        }
        else if (u[i] == 0) {
            put_sentinel(j, 0);
        }
        else if (k == 3 && memcmp(u + i, SENT, SENT_LEN) == 0) {
            put(j, SENT SENT, 2 * SENT_LEN);
        }
        else {
            put(j, u + i, k);
        }
        i += k;
    }
    ret = 0;
done:
    free(d.p);
    return ret;
}

json_t *
text_json_n(const char *enc, size_t n)
{
    buf j = {0};
    json_t *r = NULL;

    put(&j, "", 0);
    if (to_jansson(enc, n, &j) == 0)
        r = json_stringn(j.p, j.n);
    free(j.p);
    return r;
}

json_t *
text_json(const char *enc)
{
    return text_json_n(enc, strlen(enc));
}

/* JSON integers are signed 64-bit in jansson (and in most readers):
 * larger counts are written as decimal strings. */
json_t *
text_json_count(uint64_t n)
{
    char buf[32];

    if (n <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)n);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)n);
    return json_string(buf);
}

void
text_json_set_raw(json_t *o, const char *k, json_t *v)
{
    if (text_is_utf8(k)) {
        json_object_set_new(o, k, v);
    }
    else {
        json_t *name = text_json_raw(k);
        json_object_setn_new(o, json_string_value(name), json_string_length(name), v);
        json_decref(name);
    }
}

json_t *
text_json_str(const char *s)
{
    return text_is_utf8(s) ? json_string(s) : text_json_raw(s);
}

json_t *
text_json_strs(char *const *v, size_t n)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < n; i++)
        json_array_append_new(a, text_json_str(v[i]));
    return a;
}

int
text_json_set(json_t *o, const char *enc, json_t *v)
{
    buf j = {0};
    int r = -1;

    put(&j, "", 0);
    if (to_jansson(enc, strlen(enc), &j) == 0)
        r = json_object_setn_new(o, j.p, j.n, v);
    else
        json_decref(v);
    free(j.p);
    return r;
}

json_t *
text_json_raw(const char *raw)
{
    size_t len;
    char *enc = text_from_dump(1, raw, strlen(raw), &len);
    json_t *r = text_json(enc);

    free(enc);
    return r;
}

/* The serialized text with sentinels turned into escapes (U+FFFF only
 * ever appears inside strings, raw: the output is not ASCII-only). */
static void
unsentinel(const char *s, size_t n, buf *out)
{
    size_t i = 0;

    while (i < n) {
        if (n - i < SENT_LEN || memcmp(s + i, SENT, SENT_LEN) != 0) {
            put_c(out, s[i++]);
            continue;
        }
        i += SENT_LEN;
        if (n - i >= SENT_LEN && memcmp(s + i, SENT, SENT_LEN) == 0) {
            put(out, SENT, SENT_LEN);
            i += SENT_LEN;
        }
        else if (n - i >= 4 && hex4(s + i) >= 0) {
            put(out, "\\u", 2);
            put(out, s + i, 4);
            i += 4;
        }
        else {
            put(out, SENT, SENT_LEN); /* not a sentinel of text_json's */
        }
    }
}

int
text_json_dumpf(const json_t *root, FILE *out, size_t flags)
{
    char *s = json_dumps(root, flags);
    buf b = {0};
    int ret = -1;

    if (s == NULL)
        return -1;
    put(&b, "", 0);
    unsentinel(s, strlen(s), &b);
    if (fwrite(b.p, 1, b.n, out) == b.n)
        ret = 0;
    free(s);
    free(b.p);
    return ret;
}

json_t *
text_json_loadb(const char *s, size_t n, size_t flags, json_error_t *err)
{
    buf b = {0};
    size_t i = 0;
    long v, w;
    json_t *r;

    put(&b, "", 0);
    while (i < n) {
        if (n - i >= SENT_LEN && memcmp(s + i, SENT, SENT_LEN) == 0) {
            put(&b, SENT SENT, 2 * SENT_LEN); /* a real U+FFFF */
            i += SENT_LEN;
            continue;
        }
        if (s[i] != '\\' || i + 1 >= n) {
            put_c(&b, s[i++]);
            continue;
        }
        if (s[i + 1] != 'u' || n - i < 6 || (v = hex4(s + i + 2)) < 0) {
            put(&b, s + i, 2);
            i += 2;
            continue;
        }
        if (v >= 0xD800 && v <= 0xDBFF && n - i >= 12 && s[i + 6] == '\\' && s[i + 7] == 'u' &&
            (w = hex4(s + i + 8)) >= 0xDC00 && w <= 0xDFFF) {
            put(&b, s + i, 12); /* a pair: jansson reads it */
            i += 12;
            continue;
        }
        if (v == 0 || (v >= 0xD800 && v <= 0xDFFF))
            put_sentinel(&b, v);
        else if (v == 0xFFFF)
            put(&b, SENT SENT, 2 * SENT_LEN);
        else
            put(&b, s + i, 6);
        i += 6;
    }
    r = json_loadb(b.p, b.n, flags, err);
    free(b.p);
    return r;
}

char *
text_from_json_key(const char *s, size_t n)
{
    buf d = {0};
    size_t i = 0, len, k;
    long v;
    char *out;

    put(&d, "", 0);
    while (i < n) {
        if (n - i >= SENT_LEN && memcmp(s + i, SENT, SENT_LEN) == 0) {
            i += SENT_LEN;
            if (n - i >= SENT_LEN && memcmp(s + i, SENT, SENT_LEN) == 0) {
                put(&d, SENT, SENT_LEN);
                i += SENT_LEN;
            }
            else if (n - i >= 4 && (v = hex4(s + i)) >= 0) {
                if (v >= 0xD800 && v <= 0xDFFF)
                    put_surrogate(&d, v);
                else
                    put_c(&d, (char)v); /* U+0000 */
                i += 4;
            }
            else {
                put(&d, SENT, SENT_LEN);
            }
            continue;
        }
        k = psf_utf8_seq((const unsigned char *)s + i, n - i, 1);
        if (k == 0)
            k = 1;
        put_wtf8(&d, s + i, k);
        i += k;
    }
    out = encode(&d, &len);
    free(d.p);
    return out;
}

char *
text_from_json(const json_t *s)
{
    if (!json_is_string(s))
        return NULL;
    return text_from_json_key(json_string_value(s), json_string_length(s));
}

/* ---- display ---- */

char *
text_display_n(const char *enc, size_t n)
{
    buf d = {0}, o = {0};
    const unsigned char *u;
    size_t i = 0, k;
    char e[8];

    put(&o, "", 0);
    if (decode(enc, n, &d) < 0) {
        free(d.p);
        put(&o, enc, n);
        return o.p;
    }
    u = (const unsigned char *)d.p;
    while (i < d.n) {
        k = psf_utf8_seq(u + i, d.n - i, 1);
        if (k == 0) {
            snprintf(e, sizeof e, "\\udc%02x", u[i]);
            put(&o, e, strlen(e));
            k = 1;
        }
        else if (k == 3 && u[i] == 0xED && u[i + 1] >= 0xA0) {
            snprintf(e, sizeof e, "\\u%04lx", surrogate_of(u + i));
            put(&o, e, strlen(e));
        }
        else if (k == 1 && (u[i] < 0x20 || u[i] == 0x7F)) {
            snprintf(e, sizeof e, "\\x%02x", u[i]);
            put(&o, e, strlen(e));
        }
        else {
            put(&o, u + i, k);
        }
        i += k;
    }
    free(d.p);
    return o.p;
}

char *
text_display(const char *enc)
{
    return text_display_n(enc, strlen(enc));
}
