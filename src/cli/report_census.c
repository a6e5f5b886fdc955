/* report_census.c: the summary's census section: the sites of the
 * specializable families by state at dump time, and what the census
 * left out. */
#include "report_sec.h"

#include "../format/psf_keys.h"

#include "cli.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "FOR_ITER, RESUME": the families a census taken alongside counting
 * left out. */
static void
excluded_names(rdoc *m, const m_group *g)
{
    size_t i;

    for (i = 0; i < g->census_excluded.n; i++) {
        if (i)
            doc_text(m->d, i + 1 < g->census_excluded.n ? ", " : " and ");
        doc_name(m->d, g->census_excluded.v[i].name);
    }
}

/* The paragraph on the families a census alongside counting left out. */
static void
census_left_out(rdoc *m, const m_group *g)
{
    uint64_t nscope = model_hdr_files(g, PSF_H_CENSUS_SCOPE, "count");
    uint64_t nmode = model_hdr_files(g, PSF_H_MODE, "census");
    char n1[32], n2[32];

    cli_count_str(n1, sizeof n1, nscope);
    cli_count_str(n2, sizeof n2, nmode);
    doc_para(m->d);
    doc_style(m->d, DOC_BOLD);
    doc_text(m->d, "Left out: ");
    excluded_names(m, g);
    doc_text(m->d, ".");
    doc_style(m->d, DOC_PLAIN);
    doc_textf(m->d, " %s %s the census alongside counting (", nscope ? n1 : "Some",
              nscope == 1 ? "dump took" : "dumps took");
    doc_code(m->d, "meta.census.scope : count");
    doc_text(m->d, "), whose events instrument every site of these families and hold back their "
                   "specialization: their state was not read, their sites are counted below as "
                   "left out, never as specialized or never tried.");
    if (nmode)
        doc_textf(m->d,
                  " Rows of these families below come from the %s census-mode "
                  "dump%s only.",
                  n2, nmode == 1 ? "" : "s");
}

/* A column per figure of PSF_CENSUS_FAMILY (psf_stats.h), under its
 * label: a share of its denominator's row, or a count. */
static void
census_families(rdoc *m, const m_group *g)
{
    const psf_stat *row = psf_stats_census_family.rows;
    size_t i, j;
    char c[32], align[PSF_NCF + 3];

    doc_para(m->d);
    doc_text(m->d, "Per family: the share of its sites now specialized, backing off after "
                   "failed attempts (with the consecutive failed attempts their counters imply), "
                   "and never tried; families without inline caches report sites and forms only.");
    memset(align, 'r', sizeof align - 1);
    align[0] = align[PSF_NCF + 1] = 'l';
    align[PSF_NCF + 2] = '\0';
    doc_table_begin(m->d, align);
    doc_cell_text(m->d, "Family");
    for (j = 0; j < PSF_NCF; j++)
        doc_cell_text(m->d, row[j].label);
    doc_cell_text(m->d, "Top forms");
    for (i = 0; i < g->ncfam; i++) {
        const m_cfam *f = &g->cfam[i];
        doc_row_begin(m->d);
        doc_cell_name(m->d, f->name);
        for (j = 0; j < PSF_NCF; j++) {
            if (row[j].den >= 0) {
                rdoc_pct_cell(m, f->f[j], f->f[row[j].den]);
                continue;
            }
            cli_count_str(c, sizeof c, f->f[j]);
            doc_cell_text(m->d, c);
        }
        doc_cell(m->d);
        rdoc_top_forms(m, &f->forms, f->f[PSF_CF_sites], 1);
    }
}

static void
sec_census(rdoc *m, const m_group *g)
{
    size_t i, j;
    char c[32];
    static const char *const label[][2] = {
        {"code_objects", "Code objects read"},
        {"dead_code_objects", "Code objects read as they were destroyed"},
        {"instrumented_code_objects", "Code objects skipped (instrumented by another tool)"},
        {&PSF_KEY_CENSUS_OMITTED_ROWS[sizeof PSF_KEY_CENSUS - 1],
         "Site rows left out (past the source view's bound)"},
        {&PSF_KEY_CENSUS_OMITTED_SOURCE[sizeof PSF_KEY_CENSUS - 1],
         "Source lines left out (past the source view's bound)"},
        {&PSF_KEY_CENSUS_SHARED_ROWS[sizeof PSF_KEY_CENSUS - 1],
         "Site rows not written (their code shares its key with hotter code)"},
        {&PSF_KEY_CENSUS_SHARED_EXEC[sizeof PSF_KEY_CENSUS - 1],
         "Site executions in no row (code sharing its key with hotter code)"},
    };

    if (!g->has_census)
        return;
    rdoc_heading(m, 0, "Specialization census");
    doc_para(m->d);
    doc_text(m->d, "The specialization state of the code each process had when it dumped, taken "
                   "in mode census or alongside counting in mode count on 3.12+ (");
    doc_code(m->d, PSF_H_CENSUS_SCOPE);
    doc_text(m->d, " says which). Dumps are summed: a code object alive in several processes, or "
                   "dumped several times, counts in each dump.");
    if (g->census_excluded.n)
        census_left_out(m, g);
    doc_table(m->d, "lr", NULL, "Count");
    for (i = 0; i < g->census.n; i++) {
        const char *name = g->census.v[i].name;
        for (j = 0; j < sizeof label / sizeof label[0]; j++)
            if (strcmp(name, label[j][0]) == 0)
                name = label[j][1];
        cli_count_str(c, sizeof c, g->census.v[i].n);
        doc_row_begin(m->d);
        doc_cell_name(m->d, name);
        doc_cell_text(m->d, c);
    }
    for (i = 0; i < g->census_excluded.n; i++) {
        cli_count_str(c, sizeof c, g->census_excluded.v[i].n);
        doc_row_begin(m->d);
        doc_cell_name(m->d, g->census_excluded.v[i].name);
        doc_text(m->d, " sites left out (census alongside counting)");
        doc_cell_text(m->d, c);
    }
    if (g->ncfam)
        census_families(m, g);
}

void
rdoc_census(rdoc *m, const m_group *g)
{
    sec_census(m, g);
}
