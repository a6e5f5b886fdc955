/* census.c: the census of a dump period: the live and dead tallies,
 * the period's scope and state (taken, failed and why), the dump lines,
 * and the private API through which python/pystats/_census.py fills
 * the live census (what a site's state is: census_read.c; the code
 * objects reached: census_registry.c; the walk driven: census_take.c).
 */
#include "census.h"
#include "codeinfo.h"
#include "text.h"

#include <string.h>

static pc_census pc_census_live; /* taken at dump time */
pc_census pc_census_dead;

/* The individually reported sites, as ready-made dump lines. */
static char *site_lines; /* PyMem_RawMalloc'd, or NULL */

/* Since the last dump or clear: a count window that takes the census
 * was open (count_census); the live census was taken, and in what scope
 * (taken, live_scope).  count_option is the census option of the last
 * count window: a clear while it is open starts a period of that window. */
static int count_census;
static int count_option = 1;
static int taken;
static pc_census_scope live_scope;
/* Periods cleared (census_gen) and the one a walk began in (walk_gen):
 * the walk calls Python, which lets other threads run, and another
 * thread's dump() may write and clear the period meanwhile.  Such a walk
 * is overtaken: what it still reads is dropped, and it takes no census
 * (the period it began in was dumped with the other thread's). */
static unsigned long census_gen, walk_gen;

static int
overtaken(void)
{
    return walk_gen != census_gen || live_scope == PC_CENSUS_NONE;
}
/* Why this period's census could not be taken (free text, FORMAT.md
 * 1.16), or "": the dump's meta.census.error. */
static char census_error[PC_META_MAX];

static int
census_empty(const pc_census *c)
{
    return c->code_objects == 0 && c->instrumented_code_objects == 0;
}

/* Only a census that was taken is written: a dump with none (SIGTERM,
 * or no Python code could run) does not pass off the code objects that
 * died meanwhile as a census. */
int
pc_census_has_data(void)
{
    assert(!taken || live_scope != PC_CENSUS_NONE);
    return taken && (!census_empty(&pc_census_live) || !census_empty(&pc_census_dead));
}

static Py_ssize_t code_extra_index = -1;

void
pc_census_init(Py_ssize_t extra_index)
{
    code_extra_index = extra_index;
}

pc_hot *
pc_census_hot_of(PyObject *code)
{
    void *extra = NULL;
    if (code_extra_index < 0 || pc_code_get_extra(code, code_extra_index, &extra) != 0 ||
        extra == NULL) {
        PyErr_Clear();
        return NULL;
    }
    return ((pc_codeinfo *)extra)->hot;
}

/* Scope count reads a code object only if some instruction of it was
 * counted in this period (docs/FORMAT.md 1.10): a per code record is not
 * enough, segment counting has one for every frame it read, the frames
 * that enclose a window (measure()'s or on()'s callers) among them. */
int
pc_census_ran(PyObject *code)
{
    return pc_hot_ran(pc_census_hot_of(code));
}

void
pc_census_count_dead(PyObject *code, const pc_hot *h)
{
    if (pc_ct.ready && !taken && pc_census_period_scope() == PC_CENSUS_COUNT && pc_hot_ran(h))
        pc_census_code(code, &pc_census_dead, NULL, PC_CENSUS_COUNT);
}

int
pc_census_taken(void)
{
    return taken;
}

void
pc_census_clear(void)
{
    memset(&pc_census_live, 0, sizeof pc_census_live);
    memset(&pc_census_dead, 0, sizeof pc_census_dead);
    PyMem_RawFree(site_lines);
    site_lines = NULL;
    taken = 0;
    census_error[0] = '\0';
    live_scope = PC_CENSUS_NONE;
    census_gen++;
    /* The next period takes one if the count window open now does. */
    count_census = PC_HAVE_MONITORING && pc_g.on && pc_g.mode == PC_MODE_COUNT && count_option;
}

void
pc_census_count_window(int census)
{
    count_option = census;
    if (census)
        count_census = 1;
}

int
pc_census_count_option(void)
{
    return count_option;
}

/* A count window's census wins over a census window's in the same
 * period: the code its events instrumented can only be read in scope
 * count. */
pc_census_scope
pc_census_period_scope(void)
{
    if (count_census)
        return PC_CENSUS_COUNT;
    if (pc_g.census_wanted)
        return PC_CENSUS_CENSUS;
    return PC_CENSUS_NONE;
}

static const char *
scope_name(pc_census_scope scope)
{
    switch (scope) {
    case PC_CENSUS_CENSUS:
        return "census";
    case PC_CENSUS_COUNT:
        return "count";
    default:
        return NULL;
    }
}

const char *
pc_census_scope_name(void)
{
    return pc_census_has_data() ? scope_name(live_scope) : NULL;
}

static void
put_family(psf_out *o, const char *fam, const char *what, const char *form, uint64_t v)
{
    psf_put(o, PSF_CENSUS_FAMILY_PREFIX);
    psf_put(o, fam);
    psf_put(o, PSF_CENSUS_FAMILY_SEP);
    psf_put(o, what);
    if (form) {
        psf_put(o, "[");
        psf_put(o, form);
        psf_put(o, "]");
    }
    psf_put_value(o, v);
}

/* Family f's specialized forms, key[FORM], after its specialized row
 * (whose key is key). */
static void
put_forms(psf_out *o, const pc_census *a, const pc_census *d, int f, const char *key)
{
    int op;

    for (op = 0; op < PC_NOPS; op++)
        if (pc_ct.base[op] == f && (a->forms[op] + d->forms[op]))
            put_family(o, pc_ct.name[f], key, pc_ct.name[op], a->forms[op] + d->forms[op]);
}

/* One figure of family f (PSF_CENSUS_FAMILY's row field), live and
 * dead summed; the specialized forms follow their row. */
#define PUT_FIGURE(field, key, label, den)                              \
    put_family(o, pc_ct.name[f], key, NULL, a->field[f] + d->field[f]); \
    if (PSF_CF_##field == PSF_CF_specialized)                           \
        put_forms(o, a, d, f, key);

/* Live and dead code objects together: the state of every site the
 * process had, as far as the census could reach it. */
void
pc_census_write(psf_out *o)
{
    const pc_census *a = &pc_census_live, *d = &pc_census_dead;
    int count_scope = live_scope == PC_CENSUS_COUNT;
    int f;

    /* dump.c writes only a census taken (pc_census_has_data()). */
    assert(taken && live_scope != PC_CENSUS_NONE);
    psf_put_counter(o, PSF_KEY_CENSUS_CODE, a->code_objects);
    psf_put_counter(o, PSF_KEY_CENSUS_DEAD, d->code_objects);
    psf_put_counter(o, PSF_KEY_CENSUS_INSTRUMENTED,
                    a->instrumented_code_objects + d->instrumented_code_objects);
    /* Scope count: every family left out, with its sites, 0 included, so
     * that the dump says which were left out even where none was seen.
     * Sites of those families read in scope census earlier in the same
     * period (a census window, then a count window) are left out too. */
    for (f = 0; count_scope && f < PC_NOPS; f++) {
        if (!pc_ct.excluded[f])
            continue;
        psf_put(o, PSF_KEY_CENSUS_EXCLUDED);
        psf_put(o, pc_ct.name[f]);
        psf_put(o, "]");
        psf_put_value(o, a->excluded[f] + d->excluded[f] + a->sites[f] + d->sites[f]);
    }
    for (f = 0; f < PC_NOPS; f++) {
        if (!(a->sites[f] + d->sites[f]) || (count_scope && pc_ct.excluded[f]))
            continue;
        PSF_CENSUS_FAMILY(PUT_FIGURE)
    }
    if (site_lines)
        psf_put(o, site_lines);
}

const char *
pc_census_error(void)
{
    return census_error[0] ? census_error : NULL;
}

void
pc_census_taking(pc_census_scope scope)
{
    assert(scope != PC_CENSUS_NONE);
    live_scope = scope;
    walk_gen = census_gen;
}

void
pc_census_took(int ok)
{
    if (ok && overtaken()) {
        taken = 0; /* the period it began in was dumped by another thread */
        return;
    }
    if (ok) {
        census_error[0] = '\0';
        return;
    }
    memset(&pc_census_live, 0, sizeof pc_census_live);
    taken = 0;
}

void
pc_census_failed(void)
{
    pc_exc failure = pc_exc_save();
    PyObject *exc = pc_exc_object(&failure); /* borrowed */
    PyObject *text = NULL;                   /* owned */
    int cut;
    if (exc != NULL) {
        /* "TYPE: MESSAGE", or the type alone for an exception without
         * a message (a MemoryError): never "MemoryError: ". */
        const char *name = Py_TYPE(exc)->tp_name;
        PyObject *msg = PyObject_Str(exc);
        if (msg != NULL && PyUnicode_Check(msg) && PyUnicode_GetLength(msg) > 0)
            text = PyUnicode_FromFormat("%s: %U", name, msg);
        else {
            PyErr_Clear();
            text = PyUnicode_FromString(name);
        }
        Py_XDECREF(msg);
    }
    if (text == NULL || pc_text_encode(text, census_error, sizeof census_error, &cut) < 0)
        psf_strlcpy(census_error, "an error that could not be described", sizeof census_error);
    PyErr_Clear();
    if (text != NULL) {
        const char *u = PyUnicode_AsUTF8(text);
        PySys_FormatStderr("pystats: the specialization census could not be "
                           "taken (%s): the dump has none and says why "
                           "(meta.census.error)\n",
                           u != NULL ? u : census_error);
        PyErr_Clear();
    }
    Py_XDECREF(text);
    pc_exc_drop(failure);
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
    if (!PyArg_ParseTuple(args, "O!SSS:_census_tables", &PyList_Type, &names, &kind, &base,
                          &caches))
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
    /* The families scope count leaves out: those of a site kind that
     * segment counting instruments (INSTRUMENTED_FOR_ITER -> FOR_ITER). */
    memset(pc_ct.excluded, 0, sizeof pc_ct.excluded);
    for (i = 0; i < PC_NOPS; i++) {
        int fam = pc_ct.base[i];
        if (pc_ct.kind[i] == PC_SITE_SEGMENT &&
            (pc_ct.kind[fam] == PC_SITE_BASE || pc_ct.kind[fam] == PC_SITE_PLAIN))
            pc_ct.excluded[fam] = 1;
    }
    pc_ct.ready = 1;
    Py_RETURN_NONE;
}

/* _census_begin(scope=None): start the live census afresh, read in
 * scope "census" or "count" (None: the period's, else "census"). */
static PyObject *
census_begin_fn(PyObject *self, PyObject *args)
{
    const char *name = NULL;
    pc_census_scope scope;
    (void)self;
    if (!PyArg_ParseTuple(args, "|z:_census_begin", &name))
        return NULL;
    if (name == NULL) {
        scope = pc_census_period_scope();
        if (scope == PC_CENSUS_NONE)
            scope = PC_CENSUS_CENSUS;
    }
    else if (strcmp(name, "census") == 0) {
        scope = PC_CENSUS_CENSUS;
    }
    else if (strcmp(name, "count") == 0) {
        scope = PC_CENSUS_COUNT;
    }
    else {
        PyErr_Format(PyExc_ValueError, "unknown census scope %s", name);
        return NULL;
    }
    live_scope = scope;
    walk_gen = census_gen;
    taken = 0;
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
    if (!PyArg_ParseTuple(args, "O!|O:_census_code", &PyCode_Type, &code, &sites))
        return NULL;
    if (sites != Py_None && !PyList_Check(sites)) {
        PyErr_SetString(PyExc_TypeError, "sites must be a list or None");
        return NULL;
    }
    if (overtaken())
        Py_RETURN_NONE;
    if (pc_census_code(code, &pc_census_live, sites == Py_None ? NULL : sites, live_scope) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* census.site[I] : F | ATTEMPTS | COUNTER | FILE | LINE | QUALNAME | SOURCE
 * (docs/FORMAT.md 1.10), the free text in the dump's encoding (text.h).
 * rows: a list of (family, attempts, counter, file, line, qualname,
 * source), already ordered; returns the lines as one str. */
static PyObject *
site_text(PyObject *rows)
{
    PyObject *parts = NULL, *sep = NULL, *result = NULL; /* owned */
    Py_ssize_t i, j;

    parts = PyList_New(0);
    if (parts == NULL)
        goto done;
    for (i = 0; i < PyList_GET_SIZE(rows); i++) {
        PyObject *row = PyList_GET_ITEM(rows, i); /* borrowed */
        PyObject *f[7] = {NULL}, *line = NULL;    /* owned */
        int err = -1;
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 7) {
            PyErr_SetString(PyExc_TypeError, "census site rows are 7-tuples");
            goto done;
        }
        for (j = 0; j < 7; j++) {
            PyObject *v = PyTuple_GET_ITEM(row, j); /* borrowed */
            f[j] = PyLong_Check(v) ? PyObject_Str(v) : pc_text_encode_str(v);
            if (f[j] == NULL)
                goto row_done;
        }
        line = PyUnicode_FromFormat(PSF_KEY_CENSUS_SITE "%zd] : %U | %U | %U | %U | %U | %U | %U\n",
                                    i, f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
        if (line != NULL)
            err = PyList_Append(parts, line);
row_done:
        for (j = 0; j < 7; j++)
            Py_XDECREF(f[j]);
        Py_XDECREF(line);
        if (err < 0)
            goto done;
    }
    sep = PyUnicode_FromString("");
    if (sep != NULL)
        result = PyUnicode_Join(sep, parts);
done:
    Py_XDECREF(parts);
    Py_XDECREF(sep);
    return result;
}

static PyObject *
census_sites_fn(PyObject *self, PyObject *arg)
{
    PyObject *text; /* owned */
    const char *s;
    Py_ssize_t n;
    char *copy;
    (void)self;
    if (!PyList_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "_census_sites takes a list of rows");
        return NULL;
    }
    text = site_text(arg);
    if (text == NULL)
        return NULL;
    s = PyUnicode_AsUTF8AndSize(text, &n);
    copy = s ? PyMem_RawMalloc((size_t)n + 1) : NULL;
    if (copy == NULL) {
        Py_DECREF(text);
        return s ? PyErr_NoMemory() : NULL;
    }
    memcpy(copy, s, (size_t)n + 1);
    Py_DECREF(text);
    if (overtaken()) { /* another thread's dump wrote and cleared the period */
        PyMem_RawFree(copy);
        Py_RETURN_NONE;
    }
    PyMem_RawFree(site_lines);
    site_lines = copy;
    taken = 1; /* the walk's last step: the census is whole */
    Py_RETURN_NONE;
}

/* Py_BuildValue's format and arguments of a family's figures
 * (PSF_CENSUS_FAMILY), in the list's order. */
#define TOTALS_FORMAT(field, key, label, den) "sK"
#define TOTALS_ARGS(field, key, label, den) key, (unsigned long long)a->field[f],

/* The live tally as a dict, for tests and tools:
 * {"scope": "census"|"count", "code_objects": n, ...,
 *  "families": {family: {"sites": n, ...}},
 *  "excluded": {family: sites} (scope count: every family left out)}. */
static PyObject *
census_totals_fn(PyObject *self, PyObject *unused)
{
    const pc_census *a = &pc_census_live;
    PyObject *fams = NULL, *excl = NULL, *result = NULL; /* owned */
    int f, op;
    (void)self;
    (void)unused;
    fams = PyDict_New();
    excl = PyDict_New();
    if (fams == NULL || excl == NULL)
        goto done;
    for (f = 0; live_scope == PC_CENSUS_COUNT && f < PC_NOPS; f++) {
        PyObject *v;
        int err;
        if (!pc_ct.excluded[f])
            continue;
        v = PyLong_FromUnsignedLongLong(a->excluded[f]);
        if (v == NULL)
            goto done;
        err = PyDict_SetItemString(excl, pc_ct.name[f], v);
        Py_DECREF(v);
        if (err < 0)
            goto done;
    }
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
                if (v == NULL || PyDict_SetItemString(forms, pc_ct.name[op], v) < 0) {
                    Py_XDECREF(v);
                    Py_DECREF(forms);
                    goto done;
                }
                Py_DECREF(v);
            }
        }
        d = Py_BuildValue("{" PSF_CENSUS_FAMILY(TOTALS_FORMAT) "sN}",
                          PSF_CENSUS_FAMILY(TOTALS_ARGS) "forms", forms);
        if (d == NULL)
            goto done;
        err = PyDict_SetItemString(fams, pc_ct.name[f], d);
        Py_DECREF(d);
        if (err < 0)
            goto done;
    }
    result = Py_BuildValue(
        "{sssKsKsOsO}", "scope", scope_name(live_scope) ? scope_name(live_scope) : "census",
        "code_objects", (unsigned long long)a->code_objects, "instrumented_code_objects",
        (unsigned long long)a->instrumented_code_objects, "families", fams, "excluded", excl);
done:
    Py_XDECREF(fams);
    Py_XDECREF(excl);
    return result;
}

PyMethodDef pc_census_methods[] = {
    {"_census_tables", census_setup_fn, METH_VARARGS, NULL},
    {"_census_begin", census_begin_fn, METH_VARARGS, NULL},
    {"_census_code", census_code_fn, METH_VARARGS, NULL},
    {"_census_sites", census_sites_fn, METH_O, NULL},
    {"_census_totals", census_totals_fn, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
