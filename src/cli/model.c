/* model.c: turning a group's canonical keys into the report model. */
#include "model.h"

#include "cli.h"
#include "../format/psf_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
m_list_add(m_list *l, const char *name, size_t len, uint64_t n)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (strlen(l->v[i].name) == len && memcmp(l->v[i].name, name, len) == 0) {
            l->v[i].n = l->v[i].n > UINT64_MAX - n ? UINT64_MAX : l->v[i].n + n;
            return;
        }
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = cli_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n].name = cli_xstrndup(name, len);
    l->v[l->n].n = n;
    l->n++;
}

uint64_t
m_list_get(const m_list *l, const char *name)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return l->v[i].n;
    return 0;
}

static int
kv_cmp(const void *pa, const void *pb)
{
    const m_kv *a = pa, *b = pb;

    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    return strcmp(a->name, b->name);
}

void
m_list_sort(m_list *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, kv_cmp);
}

static int
bucket_cmp(const void *pa, const void *pb)
{
    const m_kv *a = pa, *b = pb;
    unsigned long long x = strtoull(a->name, NULL, 10), y = strtoull(b->name, NULL, 10);

    return x < y ? -1 : x > y;
}

static void
list_free(m_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* The op called name[0..len), created if new.  Linear search would be
 * quadratic over ~250 ops x ~1,500 keys: still small, but a key table
 * keeps it linear. */
static m_op *
get_op(m_ops *ops, ktab *index, const char *name, size_t len)
{
    int is_new;
    size_t id = ktab_intern(index, name, len, &is_new);

    if (is_new) {
        if (ops->n == ops->cap) {
            ops->cap = ops->cap ? ops->cap * 2 : 64;
            ops->v = cli_xrealloc(ops->v, ops->cap * sizeof *ops->v);
        }
        memset(&ops->v[ops->n], 0, sizeof ops->v[ops->n]);
        ops->v[ops->n].name = cli_xstrndup(name, len);
        ops->n++;
    }
    return &ops->v[id];
}

static int
op_cmp(const void *pa, const void *pb)
{
    return strcmp(((const m_op *)pa)->name, ((const m_op *)pb)->name);
}

static m_hist *
get_hist(m_group *m, const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < m->nhist; i++)
        if (strlen(m->hist[i].name) == len && memcmp(m->hist[i].name, name, len) == 0)
            return &m->hist[i];
    m->hist = cli_xrealloc(m->hist, (m->nhist + 1) * sizeof *m->hist);
    memset(&m->hist[m->nhist], 0, sizeof *m->hist);
    m->hist[m->nhist].name = cli_xstrndup(name, len);
    return &m->hist[m->nhist++];
}

static void
add_key(m_group *m, ktab *opidx, ktab *uopidx, const agg_group *g, size_t slot)
{
    const char *s = ktab_key(&g->keys, slot);
    size_t n = ktab_len(&g->keys, slot);
    uint64_t v = g->val[slot];
    psf_key k;
    m_op *op;
    char name[600];

    psf_key_parse(s, n, &k);
    switch (k.kind) {
    case PSF_K_OP_EXEC:
        op = get_op(&m->ops, opidx, k.a, k.a_len);
        op->has_exec = 1;
        op->exec += v;
        break;
    case PSF_K_OP_SPECIALIZABLE:
        op = get_op(&m->ops, opidx, k.a, k.a_len);
        op->specializable |= v != 0;
        break;
    case PSF_K_OP_SPEC:
        op = get_op(&m->ops, opidx, k.a, k.a_len);
        op->has_spec = 1;
        op->spec[k.field] += v;
        break;
    case PSF_K_OP_FAIL_KIND:
        op = get_op(&m->ops, opidx, k.a, k.a_len);
        op->has_spec = 1;
        if (k.b_num >= 0) {
            char kname[128];
            const char *fam = psf_tab_family(g->minor, op->name);
            psf_tab_fail_kind(g->minor, fam ? fam : op->name, (int)k.b_num,
                              kname, sizeof kname);
            m_list_add(&op->fail, kname, strlen(kname), v);
        } else {
            m_list_add(&op->fail, k.b, k.b_len, v);
        }
        break;
    case PSF_K_OP_PAIR:
        op = get_op(&m->ops, opidx, k.a, k.a_len);
        m_list_add(&op->succ, k.b, k.b_len, v);
        op = get_op(&m->ops, opidx, k.b, k.b_len);
        m_list_add(&op->pred, k.a, k.a_len, v);
        m->has_pairs = 1;
        break;
    case PSF_K_UOP_EXEC:
        op = get_op(&m->uops, uopidx, k.a, k.a_len);
        op->has_exec = 1;
        op->exec += v;
        break;
    case PSF_K_UOP_MISS:
        op = get_op(&m->uops, uopidx, k.a, k.a_len);
        op->has_spec = 1;
        op->spec[PSF_SPEC_MISS] += v;
        break;
    case PSF_K_UOP_PAIR:
        op = get_op(&m->uops, uopidx, k.a, k.a_len);
        m_list_add(&op->succ, k.b, k.b_len, v);
        break;
    case PSF_K_UNSUPPORTED:
        m_list_add(&m->unsupported, k.a, k.a_len, v);
        break;
    case PSF_K_ERROR_IN_OPCODE:
        m_list_add(&m->errors, k.a, k.a_len, v);
        break;
    case PSF_K_CALL: case PSF_K_EVAL_CALL:
        m_list_add(&m->calls, s, n, v);
        break;
    case PSF_K_OBJECT:
        m_list_add(&m->objects, s, n, v);
        break;
    case PSF_K_GC:
        snprintf(name, sizeof name, "%ld %.*s", k.a_num, (int)k.b_len, k.b);
        m_list_add(&m->gc, name, strlen(name), v);
        break;
    case PSF_K_OPT:
        m_list_add(&m->opt, s, n, v);
        break;
    case PSF_K_JIT:
        m_list_add(&m->jit, s, n, v);
        break;
    case PSF_K_HIST:
        m_list_add(&get_hist(m, k.b, k.b_len)->buckets, k.a, k.a_len, v);
        break;
    case PSF_K_RARE:
        m_list_add(&m->rare, k.a, k.a_len, v);
        break;
    default:
        m_list_add(&m->other, s, n, v);
        break;
    }
}

void
model_build(m_group *m, const agg_group *g)
{
    ktab opidx, uopidx;
    size_t i;

    memset(m, 0, sizeof *m);
    m->src = g;
    ktab_init(&opidx);
    ktab_init(&uopidx);
    for (i = 0; i < g->keys.n; i++)
        add_key(m, &opidx, &uopidx, g, i);
    ktab_free(&opidx);
    ktab_free(&uopidx);
    if (m->ops.n > 1)
        qsort(m->ops.v, m->ops.n, sizeof *m->ops.v, op_cmp);
    if (m->uops.n > 1)
        qsort(m->uops.v, m->uops.n, sizeof *m->uops.v, op_cmp);
    for (i = 0; i < m->ops.n; i++) {
        m_op *op = &m->ops.v[i];
        const char *fam = psf_tab_family(g->minor, op->name);
        /* A family is the base instruction; an unknown name is its own. */
        op->family = fam ? fam : op->name;
        m->total_exec += op->exec;
        m_list_sort(&op->fail);
        m_list_sort(&op->succ);
        m_list_sort(&op->pred);
    }
    for (i = 0; i < m->nhist; i++)
        if (m->hist[i].buckets.n > 1)
            qsort(m->hist[i].buckets.v, m->hist[i].buckets.n, sizeof(m_kv), bucket_cmp);
    m_list_sort(&m->unsupported);
    m_list_sort(&m->errors);
}

static void
ops_free(m_ops *ops)
{
    size_t i;

    for (i = 0; i < ops->n; i++) {
        free(ops->v[i].name);
        list_free(&ops->v[i].fail);
        list_free(&ops->v[i].succ);
        list_free(&ops->v[i].pred);
    }
    free(ops->v);
}

void
model_free(m_group *m)
{
    size_t i;

    ops_free(&m->ops);
    ops_free(&m->uops);
    list_free(&m->calls);
    list_free(&m->objects);
    list_free(&m->gc);
    list_free(&m->opt);
    list_free(&m->jit);
    for (i = 0; i < m->nhist; i++) {
        free(m->hist[i].name);
        list_free(&m->hist[i].buckets);
    }
    free(m->hist);
    list_free(&m->unsupported);
    list_free(&m->errors);
    list_free(&m->rare);
    list_free(&m->other);
    memset(m, 0, sizeof *m);
}

const m_op *
model_op(const m_group *m, const char *name)
{
    size_t lo = 0, hi = m->ops.n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(m->ops.v[mid].name, name);
        if (c == 0)
            return &m->ops.v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int
model_is_specialized(const m_op *op)
{
    size_t n = strlen(op->name);

    if (strcmp(op->family, op->name) == 0)
        return 0;
    if (n > 9 && strcmp(op->name + n - 9, "_ADAPTIVE") == 0)
        return 0;
    return 1;
}
