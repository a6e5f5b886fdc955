/* summary.c: the summary every report renders, built once. */
#include "summary.h"

#include "cli.h"
#include "../format/psf_keys.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
summary_hdr_is_self_description(const char *key)
{
    return strcmp(key, AGG_HDR_CPY_SPECIALIZED) == 0 || strcmp(key, AGG_HDR_CPY_INPUT) == 0 ||
           strncmp(key, AGG_HDR_CPY_DEFINES "[", strlen(AGG_HDR_CPY_DEFINES) + 1) == 0 ||
           strncmp(key, AGG_HDR_CPY_STATS_DEFINES "[", strlen(AGG_HDR_CPY_STATS_DEFINES) + 1) == 0;
}

/* How many of g's files say they come from a free-threaded build. */
static uint64_t
free_threaded_files(const agg_group *g)
{
    size_t i, j;
    for (i = 0; i < g->nhdr; i++)
        if (strcmp(g->hdr[i].key, PSF_H_PY_FREE_THREADING) == 0)
            for (j = 0; j < g->hdr[i].vals.n; j++)
                if (strcmp(g->hdr[i].vals.v[j].text, "1") == 0)
                    return g->hdr[i].vals.v[j].n;
    return 0;
}

void
summary_group_title(const agg_group *g, char *buf, size_t size)
{
    char ver[64];
    uint64_t ft = free_threaded_files(g);

    /* A free-threaded build as CPython names its interpreter (3.14t);
     * both kinds in one group (an error of pystats check) as both. */
    if (g->minor)
        snprintf(ver, sizeof ver, "3.%d%s", g->minor,
                 ft == 0          ? ""
                 : ft >= g->files ? "t"
                                  : " and its free-threaded build");
    else
        snprintf(ver, sizeof ver, "(version unknown)");
    if (g->source == AGG_OWN)
        snprintf(buf, size, "pystats collector dumps, Python %s, counting %s", ver, g->counts);
    else
        snprintf(buf, size, "CPython %s native dumps", ver);
    if (g->label) {
        size_t n = strlen(buf);
        char *l = text_display(g->label);
        snprintf(buf + n, size - n, ", label %s", *l ? l : "(none)");
        free(l);
    }
}

const char *
summary_mix_warning(const agg *a, char *buf, size_t size)
{
    size_t i, j, used = 0, nfmt = 0, nkinds = 0;
    uint64_t fmt[AGG_FMT_COUNT] = {0};

    for (i = 0; i < a->ng; i++) {
        size_t k;
        for (k = 0; k < AGG_FMT_COUNT; k++)
            fmt[k] += a->g[i]->fmt[k];
        for (j = 0; j < i && !agg_same_kind(a->g[j], a->g[i]); j++)
            ;
        nkinds += j == i; /* groups by label are not kinds */
    }
    for (i = 0; i < AGG_FMT_COUNT; i++)
        nfmt += fmt[i] != 0;
    if (nkinds <= 1 && nfmt <= 1)
        return NULL;
    buf[0] = '\0';
    if (nkinds > 1) {
        used += (size_t)snprintf(buf + used, size - used, "the inputs mix %zu kinds of dumps (",
                                 nkinds);
        int first = 1;
        for (i = 0; i < a->ng && used < size; i++) {
            agg_group kind;
            uint64_t files = 0;
            char t[128];
            for (j = 0; j < i && !agg_same_kind(a->g[j], a->g[i]); j++)
                ;
            if (j < i)
                continue;
            for (j = i; j < a->ng; j++)
                if (agg_same_kind(a->g[j], a->g[i]))
                    files += a->g[j]->files;
            kind = *a->g[i];
            kind.label = NULL;
            summary_group_title(&kind, t, sizeof t);
            used += (size_t)snprintf(buf + used, size - used, "%s%s: %llu files", first ? "" : "; ",
                                     t, (unsigned long long)files);
            first = 0;
        }
        if (used < size)
            used += (size_t)snprintf(buf + used, size - used,
                                     "); each is summarized on its own, never added together");
    }
    if (nfmt > 1 && used < size) {
        used += (size_t)snprintf(buf + used, size - used, "%sthe inputs mix formats (",
                                 used ? "; " : "");
        for (i = 0; i < AGG_FMT_COUNT && used < size; i++)
            if (fmt[i])
                used += (size_t)snprintf(buf + used, size - used, "%s %llu ", agg_format_name[i],
                                         (unsigned long long)fmt[i]);
        if (used < size)
            snprintf(buf + used, size - used, ")");
    }
    return buf;
}

void
summary_texts_of(summary_texts *t, const agg_strs *s)
{
    size_t i;

    t->n = s->n;
    t->v = cli_xcalloc(s->n ? s->n : 1, sizeof *t->v);
    for (i = 0; i < s->n; i++) {
        t->v[i].text = s->v[i].text;
        t->v[i].n = s->v[i].n;
    }
}

static void
hdr_of(summary_hdr *h, const char *key, const agg_strs *vals)
{
    h->key = key;
    h->free_text = text_header_is_free(key, strlen(key));
    h->self = summary_hdr_is_self_description(key);
    summary_texts_of(&h->vals, vals);
}

/* The headers of g, and apart the CPython run's metadata of a published
 * summary (AGG_HDR_CPY_METADATA, the key's member only). */
static void
meta_headers(summary_meta *m, const agg_group *g)
{
    size_t i, plen = strlen(AGG_HDR_CPY_METADATA);

    m->hdr = cli_xcalloc(g->nhdr ? g->nhdr : 1, sizeof *m->hdr);
    m->run = cli_xcalloc(g->nhdr ? g->nhdr : 1, sizeof *m->run);
    for (i = 0; i < g->nhdr; i++) {
        hdr_of(&m->hdr[m->nhdr++], g->hdr[i].key, &g->hdr[i].vals);
        if (strncmp(g->hdr[i].key, AGG_HDR_CPY_METADATA, plen) == 0)
            hdr_of(&m->run[m->nrun++], g->hdr[i].key + plen, &g->hdr[i].vals);
    }
}

static void
meta_build(summary_meta *m, const agg_group *g)
{
    size_t i, n = 0;

    m->files = g->files;
    m->source = agg_source_name[g->source];
    m->minor = g->minor;
    m->counts = g->counts;
    m->label = g->label;
    m->weight_labels = g->weight_labels;
    m->weight_total = g->weight_total;
    m->formats.v = cli_xcalloc(AGG_FMT_COUNT, sizeof *m->formats.v);
    for (i = 0; i < AGG_FMT_COUNT; i++)
        if (g->fmt[i]) {
            m->formats.v[n].text = agg_format_name[i];
            m->formats.v[n++].n = g->fmt[i];
        }
    m->formats.n = n;
    summary_texts_of(&m->how, &g->how);
    summary_texts_of(&m->collectors, &g->collectors);
    meta_headers(m, g);
    m->leftover_bound = agg_hdr_sum(g, PSF_H_LEFTOVER_BOUND);
    m->time_start = g->time_start;
    m->time_end = g->time_end;
}

static void
hdrs_free(summary_hdr *h, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(h[i].vals.v);
    free(h);
}

static void
meta_free(summary_meta *m)
{
    free(m->formats.v);
    free(m->how.v);
    free(m->collectors.v);
    hdrs_free(m->hdr, m->nhdr);
    hdrs_free(m->run, m->nrun);
}

void
summary_build(summary *s, const agg *a, const summary_opts *opt)
{
    size_t i;

    memset(s, 0, sizeof *s);
    s->opt = *opt;
    s->trust = opt->trust;
    s->verdict = opt->verdict;
    s->findings = opt->findings;
    s->nfindings = opt->nfindings;
    s->files = agg_files(a);
    for (i = 0; i < AGG_P_COUNT; i++) {
        s->problems[i].text = agg_problem_name[i];
        s->problems[i].n = a->problems[i];
        s->nproblems += a->problems[i];
    }
    s->notes = cli_xcalloc(a->nnotes ? a->nnotes : 1, sizeof *s->notes);
    for (i = 0; i < a->nnotes; i++) {
        s->notes[i].kind = agg_problem_name[a->notes[i].kind];
        s->notes[i].text = a->notes[i].text;
    }
    s->nnotes = a->nnotes;
    s->mix = summary_mix_warning(a, s->mix_buf, sizeof s->mix_buf);
    if (a->ng) {
        s->weight_labels = a->g[0]->weight_labels;
        s->weight_total = a->g[0]->weight_total;
    }
    s->ng = a->ng;
    s->g = cli_xcalloc(a->ng ? a->ng : 1, sizeof *s->g);
    for (i = 0; i < a->ng; i++) {
        s->g[i].meta = a->g[i];
        meta_build(&s->g[i].info, a->g[i]);
        model_build(&s->g[i].m, a->g[i]);
        model_filter_code(&s->g[i].m, &opt->filter);
        summary_group_title(a->g[i], s->g[i].title, sizeof s->g[i].title);
    }
}

void
summary_free(summary *s)
{
    size_t i;

    for (i = 0; i < s->ng; i++) {
        meta_free(&s->g[i].info);
        model_free(&s->g[i].m);
    }
    free(s->g);
    free(s->notes);
    memset(s, 0, sizeof *s);
}

size_t
summary_find(const summary *s, const agg_group *g)
{
    size_t i;

    for (i = 0; i < s->ng && s->g[i].meta != g; i++)
        ;
    return i;
}
