/* report_sitefx.c: the report's section of site executions by state
 * (the model's m_sxfam, model_sitefx.c), as document blocks (doc.h):
 * what the figures are, a table per family and one per specialized
 * form.  report_doc.c places it; both printers have it from there. */
#include "report_sitefx.h"

#include "cli.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double
pct(uint64_t n, uint64_t den)
{
    return den ? 100.0 * (double)n / (double)den : 0.0;
}

/* "12,345 (67.8%)", the share of den; the count alone when den is 0. */
static void
cell_share(doc *d, uint64_t n, uint64_t den)
{
    char c[32];

    cli_count_str(c, sizeof c, n);
    if (den)
        doc_cell_textf(d, "%s (%.1f%%)", c, pct(n, den));
    else
        doc_cell_text(d, c);
}

static void
cell_name(doc *d, const char *enc)
{
    char *t = text_display(enc);

    doc_cell_name(d, t);
    free(t);
}

static void
what_it_is(doc *d)
{
    doc_para(d);
    doc_text(d, "Every dispatch at each site with a row (");
    doc_code(d, "code[K].site");
    doc_text(d, " with ");
    doc_code(d, "code[K].site_executions");
    doc_text(d, ", FORMAT.md 1.18: mode count, 3.12+), in any form (generic, adaptive, "
                "specialized), credited whole to the state its row gives: the state the census "
                "read when it was taken (at the dump: dump(), the exit dump's atexit handler, "
                "os._exit, the pyperf hook's teardown; code destroyed earlier in the period, as it "
                "died), summed over the dumps (where the dumps' rows of a site disagree, the row "
                "most of them had). Specialized: executions at sites in a specialized form at that "
                "moment; they correspond to a --enable-pystats build's hits plus misses of the "
                "form, and are not hits: misses and deoptimizations are invisible on stock "
                "CPython. Not read: the families instrumented while counting (FOR_ITER; RESUME on "
                "3.13+), whose state this mode cannot read. Uncertain: executions at sites whose "
                "state the dumps show changed in the period: rows that disagree between dumps, or "
                "an unspecialized site that ran more often than its failed attempts allow (never "
                "tried: more than once per dump; k attempts, k below 11: more than 2^(k+2) - 3 "
                "times; CPython's backoff counter; not on a free-threaded build, whose threads "
                "have their own counters), which was specialized, then deoptimized. "
                "A site that specialized "
                "late after backing off (up to about 2^12 generic executions credited to its "
                "form), re-specialized into another form, or changed state after the window "
                "closed cannot be told from the rows: the uncertain share is a lower bound. Rows "
                "cover: the site executions as a share of the family's executions (its opcode "
                "counts, every form); the rows are capped (2,000 code objects and 100,000 rows "
                "per dump, the hottest code first), so colder code may have none, and of "
                "code objects that share a key (two generator expressions or lambdas on one "
                "line) only the hottest has rows.");
}

/* The executions no row holds because their code object shares its key
 * with a hotter one (FORMAT.md 1.18), when there are any. */
static void
shared_key(doc *d, const m_group *g)
{
    uint64_t rows = m_list_get(&g->census, "shared_key_site_rows"),
             x = m_list_get(&g->census, "shared_key_site_executions");
    char a[32], b[32];

    if (rows == 0 && x == 0)
        return;
    cli_count_str(a, sizeof a, x);
    cli_count_str(b, sizeof b, rows);
    doc_textf(d,
              " Not in any row: %s site executions (%s sites) of code objects that share "
              "their key with a hotter one (census.shared_key_site_executions).",
              a, b);
}

static void
family_table(doc *d, const m_group *g, uint64_t *tot)
{
    size_t i;
    int s;

    doc_table(d, "lrrrrrrrr", "Family", "Site executions", "Specialized", "Backing off",
              "Never tried", "Not read (instrumented)", "Uncertain", "Sites", "Rows cover");
    for (i = 0; i < g->nsxfam; i++) {
        const m_sxfam *f = &g->sxfam[i];
        char c[32];
        doc_row_begin(d);
        cell_name(d, f->name);
        cli_count_str(c, sizeof c, f->rows_exec);
        doc_cell_text(d, c);
        for (s = 0; s < M_SX_SITES; s++)
            cell_share(d, f->f[s], f->rows_exec);
        cli_count_str(c, sizeof c, f->f[M_SX_SITES]);
        doc_cell_text(d, c);
        if (f->family_exec)
            doc_cell_textf(d, "%.1f%%", pct(f->rows_exec, f->family_exec));
        else
            doc_cell_none(d);
        for (s = 0; s < M_SX_COUNT; s++)
            tot[s] += f->f[s];
        tot[M_SX_COUNT] += f->rows_exec;
    }
}

static void
form_table(doc *d, const m_group *g)
{
    size_t i, k;

    doc_table(d, "llrr", "Specialized form", "Family", "Executions",
              "% of family's site executions");
    for (i = 0; i < g->nsxfam; i++)
        for (k = 0; k < g->sxfam[i].forms.n; k++) {
            const m_sxfam *f = &g->sxfam[i];
            char c[32];
            doc_row_begin(d);
            cell_name(d, f->forms.v[k].name);
            cell_name(d, f->name);
            cli_count_str(c, sizeof c, f->forms.v[k].n);
            doc_cell_text(d, c);
            if (f->rows_exec)
                doc_cell_textf(d, "%.1f%%", pct(f->forms.v[k].n, f->rows_exec));
            else
                doc_cell_none(d);
        }
}

void
report_sitefx(doc *d, int level, const m_group *g)
{
    uint64_t tot[M_SX_COUNT + 1] = {0};
    char a[32], b[32];

    if (g->nsxfam == 0)
        return;
    doc_heading(d, level);
    doc_text(d, "Site executions by state");
    what_it_is(d);
    family_table(d, g, tot);
    cli_count_str(a, sizeof a, tot[M_SX_COUNT]);
    cli_count_str(b, sizeof b, tot[M_SX_UNCERTAIN]);
    doc_para(d);
    doc_textf(d,
              "In all: %s site executions, %.1f%% at specialized sites, %.1f%% at sites "
              "backing off, %.1f%% never tried, %.1f%% not read; %s (%.1f%%) of uncertain "
              "attribution.",
              a, pct(tot[M_SX_SPECIALIZED], tot[M_SX_COUNT]),
              pct(tot[M_SX_BACKING_OFF], tot[M_SX_COUNT]),
              pct(tot[M_SX_NEVER_TRIED], tot[M_SX_COUNT]), pct(tot[M_SX_EXCLUDED], tot[M_SX_COUNT]),
              b, pct(tot[M_SX_UNCERTAIN], tot[M_SX_COUNT]));
    shared_key(d, g);
    doc_heading(d, level + 1);
    doc_text(d, "Executions by specialized form");
    doc_para(d);
    doc_text(d, "Executions at sites in each specialized form when the census was taken (hits "
                "plus misses of the form in a --enable-pystats build's terms; not hits), as a "
                "share of the family's site executions.");
    form_table(d, g);
}
