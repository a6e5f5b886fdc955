/* compare_build.c: building the comparison of two summaries
 * (compare.h): the groups compared, what the reports say of each side,
 * then the sections (compare_fill.c) and the warnings (compare_warn.c). */
#include "compare_int.h"

#include "cli.h"
#include "renames.h"
#include "summary.h"
#include "../format/psf_keys.h"

#include <stdlib.h>
#include <string.h>

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
    size_t k, gi[2] = {gb, gh};

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
        c->side[k].about = &c->side[k].sg->info;
    }
    c->by_family = c->side[0].g->source != c->side[1].g->source ||
                   strcmp(c->side[0].g->counts, c->side[1].g->counts) != 0;
    rename_pair(c);
    cmp_fill(c);
    cmp_warnings(c);
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
