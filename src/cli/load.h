/* load.h: reading inputs (directories, dump files, JSON summaries) into
 * an aggregate, on several threads.
 *
 * Each thread owns a worker: its own key table, groups and buffers, so
 * the per-line path takes no lock.  Workers are merged when all files are
 * read.  Memory grows with distinct keys and the largest file, not with
 * the number of files.
 */
#ifndef LOAD_H
#define LOAD_H

#include "agg.h"
#include "ktab.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct load_opts {
    int force_minor;        /* --python-version: 0 = detect */
    int jobs;               /* threads; 0 = one per CPU (at most 4) */
    int quiet;              /* no warnings on stderr */
    int by_label;           /* a group per meta.label (agg_group.label) */
} load_opts;

/* Per raw key spelling: what psf_key_parse said, computed once. */
typedef struct load_rawinfo {
    int kind;
    unsigned marks;
    uint32_t next;          /* raw id that followed this one last time */
} load_rawinfo;

typedef struct load_entry {
    uint32_t raw;
    uint64_t v;
} load_entry;

typedef struct load_hdr {
    char *key, *val;        /* owned */
} load_hdr;

/* One counted file, as an observer sees it (pystats check). */
typedef struct load_file_info {
    const char *path;
    int format;             /* agg_format */
    uint64_t nfiles;        /* dumps the file stands for */
    const agg_group *g;     /* the reading thread's group it was added to */
    const load_entry *ent;  /* its counters (none for a summary) */
    size_t nent;
    const int32_t *slot;    /* raw id -> slot in g */
    const load_hdr *hdr;    /* its header lines */
    size_t nhdr;
} load_file_info;

/* Optional observer of what the readers read.  Both functions are called
 * on reader threads: state is that thread's own pointer (NULL at first,
 * the observer's to fill, handed to free_state when the thread is done);
 * anything shared needs the observer's own lock. */
typedef struct load_observer {
    void *ctx;
    void (*file)(void *ctx, void **state, const load_file_info *f);
    void (*free_state)(void *ctx, void *state);
    void (*problem)(void *ctx, int kind, const char *file,
                    unsigned long line, const char *msg);
    /* A hidden temporary (".NAME.tmp") in a listed directory: a dump a
     * writer did not finish.  Never read. */
    void (*hidden)(void *ctx, const char *path);
    /* A file in a listed directory others can write, owned by neither
     * the user nor root: anyone could have put it there.  Read all the
     * same (and warned of on stderr unless quiet). */
    void (*foreign)(void *ctx, const char *path, unsigned long uid);
} load_observer;

typedef struct load_worker {
    agg a;
    const load_opts *opt;
    const load_observer *obs;   /* borrowed, may be NULL */
    void *obs_state;            /* the observer's */
    ktab raw;               /* raw key spelling -> raw id */
    load_rawinfo *ri;       /* owned, raw.n entries */
    size_t ri_cap;
    int32_t **xl;           /* owned: per group of a, raw id -> slot (-1) */
    size_t *xl_len;
    size_t nxl;
    /* The file being read. */
    load_entry *ent;        /* owned */
    size_t nent, ent_cap;
    load_hdr *hdr;          /* owned */
    size_t nhdr, hdr_cap;
    unsigned marks;
    int version;            /* its dump format version (1 for native) */
    uint32_t prev;          /* raw id of the previous counter line */
    uint32_t first;         /* raw id of the first counter line last time */
    char *buf;              /* owned read buffer */
    size_t buf_cap;
    /* The sum of every summed counter of every file counted so far, by
     * all the workers of one load (load_reserve); own_total when the
     * worker reads alone. */
    atomic_uint_fast64_t *total;
    atomic_uint_fast64_t own_total;
} load_worker;

/* Read every input into *out (initialised here).  Returns 0, or -1 if an
 * input names nothing that exists or can be listed (reported on stderr
 * and in out's problems); files inside are read regardless. */
int load_inputs(char **inputs, size_t ninputs, const load_opts *opt, agg *out);
/* The same, telling obs (may be NULL) of every file and problem. */
int load_inputs_observed(char **inputs, size_t ninputs, const load_opts *opt,
                         const load_observer *obs, agg *out);

/* The per-file protocol, shared by the text reader and the JSON readers:
 * begin, counters and header lines, end.  nfiles is how many dumps the
 * file stands for (a CPython JSON summary covers many). */
void load_file_begin(load_worker *w);
void load_counter(load_worker *w, const char *key, size_t klen, uint64_t v);
void load_header(load_worker *w, const char *key, size_t klen,
                 const char *val, size_t vlen);
void load_file_end(load_worker *w, const char *path, int format,
                   uint64_t nfiles);
/* Every total of a report is a sum of counters of one load: so that none
 * can pass 2**64-1 (none is ever wrapped or capped), a file is counted
 * only if the sum of all summed counters read, its own included, stays
 * within 2**64-1.  n is that file's sum (an upper bound will do).
 * Returns 0 (reserved), or -1: then the file is an overflow problem
 * naming it, and must not be counted. */
int load_reserve(load_worker *w, const char *path, unsigned __int128 n);

/* Tell the observer (if any) of a file added to g. */
void load_observe(load_worker *w, const char *path, int format,
                  uint64_t nfiles, const agg_group *g, const int32_t *slot);

/* A census.site[I] text value, counted as its row's two counters
 * (census.sites[FAMILY | FILE | LINE | FUNCTION | SOURCE].count and
 * .attempts).  Returns 0, or -1 if the value is malformed. */
int load_census_site(load_worker *w, const char *val, size_t vlen);

/* JSON inputs (load_json.c): a summary written by --json, or CPython's
 * summarize_stats.py --json-output.  buf is NUL-terminated. */
void load_json(load_worker *w, const char *path, const char *buf, size_t n);

#endif
