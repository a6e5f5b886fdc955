/* report_sites.c: the summary's sections of places in the code: the
 * census's site list (the sites that keep failing, ranked), the hot code
 * (per function) and its source view (the page's). */
#include "report_sec.h"
#include "../format/psf_keys.h"

#include "report.h"

#include "cli.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A new cell of free text in the dump's encoding. */
static void
name_cell(doc *d, const char *enc)
{
    doc_cell(d);
    rdoc_name_text(d, enc);
}

/* A census site's FILE:LINE, as runs. */
void
rdoc_site_where(rdoc *m, const m_csite *st)
{
    rdoc_name_text(m->d, st->file);
    doc_text(m->d, ":");
    doc_name(m->d, st->line);
}

/* What tells f from the sites of its family on its line
 * (model_fsite_apart): its column and the source it spans, or its
 * offset. */
static void
fsite_apart(rdoc *m, const m_group *g, const m_fsite *f)
{
    m_apart a;

    model_fsite_apart(g, f, &a);
    if (a.kind == M_APART_OFFSET)
        doc_textf(m->d, ", offset %ld", f->offset);
    else if (a.kind == M_APART_COLUMN) {
        doc_textf(m->d, ", column %ld", a.col);
        if (a.span != NULL) {
            doc_text(m->d, " ");
            doc_style(m->d, DOC_CODE);
            doc_name(m->d, a.span);
            doc_style(m->d, DOC_PLAIN);
        }
    }
    free(a.span);
}

/* FILE:LINE of a ranked site: its code's file, the row's line; and, when
 * another site of its family is on that line, what tells them apart. */
void
rdoc_fsite_where(rdoc *m, const m_group *g, const m_fsite *f)
{
    const m_code *k = f->code;

    rdoc_name_text_n(m->d, k->name, k->qual ? k->file_len : strlen(k->name));
    doc_text(m->d, ":");
    doc_name(m->d, f->line);
    fsite_apart(m, g, f);
    if (k->module != NULL) { /* generated code: no source file */
        doc_text(m->d, " (generated, module ");
        rdoc_name_text_n(m->d, k->module, k->module_len);
        doc_text(m->d, ")");
    }
}

/* "backing off, N failed attempts in a row" or "never tried". */
void
rdoc_fsite_state(rdoc *m, const m_fsite *f)
{
    if (strcmp(f->state, PSF_SITE_BACKING_OFF) == 0) {
        doc_text(m->d, "backing off, ");
        rdoc_name_text(m->d, f->detail);
        doc_text(m->d, " failed attempts in a row");
    }
    else {
        doc_text(m->d, "never tried");
    }
}

/* What the site list leaves out: by the report's options (--code,
 * --no-stdlib) or their default, by the dumps' caps, and code another
 * tool instrumented, which the census skips. */
static void
sites_left_out(rdoc *m, const m_group *g)
{
    const summary_opts *o = m->opt;
    uint64_t caps = m_list_get(&g->census, "omitted_site_rows"),
             inst = m_list_get(&g->census, "instrumented_code_objects"),
             read = m_list_get(&g->census, "code_objects") +
                    m_list_get(&g->census, "dead_code_objects"),
             shared;
    char c[32], d[32];

    doc_para(m->d);
    if (o->filter.no_stdlib || o->filter.nprefix) {
        doc_text(m->d, "Left out by this report's options:");
        if (o->filter.no_stdlib) {
            cli_count_str(c, sizeof c, g->fs_stdlib_out);
            doc_textf(m->d, " %s sites of the standard library (--no-stdlib)%s", c,
                      o->filter.nprefix ? ";" : ".");
        }
        if (o->filter.nprefix) {
            size_t i;
            cli_count_str(d, sizeof d, g->fs_prefix_out);
            doc_textf(m->d, " %s sites of code outside ", d);
            for (i = 0; i < o->filter.nprefix; i++) {
                doc_text(m->d, i ? ", " : "");
                doc_code(m->d, o->filter.prefix[i]);
            }
            doc_text(m->d, " (--code).");
        }
    }
    else {
        cli_count_str(c, sizeof c, g->fs_stdlib);
        doc_textf(m->d,
                  "By default every code that ran is shown, installed packages and the standard "
                  "library (%s of these sites) included: --no-stdlib leaves the standard library "
                  "out, --code PREFIX keeps one module (and its submodules) or path.",
                  c);
    }
    cli_count_str(c, sizeof c, caps);
    doc_textf(m->d,
              caps ? " The dumps' caps (2,000 code objects and 100,000 rows per dump, the "
                     "hottest code first) left out %s site rows of colder code "
                     "(census.omitted_site_rows): they are not ranked."
                   : " The dumps' caps (2,000 code objects and 100,000 rows per dump) left "
                     "out no site row.",
              c);
    shared = m_list_get(&g->census, "shared_key_site_rows");
    if (shared) {
        cli_count_str(c, sizeof c, shared);
        cli_count_str(d, sizeof d, m_list_get(&g->census, "shared_key_site_executions"));
        doc_textf(m->d,
                  " In the dumps, %s site rows (%s executions) of code objects that share their "
                  "key with a "
                  "hotter one (two generator expressions or lambdas on one line) are not "
                  "ranked: only the hottest of a key has rows (census.shared_key_site_rows).",
                  c, d);
    }
    if (inst) {
        cli_count_str(c, sizeof c, inst);
        cli_count_str(d, sizeof d, inst + read);
        doc_textf(m->d,
                  " %s%s of %s code objects (%.1f%%) were hidden from the census because "
                  "another tool instrumented them (coverage, cProfile, a debugger): "
                  "their sites are not here.",
                  100 * inst >= 10 * (inst + read) ? "A large share: " : "", c, d,
                  100.0 * (double)inst / (double)(inst + read));
    }
}

/* The sites run unspecialized, by executions (FORMAT.md 1.18). */
static void
sec_ranked_sites(rdoc *m, const m_group *g)
{
    size_t i, max = m->opt->top_sites > 0 ? (size_t)m->opt->top_sites : 50;
    char c[32], p[32];

    rdoc_heading(m, 0, "Sites that fail to specialize");
    doc_para(m->d);
    doc_text(m->d, "Every site of the code that ran (");
    doc_code(m->d, "code[K].site");
    doc_text(m->d, " rows, the standard library and installed packages included unless this "
                   "report's options leave them out, below) that executed while backing off or "
                   "never tried, ranked by its executions (");
    doc_code(m->d, "code[K].site_executions");
    doc_textf(m->d,
              "), summed over the dumps. \"%% of family\" is its share of the family's "
              "executions. The state is the one most dumps had, read when the census was "
              "taken (at the window's close or the dump, or as the code died): the last state "
              "the site reached in the period. \"Attempts\" is the consecutive failed "
              "attempts, which stop at CPython's backoff ceiling (11 on 3.12-3.14), so it "
              "cannot rank sites: executions do. Families instrumented while counting "
              "(FOR_ITER; RESUME on 3.13+) run unspecialized because of the counting and "
              "are never ranked: their state cannot be read in this mode. %s%zu of %zu sites "
              "(--top-sites).",
              g->nfsites > max ? "Top " : "All ", g->nfsites > max ? max : g->nfsites, g->nfsites);
    sites_left_out(m, g);
    doc_table(m->d, "lrrlrlll", "Family", "Executions", "% of family", "State", "Attempts", "Where",
              "Function", "Source");
    for (i = 0; i < g->nfsites && i < max; i++) {
        const m_fsite *f = &g->fsites[i];
        const char *text = model_fsite_source(g, f);
        doc_row_begin(m->d);
        name_cell(m->d, f->family);
        cli_count_str(c, sizeof c, f->executions);
        doc_cell_text(m->d, c);
        rdoc_pct_str(p, f->executions, f->family_exec);
        doc_cell_text(m->d, p);
        doc_cell_text(m->d,
                      strcmp(f->state, PSF_SITE_BACKING_OFF) == 0 ? "backing off" : "never tried");
        name_cell(m->d, f->detail);
        doc_cell(m->d);
        rdoc_fsite_where(m, g, f);
        name_cell(m->d, f->code->qual ? f->code->qual : f->code->name);
        name_cell(m->d, text ? text : "");
    }
}

static void
sec_census_sites(rdoc *m, const m_group *g)
{
    size_t i, max = m->opt->top_sites > 0 ? (size_t)m->opt->top_sites : 50;
    char c[32];

    if (g->nfsites > 0 || g->fs_stdlib_out || g->fs_prefix_out ||
        (g->nsites == 0 && m_list_get(&g->census, "instrumented_code_objects"))) {
        sec_ranked_sites(m, g);
        return;
    }
    if (g->nsites == 0)
        return;
    rdoc_heading(m, 0, "Sites that fail to specialize");
    doc_para(m->d);
    doc_text(m->d, "Sites backing off in the program's own code (");
    doc_code(m->d, "census.site");
    doc_textf(m->d,
              "), merged across dumps when family, file, line and function are the same: "
              "\"Attempts\" is the most consecutive failed attempts seen, \"Sites\" how many "
              "such sites the dumps listed. %s%zu of %zu rows (--top-sites).",
              g->nsites > max ? "Top " : "All ", g->nsites > max ? max : g->nsites, g->nsites);
    doc_table(m->d, "lrrlll", "Family", "Attempts", "Sites", "Where", "Function", "Source");
    for (i = 0; i < g->nsites && i < max; i++) {
        const m_csite *st = &g->sites[i];
        doc_row_begin(m->d);
        name_cell(m->d, st->family);
        cli_count_str(c, sizeof c, st->attempts);
        doc_cell_text(m->d, c);
        cli_count_str(c, sizeof c, st->count);
        doc_cell_text(m->d, c);
        doc_cell(m->d);
        rdoc_site_where(m, st);
        name_cell(m->d, st->func);
        name_cell(m->d, st->source);
    }
}

#define HOT_CODE_MAX 50

static void
hot_code_row(rdoc *m, const m_code *k, uint64_t den)
{
    size_t j;
    char c[32], p[32];

    doc_row_begin(m->d);
    name_cell(m->d, k->qual ? k->qual : k->name);
    doc_cell(m->d);
    if (k->qual) {
        rdoc_name_text_n(m->d, k->name, k->file_len);
        doc_textf(m->d, ":%.*s", (int)k->line_len, k->line);
    }
    cli_count_str(c, sizeof c, k->instructions);
    doc_cell_text(m->d, c);
    rdoc_pct_cell(m, k->instructions, den);
    cli_count_str(c, sizeof c, k->calls);
    doc_cell_text(m->d, c);
    if (k->calls)
        doc_cell_textf(m->d, "%.1f", (double)k->instructions / (double)k->calls);
    else
        doc_cell_none(m->d);
    doc_cell(m->d);
    for (j = 0; j < k->ops.n; j++) {
        rdoc_pct_str(p, k->ops.v[j].n, k->instructions);
        if (j)
            doc_text(m->d, ", ");
        doc_name(m->d, k->ops.v[j].name);
        doc_textf(m->d, " %s", p);
    }
}

/* What the report's options (--code, --no-stdlib) left out of the hot
 * code and the source view. */
static void
hot_left_out(rdoc *m, const m_group *g, uint64_t den)
{
    const m_code_filter *f = &m->opt->filter;
    char n[32], c[32], p[32];
    size_t i;

    if (g->hot_out == 0)
        return;
    cli_count_str(n, sizeof n, g->hot_out);
    cli_count_str(c, sizeof c, g->hot_out_instructions);
    rdoc_pct_str(p, g->hot_out_instructions, den);
    doc_textf(m->d, " Left out by this report's options: %s code objects, %s instructions (%s),", n,
              c, p);
    if (f->no_stdlib)
        doc_text(m->d, f->nprefix ? " of the standard library (--no-stdlib) or"
                                  : " of the standard library (--no-stdlib).");
    if (f->nprefix) {
        doc_text(m->d, " of code outside ");
        for (i = 0; i < f->nprefix; i++) {
            doc_text(m->d, i ? ", " : "");
            doc_code(m->d, f->prefix[i]);
        }
        doc_text(m->d, " (--code).");
    }
}

static void
sec_hot_code(rdoc *m, const m_group *g)
{
    uint64_t den = g->total_exec ? g->total_exec : g->code_instructions;
    size_t i, n, shown = g->nhot - g->hot_out;

    assert(g->hot_out <= g->nhot);
    if (g->nhot == 0)
        return;
    rdoc_heading(m, 0, "Hot code");
    doc_para(m->d);
    doc_text(m->d, "The code objects that executed the most instructions (");
    doc_code(m->d, "code[...]");
    doc_textf(m->d, " keys); the share is of all executed instructions (%s).",
              g->total_exec ? "the execution counts" : "the code objects listed");
    if (shown)
        doc_textf(m->d, " %s%zu of %zu.", shown > HOT_CODE_MAX ? "Top " : "All ",
                  shown > HOT_CODE_MAX ? (size_t)HOT_CODE_MAX : shown, shown);
    else
        doc_text(m->d, " None of the code asked for is among the code objects the dumps hold.");
    hot_left_out(m, g, den);
    if (shown == 0)
        return;
    doc_table(m->d, "llrrrrl", "Function", "Where", "Instructions", "Share", "Calls", "Per call",
              "Top opcodes");
    for (i = 0, n = 0; i < g->nhot && n < HOT_CODE_MAX; i++)
        if (!g->code[i].out) {
            hot_code_row(m, &g->code[i], den);
            n++;
        }
}

/* The hottest functions' source, as `pystats annotate --html` shows
 * them: the page only (a figure, page-only heading and text). */
static void
sec_source_view(rdoc *m, const m_group *g)
{
    size_t i, n = 0;

    for (i = 0; i < g->ncode; i++)
        n += g->code[i].nlines > 0 && !g->code[i].out;
    if (n == 0)
        return;
    rdoc_heading(m, 0, "Source view");
    doc_page_only(m->d);
    doc_para(m->d);
    doc_page_only(m->d);
    doc_textf(m->d,
              "The source of the %zu functions that executed the most instructions (of %zu code "
              "objects with per-line counts), each line with the exact instructions it executed, "
              "each specializable site (dumps with a census) underlined in the colour of its "
              "state at exit, its form or attempts on hover. More functions, the view as text, "
              "and a comparison with another run: ",
              n < REPORT_SOURCE_TOP ? n : (size_t)REPORT_SOURCE_TOP, n);
    doc_code(m->d, "pystats annotate --html FILE");
    doc_text(m->d, ".");
    doc_figure(m->d, DOC_FIG_SOURCE, g);
}

void
rdoc_sites(rdoc *m, const m_group *g)
{
    sec_census_sites(m, g);
}

void
rdoc_hot_code(rdoc *m, const m_group *g)
{
    sec_hot_code(m, g);
}

void
rdoc_source_view(rdoc *m, const m_group *g)
{
    sec_source_view(m, g);
}
