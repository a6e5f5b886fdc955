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

#include <stddef.h>
#include <stdint.h>

typedef struct load_opts {
    int force_minor;        /* --python-version: 0 = detect */
    int jobs;               /* threads; 0 = one per CPU (at most 4) */
    int quiet;              /* no warnings on stderr */
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

typedef struct load_worker {
    agg a;
    const load_opts *opt;
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
    uint32_t prev;          /* raw id of the previous counter line */
    uint32_t first;         /* raw id of the first counter line last time */
    char *buf;              /* owned read buffer */
    size_t buf_cap;
} load_worker;

/* Read every input into *out (initialised here).  Returns 0, or -1 if an
 * input names nothing that exists or can be listed (reported on stderr
 * and in out's problems); files inside are read regardless. */
int load_inputs(char **inputs, size_t ninputs, const load_opts *opt, agg *out);

/* The per-file protocol, shared by the text reader and the JSON readers:
 * begin, counters and header lines, end.  nfiles is how many dumps the
 * file stands for (a CPython JSON summary covers many). */
void load_file_begin(load_worker *w);
void load_counter(load_worker *w, const char *key, size_t klen, uint64_t v);
void load_header(load_worker *w, const char *key, size_t klen,
                 const char *val, size_t vlen);
void load_file_end(load_worker *w, const char *path, int format,
                   uint64_t nfiles);

/* JSON inputs (load_json.c): a summary written by --json, or CPython's
 * summarize_stats.py --json-output.  buf is NUL-terminated. */
void load_json(load_worker *w, const char *path, const char *buf, size_t n);

#endif
