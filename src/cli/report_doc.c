/* report_md.c: the Markdown report: CPython's summarize_stats.py sections
 * and derived figures, per group, with a header saying what was read. */
#include "../format/psf_version.h"
#include "report.h"
#include "../format/psf_keys.h"

#include "cli.h"
#include "model.h"
#include "overview.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct md {
    FILE *out;
    int level; /* heading level of a group's sections */
    const summary_opts *opt;
} md;

/* CPython's Ratio: one decimal of percent; empty when den is 0. */
static void
pct_str(char *buf, uint64_t num, uint64_t den)
{
    if (den == 0)
        buf[0] = '\0';
    else
        snprintf(buf, 32, "%.1f%%", 100.0 * (double)num / (double)den);
}

/* Text from the inputs, in a table cell or anywhere: control characters
 * and Markdown escaped (cli_fput_md), so a '|' never ends the cell and
 * `**x**` or <script> show as the text they are. */
static void
cell(FILE *out, const char *s)
{
    cli_fput_md(out, s);
}

/* A table cell of free text held in the dump's encoding (text.h). */
static void
cell_text_n(FILE *out, const char *enc, size_t n)
{
    char *d = text_display_n(enc, n);

    cell(out, d);
    free(d);
}

static void
cell_text(FILE *out, const char *enc)
{
    cell_text_n(out, enc, strlen(enc));
}

static void
heading(md *m, int extra, const char *fmt, ...)
{
    va_list ap;
    int i;

    fputc('\n', m->out);
    for (i = 0; i < m->level + extra; i++)
        fputc('#', m->out);
    fputc(' ', m->out);
    va_start(ap, fmt);
    vfprintf(m->out, fmt, ap);
    va_end(ap);
    fputs("\n\n", m->out);
}

/* A heading whose text is a name from the inputs, then a suffix. */
static void
heading_name(md *m, int extra, const char *name, const char *suffix)
{
    int i;

    fputc('\n', m->out);
    for (i = 0; i < m->level + extra; i++)
        fputc('#', m->out);
    fputc(' ', m->out);
    cell(m->out, name);
    fputs(suffix, m->out);
    fputs("\n\n", m->out);
}

/* A table row of a label, a count and a ratio. */
static void
row3(md *m, const char *label, uint64_t n, uint64_t den)
{
    char c[32], p[32];

    cli_count_str(c, sizeof c, n);
    pct_str(p, n, den);
    fputs("| ", m->out);
    cell(m->out, label);
    fprintf(m->out, " | %s | %s |\n", c, p);
}

static void
table3(md *m, const char *col, const m_list *l, uint64_t den, size_t max)
{
    size_t i;

    fprintf(m->out, "| %s | Count | Ratio |\n| :--- | ---: | ---: |\n", col);
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
    if (g->src->source == AGG_OWN)
        fputs("Counts of base instructions: each includes every specialized form of "
              "its family.\n\n",
              m->out);
    fputs("| Name | Count | Self | Cumulative | Miss ratio |\n"
          "| :--- | ---: | ---: | ---: | ---: |\n",
          m->out);
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
        fputs("| ", m->out);
        cell(m->out, l.v[i].name);
        fprintf(m->out, " | %s | %s | %s | %s |\n", c, s, cu, mr);
    }
    cli_count_str(c, sizeof c, g->total_exec);
    fprintf(m->out, "\nTotal: %s instructions executed.\n", c);
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
    fprintf(m->out, "Top %d pairs; shares of all instructions executed.\n\n", m->opt->top_pairs);
    fputs("| Pair | Count | Self | Cumulative |\n| :--- | ---: | ---: | ---: |\n", m->out);
    for (i = 0; i < l.n && i < (size_t)m->opt->top_pairs; i++) {
        cum += l.v[i].n;
        cli_count_str(c, sizeof c, l.v[i].n);
        pct_str(s, l.v[i].n, g->total_exec);
        pct_str(cu, cum, g->total_exec);
        fputs("| ", m->out);
        cell(m->out, l.v[i].name);
        fprintf(m->out, " | %s | %s | %s |\n", c, s, cu);
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

static void
sec_pred_succ(md *m, const m_group *g)
{
    size_t i, j;
    char c[32], p[32];

    if (!g->has_pairs)
        return;
    heading(m, 0, "Predecessors and successors");
    fputs("Top 5 predecessors and successors of each instruction.\n", m->out);
    for (i = 0; i < g->ops.n; i++) {
        const m_op *op = &g->ops.v[i];
        uint64_t pt = list_total(&op->pred), st = list_total(&op->succ);
        if (pt == 0 && st == 0)
            continue;
        heading_name(m, 1, op->name, "");
        fputs("| Predecessor | Count | Share | Successor | Count | Share |\n"
              "| :--- | ---: | ---: | :--- | ---: | ---: |\n",
              m->out);
        for (j = 0; j < 5 && (j < op->pred.n || j < op->succ.n); j++) {
            if (j < op->pred.n) {
                cli_count_str(c, sizeof c, op->pred.v[j].n);
                pct_str(p, op->pred.v[j].n, pt);
                fputs("| ", m->out);
                cell(m->out, op->pred.v[j].name);
                fprintf(m->out, " | %s | %s ", c, p);
            }
            else {
                fputs("| | | ", m->out);
            }
            if (j < op->succ.n) {
                cli_count_str(c, sizeof c, op->succ.v[j].n);
                pct_str(p, op->succ.v[j].n, st);
                fputs("| ", m->out);
                cell(m->out, op->succ.v[j].name);
                fprintf(m->out, " | %s | %s |\n", c, p);
            }
            else {
                fputs("| | | |\n", m->out);
            }
        }
    }
}

/* CPython's total for a family's kind table: hit + miss + executions of
 * the base instruction. */
static uint64_t
spec_total(const m_op *op)
{
    return op->spec[PSF_SPEC_HIT] + op->spec[PSF_SPEC_MISS] + op->exec;
}

static void
sec_specialization(md *m, const m_group *g)
{
    static const int kinds[] = {PSF_SPEC_HIT, PSF_SPEC_DEFERRED, PSF_SPEC_MISS, PSF_SPEC_DEOPT};
    int shown = 0;
    size_t i, k;

    for (i = 0; i < g->ops.n; i++) {
        const m_op *op = &g->ops.v[i];
        uint64_t total = spec_total(op), sf;
        if (!op->specializable || !op->has_spec || total == 0)
            continue;
        if (!shown++)
            heading(m, 0, "Specialization");
        heading_name(m, 1, op->name, "");
        fputs("| Kind | Count | Ratio |\n| :--- | ---: | ---: |\n", m->out);
        for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            row3(m, psf_spec_field_name[kinds[k]], op->spec[kinds[k]], total);
        sf = op->spec[PSF_SPEC_SUCCESS] + op->spec[PSF_SPEC_FAILURE];
        if (sf) {
            fputs("\n| Specialization | Count | Ratio |\n| :--- | ---: | ---: |\n", m->out);
            row3(m, "success", op->spec[PSF_SPEC_SUCCESS], sf);
            row3(m, "failure", op->spec[PSF_SPEC_FAILURE], sf);
        }
        if (op->fail.n) {
            fputc('\n', m->out);
            table3(m, "Failure kind", &op->fail, op->spec[PSF_SPEC_FAILURE], (size_t)-1);
        }
    }
}

/* A row of the table by family: executions, base and specialized, and
 * the three most used forms (none for a family that never specialized). */
static void
family_row(md *m, const m_group *g, const m_kv *f)
{
    m_list forms = {0};
    uint64_t base = 0, spec = 0;
    char c[32], p[32], b[32], s[32], sp[32];
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
    fputs("| ", m->out);
    cell(m->out, f->name);
    fprintf(m->out, " | %s | %s | %s | %s | ", c, b, s, sp);
    for (j = 0; j < forms.n; j++) {
        if (j < 3) {
            pct_str(p, forms.v[j].n, f->n);
            fputs(j ? ", " : "", m->out);
            cell(m->out, forms.v[j].name);
            fprintf(m->out, " %s", p);
        }
        free(forms.v[j].name);
    }
    free(forms.v);
    fputs(" |\n", m->out);
}

static void
sec_effectiveness(md *m, const m_group *g)
{
    uint64_t basic = 0, hits = 0, misses = 0, notspec = 0;
    m_list deferred = {0}, miss = {0}, fam = {0};
    size_t i;

    if (g->src->source == AGG_OWN || g->total_exec == 0)
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
    fputs("| Instructions | Count | Ratio |\n| :--- | ---: | ---: |\n", m->out);
    row3(m, "Basic", basic, g->total_exec);
    row3(m, "Not specialized", notspec, g->total_exec);
    row3(m, "Specialized hits", hits, g->total_exec);
    row3(m, "Specialized misses", misses, g->total_exec);

    m_list_sort(&fam);
    heading(m, 1, "By family");
    fputs("Executions of each family (the base instruction and its specialized "
          "forms): the share that ran a specialized form, and the most used forms.\n\n"
          "| Family | Executions | Base | Specialized | Specialized share | Most used "
          "specializations |\n"
          "| :--- | ---: | ---: | ---: | ---: | :--- |\n",
          m->out);
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
    fputs("Ratios are of all calls to Python functions (\"Calls to\" rows), "
          "as CPython's report has them, frames too.\n\n",
          m->out);
    fputs("| | Count | Ratio |\n| :--- | ---: | ---: |\n", m->out);
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
    fputs("| | Count | Ratio |\n| :--- | ---: | ---: |\n", m->out);
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
    char name[256], c[32];

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
    fputs("| Generation |", m->out);
    for (f = 0; f < fields.n; f++) {
        fputc(' ', m->out);
        cell(m->out, fields.v[f].name);
        fputs(" |", m->out);
    }
    fputs("\n| ---: |", m->out);
    for (f = 0; f < fields.n; f++)
        fputs(" ---: |", m->out);
    fputc('\n', m->out);
    for (gen = 0; gen <= maxgen; gen++) {
        fprintf(m->out, "| %ld |", gen);
        for (f = 0; f < fields.n; f++) {
            snprintf(name, sizeof name, "%ld %s", gen, fields.v[f].name);
            cli_count_str(c, sizeof c, m_list_get(&g->gc, name));
            fprintf(m->out, " %s |", c);
        }
        fputc('\n', m->out);
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
        strcmp(k, "Optimization optimizer failure no memory") == 0)
        return m_list_get(l, "Optimization optimizer attempts");
    return 0;
}

static void
sec_optimization(md *m, const m_group *g)
{
    size_t i, j;
    char c[32], p[32], cu[32];

    if (g->opt.n == 0 && g->nhist == 0 && g->uops.n == 0 && g->jit.n == 0 && g->unsupported.n == 0)
        return;
    heading(m, 0, "Optimization (Tier 2) stats");
    if (g->opt.n) {
        fputs("| | Count | Ratio |\n| :--- | ---: | ---: |\n", m->out);
        for (i = 0; i < g->opt.n; i++) {
            const char *k = g->opt.v[i].name;
            if (strcmp(k, "Optimization uops executed") == 0) {
                uint64_t ex = m_list_get(&g->opt, "Optimization traces executed");
                cli_count_str(c, sizeof c, g->opt.v[i].n);
                if (ex)
                    snprintf(p, sizeof p, "%.2f", (double)g->opt.v[i].n / (double)ex);
                else
                    p[0] = '\0';
                fputs("| ", m->out);
                cell(m->out, k);
                fprintf(m->out, " | %s | %s |\n", c, p);
            }
            else {
                row3(m, k, g->opt.v[i].n, opt_den(&g->opt, k));
            }
        }
    }
    for (i = 0; i < g->nhist; i++) {
        const m_hist *h = &g->hist[i];
        uint64_t den = 0;
        size_t last = 0;
        if (strcmp(h->name, "Trace run length") == 0)
            den = m_list_get(&g->opt, "Optimization traces executed");
        else if (strstr(h->name, "race length"))
            den = m_list_get(&g->opt, "Optimization traces created");
        for (j = 0; j < h->buckets.n; j++)
            if (h->buckets.v[j].n)
                last = j + 1;
        if (last == 0)
            continue;
        heading_name(m, 1, h->name, " histogram");
        fputs("| Range | Count | Ratio |\n| :--- | ---: | ---: |\n", m->out);
        for (j = 0; j < last; j++) {
            char label[64];
            cli_count_str(c, sizeof c, strtoull(h->buckets.v[j].name, NULL, 10));
            snprintf(label, sizeof label, "<= %s", c);
            row3(m, label, h->buckets.v[j].n, den);
        }
    }
    if (g->uops.n) {
        m_list l = {0};
        uint64_t total = 0, cum = 0;
        for (i = 0; i < g->uops.n; i++) {
            total += g->uops.v[i].exec;
            if (g->uops.v[i].has_exec)
                m_list_add(&l, g->uops.v[i].name, strlen(g->uops.v[i].name), g->uops.v[i].exec);
        }
        m_list_sort(&l);
        heading(m, 1, "Uop execution stats");
        fputs("| Name | Count | Self | Cumulative | Miss ratio |\n"
              "| :--- | ---: | ---: | ---: | ---: |\n",
              m->out);
        for (i = 0; i < l.n; i++) {
            uint64_t miss = 0;
            for (j = 0; j < g->uops.n; j++)
                if (strcmp(g->uops.v[j].name, l.v[i].name) == 0)
                    miss = g->uops.v[j].spec[PSF_SPEC_MISS];
            cum += l.v[i].n;
            cli_count_str(c, sizeof c, l.v[i].n);
            pct_str(p, l.v[i].n, total);
            pct_str(cu, cum, total);
            fputs("| ", m->out);
            cell(m->out, l.v[i].name);
            fprintf(m->out, " | %s | %s | %s | ", c, p, cu);
            if (miss) {
                pct_str(p, miss, l.v[i].n);
                fputs(p, m->out);
            }
            fputs(" |\n", m->out);
            free(l.v[i].name);
        }
        free(l.v);
    }
    if (g->unsupported.n) {
        heading(m, 1, "Unsupported opcodes");
        table3(m, "Opcode", &g->unsupported, list_total(&g->unsupported), (size_t)-1);
    }
    if (g->errors.n) {
        heading(m, 1, "Errors in uops");
        table3(m, "Uop", &g->errors, list_total(&g->errors), (size_t)-1);
    }
    if (g->jit.n) {
        heading(m, 1, "JIT memory");
        table3(m, "", &g->jit, m_list_get(&g->jit, "JIT total memory size"), (size_t)-1);
    }
}

static void
sec_simple(md *m, const char *title, const char *col, const m_list *l)
{
    size_t i;
    char c[32];

    if (l->n == 0)
        return;
    heading(m, 0, "%s", title);
    fprintf(m->out, "| %s | Count |\n| :--- | ---: |\n", col);
    for (i = 0; i < l->n; i++) {
        cli_count_str(c, sizeof c, l->v[i].n);
        fputs("| ", m->out);
        cell(m->out, l->v[i].name);
        fprintf(m->out, " | %s |\n", c);
    }
}

/* encoded: the texts are free text in the dump's encoding (text.h). */
static void
strs_line(md *m, const char *label, const agg_strs *s, int encoded)
{
    size_t i;

    if (s->n == 0)
        return;
    fputs("| ", m->out);
    cell(m->out, label);
    fputs(" | ", m->out);
    for (i = 0; i < s->n; i++) {
        fputs(i ? "; " : "", m->out);
        if (encoded)
            cell_text(m->out, s->v[i].text);
        else
            cell(m->out, s->v[i].text);
        fprintf(m->out, " (%llu)", (unsigned long long)s->v[i].n);
    }
    fputs(" |\n", m->out);
}

static void
sec_group_meta(md *m, const agg_group *g)
{
    size_t i;
    char c[32];

    heading(m, 0, "Meta");
    fputs("| | |\n| :--- | :--- |\n", m->out);
    cli_count_str(c, sizeof c, g->files);
    fprintf(m->out, "| Number of data files | %s |\n", c);
    fputs("| Formats | ", m->out);
    for (i = 0; i < AGG_FMT_COUNT; i++)
        if (g->fmt[i])
            fprintf(m->out, "%s (%llu) ", agg_format_name[i], (unsigned long long)g->fmt[i]);
    fputs("|\n", m->out);
    strs_line(m, "Python version detected from", &g->how, 0);
    strs_line(m, "Collectors", &g->collectors, 0);
    for (i = 0; i < g->nhdr; i++)
        if (!summary_hdr_is_self_description(g->hdr[i].key))
            strs_line(m, g->hdr[i].key, &g->hdr[i].vals,
                      text_header_is_free(g->hdr[i].key, strlen(g->hdr[i].key)));
    if (g->time_start) {
        fputs("| Earliest start | ", m->out);
        cell(m->out, g->time_start);
        fputs(" |\n", m->out);
    }
    if (g->time_end) {
        fputs("| Latest end | ", m->out);
        cell(m->out, g->time_end);
        fputs(" |\n", m->out);
    }
}

/* ---- the collector's own sections ---------------------------------- */

static void
pct_cell(md *m, uint64_t num, uint64_t den)
{
    char p[32];

    pct_str(p, num, den);
    fprintf(m->out, " %s |", p);
}

/* "FOR_ITER, RESUME": the families a census taken alongside counting
 * left out. */
static void
excluded_names(md *m, const m_group *g)
{
    size_t i;

    for (i = 0; i < g->census_excluded.n; i++) {
        fputs(i == 0 ? "" : i + 1 < g->census_excluded.n ? ", " : " and ", m->out);
        cell(m->out, g->census_excluded.v[i].name);
    }
}

static void
sec_census(md *m, const m_group *g)
{
    size_t i, j;
    char c[32], n1[32], n2[32];
    uint64_t nscope = model_hdr_files(g, PSF_H_CENSUS_SCOPE, "count");
    uint64_t nmode = model_hdr_files(g, PSF_H_MODE, "census");
    static const char *const label[][2] = {
        {"code_objects", "Code objects read"},
        {"dead_code_objects", "Code objects read as they were destroyed"},
        {"instrumented_code_objects", "Code objects skipped (instrumented by another tool)"},
    };

    if (!g->has_census)
        return;
    heading(m, 0, "Specialization census");
    fputs("The specialization state of the code each process had when it dumped, taken in "
          "mode census or alongside counting in mode count on 3.12+ (`meta.census.scope` "
          "says which). Dumps are summed: a code object alive in several processes, or "
          "dumped several times, counts in each dump.\n\n",
          m->out);
    if (g->census_excluded.n) {
        cli_count_str(n1, sizeof n1, nscope);
        cli_count_str(n2, sizeof n2, nmode);
        fputs("**Left out: ", m->out);
        excluded_names(m, g);
        fprintf(m->out,
                ".** %s %s the census alongside counting (`meta.census.scope : count`), "
                "whose events instrument every site of these families and hold back their "
                "specialization: their state was not read, their sites are counted below as "
                "left out, never as specialized or never tried.",
                nscope ? n1 : "Some", nscope == 1 ? "dump took" : "dumps took");
        if (nmode)
            fprintf(m->out,
                    " Rows of these families below come from the %s census-mode "
                    "dump%s only.",
                    n2, nmode == 1 ? "" : "s");
        fputs("\n\n", m->out);
    }
    fputs("| | Count |\n| :--- | ---: |\n", m->out);
    for (i = 0; i < g->census.n; i++) {
        const char *name = g->census.v[i].name;
        for (j = 0; j < sizeof label / sizeof label[0]; j++)
            if (strcmp(name, label[j][0]) == 0)
                name = label[j][1];
        cli_count_str(c, sizeof c, g->census.v[i].n);
        fputs("| ", m->out);
        cell(m->out, name);
        fprintf(m->out, " | %s |\n", c);
    }
    for (i = 0; i < g->census_excluded.n; i++) {
        cli_count_str(c, sizeof c, g->census_excluded.v[i].n);
        fputs("| ", m->out);
        cell(m->out, g->census_excluded.v[i].name);
        fprintf(m->out, " sites left out (census alongside counting) | %s |\n", c);
    }
    if (g->ncfam == 0)
        return;
    fputs("\nPer family: the share of its sites now specialized, backing off after "
          "failed attempts (with the consecutive failed attempts their counters imply), "
          "and never tried; families without inline caches report sites and forms only.\n\n",
          m->out);
    fputs("| Family | Sites | Specialized | Backing off | Failed attempts | Never tried "
          "| Top forms |\n| :--- | ---: | ---: | ---: | ---: | ---: | :--- |\n",
          m->out);
    for (i = 0; i < g->ncfam; i++) {
        const m_cfam *f = &g->cfam[i];
        uint64_t den = f->f[M_CF_SITES];
        fputs("| ", m->out);
        cell(m->out, f->name);
        cli_count_str(c, sizeof c, den);
        fprintf(m->out, " | %s |", c);
        pct_cell(m, f->f[M_CF_SPECIALIZED], den);
        pct_cell(m, f->f[M_CF_BACKING_OFF], den);
        cli_count_str(c, sizeof c, f->f[M_CF_FAILED_ATTEMPTS]);
        fprintf(m->out, " %s |", c);
        pct_cell(m, f->f[M_CF_NEVER_TRIED], den);
        fputc(' ', m->out);
        for (j = 0; j < f->forms.n && j < 3; j++) {
            char p[32];
            pct_str(p, f->forms.v[j].n, den);
            fputs(j ? ", " : "", m->out);
            cell(m->out, f->forms.v[j].name);
            fprintf(m->out, " %s", p);
        }
        if (f->forms.n > 3)
            fprintf(m->out, ", %zu more", f->forms.n - 3);
        fputs(" |\n", m->out);
    }
}

/* A census site's FILE:LINE. */
static void
site_where(md *m, const m_csite *st)
{
    cell_text(m->out, st->file);
    fputc(':', m->out);
    cell(m->out, st->line);
}

static void
sec_census_sites(md *m, const m_group *g)
{
    size_t i, max = m->opt->top_sites > 0 ? (size_t)m->opt->top_sites : 50;
    char c[32];

    if (g->nsites == 0)
        return;
    heading(m, 0, "Sites that fail to specialize");
    fprintf(m->out,
            "Sites backing off in the program's own code (`census.site`), merged "
            "across dumps when family, file, line and function are the same: "
            "\"Attempts\" is the most consecutive failed attempts seen, \"Sites\" how many "
            "such sites the dumps listed. %s%zu of %zu rows (--top-sites).\n\n",
            g->nsites > max ? "Top " : "All ", g->nsites > max ? max : g->nsites, g->nsites);
    fputs("| Family | Attempts | Sites | Where | Function | Source |\n"
          "| :--- | ---: | ---: | :--- | :--- | :--- |\n",
          m->out);
    for (i = 0; i < g->nsites && i < max; i++) {
        const m_csite *st = &g->sites[i];
        fputs("| ", m->out);
        cell_text(m->out, st->family);
        cli_count_str(c, sizeof c, st->attempts);
        fprintf(m->out, " | %s |", c);
        cli_count_str(c, sizeof c, st->count);
        fprintf(m->out, " %s | ", c);
        site_where(m, st);
        fputs(" | ", m->out);
        cell_text(m->out, st->func);
        fputs(" | ", m->out);
        cell_text(m->out, st->source);
        fputs(" |\n", m->out);
    }
}

#define HOT_CODE_MAX 50

static void
sec_hot_code(md *m, const m_group *g)
{
    uint64_t den = g->total_exec ? g->total_exec : g->code_instructions;
    size_t i, j;
    char c[32];

    if (g->ncode == 0)
        return;
    heading(m, 0, "Hot code");
    fprintf(m->out,
            "The code objects that executed the most instructions (`code[...]` keys); "
            "the share is of all executed instructions (%s). %s%zu of %zu.\n\n",
            g->total_exec ? "the execution counts" : "the code objects listed",
            g->ncode > HOT_CODE_MAX ? "Top " : "All ",
            g->ncode > HOT_CODE_MAX ? (size_t)HOT_CODE_MAX : g->ncode, g->ncode);
    fputs("| Function | Where | Instructions | Share | Calls | Per call | Top opcodes |\n"
          "| :--- | :--- | ---: | ---: | ---: | ---: | :--- |\n",
          m->out);
    for (i = 0; i < g->ncode && i < HOT_CODE_MAX; i++) {
        const m_code *k = &g->code[i];
        fputs("| ", m->out);
        cell_text(m->out, k->qual ? k->qual : k->name);
        fputs(" | ", m->out);
        if (k->qual) {
            cell_text_n(m->out, k->name, k->file_len);
            fprintf(m->out, ":%.*s", (int)k->line_len, k->line);
        }
        cli_count_str(c, sizeof c, k->instructions);
        fprintf(m->out, " | %s |", c);
        pct_cell(m, k->instructions, den);
        cli_count_str(c, sizeof c, k->calls);
        fprintf(m->out, " %s |", c);
        if (k->calls)
            fprintf(m->out, " %.1f |", (double)k->instructions / (double)k->calls);
        else
            fputs(" |", m->out);
        fputc(' ', m->out);
        for (j = 0; j < k->ops.n; j++) {
            char p[32];
            pct_str(p, k->ops.v[j].n, k->instructions);
            fputs(j ? ", " : "", m->out);
            cell(m->out, k->ops.v[j].name);
            fprintf(m->out, " %s", p);
        }
        fputs(" |\n", m->out);
    }
}

static void
sec_own_calls(md *m, const m_group *g)
{
    if (g->own_calls.n == 0)
        return;
    heading(m, 0, "Calls");
    fputs("Frame events seen by the collector (`calls.*` keys; not CPython's \"Calls to\" "
          "counters, which mean other things). Ratios are of `python_starts`.\n\n",
          m->out);
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
    fputs("What the collector's dict, type and function watchers saw (`rare.*` keys). "
          "These are not CPython's native \"Rare event\" figures: watchers see only part "
          "of those changes, and the two are never added together.\n\n",
          m->out);
    fputs("| Event | Count |\n| :--- | ---: |\n", m->out);
    for (i = 0; i < g->own_rare.n; i++) {
        cli_count_str(c, sizeof c, g->own_rare.v[i].n);
        fputs("| ", m->out);
        cell(m->out, g->own_rare.v[i].name);
        fprintf(m->out, " | %s |\n", c);
    }
}

/* The metadata of Faster CPython's published summaries (commit, fork,
 * branch, date, actor), one line under the group's title. */
static void
cpython_metadata(md *m, const agg_group *g)
{
    size_t i, plen = strlen(AGG_HDR_CPY_METADATA), shown = 0;

    for (i = 0; i < g->nhdr; i++) {
        const agg_strs *v = &g->hdr[i].vals;
        size_t j;
        if (strncmp(g->hdr[i].key, AGG_HDR_CPY_METADATA, plen) != 0)
            continue;
        fputs(shown++ ? "; " : "\n**CPython run:** ", m->out);
        cell(m->out, g->hdr[i].key + plen);
        fputs(" ", m->out);
        for (j = 0; j < v->n; j++) {
            fputs(j ? ", " : "", m->out);
            cell(m->out, v->v[j].text);
            if (v->n > 1)
                fprintf(m->out, " (%llu)", (unsigned long long)v->v[j].n);
        }
    }
    if (shown)
        fputs(".\n", m->out);
}

/* Hot code as "QUALNAME (FILE:LINE)". */
static void
code_where(md *m, const m_code *k)
{
    if (k->qual == NULL) {
        cell_text(m->out, k->name);
        return;
    }
    fputc('`', m->out);
    cell_text(m->out, k->qual);
    fputs("` (", m->out);
    cell_text_n(m->out, k->name, k->file_len);
    fprintf(m->out, ":%.*s)", (int)k->line_len, k->line);
}

/* Where to look first (overview.h): the verdict, the totals, the
 * hottest code, the failing sites and the families that run generic. */
static void
sec_overview(md *m, const summary_group *sg, const char *verdict)
{
    const m_group *g = &sg->m;
    uint64_t den = g->total_exec ? g->total_exec : g->code_instructions;
    overview o;
    char c[32], p[32];
    size_t i;

    overview_build(&o, g);
    heading(m, 0, "Overview");
    fputs("| | |\n| :--- | ---: |\n", m->out);
    if (verdict)
        fprintf(m->out, "| Verdict | **%s** |\n", verdict);
    cli_count_str(c, sizeof c, g->total_exec);
    fprintf(m->out, "| Instructions executed | %s |\n", c);
    cli_count_str(c, sizeof c, sg->meta->files);
    fprintf(m->out, "| Files | %s |\n", c);
    if (o.ncode + o.nsite + o.nfam == 0)
        return;
    fputs("\nWhere to look:\n\n", m->out);
    for (i = 0; i < o.ncode; i++) {
        fputs("- Hot code: ", m->out);
        code_where(m, o.code[i]);
        cli_count_str(c, sizeof c, o.code[i]->instructions);
        pct_str(p, o.code[i]->instructions, den);
        fprintf(m->out, ": %s instructions%s%s%s\n", c, *p ? ", " : "", p, *p ? " of all" : "");
    }
    for (i = 0; i < o.nsite; i++) {
        const m_csite *st = o.site[i];
        fputs("- Fails to specialize: ", m->out);
        cell_text(m->out, st->family);
        fputs(" at ", m->out);
        site_where(m, st);
        fputs(" in `", m->out);
        cell_text(m->out, st->func);
        cli_count_str(c, sizeof c, st->attempts);
        fprintf(m->out, "`: %s failed attempts in a row\n", c);
    }
    for (i = 0; i < o.nfam; i++) {
        fputs("- Runs unspecialized: ", m->out);
        cell(m->out, o.fam[i].family);
        cli_count_str(c, sizeof c, o.fam[i].generic);
        pct_str(p, o.fam[i].generic, o.fam[i].exec);
        fprintf(m->out, ": %s executions in a generic form, misses included%s%s%s\n", c,
                *p ? " (" : "", p, *p ? " of the family's)" : "");
    }
}

static void
report_group(md *m, const summary_group *sg, const char *verdict)
{
    const agg_group *ag = sg->meta;
    const m_group *g = &sg->m;

    sec_overview(m, sg, verdict);
    cpython_metadata(m, ag);
    sec_execution(m, g);
    sec_pairs(m, g);
    sec_pred_succ(m, g);
    sec_specialization(m, g);
    sec_effectiveness(m, g);
    sec_census(m, g);
    sec_census_sites(m, g);
    sec_hot_code(m, g);
    sec_calls(m, g);
    sec_own_calls(m, g);
    sec_objects(m, g);
    sec_gc(m, g);
    sec_optimization(m, g);
    sec_simple(m, "Rare events", "Event", &g->rare);
    sec_own_rare(m, g);
    sec_simple(m, "Other counters", "Key", &g->other);
    sec_group_meta(m, ag);
}

int
report_markdown(FILE *out, const summary *s)
{
    md m = {out, 2, &s->opt};
    char t[256];
    size_t i;

    fputs("# pystats summary\n\nReport by pystats " PSF_VERSION ".\n\n", out);
    fprintf(out, "%llu data files", (unsigned long long)s->files);
    if (s->ng == 1) {
        fputs(": ", out);
        cell(out, s->g[0].title);
        fputs(".\n", out);
    }
    else {
        fprintf(out, " in %zu groups.\n", s->ng);
    }
    if (s->trust)
        fprintf(out, "\n**Trust:** %s. Details: `pystats check`.\n", s->trust);
    if (s->weight_total) {
        cli_count_str(t, sizeof t, s->weight_total);
        fprintf(out,
                "\n**Weighting:** every label counts the same: each of the %llu labels "
                "is scaled to %s executions before adding (--equal-weight).\n",
                (unsigned long long)s->weight_labels, t);
    }
    if (s->mix) {
        fputs("\n**Warning:** ", out);
        cell(out, s->mix);
        fputs(".\n", out);
    }
    if (s->nproblems)
        fprintf(out, "\n**Warning:** %llu input problems (see \"Input problems\" below).\n",
                (unsigned long long)s->nproblems);
    if (s->ng == 1) {
        report_group(&m, &s->g[0], s->verdict);
    }
    else {
        m.level = 3;
        for (i = 0; i < s->ng; i++) {
            fprintf(out, "\n## Group %zu: ", i + 1);
            cell(out, s->g[i].title);
            fprintf(out, " (%llu files)\n", (unsigned long long)s->g[i].meta->files);
            report_group(&m, &s->g[i], s->verdict);
        }
    }
    if (s->nproblems) {
        fputs("\n## Input problems\n\n| Problem | Count |\n| :--- | ---: |\n", out);
        for (i = 0; i < AGG_P_COUNT; i++)
            if (s->problems[i])
                fprintf(out, "| %s | %llu |\n", agg_problem_name[i],
                        (unsigned long long)s->problems[i]);
        if (s->nnotes) {
            fputs("\nFirst problems found:\n\n", out);
            for (i = 0; i < s->nnotes; i++) {
                fprintf(out, "- %s: ", agg_problem_name[s->notes[i].kind]);
                cell(out, s->notes[i].text);
                fputc('\n', out);
            }
        }
    }
    return ferror(out) ? -1 : 0;
}
