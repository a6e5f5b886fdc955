/* stats.c: GC and allocation statistics of a window.
 *
 * GC: a builtin function appended to gc.callbacks sees every collection
 * start and stop; its figures are those of gc.get_stats() over the same
 * window.  Allocations: wrappers around the PYMEM_DOMAIN_MEM and
 * PYMEM_DOMAIN_OBJ allocators count exactly what a --enable-pystats
 * build counts in PyMem_Malloc/PyObject_Malloc (and the frees), with its
 * size buckets, and forward to the allocator that was installed before.
 * Both are installed by on() and removed by off(), if still ours.
 */
#include "stats.h"
#include "rare.h"

#include <stddef.h>
#include <string.h>

#define PC_GC_GENERATIONS PSF_GC_GENERATIONS

/* One generation's GC statistics, PSF_GC (src/format/psf_stats.h). */
typedef struct pc_gc_gen {
#define GC_FIELD(f, prefix, sep, key, kind) uint64_t f;
    PSF_GC(GC_FIELD)
#undef GC_FIELD
} pc_gc_gen;

typedef struct pc_stats {
    pc_gc_gen gc[PC_GC_GENERATIONS];
    pc_allocs allocs; /* collector.h: the shards hold the same */
} pc_stats;

static pc_stats pc_st;


/* ---- GC ---- */

static PyObject *gc_callback; /* owned */
static struct timespec gc_start;

static uint64_t
ns_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (uint64_t)(t1.tv_sec - t0->tv_sec) * 1000000000u + (uint64_t)(t1.tv_nsec - t0->tv_nsec);
}

static uint64_t
dict_u64(PyObject *info, const char *key)
{
    PyObject *v = PyDict_GetItemString(info, key); /* borrowed */
    unsigned long long r;
    if (v == NULL)
        return 0;
    r = PyLong_AsUnsignedLongLong(v);
    if (r == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return r;
}

/* gc.callbacks: callback(phase, info).  Must not raise. */
static PyObject *
gc_cb(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const char *phase;
    (void)self;
    if (nargs < 2 || !pc_g.on || !PyUnicode_Check(args[0]) || !PyDict_Check(args[1]))
        Py_RETURN_NONE;
    phase = PyUnicode_AsUTF8(args[0]);
    if (phase == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (phase[0] == 's' && phase[1] == 't' && phase[2] == 'a') {
        clock_gettime(CLOCK_MONOTONIC, &gc_start);
    }
    else {
        uint64_t gen = dict_u64(args[1], "generation");
        if (gen < PC_GC_GENERATIONS) {
            pc_gc_gen *s = &pc_st.gc[gen];
            s->collections++;
            s->collected += dict_u64(args[1], "collected");
            s->uncollectable += dict_u64(args[1], "uncollectable");
            s->time_ns += ns_since(&gc_start);
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef gc_cb_def = {"_pystats_gc", (PyCFunction)(void (*)(void))gc_cb, METH_FASTCALL,
                                NULL};

/* Imported when the module is, not when a window opens: a first import
 * of gc inside a window would run importlib's Python code there and be
 * counted as the program's. */
static PyObject *gc_module;

int
pc_stats_init(void)
{
    if (gc_module == NULL)
        gc_module = PyImport_ImportModule("gc");
    return gc_module == NULL ? -1 : 0;
}

static PyObject *
gc_callbacks(void)
{
    if (gc_module == NULL && pc_stats_init() < 0)
        return NULL;
    return PyObject_GetAttrString(gc_module, "callbacks");
}

static int
gc_install(void)
{
    PyObject *cbs;
    int ret = -1, has;
    if (gc_callback == NULL) {
        gc_callback = PyCFunction_New(&gc_cb_def, NULL);
        if (gc_callback == NULL)
            return -1;
    }
    cbs = gc_callbacks();
    if (cbs == NULL)
        return -1;
    has = PySequence_Contains(cbs, gc_callback);
    if (has == 0)
        ret = PyList_Append(cbs, gc_callback);
    else
        ret = has < 0 ? -1 : 0;
    Py_DECREF(cbs);
    return ret;
}

static int
gc_remove(void)
{
    PyObject *cbs, *r;
    int has;
    if (gc_callback == NULL)
        return 0;
    cbs = gc_callbacks();
    if (cbs == NULL)
        return -1;
    has = PySequence_Contains(cbs, gc_callback);
    if (has > 0) {
        r = PyObject_CallMethod(cbs, "remove", "O", gc_callback);
        Py_XDECREF(r);
        has = r ? 0 : -1;
    }
    Py_DECREF(cbs);
    return has < 0 ? -1 : 0;
}

/* ---- allocations ---- */

typedef struct {
    PyMemAllocatorDomain domain;
    PyMemAllocatorEx orig;
    PyMemAllocatorEx ours;
    int installed;
} wrapped;

/* Whether the wrappers count: from on() to off(), even when off() leaves
 * them in the chain (inert: someone wrapped them meanwhile). */
static int pc_allocs_counting;
/* The events' ints (stats.h): every one made since the module loaded;
 * its value when the wrappers began counting; and those made while they
 * counted, not yet out of the figures (alloc_settle()). */
uint64_t pc_event_ints;
static uint64_t ints_at_on, ints_pending;

static wrapped domains[2] = {{PYMEM_DOMAIN_MEM, {0}, {0}, 0}, {PYMEM_DOMAIN_OBJ, {0}, {0}, 0}};

/* The buckets of CPython's own statistics (Objects/obmalloc.c):
 * < 512 bytes, < 4094 bytes, larger; calloc is bucketed by elsize. */
/* A free-threaded build counts into the thread's shard if it has one
 * (never claimed here: an allocator must not wait for a lock), else into
 * pc_st with atomic adds. */
#if PC_FREE_THREADING
#define ALLOC_ADD(field) PC_SHARD_ADD(pc_t.shard, allocs, pc_st.allocs, field)
#define ALLOC_ADD_N(field, n)                                 \
    do {                                                      \
        pc_shard *s_ = pc_t.shard;                            \
        if (s_ != NULL && s_->index >= 0)                     \
            s_->allocs.field += (n);                          \
        else                                                  \
            PC_ATOMIC_ADD(pc_st.allocs.field, (uint64_t)(n)); \
    } while (0)
#define ALLOC_COUNTING() pc_allocs_counting
#define ALLOCS() (&pc_st.allocs)
#else
/* The wrappers always count into pc_st (no test per call); from off()
 * to on() the figures are those kept at off(), and on() puts them back,
 * dropping what wrappers left in the chain counted meanwhile. */
static pc_allocs allocs_kept;
#define ALLOC_ADD(field) ((void)pc_st.allocs.field++)
#define ALLOC_ADD_N(field, n) ((void)(pc_st.allocs.field += (n)))
#define ALLOC_COUNTING() 1
#define ALLOCS() (pc_allocs_counting ? &pc_st.allocs : &allocs_kept)
#endif

/* One allocation of bytes bytes (a calloc's nelem * elsize), bucketed
 * by size.  The allocations are the buckets' sum, taken when the figures
 * are read (alloc_settle()): one add less per allocation. */
static inline void
count_alloc(size_t size, size_t bytes)
{
    ALLOC_ADD_N(allocated_bytes, bytes);
    if (size < 512)
        ALLOC_ADD(allocations512);
    else if (size < 4094)
        ALLOC_ADD(allocations4k);
    else
        ALLOC_ADD(allocations_big);
}

#if PC_FREE_THREADING
void
pc_stats_fold_shards(void)
{
    int k;
    for (k = 0; k < PC_SHARDS; k++)
        if (pc_shard_get(k) != NULL)
            pc_fold_u64((uint64_t *)&pc_st.allocs, (uint64_t *)&pc_shard_get(k)->allocs,
                        sizeof(pc_allocs) / sizeof(uint64_t));
}

void
pc_stats_zero_shards(void)
{
    int k;
    for (k = 0; k < PC_SHARDS; k++)
        if (pc_shard_get(k) != NULL)
            memset(&pc_shard_get(k)->allocs, 0, sizeof(pc_allocs));
}
#endif

static void *
w_malloc(void *ctx, size_t size)
{
    wrapped *w = ctx;
    if (ALLOC_COUNTING())
        count_alloc(size, size);
    return w->orig.malloc(w->orig.ctx, size);
}

static void *
w_calloc(void *ctx, size_t nelem, size_t elsize)
{
    wrapped *w = ctx;
    /* An overflowing product fails in the allocator: no bytes. */
    if (ALLOC_COUNTING())
        count_alloc(elsize, elsize && nelem > SIZE_MAX / elsize ? 0 : nelem * elsize);
    return w->orig.calloc(w->orig.ctx, nelem, elsize);
}

static void *
w_realloc(void *ctx, void *ptr, size_t size)
{
    wrapped *w = ctx;
    if (ALLOC_COUNTING())
        ALLOC_ADD(reallocs);
    return w->orig.realloc(w->orig.ctx, ptr, size);
}

static void
w_free(void *ctx, void *ptr)
{
    wrapped *w = ctx;
    if (ptr != NULL && ALLOC_COUNTING())
        ALLOC_ADD(frees);
    w->orig.free(w->orig.ctx, ptr);
}

static void
alloc_install(void)
{
    int i;
    for (i = 0; i < 2; i++) {
        wrapped *w = &domains[i];
        if (w->installed)
            continue;
        PyMem_GetAllocator(w->domain, &w->orig);
        w->ours.ctx = w;
        w->ours.malloc = w_malloc;
        w->ours.calloc = w_calloc;
        w->ours.realloc = w_realloc;
        w->ours.free = w_free;
        PyMem_SetAllocator(w->domain, &w->ours);
        w->installed = 1;
    }
    if (!pc_allocs_counting)
        ints_at_on = pc_event_ints;
#if !PC_FREE_THREADING
    if (!pc_allocs_counting)
        pc_st.allocs = allocs_kept;
#endif
    pc_allocs_counting = 1;
}

/* Memory allocated through the wrapper is freed correctly by the
 * original allocator: the wrapper only counts. */
static void
alloc_remove(void)
{
    int i;
    if (pc_allocs_counting)
        ints_pending += pc_event_ints - ints_at_on;
#if !PC_FREE_THREADING
    if (pc_allocs_counting)
        allocs_kept = pc_st.allocs;
#endif
    pc_allocs_counting = 0;
    for (i = 0; i < 2; i++) {
        wrapped *w = &domains[i];
        PyMemAllocatorEx cur;
        if (!w->installed)
            continue;
        PyMem_GetAllocator(w->domain, &cur);
        /* Someone wrapped us meanwhile: leave the chain intact. */
        if (cur.ctx != w || cur.malloc != w_malloc)
            continue;
        PyMem_SetAllocator(w->domain, &w->orig);
        w->installed = 0;
    }
}

/* ---- the window ---- */

int
pc_stats_install(void)
{
    /* Watching every module dict and class walks the heap: worth it for
     * a census window, too slow for the short, frequent count windows of
     * benchmark harnesses. */
    if (gc_install() < 0 || (pc_g.mode == PC_MODE_CENSUS && pc_rare_install() < 0))
        return -1;
    alloc_install();
    return 0;
}

int
pc_stats_remove(void)
{
    int ret = 0;
    alloc_remove();
    if (pc_rare_remove() < 0)
        ret = -1;
    if (gc_remove() < 0)
        ret = -1;
    return ret;
}

void
pc_stats_clear(void)
{
    memset(&pc_st, 0, sizeof pc_st);
#if !PC_FREE_THREADING
    memset(&allocs_kept, 0, sizeof allocs_kept);
#endif
    ints_pending = 0;
    ints_at_on = pc_event_ints;
    pc_rare_clear();
}

/* a - b, or 0: an event's int another tool kept alive was never freed */
static uint64_t
minus(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* The figures made ready to read: the ints made for events
 * (pc_stats_event_ints()) taken out (each was one allocation of a
 * PyLongObject under 512 bytes, and one free), and the allocations
 * summed from their buckets (count_alloc()). */
static void
alloc_settle(void)
{
    uint64_t n = ints_pending + (pc_allocs_counting ? pc_event_ints - ints_at_on : 0);
    pc_allocs *a = ALLOCS();
    ints_pending = 0;
    ints_at_on = pc_event_ints;
    if (n > 0) {
        assert(a->allocations512 >= n);
        a->allocations512 = minus(a->allocations512, n);
        a->frees = minus(a->frees, n);
        a->allocated_bytes = minus(a->allocated_bytes, n * (uint64_t)sizeof(PyLongObject));
    }
    a->allocations = a->allocations512 + a->allocations4k + a->allocations_big;
}

int
pc_stats_has_data(void)
{
    const pc_allocs *a = ALLOCS();
    int g;
    alloc_settle();
    for (g = 0; g < PC_GC_GENERATIONS; g++)
        if (pc_st.gc[g].collections)
            return 1;
    return a->allocations || a->frees || a->reallocs || pc_rare_has_data();
}

/* PREFIX G SEP KEY : v, a GC key of generation gen. */
static void
put_gc(psf_out *o, const char *prefix, int gen, const char *sep, const char *key, uint64_t v)
{
    char num[24];
    psf_put(o, prefix);
    psf_u64_to_str((uint64_t)gen, num);
    psf_put(o, num);
    psf_put(o, sep);
    psf_put(o, key);
    psf_put_value(o, v);
}

void
pc_stats_write(psf_out *o)
{
    int g;
    alloc_settle();
    for (g = 0; g < PC_GC_GENERATIONS; g++) {
#define GC_PUT(f, prefix, sep, key, kind) put_gc(o, prefix, g, sep, key, pc_st.gc[g].f);
        PSF_GC(GC_PUT)
#undef GC_PUT
    }
#define OBJ_PUT(f, key, kind, label) psf_put_counter(o, PSF_OBJECTS_PREFIX key, ALLOCS()->f);
    PSF_OBJECTS(OBJ_PUT)
#undef OBJ_PUT
    pc_rare_write(o);
}

/* A statistic of a family's struct: its snapshot() name (the field's)
 * and where the field is. */
typedef struct stat_row {
    const char *name;
    size_t offset;
} stat_row;

/* {name: count} of a family's struct s, in its rows' order; NULL with
 * an exception. */
static PyObject *
stats_dict(const void *s, const stat_row *rows, size_t n)
{
    PyObject *d = PyDict_New(), *v;
    size_t i;
    for (i = 0; d != NULL && i < n; i++) {
        v = PyLong_FromUnsignedLongLong(*(const uint64_t *)((const char *)s + rows[i].offset));
        if (v == NULL || PyDict_SetItemString(d, rows[i].name, v) < 0)
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

#define STAT_ROW(type, f) {#f, offsetof(type, f)},
#define GC_ROW(f, prefix, sep, key, kind) STAT_ROW(pc_gc_gen, f)
#define OBJ_ROW(f, key, kind, label) STAT_ROW(pc_allocs, f)
#define RARE_ROW(f, key, kind, label) STAT_ROW(pc_rare, f)
static const stat_row gc_rows[] = {PSF_GC(GC_ROW)};
static const stat_row obj_rows[] = {PSF_OBJECTS(OBJ_ROW)};
static const stat_row rare_rows[] = {PSF_RARE(RARE_ROW)};
#undef GC_ROW
#undef OBJ_ROW
#undef RARE_ROW
#undef STAT_ROW

int
pc_stats_snapshot(PyObject *dict)
{
    PyObject *gc = NULL, *obj = NULL; /* owned */
    int g, ret = -1;
    gc = PyList_New(PC_GC_GENERATIONS);
    if (gc == NULL)
        return -1;
    for (g = 0; g < PC_GC_GENERATIONS; g++) {
        PyObject *d = stats_dict(&pc_st.gc[g], gc_rows, PSF_NGC);
        if (d == NULL)
            goto done;
        PyList_SET_ITEM(gc, g, d);
    }
    alloc_settle();
    obj = stats_dict(ALLOCS(), obj_rows, PSF_NOBJECTS);
    if (obj == NULL)
        goto done;
    if (PyDict_SetItemString(dict, "gc", gc) < 0 || PyDict_SetItemString(dict, "objects", obj) < 0)
        goto done;
    Py_CLEAR(obj);
    obj = stats_dict(&pc_rare_counts, rare_rows, PSF_NRARE);
    if (obj == NULL || PyDict_SetItemString(dict, "rare", obj) < 0)
        goto done;
    ret = 0;
done:
    Py_XDECREF(gc);
    Py_XDECREF(obj);
    return ret;
}
