/* census_registry.c: reaching the live code objects the census reads:
 * the registry a code watcher keeps (3.12+), the module code the "exec"
 * audit hook sees, and the code objects found in the heap's functions,
 * generators and coroutines (a walk's gather).
 */
#include "census.h"

#include <stdlib.h>
#include <string.h>

/* Module code objects seen executed ("exec" audit events): nothing else
 * holds them once they ran.  Kept for the process, at most
 * MAX_MODULE_CODES of them. */
#define MAX_MODULE_CODES 20000
static PyObject *module_codes; /* owned list, or NULL before setup */

/* ---- the registry of live code objects (3.12+) ----
 *
 * Every live code object, borrowed: seeded once when the census is set
 * up (_census_seed: the code objects a walk reaches then), then kept by
 * the code watcher (CREATE adds, DESTROY removes before the object
 * goes).  The census reads it instead of walking the heap at every
 * dump.  An open-addressing set of pointers; a failed allocation turns
 * it off for good (reg_failed), and the census walks the heap again. */
#define REG_TOMB ((PyObject *)1)
static PyObject **reg;
static size_t reg_cap, reg_used, reg_live; /* used: live + tombstones */
static int reg_on, reg_failed;

static size_t
reg_hash(PyObject *p, size_t cap)
{
    return (size_t)(((uintptr_t)p >> 4) * 11400714819323198485ull) & (cap - 1);
}

static int
reg_grow(void)
{
    size_t cap = 1024, i;
    PyObject **t;
    while (cap < 4 * (reg_live + 1))
        cap *= 2;
    t = calloc(cap, sizeof *t);
    if (t == NULL)
        return -1;
    for (i = 0; i < reg_cap; i++) {
        size_t h;
        if (reg[i] == NULL || reg[i] == REG_TOMB)
            continue;
        for (h = reg_hash(reg[i], cap); t[h] != NULL; h = (h + 1) & (cap - 1))
            ;
        t[h] = reg[i];
    }
    free(reg);
    reg = t;
    reg_cap = cap;
    reg_used = reg_live;
    return 0;
}

static void
reg_add(PyObject *co)
{
    size_t h, tomb = (size_t)-1;
    if (!reg_on || reg_failed)
        return;
    if (4 * (reg_used + 1) > 3 * reg_cap && reg_grow() < 0) {
        reg_failed = 1;
        return;
    }
    for (h = reg_hash(co, reg_cap); reg[h] != NULL; h = (h + 1) & (reg_cap - 1)) {
        if (reg[h] == co)
            return;
        if (reg[h] == REG_TOMB && tomb == (size_t)-1)
            tomb = h;
    }
    if (tomb != (size_t)-1) {
        reg[tomb] = co;
    }
    else {
        reg[h] = co;
        reg_used++;
    }
    reg_live++;
}

#if PC_HAVE_CODE_WATCHER
static void
reg_del(PyObject *co)
{
    size_t h;
    if (reg_cap == 0)
        return;
    for (h = reg_hash(co, reg_cap); reg[h] != NULL; h = (h + 1) & (reg_cap - 1)) {
        if (reg[h] == co) {
            reg[h] = REG_TOMB;
            reg_live--;
            return;
        }
    }
}
#endif

/* co and the code objects in its co_consts, recursively: code compiled
 * before the registry started, run (exec) after. */
static void
reg_add_tree(PyObject *co, int depth)
{
    PyObject *consts = ((PyCodeObject *)co)->co_consts;
    Py_ssize_t j;
    if (!reg_on || depth > 100)
        return;
    reg_add(co);
    for (j = 0; consts && j < PyTuple_GET_SIZE(consts); j++) {
        PyObject *c = PyTuple_GET_ITEM(consts, j);
        if (PyCode_Check(c))
            reg_add_tree(c, depth + 1);
    }
}

#if PC_HAVE_CODE_WATCHER
static int watcher_id = -1;

/* A code object about to die: its sites join the census (sites of
 * code that ran and is gone would otherwise never be seen), unless the
 * live census of the period was taken already, which read it (the exit
 * census, then the interpreter's finalization).  Scope
 * count takes it later, when its per code record goes
 * (pc_census_count_dead), if it ran: its segment counts are not in the
 * record yet here. */
static int
on_code_event(PyCodeEvent event, PyCodeObject *co)
{
    pc_lock(); /* code is made and dies in any thread (free-threaded) */
    if (event == PY_CODE_EVENT_CREATE)
        reg_add((PyObject *)co);
    if (event == PY_CODE_EVENT_DESTROY) {
        reg_del((PyObject *)co);
        if (!pc_census_taken() && pc_census_period_scope() == PC_CENSUS_CENSUS)
            pc_census_code((PyObject *)co, &pc_census_dead, NULL, PC_CENSUS_CENSUS);
    }
    pc_unlock();
    return 0;
}

static int
census_watch(void)
{
    if (watcher_id >= 0)
        return 0;
    watcher_id = PyCode_AddWatcher(on_code_event);
    return watcher_id < 0 ? -1 : 0;
}
#else
static int
census_watch(void)
{
    return 0;
}
#endif

/* "exec" audit events: a C hook, because a Python one would run (and,
 * in a count window, be counted) at every audited operation of the
 * program.  Never fails the audited operation. */
static int
audit_hook(const char *event, PyObject *args, void *data)
{
    PyObject *co;
    (void)data;
    if (module_codes == NULL || strcmp(event, "exec") != 0)
        return 0;
    /* The hook is process-wide; the list belongs to the main interpreter. */
    if (PyInterpreterState_Get() != PyInterpreterState_Main())
        return 0;
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 1)
        return 0;
    co = PyTuple_GET_ITEM(args, 0);
    if (!PyCode_Check(co))
        return 0;
    pc_lock();
    reg_add_tree(co, 0);
    pc_unlock();
    if (PyList_GET_SIZE(module_codes) >= MAX_MODULE_CODES)
        return 0;
    if (PyList_Append(module_codes, co) < 0)
        PyErr_Clear(); /* a census short of one module, no more */
    return 0;
}

static int
install_audit_hook(void)
{
    if (module_codes != NULL)
        return 0;
    module_codes = PyList_New(0);
    if (module_codes == NULL)
        return -1;
    if (PySys_AddAuditHook(audit_hook, NULL) < 0) {
        Py_CLEAR(module_codes);
        return -1;
    }
    return 0;
}

static int
gather_add(PyObject *seen, PyObject *out, PyObject *co)
{
    PyObject *key = PyLong_FromVoidPtr(co); /* owned */
    int r;
    if (key == NULL)
        return -1;
    r = PySet_Contains(seen, key);
    if (r == 0)
        r = PySet_Add(seen, key) < 0 || PyList_Append(out, co) < 0 ? -1 : 0;
    Py_DECREF(key);
    return r < 0 ? -1 : 0;
}

/* _census_gather(objects): the distinct code objects that the objects
 * are or hold (a function's, generator's, coroutine's or async
 * generator's code), and recursively those in their co_consts.  In C:
 * it looks at every object gc.get_objects() returns, several times
 * faster than the same loop in Python. */
static PyObject *
census_gather_fn(PyObject *self, PyObject *objs)
{
    PyObject *seen = NULL, *out = NULL; /* owned */
    Py_ssize_t i;
    (void)self;
    if (!PyList_Check(objs)) {
        PyErr_SetString(PyExc_TypeError, "_census_gather needs a list");
        return NULL;
    }
    seen = PySet_New(NULL);
    out = PyList_New(0);
    if (seen == NULL || out == NULL)
        goto error;
    for (i = 0; i < PyList_GET_SIZE(objs); i++) {
        PyObject *o = PyList_GET_ITEM(objs, i), *co; /* co owned */
        int r;
        if (PyFunction_Check(o))
            co = Py_NewRef(PyFunction_GET_CODE(o));
        else if (PyCode_Check(o))
            co = Py_NewRef(o);
        else if (PyGen_CheckExact(o))
            co = PyObject_GetAttrString(o, "gi_code");
        else if (PyCoro_CheckExact(o))
            co = PyObject_GetAttrString(o, "cr_code");
        else if (PyAsyncGen_CheckExact(o))
            co = PyObject_GetAttrString(o, "ag_code");
        else
            continue;
        if (co == NULL)
            goto error;
        r = PyCode_Check(co) ? gather_add(seen, out, co) : 0;
        Py_DECREF(co);
        if (r < 0)
            goto error;
    }
    /* out grows while it is walked: every code found has its co_consts
     * looked at once. */
    for (i = 0; i < PyList_GET_SIZE(out); i++) {
        PyObject *consts = ((PyCodeObject *)PyList_GET_ITEM(out, i))->co_consts;
        Py_ssize_t j;
        for (j = 0; consts && j < PyTuple_GET_SIZE(consts); j++) {
            PyObject *c = PyTuple_GET_ITEM(consts, j);
            if (PyCode_Check(c) && gather_add(seen, out, c) < 0)
                goto error;
        }
    }
    Py_DECREF(seen);
    return out;
error:
    Py_XDECREF(seen);
    Py_XDECREF(out);
    return NULL;
}

/* _census_seed(codes): start the registry with these code objects (the
 * ones a walk reaches when the census is set up); from now on the code
 * watcher keeps it.  False where there is no code watcher (3.11). */
static PyObject *
census_seed_fn(PyObject *self, PyObject *list)
{
    Py_ssize_t i;
    (void)self;
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "_census_seed needs a list");
        return NULL;
    }
    if (!PC_HAVE_CODE_WATCHER)
        Py_RETURN_FALSE;
    pc_lock();
    reg_on = 1;
    for (i = 0; i < PyList_GET_SIZE(list); i++)
        if (PyCode_Check(PyList_GET_ITEM(list, i)))
            reg_add(PyList_GET_ITEM(list, i));
    pc_unlock();
    return PyBool_FromLong(!reg_failed);
}

/* _census_registry(ran=False): the live code objects, as a new list; with
 * ran, only those the collector has a per code record of (they ran while
 * counting).  None if there is no registry: the census walks the heap. */
static PyObject *
census_registry_fn(PyObject *self, PyObject *args)
{
    int ran = 0;
    size_t i;
    PyObject *out;
    (void)self;
    if (!PyArg_ParseTuple(args, "|p:_census_registry", &ran))
        return NULL;
    /* Without the GIL another thread may be destroying a code object the
     * registry still holds (its watcher waits for the lock): taking a
     * reference to it then would resurrect it.  The heap walk
     * (gc.get_objects(), which stops the world) is safe there. */
    if (!reg_on || reg_failed || pc_gil_off())
        Py_RETURN_NONE;
    out = PyList_New(0);
    for (i = 0; out != NULL && i < reg_cap; i++) {
        PyObject *co = reg[i];
        if (co == NULL || co == REG_TOMB || (ran && !pc_census_ran(co)))
            continue;
        if (PyList_Append(out, co) < 0)
            Py_CLEAR(out);
    }
    return out;
}

static PyObject *
census_ran_fn(PyObject *self, PyObject *code)
{
    (void)self;
    return PyBool_FromLong(PyCode_Check(code) && pc_census_ran(code));
}

/* The module code objects the audit hook saw, as a new list. */
static PyObject *
census_module_codes_fn(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (module_codes == NULL)
        return PyList_New(0);
    return PyList_GetSlice(module_codes, 0, PyList_GET_SIZE(module_codes));
}

int
pc_census_hooks(void)
{
    PyThreadState *ts = PyThreadState_Get();
    int r;
    /* The hook's sys.addaudithook event reaches the program's own hooks:
     * not counted either. */
    PyThreadState_EnterTracing(ts);
    r = install_audit_hook();
    PyThreadState_LeaveTracing(ts);
    if (r < 0 || census_watch() < 0)
        return -1;
    return 0;
}

PyMethodDef pc_census_registry_methods[] = {
    {"_census_module_codes", census_module_codes_fn, METH_NOARGS, NULL},
    {"_census_gather", census_gather_fn, METH_O, NULL},
    {"_census_seed", census_seed_fn, METH_O, NULL},
    {"_census_ran", census_ran_fn, METH_O, NULL},
    {"_census_registry", census_registry_fn, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
