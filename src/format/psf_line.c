/* psf_line.c: splitting one dump line into key and value (the hot path
 * of every reader: no allocation, no locale, no stdio). */
#include "psf_line.h"

#include "psf_keys.h"

#include <assert.h>
#include <string.h>

static int
is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

int
psf_is_header_key(const char *s, size_t n)
{
    return (n >= 8 && memcmp(s, "pystats.", 8) == 0) || (n >= 5 && memcmp(s, "meta.", 5) == 0);
}

int
psf_line_split(const char *s, size_t n, psf_line *out)
{
    const char *b = s, *e = s + n, *colon = NULL, *k_end, *v;

    while (b < e && is_blank(*b))
        b++;
    while (e > b && is_blank(e[-1]))
        e--;
    if (b == e)
        return PSF_LINE_BLANK;
    out->header = psf_is_header_key(b, (size_t)(e - b));
    if (out->header) {
        colon = memchr(b, ':', (size_t)(e - b));
    }
    else {
        const char *p = e;
        while (p > b) {
            if (*--p == ':') {
                colon = p;
                break;
            }
        }
    }
    if (colon == NULL)
        return PSF_LINE_NO_COLON;
    k_end = colon;
    while (k_end > b && is_blank(k_end[-1]))
        k_end--;
    if (k_end == b)
        return PSF_LINE_NO_KEY;
    v = colon + 1;
    while (v < e && is_blank(*v))
        v++;
    out->key = b;
    out->key_len = (size_t)(k_end - b);
    out->val = v;
    out->val_len = (size_t)(e - v);
    /* psf_line.h: the key (never empty) and the value borrowed from s,
     * the key first. */
    assert(out->key >= s && out->key_len > 0 && out->key + out->key_len <= out->val &&
           out->val + out->val_len <= s + n);
    return PSF_LINE_OK;
}

int
psf_parse_u64(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (n == 0)
        return PSF_NUM_EMPTY;
    for (i = 0; i < n; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9)
            return PSF_NUM_BAD;
        if (v > (UINT64_MAX - d) / 10) {
            /* Keep scanning so "99999999999999999999x" is BAD, not
             * OVERFLOW: the line is malformed before it is too big. */
            for (i++; i < n; i++)
                if ((unsigned char)s[i] - '0' > 9)
                    return PSF_NUM_BAD;
            return PSF_NUM_OVERFLOW;
        }
        v = v * 10 + d;
    }
    *out = v;
    return PSF_NUM_OK;
}

int
psf_parse_line(const char *s, size_t n, long *out)
{
    long v = 0;
    size_t i;

    if (n == 0)
        return -1;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
        if (v > PSF_LINE_MAX)
            return -1;
    }
    *out = v;
    return 0;
}

size_t
psf_split_fields(const char *s, size_t n, const char **f, size_t *fl, size_t max)
{
    const char *p = s, *e = s + n, *sep;
    size_t k = 0;

    for (;;) {
        for (sep = p; sep + 3 <= e && memcmp(sep, PSF_SEP_FIELD, 3) != 0; sep++)
            ;
        if (sep + 3 > e)
            sep = e;
        if (k == max)
            return max + 1;
        assert(p <= e); /* fields inside s[0..n), at most max of them */
        f[k] = p;
        fl[k] = (size_t)(sep - p);
        k++;
        if (sep == e)
            return k;
        p = sep + 3;
    }
}

const char *const psf_site_state_name[PSF_SITE_STATES] = {
    PSF_SITE_SPECIALIZED, PSF_SITE_BACKING_OFF, PSF_SITE_NEVER_TRIED, PSF_SITE_EXCLUDED};

int
psf_site_state(const char *s, size_t n)
{
    int i;

    for (i = 0; i < PSF_SITE_STATES; i++)
        if (strlen(psf_site_state_name[i]) == n && memcmp(s, psf_site_state_name[i], n) == 0)
            return i;
    return -1;
}
