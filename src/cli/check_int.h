/* check_int.h: the inside of a check set, shared by the files of
 * `pystats check`:
 *
 *   check.c          the driver: check_new() .. check_verdict()
 *   check_table.c    the catalogue: one row per check (name, title,
 *                    reason, severity, and the function of a set check)
 *   check_file.c     the per-file checks: the readers' observer
 *   check_set.c      the whole-set checks, one function each
 *   check_finding.c  issues, findings and the helpers they share
 *   check_report.c   writing the findings (text, JSON)
 */
#ifndef CHECK_INT_H
#define CHECK_INT_H

#include "check.h"

#include <pthread.h>
#include <stdint.h>

/* Every check, by its stable name (its row of check_info[], check_table.c). */
enum ck_id {
    CK_NO_FILES,
    CK_UNREADABLE,
    CK_EMPTY,
    CK_BINARY,
    CK_TRUNCATED,
    CK_UNPARSABLE,
    CK_OVERFLOW,
    CK_UNSUPPORTED,
    CK_ALL_ZERO,
    CK_MIXED_VERSIONS,
    CK_MIXED_BUILDS,
    CK_MIXED_SOURCES,
    CK_MIXED_FORMATS,
    CK_MIXED_MODES,
    CK_MIXED_COLLECTORS,
    CK_DUP_CONTENT,
    CK_DUP_PROCESS,
    CK_INEXACT,
    CK_PAIRS_EXCEED,
    CK_PAIRS_INTO,
    CK_LEFTOVER,
    CK_NO_START,
    CK_NO_WINDOW,
    CK_OWN_CACHE,
    CK_OWN_SPECIALIZED,
    CK_LINE_SUMS,
    CK_TIME_ORDER,
    CK_SIGNAL,
    CK_CENSUS_ERROR,
    CK_HITS_NO_SUCCESS,
    CK_LEAKAGE,
    CK_ON_AT_EXIT,
    CK_PARENT_MISSING,
    CK_OS_EXIT,
    CK_FORKED,
    CK_WINDOWS,
    CK_STARTS,
    CK_CACHE_PAIRS,
    CK_SUMMARY_INPUT,
    CK_HIDDEN_TMP,
    CK_FOREIGN,
    CK_NO_COUNTERS,
    CK_COUNT
};

/* A check of the whole set, run once everything is read (check_finish):
 * id and severity are its row's; it may raise or lower the severity
 * where its row's reason says so. */
typedef void ck_run_fn(check_set *c, const agg *a, int id, int severity);

typedef struct ck_info {
    const char *name; /* stable: JSON "check", docs */
    const char *title;
    const char *why; /* the reason, for people */
    int severity;    /* check_severity of its findings (see run) */
    ck_run_fn *run;  /* a set check; NULL: raised per file by the
                      * observer (check_file.c), as issues */
} ck_info;
extern const ck_info check_info[CK_COUNT];

/* Instructions that mostly run at startup and in module bodies. */
#define CK_NLEAK 8
extern const char *const check_leak_ops[CK_NLEAK];

/* One finding: a check that fired, with what it found. */
typedef struct ck_finding {
    int id;        /* ck_id */
    int severity;  /* check_severity */
    char *summary; /* owned: one line with the figures */
    char **files;  /* owned: "path" or "path:line", in the order the
                    * check found them (a check of a whole set goes
                    * group by group, so not sorted); a path added again
                    * right after itself is kept once */
    size_t nfiles;
    char **details; /* owned: per-file or per-value lines */
    size_t ndetails;
} ck_finding;

/* What one counted file told. */
typedef struct ck_file {
    char *path; /* owned */
    int format, source, minor;
    uint64_t nfiles;
    int has_counts; /* counters seen (not a JSON summary) */
    uint64_t nvals, total, exec, pairs, cache_pairs;
    uint64_t hash;           /* of counters and header, order-independent */
    uint64_t leak[CK_NLEAK]; /* executions of check_leak_ops[] */
    /* Own dumps' header (owned strings, NULL if absent; -1 if absent). */
    char *version, *build, *mode, *collector, *counts, *reason;
    char *time_start, *time_end;
    long long pid, ppid, forked, windows, on_at_dump;
    /* A known leftover (PSF_H_LEFTOVER_*): at most this many
     * instructions uncounted, in that many threads; -1 if absent. */
    long long leftover, leftover_threads;
} ck_file;

/* A problem a reader reported, or an inconsistency found in one file. */
typedef struct ck_issue {
    int id; /* ck_id */
    int severity;
    char *file; /* owned */
    char *text; /* owned */
} ck_issue;

struct check_set {
    load_observer obs;
    pthread_mutex_t lock;
    ck_file *f; /* owned */
    size_t nf, f_cap;
    ck_issue *is; /* owned */
    size_t nis, is_cap;
    ck_finding **fd; /* owned, most severe first; each finding is
                      * allocated on its own, so that a pointer to
                      * one stays valid while others are added */
    size_t nfd, fd_cap;
    uint64_t nfiles; /* dumps read (agg_files) */
    size_t count[CHECK_SEVERITY_COUNT];
    int finished;
};

/* ---- check_file.c ---- */

/* Fill obs with the per-file checks' callbacks, reporting into c. */
void ck_observer_init(load_observer *obs, check_set *c);

/* ---- check_set.c: the set checks (the rows' run functions) ---- */

ck_run_fn ck_no_files, ck_all_zero, ck_mixed_versions, ck_mixed_builds, ck_mixed_sources,
    ck_mixed_formats, ck_mixed_modes, ck_mixed_collectors, ck_dup_content, ck_dup_process,
    ck_no_window, ck_time_order, ck_signal, ck_leakage, ck_on_at_exit, ck_parent_missing,
    ck_os_exit, ck_forked, ck_windows, ck_starts, ck_cache_pairs, ck_summary_input;

/* The findings of the issues raised per file: one per (check, severity),
 * its files and one detail per issue; then the problems JSON summaries
 * read back recorded. */
void ck_issue_findings(check_set *c, const agg *a);

/* ---- check_finding.c ---- */

/* An issue of one file (thread-safe: the observer runs on readers). */
void ck_add_issue(check_set *c, int id, int severity, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A new finding (its summary from fmt); the set owns it. */
ck_finding *ck_new_finding(check_set *c, int id, int severity, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void ck_finding_file(ck_finding *d, const char *path);
void ck_finding_detail(ck_finding *d, char *owned);

/* A finding built file by file: created at the first file added, its
 * summary "N files: TEXT" made at the end. */
typedef struct ck_lazy {
    check_set *c;
    int id, severity;
    ck_finding *d;
    uint64_t files;
} ck_lazy;
void ck_lazy_add(ck_lazy *l, const ck_file *r, char *detail);
void ck_lazy_done(ck_lazy *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Distinct values of one property over the files. */
void ck_tally(agg_strs *s, const char *v, uint64_t n);

char *ck_xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ck_plural(uint64_t n, const char *one, const char *many);
/* qsort, which must not be given a NULL array even when it is empty. */
void ck_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
