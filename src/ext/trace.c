/* trace.c: the 3.11 backend: a C trace function with opcode events,
 * installed on every thread (and, through threading.settrace, on every
 * thread started later) or, for measure(), on the measuring thread.
 *
 * 3.11 reports an opcode event for every instruction from RESUME on
 * (instructions before RESUME are not traceable) except RESUME itself,
 * which produces the 'call' event instead, and except an instruction
 * prefixed by EXTENDED_ARG, which is counted with its prefix.  A 'call'
 * event also comes from throw() into a generator, where the frame's
 * current instruction is not RESUME: RESUME is counted only when it is.
 *
 * With PYSTATS_TRACE_LINES=1, mode count leaves opcode events off for
 * the frames of code whose line events tell which instructions ran, and
 * counts those from their line, call, return and exception events
 * (trace_lines.c).
 */
#include "backend.h"
#include "codeinfo.h"
#include "guard.h"
#include "trace_lines.h"

#if !PC_HAVE_MONITORING

#include <structmember.h>

#define MAX_MEASURING 64

static Py_ssize_t trace_opcodes_offset = -1; /* of f_trace_opcodes in a frame */
static int installed_all;
static PyThreadState *measuring[MAX_MEASURING];
static PyObject *thread_hook; /* owned: our threading hook */
static int own_settrace;      /* in one of the collector's own SetTrace calls */

/* Threads another tool's trace function displaced in the open window
 * (guard.c): a thread state and its thread id, since a dead thread's
 * state may be reused. */
#define MAX_LOST 64
static struct lost_thread {
    PyThreadState *ts;
    unsigned long id;
} lost[MAX_LOST];
/* This thread was displaced in the open window (dies with the thread,
 * unlike a thread state's address and id, which a new thread reuses). */
static __thread uint64_t lost_in_window;
static uint64_t window_gen = 1; /* bumped when a window installs */

static int trace_func(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg);
static int other_event(PyFrameObject *frame, int what, PyObject *arg);

/* Where the frame keeps f_trace_opcodes, read from the frame type's own
 * member table so that no private struct layout is assumed. */
static int
find_trace_opcodes_offset(void)
{
    PyMemberDef *m;
    for (m = PyFrame_Type.tp_members; m && m->name; m++) {
        if (strcmp(m->name, "f_trace_opcodes") == 0 && m->type == T_BOOL) {
            trace_opcodes_offset = m->offset;
            pc_lines_setup(trace_opcodes_offset, trace_func);
            return 0;
        }
    }
    PyErr_SetString(PyExc_RuntimeError, "pystats: frame has no f_trace_opcodes member");
    return -1;
}

static inline void
frame_enable_opcodes(PyFrameObject *frame)
{
    ((char *)frame)[trace_opcodes_offset] = 1;
}

/* A frame counted from its line events (trace_lines.c). */
static inline void
frame_disable_opcodes(PyFrameObject *frame)
{
    ((char *)frame)[trace_opcodes_offset] = 0;
}

static int
trace_func(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    (void)obj;
    if (what == PyTrace_LINE) {
        if (pc_lines_wanted())
            pc_lines_line(frame);
        return 0;
    }
    if (what != PyTrace_OPCODE)
        return other_event(frame, what, arg);
    {
        if (pc_counting() && pc_g.mode == PC_MODE_COUNT) {
            PyCodeObject *code = PyFrame_GetCode(frame); /* owned */
            pc_codeinfo *ci = pc_codeinfo_get((PyObject *)code);
            int lasti = PyFrame_GetLasti(frame);
            Py_DECREF(code);
            if (ci != NULL && lasti >= 0 && lasti / 2 < ci->n) {
                Py_ssize_t i = lasti / 2;
                int op = ci->op[i];
                pc_count(op);
                pc_codeinfo_count_hot(ci, i);
                /* 3.11's EXTENDED_ARG jumps straight into the instruction
                 * it extends, which therefore gets no event of its own:
                 * count it (and any further EXTENDED_ARG) here. */
                while (op == pc_g.extended_arg_op && ++i < ci->n) {
                    op = ci->op[i];
                    pc_count(op);
                    pc_codeinfo_count_hot(ci, i);
                }
            }
        }
    }
    return 0;
}

/* 'call', 'return' and 'exception', out of the way of the events that
 * come with every instruction or line. */
static __attribute__((noinline)) int
other_event(PyFrameObject *frame, int what, PyObject *arg)
{
    if (what == PyTrace_CALL) {
        int lines = 0;
        if (pc_counting() && pc_g.mode == PC_MODE_COUNT) {
            PyCodeObject *code = PyFrame_GetCode(frame); /* owned */
            pc_codeinfo *ci = pc_codeinfo_get((PyObject *)code);
            int lasti = PyFrame_GetLasti(frame);
            /* The caller's run, if line-counted, ends at its call. */
            if (pc_lines_wanted())
                pc_lines_call_caller(frame);
            if (ci != NULL && lasti >= 0 && lasti / 2 < ci->n &&
                ci->op[lasti / 2] == pc_g.resume_op) {
                pc_count(pc_g.resume_op);
                pc_codeinfo_count_hot(ci, lasti / 2);
                if (lasti / 2 == ci->first_resume) {
                    pc_calls_g.python_starts++;
                    pc_hot_count_call(ci->hot);
                }
                else {
                    pc_calls_g.resumptions++;
                }
            }
            else if (ci != NULL) {
                /* throw() (or close()) into a generator: not at RESUME */
                pc_calls_g.throws++;
            }
            if (ci != NULL && pc_lines_wanted())
                lines = pc_lines_start(frame, code, ci, lasti);
            Py_DECREF(code);
        }
        if (lines == 1)
            frame_disable_opcodes(frame);
        else
            frame_enable_opcodes(frame);
    }
    else if (what == PyTrace_RETURN) {
        if (pc_lines_wanted())
            pc_lines_return(frame);
        if (pc_counting() && pc_g.mode == PC_MODE_COUNT) {
            if (arg == NULL) {
                pc_calls_g.unwinds++;
            }
            else {
                PyCodeObject *code = PyFrame_GetCode(frame); /* owned */
                pc_codeinfo *ci = pc_codeinfo_get((PyObject *)code);
                int lasti = PyFrame_GetLasti(frame);
                Py_DECREF(code);
                if (ci != NULL && lasti >= 0 && lasti / 2 < ci->n &&
                    ci->op[lasti / 2] == pc_g.yield_value_op)
                    pc_calls_g.yields++;
                else
                    pc_calls_g.returns++;
            }
        }
    }
    else if (what == PyTrace_EXCEPTION) {
        if (pc_lines_wanted())
            pc_lines_exception(frame);
        if (pc_counting() && pc_g.mode == PC_MODE_COUNT)
            pc_calls_g.raises++;
    }
    return 0;
}

/* Turn opcode events on for every frame already running in ts. */
static void
enable_running_frames(PyThreadState *ts)
{
    PyFrameObject *f = PyThreadState_GetFrame(ts); /* owned */
    while (f != NULL) {
        PyFrameObject *back = PyFrame_GetBack(f);
        frame_enable_opcodes(f);
        Py_DECREF(f);
        f = back;
    }
}

static int
taken(PyThreadState *ts)
{
    Py_tracefunc fn = pc_tstate_tracefunc(ts);
    return fn != NULL && fn != trace_func;
}

/* The collector's own PyEval_SetTrace calls: their "sys.settrace"
 * audit events are not another tool's. */
static int
set_trace(PyThreadState *ts, Py_tracefunc fn)
{
    int r;
    own_settrace++;
    r = pc_eval_set_trace(ts, fn, NULL);
    own_settrace--;
    return r;
}

static int
install_on(PyThreadState *ts)
{
    if (pc_tstate_tracefunc(ts) == trace_func)
        return 0;
    if (set_trace(ts, trace_func) < 0)
        return -1;
    pc_lines_release(ts); /* frames of an earlier installation */
    enable_running_frames(ts);
    return 0;
}

static int
remove_from(PyThreadState *ts)
{
    if (pc_tstate_tracefunc(ts) != trace_func)
        return 0;
    if (set_trace(ts, NULL) < 0)
        return -1;
    pc_lines_release(ts);
    return 0;
}

static void
note_lost(PyThreadState *ts)
{
    int i;
    for (i = 0; i < MAX_LOST; i++)
        if (lost[i].ts == NULL) {
            lost[i].ts = ts;
            lost[i].id = ts->thread_id;
            return;
        }
}

/* Is threading's hook for new threads (threading.settrace) ours?  Read
 * from the module's global, running no Python code. */
static int
threading_hook_is_ours(void)
{
    pc_exc saved;                         /* the exception in flight */
    PyObject *modules, *threading, *hook; /* borrowed, borrowed, owned */
    int ours = 0;

    if (thread_hook == NULL)
        return 0;
    saved = pc_exc_save();
    modules = PySys_GetObject("modules");
    threading =
        modules && PyDict_Check(modules) ? PyDict_GetItemString(modules, "threading") : NULL;
    if (threading != NULL) {
        hook = PyObject_GetAttrString(threading, "_trace_hook");
        ours = hook == thread_hook;
        Py_XDECREF(hook);
    }
    PyErr_Clear();
    pc_exc_restore(saved);
    return ours;
}

/* A "sys.settrace" audit event in the current thread (guard.c): raised
 * by PyEval_SetTrace before the new function replaces the old one, so
 * the thread's trace function is still what it was. */
void
pc_trace_settrace_event(void)
{
    PyThreadState *ts;
    if (own_settrace || pc_g.mode != PC_MODE_COUNT || !pc_counting())
        return;
    ts = PyThreadState_Get();
    if (lost_in_window == window_gen)
        return;
    if (pc_tstate_tracefunc(ts) == trace_func) {
        /* Whatever comes in (another function, or none), ours goes:
         * what this thread ran so far counts. */
        pc_lines_cut_here();
        note_lost(ts);
        lost_in_window = window_gen;
        pc_guard_displaced("sys.settrace");
    }
    else if (pc_g.on && installed_all && !threading_hook_is_ours()) {
        /* A thread started in the window, given another tool's trace
         * function by threading (threading.settrace was replaced): it
         * never gets ours.  With our hook there, this is threading
         * installing it. */
        note_lost(ts);
        lost_in_window = window_gen;
        pc_guard_displaced("sys.settrace in a thread started while "
                           "counting (threading.settrace replaced)");
    }
}

int
pc_backend_displaced_here(void)
{
    /* In a fork child, possibly forked from C without a thread state. */
    PyThreadState *ts = pc_tstate_unchecked();
    pc_lines_drop_all(1); /* the parent's; this one starts from zero */
    return ts && installed_all && lost_in_window == window_gen &&
           pc_tstate_tracefunc(ts) != trace_func;
}

int
pc_backend_displaced(void)
{
    PyInterpreterState *interp = PyInterpreterState_Get();
    PyThreadState *ts;
    int i, n = 0;

    /* After a clear (lifecycle.c): what the frames ran up to now went
     * with the counts. */
    pc_lines_drop_all(0);

    for (i = 0; i < MAX_LOST; i++) {
        int alive = 0;
        if (lost[i].ts == NULL)
            continue;
        for (ts = PyInterpreterState_ThreadHead(interp); ts && installed_all;
             ts = PyThreadState_Next(ts))
            if (ts == lost[i].ts && ts->thread_id == lost[i].id &&
                pc_tstate_tracefunc(ts) != trace_func)
                alive = 1;
        if (alive)
            n++;
        else
            lost[i].ts = NULL;
    }
    return n;
}

static int
is_measuring(PyThreadState *ts)
{
    int i;
    for (i = 0; i < MAX_MEASURING; i++)
        if (measuring[i] == ts)
            return 1;
    return 0;
}

static int
any_measuring(void)
{
    int i;
    for (i = 0; i < MAX_MEASURING; i++)
        if (measuring[i] != NULL)
            return 1;
    return 0;
}

static void
set_measuring(PyThreadState *ts, int on)
{
    int i;
    for (i = 0; i < MAX_MEASURING; i++) {
        if (on && measuring[i] == NULL) {
            measuring[i] = ts;
            return;
        }
        if (!on && measuring[i] == ts) {
            measuring[i] = NULL;
            return;
        }
    }
}

/* threading calls this as a Python-level trace function in each new
 * thread, on the thread's first 'call' event: swap in the C trace
 * function and handle that first call as trace_func would have. */
static PyObject *
thread_hook_fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (pc_g.on && nargs >= 1 && PyFrame_Check(args[0])) {
        own_settrace++;
        PyEval_SetTrace(trace_func, NULL);
        own_settrace--;
        trace_func(NULL, (PyFrameObject *)args[0], PyTrace_CALL, Py_None);
    }
    Py_RETURN_NONE;
}

static PyMethodDef thread_hook_def = {
    "_pystats_thread_start", (PyCFunction)(void (*)(void))thread_hook_fn, METH_FASTCALL, NULL};

static int
set_threading_hook(int on)
{
    PyObject *threading = NULL, *cur = NULL, *r = NULL; /* owned */
    int ret = -1;

    if (thread_hook == NULL) {
        thread_hook = PyCFunction_New(&thread_hook_def, NULL);
        if (thread_hook == NULL)
            return -1;
    }
    threading = PyImport_ImportModule("threading");
    if (threading == NULL)
        goto done;
    cur = PyObject_CallMethod(threading, "gettrace", NULL);
    if (cur == NULL)
        goto done;
    if (cur != Py_None && cur != thread_hook) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: threading.settrace() is in use by another "
                                            "tool; refusing to replace it");
        goto done;
    }
    if (on || cur == thread_hook) {
        r = PyObject_CallMethod(threading, "settrace", "O", on ? thread_hook : Py_None);
        if (r == NULL)
            goto done;
    }
    ret = 0;
done:
    Py_XDECREF(threading);
    Py_XDECREF(cur);
    Py_XDECREF(r);
    return ret;
}

/* sys.settrace while the collector traces.  The collector's trace
 * function carries no object, so sys.gettrace() says None to a program
 * being counted, and the idiom "save = sys.gettrace(); ...;
 * sys.settrace(save)" (doctest.DocTestRunner.run, for one) ends in
 * sys.settrace(None): CPython's own settrace would remove the
 * collector's function and leave the thread uncounted.  So while the
 * collector's function is installed, sys.settrace is this pass-through:
 * sys.settrace(None) in a thread the collector traces asks for the state
 * sys.gettrace() already shows, and leaves the collector in place;
 * anything else goes to CPython's own (a real trace function displaces
 * the collector there, as it says: pc_trace_settrace_event). Code that
 * took sys.settrace before the window opened calls CPython's own. */
static PyObject *orig_settrace; /* owned: sys.settrace as it was */
static PyObject *pass_settrace; /* owned: settrace_fn */

static PyObject *
settrace_fn(PyObject *self, PyObject *fn)
{
    (void)self;
    if (fn == Py_None && pc_tstate_tracefunc(PyThreadState_Get()) == trace_func)
        Py_RETURN_NONE;
    if (orig_settrace == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: sys.settrace is gone");
        return NULL;
    }
    return PyObject_CallOneArg(orig_settrace, fn);
}

static PyMethodDef settrace_def = {
    "settrace", (PyCFunction)settrace_fn, METH_O,
    "settrace(function)\n--\n\nsys.settrace while pystats counts: None leaves the "
    "collector in place in a thread it counts (sys.gettrace() shows None there); "
    "anything else is sys.settrace's own."};

/* Put the pass-through in sys (on) or CPython's own back (off), unless
 * something else replaced it meanwhile. */
static int
set_settrace_pass(int on)
{
    PyObject *cur = PySys_GetObject("settrace"); /* borrowed */

    if (pass_settrace == NULL) {
        pass_settrace = PyCFunction_New(&settrace_def, NULL);
        if (pass_settrace == NULL)
            return -1;
    }
    if (on && cur != NULL && cur != pass_settrace) {
        Py_INCREF(cur);
        Py_XSETREF(orig_settrace, cur);
        if (PySys_SetObject("settrace", pass_settrace) < 0)
            return -1;
    }
    if (!on && cur == pass_settrace && orig_settrace != NULL) {
        if (PySys_SetObject("settrace", orig_settrace) < 0)
            return -1;
        Py_CLEAR(orig_settrace);
    }
    return 0;
}

int
pc_backend_check(void)
{
    PyThreadState *ts;
    if (trace_opcodes_offset < 0 && find_trace_opcodes_offset() < 0)
        return -1;
    for (ts = PyInterpreterState_ThreadHead(PyInterpreterState_Get()); ts;
         ts = PyThreadState_Next(ts)) {
        if (taken(ts)) {
            PyErr_SetString(PyExc_RuntimeError, "pystats: a trace function (a debugger, "
                                                "coverage, a profiler?) is already set; "
                                                "refusing to replace it");
            return -1;
        }
    }
    return 0;
}

int
pc_backend_sync(void)
{
    PyThreadState *me = PyThreadState_Get(), *ts;
    PyInterpreterState *interp = PyInterpreterState_Get();
    int want_all = pc_g.on && pc_g.mode != PC_MODE_CENSUS;

    /* Line-counted frames count up to where they are, as counted before
     * the state changed (off()'s own CALL is counted). */
    if (pc_lines_wanted())
        pc_lines_cut_all();

    if (want_all && !installed_all) {
        /* Only installing needs every thread free: switching off, or
         * leaving a measure(), removes ours wherever it still is. */
        if (pc_backend_check() < 0 || set_threading_hook(1) < 0)
            return -1;
        memset(lost, 0, sizeof lost);
        window_gen++;
        for (ts = PyInterpreterState_ThreadHead(interp); ts; ts = PyThreadState_Next(ts))
            if (install_on(ts) < 0)
                return -1;
        installed_all = 1;
    }
    else if (!want_all && installed_all) {
        if (set_threading_hook(0) < 0)
            return -1;
        for (ts = PyInterpreterState_ThreadHead(interp); ts; ts = PyThreadState_Next(ts))
            if (!is_measuring(ts) && remove_from(ts) < 0)
                return -1;
        installed_all = 0;
        memset(lost, 0, sizeof lost);
        window_gen++;
    }
    /* measure() on this thread, with no window open. */
    if (pc_t.measure_depth > 0 && !is_measuring(me)) {
        if (pc_backend_check() < 0)
            return -1;
        set_measuring(me, 1);
        window_gen++;
        if (install_on(me) < 0)
            return -1;
    }
    else if (pc_t.measure_depth == 0 && is_measuring(me)) {
        set_measuring(me, 0);
        if (!want_all && remove_from(me) < 0)
            return -1;
    }
    pc_g.installed = installed_all || pc_tstate_tracefunc(me) == trace_func;
    /* Best effort: without the pass-through (a sys being torn down),
     * sys.settrace(None) displaces the collector, as it says. */
    if (set_settrace_pass(installed_all || any_measuring()) < 0)
        PyErr_Clear();
    return 0;
}

void
pc_backend_cut(void)
{
    if (pc_lines_wanted())
        pc_lines_cut_all();
}

const char *
pc_backend_name(void)
{
    return "trace";
}

#endif /* !PC_HAVE_MONITORING */
