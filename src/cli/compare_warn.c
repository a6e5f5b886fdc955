/* compare_warn.c: the comparison's warnings: what makes the two sides
 * not like for like (versions, collectors, builds, label mixes,
 * benchmark calls, censuses, input problems). */
#include "compare_int.h"

#include "cli.h"
#include "text.h"
#include "../format/psf_keys.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The same for the values of header key, decoded for display where
 * they are free text in the dump's encoding (a build string's ':'
 * and '[' are %3A and %5B there). */
static void
hdr_text(const char *key, const agg_strs *s, char *buf, size_t size)
{
    size_t i, used = 0;
    int free_text = text_header_is_free(key, strlen(key));

    buf[0] = '\0';
    for (i = 0; i < s->n && used < size; i++) {
        char *t = free_text ? text_display(s->v[i].text) : NULL;
        used +=
            (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", t ? t : s->v[i].text);
        free(t);
    }
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

void
cmp_warnings(cmp *c)
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
        /* Another version is another build: the version's warning says
         * it, and the Build row shows both strings. */
        if (strcmp(build_keys[i], PSF_H_PY_SYS_VERSION) == 0 && b->minor && h->minor &&
            b->minor != h->minor)
            continue;
        if (vb && vh && !strs_same(vb, vh)) {
            hdr_text(build_keys[i], vb, tb, sizeof tb);
            hdr_text(build_keys[i], vh, th, sizeof th);
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
