/* guard.c: other tools that trace, or move execution, while counting
 * (see guard.h).
 *
 * 3.11: a thread has one trace function.  A tool that sets its own
 * (coverage's C tracer, a debugger, sys.settrace) while the collector
 * counts in that thread replaces the collector's, and that thread's
 * instructions stop being counted.  PyEval_SetTrace raises the audit
 * event "sys.settrace" before it swaps the function in; a C audit hook
 * hands it to trace.c, which knows whose trace function is in place.
 * The collector never fights back: it steps aside, says so once on
 * stderr, and the dump says how many threads it lost and where.
 *
 * 3.12+: sys.settrace and sys.monitoring tools coexist with the
 * collector's events, but a trace function (or a monitoring callback)
 * that assigns frame.f_lineno moves the frame to another instruction
 * with no event segment counting sees, so the counts of the straight-line
 * run it was in are wrong.  The setter of f_lineno is wrapped: an
 * assignment that moved a frame of a thread that counts by segments is
 * counted, said once on stderr and written into the dump.  So is
 * segment counting's desync count (events that did not fit a thread's
 * shadow stack).  Mode instructions (INSTRUCTION and PY_START events)
 * loses INSTRUCTION events on CPython 3.12.1 and 3.13.0 once another
 * tool enables PY_START: sys.settrace, sys.setprofile and other tools'
 * register_callback while it counts are counted (events_lost()).
 */
#include "guard.h"
#include "segments.h"
#include "text.h"
#include "../format/psf_text.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct {
    uint64_t displaced;                       /* threads whose trace function another
                                                 tool replaced while counting (3.11) */
    uint64_t jumps;                           /* f_lineno assignments that moved a
                                                 frame counted by segments (3.12+) */
    uint64_t lost;                            /* other tools' sys.settrace,
                                                 sys.setprofile, register_callback while
                                                 mode instructions counts (3.12+) */
    unsigned long long desync_base;           /* pc_g.desync at the last clear */
    char cause[PC_META_MAX];                  /* the first cause, free text (1.16) */
    int said_displaced, said_jump, said_lost; /* once per process */
} g;

int pc_guard_own;

static void
say(const char *msg)
{
    if (write(2, msg, strlen(msg)) < 0) {
        /* nowhere left to say it */
    }
}

/* 'WHAT at "FILE", line N, in QUALNAME' (a traceback's spelling, with
 * no ':' for the text encoding to escape), the Python code running now (the
 * caller of sys.settrace, the trace function setting f_lineno), into
 * out (encoded as free text, 1.16) and raw (for stderr).  Keeps any
 * exception being handled. */
static void
describe(const char *what, char *out, size_t cap, char *raw, size_t rawcap)
{
    pc_exc saved; /* the exception in flight */
    PyFrameObject *frame;
    PyObject *text = NULL; /* owned */
    int cut;

    saved = pc_exc_save();
    frame = PyEval_GetFrame(); /* borrowed */
    if (frame != NULL) {
        PyCodeObject *code = PyFrame_GetCode(frame); /* owned */
        text = PyUnicode_FromFormat("%s at \"%U\", line %d, in %U", what, code->co_filename,
                                    PyFrame_GetLineNumber(frame), code->co_qualname);
        Py_DECREF(code);
    }
    else {
        text = PyUnicode_FromFormat("%s outside Python code", what);
    }
    out[0] = raw[0] = '\0';
    if (text == NULL || pc_text_encode(text, out, cap, &cut) < 0) {
        PyErr_Clear();
        psf_strlcpy(out, what, cap);
    }
    if (text != NULL) {
        const char *s = PyUnicode_AsUTF8(text);
        if (s == NULL)
            PyErr_Clear();
        psf_strlcpy(raw, s ? s : what, rawcap);
    }
    else {
        psf_strlcpy(raw, what, rawcap);
    }
    Py_XDECREF(text);
    pc_exc_restore(saved);
}

/* The first cause of inexact counts (kept for the dump), and the one line
 * on stderr for each kind of cause, said once: fmt holds one %s, where
 * the cause goes. */
static void
note_cause(const char *what, int *said, const char *fmt)
{
    char cause[PC_META_MAX], raw[PC_META_MAX], msg[PC_META_MAX + 512];

    if (g.cause[0] && *said)
        return;
    describe(what, cause, sizeof cause, raw, sizeof raw);
    if (!g.cause[0])
        psf_strlcpy(g.cause, cause, sizeof g.cause);
    if (!*said) {
        *said = 1;
        snprintf(msg, sizeof msg, fmt, raw);
        say(msg);
    }
}

void
pc_guard_displaced(const char *what)
{
    g.displaced++;
    note_cause(what, &g.said_displaced,
               "pystats: another trace function replaces the collector's "
               "in a counting thread (%s): that thread is not counted from "
               "here on, and the dump says so (" PSF_H_DISPLACED ")\n");
}

void
pc_guard_clear(int still_displaced)
{
    g.displaced = still_displaced > 0 ? (uint64_t)still_displaced : 0;
    g.jumps = 0;
    g.lost = 0;
    g.desync_base = pc_g.desync;
    pc_g.desync_where[0] = '\0';
    if (!g.displaced)
        g.cause[0] = '\0';
}

static void
put_u64_header(psf_out *o, const char *key, uint64_t v)
{
    char num[24];
    psf_u64_to_str(v, num);
    psf_put_header(o, key, num);
}

void
pc_guard_write(psf_out *o)
{
    uint64_t desync = pc_g.desync - g.desync_base;

    if (g.displaced)
        put_u64_header(o, PSF_H_DISPLACED, g.displaced);
    if (g.jumps)
        put_u64_header(o, PSF_H_LINE_JUMPS, g.jumps);
    if (desync)
        put_u64_header(o, PSF_H_DESYNC, desync);
    if (g.lost)
        put_u64_header(o, PSF_H_EVENTS_LOST, g.lost);
    if ((g.displaced || g.jumps || g.lost) && g.cause[0]) {
        psf_put_header(o, PSF_H_INEXACT_CAUSE, g.cause);
    }
    else if (desync && pc_g.desync_where[0]) {
        /* Where the first desync happened (pc_desync_note), encoded as
         * free text (1.16); static: a signal handler may write this. */
        static char where[sizeof pc_g.desync_where * 3];
        psf_text_encode(pc_g.desync_where, strlen(pc_g.desync_where), where, sizeof where);
        psf_put_header(o, PSF_H_INEXACT_CAUSE, where);
    }
}

/* ---- the audit hook ---- */

#if PC_HAVE_MONITORING
/* Mode instructions takes INSTRUCTION and PY_START events.  On CPython
 * 3.12.1 and 3.13.0, once another tool enables PY_START (as sys.settrace
 * and sys.setprofile do through their own tool ids, and coverage's
 * sys.monitoring core does), that tool's INSTRUCTION events stop coming
 * for much of the code (tests/py/test_other_tools.py shows it): the
 * counts fall short.  Segment counting (mode count) is not affected. */
static void
events_lost(const char *what)
{
    if (pc_guard_own || pc_g.mode != PC_MODE_INSTRUCTIONS || !(pc_g.on || pc_g.measuring))
        return;
    g.lost++;
    note_cause(what, &g.said_lost,
               "pystats: another tracing tool starts while mode "
               "'instructions' counts (%s): this CPython then drops "
               "INSTRUCTION events, so this dump's counts are not exact, "
               "and it says so (" PSF_H_EVENTS_LOST "); mode "
               "'count' is not affected\n");
}
#endif

/* The backend's handler of a "sys.settrace" audit event (3.11's
 * trace.c), handed down by the module layer: the guard calls nothing
 * above it by name. */
static void (*settrace_event)(void);

static int
audit_hook(const char *event, PyObject *args, void *data)
{
    (void)args;
    (void)data;
    /* Every audited operation of the program comes here: one compare
     * for all but the events looked for. */
    if (event[0] != 's' || strncmp(event, "sys.", 4) != 0)
        return 0;
    /* The hook is process-wide; the collector counts the main
     * interpreter only. */
    if (strcmp(event, "sys.settrace") == 0) {
        if (PyInterpreterState_Get() != PyInterpreterState_Main())
            return 0;
#if PC_HAVE_MONITORING
        events_lost("sys.settrace");
#else
        if (settrace_event != NULL)
            settrace_event();
#endif
    }
#if PC_HAVE_MONITORING
    else if (strcmp(event, "sys.setprofile") == 0 ||
             strcmp(event, "sys.monitoring.register_callback") == 0) {
        if (PyInterpreterState_Get() != PyInterpreterState_Main())
            return 0;
        events_lost(event[4] == 's' ? "sys.setprofile" : "sys.monitoring.register_callback");
    }
#endif
    return 0;
}

/* ---- frame.f_lineno (3.12+) ---- */

#if PC_HAVE_MONITORING
static setter orig_setlineno;

static int
setlineno(PyObject *f, PyObject *value, void *closure)
{
    int before, r;

    if (!pc_counting() || !pc_seg_mode() || !PyFrame_Check(f) ||
        PyInterpreterState_Get() != PyInterpreterState_Main())
        return orig_setlineno(f, value, closure);
    before = PyFrame_GetLasti((PyFrameObject *)f);
    r = orig_setlineno(f, value, closure);
    if (r < 0 || PyFrame_GetLasti((PyFrameObject *)f) == before)
        return r;
    g.jumps++;
    /* The shadow stack no longer fits that frame: what does not fit from
     * here on is this jump's doing (PC_DESYNC), for the process's life. */
    pc_g.desync_excused = 1;
    note_cause("frame.f_lineno set", &g.said_jump,
               "pystats: a trace function moved a counted frame by setting "
               "frame.f_lineno (%s): segment counting sees no event for "
               "that jump, so this dump's counts are not exact, and it says "
               "so (" PSF_H_LINE_JUMPS ")\n");
    return r;
}

static int
wrap_setlineno(void)
{
    PyGetSetDef *d;
    for (d = PyFrame_Type.tp_getset; d && d->name; d++) {
        if (strcmp(d->name, "f_lineno") == 0 && d->set != NULL) {
            if (d->set != setlineno) {
                orig_setlineno = d->set;
                d->set = setlineno;
            }
            return 0;
        }
    }
    return -1;
}

#endif

void
pc_guard_init(void (*on_settrace)(void))
{
    static int done;

    settrace_event = on_settrace;
    if (done)
        return;
    done = 1;
#if PC_HAVE_MONITORING
    if (wrap_setlineno() < 0)
        say("pystats: frame.f_lineno has no setter to watch: a trace "
            "function's jumps would go unnoticed by segment counting\n");
#endif
}

void
pc_guard_arm(void)
{
    static int done;
    PyThreadState *ts;
    int r;

    /* Only the modes whose events another tool can take away need the
     * hook; once added it stays (CPython cannot remove one). */
    if (done || pc_g.mode != (PC_HAVE_MONITORING ? PC_MODE_INSTRUCTIONS : PC_MODE_COUNT))
        return;
    done = 1;
    /* The sys.addaudithook event reaches the program's own hooks: not
     * counted in the window being opened. */
    ts = PyThreadState_Get();
    PyThreadState_EnterTracing(ts);
    r = PySys_AddAuditHook(audit_hook, NULL);
    PyThreadState_LeaveTracing(ts);
    if (r < 0) {
        PyErr_Clear();
        say("pystats: cannot add an audit hook: another tool taking the "
            "collector's events would go unnoticed\n");
    }
}
