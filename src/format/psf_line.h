/* psf_line.h: splitting one dump line into key and value.
 *
 * Shared by every reader of dumps, own and native.  A line is
 * `key : value` or `key: value`, possibly indented, possibly ending in
 * CR LF.  Counter lines are split at the last ':' (CPython's keys never
 * contain one after the key, but values never do either); header lines
 * (`pystats.*`, `meta.*`) at the first, because their free-text values
 * may contain colons (times, sys.version).
 */
#ifndef PSF_LINE_H
#define PSF_LINE_H

#include <stddef.h>
#include <stdint.h>

typedef enum psf_line_status {
    PSF_LINE_OK = 0,
    PSF_LINE_BLANK,    /* empty or blanks only: not an error */
    PSF_LINE_NO_COLON, /* no ':' at all */
    PSF_LINE_NO_KEY    /* nothing before the ':' */
} psf_line_status;

typedef struct psf_line {
    const char *key; /* borrowed, not NUL-terminated */
    size_t key_len;
    const char *val;
    size_t val_len;
    int header; /* 1 for pystats.* and meta.* keys */
} psf_line;

/* Split s[0..n) (without its LF) into out.  Returns a psf_line_status. */
int psf_line_split(const char *s, size_t n, psf_line *out);

typedef enum psf_num_status {
    PSF_NUM_OK = 0,
    PSF_NUM_EMPTY,   /* no digits */
    PSF_NUM_BAD,     /* a character other than a decimal digit */
    PSF_NUM_OVERFLOW /* more than 2**64 - 1 */
} psf_num_status;

/* Parse an unsigned decimal number s[0..n) into *out. */
int psf_parse_u64(const char *s, size_t n, uint64_t *out);

/* A source line number (FORMAT.md 1.14: the LINE of a hot-code key, the N
 * of .line[N] and source[FILE].line[N], a census site's LINE): decimal
 * digits only (leading zeros allowed: 007 is 7), at most PSF_LINE_MAX (a C
 * int, as CPython keeps co_firstlineno).  Returns 0 with *out set, or -1. */
#define PSF_LINE_MAX 2147483647L
int psf_parse_line(const char *s, size_t n, long *out);

/* Split a row value s[0..n) at each PSF_SEP_FIELD (" | ") into at most
 * max fields (f[i], fl[i]; the last holds the rest).  Returns how many
 * fields there are, max + 1 if s has more than max. */
size_t psf_split_fields(const char *s, size_t n, const char **f, size_t *fl, size_t max);

/* The states of a source-view site row (FORMAT.md 1.18), in the order
 * of psf_keys.h's PSF_SITE_*; psf_site_state() gives the index of the
 * state s[0..n) names, or -1. */
#define PSF_SITE_STATES 4
extern const char *const psf_site_state_name[PSF_SITE_STATES];
int psf_site_state(const char *s, size_t n);

/* Whether the key s[0..n) is a header key (pystats.* or meta.*). */
int psf_is_header_key(const char *s, size_t n);

#endif
