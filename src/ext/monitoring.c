/* monitoring.c: the 3.12+ backend: sys.monitoring INSTRUCTION, PY_START
 * and PY_RESUME events delivered to C METH_FASTCALL callbacks (modes
 * "instructions" and "noop"), or the segment events of segments.c (modes
 * "count" and "noop-segments").
 *
 * There is no C API to subscribe, so, as Modules/_lsprof.c does, the
 * callbacks are registered through the sys.monitoring module, each as
 * a callable of our own whose vectorcall calls the C function directly
 * (a builtin function object would add a recursion check and a thread
 * state lookup to every event).  Events are interpreter-wide: the
 * callbacks filter by pc_counting() for measure(), which counts one
 * thread.
 */
#include "backend.h"
#include "codeinfo.h"
#include "segments.h"
#include "guard.h"
#include "stats.h"

#include <string.h>

#if PC_HAVE_MONITORING

/* Tool ids 0-2 and 5 are named by sys.monitoring (debugger, coverage,
 * profiler, optimizer); 3 and 4 are free for anyone.  Take the first
 * free one and never evict another tool. */
static const int candidate_ids[] = {4, 3};
static int tool_id = -1;

static PyObject *
cb_instruction(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (pc_counting() && nargs >= 2) {
        pc_codeinfo *ci = pc_codeinfo_get(args[0]);
        Py_ssize_t off = pc_small_int(args[1]);
        if (ci != NULL && off >= 0 && off / 2 < ci->n) {
            if (pc_g.mode == PC_MODE_INSTRUCTIONS) {
                pc_count(ci->op[off / 2]);
                pc_codeinfo_count_hot(ci, off / 2);
            }
        }
    }
    Py_RETURN_NONE;
}

/* RESUME fires no INSTRUCTION event; PY_START and PY_RESUME are exactly
 * its executions by a call or by next()/send() (throw() fires
 * PY_THROW instead and does not execute RESUME). */
static inline void
resume(PyObject *const *args, Py_ssize_t nargs, int call)
{
    pc_codeinfo *ci;
    Py_ssize_t off;
    if (!pc_counting() || pc_g.mode != PC_MODE_INSTRUCTIONS)
        return;
    pc_count(pc_g.resume_op);
    if (call)
        PC_CALLS_ADD(python_starts);
    else
        PC_CALLS_ADD(resumptions);
    if (nargs < 2 || (ci = pc_codeinfo_get(args[0])) == NULL)
        return;
    off = pc_small_int(args[1]);
    if (off >= 0 && off / 2 < ci->n) {
        pc_codeinfo_count_hot(ci, off / 2);
        if (call)
            pc_hot_count_call(ci->hot);
    }
}

static PyObject *
cb_start(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    resume(args, nargs, 1);
    Py_RETURN_NONE;
}

static PyObject *
cb_resume(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    resume(args, nargs, 0);
    Py_RETURN_NONE;
}

/* The other call events only count (calls.*). */
#define CALL_EVENT(fn, field)                                                           \
    static PyObject *fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs)        \
    {                                                                                   \
        (void)self;                                                                     \
        (void)args;                                                                     \
        (void)nargs;                                                                    \
        if (pc_counting() && pc_g.mode == PC_MODE_INSTRUCTIONS)                         \
            PC_CALLS_ADD(field);                                                        \
        Py_RETURN_NONE;                                                                 \
    }                                                                                   \
    static PyMethodDef fn##_def = {"_pystats_" #field, (PyCFunction)(void (*)(void))fn, \
                                   METH_FASTCALL, NULL}
CALL_EVENT(cb_throw, throws);
CALL_EVENT(cb_return, returns);
CALL_EVENT(cb_yield, yields);
CALL_EVENT(cb_unwind, unwinds);
CALL_EVENT(cb_raise, raises);
CALL_EVENT(cb_handled, handled);

static PyMethodDef cb_instruction_def = {
    "_pystats_instruction", (PyCFunction)(void (*)(void))cb_instruction, METH_FASTCALL, NULL};
static PyMethodDef cb_start_def = {"_pystats_start", (PyCFunction)(void (*)(void))cb_start,
                                   METH_FASTCALL, NULL};
static PyMethodDef cb_resume_def = {"_pystats_resume", (PyCFunction)(void (*)(void))cb_resume,
                                    METH_FASTCALL, NULL};

static const pc_seg_callback instruction_callbacks[] = {
    {"INSTRUCTION", &cb_instruction_def, NULL},   {"PY_START", &cb_start_def, NULL},
    {"PY_RESUME", &cb_resume_def, NULL},          {"PY_THROW", &cb_throw_def, NULL},
    {"PY_RETURN", &cb_return_def, NULL},          {"PY_YIELD", &cb_yield_def, NULL},
    {"PY_UNWIND", &cb_unwind_def, NULL},          {"RAISE", &cb_raise_def, NULL},
    {"EXCEPTION_HANDLED", &cb_handled_def, NULL},
};
#define NCALLBACKS (sizeof instruction_callbacks / sizeof instruction_callbacks[0])

PyObject *
pc_monitoring_module(void)
{
    PyObject *sys = PyImport_ImportModule("sys"); /* owned */
    PyObject *mon;
    if (sys == NULL)
        return NULL;
    mon = PyObject_GetAttrString(sys, "monitoring");
    Py_DECREF(sys);
    return mon;
}

static int
event_bit(PyObject *mon, const char *name)
{
    PyObject *events = NULL, *v = NULL; /* owned */
    long bit = -1;
    events = PyObject_GetAttrString(mon, "events");
    if (events == NULL)
        goto done;
    v = PyObject_GetAttrString(events, name);
    if (v == NULL)
        goto done;
    bit = PyLong_AsLong(v);
done:
    Py_XDECREF(events);
    Py_XDECREF(v);
    return (int)bit;
}

/* Whether a mode's callbacks turn events off where they are quiet
 * (DISABLE), and whether one has since the last restart_events(). */
static int
quiets(int mode)
{
    return mode == PC_MODE_COUNT || mode == PC_MODE_NOOP_QUIET;
}
static int quieted;

/* A callback as sys.monitoring calls it: its own vectorcall
 * (pc_seg_callback.vc), or a trampoline into fn, a METH_FASTCALL
 * function (no keywords are ever passed). */
typedef struct {
    PyObject ob_base;
    vectorcallfunc vectorcall;
    pc_fastcall_fn fn;
} pc_callback;

static PyObject *
callback_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    (void)kwnames;
    return ((pc_callback *)self)->fn(NULL, args, PyVectorcall_NARGS(nargsf));
}

#if PC_EVENT_INTS_ALLOCATED
/* The same, for an event whose args[1] (and args[2]: callback_call_2)
 * CPython made for it: counted (stats.h). */
static PyObject *
callback_call_1(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    (void)kwnames;
    pc_stats_event_args(args, n, 1);
    return ((pc_callback *)self)->fn(NULL, args, n);
}

static PyObject *
callback_call_2(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    (void)kwnames;
    pc_stats_event_args(args, n, 2);
    return ((pc_callback *)self)->fn(NULL, args, n);
}
#endif

static PyTypeObject pc_callback_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pystats._collector.callback",
    .tp_basicsize = sizeof(pc_callback),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(pc_callback, vectorcall),
    .tp_call = PyVectorcall_Call,
};

/* The callable that sys.monitoring calls for spec's event. */
static PyObject *
callback_new(const pc_seg_callback *spec)
{
    const PyMethodDef *def = spec->def;
    pc_callback *cb;
    if (!(pc_callback_type.tp_flags & Py_TPFLAGS_READY) && PyType_Ready(&pc_callback_type) < 0)
        return NULL;
    cb = PyObject_New(pc_callback, &pc_callback_type);
    if (cb == NULL)
        return NULL;
    cb->fn = NULL;
    if (spec->vc != NULL) {
        cb->vectorcall = spec->vc;
        return (PyObject *)cb;
    }
    cb->vectorcall = callback_call;
#if PC_EVENT_INTS_ALLOCATED
    cb->vectorcall = pc_event_int_args(spec->event) == 2 ? callback_call_2 : callback_call_1;
#endif
    cb->fn = (pc_fastcall_fn)(void (*)(void))def->ml_meth;
    return (PyObject *)cb;
}

/* Claim a tool id and register the callbacks. */
static int
claim(PyObject *mon)
{
    size_t i, k, ncallbacks = NCALLBACKS;
    int ret = -1, bits = 0;
    const pc_seg_callback *callbacks = instruction_callbacks;

    if (pc_g.mode == PC_MODE_COUNT || pc_g.mode == PC_MODE_NOOP_SEGMENTS ||
        pc_g.mode == PC_MODE_NOOP_QUIET)
        callbacks = pc_seg_callbacks(pc_g.mode == PC_MODE_NOOP_SEGMENTS ? 1
                                     : pc_g.mode == PC_MODE_NOOP_QUIET  ? 2
                                                                        : 0,
                                     &ncallbacks);
    for (k = 0; k < sizeof candidate_ids / sizeof candidate_ids[0]; k++) {
        PyObject *r = PyObject_CallMethod(mon, "use_tool_id", "is", candidate_ids[k], "pystats");
        if (r != NULL) {
            Py_DECREF(r);
            tool_id = candidate_ids[k];
            break;
        }
        if (!PyErr_ExceptionMatches(PyExc_ValueError))
            return -1;
        PyErr_Clear();
    }
    if (tool_id < 0) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: sys.monitoring tool ids 3 and 4 are both "
                                            "in use by other tools; refusing to evict them");
        return -1;
    }
    for (i = 0; i < ncallbacks; i++) {
        PyObject *fn = NULL, *bitobj = NULL, *r = NULL;
        int bit = event_bit(mon, callbacks[i].event);
        if (bit < 0)
            goto done;
        fn = callback_new(&callbacks[i]);
        bitobj = PyLong_FromLong(bit);
        pc_guard_own++;
        if (fn && bitobj)
            r = PyObject_CallMethod(mon, "register_callback", "iOO", tool_id, bitobj, fn);
        pc_guard_own--;
        Py_XDECREF(fn);
        Py_XDECREF(bitobj);
        if (r == NULL)
            goto done;
        Py_DECREF(r);
        bits |= bit;
    }
    ret = bits;
done:
    return ret;
}

static int
release(PyObject *mon)
{
    PyObject *r;
    if (tool_id < 0)
        return 0;
    r = PyObject_CallMethod(mon, "set_events", "ii", tool_id, 0);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    /* free_tool_id also unregisters the callbacks (3.12+). */
    r = PyObject_CallMethod(mon, "free_tool_id", "i", tool_id);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    tool_id = -1;
    return 0;
}

int
pc_backend_check(void)
{
    return 0;
}

/* Nothing pending: segment counting has its own cut (pc_seg_cut). */
void
pc_backend_cut(void)
{
}

int
pc_backend_sync(void)
{
    PyObject *mon = NULL; /* owned */
    int want = pc_wants_events();
    int ret = -1;

    if (want == pc_g.installed)
        return 0;
    mon = pc_monitoring_module();
    if (mon == NULL)
        goto done;
    if (want) {
        int bits = claim(mon);
        PyObject *r;
        if (bits < 0) {
            if (tool_id >= 0) {
                pc_exc saved = pc_exc_save();
                if (release(mon) < 0)
                    PyErr_Clear();
                pc_exc_restore(saved);
            }
            goto done;
        }
        r = PyObject_CallMethod(mon, "set_events", "ii", tool_id, bits);
        if (r == NULL)
            goto done;
        Py_DECREF(r);
        if (quiets(pc_g.mode))
            quieted = 1;
        else if (quieted) {
            /* Segment counting turned events off where they were quiet
             * (jumps, branch sides, returns: docs/FORMAT.md 1.13), and
             * sys.monitoring keeps them off for this tool id in code that
             * has not run since: this mode needs every one of them. */
            r = PyObject_CallMethod(mon, "restart_events", NULL);
            if (r == NULL)
                goto done;
            Py_DECREF(r);
            quieted = 0;
        }
        pc_g.installed = 1;
    }
    else {
        if (release(mon) < 0)
            goto done;
        pc_g.installed = 0;
    }
    ret = 0;
done:
    Py_XDECREF(mon);
    return ret;
}

const char *
pc_backend_name(void)
{
    return "monitoring";
}

/* No other tool can displace sys.monitoring callbacks (3.11's trace
 * function can be replaced, trace.c). */
int
pc_backend_displaced(void)
{
    return 0;
}

int
pc_backend_displaced_here(void)
{
    return 0;
}

#endif /* PC_HAVE_MONITORING */
