/* check_int.h: the inside of a check set, shared by check.c (the checks)
 * and check_report.c (writing the findings). */
#ifndef CHECK_INT_H
#define CHECK_INT_H

#include "check.h"

#include <pthread.h>
#include <stdint.h>

/* Every check, by its stable name (check_info[] in check.c). */
enum ck_id {
    CK_NO_FILES, CK_UNREADABLE, CK_EMPTY, CK_BINARY, CK_TRUNCATED,
    CK_UNPARSABLE, CK_OVERFLOW, CK_UNSUPPORTED, CK_ALL_ZERO,
    CK_MIXED_VERSIONS, CK_MIXED_BUILDS, CK_MIXED_SOURCES, CK_MIXED_FORMATS,
    CK_MIXED_MODES, CK_MIXED_COLLECTORS, CK_DUP_CONTENT, CK_DUP_PROCESS,
    CK_INEXACT,
    CK_PAIRS_EXCEED, CK_PAIRS_INTO, CK_NO_START, CK_NO_WINDOW, CK_OWN_CACHE,
    CK_OWN_SPECIALIZED, CK_TIME_ORDER, CK_SIGNAL, CK_HITS_NO_SUCCESS,
    CK_LEAKAGE, CK_ON_AT_EXIT, CK_PARENT_MISSING, CK_OS_EXIT, CK_FORKED,
    CK_WINDOWS, CK_STARTS, CK_CACHE_PAIRS, CK_SUMMARY_INPUT,
    CK_HIDDEN_TMP, CK_FOREIGN,
    CK_COUNT
};

typedef struct ck_info {
    const char *name;     /* stable: JSON "check", docs */
    const char *title;
    const char *why;
} ck_info;
extern const ck_info check_info[CK_COUNT];

/* Instructions that mostly run at startup and in module bodies. */
#define CK_NLEAK 8
extern const char *const check_leak_ops[CK_NLEAK];

/* One finding: a check that fired, with what it found. */
typedef struct ck_finding {
    int id;               /* ck_id */
    int severity;         /* check_severity */
    char *summary;        /* owned: one line with the figures */
    char **files;         /* owned: "path" or "path:line", sorted */
    size_t nfiles;
    char **details;       /* owned: per-file or per-value lines */
    size_t ndetails;
} ck_finding;

/* What one counted file told. */
typedef struct ck_file {
    char *path;           /* owned */
    int format, source, minor;
    uint64_t nfiles;
    int has_counts;       /* counters seen (not a JSON summary) */
    uint64_t nvals, total, exec, pairs, cache_pairs;
    uint64_t hash;        /* of counters and header, order-independent */
    uint64_t leak[CK_NLEAK]; /* executions of check_leak_ops[] */
    /* Own dumps' header (owned strings, NULL if absent; -1 if absent). */
    char *version, *build, *mode, *collector, *counts, *reason;
    char *time_start, *time_end;
    long long pid, ppid, forked, windows, on_at_dump;
} ck_file;

/* A problem a reader reported, or an inconsistency found in one file. */
typedef struct ck_issue {
    int id;               /* ck_id */
    int severity;
    char *file;           /* owned */
    char *text;           /* owned */
} ck_issue;

struct check_set {
    load_observer obs;
    pthread_mutex_t lock;
    ck_file *f;           /* owned */
    size_t nf, f_cap;
    ck_issue *is;         /* owned */
    size_t nis, is_cap;
    ck_finding **fd;      /* owned, most severe first; each finding is
                           * allocated on its own, so that a pointer to
                           * one stays valid while others are added */
    size_t nfd, fd_cap;
    uint64_t nfiles;      /* dumps read (agg_files) */
    size_t count[CHECK_SEVERITY_COUNT];
    int finished;
};

#endif
