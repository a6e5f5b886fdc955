/* load.c: reading dump files into an aggregate on several threads. */
#include "load.h"

#include "cli.h"
#include "text.h"
#include "../format/psf_keys.h"
#include "../format/psf_detect.h"
#include "../format/psf_key.h"
#include "../format/psf_line.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NATIVE_COUNTS "specialized-forms"
#define OWN_COUNTS "base-instructions"
#define JOBS_MAX 4

/* ---- the per-file protocol ------------------------------------------ */

#define NO_ID UINT32_MAX

void
load_file_begin(load_worker *w)
{
    w->nent = 0;
    w->marks = 0;
    w->prev = NO_ID;
}

/* Dumps of one kind list their keys in the same order, so the key that
 * followed this line's predecessor last time is almost always this
 * line's key: one comparison instead of hashing and probing. */
static size_t
raw_id(load_worker *w, const char *key, size_t klen, int *is_new)
{
    uint32_t *slot = w->prev == NO_ID ? &w->first : &w->ri[w->prev].next;
    uint32_t guess = *slot;
    size_t id;

    if (guess != NO_ID && ktab_len(&w->raw, guess) == klen
        && memcmp(ktab_key(&w->raw, guess), key, klen) == 0) {
        *is_new = 0;
        id = guess;
    } else {
        id = ktab_intern(&w->raw, key, klen, is_new);
        *slot = (uint32_t)id;
    }
    return id;
}

void
load_counter(load_worker *w, const char *key, size_t klen, uint64_t v)
{
    int is_new;
    size_t id = raw_id(w, key, klen, &is_new);

    if (is_new) {
        psf_key k;
        if (id >= w->ri_cap) {
            w->ri_cap = w->ri_cap ? w->ri_cap * 2 : 1024;
            w->ri = cli_xrealloc(w->ri, w->ri_cap * sizeof *w->ri);
        }
        psf_key_parse(key, klen, &k);
        w->ri[id].kind = k.kind;
        w->ri[id].marks = psf_key_marks(&k, key, klen);
        w->ri[id].next = NO_ID;
    }
    w->prev = (uint32_t)id;
    w->marks |= w->ri[id].marks;
    if (w->nent == w->ent_cap) {
        w->ent_cap = w->ent_cap ? w->ent_cap * 2 : 4096;
        w->ent = cli_xrealloc(w->ent, w->ent_cap * sizeof *w->ent);
    }
    w->ent[w->nent].raw = (uint32_t)id;
    w->ent[w->nent].v = v;
    w->nent++;
}

void
load_header(load_worker *w, const char *key, size_t klen,
            const char *val, size_t vlen)
{
    if (w->nhdr == w->hdr_cap) {
        w->hdr_cap = w->hdr_cap ? w->hdr_cap * 2 : 32;
        w->hdr = cli_xrealloc(w->hdr, w->hdr_cap * sizeof *w->hdr);
    }
    w->hdr[w->nhdr].key = cli_xstrndup(key, klen);
    w->hdr[w->nhdr].val = cli_xstrndup(val, vlen);
    w->nhdr++;
    if (klen >= 8 && memcmp(key, "pystats.", 8) == 0)
        w->marks |= PSF_M_OWN_HEADER;
}

static const char *
hdr_get(const load_worker *w, const char *key)
{
    size_t i;

    for (i = 0; i < w->nhdr; i++)
        if (strcmp(w->hdr[i].key, key) == 0)
            return w->hdr[i].val;
    return NULL;
}

static void
hdr_reset(load_worker *w)
{
    size_t i;

    for (i = 0; i < w->nhdr; i++) {
        free(w->hdr[i].key);
        free(w->hdr[i].val);
    }
    w->nhdr = 0;
}

/* Header keys that differ in every file and say nothing as a set. */
static int
hdr_is_per_process(const char *key)
{
    return strcmp(key, PSF_H_FORMAT) == 0
        || strcmp(key, PSF_H_PID) == 0
        || strcmp(key, PSF_H_PPID) == 0
        || strncmp(key, PSF_H_PREFIX_TIME, sizeof PSF_H_PREFIX_TIME - 1) == 0;
}

static size_t
group_index(const load_worker *w, const agg_group *g)
{
    size_t i;

    for (i = 0; i < w->a.ng; i++)
        if (w->a.g[i] == g)
            break;
    return i;
}

/* The translation raw id -> slot of group gi, grown to cover all ids. */
static int32_t *
xlate(load_worker *w, size_t gi)
{
    size_t i, n = w->raw.n;

    if (gi >= w->nxl) {
        w->xl = cli_xrealloc(w->xl, (gi + 1) * sizeof *w->xl);
        w->xl_len = cli_xrealloc(w->xl_len, (gi + 1) * sizeof *w->xl_len);
        for (i = w->nxl; i <= gi; i++) {
            w->xl[i] = NULL;
            w->xl_len[i] = 0;
        }
        w->nxl = gi + 1;
    }
    if (w->xl_len[gi] < n) {
        w->xl[gi] = cli_xrealloc(w->xl[gi], n * sizeof **w->xl);
        for (i = w->xl_len[gi]; i < n; i++)
            w->xl[gi][i] = -1;
        w->xl_len[gi] = n;
    }
    return w->xl[gi];
}

static size_t
canon_slot(load_worker *w, agg_group *g, uint32_t raw)
{
    const char *key = ktab_key(&w->raw, raw);
    size_t klen = ktab_len(&w->raw, raw), n;
    char buf[1024];
    psf_key k;

    psf_key_parse(key, klen, &k);
    n = psf_key_canon(&k, key, klen, g->minor, buf, sizeof buf);
    if (n == 0)
        return agg_slot(g, key, klen);
    return agg_slot(g, buf, n);
}

int
load_reserve(load_worker *w, const char *path, unsigned __int128 n)
{
    uint_fast64_t cur = atomic_load(w->total);

    do {
        if (n > (unsigned __int128)(UINT64_MAX - cur)) {
            if (n > UINT64_MAX)
                agg_problem(&w->a, AGG_P_OVERFLOW, path, 0, "its counters add up past "
                            "2**64-1, so totals could not be exact: file not counted");
            else
                agg_problem(&w->a, AGG_P_OVERFLOW, path, 0, "its counters would take the sum "
                            "of all counters read past 2**64-1, so totals could not be exact: "
                            "file not counted");
            return -1;
        }
    } while (!atomic_compare_exchange_weak(w->total, &cur, cur + (uint_fast64_t)n));
    return 0;
}

void
load_file_end(load_worker *w, const char *path, int format, uint64_t nfiles)
{
    int own = format == AGG_FMT_OWN_TEXT;
    const char *how = NULL, *counts = NATIVE_COUNTS, *v;
    int minor;
    agg_group *g;
    int32_t *xl;
    size_t i;
    unsigned __int128 sum = 0;

    for (i = 0; i < w->nent; i++)
        if (agg_mode_of_kind(w->ri[w->ent[i].raw].kind) == AGG_ADD_SUM)
            sum += w->ent[i].v;
    if (load_reserve(w, path, sum) != 0) {
        hdr_reset(w);
        w->nent = 0;
        return;
    }
    if (own) {
        v = hdr_get(w, PSF_H_PY_VERSION);
        minor = v ? psf_parse_version(v, strlen(v)) : 0;
        how = minor ? "meta.python.version header" : "no usable meta.python.version header";
        v = hdr_get(w, PSF_H_COUNTS);
        counts = v && *v ? v : OWN_COUNTS;
    } else if (w->opt->force_minor) {
        minor = w->opt->force_minor;
        how = "--python-version";
    } else {
        minor = psf_detect_native(w->marks, &how);
    }
    v = NULL;
    if (w->opt->by_label && (v = hdr_get(w, PSF_H_LABEL)) == NULL)
        v = "";
    g = agg_group_get_label(&w->a, own ? AGG_OWN : AGG_NATIVE, minor, counts, v);
    xl = xlate(w, group_index(w, g));
    for (i = 0; i < w->nent; i++) {
        uint32_t raw = w->ent[i].raw;
        if (xl[raw] < 0)
            xl[raw] = (int32_t)canon_slot(w, g, raw);
        if (agg_add(g, (size_t)xl[raw], w->ent[i].v, agg_mode_of_kind(w->ri[raw].kind)))
            agg_problem(&w->a, AGG_P_OVERFLOW, path, 0,
                        "the sum of %s exceeds 2**64-1; kept at the maximum",
                        ktab_key(&w->raw, raw));
    }
    g->files += nfiles;
    g->fmt[format] += nfiles;
    agg_strs_add(&g->how, how, strlen(how), nfiles);
    if (own) {
        v = hdr_get(w, PSF_H_COLLECTOR);
        v = v && *v ? v : "pystats (unknown version)";
    } else {
        v = "CPython --enable-pystats";
    }
    agg_strs_add(&g->collectors, v, strlen(v), nfiles);
    for (i = 0; i < w->nhdr; i++)
        if (!hdr_is_per_process(w->hdr[i].key))
            agg_hdr_add(g, w->hdr[i].key, w->hdr[i].val, 1);
    agg_time(g, hdr_get(w, PSF_H_TIME_START), hdr_get(w, PSF_H_TIME_END));
    load_observe(w, path, format, nfiles, g, xl);
    hdr_reset(w);
    w->nent = 0;
}

void
load_observe(load_worker *w, const char *path, int format, uint64_t nfiles,
             const agg_group *g, const int32_t *slot)
{
    load_file_info f;

    if (w->obs == NULL || w->obs->file == NULL)
        return;
    f.path = path;
    f.format = format;
    f.nfiles = nfiles;
    f.g = g;
    f.ent = w->ent;
    f.nent = slot ? w->nent : 0;
    f.slot = slot;
    f.hdr = w->hdr;
    f.nhdr = w->nhdr;
    w->obs->file(w->obs->ctx, &w->obs_state, &f);
}

/* ---- census sites and hot-code keys ------------------------------------- */

/* Split "census.site[I]"'s value F | ATTEMPTS | COUNTER | FILE | LINE |
 * QUALNAME | SOURCE into f[0..6].  In format 2 every field is encoded, so
 * " | " only ever separates; in format 1 SOURCE, last, may hold " | ".
 * A line's trailing blanks are gone, so an empty SOURCE leaves the value
 * ending in " |".  Returns 0, or -1 if a field is missing or ATTEMPTS /
 * LINE are not numbers. */
static int
site_fields(const char *val, size_t vlen, const char **f, size_t *fl)
{
    const char *p = val, *e = val + vlen, *sep;
    uint64_t n;
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
    if (psf_parse_u64(f[1], fl[1], &n) != PSF_NUM_OK || psf_parse_u64(f[4], fl[4], &n) != PSF_NUM_OK
        || fl[0] == 0)
        return -1;
    return 0;
}

/* A census site becomes two counters of its row (family, file, line,
 * function, source, each in the canonical text form of text.h):
 * census.sites[ROW].count, 1, summed, and census.sites[ROW].attempts,
 * kept at the maximum. */
int
load_census_site(load_worker *w, const char *val, size_t vlen)
{
    static const int keep[] = {0, 3, 5, 6};   /* family, file, function, source */
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
    load_counter(w, key, n, 1);
    memcpy(key + n - 6, ".attempts", 10);
    load_counter(w, key, n + 3, attempts);
    free(key);
    ret = 0;
done:
    for (i = 0; i < 4; i++)
        free(t[i]);
    return ret;
}

/* A hot-code key code[FILE:LINE:QUALNAME]<rest> with FILE and QUALNAME in
 * the canonical text form, as a new string (*len its length); NULL if
 * the key is not one or does not decode.  Format 1 wrote FILE raw (it
 * may hold ':'): the key splits at its last two ':' before "]." there. */
static char *
code_key(int version, const char *k, size_t n, size_t *len)
{
    const char *b = k + 5, *e = NULL, *c1 = NULL, *c2 = NULL, *p;
    char *file = NULL, *qual = NULL, *out = NULL;
    size_t fl, ql, cap;

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
    } else {
        for (p = e; p > b && c2 == NULL; p--)
            if (p[-1] == ':')
                c2 = p - 1;
        for (p = c2; c2 && p > b && c1 == NULL; p--)
            if (p[-1] == ':')
                c1 = p - 1;
    }
    if (c1 == NULL || c2 == NULL)
        return NULL;
    file = text_from_dump(version, b, (size_t)(c1 - b), &fl);
    qual = text_from_dump(version, c2 + 1, (size_t)(e - c2 - 1), &ql);
    if (file && qual) {
        cap = fl + ql + (size_t)(c2 - c1) + (size_t)(k + n - e) + 8;
        out = cli_xmalloc(cap);
        *len = (size_t)snprintf(out, cap, PSF_KEY_CODE "%s%.*s%s%.*s", file, (int)(c2 - c1 + 1), c1,
                                qual, (int)(k + n - e), e);
    }
    free(file);
    free(qual);
    return out;
}

/* ---- text dumps -------------------------------------------------------- */

static unsigned long
line_of(const char *buf, const char *p)
{
    unsigned long n = 1;

    for (; buf < p; buf++)
        n += *buf == '\n';
    return n;
}

/* Line problems: the first LINE_WARN_MAX of a file are warned one by one,
 * the rest counted and summed up in one warning, so that a file that is
 * not a dump at all does not flood stderr. */
#define LINE_WARN_MAX 10
#define LINE_PROBLEM(kind, ...)                                          \
    do {                                                                 \
        if (shown++ < LINE_WARN_MAX)                                     \
            agg_problem(&w->a, (kind), path, lineno, __VA_ARGS__);       \
        else {                                                           \
            w->a.problems[(kind)]++;                                     \
            hidden++;                                                    \
        }                                                                \
    } while (0)

/* A hot-code counter, its key in canonical form. */
static void
own_code_counter(load_worker *w, const char *path, unsigned long lineno, const psf_line *ln,
                 uint64_t v, unsigned long *shown, unsigned long *hidden)
{
    size_t cl;
    char *ck = code_key(w->version, ln->key, ln->key_len, &cl);

    if (ck != NULL) {
        load_counter(w, ck, cl, v);
        free(ck);
    } else if ((*shown)++ < LINE_WARN_MAX) {
        agg_problem(&w->a, AGG_P_UNPARSABLE, path, lineno,
                    "hot-code key is not \"code[FILE:LINE:QUALNAME]...\" in the dump's "
                    "text encoding, line not counted");
    } else {
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

static void
parse_text(load_worker *w, const char *path, char *buf, size_t n)
{
    const char *p = buf, *end = buf + n, *nl, *z;
    unsigned long lineno = 0;
    int own, st;
    psf_line ln;
    uint64_t v;
    unsigned long shown = 0, hidden = 0;

    /* A UTF-8 byte order mark (some editors write one) is not content. */
    if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        buf += 3;
        n -= 3;
        p = buf;
        end = buf + n;
    }
    if (n == 0) {
        agg_problem(&w->a, AGG_P_EMPTY, path, 0, "empty file, not counted");
        return;
    }
    if ((z = memchr(buf, '\0', n)) != NULL) {
        agg_problem(&w->a, AGG_P_BINARY, path, line_of(buf, z),
                    "binary data (NUL byte), file not counted");
        return;
    }
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    if (p < end && *p == '{') {
        load_json(w, path, buf, n);
        return;
    }
    p = buf;
    own = n >= 14 && memcmp(buf, PSF_H_FORMAT, 14) == 0;
    w->version = 1;
    if (own) {
        nl = memchr(buf, '\n', n);
        if (psf_line_split(buf, (size_t)((nl ? nl : end) - buf), &ln) != PSF_LINE_OK
            || ln.val_len != 1 || ln.val[0] < '1' || ln.val[0] > '0' + PSF_FORMAT_VERSION) {
            agg_problem(&w->a, AGG_P_UNSUPPORTED, path, 1,
                        "unsupported dump format version, file not counted");
            return;
        }
    }
    if (own)
        w->version = ln.val[0] - '0';
    load_file_begin(w);
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
                if (text_header_is_free(ln.key, ln.key_len)
                    && (t = text_from_dump(w->version, ln.val, ln.val_len, &tl)) == NULL)
                    LINE_PROBLEM(AGG_P_UNPARSABLE, "%% not followed by two hexadecimal digits "
                                 "in free text, line not counted%s", "");
                else
                    load_header(w, ln.key, ln.key_len, t ? t : ln.val, t ? tl : ln.val_len);
                free(t);
            } else if (site_line(p, nl, &ln)) {
                if (load_census_site(w, ln.val, ln.val_len) != 0)
                    LINE_PROBLEM(AGG_P_UNPARSABLE, "census site is not \"FAMILY | ATTEMPTS | "
                                 "COUNTER | FILE | LINE | FUNCTION | SOURCE\", line not counted%s", "");
            } else {
                st = psf_parse_u64(ln.val, ln.val_len, &v);
                if (st == PSF_NUM_OK && own && ln.key_len > 5
                    && memcmp(ln.key, PSF_KEY_CODE, 5) == 0)
                    own_code_counter(w, path, lineno, &ln, v, &shown, &hidden);
                else if (st == PSF_NUM_OK)
                    load_counter(w, ln.key, ln.key_len, v);
                else if (st == PSF_NUM_OVERFLOW)
                    LINE_PROBLEM(AGG_P_OVERFLOW, "value of %.*s exceeds 2**64-1, line not counted",
                                 (int)(ln.key_len > 200 ? 200 : ln.key_len), ln.key);
                else
                    LINE_PROBLEM(AGG_P_UNPARSABLE,
                                 "value is not an unsigned integer, line not counted%s", "");
            }
        } else if (st != PSF_LINE_BLANK) {
            LINE_PROBLEM(AGG_P_UNPARSABLE, "no \"key : value\" on this line, not counted%s", "");
        }
        p = nl + 1;
    }
    if (hidden && !w->a.quiet) {
        fputs("pystats: warning: ", stderr);
        cli_fput_esc(stderr, path);
        fprintf(stderr, ": %lu more bad lines not shown (counted in the report)\n", hidden);
    }
    if (w->nent == 0) {
        /* A header alone (an own dump cut after its header) counts
         * nothing: not a data file. */
        agg_problem(&w->a, AGG_P_EMPTY, path, 0, "%s, file not counted",
                    w->nhdr ? "a header and no counters" : "no counters");
        hdr_reset(w);
        return;
    }
    load_file_end(w, path, own ? AGG_FMT_OWN_TEXT : AGG_FMT_NATIVE_TEXT, 1);
}

static const char *
file_kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
         : S_ISDIR(m) ? "a directory" : "not a file";
}

static void
do_file(load_worker *w, const char *path)
{
    struct stat st;
    size_t n = 0;
    ssize_t r;
    int fd;

    w->a.inputs++;
    /* Only regular files are read: a FIFO (or a device) in a shared
     * directory would block the reader forever.  Decided before opening,
     * and again on the descriptor, opened so that the open itself never
     * blocks (a FIFO swapped in between). */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "not a regular file (%s), skipped",
                    file_kind(st.st_mode));
        return;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "cannot open: %s", strerror(errno));
        return;
    }
    if (fstat(fd, &st) != 0) {
        agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "cannot stat: %s", strerror(errno));
        close(fd);
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "not a regular file (%s), skipped",
                    file_kind(st.st_mode));
        close(fd);
        return;
    }
    for (;;) {
        if (w->buf_cap < n + 65536 + 1 || w->buf_cap < (size_t)st.st_size + 2) {
            size_t cap = w->buf_cap ? w->buf_cap : 262144;
            while (cap < n + 65536 + 1 || cap < (size_t)st.st_size + 2)
                cap *= 2;
            w->buf = cli_xrealloc(w->buf, cap);
            w->buf_cap = cap;
        }
        r = read(fd, w->buf + n, w->buf_cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "read error: %s", strerror(errno));
            close(fd);
            return;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    w->buf[n] = '\0';
    parse_text(w, path, w->buf, n);
}

/* ---- inputs and threads --------------------------------------------- */

typedef struct file_list {
    char **path;        /* owned */
    size_t n, cap;
} file_list;

static void
list_add(file_list *l, char *path)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->path = cli_xrealloc(l->path, l->cap * sizeof *l->path);
    }
    l->path[l->n++] = path;
}

static int
str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file in a directory others can write, owned by neither the user nor
 * root (a shared /tmp/py_stats): said, then read as any other. */
static void
foreign_file(const char *path, unsigned long uid, agg *a, const load_observer *obs)
{
    if (!a->quiet)
        fprintf(stderr, "pystats: warning: %s: owned by uid %lu, not by you or root, in a "
                "directory others can write: anyone could have written it\n", path, uid);
    if (obs && obs->foreign)
        obs->foreign(obs->ctx, path, uid);
}

/* Every non-hidden entry of dir that is not a directory, sorted by name
 * (hidden names are the writers' temporary files: told to the observer,
 * never read). */
static int
list_dir(file_list *l, const char *dir, agg *a, const load_observer *obs)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t first = l->n, dlen = strlen(dir);
    struct stat st;
    int shared;

    if (d == NULL) {
        agg_problem(a, AGG_P_UNREADABLE, dir, 0, "cannot list directory: %s", strerror(errno));
        return -1;
    }
    shared = fstat(dirfd(d), &st) == 0 && (st.st_mode & S_IWOTH);
    while ((e = readdir(d)) != NULL) {
        size_t nlen = strlen(e->d_name), size = dlen + nlen + 2;
        int hidden = e->d_name[0] == '.';
        char *path;
        if (hidden && !(obs && obs->hidden && nlen > 5 &&
                        strcmp(e->d_name + nlen - 4, ".tmp") == 0))
            continue;
        path = cli_xmalloc(size);
        snprintf(path, size, "%s%s%s", dir, (dlen && dir[dlen - 1] == '/') ? "" : "/", e->d_name);
        if (hidden) {
            obs->hidden(obs->ctx, path);     /* a writer's temporary */
            free(path);
            continue;
        }
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            free(path);
            continue;
        }
        /* Who put the entry there (lstat: a link's own owner). */
        if (shared && lstat(path, &st) == 0 && st.st_uid != geteuid() && st.st_uid != 0)
            foreign_file(path, (unsigned long)st.st_uid, a, obs);
        list_add(l, path);
    }
    closedir(d);
    if (l->n - first > 1)   /* never qsort(NULL, 0): an empty directory */
        qsort(l->path + first, l->n - first, sizeof *l->path, str_cmp);
    return 0;
}

typedef struct pool {
    load_worker *w;
    file_list *files;
    atomic_size_t next;
} pool;

typedef struct thread_arg {
    pool *p;
    load_worker *w;
} thread_arg;

static void *
thread_main(void *arg)
{
    thread_arg *t = arg;
    size_t i;

    while ((i = atomic_fetch_add(&t->p->next, 1)) < t->p->files->n)
        do_file(t->w, t->p->files->path[i]);
    return NULL;
}

static void
observe_problems(agg *a, const load_observer *obs)
{
    if (obs && obs->problem) {
        a->on_problem = obs->problem;
        a->problem_ctx = obs->ctx;
    }
}

static void
worker_init(load_worker *w, const load_opts *opt, const load_observer *obs)
{
    memset(w, 0, sizeof *w);
    agg_init(&w->a);
    w->a.quiet = opt->quiet;
    w->opt = opt;
    w->obs = obs;
    observe_problems(&w->a, obs);
    ktab_init(&w->raw);
    w->first = NO_ID;
    atomic_init(&w->own_total, 0);
    w->total = &w->own_total;
}

static void
worker_free(load_worker *w)
{
    size_t i;

    if (w->obs && w->obs->free_state && w->obs_state)
        w->obs->free_state(w->obs->ctx, w->obs_state);
    agg_free(&w->a);
    ktab_free(&w->raw);
    free(w->ri);
    for (i = 0; i < w->nxl; i++)
        free(w->xl[i]);
    free(w->xl);
    free(w->xl_len);
    free(w->ent);
    hdr_reset(w);
    free(w->hdr);
    free(w->buf);
}

int
load_inputs(char **inputs, size_t ninputs, const load_opts *opt, agg *out)
{
    return load_inputs_observed(inputs, ninputs, opt, NULL, out);
}

int
load_inputs_observed(char **inputs, size_t ninputs, const load_opts *opt,
                     const load_observer *obs, agg *out)
{
    int ret = 0;
    file_list files = { 0 };
    load_worker *w = NULL;
    thread_arg *args = NULL;
    pthread_t *tid = NULL;
    pool p;
    size_t i, jobs, started = 0;
    struct stat st;
    atomic_uint_fast64_t total;

    agg_init(out);
    out->quiet = opt->quiet;
    observe_problems(out, obs);
    for (i = 0; i < ninputs; i++) {
        if (stat(inputs[i], &st) != 0) {
            agg_problem(out, AGG_P_UNREADABLE, inputs[i], 0, "cannot open: %s", strerror(errno));
            ret = -1;
        } else if (S_ISDIR(st.st_mode)) {
            if (list_dir(&files, inputs[i], out, obs) != 0)
                ret = -1;
        } else {
            list_add(&files, cli_xstrdup(inputs[i]));
        }
    }
    jobs = opt->jobs > 0 ? (size_t)opt->jobs : (size_t)sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1)
        jobs = 1;
    if (opt->jobs <= 0 && jobs > JOBS_MAX)
        jobs = JOBS_MAX;
    if (jobs > files.n)
        jobs = files.n ? files.n : 1;
    w = cli_xcalloc(jobs, sizeof *w);
    args = cli_xcalloc(jobs, sizeof *args);
    tid = cli_xcalloc(jobs, sizeof *tid);
    p.w = w;
    p.files = &files;
    atomic_init(&p.next, 0);
    atomic_init(&total, 0);
    for (i = 0; i < jobs; i++) {
        worker_init(&w[i], opt, obs);
        w[i].total = &total;
        args[i].p = &p;
        args[i].w = &w[i];
    }
    /* Thread 0 is this thread; the others are helpers. */
    for (i = 1; i < jobs; i++) {
        if (pthread_create(&tid[i], NULL, thread_main, &args[i]) != 0)
            break;
        started++;
    }
    thread_main(&args[0]);
    for (i = 1; i <= started; i++)
        pthread_join(tid[i], NULL);
    for (i = 0; i < jobs; i++) {
        agg_merge(out, &w[i].a);
        worker_free(&w[i]);
    }
    out->on_problem = NULL;
    for (i = 0; i < files.n; i++)
        free(files.path[i]);
    free(files.path);
    free(w);
    free(args);
    free(tid);
    return ret;
}
