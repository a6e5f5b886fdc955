/* compare.c: building the comparison of two runs (see compare.h). */
#include "compare.h"
#include "text.h"
#include "../format/psf_keys.h"

#include "cli.h"
#include "ktab.h"
#include "renames.h"
#include "summary.h"
#include "../format/psf_tables.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cmp_only_name[3] = {"", "base", "head"};

/* ---- sections and rows ------------------------------------------------ */

static cmp_section *
sec_new(cmp *c, const char *name, const char *title, const char *col, int kind, int normalized,
        const char *note)
{
    cmp_section *s;
    ktab *idx = cli_xmalloc(sizeof *idx);

    /* Never reallocated: callers keep pointers to several sections. */
    if (c->nsec == CMP_MAX_SECTIONS) {
        fputs("pystats: internal error: too many comparison sections\n", stderr);
        exit(CLI_EXIT_INTERNAL);
    }
    s = &c->sec[c->nsec++];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->title = title;
    s->col = col;
    s->kind = kind;
    s->normalized = normalized;
    s->note = note;
    ktab_init(idx);
    s->index = idx;
    return s;
}

static cmp_row *
row_get(cmp_section *s, const char *name, size_t len)
{
    int is_new;
    size_t id = ktab_intern(s->index, name, len, &is_new);

    if (is_new) {
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 32;
            s->rows = cli_xrealloc(s->rows, s->cap * sizeof *s->rows);
        }
        memset(&s->rows[s->n], 0, sizeof s->rows[s->n]);
        s->rows[s->n].name = cli_xstrndup(name, len);
        s->n++;
    }
    return &s->rows[id];
}

/* A per-call section's calls of a row (hot code). */
static void
add_calls(cmp_section *s, int side, const char *name, uint64_t n)
{
    cmp_row *r = row_get(s, name, strlen(name));

    if (side == 0)
        r->base_calls = cli_sat_add(r->base_calls, n);
    else
        r->head_calls = cli_sat_add(r->head_calls, n);
}

static void
add_count(cmp_section *s, int side, const char *name, uint64_t n)
{
    cmp_row *r = row_get(s, name, strlen(name));

    if (side == 0) {
        r->has_base = 1;
        r->base_n = cli_sat_add(r->base_n, n);
    }
    else {
        r->has_head = 1;
        r->head_n = cli_sat_add(r->head_n, n);
    }
}

static void
add_share(cmp_section *s, int side, const char *name, uint64_t num, uint64_t den)
{
    cmp_row *r = row_get(s, name, strlen(name));

    if (side == 0) {
        r->base_num = cli_sat_add(r->base_num, num);
        r->base_den = cli_sat_add(r->base_den, den);
    }
    else {
        r->head_num = cli_sat_add(r->head_num, num);
        r->head_den = cli_sat_add(r->head_den, den);
    }
}

static void fmt_name(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
fmt_name(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

/* Side i's name of instruction or family `name` in the pair's units
 * (renames.h): its row, or NULL (itself). */
static const ren_row *
side_rename(const cmp *c, int i, const char *name)
{
    if (c->ren_lo == 0)
        return NULL;
    return ren_find(c->ren_lo, i == c->ren_old ? REN_OLD : REN_NEW, name);
}

/* ---- figures ------------------------------------------------------------ */

/* Relative change from a to b: NaN when both are undefined, +inf from 0. */
static double
rel_change(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == 0)
        return b == 0 ? 0.0 : (b > 0 ? INFINITY : -INFINITY);
    return (b - a) / a;
}

/* A per-call section's row (hot code): its instructions per call on each
 * side, and the magnitude it is ranked by: the change per call times
 * the base's calls, as a share of the base's instructions (tb); a code
 * object with no calls on a side, by the change of its share of all
 * instructions.  Folded only when it changed less than --min-change per
 * call and is less than CMP_HOT_KEEP of both sides' instructions. */
static double
per_call_rank(const cmp *c, cmp_row *r, uint64_t tb, uint64_t th)
{
    double sb = tb ? (double)r->base_n / (double)tb : 0,
           sh = th ? (double)r->head_n / (double)th : 0;
    double mag, rel;

    r->base_per_call = r->base_calls ? (double)r->base_n / (double)r->base_calls : NAN;
    r->head_per_call = r->head_calls ? (double)r->head_n / (double)r->head_calls : NAN;
    r->rel_per_call = rel_change(r->base_per_call, r->head_per_call);
    /* Without instructions on a side (no opcode counts), in instructions. */
    if (!isnan(r->rel_per_call) && !isinf(r->rel_per_call)) {
        mag = fabs(r->head_per_call - r->base_per_call) * (double)r->base_calls /
              (tb && th ? (double)tb : 1.0);
        rel = r->rel_per_call;
    }
    else {
        mag = tb && th ? fabs(sh - sb) : fabs(r->change);
        rel = isnan(r->rel_pm) ? r->rel : r->rel_pm;
    }
    r->folded = fabs(rel) * 100.0 < c->min_change && sb < CMP_HOT_KEEP && sh < CMP_HOT_KEEP;
    return mag;
}

static int
row_cmp(const void *pa, const void *pb)
{
    const cmp_row *a = pa, *b = pb;

    if (a->folded != b->folded)
        return a->folded - b->folded;
    if (a->weight != b->weight)
        return a->weight > b->weight ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void
sec_finish(cmp *c, cmp_section *s)
{
    uint64_t tb = c->side[0].m->total_exec, th = c->side[1].m->total_exec;
    int pm = s->normalized && tb > 0 && th > 0;
    double total = 0, *mag;
    size_t i;

    ktab_free(s->index);
    free(s->index);
    s->index = NULL;
    if (s->kind == CMP_COUNT && !pm)
        s->normalized = 0;
    mag = cli_xcalloc(s->n ? s->n : 1, sizeof *mag);
    for (i = 0; i < s->n; i++) {
        cmp_row *r = &s->rows[i];
        if (s->kind == CMP_COUNT) {
            r->base = (double)r->base_n;
            r->head = (double)r->head_n;
            /* Exact: head - base of two counts near 2^64 is not a
             * difference of their doubles. */
            r->change = r->head_n >= r->base_n ? (double)(r->head_n - r->base_n)
                                               : -(double)(r->base_n - r->head_n);
            r->rel = r->base_n ? r->change / r->base : rel_change(r->base, r->head);
            if (pm) {
                r->base_pm = r->base * 1e6 / (double)tb;
                r->head_pm = r->head * 1e6 / (double)th;
                r->change_pm = r->head_pm - r->base_pm;
                r->rel_pm = rel_change(r->base_pm, r->head_pm);
                mag[i] = fabs(r->change_pm);
            }
            else {
                r->base_pm = r->head_pm = r->change_pm = r->rel_pm = NAN;
                mag[i] = fabs(r->change);
            }
            r->folded = fabs(pm ? r->rel_pm : r->rel) * 100.0 < c->min_change;
            if (s->per_call)
                mag[i] = per_call_rank(c, r, tb, th);
        }
        else {
            r->has_base = r->base_den > 0;
            r->has_head = r->head_den > 0;
            r->base = r->has_base ? (double)r->base_num / (double)r->base_den : NAN;
            r->head = r->has_head ? (double)r->head_num / (double)r->head_den : NAN;
            r->change = r->head - r->base;
            r->rel = rel_change(r->base, r->head);
            r->base_pm = r->head_pm = r->change_pm = r->rel_pm = NAN;
            if (r->has_base && r->has_head) {
                mag[i] = fabs(r->change);
                r->folded = fabs(r->change) * 100.0 < c->min_change;
            }
            else {
                /* Defined on one side only (no data on the other): no
                 * change can be measured; shown after the changes. */
                mag[i] = 0;
                r->folded = !r->has_base && !r->has_head;
            }
        }
        total += mag[i];
    }
    for (i = 0; i < s->n; i++) {
        s->rows[i].weight = total > 0 ? mag[i] / total : 0.0;
        s->nfolded += s->rows[i].folded != 0;
    }
    free(mag);
    if (s->n > 1)
        qsort(s->rows, s->n, sizeof *s->rows, row_cmp);
}

/* ---- filling sections from the two models ------------------------------- */

static void
fill_list(cmp *c, const char *name, const char *title, const char *col, int normalized,
          size_t list_off)
{
    cmp_section *s = NULL;
    int i;
    size_t k;

    for (i = 0; i < 2; i++) {
        const m_list *l = (const m_list *)((const char *)c->side[i].m + list_off);
        for (k = 0; k < l->n; k++) {
            if (s == NULL)
                s = sec_new(c, name, title, col, CMP_COUNT, normalized, NULL);
            add_count(s, i, l->v[k].name, l->v[k].n);
        }
    }
}

/* The collector's census and hot code, when either side has them.  The
 * census is a state: its counts are not per instruction executed. */
static void
fill_own(cmp *c)
{
    cmp_section *cen = NULL, *cenn = NULL, *sites = NULL, *hot = NULL, *hotc = NULL;
    char name[1200];
    int i, f;
    size_t k;

    if (c->side[0].m->has_census || c->side[1].m->has_census) {
        cen = sec_new(c, "census", "Specialization census", "Family.state", CMP_SHARE, 0,
                      "Shares of the family's sites at dump time: specialized, backing off "
                      "after failed attempts, never tried.");
        cenn = sec_new(c, "census_counts", "Specialization census counts", "Counter", CMP_COUNT, 0,
                       "Code objects and sites, summed over dumps.");
    }
    if (c->side[0].m->nsites || c->side[1].m->nsites)
        sites =
            sec_new(c, "census_sites", "Sites that fail to specialize", "Family file:line function",
                    CMP_COUNT, 0, "Sites backing off, merged by family, file, line and function.");
    if (c->side[0].m->ncode || c->side[1].m->ncode) {
        hot = sec_new(c, "hot_code", "Hot code: instructions", "Code object", CMP_COUNT, 1,
                      "Instructions executed by FILE:FUNCTION, FILE by module where it "
                      "is importable (else relative to the working directory), without "
                      "the line, so that code matches across environments and Python "
                      "versions; code objects alike in both are added. Self: the share "
                      "of all instructions executed on that side. Ranked by the change "
                      "in instructions per call times the base's calls (a change in "
                      "the number of calls, as pyperf's loop counts, is no change); "
                      "code that is 3% or more of a side's instructions is never "
                      "folded.");
        hot->self_share = 1;
        hot->per_call = 1;
        hotc = sec_new(c, "hot_code_calls", "Hot code: calls", "Code object", CMP_COUNT, 1, NULL);
    }
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        if (cen) {
            for (k = 0; k < m->census.n; k++)
                add_count(cenn, i, m->census.v[k].name, m->census.v[k].n);
            for (k = 0; k < m->census_excluded.n; k++) {
                fmt_name(name, sizeof name, "%s.left_out", m->census_excluded.v[k].name);
                add_count(cenn, i, name, m->census_excluded.v[k].n);
            }
            for (k = 0; k < m->ncfam; k++) {
                const m_cfam *fm = &m->cfam[k];
                fmt_name(name, sizeof name, "%s.sites", fm->name);
                add_count(cenn, i, name, fm->f[M_CF_SITES]);
                if (fm->f[M_CF_SITES] == 0)
                    continue;
                for (f = M_CF_SPECIALIZED; f < M_CF_COUNT; f++) {
                    if (f == M_CF_FAILED_ATTEMPTS)
                        continue;
                    fmt_name(name, sizeof name, "%s.%s", fm->name, m_cf_name[f]);
                    add_share(cen, i, name, fm->f[f], fm->f[M_CF_SITES]);
                }
            }
        }
        if (sites)
            for (k = 0; k < m->nsites; k++) {
                const m_csite *st = &m->sites[k];
                /* Free text decoded for reading (text.h), the same on both sides. */
                char *fl = text_display(st->file), *fn = text_display(st->func);
                /* A site of a family renamed between the versions under
                 * its name on the other side (BINARY_SUBSCR: BINARY_OP). */
                const ren_row *rr = side_rename(c, i, st->family);
                const char *fam = rr && rr->kind != REN_INSERTED && !strchr(rr->units, ' ')
                                      ? rr->units
                                      : st->family;
                fmt_name(name, sizeof name, "%s %s:%s %s", fam, fl, st->line, fn);
                free(fl);
                free(fn);
                add_count(sites, i, name, st->count);
            }
        if (hot)
            for (k = 0; k < m->ncode; k++) {
                /* FILE:QUALNAME, without the line, which moves between
                 * Python versions of the standard library. */
                const m_code *x = &m->code[k];
                size_t n = x->file_len + (x->qual ? strlen(x->qual) + 2 : 1);
                char *enc = cli_xmalloc(n), *cn;
                snprintf(enc, n, "%.*s%s%s", (int)x->file_len, x->name, x->qual ? ":" : "",
                         x->qual ? x->qual : "");
                cn = text_display(enc);
                free(enc);
                add_count(hot, i, cn, m->code[k].instructions);
                add_calls(hot, i, cn, m->code[k].calls);
                add_count(hotc, i, cn, m->code[k].calls);
                free(cn);
            }
    }
}

/* Site executions by state (model_sitefx.c), when either side has them:
 * per family and state, and (same instruction set only) per specialized
 * form, counts per million instructions; the shares of the family's
 * site executions. */
static void
fill_sitefx(cmp *c)
{
    cmp_section *st, *forms = NULL, *sh;
    char name[600];
    size_t k, j;
    int i, f;

    if (c->side[0].m->nsxfam == 0 && c->side[1].m->nsxfam == 0)
        return;
    st = sec_new(c, "site_executions", "Site executions by state", "Family.state", CMP_COUNT, 1,
                 "Every dispatch at the sites with census rows, credited to the state the "
                 "census read (specialized: hits plus misses in a --enable-pystats build's "
                 "terms, not hits; excluded: instrumented while counting, not read; uncertain: "
                 "sites whose state visibly changed, any state).");
    if (!c->by_family)
        forms =
            sec_new(c, "site_executions_forms", "Site executions by specialized form", "Form",
                    CMP_COUNT, 1, "Executions at sites in that form when the census was taken.");
    sh = sec_new(c, "site_execution_shares", "Site execution shares", "Family.state", CMP_SHARE, 0,
                 "Shares of the family's site executions; coverage: the site executions as a "
                 "share of the family's executions (the rows are capped).");
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->nsxfam; k++) {
            const m_sxfam *x = &m->sxfam[k];
            /* Across versions, by family: one renamed between them
             * under the other side's name (BINARY_SUBSCR: BINARY_OP). */
            const ren_row *rr = side_rename(c, i, x->name);
            const char *fam =
                rr && rr->kind != REN_INSERTED && !strchr(rr->units, ' ') ? rr->units : x->name;
            for (f = 0; f < M_SX_SITES; f++) {
                fmt_name(name, sizeof name, "%s.%s", fam, m_sx_name[f]);
                add_count(st, i, name, x->f[f]);
                if (x->rows_exec)
                    add_share(sh, i, name, x->f[f], x->rows_exec);
            }
            if (x->family_exec) {
                fmt_name(name, sizeof name, "%s.coverage", fam);
                add_share(sh, i, name, x->rows_exec, x->family_exec);
            }
            for (j = 0; forms && j < x->forms.n; j++)
                add_count(forms, i, x->forms.v[j].name, x->forms.v[j].n);
        }
    }
}

/* The specialization sections' rows of one instruction. */
typedef struct spec_secs {
    cmp_section *spec, *specn, *fail;
} spec_secs;

static void
add_op_spec(const spec_secs *secs, int i, const m_op *op)
{
    cmp_section *spec = secs->spec, *specn = secs->specn, *fail = secs->fail;
    static const int f[] = {PSF_SPEC_HIT, PSF_SPEC_MISS, PSF_SPEC_DEFERRED, PSF_SPEC_DEOPT};
    static const char *const fn[] = {"hit_ratio", "miss_ratio", "deferred_ratio", "deopt_ratio"};
    uint64_t total = m_spec_total(op), sf;
    char name[1200];
    size_t q;

    if (total)
        for (q = 0; q < 4; q++) {
            fmt_name(name, sizeof name, "%s.%s", op->name, fn[q]);
            add_share(spec, i, name, op->spec[f[q]], total);
        }
    sf = cli_sat_add(op->spec[PSF_SPEC_SUCCESS], op->spec[PSF_SPEC_FAILURE]);
    if (sf) {
        fmt_name(name, sizeof name, "%s.success_ratio", op->name);
        add_share(spec, i, name, op->spec[PSF_SPEC_SUCCESS], sf);
    }
    for (q = 0; q < PSF_SPEC_COUNT; q++) {
        fmt_name(name, sizeof name, "%s.%s", op->name, psf_spec_field_name[q]);
        add_count(specn, i, name, op->spec[q]);
    }
    for (q = 0; q < op->fail.n; q++) {
        fmt_name(name, sizeof name, "%s.%s", op->name, op->fail.v[q].name);
        add_share(fail, i, name, op->fail.v[q].n, op->spec[PSF_SPEC_FAILURE]);
    }
}

/* The pair rows of one instruction (by family when c->by_family). */
static void
add_op_pairs(cmp *c, cmp_section *pairs, int i, const m_op *op)
{
    char name[1200];
    size_t j;

    for (j = 0; j < op->succ.n; j++) {
        const char *b = op->succ.v[j].name;
        if (c->by_family) {
            const char *fb = psf_tab_family(c->side[i].g->minor, b);
            fmt_name(name, sizeof name, "%s %s", op->family, fb ? fb : b);
        }
        else {
            fmt_name(name, sizeof name, "%s %s", op->name, b);
        }
        add_count(pairs, i, name, op->succ.v[j].n);
    }
}

/* GC stats: gc[N].uncollectable and .time_ns by key, the rest as CPython names them. */
static void
fill_gc(cmp *c)
{
    cmp_section *s;
    char name[1200];
    size_t k;
    int i;

    s = NULL;
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->gc.n; k++) {
            const char *sp = strchr(m->gc.v[k].name, ' ');
            if (s == NULL)
                s = sec_new(c, "gc", "GC stats", "Counter", CMP_COUNT, 1, NULL);
            if (sp && (strcmp(sp + 1, "uncollectable") == 0 || strcmp(sp + 1, "time_ns") == 0))
                fmt_name(name, sizeof name, "gc[%.*s].%s", (int)(sp - m->gc.v[k].name),
                         m->gc.v[k].name, sp + 1);
            else if (sp)
                fmt_name(name, sizeof name, "GC[%.*s] %s", (int)(sp - m->gc.v[k].name),
                         m->gc.v[k].name, sp + 1);
            else
                fmt_name(name, sizeof name, "GC %s", m->gc.v[k].name);
            add_count(s, i, name, m->gc.v[k].n);
        }
    }
}

/* Optimization histograms: a row per bucket. */
static void
fill_hist(cmp *c)
{
    cmp_section *s;
    char name[1200];
    size_t k, j;
    int i;

    s = NULL;
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->nhist; k++)
            for (j = 0; j < m->hist[k].buckets.n; j++) {
                if (s == NULL)
                    s = sec_new(c, "histograms", "Optimization histograms", "Bucket", CMP_COUNT, 1,
                                NULL);
                fmt_name(name, sizeof name, "%s <= %s", m->hist[k].name,
                         m->hist[k].buckets.v[j].name);
                add_count(s, i, name, m->hist[k].buckets.v[j].n);
            }
    }
}

/* Uop execution counts. */
static void
fill_uops(cmp *c)
{
    cmp_section *s;
    size_t k;
    int i;

    s = NULL;
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->uops.n; k++) {
            if (!m->uops.v[k].has_exec)
                continue;
            if (s == NULL)
                s = sec_new(c, "uops", "Uop execution counts", "Uop", CMP_COUNT, 1, NULL);
            add_count(s, i, m->uops.v[k].name, m->uops.v[k].exec);
        }
    }
}

/* Per family (native dumps): the share of its executions that ran a
 * specialized form. */
static void
add_specialized_shares(cmp_section *spec, int i, const m_group *m, const m_list *famexec,
                       const m_list *famspec)
{
    char name[1200];
    size_t k;

    for (k = 0; k < famexec->n; k++) {
        const m_op *base = model_op(m, famexec->v[k].name);
        uint64_t sp = m_list_get(famspec, famexec->v[k].name);
        if (famexec->v[k].n == 0 || (sp == 0 && !(base && base->specializable)))
            continue;
        fmt_name(name, sizeof name, "%s.specialized_share", famexec->v[k].name);
        add_share(spec, i, name, sp, famexec->v[k].n);
    }
}

/* Remember that side i ran `row`'s instruction n times (headline). */
static void
note_rename(cmp *c, int i, const ren_row *row, uint64_t n)
{
    size_t k;

    if (row->kind == REN_INSERTED || n == 0)
        return;
    for (k = 0; k < c->nren; k++)
        if (c->ren[k].row == row)
            break;
    if (k == c->nren) {
        c->ren = cli_xrealloc(c->ren, (c->nren + 1) * sizeof *c->ren);
        c->ren[k].row = row;
        c->ren[k].side = i;
        c->ren[k].n = 0;
        c->nren++;
    }
    c->ren[k].n = cli_sat_add(c->ren[k].n, n);
}

/* Execution counts by meaning: each side's instructions (families when
 * comparing by family) in the units of the version pair's table of
 * renames, so that LOAD_FAST_BORROW counts as LOAD_FAST and RETURN_CONST
 * as LOAD_CONST + RETURN_VALUE. */
static void
fill_meaning(cmp *c)
{
    cmp_section *s;
    char unit[128];
    size_t k;
    int i;

    s = sec_new(c, "meaning", "Execution counts by meaning", "Instruction", CMP_COUNT, 1,
                "Instructions renamed, split or merged between the two versions counted "
                "as one (the table of docs/CLI.md, \"Across versions, by meaning\"): the "
                "changes left are changes in the work. Self: the share of all instructions "
                "executed on that side.");
    s->self_share = 1;
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->ops.n; k++) {
            const m_op *op = &m->ops.v[k];
            const char *name = c->by_family ? op->family : op->name, *u, *e;
            const ren_row *row;
            if (!op->has_exec)
                continue;
            row = side_rename(c, i, name);
            if (row == NULL) {
                add_count(s, i, name, op->exec);
                continue;
            }
            note_rename(c, i, row, op->exec);
            for (u = row->units; *u; u = *e ? e + 1 : e) {
                e = strchr(u, ' ');
                if (e == NULL)
                    e = u + strlen(u);
                fmt_name(unit, sizeof unit, "%.*s", (int)(e - u), u);
                add_count(s, i, unit, op->exec);
            }
        }
    }
}

static void
fill_total(cmp *c)
{
    cmp_section *s = sec_new(c, "total", "Totals", "Figure", CMP_COUNT, 0, NULL);
    int i;

    for (i = 0; i < 2; i++) {
        add_count(s, i, "instructions", c->side[i].m->total_exec);
        add_count(s, i, "files", c->side[i].g->files);
    }
}

static void
fill(cmp *c)
{
    cmp_section *exec = NULL, *fam, *eff, *spec, *specn, *fail, *pairs = NULL;
    spec_secs secs;
    int i;
    size_t k;

    fill_total(c);
    if (c->ren_lo)
        fill_meaning(c);
    if (!c->by_family) {
        exec = sec_new(c, "execution", "Execution counts", "Instruction", CMP_COUNT, 1,
                       "Self: the share of all instructions executed on that side.");
        exec->self_share = 1;
    }
    fam = sec_new(c, "family", "Execution counts by family", "Family", CMP_COUNT, 1,
                  "A family is a base instruction with all its specialized forms. "
                  "Self: the share of all instructions executed on that side.");
    fam->self_share = 1;
    eff = sec_new(c, "effectiveness", "Specialization effectiveness", "Instructions", CMP_SHARE, 0,
                  "Shares of all instructions executed (native dumps only).");
    spec = sec_new(c, "specialization", "Specialization", "Family.figure", CMP_SHARE, 0,
                   "hit, miss, deferred and deopt ratios of hit + miss + executions of the "
                   "base instruction; success ratio of specialization attempts; specialized "
                   "share of the family's executions.");
    specn = sec_new(c, "specialization_counts", "Specialization counts", "Family.counter",
                    CMP_COUNT, 1, NULL);
    fail = sec_new(c, "failure_kinds", "Specialization failure kinds", "Family.kind", CMP_SHARE, 0,
                   "Shares of the family's specialization failures.");
    secs = (spec_secs){spec, specn, fail};
    if (c->side[0].m->has_pairs || c->side[1].m->has_pairs)
        pairs = sec_new(c, "pairs", c->by_family ? "Pair counts by family" : "Pair counts", "Pair",
                        CMP_COUNT, 1, NULL);

    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        int native = c->side[i].g->source == AGG_NATIVE;
        uint64_t basic = 0, notspec = 0, hits = 0, misses = 0;
        m_list famexec = {0}, famspec = {0};

        for (k = 0; k < m->ops.n; k++) {
            const m_op *op = &m->ops.v[k];
            if (op->has_exec) {
                if (exec)
                    add_count(exec, i, op->name, op->exec);
                add_count(fam, i, op->family, op->exec);
                m_list_add(&famexec, op->family, strlen(op->family), op->exec);
                if (native && model_is_specialized(op)) {
                    uint64_t ms =
                        op->spec[PSF_SPEC_MISS] < op->exec ? op->spec[PSF_SPEC_MISS] : op->exec;
                    m_list_add(&famspec, op->family, strlen(op->family), op->exec);
                    hits += op->exec - ms;
                    misses += ms;
                }
                else if (native && op->specializable) {
                    notspec += op->exec;
                }
                else if (native) {
                    basic += op->exec;
                }
            }
            if (op->specializable && op->has_spec)
                add_op_spec(&secs, i, op);
            if (pairs)
                add_op_pairs(c, pairs, i, op);
        }
        if (native && m->total_exec) {
            add_share(eff, i, "basic", basic, m->total_exec);
            add_share(eff, i, "not_specialized", notspec, m->total_exec);
            add_share(eff, i, "specialized_hits", hits, m->total_exec);
            add_share(eff, i, "specialized_misses", misses, m->total_exec);
        }
        if (native)
            add_specialized_shares(spec, i, m, &famexec, &famspec);
        m_list_free(&famexec);
        m_list_free(&famspec);
    }

    fill_own(c);
    fill_sitefx(c);
    fill_list(c, "calls", "Call stats", "Counter", 1, offsetof(m_group, calls));
    fill_list(c, "own_calls", "Calls (collector's frame events)", "Event", 1,
              offsetof(m_group, own_calls));
    fill_list(c, "objects", "Object stats", "Counter", 1, offsetof(m_group, objects));
    fill_gc(c);
    fill_list(c, "optimization", "Optimization (Tier 2) counters", "Counter", 1,
              offsetof(m_group, opt));
    fill_hist(c);
    fill_uops(c);
    fill_list(c, "unsupported_opcodes", "Unsupported opcodes", "Opcode", 1,
              offsetof(m_group, unsupported));
    fill_list(c, "errors_in_opcode", "Errors in uops", "Uop", 1, offsetof(m_group, errors));
    fill_list(c, "jit", "JIT memory", "Counter", 0, offsetof(m_group, jit));
    fill_list(c, "free_threading", "Free-threading", "Counter", 1, offsetof(m_group, ft));
    fill_list(c, "rare_events", "Rare events", "Event", 1, offsetof(m_group, rare));
    fill_list(c, "rare_watchers", "Rare events (watchers, partial)", "Event", 0,
              offsetof(m_group, own_rare));
    fill_list(c, "other", "Other counters", "Key", 1, offsetof(m_group, other));
}

/* Mark instructions (and families) that one side's version does not have. */
static void
mark_only(cmp *c, cmp_section *s)
{
    int bm = c->side[0].g->minor, hm = c->side[1].g->minor;
    size_t i;

    if (bm == 0 || hm == 0 || bm == hm)
        return;
    for (i = 0; i < s->n; i++) {
        int inb = psf_tab_family(bm, s->rows[i].name) != NULL;
        int inh = psf_tab_family(hm, s->rows[i].name) != NULL;
        if (inb && !inh)
            s->rows[i].only = CMP_ONLY_BASE;
        else if (inh && !inb)
            s->rows[i].only = CMP_ONLY_HEAD;
    }
}

/* ---- warnings ----------------------------------------------------------- */

static void warn(cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
warn(cmp *c, const char *fmt, ...)
{
    va_list ap;
    char buf[2048];

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->warn = cli_xrealloc(c->warn, (c->nwarn + 1) * sizeof *c->warn);
    c->warn[c->nwarn++] = cli_xstrdup(buf);
}

static int
strs_same(const agg_strs *a, const agg_strs *b)
{
    size_t i, j;

    if (a->n != b->n)
        return 0;
    for (i = 0; i < a->n; i++) {
        for (j = 0; j < b->n; j++)
            if (strcmp(a->v[i].text, b->v[j].text) == 0)
                break;
        if (j == b->n)
            return 0;
    }
    return 1;
}

static void
strs_text(const agg_strs *s, char *buf, size_t size)
{
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; i < s->n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", s->v[i].text);
}

/* "FOR_ITER, RESUME": the families a census alongside counting left out. */
static void
excluded_text(const m_group *m, char *buf, size_t size)
{
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; i < m->census_excluded.n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                                 m->census_excluded.v[i].name);
}

/* n of text in s, 0 if absent. */
static uint64_t
strs_count(const agg_strs *s, const char *text)
{
    size_t i;

    for (i = 0; s && i < s->n; i++)
        if (strcmp(s->v[i].text, text) == 0)
            return s->v[i].n;
    return 0;
}

/* A whole-suite comparison (labels merged) whose sides hold different
 * labels, or the same labels in different proportions of dumps (pyperf
 * writes a dump per series: a benchmark with more series weighs more),
 * compares a mix as much as the code: say so, naming a few labels. */
static void
label_mix_warning(cmp *c)
{
    const agg_strs *l[2];
    uint64_t tot[2] = {0, 0};
    char names[512];
    size_t used = 0, odd = 0, i;
    int k;

    for (k = 0; k < 2; k++) {
        if (c->side[k].g->label != NULL)
            return; /* grouped by label: one label a side */
        l[k] = agg_hdr_vals(c->side[k].g, PSF_H_LABEL);
        for (i = 0; l[k] && i < l[k]->n; i++)
            tot[k] += l[k]->v[i].n;
    }
    if (!tot[0] || !tot[1])
        return;
    names[0] = '\0';
    for (k = 0; k < 2; k++)
        for (i = 0; l[k] && i < l[k]->n; i++) {
            const char *t = l[k]->v[i].text;
            uint64_t nb = strs_count(l[0], t), nh = strs_count(l[1], t);
            /* Each label once: from base, or from head if base lacks it. */
            if (k == 1 && nb)
                continue;
            /* nb / tot[0] == nh / tot[1], in integers (counts of files). */
            if (nb && nh && (double)nb * (double)tot[1] == (double)nh * (double)tot[0])
                continue;
            if (odd++ < 3 && used < sizeof names) {
                char *d = text_display(t);
                used += (size_t)snprintf(names + used, sizeof names - used,
                                         "%s'%s' (%llu and %llu dumps)", used ? ", " : "", d,
                                         (unsigned long long)nb, (unsigned long long)nh);
                free(d);
            }
        }
    if (odd == 0)
        return;
    warn(c,
         "the label mix differs (%zu labels with different shares of the dumps: %s%s): the "
         "whole comparison weighs each label by what ran of it on each side; compare each "
         "label's dumps on their own, or weigh labels equally (summarize --by-label "
         "--equal-weight on each side, then compare the two summaries)",
         odd, names, odd > 3 ? ", ..." : "");
}

/* benchmark.calls of a group (0 without). */
static uint64_t
group_calls(const agg_group *g)
{
    size_t slot = ktab_find(&g->keys, PSF_KEY_BENCH_CALLS, strlen(PSF_KEY_BENCH_CALLS));

    return slot == SIZE_MAX || slot >= g->keys.n ? 0 : g->val[slot];
}

void
cmp_warn_calls(cmp *c, const agg *lb, const agg *lh)
{
    char names[512];
    size_t i, j, used = 0, odd = 0, both = 0;
    double lo = INFINITY, hi = 0;

    names[0] = '\0';
    for (i = 0; i < lb->ng; i++) {
        const agg_group *b = lb->g[i];
        uint64_t nb = group_calls(b), nh = 0;
        if (b->label == NULL || nb == 0)
            continue;
        for (j = 0; j < lh->ng && nh == 0; j++)
            if (lh->g[j]->label && strcmp(lh->g[j]->label, b->label) == 0)
                nh = group_calls(lh->g[j]);
        if (nh == 0)
            continue;
        both++;
        lo = fmin(lo, (double)nh / (double)nb);
        hi = fmax(hi, (double)nh / (double)nb);
        if (nb != nh && odd++ < 3 && used < sizeof names) {
            char *d = text_display(b->label);
            used += (size_t)snprintf(names + used, sizeof names - used,
                                     "%s'%s' %llu and %llu calls", used ? ", " : "", d,
                                     (unsigned long long)nb, (unsigned long long)nh);
            free(d);
        }
    }
    /* All calls scaled alike: the mix is the same. */
    if (both < 2 || hi <= lo * (1 + 1e-9))
        return;
    warn(c,
         "the benchmarks ran different numbers of calls on the two sides (pyperf calibrates "
         "its loops per interpreter: %s%s): the whole comparison weighs each benchmark by its "
         "calls on each side; compare benchmark against benchmark, per call, with --by-label",
         names, odd > 3 ? ", ..." : "");
}

static const char *const build_keys[] = {
    PSF_H_PY_SYS_VERSION,    PSF_H_PY_CONFIG_ARGS, PSF_H_PY_PYSTATS_BUILD,
    PSF_H_PY_FREE_THREADING, PSF_H_PY_JIT,
};

static void
warnings(cmp *c)
{
    const agg_group *b = c->side[0].g, *h = c->side[1].g;
    char tb[256], th[256];
    size_t i;
    int k;

    for (k = 0; k < 2; k++) {
        const cmp_side *sd = &c->side[k];
        /* A benchmark of a suite (--by-label): the other groups are the
         * other benchmarks. */
        if (sd->s->ng > 1 && !c->in_suite) {
            cmp_side_title(c, k, tb, sizeof tb);
            warn(c,
                 "%s mixes %zu kinds of dumps; compared: %s (%llu files), the others are left out",
                 sd->label, sd->s->ng, tb, (unsigned long long)sd->g->files);
        }
        if (sd->problems)
            warn(c, "%s had %llu input problems (run `pystats summarize` on it for details)",
                 sd->label, (unsigned long long)sd->problems);
        if (sd->g->minor == 0)
            warn(c, "the Python version of %s is unknown", sd->label);
        if (agg_hdr_sum(sd->g, PSF_H_LEFTOVER_BOUND))
            warn(
                c,
                "%s: at most %llu of %llu instructions uncounted (a known leftover of SIGTERM "
                "dumps, " PSF_H_LEFTOVER_BOUND ")",
                sd->label, (unsigned long long)agg_hdr_sum(sd->g, PSF_H_LEFTOVER_BOUND),
                (unsigned long long)(sd->m->total_exec + agg_hdr_sum(sd->g, PSF_H_LEFTOVER_BOUND)));
    }
    if (c->by_family) {
        cmp_side_title(c, 0, tb, sizeof tb);
        cmp_side_title(c, 1, th, sizeof th);
        warn(c,
             "base and head count different things (%s; %s): the pystats collector counts "
             "base instructions, a native dump counts each specialized form, so they are "
             "compared by family only",
             tb, th);
    }
    if (b->minor && h->minor && b->minor != h->minor)
        warn(c,
             "different Python versions (3.%d and 3.%d): instruction sets differ; "
             "instructions of one version only are marked, and families are compared as "
             "units%s",
             b->minor, h->minor,
             c->ren_lo ? "; instructions renamed, split or merged between them are counted "
                         "as one in section meaning"
                       : "");
    if (!strs_same(&b->collectors, &h->collectors)) {
        strs_text(&b->collectors, tb, sizeof tb);
        strs_text(&h->collectors, th, sizeof th);
        warn(c, "different collectors (base: %s; head: %s)", tb[0] ? tb : "unknown",
             th[0] ? th : "unknown");
    }
    for (i = 0; i < sizeof build_keys / sizeof build_keys[0]; i++) {
        const agg_strs *vb = agg_hdr_vals(b, build_keys[i]), *vh = agg_hdr_vals(h, build_keys[i]);
        if (vb && vh && !strs_same(vb, vh)) {
            strs_text(vb, tb, sizeof tb);
            strs_text(vh, th, sizeof th);
            warn(c, "different builds: %s is '%s' in base and '%s' in head", build_keys[i], tb, th);
        }
    }
    label_mix_warning(c);
    if (c->side[0].m->has_pairs != c->side[1].m->has_pairs)
        warn(c, "only %s has pair counts", c->side[0].m->has_pairs ? "base" : "head");
    if (c->side[0].m->has_census && c->side[1].m->has_census) {
        excluded_text(c->side[0].m, tb, sizeof tb);
        excluded_text(c->side[1].m, th, sizeof th);
        if (strcmp(tb, th) != 0)
            warn(c,
                 "the censuses leave out different families (base: %s; head: %s): a census "
                 "taken alongside counting (meta.census.scope : count) leaves out the families "
                 "its events instrument, so their rows are not like for like",
                 tb[0] ? tb : "none", th[0] ? th : "none");
    }
}

/* ---- the comparison ----------------------------------------------------- */

int
cmp_group_matches(const agg_group *a, const agg_group *b)
{
    return a->source == b->source && a->minor == b->minor && strcmp(a->counts, b->counts) == 0;
}

/* The version pair whose renames apply (adjacent versions only). */
static void
rename_pair(cmp *c)
{
    int bm = c->side[0].g->minor, hm = c->side[1].g->minor;
    int lo = bm < hm ? bm : hm;

    if (bm && hm && (bm - hm == 1 || hm - bm == 1) && ren_has_pair(lo)) {
        c->ren_lo = lo;
        c->ren_old = bm < hm ? 0 : 1;
    }
}

void
cmp_build_groups(cmp *c, const summary *base, size_t gb, char **base_in, size_t nbase,
                 const summary *head, size_t gh, char **head_in, size_t nhead, double min_change,
                 int top, int in_suite)
{
    const summary *sides[2] = {base, head};
    size_t i, j, k, gi[2] = {gb, gh};

    memset(c, 0, sizeof *c);
    c->sec = cli_xcalloc(CMP_MAX_SECTIONS, sizeof *c->sec);
    c->min_change = min_change;
    c->top = top;
    c->in_suite = in_suite;
    c->side[0].label = "base";
    c->side[1].label = "head";
    c->side[0].inputs = base_in;
    c->side[0].ninputs = nbase;
    c->side[1].inputs = head_in;
    c->side[1].ninputs = nhead;
    for (k = 0; k < 2; k++) {
        c->side[k].s = sides[k];
        c->side[k].sg = &sides[k]->g[gi[k]];
        c->side[k].g = c->side[k].sg->meta;
        c->side[k].m = &c->side[k].sg->m;
        c->side[k].problems = sides[k]->nproblems;
    }
    c->by_family = c->side[0].g->source != c->side[1].g->source ||
                   strcmp(c->side[0].g->counts, c->side[1].g->counts) != 0;
    rename_pair(c);
    fill(c);
    for (i = 0; i < c->nsec; i++) {
        if (strcmp(c->sec[i].name, "execution") == 0 || strcmp(c->sec[i].name, "family") == 0 ||
            strcmp(c->sec[i].name, "meaning") == 0 ||
            strcmp(c->sec[i].name, "site_executions_forms") == 0)
            mark_only(c, &c->sec[i]);
        sec_finish(c, &c->sec[i]);
    }
    /* Sections with no rows at all are left out. */
    for (i = j = 0; i < c->nsec; i++) {
        if (c->sec[i].n == 0) {
            free(c->sec[i].rows);
            continue;
        }
        c->sec[j++] = c->sec[i];
    }
    c->nsec = j;
    warnings(c);
}

void
cmp_build(cmp *c, const summary *base, char **base_in, size_t nbase, const summary *head,
          char **head_in, size_t nhead, double min_change, int top)
{
    size_t i, j, gi[2] = {0, 0};
    int done = 0;

    for (i = 0; i < base->ng && !done; i++)
        for (j = 0; j < head->ng && !done; j++)
            if (cmp_group_matches(base->g[i].meta, head->g[j].meta)) {
                gi[0] = i;
                gi[1] = j;
                done = 1;
            }
    cmp_build_groups(c, base, gi[0], base_in, nbase, head, gi[1], head_in, nhead, min_change, top,
                     0);
}

void
cmp_free(cmp *c)
{
    size_t i, j;

    for (i = 0; i < c->nsec; i++) {
        for (j = 0; j < c->sec[i].n; j++)
            free(c->sec[i].rows[j].name);
        free(c->sec[i].rows);
    }
    free(c->sec);
    free(c->ren);
    for (i = 0; i < c->nwarn; i++)
        free(c->warn[i]);
    free(c->warn);
    memset(c, 0, sizeof *c);
}

const cmp_section *
cmp_find_section(const cmp *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->nsec; i++)
        if (strcmp(c->sec[i].name, name) == 0)
            return &c->sec[i];
    return NULL;
}

const cmp_row *
cmp_find_row(const cmp_section *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->rows[i].name, name) == 0)
            return &s->rows[i];
    return NULL;
}

void
cmp_side_title(const cmp *c, int i, char *buf, size_t size)
{
    snprintf(buf, size, "%s", c->side[i].sg->title);
}
