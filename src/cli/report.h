/* report.h: writing a summary (all groups of an aggregate) as Markdown or
 * as JSON.  Both return 0, or -1 if the stream failed (errno set). */
#ifndef REPORT_H
#define REPORT_H

#include "agg.h"

#include <stdio.h>

typedef struct report_opts {
    int top_pairs;          /* rows of the pair table (CPython: 100) */
    int top_sites;          /* rows of the census table of failing sites */
    const char *trust;      /* the check verdict line (check.h), or NULL */
} report_opts;

int report_markdown(FILE *out, const agg *a, const report_opts *opt);
int report_json(FILE *out, const agg *a, const report_opts *opt);

/* One line saying what the inputs mix, or NULL if they are like for like
 * (one group, one format).  Shared by both reports and --strict. */
const char *report_mix_warning(const agg *a, char *buf, size_t size);

/* "CPython 3.13 native dumps" / "pystats collector dumps (Python 3.12)". */
void report_group_title(const agg_group *g, char *buf, size_t size);

/* Whether a header key is what a CPython summary says about itself
 * (its defines, its specialized instructions): used, not shown. */
int report_hdr_is_self_description(const char *key);

#endif
