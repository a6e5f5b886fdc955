/* report_sec.c: what the files building the summary's document share
 * (report_sec.h): CPython's ratio as text, names from the inputs as
 * runs, a section's heading, the tables of a label, a count and a
 * ratio, a list's total, a family's most used forms. */
#include "report_sec.h"

#include "cli.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CPython's Ratio: one decimal of percent; empty when den is 0. */
void
rdoc_pct_str(char *buf, uint64_t num, uint64_t den)
{
    char t[40], *p;
    size_t n, lead, i, o = 0;

    if (den == 0) {
        buf[0] = '\0';
        return;
    }
    /* As CPython's "{:,.01%}": 3,000.0% */
    snprintf(t, sizeof t, "%.1f", 100.0 * (double)num / (double)den);
    p = strchr(t, '.');
    n = strlen(t);
    lead = p ? (size_t)(p - t) : n;
    for (i = 0; i < n && o < 28; i++) { /* buf holds 32 */
        if (i < lead && i > 0 && (lead - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = t[i];
    }
    buf[o++] = '%';
    buf[o] = '\0';
}

/* Free text held in the dump's encoding (text.h), as a run from the
 * inputs. */
void
rdoc_name_text_n(doc *d, const char *enc, size_t n)
{
    char *t = text_display_n(enc, n);

    doc_name(d, t);
    free(t);
}

void
rdoc_name_text(doc *d, const char *enc)
{
    rdoc_name_text_n(d, enc, strlen(enc));
}

void
rdoc_heading(rdoc *m, int extra, const char *text)
{
    doc_heading(m->d, m->level + extra);
    doc_text(m->d, text);
}

/* A heading whose text is a name from the inputs, then a suffix. */
void
rdoc_heading_name(rdoc *m, int extra, const char *name, const char *suffix)
{
    doc_heading(m->d, m->level + extra);
    doc_name(m->d, name);
    if (*suffix)
        doc_text(m->d, suffix);
}

/* A table row of a label, a count and a ratio. */
void
rdoc_row3(rdoc *m, const char *label, uint64_t n, uint64_t den)
{
    char c[32], p[32];

    cli_count_str(c, sizeof c, n);
    rdoc_pct_str(p, n, den);
    doc_row_begin(m->d);
    doc_cell_name(m->d, label);
    doc_cell_text(m->d, c);
    doc_cell_text(m->d, p);
}

void
rdoc_table3(rdoc *m, const char *col, const m_list *l, uint64_t den, size_t max)
{
    size_t i;

    doc_table(m->d, "lrr", col, "Count", "Ratio");
    for (i = 0; i < l->n && i < max; i++)
        rdoc_row3(m, l->v[i].name, l->v[i].n, den);
}

/* ---- the collector's own sections ---------------------------------- */

void
rdoc_pct_cell(rdoc *m, uint64_t num, uint64_t den)
{
    char p[32];

    rdoc_pct_str(p, num, den);
    doc_cell_text(m->d, p);
}

/* The three most used of forms (sorted) as "NAME SHARE, ..." runs of the
 * current cell, shares of den; ", N more" past them if more is set. */
void
rdoc_top_forms(rdoc *m, const m_list *forms, uint64_t den, int more)
{
    char p[32];
    size_t j;

    for (j = 0; j < forms->n && j < 3; j++) {
        rdoc_pct_str(p, forms->v[j].n, den);
        if (j)
            doc_text(m->d, ", ");
        doc_name(m->d, forms->v[j].name);
        doc_textf(m->d, " %s", p);
    }
    if (more && forms->n > 3)
        doc_textf(m->d, ", %zu more", forms->n - 3);
}

uint64_t
rdoc_list_total(const m_list *l)
{
    uint64_t t = 0;
    size_t i;

    for (i = 0; i < l->n; i++)
        t += l->v[i].n;
    return t;
}
