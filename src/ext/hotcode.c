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

/* The dump's scratch space for one group's lines: a (line, count) per
 * line range of its records, room for every range of every record in
 * the table (lines_total), grown on the slow path as tab is. */
typedef struct line_count {
    int64_t line; /* PC_NO_LINE sorts last: INT64_MAX */
    uint64_t n;
} line_count;
static line_count *lscratch;
static size_t lscratch_cap, lines_total;

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

/* Room in lscratch for lines_total + more ranges. */
static int
lscratch_reserve(size_t more)
{
    size_t cap = lscratch_cap ? lscratch_cap : 1024;
    line_count *l, *old = lscratch;
    if (lines_total + more <= lscratch_cap)
        return 0;
    while (cap < lines_total + more)
        cap *= 2;
    l = malloc(cap * sizeof *l);
    if (l == NULL)
        return -1;
    lscratch = l;
    lscratch_cap = cap;
    free(old);
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

/* Appends the range (start, line) to r[0..k), merged into the last one
 * if it has the same line; returns the new length. */
static size_t
add_range(pc_line_range *r, size_t k, int32_t start, int32_t line)
{
    if (k > 0 && r[k - 1].line == line)
        return k;
    r[k].start = start;
    r[k].line = line;
    return k + 1;
}

/* One (start, end, line) of co_lines() as units and a line; -1 if it is
 * not such a tuple (exception set or not). */
static int
lines_item(PyObject *item, long *s, long *e, int32_t *line)
{
    PyObject *l;
    long v = PC_NO_LINE;
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3)
        return -1;
    *s = PyLong_AsLong(PyTuple_GET_ITEM(item, 0)) / 2;
    *e = PyLong_AsLong(PyTuple_GET_ITEM(item, 1)) / 2;
    l = PyTuple_GET_ITEM(item, 2);
    if (l != Py_None)
        v = PyLong_AsLong(l);
    if (PyErr_Occurred())
        return -1;
    *line = v < 0 || v > INT32_MAX ? PC_NO_LINE : (int32_t)v;
    return 0;
}

/* The line table of code (n units) as ranges of units covering 0..n-1
 * (hotcode.h), in a new malloc'd array of *count; NULL on failure (no
 * exception set).  The collector is inside an event callback: the cyclic
 * GC is held off meanwhile, so that no finalizer runs Python code. */
static pc_line_range *
read_lines(PyObject *code, int32_t n, int32_t *count)
{
    PyObject *it = NULL, *item;
    pc_line_range *r = NULL, *t;
    size_t cap = 16, k = 0;
    long cursor = 0, s, e;
    int32_t line;
    int gc_was_on = PyGC_Disable();

    it = PyObject_CallMethod(code, "co_lines", NULL);
    r = malloc(cap * sizeof *r);
    if (it == NULL || r == NULL)
        goto fail;
    while ((item = PyIter_Next(it)) != NULL) {
        int bad = lines_item(item, &s, &e, &line);
        Py_DECREF(item);
        if (bad)
            goto fail;
        s = s < cursor ? cursor : s;
        e = e > n ? n : e;
        if (e <= s)
            continue;
        if (k + 2 > cap) {
            t = realloc(r, 2 * cap * sizeof *r);
            if (t == NULL)
                goto fail;
            r = t;
            cap *= 2;
        }
        if (s > cursor)
            k = add_range(r, k, (int32_t)cursor, PC_NO_LINE);
        k = add_range(r, k, (int32_t)s, line);
        cursor = e;
    }
    if (PyErr_Occurred())
        goto fail;
    if (cursor < n || k == 0) /* room: k + 2 <= cap held */
        k = add_range(r, k, (int32_t)cursor, PC_NO_LINE);
    Py_DECREF(it);
    if (gc_was_on)
        PyGC_Enable();
    *count = (int32_t)k;
    return r;
fail:
    PyErr_Clear();
    Py_XDECREF(it);
    free(r);
    if (gc_was_on)
        PyGC_Enable();
    return NULL;
}

#ifndef NDEBUG
/* The line table's invariant (hotcode.h): ranges from unit 0 on, starts
 * increasing, each a unit of the code (none when it has no unit). */
static int
lines_whole(const pc_line_range *r, int32_t k, int32_t n)
{
    int32_t i;
    if (k < 1 || r[0].start != 0)
        return 0;
    for (i = 0; i < k; i++) {
        if ((i > 0 && r[i].start <= r[i - 1].start) || (r[i].start >= n && n > 0) ||
            r[i].line < PC_NO_LINE)
            return 0;
    }
    return 1;
}
#endif

/* Writes the key "FILE:LINE:QUALNAME" at p, FILE and QUALNAME
 * (UTF-8 bytes) encoded; returns the end of what it wrote. */
static char *
put_code_key(char *p, PyObject *file, PyObject *qual, const char *line, size_t llen, size_t flen,
             size_t qlen)
{
    p += psf_text_encode(PyBytes_AS_STRING(file), (size_t)PyBytes_GET_SIZE(file), p, flen + 1);
    *p++ = ':';
    memcpy(p, line, llen);
    p += llen;
    *p++ = ':';
    p += psf_text_encode(PyBytes_AS_STRING(qual), (size_t)PyBytes_GET_SIZE(qual), p, qlen + 1);
    return p;
}

/* Code compiled from a string (exec, eval, compile() of generated
 * text: dataclasses' __init__, namedtuple's __new__), whose key names
 * no file: "<...>", frozen modules aside (their code is in a file). */
static int
is_generated(PyObject *file)
{
    const char *s = PyBytes_AS_STRING(file);
    size_t n = (size_t)PyBytes_GET_SIZE(file);
    return n >= 2 && s[0] == '<' && s[n - 1] == '>' && strncmp(s, "<frozen ", 8) != 0;
}

/* The function of the newest frame of this thread that runs code: the
 * one being seen for the first time, borrowed; NULL if none is found.
 * Reads the frames' fields only (no Python code runs). */
static PyObject *
frame_function(PyObject *code)
{
#if PC_HAVE_MONITORING
    PyThreadState *ts = PyThreadState_Get();
    pc_iframe *f;
    for (f = ts ? pc_tstate_iframe(ts) : NULL; f != NULL; f = f->previous)
        if (pc_iframe_code(f) == code)
            return pc_iframe_funcobj(f);
#else
    (void)code;
#endif
    return NULL;
}

/* For generated code: its function's __module__ and __qualname__ as
 * UTF-8 bytes (new references in *mod, *fq), or both NULL. */
static void
function_names(PyObject *code, PyObject *file, PyObject **mod, PyObject **fq)
{
    PyObject *fn;
    *mod = *fq = NULL;
    if (!is_generated(file) || (fn = frame_function(code)) == NULL)
        return;
    *fq = utf8_bytes(((PyFunctionObject *)fn)->func_qualname);
    *mod = utf8_bytes(((PyFunctionObject *)fn)->func_module);
    if (*fq == NULL)
        Py_CLEAR(*mod);
    else if (*mod == NULL)
        *mod = PyBytes_FromStringAndSize("", 0);
    if (*mod == NULL) {
        PyErr_Clear();
        Py_CLEAR(*fq);
    }
}

/* Appends ":" and the encoded bytes b at p; returns the end. */
static char *
put_part(char *p, PyObject *b)
{
    size_t n = (size_t)PyBytes_GET_SIZE(b);
    *p++ = ':';
    return p + psf_text_encode(PyBytes_AS_STRING(b), n, p, PSF_TEXT_MAX(n) + 1);
}

pc_hot *
pc_hot_new(PyObject *code, const uint8_t *op, Py_ssize_t n)
{
    PyCodeObject *co = (PyCodeObject *)code;
    PyObject *file = NULL, *qual = NULL; /* owned: UTF-8 bytes */
    PyObject *mod = NULL, *fq = NULL;    /* owned: UTF-8 bytes, or NULL */
    pc_line_range *lines = NULL;
    int32_t nlines = 0;
    char line[24];
    size_t flen, qlen, llen, klen, size, extra = 0;
    char *p;
    pc_hot *h = NULL;

    if (n > INT32_MAX || (tab_n == tab_cap && tab_grow() < 0))
        return NULL;
    file = utf8_bytes(co->co_filename);
    qual = utf8_bytes(co->co_qualname);
    if (file == NULL || qual == NULL)
        goto done;
    lines = read_lines(code, (int32_t)n, &nlines);
    if (lines == NULL || lscratch_reserve((size_t)nlines) < 0)
        goto done;
    assert(lines_whole(lines, nlines, (int32_t)n));
    function_names(code, file, &mod, &fq);
    /* The key's free text in the dump's encoding (psf_text.h), room for
     * the longest. */
    flen = PSF_TEXT_MAX((size_t)PyBytes_GET_SIZE(file));
    qlen = PSF_TEXT_MAX((size_t)PyBytes_GET_SIZE(qual));
    llen = psf_u64_to_str((uint64_t)(co->co_firstlineno < 0 ? 0 : co->co_firstlineno), line);
    klen = flen + llen + qlen + 3;
    if (fq != NULL)
        extra = klen + PSF_TEXT_MAX((size_t)PyBytes_GET_SIZE(mod)) +
                PSF_TEXT_MAX((size_t)PyBytes_GET_SIZE(fq)) + 4;
    size = sizeof *h + (size_t)n * sizeof(uint64_t) + (size_t)nlines * sizeof *lines + (size_t)n +
           klen + extra;
    p = calloc(1, size);
    if (p == NULL)
        goto done;
    h = (pc_hot *)p;
    p += sizeof *h;
    h->counts = (uint64_t *)p;
    p += (size_t)n * sizeof(uint64_t);
    memcpy(p, lines, (size_t)nlines * sizeof *lines);
    h->lines = (const pc_line_range *)p;
    p += (size_t)nlines * sizeof *lines;
    if (n)
        memcpy(p, op, (size_t)n);
    h->op = (const uint8_t *)p;
    p += n;
    h->key = p;
    p = put_code_key(p, file, qual, line, llen, flen, qlen) + 1;
    h->site_key = h->key;
    if (fq != NULL) {
        h->site_key = p;
        p = put_code_key(p, file, qual, line, llen, flen, qlen);
        p = put_part(p, mod);
        put_part(p, fq);
    }
    assert(strncmp(h->site_key, h->key, strlen(h->key)) == 0);
    h->n = (int32_t)n;
    h->nlines = nlines;
    h->live = 1;
    h->idx = tab_n;
    lines_total += (size_t)nlines;
    tab[tab_n] = h;
    tab_n++;
done:
    free(lines);
    Py_XDECREF(file);
    Py_XDECREF(qual);
    Py_XDECREF(mod);
    Py_XDECREF(fq);
    return h;
}

/* Frees a record that has left the table. */
static void
hot_free(pc_hot *h)
{
#if PC_FREE_THREADING
    int k;
    for (k = 0; k < PC_SHARDS; k++)
        free(h->shard[k]);
#endif
    lines_total -= (size_t)h->nlines;
    free(h);
}

#if PC_FREE_THREADING
uint64_t *
pc_hot_shard_slow(pc_hot *h)
{
    pc_shard *s = pc_shard_mine();
    uint64_t *c;
    if (s->index < 0)
        return NULL;
    if (h->shard[s->index] != NULL) /* claimed just now, allocated before */
        return h->shard[s->index];
    c = calloc((size_t)h->n + 1, sizeof *c);
    if (c == NULL)
        return NULL; /* h->counts with atomic adds: exact, slower */
    pc_lock();
    h->shard[s->index] = c;
    pc_unlock();
    return c;
}

/* h's shard arrays into its counts, zeroed (the caller holds the lock
 * and no thread runs h's code, or the world is stopped). */
static void
hot_fold_shards(pc_hot *h)
{
    int k;
    for (k = 0; k < PC_SHARDS; k++) {
        uint64_t *c = h->shard[k];
        if (c == NULL)
            continue;
        pc_fold_u64(h->counts, c, (size_t)h->n);
        pc_fold_u64(&h->calls, c + h->n, 1);
    }
}

void
pc_hot_fold_all(void)
{
    size_t i;
    int k;
    for (i = 0; i < tab_n; i++)
        hot_fold_shards(tab[i]);
    for (k = 0; k < PC_SHARDS; k++)
        if (pc_shard_get(k) != NULL)
            pc_fold_u64((uint64_t *)&pc_calls_g, (uint64_t *)&pc_shard_get(k)->calls,
                        sizeof(pc_calls) / sizeof(uint64_t));
}

void
pc_hot_zero_shards(void)
{
    size_t i;
    int k;
    for (k = 0; k < PC_SHARDS; k++)
        if (pc_shard_get(k) != NULL)
            memset(&pc_shard_get(k)->calls, 0, sizeof(pc_calls));
    for (i = 0; i < tab_n; i++)
        for (k = 0; k < PC_SHARDS; k++)
            if (tab[i]->shard[k] != NULL)
                memset(tab[i]->shard[k], 0, ((size_t)tab[i]->n + 1) * sizeof(uint64_t));
}
#endif

static int
hot_empty(const pc_hot *h)
{
    int32_t u;
    if (h->calls)
        return 0;
    for (u = 0; u < h->n; u++)
        if (h->counts[u])
            return 0;
    return 1;
}

void
pc_hot_code_dead(pc_hot *h)
{
    size_t i = h->idx;
    /* Every record is in the table until the next clear (hotcode.h); a
     * code object dies once. */
    assert(h->live && i < tab_n && tab[i] == h);
#if PC_FREE_THREADING
    hot_fold_shards(h); /* no thread runs its code any more */
#endif
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
        hot_free(h);
    }
}

void
pc_hot_clear(void)
{
    size_t i, k = 0;
    for (i = 0; i < tab_n; i++) {
        pc_hot *h = tab[i];
        if (!h->live) {
            hot_free(h);
            continue;
        }
        memset(h->counts, 0, (size_t)h->n * sizeof(uint64_t));
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
    int32_t u;
    for (u = 0; u < h->n; u++)
        t += h->counts[u];
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
heap_sort(void *base, size_t n, size_t size, int (*before)(const void *, const void *))
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
    int32_t u;
    memset(acc, 0, PC_NOPS * sizeof *acc);
    for (k = g->start; k < g->start + g->len; k++) {
        const pc_hot *h = tab[k];
        for (u = 0; u < h->n; u++)
            acc[h->op[u]] += h->counts[u];
    }
}

/* Line order: by number, the no-line bucket last. */
static int
line_before(const void *x, const void *y)
{
    return ((const line_count *)x)->line < ((const line_count *)y)->line;
}

/* The executed lines of a group into lscratch, by line, each once;
 * returns how many. */
static size_t
group_lines(const hot_group *g)
{
    size_t m = 0, i, k;
    uint32_t j;
    for (j = g->start; j < g->start + g->len; j++) {
        const pc_hot *h = tab[j];
        int32_t r, u;
        for (r = 0; r < h->nlines; r++) {
            int32_t end = r + 1 < h->nlines ? h->lines[r + 1].start : h->n;
            uint64_t sum = 0;
            for (u = h->lines[r].start; u < end; u++)
                sum += h->counts[u];
            if (sum && m < lscratch_cap) {
                lscratch[m].line = h->lines[r].line == PC_NO_LINE ? INT64_MAX : h->lines[r].line;
                lscratch[m++].n = sum;
            }
        }
    }
    heap_sort(lscratch, m, sizeof *lscratch, line_before);
    for (i = k = 0; i < m; i++) {
        if (k > 0 && lscratch[k - 1].line == lscratch[i].line)
            lscratch[k - 1].n += lscratch[i].n;
        else
            lscratch[k++] = lscratch[i];
    }
    return k;
}

/* "code[KEY" then what follows the key (a PSF_KEY_CODE_* suffix). */
static void
put_code(psf_out *o, const char *key, const char *suffix)
{
    psf_put(o, PSF_KEY_CODE);
    psf_put(o, key);
    psf_put(o, suffix);
}

/* The calls.* keys (docs/FORMAT.md 1.15), PSF_CALLS, for the dump and
 * snapshot(). */
static const struct {
    const char *name;
    size_t offset; /* of its counter in pc_calls */
} call_keys[] = {
#define CALL_KEY(f, key, kind, label) {key, offsetof(pc_calls, f)},
    PSF_CALLS(CALL_KEY)
#undef CALL_KEY
};
#define NCALL_KEYS (sizeof call_keys / sizeof call_keys[0])

static uint64_t
call_count(size_t k)
{
    return *(const uint64_t *)((const char *)&pc_calls_g + call_keys[k].offset);
}

/* The group's top opcodes, by count, then by number. */
static void
write_opcodes(psf_out *o, const hot_group *g, const char *key)
{
    uint64_t acc[PC_NOPS];
    int n, i;
    group_opcodes(g, acc);
    for (n = 0; n < PC_HOT_TOP_OPS; n++) {
        int best = -1;
        for (i = 0; i < PC_NOPS; i++)
            if (acc[i] && (best < 0 || acc[i] > acc[best]))
                best = i;
        if (best < 0)
            break;
        put_code(o, key, PSF_KEY_CODE_OPCODE);
        psf_put(o, pc_g.opname[best]);
        psf_put(o, "]");
        psf_put_value(o, acc[best]);
        acc[best] = 0;
    }
}

/* The group's executed lines, if they fit in *room line entries (then
 * taken from it); 0 if they do not (nothing written). */
static int
write_lines(psf_out *o, const hot_group *g, const char *key, size_t *room)
{
    size_t m = group_lines(g), i;
    if (m > *room)
        return 0;
    *room -= m;
    for (i = 0; i < m; i++) {
        put_code(o, key, PSF_KEY_CODE_LINE);
        if (lscratch[i].line == INT64_MAX)
            psf_put(o, PSF_CODE_NO_LINE);
        else
            psf_put_u64(o, (uint64_t)lscratch[i].line);
        psf_put(o, "]");
        psf_put_value(o, lscratch[i].n);
    }
    return 1;
}

void
pc_hot_write(psf_out *o)
{
    size_t ng, k, room = PC_LINES_CAP;
    uint64_t omitted = 0;

    for (k = 0; k < NCALL_KEYS; k++) {
        if (!call_count(k))
            continue;
        psf_put(o, PSF_CALLS_PREFIX);
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
        put_code(o, key, PSF_KEY_CODE_INSTRUCTIONS);
        psf_put_value(o, g->total);
        put_code(o, key, PSF_KEY_CODE_CALLS);
        psf_put_value(o, g->calls);
        write_opcodes(o, g, key);
        /* Lines: the hottest entries whole, then none (1.18). */
        if (omitted || !write_lines(o, g, key, &room))
            omitted++;
    }
    if (omitted)
        psf_put_counter(o, PSF_KEY_CODE_LINES_OMITTED, omitted);
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

/* The group's executed lines as {line or None: count}; NULL with an
 * exception on failure. */
static PyObject *
lines_dict(const hot_group *g)
{
    PyObject *d = PyDict_New(), *k = NULL, *v = NULL;
    size_t m = group_lines(g), i;
    if (d == NULL)
        return NULL;
    for (i = 0; i < m; i++) {
        k = lscratch[i].line == INT64_MAX ? Py_NewRef(Py_None)
                                          : PyLong_FromLongLong((long long)lscratch[i].line);
        v = PyLong_FromUnsignedLongLong(lscratch[i].n);
        if (k == NULL || v == NULL || PyDict_SetItem(d, k, v) < 0)
            break;
        Py_CLEAR(k);
        Py_CLEAR(v);
    }
    if (i < m) {
        Py_XDECREF(k);
        Py_XDECREF(v);
        Py_CLEAR(d);
    }
    return d;
}

/* One group's {"instructions", "calls", "opcodes", "lines"}; NULL with
 * an exception on failure. */
static PyObject *
entry_dict(const hot_group *g)
{
    PyObject *entry = PyDict_New(), *ops = PyDict_New(), *lines = NULL;
    uint64_t acc[PC_NOPS];
    int i, ok = entry != NULL && ops != NULL;
    if (ok) {
        group_opcodes(g, acc);
        for (i = 0; ok && i < PC_NOPS; i++)
            if (acc[i] && set_u64(ops, pc_g.opname[i], acc[i]) < 0)
                ok = 0;
    }
    if (ok)
        ok = (lines = lines_dict(g)) != NULL;
    if (ok)
        ok = set_u64(entry, "instructions", g->total) == 0 &&
             set_u64(entry, "calls", g->calls) == 0 &&
             PyDict_SetItemString(entry, "opcodes", ops) == 0 &&
             PyDict_SetItemString(entry, "lines", lines) == 0;
    Py_XDECREF(ops);
    Py_XDECREF(lines);
    if (!ok)
        Py_CLEAR(entry);
    return entry;
}

int
pc_hot_snapshot(PyObject *dict)
{
    PyObject *code = NULL, *calls = NULL, *entry = NULL;
    size_t ng = 0, k;
    int ret = -1;
    /* No collection meanwhile: a finalizer's code could add records
     * (and grow the scratch space read here). */
    int gc_was_on = PyGC_Disable();

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
        entry = entry_dict(&groups[k]);
        if (entry == NULL || PyDict_SetItemString(code, tab[groups[k].start]->key, entry) < 0)
            goto done;
        Py_CLEAR(entry);
    }
    if (PyDict_SetItemString(dict, "code", code) < 0 ||
        PyDict_SetItemString(dict, "calls", calls) < 0)
        goto done;
    ret = 0;
done:
    Py_XDECREF(code);
    Py_XDECREF(calls);
    Py_XDECREF(entry);
    if (gc_was_on)
        PyGC_Enable();
    return ret;
}
