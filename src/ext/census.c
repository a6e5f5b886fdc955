/* census.c: reading the specialization state of code objects.
 *
 * Each specializable instruction site is in one of these states, read
 * from its opcode in the adaptive bytecode and from the backoff counter
 * in its first inline cache entry (docs/FORMAT.md, "Census"):
 *   specialized   - the opcode is one of the family's specialized forms;
 *   backing off   - base (3.12+) or *_ADAPTIVE (3.11) form whose backoff
 *                   exponent says that specialization failed: the number
 *                   of consecutive failed attempts is the exponent minus
 *                   its warm-up value (PC_WARMUP_BACKOFF);
 *   never tried   - base/adaptive form still at its warm-up exponent, or
 *                   (3.11) code not yet quickened.
 * Caches that are not specialization state (3.13: JUMP_BACKWARD's
 * optimizer counter, POP_JUMP_IF_*'s branch history) belong to opcodes
 * that are no site, and are only skipped over.
 */
#include "census.h"

#include <string.h>

pc_census_tables pc_ct;
pc_census pc_census_live;
pc_census pc_census_dead;

/* The individually reported sites, as ready-made dump lines. */
static char *site_lines;      /* PyMem_RawMalloc'd, or NULL */

int
pc_census_code(PyObject *code, pc_census *acc, PyObject *sites)
{
    const uint16_t *units;
    Py_ssize_t n, i;

    if (!pc_ct.ready || !PyCode_Check(code))
        return 0;
    units = pc_code_units((PyCodeObject *)code);
    n = pc_code_nunits((PyCodeObject *)code);
    /* A code object instrumented by some sys.monitoring tool hides its
     * opcodes behind INSTRUMENTED_*: count it, read nothing. */
    for (i = 0; i < n; i++) {
        int op = units[i] & 0xff;
        if (pc_ct.kind[op] == PC_SITE_INSTRUMENTED) {
            acc->instrumented_code_objects++;
            return 0;
        }
        i += pc_ct.caches[op];
    }
    acc->code_objects++;
    for (i = 0; i < n; i++) {
        int op = units[i] & 0xff;
        int kind = pc_ct.kind[op];
        int fam = pc_ct.base[op];
        int ncache = pc_ct.caches[op];
        if (kind != PC_SITE_NONE) {
            acc->sites[fam]++;
            if (kind == PC_SITE_SPECIALIZED) {
                acc->specialized[fam]++;
                acc->forms[op]++;
            }
            else if (kind == PC_SITE_PLAIN) {
                /* no counter: neither tried nor failed */
            }
            else if (kind == PC_SITE_BASE && PC_UNQUICKENED_IS_BASE) {
                /* 3.11: the code has not been quickened yet */
                acc->never_tried[fam]++;
            }
            else if (ncache > 0 && i + 1 < n) {
                unsigned counter = units[i + 1];
                unsigned backoff = counter & 15;
                if (backoff > PC_WARMUP_BACKOFF) {
                    unsigned fails = backoff - PC_WARMUP_BACKOFF;
                    acc->backing_off[fam]++;
                    acc->failures[fam] += fails;
                    if (sites != NULL) {
                        PyObject *t = Py_BuildValue(
                            "(nsII)", i * 2, pc_ct.name[fam], fails,
                            counter >> 4);
                        if (t == NULL || PyList_Append(sites, t) < 0) {
                            Py_XDECREF(t);
                            return -1;
                        }
                        Py_DECREF(t);
                    }
                }
                else {
                    acc->never_tried[fam]++;
                }
            }
        }
        i += ncache;
    }
    return 0;
}

static int
census_empty(const pc_census *c)
{
    return c->code_objects == 0 && c->instrumented_code_objects == 0;
}

int
pc_census_has_data(void)
{
    return !census_empty(&pc_census_live) || !census_empty(&pc_census_dead);
}

void
pc_census_clear(void)
{
    memset(&pc_census_live, 0, sizeof pc_census_live);
    memset(&pc_census_dead, 0, sizeof pc_census_dead);
    PyMem_RawFree(site_lines);
    site_lines = NULL;
}

static void
put_family(psf_out *o, const char *fam, const char *what, const char *form,
           uint64_t v)
{
    psf_put(o, "census.family[");
    psf_put(o, fam);
    psf_put(o, "].");
    psf_put(o, what);
    if (form) {
        psf_put(o, "[");
        psf_put(o, form);
        psf_put(o, "]");
    }
    psf_put_value(o, v);
}

/* Live and dead code objects together: the state of every site the
 * process had, as far as the census could reach it. */
void
pc_census_write(psf_out *o)
{
    const pc_census *a = &pc_census_live, *d = &pc_census_dead;
    int f, op;

    psf_put_counter(o, "census.code_objects", a->code_objects);
    psf_put_counter(o, "census.dead_code_objects", d->code_objects);
    psf_put_counter(o, "census.instrumented_code_objects",
              a->instrumented_code_objects + d->instrumented_code_objects);
    for (f = 0; f < PC_NOPS; f++) {
        uint64_t sites = a->sites[f] + d->sites[f];
        const char *fam = pc_ct.name[f];
        if (!sites)
            continue;
        put_family(o, fam, "sites", NULL, sites);
        put_family(o, fam, "specialized", NULL,
                   a->specialized[f] + d->specialized[f]);
        for (op = 0; op < PC_NOPS; op++)
            if (pc_ct.base[op] == f && (a->forms[op] + d->forms[op]))
                put_family(o, fam, "specialized", pc_ct.name[op],
                           a->forms[op] + d->forms[op]);
        put_family(o, fam, "backing_off", NULL,
                   a->backing_off[f] + d->backing_off[f]);
        put_family(o, fam, "failed_attempts", NULL,
                   a->failures[f] + d->failures[f]);
        put_family(o, fam, "never_tried", NULL,
                   a->never_tried[f] + d->never_tried[f]);
    }
    if (site_lines)
        psf_put(o, site_lines);
}

#if PC_HAVE_CODE_WATCHER
static int watcher_id = -1;

/* A code object about to die: its sites join the census (sites of
 * code that ran and is gone would otherwise never be seen). */
static int
on_code_event(PyCodeEvent event, PyCodeObject *co)
{
    if (event == PY_CODE_EVENT_DESTROY && pc_g.census_wanted)
        pc_census_code((PyObject *)co, &pc_census_dead, NULL);
    return 0;
}

int
pc_census_watch(void)
{
    if (watcher_id >= 0)
        return 0;
    watcher_id = PyCode_AddWatcher(on_code_event);
    return watcher_id < 0 ? -1 : 0;
}
#else
int
pc_census_watch(void)
{
    return 0;
}
#endif

/* The walk over live code objects is Python (python/pystats/_census.py):
 * it needs gc, frames, audit hooks and linecache.  It calls back into
 * pc_census_code() for each code object. */
static int
call_census(const char *fn)
{
    PyObject *mod = PyImport_ImportModule("pystats._census");  /* owned */
    PyObject *r;
    if (mod == NULL)
        return -1;
    r = PyObject_CallMethod(mod, fn, NULL);
    Py_DECREF(mod);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

int
pc_census_setup(void)
{
    if (call_census("setup") < 0)
        return -1;
    return pc_census_watch();
}

int
pc_census_take(void)
{
    if (!pc_g.census_wanted)
        return 0;
    return call_census("take");
}

/* ---- the private API the Python walk uses ---- */

static int
copy_table(PyObject *b, uint8_t *dst)
{
    if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) != PC_NOPS) {
        PyErr_SetString(PyExc_ValueError, "census table must be 256 bytes");
        return -1;
    }
    memcpy(dst, PyBytes_AS_STRING(b), PC_NOPS);
    return 0;
}

static PyObject *
census_setup_fn(PyObject *self, PyObject *args)
{
    PyObject *names, *kind, *base, *caches;
    Py_ssize_t i;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!SSS:_census_tables", &PyList_Type, &names,
                          &kind, &base, &caches))
        return NULL;
    if (PyList_GET_SIZE(names) != PC_NOPS) {
        PyErr_SetString(PyExc_ValueError, "need 256 opcode names");
        return NULL;
    }
    if (copy_table(kind, pc_ct.kind) < 0 || copy_table(base, pc_ct.base) < 0 ||
        copy_table(caches, pc_ct.caches) < 0)
        return NULL;
    for (i = 0; i < PC_NOPS; i++) {
        const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(names, i));
        if (s == NULL)
            return NULL;
        psf_strlcpy(pc_ct.name[i], s, PC_OPNAME_MAX);
    }
    pc_ct.ready = 1;
    Py_RETURN_NONE;
}

static PyObject *
census_begin_fn(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    memset(&pc_census_live, 0, sizeof pc_census_live);
    PyMem_RawFree(site_lines);
    site_lines = NULL;
    Py_RETURN_NONE;
}

static PyObject *
census_code_fn(PyObject *self, PyObject *args)
{
    PyObject *code, *sites = Py_None;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!|O:_census_code", &PyCode_Type, &code,
                          &sites))
        return NULL;
    if (sites != Py_None && !PyList_Check(sites)) {
        PyErr_SetString(PyExc_TypeError, "sites must be a list or None");
        return NULL;
    }
    if (pc_census_code(code, &pc_census_live,
                       sites == Py_None ? NULL : sites) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
census_sites_fn(PyObject *self, PyObject *arg)
{
    const char *s;
    size_t n;
    char *copy;
    (void)self;
    s = PyUnicode_AsUTF8(arg);
    if (s == NULL)
        return NULL;
    n = strlen(s);
    copy = PyMem_RawMalloc(n + 1);
    if (copy == NULL)
        return PyErr_NoMemory();
    memcpy(copy, s, n + 1);
    PyMem_RawFree(site_lines);
    site_lines = copy;
    Py_RETURN_NONE;
}

/* The live tally as a dict, for tests and tools:
 * {"code_objects": n, "families": {family: {"sites": n, ...}}}. */
static PyObject *
census_totals_fn(PyObject *self, PyObject *unused)
{
    const pc_census *a = &pc_census_live;
    PyObject *fams = NULL, *result = NULL;   /* owned */
    int f, op;
    (void)self;
    (void)unused;
    fams = PyDict_New();
    if (fams == NULL)
        return NULL;
    for (f = 0; f < PC_NOPS; f++) {
        PyObject *forms, *d;
        int err;
        if (!a->sites[f])
            continue;
        forms = PyDict_New();
        if (forms == NULL)
            goto done;
        for (op = 0; op < PC_NOPS; op++) {
            if (pc_ct.base[op] == f && a->forms[op]) {
                PyObject *v = PyLong_FromUnsignedLongLong(a->forms[op]);
                if (v == NULL ||
                    PyDict_SetItemString(forms, pc_ct.name[op], v) < 0) {
                    Py_XDECREF(v);
                    Py_DECREF(forms);
                    goto done;
                }
                Py_DECREF(v);
            }
        }
        d = Py_BuildValue("{sKsKsKsKsKsN}",
                          "sites", (unsigned long long)a->sites[f],
                          "specialized", (unsigned long long)a->specialized[f],
                          "backing_off", (unsigned long long)a->backing_off[f],
                          "failed_attempts", (unsigned long long)a->failures[f],
                          "never_tried", (unsigned long long)a->never_tried[f],
                          "forms", forms);
        if (d == NULL)
            goto done;
        err = PyDict_SetItemString(fams, pc_ct.name[f], d);
        Py_DECREF(d);
        if (err < 0)
            goto done;
    }
    result = Py_BuildValue("{sKsKsO}", "code_objects",
                           (unsigned long long)a->code_objects,
                           "instrumented_code_objects",
                           (unsigned long long)a->instrumented_code_objects,
                           "families", fams);
done:
    Py_XDECREF(fams);
    return result;
}

PyMethodDef pc_census_methods[] = {
    {"_census_tables", census_setup_fn, METH_VARARGS, NULL},
    {"_census_begin", census_begin_fn, METH_NOARGS, NULL},
    {"_census_code", census_code_fn, METH_VARARGS, NULL},
    {"_census_sites", census_sites_fn, METH_O, NULL},
    {"_census_totals", census_totals_fn, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
