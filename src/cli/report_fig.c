/* report_fig.c: the series the summary's charts are drawn from (doc.h's
 * doc_fig), taken from a group's model when its section is built: the
 * most executed families and their forms, the pair counts among the most
 * executed instructions, the specialization outcomes per family.  The
 * page draws them (doc_chart.c); Markdown leaves them out. */
#include "report_sec.h"
#include "../format/psf_keys.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The families of the execution chart, most executed first. */
#define EXEC_TOP 25
/* The instructions of the pair heatmap, most executed first. */
#define HEAT_TOP 20
/* The families of the specialization chart, most used first. */
#define SPEC_TOP 30

/* A family's forms in the order they are stacked: the base instruction
 * first, then the most executed. */
static int
form_cmp(const void *pa, const void *pb)
{
    const m_op *a = *(const m_op *const *)pa, *b = *(const m_op *const *)pb;
    int sa = model_is_specialized(a), sb = model_is_specialized(b);

    if (sa != sb)
        return sa - sb;
    if (a->exec != b->exec)
        return a->exec > b->exec ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The forms of family fam that ran, as parts of r. */
static void
exec_forms(rdoc *m, doc_fig_row *r, const m_group *g, const char *fam, const m_op **forms)
{
    size_t j, nf = 0;

    for (j = 0; j < g->ops.n; j++)
        if (g->ops.v[j].has_exec && g->ops.v[j].exec && strcmp(g->ops.v[j].family, fam) == 0)
            forms[nf++] = &g->ops.v[j];
    qsort(forms, nf, sizeof *forms, form_cmp);
    for (j = 0; j < nf; j++)
        doc_fig_part_add(m->d, r, forms[j]->name, forms[j]->exec, model_is_specialized(forms[j]));
}

void
rdoc_fig_exec(rdoc *m, const m_group *g)
{
    doc_fig *f = doc_figure_series(m->d, DOC_FIG_EXEC, NULL);
    m_list fam = {0};
    const m_op **forms;
    size_t i;

    for (i = 0; i < g->ops.n; i++)
        if (g->ops.v[i].has_exec && g->ops.v[i].exec)
            m_list_add(&fam, g->ops.v[i].family, strlen(g->ops.v[i].family), g->ops.v[i].exec);
    f->total = g->total_exec;
    if (fam.n == 0 || g->total_exec == 0) {
        m_list_free(&fam);
        return;
    }
    m_list_sort(&fam);
    forms = cli_xcalloc(g->ops.n, sizeof *forms);
    for (i = 0; i < fam.n && i < EXEC_TOP; i++)
        exec_forms(m, doc_fig_row_add(m->d, f, fam.v[i].name, fam.v[i].n), g, fam.v[i].name, forms);
    free(forms);
    m_list_free(&fam);
    /* The legend names only what the chart shows: collector dumps count
     * base instructions, with no specialized forms to stack. */
    for (i = 0; i < g->ops.n && !f->flag; i++)
        f->flag = g->ops.v[i].exec && model_is_specialized(&g->ops.v[i]);
}

void
rdoc_fig_pairs(rdoc *m, const m_group *g)
{
    doc_fig *f = doc_figure_series(m->d, DOC_FIG_PAIRS, NULL);
    m_list top = {0};
    size_t i, j, n;

    if (!g->has_pairs)
        return;
    for (i = 0; i < g->ops.n; i++)
        if (g->ops.v[i].has_exec && g->ops.v[i].exec)
            m_list_add(&top, g->ops.v[i].name, strlen(g->ops.v[i].name), g->ops.v[i].exec);
    m_list_sort(&top);
    n = top.n < HEAT_TOP ? top.n : HEAT_TOP;
    for (i = 0; i < n; i++) {
        const m_op *a = model_op(g, top.v[i].name);
        uint64_t st = 0;
        doc_fig_row *r;
        for (j = 0; j < a->succ.n; j++)
            st += a->succ.v[j].n;
        r = doc_fig_row_add(m->d, f, top.v[i].name, st);
        for (j = 0; j < n; j++)
            doc_fig_part_add(m->d, r, top.v[j].name, m_list_get(&a->succ, top.v[j].name), 0);
    }
    m_list_free(&top);
}

static int
spec_op_cmp(const void *pa, const void *pb)
{
    const m_op *a = *(const m_op *const *)pa, *b = *(const m_op *const *)pb;
    uint64_t x = a->spec[PSF_SPEC_HIT] + a->spec[PSF_SPEC_MISS] + a->exec;
    uint64_t y = b->spec[PSF_SPEC_HIT] + b->spec[PSF_SPEC_MISS] + b->exec;

    if (x != y)
        return x > y ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* A family's outcomes and failure kinds as a row of f. */
static void
spec_row(rdoc *m, doc_fig *f, const m_op *op)
{
    doc_fig_row *r = doc_fig_row_add(m->d, f, op->name, 0);
    uint64_t fail = op->spec[PSF_SPEC_FAILURE], named = 0;
    size_t k;

    /* CPython may count more failure kinds than failures (a kind per
     * attempt of a nested specialization): the bar covers both. */
    for (k = 0; k < op->fail.n; k++) {
        named += op->fail.v[k].n;
        doc_fig_part_add(m->d, r, op->fail.v[k].name, op->fail.v[k].n, 0);
    }
    r->v[DOC_FIG_V_HIT] = op->spec[PSF_SPEC_HIT];
    r->v[DOC_FIG_V_MISS] = op->spec[PSF_SPEC_MISS];
    r->v[DOC_FIG_V_DEFERRED] = op->spec[PSF_SPEC_DEFERRED];
    r->v[DOC_FIG_V_SUCCESS] = op->spec[PSF_SPEC_SUCCESS];
    r->v[DOC_FIG_V_FAILURE] = named > fail ? named : fail;
}

void
rdoc_fig_spec(rdoc *m, const m_group *g)
{
    doc_fig *f = doc_figure_series(m->d, DOC_FIG_SPEC, NULL);
    const m_op **ops = cli_xcalloc(g->ops.n ? g->ops.n : 1, sizeof *ops);
    size_t n = 0, i;

    for (i = 0; i < g->ops.n; i++) {
        const m_op *op = &g->ops.v[i];
        if (op->specializable && op->has_spec &&
            op->spec[PSF_SPEC_HIT] + op->spec[PSF_SPEC_MISS] + op->spec[PSF_SPEC_DEFERRED] +
                    op->spec[PSF_SPEC_SUCCESS] + op->spec[PSF_SPEC_FAILURE] >
                0)
            ops[n++] = op;
    }
    qsort(ops, n, sizeof *ops, spec_op_cmp);
    for (i = 0; i < n && i < SPEC_TOP; i++)
        spec_row(m, f, ops[i]);
    free(ops);
}
