/* hotcode.c: per code object statistics and call statistics (see
 * hotcode.h): the records, the table that keeps them past their code
 * objects' deaths, and writing them (plain C, no allocation: the dump
 * runs from Py_AtExit and from a SIGTERM handler).
 */
#include "hotcode.h"

#include "../format/psf_text.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

pc_calls pc_calls_g;

/* Every record since the last clear.  Grown on the slow path into fresh
 * arrays, swapped in whole, so that a dump from a signal handler reads
 * either the old table or the new one. */
static pc_hot **tab;
static size_t tab_n, tab_cap;

/* The dump's scratch space: one group of records sharing a key. */
typedef struct hot_group {
    uint64_t total;
    uint64_t calls;
    uint32_t start, len;
} hot_group;
static hot_group *groups; /* tab_cap entries */

static int
tab_grow(void)
{
    size_t cap = tab_cap ? 2 * tab_cap : 256;
    pc_hot **t = malloc(cap * sizeof *t);
    hot_group *g = malloc(cap * sizeof *g);
    pc_hot **old_t = tab;
    hot_group *old_g = groups;
    if (t == NULL || g == NULL) {
        free(t);
        free(g);
        return -1;
    }
    if (tab_n)
        memcpy(t, tab, tab_n * sizeof *t);
    groups = g;
    tab = t;
    tab_cap = cap;
    free(old_t);
    free(old_g);
    return 0;
}

/* The UTF-8 bytes of a str, surrogates included, as a new reference;
 * NULL (no exception: this runs inside event callbacks) on failure. */
static PyObject *
utf8_bytes(PyObject *s)
{
    PyObject *b = NULL;
    if (s != NULL && PyUnicode_Check(s))
        b = PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass");
    if (b == NULL)
        PyErr_Clear();
    return b;
}

pc_hot *
pc_hot_new(PyObject *code, const uint8_t *op, Py_ssize_t n, uint8_t *slot)
{
    PyCodeObject *co = (PyCodeObject *)code;
    int16_t map[PC_NOPS];
    uint8_t ops[PC_NOPS];
    int nops = 0;
    PyObject *file = NULL, *qual = NULL; /* owned: UTF-8 bytes */
    Py_ssize_t i;
    char line[24];
    size_t flen, qlen, llen, size;
    char *p;
    pc_hot *h = NULL;

    if (tab_n == tab_cap && tab_grow() < 0)
        return NULL;
    for (i = 0; i < PC_NOPS; i++)
        map[i] = -1;
    for (i = 0; i < n; i++) {
        int o = op[i];
        if (map[o] < 0) {
            map[o] = (int16_t)nops;
            ops[nops++] = (uint8_t)o;
        }
        slot[i] = (uint8_t)map[o];
    }
    file = utf8_bytes(co->co_filename);
    qual = utf8_bytes(co->co_qualname);
    if (file == NULL || qual == NULL)
        goto done;
    /* The key's free text in the dump's encoding (psf_text.h), room for
     * the longest. */
    flen = PSF_TEXT_MAX((size_t)PyBytes_GET_SIZE(file));
    qlen = PSF_TEXT_MAX((size_t)PyBytes_GET_SIZE(qual));
    llen = psf_u64_to_str(
        (uint64_t)(co->co_firstlineno < 0 ? 0 : co->co_firstlineno), line);
    size = sizeof *h + (size_t)nops * sizeof(uint64_t) + (size_t)nops + flen +
           llen + qlen + 3;
    p = calloc(1, size);
    if (p == NULL)
        goto done;
    h = (pc_hot *)p;
    p += sizeof *h;
    h->counts = (uint64_t *)p;
    p += (size_t)nops * sizeof(uint64_t);
    memcpy(p, ops, (size_t)nops);
    h->ops = (const uint8_t *)p;
    p += nops;
    h->key = p;
    p += psf_text_encode(PyBytes_AS_STRING(file),
                         (size_t)PyBytes_GET_SIZE(file), p, flen + 1);
    *p++ = ':';
    memcpy(p, line, llen);
    p += llen;
    *p++ = ':';
    psf_text_encode(PyBytes_AS_STRING(qual), (size_t)PyBytes_GET_SIZE(qual), p,
                    qlen + 1);
    h->nops = nops;
    h->live = 1;
    h->idx = tab_n;
    tab[tab_n] = h;
    tab_n++;
done:
    Py_XDECREF(file);
    Py_XDECREF(qual);
    return h;
}

static int
hot_empty(const pc_hot *h)
{
    int i;
    if (h->calls)
        return 0;
    for (i = 0; i < h->nops; i++)
        if (h->counts[i])
            return 0;
    return 1;
}

void
pc_hot_code_dead(pc_hot *h)
{
    size_t i = h->idx;
    h->live = 0;
    if (!hot_empty(h))
        return; /* kept until the next dump or clear */
    if (i < tab_n && tab[i] == h) {
        /* Shrink first: a dump from a signal handler meanwhile may miss
         * a record, never count one twice. */
        pc_hot *last = tab[tab_n - 1];
        tab_n--;
        tab[i] = last;
        last->idx = i;
        free(h);
    }
}

void
pc_hot_clear(void)
{
    size_t i, k = 0;
    for (i = 0; i < tab_n; i++) {
        pc_hot *h = tab[i];
        if (!h->live) {
            free(h);
            continue;
        }
        memset(h->counts, 0, (size_t)h->nops * sizeof(uint64_t));
        h->calls = 0;
        h->idx = k;
        tab[k++] = h;
    }
    tab_n = k;
    memset(&pc_calls_g, 0, sizeof pc_calls_g);
}

int
pc_hot_has_data(void)
{
    const uint64_t *c = (const uint64_t *)&pc_calls_g;
    size_t i;
    for (i = 0; i < sizeof pc_calls_g / sizeof *c; i++)
        if (c[i])
            return 1;
    return 0;
}

/* ---- the dump: sort, merge by key, keep the top, plain C ---- */

static uint64_t
hot_total(const pc_hot *h)
{
    uint64_t t = 0;
    int i;
    for (i = 0; i < h->nops; i++)
        t += h->counts[i];
    return t;
}

/* Heapsort: qsort() may allocate, and the dump may be written from a
 * signal handler.  before(x, y): x sorts before y. */
static void
swap_bytes(unsigned char *x, unsigned char *y, size_t size)
{
    while (size--) {
        unsigned char t = *x;
        *x++ = *y;
        *y++ = t;
    }
}

static void
sift(unsigned char *a, size_t root, size_t n, size_t size,
     int (*before)(const void *, const void *))
{
    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n)
            return;
        if (c + 1 < n && before(a + c * size, a + (c + 1) * size))
            c++;
        if (!before(a + root * size, a + c * size))
            return;
        swap_bytes(a + root * size, a + c * size, size);
        root = c;
    }
}

static void
heap_sort(void *base, size_t n, size_t size,
          int (*before)(const void *, const void *))
{
    unsigned char *a = base;
    size_t i;
    if (n < 2)
        return;
    for (i = n / 2; i-- > 0;)
        sift(a, i, n, size, before);
    for (i = n - 1; i > 0; i--) {
        swap_bytes(a, a + i * size, size);
        sift(a, 0, i, size, before);
    }
}

/* Key order (elements are pc_hot pointers). */
static int
key_before(const void *x, const void *y)
{
    return strcmp((*(pc_hot *const *)x)->key, (*(pc_hot *const *)y)->key) < 0;
}

/* Group order: more instructions first, then by key. */
static int
group_before(const void *px, const void *py)
{
    const hot_group *x = px, *y = py;
    if (x->total != y->total)
        return x->total > y->total;
    return strcmp(tab[x->start]->key, tab[y->start]->key) < 0;
}

/* Sorts the table by key and fills groups[]; returns how many groups
 * have instructions. */
static size_t
make_groups(void)
{
    size_t i, ng = 0;
    for (i = 0; i < tab_n; i++)
        tab[i]->total = hot_total(tab[i]);
    heap_sort(tab, tab_n, sizeof *tab, key_before);
    for (i = 0; i < tab_n; i++)
        tab[i]->idx = i;
    for (i = 0; i < tab_n;) {
        size_t j = i;
        hot_group g = {0, 0, (uint32_t)i, 0};
        while (j < tab_n && strcmp(tab[j]->key, tab[i]->key) == 0) {
            g.total += tab[j]->total;
            g.calls += tab[j]->calls;
            j++;
        }
        g.len = (uint32_t)(j - i);
        if (g.total)
            groups[ng++] = g;
        i = j;
    }
    return ng;
}

static void
group_opcodes(const hot_group *g, uint64_t *acc)
{
    uint32_t k;
    int i;
    memset(acc, 0, PC_NOPS * sizeof *acc);
    for (k = g->start; k < g->start + g->len; k++) {
        const pc_hot *h = tab[k];
        for (i = 0; i < h->nops; i++)
            acc[h->ops[i]] += h->counts[i];
    }
}

static void
put_key(psf_out *o, const char *key, const char *what)
{
    psf_put(o, PSF_KEY_CODE);
    psf_put(o, key);
    psf_put(o, PSF_KEY_FIELD);
    psf_put(o, what);
}

/* The calls.* keys (docs/FORMAT.md 1.15), for the dump and snapshot(). */
static const struct {
    const char *name;
    size_t offset; /* of its counter in pc_calls */
} call_keys[] = {
#define CALL_KEY(f)               \
    {                             \
#f, offsetof(pc_calls, f) \
    }
    CALL_KEY(python_starts), CALL_KEY(resumptions), CALL_KEY(throws),
    CALL_KEY(returns),       CALL_KEY(yields),      CALL_KEY(unwinds),
    CALL_KEY(raises),        CALL_KEY(handled),
#undef CALL_KEY
};
#define NCALL_KEYS (sizeof call_keys / sizeof call_keys[0])

static uint64_t
call_count(size_t k)
{
    return *(const uint64_t *)((const char *)&pc_calls_g +
                               call_keys[k].offset);
}

void
pc_hot_write(psf_out *o)
{
    size_t ng, k;
    uint64_t acc[PC_NOPS];

    for (k = 0; k < NCALL_KEYS; k++) {
        if (!call_count(k))
            continue;
        psf_put(o, PSF_KEY_CALLS);
        psf_put(o, call_keys[k].name);
        psf_put_value(o, call_count(k));
    }
    if (groups == NULL)
        return;
    ng = make_groups();
    heap_sort(groups, ng, sizeof *groups, group_before);
    for (k = 0; k < ng && k < PC_HOT_CAP; k++) {
        const hot_group *g = &groups[k];
        const char *key = tab[g->start]->key;
        int n, i;
        put_key(o, key, "instructions : ");
        psf_put_u64(o, g->total);
        psf_put(o, "\n");
        put_key(o, key, "calls : ");
        psf_put_u64(o, g->calls);
        psf_put(o, "\n");
        group_opcodes(g, acc);
        /* The top opcodes, by count, then by number. */
        for (n = 0; n < PC_HOT_TOP_OPS; n++) {
            int best = -1;
            for (i = 0; i < PC_NOPS; i++)
                if (acc[i] && (best < 0 || acc[i] > acc[best]))
                    best = i;
            if (best < 0)
                break;
            put_key(o, key, PSF_KEY_OPCODE);
            psf_put(o, pc_g.opname[best]);
            psf_put(o, "] : ");
            psf_put_u64(o, acc[best]);
            psf_put(o, "\n");
            acc[best] = 0;
        }
    }
}

/* ---- snapshot: every code object, every opcode ---- */

static int
set_u64(PyObject *d, const char *k, uint64_t v)
{
    PyObject *o = PyLong_FromUnsignedLongLong(v);
    int r;
    if (o == NULL)
        return -1;
    r = PyDict_SetItemString(d, k, o);
    Py_DECREF(o);
    return r;
}

int
pc_hot_snapshot(PyObject *dict)
{
    PyObject *code = NULL, *calls = NULL, *entry = NULL, *ops = NULL;
    uint64_t acc[PC_NOPS];
    size_t ng = 0, k;
    int i, ret = -1;

    code = PyDict_New();
    calls = PyDict_New();
    if (code == NULL || calls == NULL)
        goto done;
    for (k = 0; k < NCALL_KEYS; k++)
        if (set_u64(calls, call_keys[k].name, call_count(k)) < 0)
            goto done;
    if (groups != NULL)
        ng = make_groups();
    for (k = 0; k < ng; k++) {
        const hot_group *g = &groups[k];
        entry = PyDict_New();
        ops = PyDict_New();
        if (entry == NULL || ops == NULL)
            goto done;
        group_opcodes(g, acc);
        for (i = 0; i < PC_NOPS; i++)
            if (acc[i] && set_u64(ops, pc_g.opname[i], acc[i]) < 0)
                goto done;
        if (set_u64(entry, "instructions", g->total) < 0 ||
            set_u64(entry, "calls", g->calls) < 0 ||
            PyDict_SetItemString(entry, "opcodes", ops) < 0 ||
            PyDict_SetItemString(code, tab[g->start]->key, entry) < 0)
            goto done;
        Py_CLEAR(entry);
        Py_CLEAR(ops);
    }
    if (PyDict_SetItemString(dict, "code", code) < 0 ||
        PyDict_SetItemString(dict, "calls", calls) < 0)
        goto done;
    ret = 0;
done:
    Py_XDECREF(code);
    Py_XDECREF(calls);
    Py_XDECREF(entry);
    Py_XDECREF(ops);
    return ret;
}
