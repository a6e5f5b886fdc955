/* read_text.c: the text reader: this collector's dumps (format 1 and 2)
 * and CPython's --enable-pystats dumps, line by line into the sink. */
#include "read.h"

#include "cli.h"
#include "text.h"
#include "../format/psf_keys.h"
#include "../format/psf_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- census sites and hot-code keys ------------------------------------- */

/* Split "census.site[I]"'s value F | ATTEMPTS | COUNTER | FILE | LINE |
 * QUALNAME | SOURCE into f[0..6].  In format 2 every field is encoded, so
 * " | " only ever separates; in format 1 SOURCE, last, may hold " | ".
 * A line's trailing blanks are gone, so an empty SOURCE leaves the value
 * ending in " |".  Returns 0, or -1 if a field is missing or ATTEMPTS /
 * LINE are not numbers (LINE: psf_parse_line). */
static int
site_fields(const char *val, size_t vlen, const char **f, size_t *fl)
{
    const char *p = val, *e = val + vlen, *sep;
    uint64_t n;
    long line;
    int i;

    for (i = 0; i < 6; i++) {
        for (sep = p; sep + 3 <= e && memcmp(sep, PSF_SEP_FIELD, 3) != 0; sep++)
            ;
        if (sep + 3 > e) {
            if (i == 5 && e - p >= 2 && memcmp(e - 2, " |", 2) == 0) {
                f[5] = p;
                fl[5] = (size_t)(e - 2 - p);
                f[6] = e;
                fl[6] = 0;
                goto numbers;
            }
            return -1;
        }
        f[i] = p;
        fl[i] = (size_t)(sep - p);
        p = sep + 3;
    }
    f[6] = p;
    fl[6] = (size_t)(e - p);
numbers:
    if (psf_parse_u64(f[1], fl[1], &n) != PSF_NUM_OK || psf_parse_line(f[4], fl[4], &line) != 0 ||
        fl[0] == 0)
        return -1;
    return 0;
}

/* A census site becomes two counters of its row (family, file, line,
 * function, source, each in the canonical text form of text.h):
 * census.sites[ROW].count, 1, summed, and census.sites[ROW].attempts,
 * kept at the maximum. */
static int
census_site(ingest_worker *w, const char *val, size_t vlen)
{
    static const int keep[] = {0, 3, 5, 6}; /* family, file, function, source */
    const char *f[7];
    size_t fl[7], n, len, i;
    char *t[4] = {NULL}, *key;
    uint64_t attempts, line;
    int ret = -1;

    if (site_fields(val, vlen, f, fl) != 0)
        return -1;
    psf_parse_u64(f[1], fl[1], &attempts);
    psf_parse_u64(f[4], fl[4], &line);
    for (i = 0; i < 4; i++)
        if ((t[i] = text_from_dump(w->version, f[keep[i]], fl[keep[i]], &len)) == NULL)
            goto done;
    n = strlen(t[0]) + strlen(t[1]) + strlen(t[2]) + strlen(t[3]) + 96;
    key = cli_xmalloc(n);
    n = (size_t)snprintf(key, n, PSF_KEY_CENSUS_ROWS "%s | %s | %llu | %s | %s].count", t[0], t[1],
                         (unsigned long long)line, t[2], t[3]);
    ingest_counter(w, key, n, 1);
    memcpy(key + n - 6, ".attempts", 10);
    ingest_counter(w, key, n + 3, attempts);
    free(key);
    ret = 0;
done:
    for (i = 0; i < 4; i++)
        free(t[i]);
    return ret;
}

/* A hot-code key code[FILE:LINE:QUALNAME]<rest> with FILE and QUALNAME in
 * the canonical text form, as a new string (*len its length); NULL if
 * the key is not one, does not decode, or its LINE is no line number
 * (psf_parse_line: digits only, so nothing else of it ever reaches a
 * report; written back as a plain decimal, 007 as 7).  Format 1 wrote FILE raw (it
 * may hold ':'): the key splits at its last two ':' before "]." there.
 * The site key of generated code (FORMAT.md 1.18),
 * FILE:LINE:QUALNAME:MODULE:FUNCQUAL, keeps its two more parts, each
 * decoded alike; any other number of parts is no key. */
static char *
code_key(int version, const char *k, size_t n, size_t *len)
{
    const char *b = k + 5, *e = NULL, *c1 = NULL, *c2 = NULL, *c3 = NULL, *c4 = NULL, *p;
    char *file = NULL, *qual = NULL, *mod = NULL, *fq = NULL, *out = NULL;
    size_t fl, ql, ml = 0, fql = 0, cap;
    long line;

    for (p = k + n; p > b; p--)
        if (p[-1] == ']' && p < k + n && p[0] == '.') {
            e = p - 1;
            break;
        }
    if (e == NULL)
        return NULL;
    if (version >= 2) {
        c1 = memchr(b, ':', (size_t)(e - b));
        c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
        c3 = c2 ? memchr(c2 + 1, ':', (size_t)(e - c2 - 1)) : NULL;
        c4 = c3 ? memchr(c3 + 1, ':', (size_t)(e - c3 - 1)) : NULL;
        if (c3 != NULL && (c4 == NULL || memchr(c4 + 1, ':', (size_t)(e - c4 - 1)) != NULL))
            return NULL;
    }
    else {
        for (p = e; p > b && c2 == NULL; p--)
            if (p[-1] == ':')
                c2 = p - 1;
        for (p = c2; c2 && p > b && c1 == NULL; p--)
            if (p[-1] == ':')
                c1 = p - 1;
    }
    if (c1 == NULL || c2 == NULL || psf_parse_line(c1 + 1, (size_t)(c2 - c1 - 1), &line) != 0)
        return NULL;
    file = text_from_dump(version, b, (size_t)(c1 - b), &fl);
    qual = text_from_dump(version, c2 + 1, (size_t)((c3 ? c3 : e) - c2 - 1), &ql);
    if (c3 != NULL) {
        mod = text_from_dump(version, c3 + 1, (size_t)(c4 - c3 - 1), &ml);
        fq = text_from_dump(version, c4 + 1, (size_t)(e - c4 - 1), &fql);
    }
    if (file && qual && (c3 == NULL || (mod && fq))) {
        cap = fl + ql + ml + fql + (size_t)(k + n - e) + 32;
        out = cli_xmalloc(cap);
        *len = (size_t)snprintf(out, cap, PSF_KEY_CODE "%s:%ld:%s%s%s%s%s%.*s", file, line, qual,
                                c3 ? ":" : "", c3 ? mod : "", c3 ? ":" : "", c3 ? fq : "",
                                (int)(k + n - e), e);
    }
    free(file);
    free(qual);
    free(mod);
    free(fq);
    return out;
}

/* ---- the source view's text lines (FORMAT.md 1.18) ------------------- */

/* Whether s[0..n) is a position or number field: digits, or "-" where a
 * position is None (allow_none). */
static int
num_field(const char *s, size_t n, int allow_none)
{
    size_t i;

    if (allow_none && n == 1 && s[0] == PSF_NO_POSITION[0])
        return 1;
    if (n == 0 || n > 19)
        return 0;
    for (i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Whether s[0..n) is a name: letters, digits and '_' only. */
static int
name_field(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return n > 0;
}

/* Whether val is a site row FAMILY | STATE | DETAIL | LINE | COL |
 * END_LINE | END_COL, each field as 1.18 says. */
static int
site_row_ok(const char *val, size_t vlen)
{
    const char *f[7];
    size_t fl[7], i;
    int state;

    if (psf_split_fields(val, vlen, f, fl, 7) != 7)
        return 0;
    state = psf_site_state(f[1], fl[1]);
    if (!name_field(f[0], fl[0]) || state < 0)
        return 0;
    if (state == 0   ? !name_field(f[2], fl[2])
        : state == 1 ? !num_field(f[2], fl[2], 0)
                     : fl[2] != 0)
        return 0;
    for (i = 3; i < 7; i++)
        if (!num_field(f[i], fl[i], 1))
            return 0;
    return 1;
}

/* A text line of the source view, as a counter of its row, 1 (the
 * command's own spelling, psf_keys.h): code[K].site[OFFSET] : ROW as
 * code[K].site_row[OFFSET | ROW], source[FILE].line[N] : TEXT as
 * source[FILE].text[N | TEXT], FILE, K and TEXT in the canonical text
 * form.  Returns 0, 1 if the line is no such key, -1 if it is one whose
 * value is malformed. */
static int
view_text_line(ingest_worker *w, const psf_line *ln)
{
    psf_key k;
    char *a = NULL, *t = NULL, *key;
    size_t al = 0, tl, n;
    long line;
    int ret = -1;

    psf_key_parse(ln->key, ln->key_len, &k);
    if (k.kind == PSF_K_CODE_SITE) {
        if (!num_field(k.b, k.b_len, 0) || !site_row_ok(ln->val, ln->val_len))
            return -1;
        if ((a = code_key(w->version, ln->key, ln->key_len, &al)) == NULL)
            return -1;
        psf_key_parse(a, al, &k);
        n = (size_t)(k.a - a) + k.a_len + ln->val_len + k.b_len + 64;
        key = cli_xmalloc(n);
        n = (size_t)snprintf(key, n, "%.*s" PSF_KEY_CODE_SITE_ROW "%.*s" PSF_SEP_FIELD "%.*s]",
                             (int)(k.a + k.a_len - a), a, (int)k.b_len, k.b, (int)ln->val_len,
                             ln->val);
    }
    else if (k.kind == PSF_K_SOURCE) {
        if (psf_parse_line(k.b, k.b_len, &line) != 0 ||
            (a = text_from_dump(w->version, k.a, k.a_len, &al)) == NULL ||
            (t = text_from_dump(w->version, ln->val, ln->val_len, &tl)) == NULL)
            goto done;
        n = al + tl + k.b_len + 64;
        key = cli_xmalloc(n);
        n = (size_t)snprintf(key, n,
                             PSF_KEY_SOURCE "%s" PSF_KEY_SOURCE_ROW "%.*s" PSF_SEP_FIELD "%s]", a,
                             (int)k.b_len, k.b, t);
    }
    else {
        return 1;
    }
    ingest_counter(w, key, n, 1);
    free(key);
    ret = 0;
done:
    free(a);
    free(t);
    return ret;
}

/* ---- text dumps -------------------------------------------------------- */

/* Line problems: the first LINE_WARN_MAX of a file are warned one by one,
 * the rest counted and summed up in one warning, so that a file that is
 * not a dump at all does not flood stderr. */
#define LINE_WARN_MAX 10
#define LINE_PROBLEM(kind, ...)                                    \
    do {                                                           \
        if (shown++ < LINE_WARN_MAX)                               \
            agg_problem(&w->a, (kind), path, lineno, __VA_ARGS__); \
        else {                                                     \
            w->a.problems[(kind)]++;                               \
            hidden++;                                              \
        }                                                          \
    } while (0)

/* A hot-code counter, its key in canonical form. */
static void
own_code_counter(ingest_worker *w, const char *path, unsigned long lineno, const psf_line *ln,
                 uint64_t v, unsigned long *shown, unsigned long *hidden)
{
    size_t cl;
    char *ck = code_key(w->version, ln->key, ln->key_len, &cl);
    const char *why = "hot-code key is not \"code[FILE:LINE:QUALNAME]...\" in the dump's "
                      "text encoding (LINE: digits, at most 2**31-1), line not counted";
    psf_key k;
    long line;

    if (ck != NULL) {
        psf_key_parse(ck, cl, &k);
        if (k.kind != PSF_K_CODE_LINE ||
            (k.b_len == sizeof PSF_CODE_NO_LINE - 1 &&
             memcmp(k.b, PSF_CODE_NO_LINE, k.b_len) == 0) ||
            psf_parse_line(k.b, k.b_len, &line) == 0) {
            ingest_counter(w, ck, cl, v);
            free(ck);
            return;
        }
        free(ck);
        why = "hot-code line[N]: N is not a line number (digits, at most 2**31-1) nor \"none\", "
              "line not counted";
    }
    if ((*shown)++ < LINE_WARN_MAX) {
        agg_problem(&w->a, AGG_P_UNPARSABLE, path, lineno, "%s", why);
    }
    else {
        w->a.problems[AGG_P_UNPARSABLE]++;
        (*hidden)++;
    }
}

/* Whether the line p..nl is a census site, and then its key and value in
 * *ln: split after "census.site[I]", not at the last ':' (format 1 wrote
 * source lines raw, colons and all). */
static int
site_line(const char *p, const char *nl, psf_line *ln)
{
    const char *b = p, *e = nl, *k;
    size_t pre = sizeof PSF_KEY_CENSUS_SITE - 1;

    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    if ((size_t)(e - b) <= pre || memcmp(b, PSF_KEY_CENSUS_SITE, pre) != 0)
        return 0;
    k = memchr(b, ']', (size_t)(e - b));
    if (k == NULL || k + 1 >= e || (k[1] != ':' && (k + 2 >= e || memcmp(k + 1, " :", 2) != 0)))
        return 0;
    ln->key = b;
    ln->key_len = (size_t)(k + 1 - b);
    ln->val = k + (k[1] == ':' ? 2 : 3);
    while (ln->val < e && *ln->val == ' ')
        ln->val++;
    ln->val_len = (size_t)(e - ln->val);
    return 1;
}

void
read_text(ingest_worker *w, const char *path, const char *buf, size_t n)
{
    const char *p = buf, *end = buf + n, *nl;
    unsigned long lineno = 0;
    int own, st, view;
    psf_line ln;
    uint64_t v;
    unsigned long shown = 0, hidden = 0;

    own = n >= 14 && memcmp(buf, PSF_H_FORMAT, 14) == 0;
    w->version = 1;
    if (own) {
        nl = memchr(buf, '\n', n);
        if (psf_line_split(buf, (size_t)((nl ? nl : end) - buf), &ln) != PSF_LINE_OK ||
            ln.val_len != 1 || ln.val[0] < '1' || ln.val[0] > '0' + PSF_FORMAT_VERSION) {
            agg_problem(&w->a, AGG_P_UNSUPPORTED, path, 1,
                        "unsupported dump format version, file not counted");
            return;
        }
    }
    if (own)
        w->version = ln.val[0] - '0';
    ingest_begin(w);
    while (p < end) {
        lineno++;
        nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL) {
            agg_problem(&w->a, AGG_P_TRUNCATED, path, lineno,
                        "last line has no newline (file cut short?), line not counted");
            break;
        }
        st = psf_line_split(p, (size_t)(nl - p), &ln);
        if (st == PSF_LINE_OK) {
            if (ln.header) {
                size_t tl;
                char *t = NULL;
                if (text_header_is_free(ln.key, ln.key_len) &&
                    (t = text_from_dump(w->version, ln.val, ln.val_len, &tl)) == NULL)
                    LINE_PROBLEM(AGG_P_UNPARSABLE,
                                 "%% not followed by two hexadecimal digits "
                                 "in free text, line not counted%s",
                                 "");
                else
                    ingest_header(w, ln.key, ln.key_len, t ? t : ln.val, t ? tl : ln.val_len);
                free(t);
            }
            else if (site_line(p, nl, &ln)) {
                if (census_site(w, ln.val, ln.val_len) != 0)
                    LINE_PROBLEM(AGG_P_UNPARSABLE,
                                 "census site is not \"FAMILY | ATTEMPTS | "
                                 "COUNTER | FILE | LINE | FUNCTION | SOURCE\", line not counted%s",
                                 "");
            }
            else {
                st = psf_parse_u64(ln.val, ln.val_len, &v);
                if (st != PSF_NUM_OK && own && w->version >= 2 &&
                    (view = view_text_line(w, &ln)) <= 0) {
                    if (view < 0)
                        LINE_PROBLEM(AGG_P_UNPARSABLE,
                                     "source-view line is not as FORMAT.md 1.18 says, "
                                     "line not counted%s",
                                     "");
                }
                else if (st == PSF_NUM_OK && own && ln.key_len > 5 &&
                         memcmp(ln.key, PSF_KEY_CODE, 5) == 0)
                    own_code_counter(w, path, lineno, &ln, v, &shown, &hidden);
                else if (st == PSF_NUM_OK)
                    ingest_counter(w, ln.key, ln.key_len, v);
                else if (st == PSF_NUM_OVERFLOW)
                    LINE_PROBLEM(AGG_P_OVERFLOW, "value of %.*s exceeds 2**64-1, line not counted",
                                 (int)(ln.key_len > 200 ? 200 : ln.key_len), ln.key);
                else
                    LINE_PROBLEM(AGG_P_UNPARSABLE,
                                 "value is not an unsigned integer, line not counted%s", "");
            }
        }
        else if (st != PSF_LINE_BLANK) {
            LINE_PROBLEM(AGG_P_UNPARSABLE, "no \"key : value\" on this line, not counted%s", "");
        }
        p = nl + 1;
    }
    if (hidden && !w->a.quiet) {
        flockfile(stderr); /* one line whole, whatever other readers say */
        fputs("pystats: warning: ", stderr);
        cli_fput_esc(stderr, path);
        fprintf(stderr, ": %lu more bad lines not shown (counted in the report)\n", hidden);
        funlockfile(stderr);
    }
    if (w->nent == 0) {
        /* A header alone (an own dump cut after its header) counts
         * nothing: not a data file. */
        agg_problem(&w->a, AGG_P_EMPTY, path, 0, "%s, file not counted",
                    w->nhdr ? "a header and no counters" : "no counters");
        ingest_discard(w);
        return;
    }
    ingest_end(w, path, own ? AGG_FMT_OWN_TEXT : AGG_FMT_NATIVE_TEXT, 1);
}
