/* summary.h: what every report of `pystats summarize` says, built once
 * from the aggregate: the groups with their models and titles, the
 * warnings (mixed inputs, input problems), the trust verdict and the
 * problems.  The renderers (report.h) take only this; `pystats compare`
 * compares two of them.
 *
 * What the reports show of a group's files (their formats, collectors,
 * header values, times) is its summary_meta, built here from the
 * aggregate: a renderer never reads the aggregate.  The summary borrows
 * the aggregate's texts (and each group, summary_group.meta, for
 * comparing groups), so the aggregate must outlive it.
 */
#ifndef SUMMARY_H
#define SUMMARY_H

#include "agg.h"
#include "check.h"
#include "model.h"

#include <stddef.h>
#include <stdint.h>

/* The kinds of input problems. */
#define SUMMARY_P_COUNT AGG_P_COUNT

typedef struct summary_opts {
    int top_pairs;              /* rows of the pair table (CPython: 100) */
    int top_sites;              /* rows of the census table of failing sites */
    const char *trust;          /* the check verdict line (check.h), or NULL */
    const char *verdict;        /* its word (check_verdict_word), or NULL */
    const check_item *findings; /* borrowed (check_items): what the
                                 * checks found, most severe first */
    size_t nfindings;
    m_code_filter filter; /* which code the hot code, the source view and
                           * the site list show (--code, --no-stdlib) */
} summary_opts;

/* A text seen in a group's files, with how many files had it. */
typedef struct summary_text {
    const char *text; /* borrowed from the aggregate */
    uint64_t n;
} summary_text;

typedef struct summary_texts {
    summary_text *v; /* owned */
    size_t n;
} summary_texts;

/* t: the texts of s and their counts (the texts borrowed from s). */
void summary_texts_of(summary_texts *t, const agg_strs *s);

/* A header key of a group's files with the values seen. */
typedef struct summary_hdr {
    const char *key; /* borrowed */
    int free_text;   /* its values are free text in the dump's encoding
                      * (text.h), else raw */
    int self;        /* what a CPython summary says about itself
                      * (summary_hdr_is_self_description): not in Meta */
    summary_texts vals;
} summary_hdr;

/* What the reports say of a group's files. */
typedef struct summary_meta {
    uint64_t files;
    const char *source;                   /* "native" (CPython's counters) or "own" */
    int minor;                            /* 3.minor; 0 if unknown */
    const char *counts;                   /* "specialized-forms", "base-instructions" */
    const char *label;                    /* meta.label when grouped by label, else NULL */
    uint64_t weight_labels, weight_total; /* --equal-weight (0: not) */
    summary_texts formats;                /* each format read and its files */
    summary_texts how;                    /* how the version was found */
    summary_texts collectors;
    summary_hdr *hdr; /* owned: every header key, in the aggregate's order */
    size_t nhdr;
    summary_hdr *run; /* owned: the CPython run of a published summary
                       * (commit, fork, branch...): key is the member */
    size_t nrun;
    uint64_t leftover_bound; /* known leftover of SIGTERM dumps, summed */
    const char *time_start;  /* earliest meta.time.start, or NULL */
    const char *time_end;    /* latest meta.time.end, or NULL */
} summary_meta;

typedef struct summary_group {
    const agg_group *meta; /* borrowed: the group it was built from */
    summary_meta info;     /* what the reports say of its files */
    m_group m;             /* owned: its counters as the reports show them */
    char title[256];       /* "CPython 3.13 native dumps", ... */
} summary_group;

/* A problem of the input kept for the report. */
typedef struct summary_note {
    const char *kind; /* its name */
    const char *text; /* borrowed: "file:line: message" */
} summary_note;

typedef struct summary {
    summary_group *g; /* owned, in the aggregate's (sorted) order */
    size_t ng;
    uint64_t files;                         /* data files counted, all groups */
    summary_text problems[SUMMARY_P_COUNT]; /* every kind: its name, its count */
    uint64_t nproblems;                     /* their sum */
    summary_note *notes;                    /* owned: the first problems, with where */
    size_t nnotes;
    const char *mix; /* what the inputs mix (mix_buf), or NULL */
    char mix_buf[2048];
    const char *trust;          /* borrowed from the options, or NULL */
    const char *verdict;        /* the same */
    const check_item *findings; /* the same (the check set outlives s) */
    size_t nfindings;
    uint64_t weight_labels; /* --equal-weight: labels scaled, each to */
    uint64_t weight_total;  /* this many executions (0: not weighted) */
    summary_opts opt;
} summary;

/* Build s from a (sorted, weighted as asked); free with summary_free. */
void summary_build(summary *s, const agg *a, const summary_opts *opt);
void summary_free(summary *s);

/* Index of the group of s built from g (s->ng if none). */
size_t summary_find(const summary *s, const agg_group *g);

/* One line saying what the inputs mix, or NULL if they are like for like
 * (one kind of dumps, one format).  Used by the summary and --strict. */
const char *summary_mix_warning(const agg *a, char *buf, size_t size);

/* "CPython 3.13 native dumps" / "pystats collector dumps, Python 3.12,
 * counting base-instructions" (", label L" when grouped by label). */
void summary_group_title(const agg_group *g, char *buf, size_t size);

/* Whether a header key is what a CPython summary says about itself
 * (its defines, its specialized instructions): used, not shown. */
int summary_hdr_is_self_description(const char *key);

#endif
