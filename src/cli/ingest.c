/* ingest.c: the sink both readers feed: a file's counters and header
 * lines, in, then added to its group of the reading thread's aggregate. */
#include "ingest.h"

#include "cli.h"
#include "../format/psf_keys.h"
#include "../format/psf_detect.h"
#include "../format/psf_key.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NATIVE_COUNTS "specialized-forms"
#define OWN_COUNTS "base-instructions"

/* ---- the per-file protocol ------------------------------------------ */

#define NO_ID UINT32_MAX

void
ingest_begin(ingest_worker *w)
{
    w->nent = 0;
    w->marks = 0;
    w->prev = NO_ID;
}

/* Dumps of one kind list their keys in the same order, so the key that
 * followed this line's predecessor last time is almost always this
 * line's key: one comparison instead of hashing and probing. */
static size_t
raw_id(ingest_worker *w, const char *key, size_t klen, int *is_new)
{
    uint32_t *slot = w->prev == NO_ID ? &w->first : &w->ri[w->prev].next;
    uint32_t guess = *slot;
    size_t id;

    if (guess != NO_ID && ktab_len(&w->raw, guess) == klen &&
        memcmp(ktab_key(&w->raw, guess), key, klen) == 0) {
        *is_new = 0;
        id = guess;
    }
    else {
        id = ktab_intern(&w->raw, key, klen, is_new);
        *slot = (uint32_t)id;
    }
    return id;
}

void
ingest_counter(ingest_worker *w, const char *key, size_t klen, uint64_t v)
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
        agg_key_from(key, &k, &w->ri[id].key);
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
ingest_header(ingest_worker *w, const char *key, size_t klen, const char *val, size_t vlen)
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
hdr_get(const ingest_worker *w, const char *key)
{
    size_t i;

    for (i = 0; i < w->nhdr; i++)
        if (strcmp(w->hdr[i].key, key) == 0)
            return w->hdr[i].val;
    return NULL;
}

static void
hdr_reset(ingest_worker *w)
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
    return strcmp(key, PSF_H_FORMAT) == 0 || strcmp(key, PSF_H_PID) == 0 ||
           strcmp(key, PSF_H_PPID) == 0 ||
           strncmp(key, PSF_H_PREFIX_TIME, sizeof PSF_H_PREFIX_TIME - 1) == 0;
}

static size_t
group_index(const ingest_worker *w, const agg_group *g)
{
    size_t i;

    for (i = 0; i < w->a.ng; i++)
        if (w->a.g[i] == g)
            break;
    return i;
}

/* The translation raw id -> slot of group gi, grown to cover all ids. */
static int32_t *
xlate(ingest_worker *w, size_t gi)
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
canon_slot(ingest_worker *w, agg_group *g, uint32_t raw)
{
    const char *key = ktab_key(&w->raw, raw);
    size_t klen = ktab_len(&w->raw, raw), n;
    char buf[1024];
    psf_key k;

    agg_key_to(key, &w->ri[raw].key, &k);
    n = psf_key_canon(&k, key, klen, g->minor, buf, sizeof buf);
    if (n == 0)
        return agg_slot_parsed(g, key, klen, &w->ri[raw].key);
    return agg_slot(g, buf, n);
}

int
ingest_reserve(ingest_worker *w, const char *path, unsigned __int128 n)
{
    uint_fast64_t cur = atomic_load(w->total);

    do {
        if (n > (unsigned __int128)(UINT64_MAX - cur)) {
            if (n > UINT64_MAX)
                agg_problem(&w->a, AGG_P_OVERFLOW, path, 0,
                            "its counters add up past "
                            "2**64-1, so totals could not be exact: file not counted");
            else
                agg_problem(&w->a, AGG_P_OVERFLOW, path, 0,
                            "its counters would take the sum "
                            "of all counters read past 2**64-1, so totals could not be exact: "
                            "file not counted");
            return -1;
        }
    } while (!atomic_compare_exchange_weak(w->total, &cur, cur + (uint_fast64_t)n));
    return 0;
}

/* The version of a native dump or CPython summary, from its own evidence:
 * the keys it counts, the instructions a summary says are specialized
 * forms, and a published file's name (bench_runner writes the version
 * there).  The content gives a lower bound (a version's new names appear
 * only if the run used them); the name gives the version itself. */
static int
native_version(const ingest_worker *w, const char **how)
{
    unsigned marks = w->marks;
    const char *v = hdr_get(w, AGG_HDR_CPY_SPECIALIZED), *e;
    int minor, named;

    for (; v && *v; v = *e ? e + 1 : e) {
        e = strchr(v, ' ');
        if (e == NULL)
            e = v + strlen(v);
        marks |= psf_key_new_name(v, (size_t)(e - v));
    }
    minor = psf_detect_native(marks, how);
    v = hdr_get(w, AGG_HDR_CPY_INPUT);
    named = v ? psf_version_from_name(v) : 0;
    if (named > minor) {
        minor = named;
        *how = "the version in the file's name (...-3.N.x-...-pystats.json)";
    }
    return minor;
}

void
ingest_end(ingest_worker *w, const char *path, int format, uint64_t nfiles)
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
    if (ingest_reserve(w, path, sum) != 0) {
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
    }
    else if (w->opt->force_minor) {
        minor = w->opt->force_minor;
        how = "--python-version";
    }
    else {
        minor = native_version(w, &how);
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
    if (!w->vouched)
        g->foreign += nfiles;
    agg_strs_add(&g->how, how, strlen(how), nfiles);
    if (own) {
        v = hdr_get(w, PSF_H_COLLECTOR);
        v = v && *v ? v : "pystats (unknown version)";
    }
    else {
        v = "CPython --enable-pystats";
    }
    agg_strs_add(&g->collectors, v, strlen(v), nfiles);
    for (i = 0; i < w->nhdr; i++)
        if (!hdr_is_per_process(w->hdr[i].key))
            agg_hdr_add(g, w->hdr[i].key, w->hdr[i].val, 1);
    agg_time(g, hdr_get(w, PSF_H_TIME_START), hdr_get(w, PSF_H_TIME_END));
    ingest_observe(w, path, format, nfiles, g, xl);
    hdr_reset(w);
    w->nent = 0;
}

void
ingest_observe(ingest_worker *w, const char *path, int format, uint64_t nfiles, const agg_group *g,
               const int32_t *slot)
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
    f.raw = &w->raw;
    f.slot = slot;
    f.hdr = w->hdr;
    f.nhdr = w->nhdr;
    w->obs->file(w->obs->ctx, &w->obs_state, &f);
}


void
ingest_discard(ingest_worker *w)
{
    hdr_reset(w);
    w->nent = 0;
}

void
ingest_observe_problems(agg *a, const load_observer *obs)
{
    if (obs && obs->problem) {
        a->on_problem = obs->problem;
        a->problem_ctx = obs->ctx;
    }
}

void
ingest_init(ingest_worker *w, const load_opts *opt, const load_observer *obs)
{
    memset(w, 0, sizeof *w);
    agg_init(&w->a);
    w->a.quiet = opt->quiet;
    w->opt = opt;
    w->obs = obs;
    ingest_observe_problems(&w->a, obs);
    ktab_init(&w->raw);
    w->first = NO_ID;
    atomic_init(&w->own_total, 0);
    w->total = &w->own_total;
}

void
ingest_free(ingest_worker *w)
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
