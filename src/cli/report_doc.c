/* report_doc.c: the report of a summary as a document (doc.h): CPython's
 * summarize_stats.py sections and derived figures, per group, with a
 * header saying what was read.  doc_md.c prints it as Markdown,
 * report_html.c as the HTML page. */
#include "../format/psf_version.h"
#include "report.h"
#include "../format/psf_keys.h"

#include "cli.h"
#include "doc.h"
#include "model.h"
#include "overview.h"
#include "report_sitefx.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct md {
    doc *d;
    int level; /* heading level of a group's sections */
    const summary_opts *opt;
} md;

/* CPython's Ratio: one decimal of percent; empty when den is 0. */
static void
pct_str(char *buf, uint64_t num, uint64_t den)
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
static void
name_text_n(doc *d, const char *enc, size_t n)
{
    char *t = text_display_n(enc, n);

    doc_name(d, t);
    free(t);
}

static void
name_text(doc *d, const char *enc)
{
    name_text_n(d, enc, strlen(enc));
}

static void
cell_text(doc *d, const char *enc)
{
    doc_cell(d);
    name_text(d, enc);
}

static void
heading(md *m, int extra, const char *text)
{
    doc_heading(m->d, m->level + extra);
    doc_text(m->d, text);
}

/* A heading whose text is a name from the inputs, then a suffix. */
static void
heading_name(md *m, int extra, const char *name, const char *suffix)
{
    doc_heading(m->d, m->level + extra);
    doc_name(m->d, name);
    if (*suffix)
        doc_text(m->d, suffix);
}

/* A table row of a label, a count and a ratio. */
static void
row3(md *m, const char *label, uint64_t n, uint64_t den)
{
    char c[32], p[32];

    cli_count_str(c, sizeof c, n);
    pct_str(p, n, den);
    doc_row_begin(m->d);
    doc_cell_name(m->d, label);
    doc_cell_text(m->d, c);
    doc_cell_text(m->d, p);
}

static void
table3(md *m, const char *col, const m_list *l, uint64_t den, size_t max)
{
    size_t i;

    doc_table(m->d, "lrr", col, "Count", "Ratio");
    for (i = 0; i < l->n && i < max; i++)
        row3(m, l->v[i].name, l->v[i].n, den);
}

/* CPython's order of the execution table: count, then misses, largest
 * first; equal ones in the input's order. */
static const m_group *exec_sort_group;

static uint64_t
exec_miss(const m_group *g, const char *name)
{
    const m_op *op = model_op(g, name);
    return op && !op->specializable ? op->spec[PSF_SPEC_MISS] : 0;
}

static int
exec_cmp(const void *pa, const void *pb)
{
    const m_kv *a = pa, *b = pb;
    uint64_t ma, mb;

    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    ma = exec_miss(exec_sort_group, a->name);
    mb = exec_miss(exec_sort_group, b->name);
    if (ma != mb)
        return ma > mb ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void
exec_sort_input(const m_group *g, m_list *l)
{
    exec_sort_group = g;
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, exec_cmp);
}

static void
sec_execution(md *m, const m_group *g)
{
    m_list l = {0};
    uint64_t cum = 0;
    size_t i;
    char c[32], s[32], cu[32], mr[32];

    for (i = 0; i < g->ops.n; i++)
        if (g->ops.v[i].has_exec) {
            m_list_add(&l, g->ops.v[i].name, strlen(g->ops.v[i].name), g->ops.v[i].exec);
            l.v[l.n - 1].seq = g->ops.v[i].order;
        }
    if (l.n == 0 || g->total_exec == 0)
        goto done;
    if (g->input_order)
        exec_sort_input(g, &l);
    else
        m_list_sort(&l);
    heading(m, 0, "Execution counts");
    doc_figure(m->d, DOC_FIG_EXEC, g);
    if (g->own) {
        doc_para(m->d);
        doc_text(m->d, "Counts of base instructions: each includes every specialized form of "
                       "its family.");
    }
    doc_table(m->d, "lrrrr", "Name", "Count", "Self", "Cumulative", "Miss ratio");
    for (i = 0; i < l.n; i++) {
        const m_op *op = model_op(g, l.v[i].name);
        uint64_t miss = 0;
        cum += l.v[i].n;
        /* CPython: misses of specialized forms; a base instruction's
         * misses belong to the family table. */
        if (op && !op->specializable)
            miss = op->spec[PSF_SPEC_MISS];
        cli_count_str(c, sizeof c, l.v[i].n);
        pct_str(s, l.v[i].n, g->total_exec);
        pct_str(cu, cum, g->total_exec);
        if (miss)
            pct_str(mr, miss, l.v[i].n);
        else
            mr[0] = '\0';
        doc_row_begin(m->d);
        doc_cell_name(m->d, l.v[i].name);
        doc_cell_text(m->d, c);
        doc_cell_text(m->d, s);
        doc_cell_text(m->d, cu);
        doc_cell_text(m->d, mr);
    }
    cli_count_str(c, sizeof c, g->total_exec);
    doc_para(m->d);
    doc_textf(m->d, "Total: %s instructions executed.", c);
done:
    for (i = 0; i < l.n; i++)
        free(l.v[i].name);
    free(l.v);
}

static void
sec_pairs(md *m, const m_group *g)
{
    m_list l = {0};
    uint64_t cum = 0;
    size_t i, j;
    char name[600], c[32], s[32], cu[32];

    if (!g->has_pairs)
        return;
    for (i = 0; i < g->ops.n; i++)
        for (j = 0; j < g->ops.v[i].succ.n; j++) {
            snprintf(name, sizeof name, "%s %s", g->ops.v[i].name, g->ops.v[i].succ.v[j].name);
            m_list_add(&l, name, strlen(name), g->ops.v[i].succ.v[j].n);
            l.v[l.n - 1].seq = ((uint64_t)g->ops.v[i].order << 32) | g->ops.v[i].succ.v[j].seq;
        }
    m_list_sort_input(&l, g->input_order);
    heading(m, 0, "Pair counts");
    doc_figure(m->d, DOC_FIG_PAIRS, g);
    doc_para(m->d);
    doc_textf(m->d, "Top %d pairs; shares of all instructions executed.", m->opt->top_pairs);
    doc_table(m->d, "lrrr", "Pair", "Count", "Self", "Cumulative");
    for (i = 0; i < l.n && i < (size_t)m->opt->top_pairs; i++) {
        cum += l.v[i].n;
        cli_count_str(c, sizeof c, l.v[i].n);
        pct_str(s, l.v[i].n, g->total_exec);
        pct_str(cu, cum, g->total_exec);
        doc_row_begin(m->d);
        doc_cell_name(m->d, l.v[i].name);
        doc_cell_text(m->d, c);
        doc_cell_text(m->d, s);
        doc_cell_text(m->d, cu);
    }
    for (i = 0; i < l.n; i++)
        free(l.v[i].name);
    free(l.v);
}

static uint64_t
list_total(const m_list *l)
{
    uint64_t t = 0;
    size_t i;

    for (i = 0; i < l->n; i++)
        t += l->v[i].n;
    return t;
}

/* Three cells of a name, its count and its share of total; none when
 * the list has no j-th entry. */
static void
share_cells(md *m, const m_list *l, size_t j, uint64_t total)
{
    char c[32], p[32];

    if (j >= l->n) {
        doc_cell_none(m->d);
        doc_cell_none(m->d);
        doc_cell_none(m->d);
        return;
    }
    cli_count_str(c, sizeof c, l->v[j].n);
    pct_str(p, l->v[j].n, total);
    doc_cell_name(m->d, l->v[j].name);
    doc_cell_text(m->d, c);
    doc_cell_text(m->d, p);
}

static void
sec_pred_succ(md *m, const m_group *g)
{
    size_t i, j;

    if (!g->has_pairs)
        return;
    heading(m, 0, "Predecessors and successors");
    doc_last(m->d)->fold = 1;
    doc_para(m->d);
    doc_text(m->d, "Top 5 predecessors and successors of each instruction.");
    for (i = 0; i < g->ops.n; i++) {
        const m_op *op = &g->ops.v[i];
        uint64_t pt = list_total(&op->pred), st = list_total(&op->succ);
        if (pt == 0 && st == 0)
            continue;
        heading_name(m, 1, op->name, "");
        doc_table(m->d, "lrrlrr", "Predecessor", "Count", "Share", "Successor", "Count", "Share");
        for (j = 0; j < 5 && (j < op->pred.n || j < op->succ.n); j++) {
            doc_row_begin(m->d);
            share_cells(m, &op->pred, j, pt);
            share_cells(m, &op->succ, j, st);
        }
    }
}

/* The failure kinds of a family, shares of its failures; where failure
 * kinds were counted but no failure (3.14's GET_ITER), CPython's Ratio
 * says so: "434 / 0 !!". */
static void
fail_table(md *m, const m_list *l, uint64_t den)
{
    char c[32], p[48];
    size_t i;

    if (den) {
        table3(m, "Failure kind", l, den, (size_t)-1);
        return;
    }
    doc_table(m->d, "lrr", "Failure kind", "Count", "Ratio");
    for (i = 0; i < l->n; i++) {
        cli_count_str(c, sizeof c, l->v[i].n);
        snprintf(p, sizeof p, l->v[i].n ? "%s / 0 !!" : "", c);
        doc_row_begin(m->d);
        doc_cell_name(m->d, l->v[i].name);
        doc_cell_text(m->d, c);
        doc_cell_text(m->d, p);
    }
}

static void
sec_specialization(md *m, const m_group *g)
{
    static const int kinds[] = {PSF_SPEC_HIT, PSF_SPEC_DEFERRED, PSF_SPEC_MISS, PSF_SPEC_DEOPT};
    int shown = 0;
    size_t i, k;

    for (i = 0; i < g->ops.n; i++) {
        const m_op *op = &g->ops.v[i];
        uint64_t total = m_spec_total(op), sf;
        if (!op->specializable || !op->has_spec || total == 0)
            continue;
        if (!shown++) {
            heading(m, 0, "Specialization");
            doc_figure(m->d, DOC_FIG_SPEC, g);
        }
        heading_name(m, 1, op->name, "");
        doc_table(m->d, "lrr", "Kind", "Count", "Ratio");
        for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            row3(m, psf_spec_field_name[kinds[k]], op->spec[kinds[k]], total);
        sf = op->spec[PSF_SPEC_SUCCESS] + op->spec[PSF_SPEC_FAILURE];
        if (sf) {
            doc_table(m->d, "lrr", "Specialization", "Count", "Ratio");
            row3(m, "success", op->spec[PSF_SPEC_SUCCESS], sf);
            row3(m, "failure", op->spec[PSF_SPEC_FAILURE], sf);
        }
        if (op->fail.n)
            fail_table(m, &op->fail, op->spec[PSF_SPEC_FAILURE]);
    }
}

/* The three most used of forms (sorted) as "NAME SHARE, ..." runs of the
 * current cell, shares of den; ", N more" past them if more is set. */
static void
top_forms(md *m, const m_list *forms, uint64_t den, int more)
{
    char p[32];
    size_t j;

    for (j = 0; j < forms->n && j < 3; j++) {
        pct_str(p, forms->v[j].n, den);
        if (j)
            doc_text(m->d, ", ");
        doc_name(m->d, forms->v[j].name);
        doc_textf(m->d, " %s", p);
    }
    if (more && forms->n > 3)
        doc_textf(m->d, ", %zu more", forms->n - 3);
}

/* A row of the table by family: executions, base and specialized, and
 * the three most used forms (none for a family that never specialized). */
static void
family_row(md *m, const m_group *g, const m_kv *f)
{
    m_list forms = {0};
    uint64_t base = 0, spec = 0;
    char c[32], b[32], s[32], sp[32];
    size_t j;

    for (j = 0; j < g->ops.n; j++) {
        const m_op *op = &g->ops.v[j];
        if (!op->has_exec || strcmp(op->family, f->name) != 0)
            continue;
        if (model_is_specialized(op)) {
            spec += op->exec;
            if (op->exec)
                m_list_add(&forms, op->name, strlen(op->name), op->exec);
        }
        else {
            base += op->exec;
        }
    }
    if (spec == 0 && forms.n == 0) {
        free(forms.v);
        return;
    }
    m_list_sort(&forms);
    cli_count_str(c, sizeof c, f->n);
    cli_count_str(b, sizeof b, base);
    cli_count_str(s, sizeof s, spec);
    pct_str(sp, spec, f->n);
    doc_row_begin(m->d);
    doc_cell_name(m->d, f->name);
    doc_cell_text(m->d, c);
    doc_cell_text(m->d, b);
    doc_cell_text(m->d, s);
    doc_cell_text(m->d, sp);
    doc_cell(m->d);
    top_forms(m, &forms, f->n, 0);
    m_list_free(&forms);
}

static void
sec_effectiveness(md *m, const m_group *g)
{
    uint64_t basic = 0, hits = 0, misses = 0, notspec = 0;
    m_list deferred = {0}, miss = {0}, fam = {0};
    size_t i;

    /* CPython's report shows the four rows even when nothing ran (zeros,
     * no ratios). */
    if (g->own)
        return;
    for (i = 0; i < g->ops.n; i++) {
        const m_op *op = &g->ops.v[i];
        if (op->has_exec) {
            if (op->specializable)
                notspec += op->exec;
            else if (model_is_specialized(op)) {
                uint64_t ms =
                    op->spec[PSF_SPEC_MISS] < op->exec ? op->spec[PSF_SPEC_MISS] : op->exec;
                hits += op->exec - ms;
                misses += ms;
            }
            else
                basic += op->exec;
            m_list_add(&fam, op->family, strlen(op->family), op->exec);
        }
        if (op->spec[PSF_SPEC_DEFERRED] && strcmp(op->name, "RESUME") != 0) {
            m_list_add(&deferred, op->name, strlen(op->name), op->spec[PSF_SPEC_DEFERRED]);
            deferred.v[deferred.n - 1].seq = op->order;
        }
        if (op->spec[PSF_SPEC_MISS] && !op->specializable) {
            m_list_add(&miss, op->name, strlen(op->name), op->spec[PSF_SPEC_MISS]);
            miss.v[miss.n - 1].seq = op->order;
        }
    }
    heading(m, 0, "Specialization effectiveness");
    doc_table(m->d, "lrr", "Instructions", "Count", "Ratio");
    row3(m, "Basic", basic, g->total_exec);
    row3(m, "Not specialized", notspec, g->total_exec);
    row3(m, "Specialized hits", hits, g->total_exec);
    row3(m, "Specialized misses", misses, g->total_exec);

    if (fam.n == 0) {
        m_list_free(&fam);
        m_list_free(&deferred);
        m_list_free(&miss);
        return;
    }
    m_list_sort(&fam);
    heading(m, 1, "By family");
    doc_para(m->d);
    doc_text(m->d, "Executions of each family (the base instruction and its specialized "
                   "forms): the share that ran a specialized form, and the most used forms.");
    doc_table(m->d, "lrrrrl", "Family", "Executions", "Base", "Specialized", "Specialized share",
              "Most used specializations");
    for (i = 0; i < fam.n; i++)
        family_row(m, g, &fam.v[i]);
    if (deferred.n) {
        m_list_sort_input(&deferred, g->input_order);
        heading(m, 1, "Deferred by instruction");
        table3(m, "Name", &deferred, list_total(&deferred), 10);
    }
    if (miss.n) {
        m_list_sort_input(&miss, g->input_order);
        heading(m, 1, "Misses by instruction");
        table3(m, "Name", &miss, list_total(&miss), 10);
    }
    m_list_free(&deferred);
    m_list_free(&miss);
    m_list_free(&fam);
}

static void
sec_calls(md *m, const m_group *g)
{
    uint64_t total = 0;
    size_t i;

    if (g->calls.n == 0)
        return;
    for (i = 0; i < g->calls.n; i++)
        if (strstr(g->calls.v[i].name, "Calls to"))
            total += g->calls.v[i].n;
    heading(m, 0, "Call stats");
    doc_para(m->d);
    doc_text(m->d, "Ratios are of all calls to Python functions (\"Calls to\" rows), "
                   "as CPython's report has them, frames too.");
    doc_table(m->d, "lrr", NULL, "Count", "Ratio");
    for (i = 0; i < g->calls.n; i++)
        row3(m, g->calls.v[i].name, g->calls.v[i].n, total);
}

static void
sec_objects(md *m, const m_group *g)
{
    const m_list *l = &g->objects;
    uint64_t alloc, mat, inc, dec, den;
    size_t i;

    if (l->n == 0)
        return;
    /* CPython's denominators; 3.14 splits refcounts into mortal and
     * immortal and calls "new values" "inline values". */
    mat = m_list_get(l, "Object new values") + m_list_get(l, "Object inline values");
    alloc = m_list_get(l, "Object allocations") + m_list_get(l, "Object allocations from freelist");
    inc = m_list_get(l, "Object interpreter increfs") + m_list_get(l, "Object increfs") +
          m_list_get(l, "Object interpreter mortal increfs") +
          m_list_get(l, "Object mortal increfs") +
          m_list_get(l, "Object interpreter immortal increfs") +
          m_list_get(l, "Object immortal increfs");
    dec = m_list_get(l, "Object interpreter decrefs") + m_list_get(l, "Object decrefs") +
          m_list_get(l, "Object interpreter mortal decrefs") +
          m_list_get(l, "Object mortal decrefs") +
          m_list_get(l, "Object interpreter immortal decrefs") +
          m_list_get(l, "Object immortal decrefs");
    heading(m, 0, "Object stats");
    doc_table(m->d, "lrr", NULL, "Count", "Ratio");
    for (i = 0; i < l->n; i++) {
        const char *k = l->v[i].name;
        if (strstr(k, "materialize"))
            den = mat;
        else if (strstr(k, "allocations"))
            den = alloc;
        else if (strstr(k, "increfs"))
            den = inc;
        else if (strstr(k, "decrefs"))
            den = dec;
        else
            den = 0;
        {
            char lab[256];
            /* CPython's label: without "Object ", the first letter capitalized. */
            snprintf(lab, sizeof lab, "%s", strncmp(k, "Object ", 7) == 0 ? k + 7 : k);
            if (lab[0] >= 'a' && lab[0] <= 'z')
                lab[0] = (char)(lab[0] - 'a' + 'A');
            row3(m, lab, l->v[i].n, den);
        }
    }
}

static void
sec_gc(md *m, const m_group *g)
{
    m_list fields = {0};
    long gen, maxgen = -1;
    size_t i, f;
    char name[256], c[32], *align;

    if (g->gc.n == 0)
        return;
    for (i = 0; i < g->gc.n; i++) {
        const char *sp = strchr(g->gc.v[i].name, ' ');
        gen = strtol(g->gc.v[i].name, NULL, 10);
        if (gen > maxgen)
            maxgen = gen;
        if (sp)
            m_list_add(&fields, sp + 1, strlen(sp + 1), 0);
    }
    heading(m, 0, "GC stats");
    align = cli_xmalloc(fields.n + 2);
    memset(align, 'r', fields.n + 1);
    align[fields.n + 1] = '\0';
    doc_table_begin(m->d, align);
    free(align);
    doc_cell_text(m->d, "Generation");
    for (f = 0; f < fields.n; f++)
        doc_cell_name(m->d, fields.v[f].name);
    for (gen = 0; gen <= maxgen; gen++) {
        doc_row_begin(m->d);
        doc_cell_textf(m->d, "%ld", gen);
        for (f = 0; f < fields.n; f++) {
            snprintf(name, sizeof name, "%ld %s", gen, fields.v[f].name);
            cli_count_str(c, sizeof c, m_list_get(&g->gc, name));
            doc_cell_text(m->d, c);
        }
    }
    for (f = 0; f < fields.n; f++)
        free(fields.v[f].name);
    free(fields.v);
}

/* Denominators of CPython's optimization table. */
static uint64_t
opt_den(const m_list *l, const char *k)
{
    if (strcmp(k, "Optimization traces created") == 0 || strstr(k, "trace stack") ||
        strstr(k, "trace too") || strcmp(k, "Optimization inner loop") == 0 ||
        strcmp(k, "Optimization recursive call") == 0 ||
        strcmp(k, "Optimization low confidence") == 0 ||
        strcmp(k, "Optimization unknown callee") == 0)
        return m_list_get(l, "Optimization attempts");
    if (strcmp(k, "Executors invalidated") == 0)
        return m_list_get(l, "Optimization traces created");
    if (strcmp(k, "Optimization optimizer successes") == 0 ||
        strcmp(k, "Optimization optimizer failure no memory") == 0 ||
        strcmp(k, "Optimizer remove globals builtins changed") == 0 ||
        strcmp(k, "Optimizer remove globals incorrect keys") == 0)
        return m_list_get(l, "Optimization optimizer attempts");
    /* CPython's script means the uops per trace, but its label is a Doc,
     * never equal to the string it tests, so it prints a percentage. */
    if (strcmp(k, "Optimization uops executed") == 0)
        return m_list_get(l, "Optimization traces executed");
    return 0;
}

/* CPython's labels of the optimizer counters, as its
 * Tools/scripts/summarize_stats.py (3.13-3.16) prints them, in its order:
 * table 0 its "optimization" table, table 1 its "optimizer" table.  The
 * script shows a row for each counter its version has, so a label
 * applies where the counter is present.  Counters it does not show (3.15's
 * "Optimization fitness terminated", anything newer) are listed after,
 * under their own names. */
static const struct opt_label {
    const char *key, *label;
    int table;
} opt_labels[] = {
    {"Optimization attempts", "Optimization attempts", 0},
    {"Optimization traces created", "Traces created", 0},
    {"Optimization trace stack overflow", "Trace stack overflow", 0},
    {"Optimization trace stack underflow", "Trace stack underflow", 0},
    {"Optimization trace too long", "Trace too long", 0},
    {"Optimization trace too short", "Trace too short", 0},
    {"Optimization inner loop", "Inner loop found", 0},
    {"Optimization recursive call", "Recursive call", 0},
    {"Optimization low confidence", "Low confidence", 0},
    {"Optimization unknown callee", "Unknown callee", 0},
    {"Executors invalidated", "Executors invalidated", 0},
    {"Optimization traces executed", "Traces executed", 0},
    {"Optimization uops executed", "Uops executed", 0},
    {"Optimization optimizer attempts", "Optimizer attempts", 1},
    {"Optimization optimizer successes", "Optimizer successes", 1},
    {"Optimization optimizer failure no memory", "Optimizer no memory", 1},
    {"Optimizer remove globals builtins changed", "Remove globals builtins changed", 1},
    {"Optimizer remove globals incorrect keys", "Remove globals incorrect keys", 1},
};

static const m_kv *
opt_find(const m_group *g, const char *key)
{
    size_t i;

    for (i = 0; i < g->opt.n; i++)
        if (strcmp(g->opt.v[i].name, key) == 0)
            return &g->opt.v[i];
    return NULL;
}

static void
opt_row(md *m, const m_group *g, const char *key, const char *label, uint64_t n)
{
    row3(m, label, n, opt_den(&g->opt, key));
}

static void
sec_opt_table(md *m, const m_group *g)
{
    size_t i, j, nl = sizeof opt_labels / sizeof opt_labels[0];
    int t, started, other = 0;

    for (t = 0; t < 2; t++) {
        started = 0;
        for (j = 0; j < nl; j++) {
            const m_kv *e = opt_labels[j].table == t ? opt_find(g, opt_labels[j].key) : NULL;
            if (e == NULL)
                continue;
            if (!started)
                doc_table(m->d, "lrr", NULL, "Count", "Ratio");
            started = 1;
            opt_row(m, g, e->name, opt_labels[j].label, e->n);
        }
    }
    for (i = 0; i < g->opt.n; i++) {
        for (j = 0; j < nl && strcmp(g->opt.v[i].name, opt_labels[j].key) != 0; j++)
            ;
        if (j < nl)
            continue;
        if (!other) {
            heading(m, 1, "Other optimizer counters");
            doc_table(m->d, "lrr", NULL, "Count", "Ratio");
        }
        other = 1;
        opt_row(m, g, g->opt.v[i].name, g->opt.v[i].name, g->opt.v[i].n);
    }
}

/* CPython's JIT memory table (summarize_stats.py 3.14 on): its labels, in
 * its order, each size a share of the total; other JIT counters after,
 * under their own names. */
static const char *const jit_labels[][2] = {
    {"JIT total memory size", "Total memory size"}, {"JIT code size", "Code size"},
    {"JIT trampoline size", "Trampoline size"},     {"JIT data size", "Data size"},
    {"JIT padding size", "Padding size"},           {"JIT freed memory size", "Freed memory size"},
};

static void
sec_opt_jit(md *m, const m_group *g)
{
    size_t i, j, nl = sizeof jit_labels / sizeof jit_labels[0];
    uint64_t total = m_list_get(&g->jit, jit_labels[0][0]);

    heading(m, 1, "JIT memory stats");
    doc_table(m->d, "lrr", NULL, "Size (bytes)", "Ratio");
    for (j = 0; j < nl; j++)
        for (i = 0; i < g->jit.n; i++)
            if (strcmp(g->jit.v[i].name, jit_labels[j][0]) == 0)
                row3(m, jit_labels[j][1], g->jit.v[i].n, j == 0 ? 0 : total);
    for (i = 0; i < g->jit.n; i++) {
        for (j = 0; j < nl && strcmp(g->jit.v[i].name, jit_labels[j][0]) != 0; j++)
            ;
        if (j == nl)
            row3(m, g->jit.v[i].name, g->jit.v[i].n, total);
    }
}

/* A histogram as CPython's summarize_stats.py shows it: no zero buckets
 * after the last count (and, by 3.14's script on, none before the
 * first); 3.14's "Trace total memory size" as "JIT trace total memory",
 * each bucket a share of them all. */
static void
sec_opt_hist(md *m, const m_group *g, const m_hist *h)
{
    uint64_t den = 0;
    size_t first = 0, last = 0, j;
    char c[32], label[64];
    int memory = strcmp(h->name, "Trace total memory size") == 0;

    if (strcmp(h->name, "Trace run length") == 0)
        den = m_list_get(&g->opt, "Optimization traces executed");
    else if (strstr(h->name, "race length"))
        den = m_list_get(&g->opt, "Optimization traces created");
    for (j = 0; j < h->buckets.n; j++) {
        if (h->buckets.v[j].n)
            last = j + 1;
        if (memory)
            den += h->buckets.v[j].n;
    }
    if (last == 0)
        return;
    if (g->minor >= 14)
        while (h->buckets.v[first].n == 0)
            first++;
    if (memory)
        heading(m, 1, "JIT trace total memory histogram");
    else
        heading_name(m, 1, h->name, " histogram");
    doc_table(m->d, "lrr", memory ? "Size (bytes)" : "Range", "Count", "Ratio");
    for (j = first; j < last; j++) {
        cli_count_str(c, sizeof c, strtoull(h->buckets.v[j].name, NULL, 10));
        snprintf(label, sizeof label, "<= %s", c);
        row3(m, label, h->buckets.v[j].n, den);
    }
}

static void
sec_opt_uops(md *m, const m_group *g)
{
    m_list l = {0};
    uint64_t total = 0, cum = 0;
    size_t i, j;
    char c[32], p[32], cu[32];

    for (i = 0; i < g->uops.n; i++) {
        total += g->uops.v[i].exec;
        if (g->uops.v[i].has_exec)
            m_list_add(&l, g->uops.v[i].name, strlen(g->uops.v[i].name), g->uops.v[i].exec);
    }
    m_list_sort(&l);
    heading(m, 1, "Uop execution stats");
    doc_table(m->d, "lrrrr", "Name", "Count", "Self", "Cumulative", "Miss ratio");
    for (i = 0; i < l.n; i++) {
        uint64_t miss = 0;
        for (j = 0; j < g->uops.n; j++)
            if (strcmp(g->uops.v[j].name, l.v[i].name) == 0)
                miss = g->uops.v[j].spec[PSF_SPEC_MISS];
        cum += l.v[i].n;
        cli_count_str(c, sizeof c, l.v[i].n);
        pct_str(p, l.v[i].n, total);
        pct_str(cu, cum, total);
        doc_row_begin(m->d);
        doc_cell_name(m->d, l.v[i].name);
        doc_cell_text(m->d, c);
        doc_cell_text(m->d, p);
        doc_cell_text(m->d, cu);
        if (miss)
            pct_str(p, miss, l.v[i].n);
        else
            p[0] = '\0';
        doc_cell_text(m->d, p);
        free(l.v[i].name);
    }
    free(l.v);
}

static void
sec_optimization(md *m, const m_group *g)
{
    size_t i;

    if (g->opt.n == 0 && g->nhist == 0 && g->uops.n == 0 && g->jit.n == 0 && g->unsupported.n == 0)
        return;
    heading(m, 0, "Optimization (Tier 2) stats");
    if (g->opt.n)
        sec_opt_table(m, g);
    if (g->jit.n)
        sec_opt_jit(m, g);
    for (i = 0; i < g->nhist; i++)
        sec_opt_hist(m, g, &g->hist[i]);
    if (g->uops.n)
        sec_opt_uops(m, g);
    if (g->unsupported.n) {
        heading(m, 1, "Unsupported opcodes");
        table3(m, "Opcode", &g->unsupported, list_total(&g->unsupported), (size_t)-1);
    }
    if (g->errors.n) {
        heading(m, 1, "Errors in uops");
        table3(m, "Uop", &g->errors, list_total(&g->errors), (size_t)-1);
    }
}

static void
sec_simple(md *m, const char *title, const char *col, const m_list *l)
{
    size_t i;
    char c[32];

    if (l->n == 0)
        return;
    heading(m, 0, title);
    doc_table(m->d, "lr", col, "Count");
    for (i = 0; i < l->n; i++) {
        cli_count_str(c, sizeof c, l->v[i].n);
        doc_row_begin(m->d);
        doc_cell_name(m->d, l->v[i].name);
        doc_cell_text(m->d, c);
    }
}

/* encoded: the texts are free text in the dump's encoding (text.h). */
static void
strs_line(md *m, const char *label, const summary_texts *s, int encoded)
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
            name_text(m->d, s->v[i].text);
        else
            doc_name(m->d, s->v[i].text);
        doc_textf(m->d, " (%llu)", (unsigned long long)s->v[i].n);
    }
}

static void
sec_group_meta(md *m, const summary_meta *g)
{
    size_t i;
    char c[32];

    heading(m, 0, "Meta");
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

/* ---- the collector's own sections ---------------------------------- */

static void
pct_cell(md *m, uint64_t num, uint64_t den)
{
    char p[32];

    pct_str(p, num, den);
    doc_cell_text(m->d, p);
}

/* "FOR_ITER, RESUME": the families a census taken alongside counting
 * left out. */
static void
excluded_names(md *m, const m_group *g)
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
census_left_out(md *m, const m_group *g)
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

static void
census_families(md *m, const m_group *g)
{
    size_t i;
    char c[32];

    doc_para(m->d);
    doc_text(m->d, "Per family: the share of its sites now specialized, backing off after "
                   "failed attempts (with the consecutive failed attempts their counters imply), "
                   "and never tried; families without inline caches report sites and forms only.");
    doc_table(m->d, "lrrrrrl", "Family", "Sites", "Specialized", "Backing off", "Failed attempts",
              "Never tried", "Top forms");
    for (i = 0; i < g->ncfam; i++) {
        const m_cfam *f = &g->cfam[i];
        uint64_t den = f->f[M_CF_SITES];
        doc_row_begin(m->d);
        doc_cell_name(m->d, f->name);
        cli_count_str(c, sizeof c, den);
        doc_cell_text(m->d, c);
        pct_cell(m, f->f[M_CF_SPECIALIZED], den);
        pct_cell(m, f->f[M_CF_BACKING_OFF], den);
        cli_count_str(c, sizeof c, f->f[M_CF_FAILED_ATTEMPTS]);
        doc_cell_text(m->d, c);
        pct_cell(m, f->f[M_CF_NEVER_TRIED], den);
        doc_cell(m->d);
        top_forms(m, &f->forms, den, 1);
    }
}

static void
sec_census(md *m, const m_group *g)
{
    size_t i, j;
    char c[32];
    static const char *const label[][2] = {
        {"code_objects", "Code objects read"},
        {"dead_code_objects", "Code objects read as they were destroyed"},
        {"instrumented_code_objects", "Code objects skipped (instrumented by another tool)"},
        {PSF_KEY_CENSUS_OMITTED_ROWS + sizeof PSF_KEY_CENSUS - 1,
         "Site rows left out (past the source view's bound)"},
        {PSF_KEY_CENSUS_OMITTED_SOURCE + sizeof PSF_KEY_CENSUS - 1,
         "Source lines left out (past the source view's bound)"},
    };

    if (!g->has_census)
        return;
    heading(m, 0, "Specialization census");
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

/* A census site's FILE:LINE, as runs. */
static void
site_where(md *m, const m_csite *st)
{
    name_text(m->d, st->file);
    doc_text(m->d, ":");
    doc_name(m->d, st->line);
}

/* FILE:LINE of a ranked site: its code's file, the row's line. */
static void
fsite_where(md *m, const m_fsite *f)
{
    const m_code *k = f->code;
    name_text_n(m->d, k->name, k->qual ? k->file_len : strlen(k->name));
    doc_text(m->d, ":");
    doc_name(m->d, f->line);
    if (k->module != NULL) { /* generated code: no source file */
        doc_text(m->d, " (generated, module ");
        name_text_n(m->d, k->module, k->module_len);
        doc_text(m->d, ")");
    }
}

/* "backing off, N failed attempts in a row" or "never tried". */
static void
fsite_state(md *m, const m_fsite *f)
{
    if (strcmp(f->state, PSF_SITE_BACKING_OFF) == 0) {
        doc_text(m->d, "backing off, ");
        name_text(m->d, f->detail);
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
sites_left_out(md *m, const m_group *g)
{
    const summary_opts *o = m->opt;
    uint64_t caps = m_list_get(&g->census, "omitted_site_rows"),
             inst = m_list_get(&g->census, "instrumented_code_objects"),
             read = m_list_get(&g->census, "code_objects") +
                    m_list_get(&g->census, "dead_code_objects");
    char c[32], d[32];

    doc_para(m->d);
    if (o->sites.no_stdlib || o->sites.nprefix) {
        doc_text(m->d, "Left out by this report's options:");
        if (o->sites.no_stdlib) {
            cli_count_str(c, sizeof c, g->fs_stdlib_out);
            doc_textf(m->d, " %s sites of the standard library (--no-stdlib)%s", c,
                      o->sites.nprefix ? ";" : ".");
        }
        if (o->sites.nprefix) {
            size_t i;
            cli_count_str(d, sizeof d, g->fs_prefix_out);
            doc_textf(m->d, " %s sites of code outside ", d);
            for (i = 0; i < o->sites.nprefix; i++) {
                doc_text(m->d, i ? ", " : "");
                doc_code(m->d, o->sites.prefix[i]);
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
sec_ranked_sites(md *m, const m_group *g)
{
    size_t i, max = m->opt->top_sites > 0 ? (size_t)m->opt->top_sites : 50;
    char c[32], p[32];

    heading(m, 0, "Sites that fail to specialize");
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
        cell_text(m->d, f->family);
        cli_count_str(c, sizeof c, f->executions);
        doc_cell_text(m->d, c);
        pct_str(p, f->executions, f->family_exec);
        doc_cell_text(m->d, p);
        doc_cell_text(m->d,
                      strcmp(f->state, PSF_SITE_BACKING_OFF) == 0 ? "backing off" : "never tried");
        cell_text(m->d, f->detail);
        doc_cell(m->d);
        fsite_where(m, f);
        cell_text(m->d, f->code->qual ? f->code->qual : f->code->name);
        cell_text(m->d, text ? text : "");
    }
}

static void
sec_census_sites(md *m, const m_group *g)
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
    heading(m, 0, "Sites that fail to specialize");
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
        cell_text(m->d, st->family);
        cli_count_str(c, sizeof c, st->attempts);
        doc_cell_text(m->d, c);
        cli_count_str(c, sizeof c, st->count);
        doc_cell_text(m->d, c);
        doc_cell(m->d);
        site_where(m, st);
        cell_text(m->d, st->func);
        cell_text(m->d, st->source);
    }
}

#define HOT_CODE_MAX 50

static void
hot_code_row(md *m, const m_code *k, uint64_t den)
{
    size_t j;
    char c[32], p[32];

    doc_row_begin(m->d);
    cell_text(m->d, k->qual ? k->qual : k->name);
    doc_cell(m->d);
    if (k->qual) {
        name_text_n(m->d, k->name, k->file_len);
        doc_textf(m->d, ":%.*s", (int)k->line_len, k->line);
    }
    cli_count_str(c, sizeof c, k->instructions);
    doc_cell_text(m->d, c);
    pct_cell(m, k->instructions, den);
    cli_count_str(c, sizeof c, k->calls);
    doc_cell_text(m->d, c);
    if (k->calls)
        doc_cell_textf(m->d, "%.1f", (double)k->instructions / (double)k->calls);
    else
        doc_cell_none(m->d);
    doc_cell(m->d);
    for (j = 0; j < k->ops.n; j++) {
        pct_str(p, k->ops.v[j].n, k->instructions);
        if (j)
            doc_text(m->d, ", ");
        doc_name(m->d, k->ops.v[j].name);
        doc_textf(m->d, " %s", p);
    }
}

static void
sec_hot_code(md *m, const m_group *g)
{
    uint64_t den = g->total_exec ? g->total_exec : g->code_instructions;
    size_t i;

    if (g->nhot == 0)
        return;
    heading(m, 0, "Hot code");
    doc_para(m->d);
    doc_text(m->d, "The code objects that executed the most instructions (");
    doc_code(m->d, "code[...]");
    doc_textf(m->d, " keys); the share is of all executed instructions (%s). %s%zu of %zu.",
              g->total_exec ? "the execution counts" : "the code objects listed",
              g->nhot > HOT_CODE_MAX ? "Top " : "All ",
              g->nhot > HOT_CODE_MAX ? (size_t)HOT_CODE_MAX : g->nhot, g->nhot);
    doc_table(m->d, "llrrrrl", "Function", "Where", "Instructions", "Share", "Calls", "Per call",
              "Top opcodes");
    for (i = 0; i < g->nhot && i < HOT_CODE_MAX; i++)
        hot_code_row(m, &g->code[i], den);
}

/* The hottest functions' source, as `pystats annotate --html` shows
 * them: the page only (a figure, page-only heading and text). */
static void
sec_source_view(md *m, const m_group *g)
{
    size_t i, n = 0;

    for (i = 0; i < g->ncode; i++)
        n += g->code[i].nlines > 0;
    if (n == 0)
        return;
    heading(m, 0, "Source view");
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

static void
sec_own_calls(md *m, const m_group *g)
{
    if (g->own_calls.n == 0)
        return;
    heading(m, 0, "Calls");
    doc_para(m->d);
    doc_text(m->d, "Frame events seen by the collector (");
    doc_code(m->d, "calls.*");
    doc_text(m->d, " keys; not CPython's \"Calls to\" counters, which mean other things). Ratios "
                   "are of ");
    doc_code(m->d, "python_starts");
    doc_text(m->d, ".");
    table3(m, "Event", &g->own_calls, m_list_get(&g->own_calls, "python_starts"), (size_t)-1);
}

static void
sec_own_rare(md *m, const m_group *g)
{
    size_t i;
    char c[32];

    if (g->own_rare.n == 0)
        return;
    heading(m, 0, "Rare events (watchers, partial)");
    doc_para(m->d);
    doc_text(m->d, "What the collector's dict, type and function watchers saw (");
    doc_code(m->d, "rare.*");
    doc_text(m->d, " keys). These are not CPython's native \"Rare event\" figures: watchers see "
                   "only part of those changes, and the two are never added together.");
    doc_table(m->d, "lr", "Event", "Count");
    for (i = 0; i < g->own_rare.n; i++) {
        cli_count_str(c, sizeof c, g->own_rare.v[i].n);
        doc_row_begin(m->d);
        doc_cell_name(m->d, g->own_rare.v[i].name);
        doc_cell_text(m->d, c);
    }
}

/* The metadata of Faster CPython's published summaries (commit, fork,
 * branch, date, actor), one line under the group's title. */
static void
cpython_metadata(md *m, const summary_meta *g)
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
code_where(md *m, const m_code *k)
{
    if (k->qual == NULL) {
        name_text(m->d, k->name);
        return;
    }
    doc_style(m->d, DOC_CODE);
    name_text(m->d, k->qual);
    doc_style(m->d, DOC_PLAIN);
    doc_text(m->d, " (");
    name_text_n(m->d, k->name, k->file_len);
    doc_textf(m->d, ":%.*s)", (int)k->line_len, k->line);
}

/* "Where to look" items of the overview (overview.h). */
/* An overview item's "Fails to specialize: FAMILY at " and " in FUNC",
 * around the site's place (by attempts or by executions). */
static void
fails_lead(md *m, const char *family)
{
    doc_item(m->d);
    doc_text(m->d, "Fails to specialize: ");
    name_text(m->d, family);
    doc_text(m->d, " at ");
}

static void
fails_in(md *m, const char *func)
{
    doc_text(m->d, " in ");
    doc_style(m->d, DOC_CODE);
    name_text(m->d, func);
    doc_style(m->d, DOC_PLAIN);
}
static void
overview_items(md *m, const overview *o, uint64_t den)
{
    char c[32], p[32];
    size_t i;

    for (i = 0; i < o->ncode; i++) {
        doc_item(m->d);
        doc_text(m->d, "Hot code: ");
        code_where(m, o->code[i]);
        cli_count_str(c, sizeof c, o->code[i]->instructions);
        pct_str(p, o->code[i]->instructions, den);
        doc_textf(m->d, ": %s instructions%s%s%s", c, *p ? ", " : "", p, *p ? " of all" : "");
    }
    for (i = 0; i < o->nsite; i++) {
        const m_csite *st = o->site[i];
        fails_lead(m, st->family);
        site_where(m, st);
        fails_in(m, st->func);
        cli_count_str(c, sizeof c, st->attempts);
        doc_textf(m->d, ": %s failed attempts in a row", c);
    }
    for (i = 0; i < o->nfsite; i++) {
        const m_fsite *f = o->fsite[i];
        fails_lead(m, f->family);
        fsite_where(m, f);
        fails_in(m, f->code->qual ? f->code->qual : f->code->name);
        cli_count_str(c, sizeof c, f->executions);
        pct_str(p, f->executions, f->family_exec);
        doc_textf(m->d, ": %s executions not specialized%s%s%s (", c, *p ? ", " : "", p,
                  *p ? " of the family's" : "");
        fsite_state(m, f);
        doc_text(m->d, ")");
    }
    for (i = 0; i < o->nfam; i++) {
        doc_item(m->d);
        doc_text(m->d, "Runs unspecialized: ");
        doc_name(m->d, o->fam[i].family);
        cli_count_str(c, sizeof c, o->fam[i].generic);
        pct_str(p, o->fam[i].generic, o->fam[i].exec);
        doc_textf(m->d, ": %s executions in a generic form, misses included%s%s%s", c,
                  *p ? " (" : "", p, *p ? " of the family's)" : "");
    }
}

/* Where to look first (overview.h): the verdict, the totals, the
 * hottest code, the failing sites and the families that run generic. */
static void
sec_overview(md *m, const summary_group *sg, const char *verdict)
{
    const m_group *g = &sg->m;
    overview o;
    char c[32];

    overview_build(&o, g);
    heading(m, 0, "Overview");
    if (verdict)
        doc_figure(m->d, DOC_FIG_VERDICT, verdict);
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
    overview_items(m, &o, g->total_exec ? g->total_exec : g->code_instructions);
}

static void
report_group(md *m, const summary_group *sg, const char *verdict)
{
    const m_group *g = &sg->m;

    sec_overview(m, sg, verdict);
    cpython_metadata(m, &sg->info);
    sec_execution(m, g);
    sec_pairs(m, g);
    sec_pred_succ(m, g);
    sec_specialization(m, g);
    sec_effectiveness(m, g);
    sec_census(m, g);
    sec_census_sites(m, g);
    report_sitefx(m->d, m->level, g);
    sec_hot_code(m, g);
    sec_source_view(m, g);
    sec_calls(m, g);
    sec_own_calls(m, g);
    sec_objects(m, g);
    sec_gc(m, g);
    sec_optimization(m, g);
    sec_simple(m, "Free-threading", "Counter", &g->ft);
    sec_simple(m, "Rare events", "Event", &g->rare);
    sec_own_rare(m, g);
    sec_simple(m, "Other counters", "Key", &g->other);
    sec_group_meta(m, &sg->info);
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
    doc_textf(d, "%llu data files", (unsigned long long)s->files);
    if (s->ng == 1) {
        doc_text(d, ": ");
        doc_name(d, s->g[0].title);
        doc_text(d, ".");
    }
    else {
        doc_textf(d, " in %zu groups.", s->ng);
    }
    if (s->trust) {
        doc_para(d);
        doc_bold(d, "Trust:");
        doc_textf(d, " %s. Details: ", s->trust);
        doc_code(d, "pystats check");
        doc_text(d, ".");
    }
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
    md m = {d, 2, &s->opt};
    size_t i;

    report_header(d, s);
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
