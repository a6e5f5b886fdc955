/* compare_rows.c: the sections and rows of a comparison (compare.h):
 * adding each side's figures to a row, and a section's figures once
 * both sides are in (changes, per million, weights, folding, order). */
#include "compare_int.h"

#include "cli.h"
#include "ktab.h"
#include "renames.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cmp_section *
cmp_sec_new(cmp *c, const char *name, const char *title, const char *col, int kind, int normalized,
            const char *note)
{
    cmp_section *s;
    ktab *idx = cli_xmalloc(sizeof *idx);

    /* Never reallocated: callers keep pointers to several sections. */
    if (c->nsec == CMP_MAX_SECTIONS)
        cli_bug("too many comparison sections");
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
void
cmp_add_calls(cmp_section *s, int side, const char *name, uint64_t n)
{
    cmp_row *r = row_get(s, name, strlen(name));

    assert(side == 0 || side == 1);
    if (side == 0)
        r->base_calls = cli_sat_add(r->base_calls, n);
    else
        r->head_calls = cli_sat_add(r->head_calls, n);
}

void
cmp_add_count(cmp_section *s, int side, const char *name, uint64_t n)
{
    cmp_row *r = row_get(s, name, strlen(name));

    assert(side == 0 || side == 1);
    if (side == 0) {
        r->has_base = 1;
        r->base_n = cli_sat_add(r->base_n, n);
    }
    else {
        r->has_head = 1;
        r->head_n = cli_sat_add(r->head_n, n);
    }
}

void
cmp_add_share(cmp_section *s, int side, const char *name, uint64_t num, uint64_t den)
{
    cmp_row *r = row_get(s, name, strlen(name));

    assert(side == 0 || side == 1);
    if (side == 0) {
        r->base_num = cli_sat_add(r->base_num, num);
        r->base_den = cli_sat_add(r->base_den, den);
    }
    else {
        r->head_num = cli_sat_add(r->head_num, num);
        r->head_den = cli_sat_add(r->head_den, den);
    }
}

void
cmp_fmt_name(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

/* Side i's name of instruction or family `name` in the pair's units
 * (renames.h): its row, or NULL (itself). */
const ren_row *
cmp_side_rename(const cmp *c, int i, const char *name)
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

/* compare.h's promises of a finished section: rows in order (unfolded
 * first, by weight), weights in 0..1 adding up to 1 (0 when nothing
 * changed), nfolded the folded rows. */
static void
check_finished(const cmp_section *s, double total)
{
#ifndef NDEBUG
    double sum = 0;
    size_t i, folded = 0;

    for (i = 0; i < s->n; i++) {
        assert(i == 0 || row_cmp(&s->rows[i - 1], &s->rows[i]) <= 0);
        assert(s->rows[i].weight >= 0 && s->rows[i].weight <= 1);
        sum += s->rows[i].weight;
        folded += s->rows[i].folded != 0;
    }
    assert(folded == s->nfolded);
    assert(total > 0 ? fabs(sum - 1) < 1e-6 : sum == 0);
#else
    (void)s;
    (void)total;
#endif
}

void
cmp_sec_finish(cmp *c, cmp_section *s)
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
    check_finished(s, total);
}
