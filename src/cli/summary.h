/* summary.h: what every report of `pystats summarize` says, built once
 * from the aggregate: the groups with their models and titles, the
 * warnings (mixed inputs, input problems), the trust verdict and the
 * problems.  The renderers (report.h) take only this; `pystats compare`
 * compares two of them.
 *
 * The summary borrows the aggregate it was built from (each group's
 * metadata: files, formats, collectors, header values, times, through
 * summary_group.meta), so the aggregate must outlive it.
 */
#ifndef SUMMARY_H
#define SUMMARY_H

#include "agg.h"
#include "model.h"

#include <stddef.h>
#include <stdint.h>

typedef struct summary_opts {
    int top_pairs;       /* rows of the pair table (CPython: 100) */
    int top_sites;       /* rows of the census table of failing sites */
    const char *trust;   /* the check verdict line (check.h), or NULL */
    const char *verdict; /* its word (check_verdict_word), or NULL */
    m_site_filter sites; /* which code the site list shows (--code,
                          * --no-stdlib) */
} summary_opts;

typedef struct summary_group {
    const agg_group *meta; /* borrowed: its files, formats, header values */
    m_group m;             /* owned: its counters as the reports show them */
    char title[256];       /* "CPython 3.13 native dumps", ... */
} summary_group;

typedef struct summary {
    summary_group *g; /* owned, in the aggregate's (sorted) order */
    size_t ng;
    uint64_t files; /* data files counted, all groups */
    uint64_t problems[AGG_P_COUNT];
    uint64_t nproblems;    /* their sum */
    const agg_note *notes; /* borrowed: the first problems, with where */
    size_t nnotes;
    const char *mix; /* what the inputs mix (mix_buf), or NULL */
    char mix_buf[2048];
    const char *trust;      /* borrowed from the options, or NULL */
    const char *verdict;    /* the same */
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
