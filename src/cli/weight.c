/* weight.c: --equal-weight: each label's counts scaled to the same total
 * before they are added, so that one long benchmark does not drown the
 * others in a suite's totals. */
#include "weight.h"

#include "cli.h"
#include "../format/psf_key.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sum of a group's execution counts (the weight of a label). */
static uint64_t
group_exec(const agg_group *g)
{
    uint64_t n = 0;
    size_t i;

    for (i = 0; i < g->keys.n; i++) {
        if (g->key[i].kind == PSF_K_OP_EXEC)
            n = cli_sat_add(n, g->val[i]);
    }
    return n;
}

/* Sum of a group's summed counters (no flags, no maxima). */
static long double
group_sum(const agg_group *g)
{
    long double n = 0;
    size_t i;

    for (i = 0; i < g->keys.n; i++)
        if (!(g->flag[i] & (AGG_F_FLAG | AGG_F_MAX)))
            n += (long double)g->val[i] + 0.5L; /* each rounded up at most */
    return n;
}

/* Add s into d with every counter multiplied by f (rounded; flags as is). */
static void
merge_scaled(agg_group *d, const agg_group *s, long double f)
{
    size_t i, j;

    for (i = 0; i < s->keys.n; i++) {
        size_t slot = agg_slot(d, ktab_key(&s->keys, i), ktab_len(&s->keys, i));
        int is_flag = (s->flag[i] & AGG_F_FLAG) != 0, is_max = (s->flag[i] & AGG_F_MAX) != 0;
        long double v =
            is_flag || is_max ? (long double)s->val[i] : (long double)s->val[i] * f + 0.5L;
        agg_add(d, slot, v >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)v,
                is_flag  ? AGG_ADD_FLAG
                : is_max ? AGG_ADD_MAX
                         : AGG_ADD_SUM);
        d->flag[slot] |= s->flag[i];
    }
    d->files += s->files;
    for (i = 0; i < AGG_FMT_COUNT; i++)
        d->fmt[i] += s->fmt[i];
    agg_strs_merge(&d->how, &s->how);
    agg_strs_merge(&d->collectors, &s->collectors);
    for (i = 0; i < s->nhdr; i++)
        for (j = 0; j < s->hdr[i].vals.n; j++)
            agg_hdr_add(d, s->hdr[i].key, s->hdr[i].vals.v[j].text, s->hdr[i].vals.v[j].n);
    agg_time(d, s->time_start, s->time_end);
}

/* The largest label total of a's groups of g's kind. */
static uint64_t
target_of(const agg *a, const uint64_t *total, const agg_group *g)
{
    uint64_t target = 0;
    size_t j;

    for (j = 0; j < a->ng; j++)
        if (agg_same_kind(a->g[j], g) && total[j] > target)
            target = total[j];
    return target;
}

int
weight_equal_labels(agg *a)
{
    agg out;
    uint64_t *total = cli_xcalloc(a->ng, sizeof *total);
    size_t i, j;

    for (i = 0; i < a->ng; i++)
        total[i] = group_exec(a->g[i]);
    /* Scaling up can take a kind's counters past 2**64-1 together. */
    for (i = 0; i < a->ng; i++) {
        long double sum = 0;
        uint64_t target = target_of(a, total, a->g[i]);
        for (j = 0; j < a->ng; j++)
            if (agg_same_kind(a->g[j], a->g[i]))
                sum += group_sum(a->g[j]) *
                       (total[j] ? (long double)target / (long double)total[j] : 1.0L);
        if (sum >= 18446744073709551615.0L) {
            fputs("pystats: error: --equal-weight: scaled to the largest label's executions, "
                  "the counters of labels",
                  stderr);
            for (j = 0; j < a->ng; j++)
                if (agg_same_kind(a->g[j], a->g[i])) {
                    fputc(' ', stderr);
                    cli_fput_esc(stderr, a->g[j]->label ? a->g[j]->label : "(none)");
                }
            fputs(" would add up past 2**64-1; summarize them without --equal-weight\n", stderr);
            free(total);
            return -1;
        }
    }
    agg_init(&out);
    for (i = 0; i < a->ng; i++) {
        const agg_group *s = a->g[i];
        uint64_t target = 0, labels = 0;
        agg_group *d;

        /* The target is the largest label total of this kind of dump, so
         * that no label is rounded toward zero. */
        for (j = 0; j < a->ng; j++)
            if (agg_same_kind(a->g[j], s)) {
                labels++;
                if (total[j] > target)
                    target = total[j];
            }
        d = agg_group_get(&out, s->source, s->minor, s->counts);
        d->weight_labels = labels;
        d->weight_total = target;
        merge_scaled(d, s, total[i] ? (long double)target / (long double)total[i] : 1.0L);
    }
    /* The problems and notes stay; only the groups are swapped (and the
     * old ones freed with out). */
    {
        agg_group **g = a->g;
        size_t ng = a->ng, gcap = a->gcap;

        a->g = out.g;
        a->ng = out.ng;
        a->gcap = out.gcap;
        out.g = g;
        out.ng = ng;
        out.gcap = gcap;
    }
    agg_free(&out);
    free(total);
    return 0;
}
