/* rare.c: rare events through the 3.12+ watcher APIs.
 *
 * While a window is open: a function watcher counts modifications of
 * any function (code, defaults, keyword defaults); dict watchers on the
 * builtins dict and on the globals of every module loaded when the
 * window opened count their modifications; type watchers on every class
 * alive then count type modifications.  CPython calls a type watcher
 * only when the type's cached version is valid, so consecutive changes
 * between two uses may count once.  Nothing here sees obj.__class__
 * assignment or eval-frame changes.  3.11 has no watchers: nothing.
 */
#include "rare.h"

#include <string.h>

pc_rare pc_rare_counts;

#if PC_HAVE_CODE_WATCHER /* the watcher APIs all arrived in 3.12 */

static int func_watcher = -1, dict_watcher = -1, type_watcher = -1;
static PyObject *watched_dicts; /* owned list, while a window is open */
static PyObject *watched_types; /* owned list */
static PyObject *builtins_dict; /* borrowed identity, for telling apart */

static int
on_func(PyFunction_WatchEvent event, PyFunctionObject *func, PyObject *new_value)
{
    (void)func;
    (void)new_value;
    if (pc_g.on &&
        (event == PyFunction_EVENT_MODIFY_CODE || event == PyFunction_EVENT_MODIFY_DEFAULTS ||
         event == PyFunction_EVENT_MODIFY_KWDEFAULTS))
        PC_ATOMIC_ADD(pc_rare_counts.func_modification, 1);
    return 0;
}

static int
on_dict(PyDict_WatchEvent event, PyObject *dict, PyObject *key, PyObject *new_value)
{
    (void)key;
    (void)new_value;
    if (!pc_g.on || event == PyDict_EVENT_DEALLOCATED)
        return 0;
    if (dict == builtins_dict)
        PC_ATOMIC_ADD(pc_rare_counts.builtins_modification, 1);
    else
        PC_ATOMIC_ADD(pc_rare_counts.globals_modification, 1);
    return 0;
}

static int
on_type(PyTypeObject *type)
{
    (void)type;
    if (pc_g.on)
        PC_ATOMIC_ADD(pc_rare_counts.type_modification, 1);
    return 0;
}

static int
watch_dict(PyObject *d)
{
    if (!PyDict_Check(d) || PyDict_Watch(dict_watcher, d) < 0)
        return PyDict_Check(d) ? -1 : 0;
    pc_rare_counts.watched_dicts++;
    return PyList_Append(watched_dicts, d);
}

/* The globals of every loaded module, and the builtins dict. */
static int
watch_dicts(void)
{
    PyObject *modules = PyImport_GetModuleDict(); /* borrowed */
    PyObject *values, *builtins;                  /* owned */
    Py_ssize_t i;
    int ret = -1;

    builtins = PyEval_GetBuiltins(); /* borrowed */
    builtins_dict = builtins;
    if (builtins && watch_dict(builtins) < 0)
        return -1;
    values = PyMapping_Values(modules);
    if (values == NULL)
        return -1;
    for (i = 0; i < PyList_GET_SIZE(values); i++) {
        PyObject *m = PyList_GET_ITEM(values, i);
        PyObject *d;
        if (!PyModule_Check(m))
            continue;
        d = PyModule_GetDict(m); /* borrowed */
        if (d && d != builtins && watch_dict(d) < 0)
            goto done;
    }
    ret = 0;
done:
    Py_DECREF(values);
    return ret;
}

/* Every class alive now (heap types are tracked by the GC). */
static int
watch_types(void)
{
    PyObject *gc = NULL, *objs = NULL; /* owned */
    Py_ssize_t i;
    int ret = -1;
    gc = PyImport_ImportModule("gc");
    if (gc == NULL)
        return -1;
    objs = PyObject_CallMethod(gc, "get_objects", NULL);
    if (objs == NULL)
        goto done;
    for (i = 0; i < PyList_GET_SIZE(objs); i++) {
        PyObject *t = PyList_GET_ITEM(objs, i);
        if (!PyType_Check(t))
            continue;
        if (PyType_Watch(type_watcher, t) < 0 || PyList_Append(watched_types, t) < 0)
            goto done;
        pc_rare_counts.watched_types++;
    }
    ret = 0;
done:
    Py_XDECREF(gc);
    Py_XDECREF(objs);
    return ret;
}

int
pc_rare_install(void)
{
    if (watched_dicts != NULL)
        return 0;
    watched_dicts = PyList_New(0);
    watched_types = PyList_New(0);
    if (watched_dicts == NULL || watched_types == NULL)
        goto error;
    pc_rare_counts.watched_dicts = pc_rare_counts.watched_types = 0;
    if ((func_watcher = PyFunction_AddWatcher(on_func)) < 0 ||
        (dict_watcher = PyDict_AddWatcher(on_dict)) < 0 ||
        (type_watcher = PyType_AddWatcher(on_type)) < 0)
        goto error;
    if (watch_dicts() < 0 || watch_types() < 0)
        goto error;
    return 0;
error : {
    pc_exc saved = pc_exc_save();
    if (pc_rare_remove() < 0)
        PyErr_Clear();
    pc_exc_restore(saved);
}
    return -1;
}

int
pc_rare_remove(void)
{
    Py_ssize_t i;
    int ret = 0;
    if (watched_dicts != NULL) {
        for (i = 0; i < PyList_GET_SIZE(watched_dicts); i++)
            if (PyDict_Unwatch(dict_watcher, PyList_GET_ITEM(watched_dicts, i)) < 0)
                ret = -1;
        Py_CLEAR(watched_dicts);
    }
    if (watched_types != NULL) {
        for (i = 0; i < PyList_GET_SIZE(watched_types); i++)
            if (PyType_Unwatch(type_watcher, PyList_GET_ITEM(watched_types, i)) < 0)
                ret = -1;
        Py_CLEAR(watched_types);
    }
    if (func_watcher >= 0 && PyFunction_ClearWatcher(func_watcher) < 0)
        ret = -1;
    if (dict_watcher >= 0 && PyDict_ClearWatcher(dict_watcher) < 0)
        ret = -1;
    if (type_watcher >= 0 && PyType_ClearWatcher(type_watcher) < 0)
        ret = -1;
    func_watcher = dict_watcher = type_watcher = -1;
    builtins_dict = NULL;
    return ret;
}

#else

int
pc_rare_install(void)
{
    return 0;
}

int
pc_rare_remove(void)
{
    return 0;
}

#endif

/* Events are zeroed; what is being watched (PSF_STAT_LEVEL) stays true
 * across a clear. */
void
pc_rare_clear(void)
{
#define CLEAR(f, key, kind, label) \
    if ((kind) != PSF_STAT_LEVEL)  \
        pc_rare_counts.f = 0;
    PSF_RARE(CLEAR)
#undef CLEAR
}

/* An event seen; what is watched alone is no data. */
int
pc_rare_has_data(void)
{
    int any = 0;
#define ANY(f, key, kind, label) any |= (kind) != PSF_STAT_LEVEL && pc_rare_counts.f != 0;
    PSF_RARE(ANY)
#undef ANY
    return any;
}

void
pc_rare_write(psf_out *o)
{
    if (!PC_HAVE_CODE_WATCHER)
        return;
#define PUT(f, key, kind, label) psf_put_counter(o, PSF_RARE_PREFIX key, pc_rare_counts.f);
    PSF_RARE(PUT)
#undef PUT
}
