/* agg.c: groups of summed counters (invariants in agg.h). */
#include "agg.h"
#include "../format/psf_keys.h"

#include "cli.h"
#include "../format/psf_key.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const agg_source_name[AGG_SOURCE_COUNT] = {"native", "pystats"};
const char *const agg_format_name[AGG_FMT_COUNT] = {
    "native-text",
    "pystats-text",
    "cpython-json",
    "summary-json",
};
const char *const agg_problem_name[AGG_P_COUNT] = {
    "unreadable", "empty", "binary", "truncated", "unparsable", "overflow", "unsupported",
};

void
agg_strs_add(agg_strs *s, const char *text, size_t len, uint64_t n)
{
    size_t i;

    assert(s->n <= AGG_STR_MAX); /* agg.h: bounded, the rest "(other)" */
    for (i = 0; i < s->n; i++)
        if (strlen(s->v[i].text) == len && memcmp(s->v[i].text, text, len) == 0) {
            s->v[i].n += n;
            return;
        }
    if (s->n == AGG_STR_MAX) {
        text = "(other)";
        len = 7;
        for (i = 0; i < s->n; i++)
            if (strcmp(s->v[i].text, text) == 0) {
                s->v[i].n += n;
                return;
            }
        /* Replace nothing: the last slot becomes "(other)" below. */
        s->v[s->n - 1].n += n;
        free(s->v[s->n - 1].text);
        s->v[s->n - 1].text = cli_xstrdup(text);
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4;
        s->v = cli_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n].text = cli_xstrndup(text, len);
    s->v[s->n].n = n;
    s->n++;
}

void
agg_strs_free(agg_strs *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        free(s->v[i].text);
    free(s->v);
    memset(s, 0, sizeof *s);
}

void
agg_init(agg *a)
{
    memset(a, 0, sizeof *a);
}

static void
group_free(agg_group *g)
{
    size_t i;

    free(g->counts);
    ktab_free(&g->keys);
    free(g->val);
    free(g->key);
    free(g->flag);
    agg_strs_free(&g->how);
    agg_strs_free(&g->collectors);
    for (i = 0; i < g->nhdr; i++) {
        free(g->hdr[i].key);
        agg_strs_free(&g->hdr[i].vals);
    }
    free(g->hdr);
    free(g->time_start);
    free(g->time_end);
    free(g->label);
    free(g);
}

void
agg_free(agg *a)
{
    size_t i;

    for (i = 0; i < a->ng; i++)
        group_free(a->g[i]);
    free(a->g);
    for (i = 0; i < a->nnotes; i++)
        free(a->notes[i].text);
    memset(a, 0, sizeof *a);
}

agg_group *
agg_group_get(agg *a, int source, int minor, const char *counts)
{
    return agg_group_get_label(a, source, minor, counts, NULL);
}

static int
same_label(const char *x, const char *y)
{
    return x == y || (x && y && strcmp(x, y) == 0);
}

int
agg_same_kind(const agg_group *x, const agg_group *y)
{
    return x->source == y->source && x->minor == y->minor && strcmp(x->counts, y->counts) == 0;
}

agg_group *
agg_group_get_label(agg *a, int source, int minor, const char *counts, const char *label)
{
    agg_group *g;
    size_t i;

    for (i = 0; i < a->ng; i++) {
        g = a->g[i];
        if (g->source == source && g->minor == minor && strcmp(g->counts, counts) == 0 &&
            same_label(g->label, label))
            return g;
    }
    if (a->ng == a->gcap) {
        a->gcap = a->gcap ? a->gcap * 2 : 4;
        a->g = cli_xrealloc(a->g, a->gcap * sizeof *a->g);
    }
    g = cli_xcalloc(1, sizeof *g);
    g->source = source;
    g->minor = minor;
    g->counts = cli_xstrdup(counts);
    g->label = label ? cli_xstrdup(label) : NULL;
    ktab_init(&g->keys);
    a->g[a->ng++] = g;
    return g;
}

static uint32_t
part_off(const char *s, const char *part)
{
    return part ? (uint32_t)(part - s) : AGG_KEY_NONE;
}

void
agg_key_from(const char *s, const psf_key *k, agg_key *out)
{
    out->kind = k->kind;
    out->field = k->field;
    out->a_off = part_off(s, k->a);
    out->a_len = (uint32_t)k->a_len;
    out->b_off = part_off(s, k->b);
    out->b_len = (uint32_t)k->b_len;
    out->a_num = k->a_num;
    out->b_num = k->b_num;
}

void
agg_key_to(const char *s, const agg_key *p, psf_key *k)
{
    k->kind = p->kind;
    k->field = p->field;
    k->a = p->a_off == AGG_KEY_NONE ? NULL : s + p->a_off;
    k->a_len = p->a_len;
    k->b = p->b_off == AGG_KEY_NONE ? NULL : s + p->b_off;
    k->b_len = p->b_len;
    k->a_num = p->a_num;
    k->b_num = p->b_num;
}

size_t
agg_slot_parsed(agg_group *g, const char *s, size_t n, const agg_key *parsed)
{
    int is_new;
    size_t id = ktab_intern(&g->keys, s, n, &is_new);

    if (is_new) {
        if (id >= g->val_cap) {
            size_t cap = g->val_cap ? g->val_cap * 2 : 1024;
            g->val = cli_xrealloc(g->val, cap * sizeof *g->val);
            g->flag = cli_xrealloc(g->flag, cap);
            g->key = cli_xrealloc(g->key, cap * sizeof *g->key);
            g->val_cap = cap;
        }
        /* agg.h: val, flag and key have one entry per key of g->keys. */
        assert(id == g->keys.n - 1 && g->keys.n <= g->val_cap);
        g->val[id] = 0;
        g->flag[id] = 0;
        if (parsed) {
            g->key[id] = *parsed;
        }
        else {
            psf_key k;
            psf_key_parse(s, n, &k);
            agg_key_from(s, &k, &g->key[id]);
        }
    }
    return id;
}

size_t
agg_slot(agg_group *g, const char *s, size_t n)
{
    return agg_slot_parsed(g, s, n, NULL);
}

void
agg_key_of(const agg_group *g, size_t slot, psf_key *k)
{
    assert(slot < g->keys.n);
    agg_key_to(ktab_key(&g->keys, slot), &g->key[slot], k);
}

int
agg_add(agg_group *g, size_t slot, uint64_t v, int mode)
{
    assert(slot < g->keys.n);
    assert(mode == AGG_ADD_SUM || mode == AGG_ADD_FLAG || mode == AGG_ADD_MAX);
    if (mode == AGG_ADD_FLAG) {
        g->flag[slot] |= AGG_F_FLAG;
        if (v)
            g->val[slot] = 1;
        return 0;
    }
    if (mode == AGG_ADD_MAX) {
        g->flag[slot] |= AGG_F_MAX;
        if (v > g->val[slot])
            g->val[slot] = v;
        return 0;
    }
    if (g->val[slot] > UINT64_MAX - v) {
        g->val[slot] = UINT64_MAX;
        g->flag[slot] |= AGG_F_SATURATED;
        return 1;
    }
    g->val[slot] += v;
    return 0;
}

const agg_strs *
agg_hdr_vals(const agg_group *g, const char *key)
{
    size_t i;

    for (i = 0; i < g->nhdr; i++)
        if (strcmp(g->hdr[i].key, key) == 0)
            return &g->hdr[i].vals;
    return NULL;
}

uint64_t
agg_hdr_sum(const agg_group *g, const char *key)
{
    uint64_t sum = 0;
    size_t i, j;

    for (i = 0; i < g->nhdr; i++) {
        if (strcmp(g->hdr[i].key, key) != 0)
            continue;
        for (j = 0; j < g->hdr[i].vals.n; j++) {
            const char *v = g->hdr[i].vals.v[j].text;
            uint64_t x = 0, prod;
            if (*v == '\0')
                continue;
            for (; *v >= '0' && *v <= '9'; v++)
                x = x > UINT64_MAX / 10 ? UINT64_MAX : x * 10 + (uint64_t)(*v - '0');
            if (*v != '\0')
                continue;
            prod = g->hdr[i].vals.v[j].n && x > UINT64_MAX / g->hdr[i].vals.v[j].n
                       ? UINT64_MAX
                       : x * g->hdr[i].vals.v[j].n;
            sum = cli_sat_add(sum, prod);
        }
    }
    return sum;
}

void
agg_hdr_add(agg_group *g, const char *key, const char *val, uint64_t n)
{
    size_t i;

    for (i = 0; i < g->nhdr; i++)
        if (strcmp(g->hdr[i].key, key) == 0)
            break;
    if (i == g->nhdr) {
        if (g->nhdr == g->hdr_cap) {
            g->hdr_cap = g->hdr_cap ? g->hdr_cap * 2 : 16;
            g->hdr = cli_xrealloc(g->hdr, g->hdr_cap * sizeof *g->hdr);
        }
        memset(&g->hdr[i], 0, sizeof g->hdr[i]);
        g->hdr[i].key = cli_xstrdup(key);
        g->nhdr++;
    }
    agg_strs_add(&g->hdr[i].vals, val, strlen(val), n);
}

int
agg_mode_of_kind(int kind)
{
    if (kind == PSF_K_OP_SPECIALIZABLE)
        return AGG_ADD_FLAG;
    if (kind == PSF_K_SITE_ATTEMPTS)
        return AGG_ADD_MAX;
    return AGG_ADD_SUM;
}

void
agg_problem(agg *a, int kind, const char *file, unsigned long line, const char *fmt, ...)
{
    char msg[512], text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line)
        snprintf(text, sizeof text, "%s:%lu: %s", file, line, msg);
    else
        snprintf(text, sizeof text, "%s: %s", file, msg);
    a->problems[kind]++;
    if (a->on_problem)
        a->on_problem(a->problem_ctx, kind, file, line, msg);
    if (!a->quiet) {
        /* One line whole: the readers of --jobs warn at once. */
        flockfile(stderr);
        fputs("pystats: warning: ", stderr);
        cli_fput_esc(stderr, text);
        fputc('\n', stderr);
        funlockfile(stderr);
    }
    if (a->nnotes < AGG_NOTES_MAX) {
        a->notes[a->nnotes].kind = kind;
        a->notes[a->nnotes].text = cli_xstrdup(text);
        a->nnotes++;
    }
}

void
agg_strs_merge(agg_strs *dst, const agg_strs *src)
{
    size_t i;

    for (i = 0; i < src->n; i++)
        agg_strs_add(dst, src->v[i].text, strlen(src->v[i].text), src->v[i].n);
}

static void
keep_min(char **dst, const char *src, int want_min)
{
    if (src == NULL)
        return;
    if (*dst == NULL || (want_min ? strcmp(src, *dst) < 0 : strcmp(src, *dst) > 0)) {
        free(*dst);
        *dst = cli_xstrdup(src);
    }
}

void
agg_merge(agg *dst, const agg *src)
{
    size_t i, j, k;

    for (i = 0; i < src->ng; i++) {
        const agg_group *s = src->g[i];
        agg_group *d = agg_group_get_label(dst, s->source, s->minor, s->counts, s->label);
        for (j = 0; j < s->keys.n; j++) {
            size_t slot =
                agg_slot_parsed(d, ktab_key(&s->keys, j), ktab_len(&s->keys, j), &s->key[j]);
            int is_flag = (s->flag[j] & AGG_F_FLAG)  ? AGG_ADD_FLAG
                          : (s->flag[j] & AGG_F_MAX) ? AGG_ADD_MAX
                                                     : AGG_ADD_SUM;
            /* Each reader thread checked its own sums; the sum of theirs
             * can overflow too. */
            int known = (d->flag[slot] | s->flag[j]) & AGG_F_SATURATED;
            if (agg_add(d, slot, s->val[j], is_flag) && !known)
                agg_problem(dst, AGG_P_OVERFLOW, ktab_key(&s->keys, j), 0,
                            "the sum of the files exceeds 2**64-1; kept at the maximum");
            d->flag[slot] |= s->flag[j];
        }
        d->files += s->files;
        d->foreign += s->foreign;
        for (k = 0; k < AGG_FMT_COUNT; k++)
            d->fmt[k] += s->fmt[k];
        agg_strs_merge(&d->how, &s->how);
        agg_strs_merge(&d->collectors, &s->collectors);
        for (j = 0; j < s->nhdr; j++)
            for (k = 0; k < s->hdr[j].vals.n; k++)
                agg_hdr_add(d, s->hdr[j].key, s->hdr[j].vals.v[k].text, s->hdr[j].vals.v[k].n);
        keep_min(&d->time_start, s->time_start, 1);
        keep_min(&d->time_end, s->time_end, 0);
        if (s->weight_total) {
            d->weight_labels = s->weight_labels;
            d->weight_total = s->weight_total;
        }
    }
    for (i = 0; i < AGG_P_COUNT; i++)
        dst->problems[i] += src->problems[i];
    for (i = 0; i < src->nnotes && dst->nnotes < AGG_NOTES_MAX; i++) {
        dst->notes[dst->nnotes].kind = src->notes[i].kind;
        dst->notes[dst->nnotes].text = cli_xstrdup(src->notes[i].text);
        dst->nnotes++;
    }
    dst->inputs += src->inputs;
}

int
agg_group_vouched(const agg_group *g)
{
    return g->foreign == 0 && g->fmt[AGG_FMT_CPYTHON_JSON] == 0 &&
           g->fmt[AGG_FMT_SUMMARY_JSON] == 0;
}

uint64_t
agg_files(const agg *a)
{
    uint64_t n = 0;
    size_t i;

    for (i = 0; i < a->ng; i++)
        n += a->g[i]->files;
    return n;
}

static int
group_cmp(const void *pa, const void *pb)
{
    const agg_group *a = *(agg_group *const *)pa, *b = *(agg_group *const *)pb;

    /* Groups by label: by kind, then label. */
    if (a->label && b->label) {
        if (a->source != b->source)
            return a->source - b->source;
        if (a->minor != b->minor)
            return a->minor - b->minor;
        if (strcmp(a->counts, b->counts) != 0)
            return strcmp(a->counts, b->counts);
        return strcmp(a->label, b->label);
    }
    if (a->files != b->files)
        return a->files > b->files ? -1 : 1;
    if (a->source != b->source)
        return a->source - b->source;
    if (a->minor != b->minor)
        return a->minor - b->minor;
    return strcmp(a->counts, b->counts);
}

/* Header keys in the order docs/FORMAT.md lists them, others after. */
static const char *const hdr_order[] = {
    PSF_H_FORMAT,
    PSF_H_COLLECTOR,
    PSF_H_COUNTS,
    PSF_H_PY_VERSION,
    PSF_H_PY_IMPL,
    PSF_H_PY_SYS_VERSION,
    PSF_H_PY_GIT,
    PSF_H_PY_CONFIG_ARGS,
    PSF_H_PY_PYSTATS_BUILD,
    PSF_H_PY_FREE_THREADING,
    PSF_H_PY_JIT,
    PSF_H_MODE,
    PSF_H_MECHANISM,
    PSF_H_WINDOWS,
    PSF_H_ON_AT_DUMP,
    PSF_H_PID,
    PSF_H_PPID,
    PSF_H_FORKED,
    PSF_H_TIME_START,
    PSF_H_TIME_END,
    PSF_H_REASON,
    PSF_H_LABEL,
};

static size_t
hdr_rank(const char *key)
{
    size_t i, n = sizeof hdr_order / sizeof hdr_order[0];

    for (i = 0; i < n; i++)
        if (strcmp(key, hdr_order[i]) == 0)
            return i;
    return n;
}

static int
hdr_cmp(const void *pa, const void *pb)
{
    const agg_hdr *a = pa, *b = pb;
    size_t ra = hdr_rank(a->key), rb = hdr_rank(b->key);

    if (ra != rb)
        return ra < rb ? -1 : 1;
    return strcmp(a->key, b->key);
}

/* Most files first, then by text. */
static int
str_cmp(const void *pa, const void *pb)
{
    const agg_str *a = pa, *b = pb;

    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    return strcmp(a->text, b->text);
}

static void
strs_sort(agg_strs *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, str_cmp);
}

/* Reader threads take files in no fixed order, and merge what they saw in
 * thread order: the order of header keys and values is made canonical
 * here, so that a report never depends on it. */
void
agg_sort(agg *a)
{
    size_t i, j;

    if (a->ng > 1)
        qsort(a->g, a->ng, sizeof *a->g, group_cmp);
    for (i = 0; i < a->ng; i++) {
        agg_group *g = a->g[i];
        if (g->nhdr > 1)
            qsort(g->hdr, g->nhdr, sizeof *g->hdr, hdr_cmp);
        for (j = 0; j < g->nhdr; j++)
            strs_sort(&g->hdr[j].vals);
        strs_sort(&g->how);
        strs_sort(&g->collectors);
    }
}

void
agg_time(agg_group *g, const char *start, const char *end)
{
    if (start && *start)
        keep_min(&g->time_start, start, 1);
    if (end && *end)
        keep_min(&g->time_end, end, 0);
}
