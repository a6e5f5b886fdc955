/* ingest.h: the sink both readers (read.h) feed, one per reading thread.
 *
 * A reader hands the sink one file at a time: ingest_begin(), its
 * counters and header lines, ingest_end() (or ingest_discard()).  The
 * sink parses each distinct key spelling once (psf_key_parse), finds the
 * file's group (version, format, label), adds the counters to the
 * group's canonical keys and tells the observer (pystats check) what it
 * added.  Each thread owns a worker: its own key table, groups and
 * buffers, so the per-line path takes no lock; load.c merges the workers
 * when all files are read.
 */
#ifndef INGEST_H
#define INGEST_H

#include "agg.h"
#include "ktab.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct load_opts {
    int force_minor; /* --python-version: 0 = detect */
    int jobs;        /* threads; 0 = one per CPU (at most 4) */
    int quiet;       /* no warnings on stderr */
    int by_label;    /* a group per meta.label (agg_group.label) */
    /* Runs (runs.h): NULL reads every file, unsaid (pystats run, which
     * reads its own directory); else "all", "newest" or a run's id.
     * run_given: --run said it (not the command's default); run_quiet:
     * nothing said of the runs on stderr. */
    const char *run;
    int run_given, run_quiet;
} load_opts;

/* Per raw key spelling: what psf_key_parse said, computed once. */
typedef struct ingest_rawinfo {
    int kind;
    unsigned marks;
    agg_key key;   /* the spelling parsed */
    uint32_t next; /* raw id that followed this one last time */
} ingest_rawinfo;

typedef struct ingest_entry {
    uint32_t raw;
    uint64_t v;
} ingest_entry;

typedef struct ingest_hdr {
    char *key, *val; /* owned */
} ingest_hdr;

/* One counted file, as an observer sees it (pystats check). */
typedef struct load_file_info {
    const char *path;
    int format;              /* agg_format */
    uint64_t nfiles;         /* dumps the file stands for */
    const agg_group *g;      /* the reading thread's group it was added to */
    const ingest_entry *ent; /* its counters (none for a summary) */
    size_t nent;
    const ktab *raw;       /* raw id -> the key as the file spells it */
    const int32_t *slot;   /* raw id -> slot in g */
    const ingest_hdr *hdr; /* its header lines */
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
    void (*problem)(void *ctx, int kind, const char *file, unsigned long line, const char *msg);
    /* A hidden temporary (".NAME.tmp") in a listed directory: a dump a
     * writer did not finish.  Never read. */
    void (*hidden)(void *ctx, const char *path);
    /* A file in a listed directory others can write, owned by neither
     * the user nor root: anyone could have put it there.  Read all the
     * same (and warned of on stderr unless quiet). */
    void (*foreign)(void *ctx, const char *path, unsigned long uid);
} load_observer;

typedef struct ingest_worker {
    agg a;
    const load_opts *opt;
    const load_observer *obs; /* borrowed, may be NULL */
    void *obs_state;          /* the observer's */
    ktab raw;                 /* raw key spelling -> raw id */
    ingest_rawinfo *ri;       /* owned, raw.n entries */
    size_t ri_cap;
    int32_t **xl; /* owned: per group of a, raw id -> slot (-1) */
    size_t *xl_len;
    size_t nxl;
    /* The file being read. */
    ingest_entry *ent; /* owned */
    size_t nent, ent_cap;
    ingest_hdr *hdr; /* owned */
    size_t nhdr, hdr_cap;
    unsigned marks;
    int vouched;    /* the reader's by FORMAT.md 1.5's rule (load.c sets
                     * it per file; 0 for bytes of unknown origin) */
    int version;    /* its dump format version (1 for native) */
    uint32_t prev;  /* raw id of the previous counter line */
    uint32_t first; /* raw id of the first counter line last time */
    char *buf;      /* owned read buffer */
    size_t buf_cap;
    /* The sum of every summed counter of every file counted so far, by
     * all the workers of one load (load_reserve); own_total when the
     * worker reads alone. */
    atomic_uint_fast64_t *total;
    atomic_uint_fast64_t own_total;
} ingest_worker;

void ingest_init(ingest_worker *w, const load_opts *opt, const load_observer *obs);
void ingest_free(ingest_worker *w);
/* Route a's problems to the observer (if it takes them). */
void ingest_observe_problems(agg *a, const load_observer *obs);

/* The per-file protocol, shared by the text reader and the JSON readers:
 * begin, counters and header lines, end.  nfiles is how many dumps the
 * file stands for (a CPython JSON summary covers many). */
void ingest_begin(ingest_worker *w);
void ingest_counter(ingest_worker *w, const char *key, size_t klen, uint64_t v);
void ingest_header(ingest_worker *w, const char *key, size_t klen, const char *val, size_t vlen);
void ingest_end(ingest_worker *w, const char *path, int format, uint64_t nfiles);
/* Drop what was handed in since ingest_begin(): the file is not counted. */
void ingest_discard(ingest_worker *w);
/* Every total of a report is a sum of counters of one load: so that none
 * can pass 2**64-1 (none is ever wrapped or capped), a file is counted
 * only if the sum of all summed counters read, its own included, stays
 * within 2**64-1.  n is that file's sum (an upper bound will do).
 * Returns 0 (reserved), or -1: then the file is an overflow problem
 * naming it, and must not be counted. */
int ingest_reserve(ingest_worker *w, const char *path, unsigned __int128 n);

/* Tell the observer (if any) of a file added to g. */
void ingest_observe(ingest_worker *w, const char *path, int format, uint64_t nfiles,
                    const agg_group *g, const int32_t *slot);

#endif
