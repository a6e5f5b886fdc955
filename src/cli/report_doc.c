/* report_doc.c: the report of a summary as a document (doc.h): the
 * header saying what was read, per group its overview (the verdict,
 * the totals, where to look first) then its sections (report_sec.h:
 * CPython's summarize_stats.py sections and the collector's own), its
 * metadata, and the input problems.  doc_md.c prints it as Markdown,
 * report_html.c as the HTML page. */
#include "../format/psf_version.h"
#include "report.h"

#include "cli.h"
#include "overview.h"
#include "report_sec.h"
#include "report_sitefx.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* encoded: the texts are free text in the dump's encoding (text.h). */
static void
strs_line(rdoc *m, const char *label, const summary_texts *s, int encoded)
{
    size_t i;

    if (s->n == 0)
        return;
    doc_row_begin(m->d);
    doc_cell_name(m->d, label);
    doc_cell(m->d);
    for (i = 0; i < s->n; i++) {
        if (i)
            doc_text(m->d, "; ");
        if (encoded)
            rdoc_name_text(m->d, s->v[i].text);
        else
            doc_name(m->d, s->v[i].text);
        doc_textf(m->d, " (%llu)", (unsigned long long)s->v[i].n);
    }
}

static void
sec_group_meta(rdoc *m, const summary_meta *g)
{
    size_t i;
    char c[32];

    rdoc_heading(m, 0, "Meta");
    doc_table(m->d, "ll", NULL, NULL);
    cli_count_str(c, sizeof c, g->files);
    doc_row_begin(m->d);
    doc_cell_text(m->d, "Number of data files");
    doc_cell_text(m->d, c);
    doc_row_begin(m->d);
    doc_cell_text(m->d, "Formats");
    for (i = 0; i < g->formats.n; i++) {
        if (i == 0)
            doc_cell(m->d);
        doc_textf(m->d, "%s%s (%llu)", i ? " " : "", g->formats.v[i].text,
                  (unsigned long long)g->formats.v[i].n);
    }
    if (g->formats.n == 0)
        doc_cell_none(m->d);
    strs_line(m, "Python version detected from", &g->how, 0);
    strs_line(m, "Collectors", &g->collectors, 0);
    for (i = 0; i < g->nhdr; i++)
        if (!g->hdr[i].self)
            strs_line(m, g->hdr[i].key, &g->hdr[i].vals, g->hdr[i].free_text);
    if (g->time_start) {
        doc_row_begin(m->d);
        doc_cell_text(m->d, "Earliest start");
        doc_cell_name(m->d, g->time_start);
    }
    if (g->time_end) {
        doc_row_begin(m->d);
        doc_cell_text(m->d, "Latest end");
        doc_cell_name(m->d, g->time_end);
    }
}

/* The metadata of Faster CPython's published summaries (commit, fork,
 * branch, date, actor), one line under the group's title. */
static void
cpython_metadata(rdoc *m, const summary_meta *g)
{
    size_t i;

    for (i = 0; i < g->nrun; i++) {
        const summary_texts *v = &g->run[i].vals;
        size_t j;
        if (i) {
            doc_text(m->d, "; ");
        }
        else {
            doc_para(m->d);
            doc_bold(m->d, "CPython run:");
            doc_text(m->d, " ");
        }
        doc_name(m->d, g->run[i].key);
        doc_text(m->d, " ");
        for (j = 0; j < v->n; j++) {
            if (j)
                doc_text(m->d, ", ");
            doc_name(m->d, v->v[j].text);
            if (v->n > 1)
                doc_textf(m->d, " (%llu)", (unsigned long long)v->v[j].n);
        }
    }
    if (g->nrun)
        doc_text(m->d, ".");
}

/* Hot code as "QUALNAME (FILE:LINE)". */
static void
code_where(rdoc *m, const m_code *k)
{
    if (k->qual == NULL) {
        rdoc_name_text(m->d, k->name);
        return;
    }
    doc_style(m->d, DOC_CODE);
    rdoc_name_text(m->d, k->qual);
    doc_style(m->d, DOC_PLAIN);
    doc_text(m->d, " (");
    rdoc_name_text_n(m->d, k->name, k->file_len);
    doc_textf(m->d, ":%.*s)", (int)k->line_len, k->line);
}

/* "Where to look" items of the overview (overview.h), each led by a link
 * to its section on the page. */
/* An overview item's "Fails to specialize: FAMILY at " and " in FUNC",
 * around the site's place (by attempts or by executions). */
static void
fails_lead(rdoc *m, const char *family)
{
    doc_item(m->d);
    doc_link(m->d, "Fails to specialize", "Sites that fail to specialize");
    doc_text(m->d, ": ");
    rdoc_name_text(m->d, family);
    doc_text(m->d, " at ");
}

static void
fails_in(rdoc *m, const char *func)
{
    doc_text(m->d, " in ");
    doc_style(m->d, DOC_CODE);
    rdoc_name_text(m->d, func);
    doc_style(m->d, DOC_PLAIN);
}
static void
overview_items(rdoc *m, const m_group *g, const overview *o, uint64_t den)
{
    char c[32], p[32];
    size_t i;

    for (i = 0; i < o->ncode; i++) {
        doc_item(m->d);
        doc_link(m->d, "Hot code", "Hot code");
        doc_text(m->d, ": ");
        code_where(m, o->code[i]);
        cli_count_str(c, sizeof c, o->code[i]->instructions);
        rdoc_pct_str(p, o->code[i]->instructions, den);
        doc_textf(m->d, ": %s instructions%s%s%s", c, *p ? ", " : "", p, *p ? " of all" : "");
    }
    for (i = 0; i < o->nsite; i++) {
        const m_csite *st = o->site[i];
        fails_lead(m, st->family);
        rdoc_site_where(m, st);
        fails_in(m, st->func);
        cli_count_str(c, sizeof c, st->attempts);
        doc_textf(m->d, ": %s failed attempts in a row", c);
    }
    for (i = 0; i < o->nfsite; i++) {
        const m_fsite *f = o->fsite[i];
        fails_lead(m, f->family);
        rdoc_fsite_where(m, g, f);
        fails_in(m, f->code->qual ? f->code->qual : f->code->name);
        cli_count_str(c, sizeof c, f->executions);
        rdoc_pct_str(p, f->executions, f->family_exec);
        doc_textf(m->d, ": %s executions not specialized%s%s%s (", c, *p ? ", " : "", p,
                  *p ? " of the family's" : "");
        rdoc_fsite_state(m, f);
        doc_text(m->d, ")");
    }
    for (i = 0; i < o->nfam; i++) {
        doc_item(m->d);
        doc_link(m->d, "Runs unspecialized", "Specialization effectiveness");
        doc_text(m->d, ": ");
        doc_name(m->d, o->fam[i].family);
        cli_count_str(c, sizeof c, o->fam[i].generic);
        rdoc_pct_str(p, o->fam[i].generic, o->fam[i].exec);
        doc_textf(m->d, ": %s executions in a generic form, misses included%s%s%s", c,
                  *p ? " (" : "", p, *p ? " of the family's)" : "");
    }
}

/* Where to look first (overview.h): the verdict, the totals, the
 * hottest code, the failing sites and the families that run generic. */
static void
sec_overview(rdoc *m, const summary_group *sg, const char *verdict)
{
    const m_group *g = &sg->m;
    overview o;
    char c[32];

    overview_build(&o, g);
    rdoc_heading(m, 0, "Overview");
    if (verdict)
        doc_figure_series(m->d, DOC_FIG_VERDICT, verdict);
    doc_table(m->d, "lr", NULL, NULL);
    if (verdict) {
        doc_row_begin(m->d);
        doc_cell_text(m->d, "Verdict");
        doc_cell(m->d);
        doc_bold(m->d, verdict);
    }
    cli_count_str(c, sizeof c, g->total_exec);
    doc_row_begin(m->d);
    doc_cell_text(m->d, "Instructions executed");
    doc_cell_text(m->d, c);
    cli_count_str(c, sizeof c, sg->info.files);
    doc_row_begin(m->d);
    doc_cell_text(m->d, "Files");
    doc_cell_text(m->d, c);
    if (o.ncode + o.nsite + o.nfsite + o.nfam == 0)
        return;
    doc_para(m->d);
    doc_text(m->d, "Where to look:");
    overview_items(m, g, &o, g->total_exec ? g->total_exec : g->code_instructions);
}

static void
report_group(rdoc *m, const summary_group *sg, const char *verdict)
{
    const m_group *g = &sg->m;

    /* What to act on first, then the long tables (and a published
     * summary's run, before both). */
    sec_overview(m, sg, verdict);
    cpython_metadata(m, &sg->info);
    rdoc_hot_code(m, g);
    rdoc_sites(m, g);
    report_sitefx(m->d, m->level, g);
    rdoc_source_view(m, g);
    rdoc_census(m, g);
    rdoc_ops(m, g);
    rdoc_stats(m, g);
    sec_group_meta(m, &sg->info);
}

/* Whether the report lists the findings behind its verdict: when there
 * is something to distrust (errors or warnings). */
static int
findings_shown(const summary *s)
{
    return s->nfindings && s->verdict && strcmp(s->verdict, "ok") != 0;
}

/* The verdict with its reason and magnitude (check_verdict_reason), the
 * known leftover of SIGTERM dumps against the instructions counted, and
 * where its findings are. */
static void
trust_line(doc *d, const summary *s)
{
    uint64_t left = 0, counted = 0;
    char c[32], t[32], p[32];
    size_t i;

    doc_para(d);
    doc_bold(d, "Trust:");
    doc_text(d, " ");
    doc_name(d, s->trust);
    for (i = 0; i < s->ng; i++) {
        left += s->g[i].info.leftover_bound;
        counted += s->g[i].m.total_exec;
    }
    if (left) {
        cli_count_str(c, sizeof c, left);
        cli_count_str(t, sizeof t, counted);
        rdoc_pct_str(p, left, counted);
        doc_textf(d, "; leftover bound: at most %s %s uncounted, %s of the %s counted", c,
                  left == 1 ? "instruction" : "instructions", p, t);
    }
    if (findings_shown(s)) {
        doc_text(d, ". See ");
        doc_link(d, "Findings", "Findings");
        doc_text(d, " below.");
        return;
    }
    doc_text(d, ". Details: ");
    doc_code(d, "pystats check");
    doc_text(d, ".");
}

/* One finding as `pystats check` prints it (check_report_text): its
 * severity, check and title, its summary, its first details (or files),
 * and why it matters; a note, which changes no verdict, in its first line
 * only (`pystats check` has the rest). */
static void
finding(doc *d, const check_item *f)
{
    size_t i, nd = f->ndetails < CHECK_SHOWN_DETAILS ? f->ndetails : CHECK_SHOWN_DETAILS;
    size_t nf = f->nfiles < CHECK_SHOWN_FILES ? f->nfiles : CHECK_SHOWN_FILES;

    doc_para(d);
    doc_bold(d, f->severity);
    doc_text(d, " ");
    doc_code(d, f->check);
    doc_textf(d, ": %s", f->title);
    if (*f->summary) {
        doc_text(d, ": ");
        doc_name(d, f->summary);
    }
    doc_text(d, ".");
    if (f->level == CHECK_NOTE)
        return;
    for (i = 0; i < nd; i++) {
        doc_item(d);
        doc_name(d, f->details[i]);
    }
    if (nd < f->ndetails) {
        doc_item(d);
        doc_textf(d, "... and %zu more", f->ndetails - nd);
    }
    for (i = 0; f->ndetails == 0 && i < nf; i++) {
        doc_item(d);
        doc_name(d, f->files[i]);
    }
    if (f->ndetails == 0 && nf < f->nfiles) {
        doc_item(d);
        doc_textf(d, "... and %zu more files", f->nfiles - nf);
    }
    doc_para(d);
    doc_text(d, f->why);
}

/* What `pystats check` finds in the inputs, found by its own checks
 * (summary_opts.findings), most severe first. */
static void
report_findings(doc *d, const summary *s)
{
    size_t i;

    doc_heading(d, 2);
    doc_text(d, "Findings");
    doc_para(d);
    doc_text(d, "What ");
    doc_code(d, "pystats check");
    doc_textf(d,
              " finds in these files, most severe first: %zu in all. Notes change no verdict: "
              "their first line only (",
              s->nfindings);
    doc_code(d, "pystats check");
    doc_text(d, " has the rest).");
    for (i = 0; i < s->nfindings; i++)
        finding(d, &s->findings[i]);
}

/* What was read, the trust verdict, the weighting and the warnings. */
static void
report_header(doc *d, const summary *s)
{
    char t[256];

    doc_heading(d, 1);
    doc_text(d, "pystats summary");
    doc_para(d);
    doc_text(d, "Report by pystats " PSF_VERSION ".");
    doc_para(d);
    doc_textf(d, "%llu data file%s", (unsigned long long)s->files, s->files == 1 ? "" : "s");
    if (s->ng == 1) {
        doc_text(d, ": ");
        doc_name(d, s->g[0].title);
        doc_text(d, ".");
    }
    else {
        doc_textf(d, " in %zu groups.", s->ng);
    }
    if (s->trust)
        trust_line(d, s);
    if (s->weight_total) {
        cli_count_str(t, sizeof t, s->weight_total);
        doc_para(d);
        doc_bold(d, "Weighting:");
        doc_textf(d,
                  " every label counts the same: each of the %llu labels "
                  "is scaled to %s executions before adding (--equal-weight).",
                  (unsigned long long)s->weight_labels, t);
    }
    if (s->mix) {
        doc_para(d);
        doc_bold(d, "Warning:");
        doc_text(d, " ");
        doc_name(d, s->mix);
        doc_text(d, ".");
    }
    if (s->nproblems) {
        doc_para(d);
        doc_bold(d, "Warning:");
        doc_textf(d, " %llu input problems (see \"Input problems\" below).",
                  (unsigned long long)s->nproblems);
    }
}

static void
report_problems(doc *d, const summary *s)
{
    size_t i;

    doc_heading(d, 2);
    doc_text(d, "Input problems");
    doc_table(d, "lr", "Problem", "Count");
    for (i = 0; i < SUMMARY_P_COUNT; i++)
        if (s->problems[i].n) {
            doc_row_begin(d);
            doc_cell_text(d, s->problems[i].text);
            doc_cell_textf(d, "%llu", (unsigned long long)s->problems[i].n);
        }
    if (s->nnotes == 0)
        return;
    doc_para(d);
    doc_text(d, "First problems found:");
    for (i = 0; i < s->nnotes; i++) {
        doc_item(d);
        doc_textf(d, "%s: ", s->notes[i].kind);
        doc_name(d, s->notes[i].text);
    }
}

void
report_doc(doc *d, const summary *s)
{
    rdoc m = {d, 2, &s->opt};
    size_t i;

    report_header(d, s);
    if (findings_shown(s))
        report_findings(d, s);
    if (s->ng == 1) {
        report_group(&m, &s->g[0], s->verdict);
    }
    else {
        m.level = 3;
        for (i = 0; i < s->ng; i++) {
            doc_heading(d, 2);
            doc_last(d)->group = (int)i + 1;
            doc_textf(d, "Group %zu: ", i + 1);
            doc_name(d, s->g[i].title);
            doc_textf(d, " (%llu files)", (unsigned long long)s->g[i].info.files);
            report_group(&m, &s->g[i], s->verdict);
        }
    }
    if (s->nproblems)
        report_problems(d, s);
}

int
report_markdown(FILE *out, const summary *s)
{
    doc d;

    doc_init(&d);
    report_doc(&d, s);
    return doc_print_md_free(out, &d);
}
