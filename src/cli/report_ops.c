/* report_ops.c: the summary's sections of instructions, as CPython's
 * summarize_stats.py shows them: execution counts, pair counts,
 * predecessors and successors, specialization (its outcomes and failure
 * kinds), and the effectiveness of specialization per family. */
#include "report_sec.h"

#include "../format/psf_keys.h"

#include "cli.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A base instruction's misses are its specialized forms', which this
 * collector never counts (it counts base instructions): in its dumps no
 * row has a miss, the column is not measured and is left out. */
static int
exec_has_misses(const m_group *g, const m_list *l)
{
    size_t i;

    if (!g->own)
        return 1; /* CPython's counters: an empty cell is a measured zero */
    for (i = 0; i < l->n; i++) {
        const m_op *op = model_op(g, l->v[i].name);
        if (op && !op->specializable && op->spec[PSF_SPEC_MISS])
            return 1;
    }
    return 0;
}

static void
exec_row(rdoc *m, const m_group *g, const m_kv *e, uint64_t cum, int miss_col)
{
    const m_op *op = model_op(g, e->name);
    uint64_t miss = 0;
    char c[32], s[32], cu[32], mr[32];

    /* CPython: misses of specialized forms; a base instruction's
     * misses belong to the family table. */
    if (op && !op->specializable)
        miss = op->spec[PSF_SPEC_MISS];
    cli_count_str(c, sizeof c, e->n);
    rdoc_pct_str(s, e->n, g->total_exec);
    rdoc_pct_str(cu, cum, g->total_exec);
    if (miss)
        rdoc_pct_str(mr, miss, e->n);
    else
        mr[0] = '\0';
    doc_row_begin(m->d);
    doc_cell_name(m->d, e->name);
    doc_cell_text(m->d, c);
    doc_cell_text(m->d, s);
    doc_cell_text(m->d, cu);
    if (miss_col)
        doc_cell_text(m->d, mr);
}

static void
sec_execution(rdoc *m, const m_group *g)
{
    m_list l = {0};
    uint64_t cum = 0;
    size_t i;
    int miss_col;
    char c[32];

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
    rdoc_heading(m, 0, "Execution counts");
    rdoc_fig_exec(m, g);
    if (g->own) {
        doc_para(m->d);
        doc_text(m->d, "Counts of base instructions: each includes every specialized form of "
                       "its family.");
    }
    miss_col = exec_has_misses(g, &l);
    if (miss_col)
        doc_table(m->d, "lrrrr", "Name", "Count", "Self", "Cumulative", "Miss ratio");
    else
        doc_table(m->d, "lrrr", "Name", "Count", "Self", "Cumulative");
    for (i = 0; i < l.n; i++) {
        cum += l.v[i].n;
        exec_row(m, g, &l.v[i], cum, miss_col);
    }
    cli_count_str(c, sizeof c, g->total_exec);
    doc_para(m->d);
    doc_textf(m->d, "Total: %s instructions executed.", c);
    if (!miss_col) {
        doc_para(m->d);
        doc_bold(m->d, "Left out: Miss ratio.");
        doc_text(m->d, " A miss is counted per specialized form, and these dumps count base "
                       "instructions: no miss was measured.");
    }
done:
    for (i = 0; i < l.n; i++)
        free(l.v[i].name);
    free(l.v);
}

static void
sec_pairs(rdoc *m, const m_group *g)
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
    rdoc_heading(m, 0, "Pair counts");
    rdoc_fig_pairs(m, g);
    doc_para(m->d);
    doc_textf(m->d, "Top %d pairs; shares of all instructions executed.", m->opt->top_pairs);
    doc_table(m->d, "lrrr", "Pair", "Count", "Self", "Cumulative");
    for (i = 0; i < l.n && i < (size_t)m->opt->top_pairs; i++) {
        cum += l.v[i].n;
        cli_count_str(c, sizeof c, l.v[i].n);
        rdoc_pct_str(s, l.v[i].n, g->total_exec);
        rdoc_pct_str(cu, cum, g->total_exec);
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

/* Three cells of a name, its count and its share of total; none when
 * the list has no j-th entry. */
static void
share_cells(rdoc *m, const m_list *l, size_t j, uint64_t total)
{
    char c[32], p[32];

    if (j >= l->n) {
        doc_cell_none(m->d);
        doc_cell_none(m->d);
        doc_cell_none(m->d);
        return;
    }
    cli_count_str(c, sizeof c, l->v[j].n);
    rdoc_pct_str(p, l->v[j].n, total);
    doc_cell_name(m->d, l->v[j].name);
    doc_cell_text(m->d, c);
    doc_cell_text(m->d, p);
}

static void
sec_pred_succ(rdoc *m, const m_group *g)
{
    size_t i, j;

    if (!g->has_pairs)
        return;
    rdoc_heading(m, 0, "Predecessors and successors");
    doc_last(m->d)->fold = 1;
    doc_para(m->d);
    doc_text(m->d, "Top 5 predecessors and successors of each instruction.");
    for (i = 0; i < g->ops.n; i++) {
        const m_op *op = &g->ops.v[i];
        uint64_t pt = rdoc_list_total(&op->pred), st = rdoc_list_total(&op->succ);
        if (pt == 0 && st == 0)
            continue;
        rdoc_heading_name(m, 1, op->name, "");
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
fail_table(rdoc *m, const m_list *l, uint64_t den)
{
    char c[32], p[48];
    size_t i;

    if (den) {
        rdoc_table3(m, "Failure kind", l, den, (size_t)-1);
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
sec_specialization(rdoc *m, const m_group *g)
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
            rdoc_heading(m, 0, "Specialization");
            rdoc_fig_spec(m, g);
        }
        rdoc_heading_name(m, 1, op->name, "");
        doc_table(m->d, "lrr", "Kind", "Count", "Ratio");
        for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            rdoc_row3(m, psf_spec_field_name[kinds[k]], op->spec[kinds[k]], total);
        sf = op->spec[PSF_SPEC_SUCCESS] + op->spec[PSF_SPEC_FAILURE];
        if (sf) {
            doc_table(m->d, "lrr", "Specialization", "Count", "Ratio");
            rdoc_row3(m, "success", op->spec[PSF_SPEC_SUCCESS], sf);
            rdoc_row3(m, "failure", op->spec[PSF_SPEC_FAILURE], sf);
        }
        if (op->fail.n)
            fail_table(m, &op->fail, op->spec[PSF_SPEC_FAILURE]);
    }
}

/* A row of the table by family: executions, base and specialized, and
 * the three most used forms (none for a family that never specialized). */
static void
family_row(rdoc *m, const m_group *g, const m_kv *f)
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
    rdoc_pct_str(sp, spec, f->n);
    doc_row_begin(m->d);
    doc_cell_name(m->d, f->name);
    doc_cell_text(m->d, c);
    doc_cell_text(m->d, b);
    doc_cell_text(m->d, s);
    doc_cell_text(m->d, sp);
    doc_cell(m->d);
    rdoc_top_forms(m, &forms, f->n, 0);
    m_list_free(&forms);
}

static void
sec_effectiveness(rdoc *m, const m_group *g)
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
    rdoc_heading(m, 0, "Specialization effectiveness");
    doc_table(m->d, "lrr", "Instructions", "Count", "Ratio");
    rdoc_row3(m, "Basic", basic, g->total_exec);
    rdoc_row3(m, "Not specialized", notspec, g->total_exec);
    rdoc_row3(m, "Specialized hits", hits, g->total_exec);
    rdoc_row3(m, "Specialized misses", misses, g->total_exec);

    if (fam.n == 0) {
        m_list_free(&fam);
        m_list_free(&deferred);
        m_list_free(&miss);
        return;
    }
    m_list_sort(&fam);
    rdoc_heading(m, 1, "By family");
    doc_para(m->d);
    doc_text(m->d, "Executions of each family (the base instruction and its specialized "
                   "forms): the share that ran a specialized form, and the most used forms.");
    doc_table(m->d, "lrrrrl", "Family", "Executions", "Base", "Specialized", "Specialized share",
              "Most used specializations");
    for (i = 0; i < fam.n; i++)
        family_row(m, g, &fam.v[i]);
    if (deferred.n) {
        m_list_sort_input(&deferred, g->input_order);
        rdoc_heading(m, 1, "Deferred by instruction");
        rdoc_table3(m, "Name", &deferred, rdoc_list_total(&deferred), 10);
    }
    if (miss.n) {
        m_list_sort_input(&miss, g->input_order);
        rdoc_heading(m, 1, "Misses by instruction");
        rdoc_table3(m, "Name", &miss, rdoc_list_total(&miss), 10);
    }
    m_list_free(&deferred);
    m_list_free(&miss);
    m_list_free(&fam);
}

void
rdoc_ops(rdoc *m, const m_group *g)
{
    sec_execution(m, g);
    sec_pairs(m, g);
    sec_pred_succ(m, g);
    sec_specialization(m, g);
    sec_effectiveness(m, g);
}
