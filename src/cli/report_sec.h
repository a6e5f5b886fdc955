/* report_sec.h: the sections of the summary's document (report_doc.c
 * places them), each family of sections in its file, and what those
 * files share.  A section reads one group's model (model.h) and adds its
 * heading, text, tables and figures to the document (doc.h). */
#ifndef REPORT_SEC_H
#define REPORT_SEC_H

#include "doc.h"
#include "model.h"
#include "summary.h"

#include <stddef.h>
#include <stdint.h>

/* Where a group's sections go. */
typedef struct rdoc {
    doc *d;
    int level; /* heading level of a group's sections */
    const summary_opts *opt;
} rdoc;

/* report_ops.c: execution counts, pair counts, predecessors and
 * successors, specialization, its effectiveness per family. */
void rdoc_ops(rdoc *m, const m_group *g);
/* report_census.c: the census of sites by state. */
void rdoc_census(rdoc *m, const m_group *g);
/* report_sites.c: the census's list of failing sites; the hot code and
 * its source view. */
void rdoc_sites(rdoc *m, const m_group *g);
void rdoc_hot_code(rdoc *m, const m_group *g);
void rdoc_source_view(rdoc *m, const m_group *g);
/* report_stats.c: calls, objects, GC, the optimizer, free-threading,
 * rare events, the other counters. */
void rdoc_stats(rdoc *m, const m_group *g);

/* report_fig.c: the charts' series (doc_fig) of the execution counts,
 * the pair counts and the specialization outcomes, as figures. */
void rdoc_fig_exec(rdoc *m, const m_group *g);
void rdoc_fig_pairs(rdoc *m, const m_group *g);
void rdoc_fig_spec(rdoc *m, const m_group *g);

/* report_sites.c: a census site's, a ranked site's place as runs (with
 * what tells it from the sites of its family on its line: its column and
 * the source it spans, or its offset), and the ranked site's state (the
 * overview names them too). */
void rdoc_site_where(rdoc *m, const m_csite *st);
void rdoc_fsite_where(rdoc *m, const m_group *g, const m_fsite *f);
void rdoc_fsite_state(rdoc *m, const m_fsite *f);

/* report_sec.c */
/* CPython's Ratio: one decimal of percent into buf (32 bytes); empty
 * when den is 0. */
void rdoc_pct_str(char *buf, uint64_t num, uint64_t den);
/* Free text in the dump's encoding (text.h) as a run from the inputs:
 * n bytes of it, all of it. */
void rdoc_name_text_n(doc *d, const char *enc, size_t n);
void rdoc_name_text(doc *d, const char *enc);
/* A section's heading, extra levels under the group's sections; its
 * text the report's own, or a name from the inputs then a suffix. */
void rdoc_heading(rdoc *m, int extra, const char *text);
void rdoc_heading_name(rdoc *m, int extra, const char *name, const char *suffix);
/* A table row of a label, a count and its ratio of den; a table of them
 * (column col) from a list, its first max entries. */
void rdoc_row3(rdoc *m, const char *label, uint64_t n, uint64_t den);
void rdoc_table3(rdoc *m, const char *col, const m_list *l, uint64_t den, size_t max);
/* The sum of a list's counts. */
uint64_t rdoc_list_total(const m_list *l);
/* A cell of num's ratio of den. */
void rdoc_pct_cell(rdoc *m, uint64_t num, uint64_t den);
/* The three most used of forms (sorted) as "NAME SHARE, ..." runs of the
 * current cell, shares of den; ", N more" past them if more is set. */
void rdoc_top_forms(rdoc *m, const m_list *forms, uint64_t den, int more);

#endif
