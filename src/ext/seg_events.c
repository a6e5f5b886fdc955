/* seg_events.c: the event rules of segment counting (3.12+): one
 * sys.monitoring callback per event, each of which first tries the
 * common case inline (start(), leave(), jump_units()) and hands
 * everything else to a *_other function that handles every case; and
 * the table of events and callbacks (pc_seg_callbacks).  See segments.c
 * for the method.
 *
 * Invariants (on top of seg_run.h's):
 *  - A callback never raises and returns None (or DISABLE for a quiet
 *    jump, seg_quiet_site()); what does not fit is SEG_DESYNC and dropped,
 *    and the thread's stack is rebuilt at its next event (seg_rebuild).
 *  - Only counting threads count: pc_g.on, or the thread's measure()
 *    depth (seg_thread.measuring, mirrored so that one thread-local
 *    access suffices).
 *  - A fast path only ever handles a top frame that runs straight-line
 *    code (seg_running()) of the event's code; it changes exactly what its
 *    *_other twin would in that case.
 *  - The call statistics (pc_calls_g) count each event once, in
 *    whichever path takes it.
 *  - Every callback runs with the GIL held (asserted in DEBUG=1 builds,
 *    counting_thread() and ENTER): the counters it writes are shared.
 */
#include "seg_floor.h"
#include "seg_quiet.h"
#include "stats.h"

#if PC_HAVE_MONITORING

/* ---- a new frame: its caller stops ---- */

/* A new frame is entered: stop the caller where it is (any case). */
static __attribute__((noinline)) void
caller_stop_slow(seg_thread *t)
{
    seg_frame *f = &t->stack[t->depth - 1];
    int32_t c;
    int in_flight = 0;
    if (f->start < 0 && f->at < 0)
        return;
    c = seg_caller_instruction(t, f);
    if (f->start >= 0 && f->at < 0 && f->raised >= 0 && c != f->raised &&
        f->sc->op[f->raised] != seg_op.for_iter && f->sc->op[f->raised] != seg_op.send) {
        /* An exception is in flight: the callee runs from the stack
         * unwinding (a __del__, a weakref callback), and RERAISE may have
         * set the frame's instruction back to where the exception first
         * arose.  The frame is at its raise site.  (A StopIteration that
         * FOR_ITER or SEND swallowed is no exception in flight.) */
        c = f->raised;
        in_flight = 1;
    }
    if (c < 0) {
        SEG_DESYNC(t);
        return;
    }
    seg_stop_at(t, f, c);
    if (!in_flight)
        f->raised = -1; /* seg_restart() resets it; seg_eager_restart() reads it */
}

/* A new frame is entered: stop the caller where it is.  Returns the
 * thread's last executed instruction, the new frame's predecessor. */
static inline int
caller_stop(seg_thread *t)
{
    if (t->depth > 0) {
        seg_frame *f = &t->stack[t->depth - 1];
        pc_iframe *cur, *p;
        int32_t c;
        if (seg_running(f) && (p = seg_caller_fast(t, &cur)) == f->iframe &&
            (c = seg_caller_unit(f, p)) >= 0) {
            seg_close_round(t, f, c);
            f->at = c;
            return f->sc->op[c];
        }
        caller_stop_slow(t);
    }
    return t->last == SEG_TOP ? SEG_NONE : t->last;
}

/* ---- the callbacks ---- */

/* Counting threads only (measure() counts one); t->measuring mirrors
 * pc_t.measure_depth so that one thread-local access suffices.  After a
 * desync (gen 0 sends every event here) the stack is rebuilt first;
 * own: the current frame is the event's, not a new one it pushes. */
#define ENTER(t, own)                         \
    do {                                      \
        assert(PyGILState_Check());           \
        t = seg_t;                            \
        if (t == NULL || t->gen != seg_gen) { \
            if (!pc_counting())               \
                Py_RETURN_NONE;               \
            t = seg_thread_adopt(0);          \
            if (t == NULL)                    \
                Py_RETURN_NONE;               \
        }                                     \
        if (!(pc_g.on | t->measuring))        \
            Py_RETURN_NONE;                   \
        if (t->lost)                          \
            seg_rebuild(t, own);              \
    } while (0)

#define HOT static inline __attribute__((always_inline))
HOT PyObject *start(PyObject *const *args, Py_ssize_t nargs, int call);
HOT PyObject *leave(PyObject *const *args, Py_ssize_t nargs, int yielding);

/* PY_START, PY_RESUME: (code, offset of RESUME); any case. */
static __attribute__((noinline)) PyObject *
start_other(PyObject *const *args, Py_ssize_t nargs, int call)
{
    seg_thread *t;
    seg_frame *f;
    int32_t off;
    int prev;
    ENTER(t, 0);
    if (call)
        pc_calls_g.python_starts++;
    else
        pc_calls_g.resumptions++;
    if (nargs < 2)
        Py_RETURN_NONE;
    seg_resync_caller(t);
    prev = caller_stop(t);
    f = seg_push(t, args[0]);
    if (f == NULL)
        Py_RETURN_NONE;
    off = seg_unit_arg(args[1]);
    if (!seg_valid_unit(f->sc, off) || f->sc->drop_start) {
        /* (drop_start: the tests' forced desync, at the first sight of
         * the code, which always comes here; no bug, so no assert) */
        if (f->sc->drop_start)
            pc_g.desync_excused = 1;
        f->sc->drop_start = 0;
        SEG_DESYNC(t);
        t->depth--;
        Py_RETURN_NONE;
    }
    seg_pair(prev, f->sc->op[off]);
    f->start = off;
    t->last = SEG_TOP;
    if (call)
        f->sc->hot->calls++;
    Py_RETURN_NONE;
}

static PyObject *
cb_start(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return start(args, nargs, 1);
}

static PyObject *
cb_resume(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return start(args, nargs, 0);
}

/* PY_THROW: (code, offset, exception).  Nothing of the frame runs
 * before its handler (EXCEPTION_HANDLED) or its exit (PY_UNWIND). */
static PyObject *
cb_throw(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    (void)self;
    ENTER(t, 0);
    pc_calls_g.throws++;
    if (nargs < 1)
        Py_RETURN_NONE;
    seg_resync_caller(t);
    t->last = caller_stop(t);
    seg_push(t, args[0]);
    Py_RETURN_NONE;
}

/* PY_RETURN, PY_YIELD: the frame leaves; its caller may go on.  Any
 * case. */
static __attribute__((noinline)) PyObject *
leave_other(PyObject *const *args, Py_ssize_t nargs, int yielding)
{
    seg_thread *t;
    seg_frame *f;
    seg_code *sc;
    int32_t off;
    ENTER(t, 1);
    if (yielding)
        pc_calls_g.yields++;
    else
        pc_calls_g.returns++;
    if (nargs < 2 || (f = seg_top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    sc = f->sc;
    off = seg_unit_arg(args[1]);
    if (!seg_valid_unit(sc, off)) {
        SEG_DESYNC(t);
        Py_RETURN_NONE;
    }
    seg_left(t, f, off, yielding);
    return seg_return_result(sc, yielding);
}

/* PY_RETURN: (code, offset, value) */
static PyObject *
cb_return(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return leave(args, nargs, 0);
}

/* PY_YIELD: (code, offset, value) */
static PyObject *
cb_yield(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return leave(args, nargs, 1);
}

/* Kinds of jump event: JUMP and 3.12/3.13's BRANCH name the instruction
 * that jumps; 3.14's BRANCH_LEFT and BRANCH_RIGHT may not (compat.h,
 * PC_BRANCH_LEFT_RIGHT). */
#define BR_PLAIN 0
#define BR_LEFT 1
#define BR_RIGHT 2
#define BR_FIXED 3 /* a BR_LEFT or BR_RIGHT event branch_fixup() fixed */

/* Whether a 3.14 branch event may name another instruction than the
 * one that fired it: NOT_TAKEN (BRANCH_LEFT, naming its POP_JUMP_IF_*),
 * POP_ITER (BRANCH_RIGHT, naming the FOR_ITER whose exit it is, or the
 * last instruction before it that saved the frame's instruction pointer
 * when it is reached in straight line, as in the inlined any()/all(); or
 * itself, when another tool's INSTRUCTION event ran at it: CPython's
 * INSTRUMENTED_INSTRUCTION saves the pointer there first, and then
 * seg_loop_exit() tells the two apart), END_ASYNC_FOR (BRANCH_RIGHT, naming
 * its loop's END_SEND; it is reached from the handler EXCEPTION_HANDLED
 * reports).  FOR_ITER's own BRANCH_LEFT (to the next instruction) and a
 * POP_JUMP_IF_*'s BRANCH_RIGHT (to its target) name themselves. */
static inline int
branch_moved(const seg_code *sc, int32_t src, int32_t dst, int kind)
{
    int32_t v;
    int op = sc->op[src];
    if (kind == BR_LEFT)
        return !(op == seg_op.for_iter && dst == seg_next_unit(sc, src));
    if (!sc->iter_end[dst])
        return 0;
    v = seg_owner_unit(sc, dst - 1);
    if (v == src)
        return sc->op[v] == seg_op.pop_iter;
    /* A POP_JUMP_IF_* jumping: its target may well follow a POP_ITER
     * (the end of a loop it jumps over). */
    return !(seg_is_pop_jump(op) && dst == seg_jump_target(sc, src));
}

/* The instruction v that fired a moved branch event runs right before
 * the destination, which follows it in code order.  NOT_TAKEN is the
 * jump's real source: a segment runs up to it, the next one starts at
 * dst.  A POP_ITER after a FOR_ITER is that FOR_ITER's destination
 * (FOR_ITER jumps there, over END_FOR; the segment goes on through dst).
 * POP_ITER and END_ASYNC_FOR fire their event before they do their work
 * (which can run Python code, a __del__ or an async generator's
 * finalizer hook, with the frame at that instruction; END_ASYNC_FOR can
 * also re-raise): reached in straight line, or at the handler that
 * EXCEPTION_HANDLED opened, they end nothing, and the event is ignored
 * (returns 1).  -1 if the bytecode does not fit (counted in desync; the
 * event is dropped). */
static int
branch_fixup(seg_thread *t, seg_frame *f, int32_t *src, int32_t *dst, int kind)
{
    const seg_code *sc = f->sc;
    int32_t v;
    if (!branch_moved(sc, *src, *dst, kind))
        return 0;
    v = seg_owner_unit(sc, *dst - 1);
    if (v < 0) {
        SEG_DESYNC(t);
        return -1;
    }
    if (kind == BR_RIGHT && sc->op[v] == seg_op.pop_iter) {
        if (*src == v && (*src = seg_loop_exit(sc, v)) < 0)
            return 1; /* named itself, reached in straight line */
        if (sc->op[*src] != seg_op.for_iter)
            return 1;
        if (f->at == *src && f->seeded && f->start < 0)
            f->seeded = 0; /* the exit of the FOR_ITER under way */
        *dst = v;
        return 0;
    }
    if (kind == BR_RIGHT && sc->op[v] == seg_op.end_async_for)
        return 1;
    if (kind == BR_LEFT && sc->op[v] == seg_op.not_taken) {
        *src = v;
        return 0;
    }
    SEG_DESYNC(t);
    return -1;
}

/* JUMP, BRANCH (rare cases): see cb_jump. */
static __attribute__((noinline)) void
jump_slow(seg_thread *t, seg_frame *f, int32_t src, int32_t dst)
{
    seg_code *sc = f->sc;
    int prev;
    seg_eager_settle(t, f, src);
    prev = seg_settle(t, f, src, 0);
    seg_pair(prev, sc->op[dst]);
    f->at = f->raised = -1;
    f->seeded = 0;
    t->last = SEG_TOP;
    f->start = dst;
}

/* JUMP, BRANCH: code, source and destination units (see
 * jump_units()); any case. */
static __attribute__((noinline)) PyObject *
jump_other(PyObject *code, int32_t src, int32_t dst, int kind)
{
    seg_thread *t;
    seg_frame *f;
    seg_code *sc;
    ENTER(t, 1);
    if ((f = seg_top_for(t, code)) == NULL)
        Py_RETURN_NONE;
    sc = f->sc;
    if (!seg_valid_unit(sc, src) || !seg_valid_unit(sc, dst)) {
        SEG_DESYNC(t);
        Py_RETURN_NONE;
    }
    if ((kind == BR_LEFT || kind == BR_RIGHT) && branch_fixup(t, f, &src, &dst, kind) != 0)
        Py_RETURN_NONE;
    if (f->start >= 0 && f->at != src && seg_straight(sc, f->start, src)) {
        /* Running straight-line code (or restarted eagerly, which this
         * event confirms). */
        seg_close_run(sc, f->start, src);
        pc_g.pair[sc->op[src]][sc->op[dst]]++;
        f->at = f->raised = -1;
        f->start = dst;
    }
    else if (f->start < 0 && f->at == src && f->resume < 0 && !f->seeded) {
        /* Stopped at src while Python code ran for it (a generator that
         * FOR_ITER resumed, a __bool__): src branches now. */
        seg_pair(t->last, sc->op[dst]);
        f->at = f->raised = -1;
        f->seeded = 0;
        f->start = dst;
        t->last = SEG_TOP;
    }
    else {
        jump_slow(t, f, src, dst);
    }
    f->jumped = src;
    if (sc->quiet_ok[src] == SEG_QUIET_JUMP)
        return seg_quiet_site(sc, src);
    if ((sc->quiet_ok[src] == SEG_QUIET_LEFT && kind == BR_LEFT) ||
        sc->quiet_ok[src] == SEG_QUIET_FORK)
        return Py_NewRef(seg_disable); /* silent now */
    Py_RETURN_NONE;
}

/* The fast paths.  Each callback first tries the common case in a few
 * loads and compares: a counting thread whose top frame is the event's
 * and runs straight-line code (an open segment, no silent jump in its
 * code, not stopped, no exception in flight).  Everything else goes to
 * the *_other function, which handles every case. */

/* room: the stack has room for one more frame (a start pushes one). */
HOT seg_thread *
counting_thread(int room)
{
    seg_thread *t = seg_t;
    /* The counters a callback writes (seg_code's starts[] and ends[],
     * pc_g, pc_hot) are shared by every thread: the GIL serializes them,
     * which is why the segment modes are refused without it.  Asserted
     * in DEBUG=1 builds only: no cost on the fast path of a release. */
    assert(PyGILState_Check());
    /* depth in 1..cap - 1 (room: one unsigned compare), or above 0 */
    assert(seg_on_gen == (pc_g.on ? seg_gen : SEG_GEN_NONE));
    assert(t != NULL); /* seg_unadopted before the thread's first count */
    if ((t->gen == seg_on_gen || (t->measuring && t->gen == seg_gen)) &&
        (room ? (unsigned)t->depth - 1 < (unsigned)t->cap - 1 : t->depth > 0))
        return t;
    return NULL;
}

/* PY_START, PY_RESUME: (code, offset of RESUME) */
HOT PyObject *
start(PyObject *const *args, Py_ssize_t nargs, int call)
{
    seg_thread *t;
    seg_frame *f, *g;
    seg_code *sc, *nsc;
    pc_iframe *cur, *p;
    PyObject *code;
    int32_t off, c;
    int prev;
    unsigned k;

    if (nargs < 2)
        goto other;
    off = call ? pc_offset_unit_zero_first(args[1]) : seg_unit_arg(args[1]);
    pc_stats_event_units(off, 0);
    if ((t = counting_thread(1)) == NULL)
        goto other;
    f = &t->stack[t->depth - 1];
    code = args[0];
    k = seg_cache_slot(code);
    nsc = seg_cache[k].sc;
    /* a code whose cache slot another took: its table found again (a
     * first sight, or the tests' forced desync, is start_other()'s) */
    if (seg_cache[k].code != code && ((nsc = seg_code_known(code, k)) == NULL || nsc->drop_start))
        goto other;
    if ((uint32_t)off >= (uint32_t)nsc->n)
        goto other;
    if ((p = seg_caller_fast(t, &cur)) != f->iframe && (p = seg_caller_past_shim(p)) != f->iframe &&
        (f = seg_pop_quiet(t, f, p)) == NULL)
        goto other;
    /* f is the caller: an open segment (or restarted eagerly), no
     * exception in flight, at an instruction the fast path can stop at. */
    sc = f->sc;
    if (f->raised >= 0 || (c = seg_caller_unit(f, p)) < 0 ||
        (f->start < 0 && (c == f->at || !seg_send_went_on(t, f))))
        goto other;
    if (c != f->at) {
        /* running, or restarted eagerly, which this call confirms */
        f->at = -1;
        seg_close_round(t, f, c);
        f->at = c;
        prev = sc->op[c];
    }
    else if ((prev = f->eager_last) >= 0) {
        /* Restarted eagerly, and c calls Python code again (a generator
         * all() or sum() drives): the restart is taken back as by
         * seg_eager_settle(); the callee's last opcode precedes. */
        pc_g.pair[prev][sc->op[f->start]]--;
        f->start = -1;
    }
    else {
        goto other;
    }
    pc_g.pair[prev][nsc->op[off]]++;
    g = &t->stack[t->depth];
    g->sc = nsc;
    g->iframe = cur;
    g->start = off;
    g->at = g->raised = g->resume = g->jumped = -1;
    g->seeded = 0;
    t->depth++;
    t->last = SEG_TOP;
    if (call) {
        pc_calls_g.python_starts++;
        nsc->hot->calls++;
    }
    else {
        pc_calls_g.resumptions++;
    }
    Py_RETURN_NONE;
other:
    return start_other(args, nargs, call);
}

/* PY_RETURN, PY_YIELD: (code, offset, value) */
HOT PyObject *
leave(PyObject *const *args, Py_ssize_t nargs, int yielding)
{
    seg_thread *t;
    seg_frame *f;
    seg_code *sc;
    pc_iframe *cur;
    int32_t off;
    int last;

    if (nargs < 2)
        goto other;
    off = pc_offset_unit_nonzero(args[1]);
    pc_stats_event_units(off, 0);
    if ((t = counting_thread(0)) == NULL)
        goto other;
    f = &t->stack[t->depth - 1];
    cur = pc_tstate_iframe(t->ts);
    if (f->iframe != cur && (f = seg_pop_quiet(t, f, cur)) == NULL)
        goto other;
    sc = f->sc;
    if (sc->code != args[0] || (uint32_t)off >= (uint32_t)sc->n)
        goto other;
    if (f->start < 0) {
        /* The commonest stopped case: a yield from / await whose
         * sub-iterator yielded a value, and which yields it on (SEND fell
         * through to the YIELD_VALUE right after it): that one
         * instruction runs, its predecessor the sub-iterator's last.  As
         * seg_settle() would do it (restart there, close at once). */
        if (!yielding || f->at < 0 || f->resume >= 0 || f->seeded || sc->op[f->at] != seg_op.send ||
            off != seg_next_unit(sc, f->at))
            goto other;
        seg_pair(t->last, sc->op[off]);
        f->at = f->raised = -1;
        sc->starts[off]++;
        sc->ends[off]++;
    }
    else {
        if (f->at == off)
            goto other;
        seg_close_to(t, f, off, yielding);
    }
    last = sc->op[off];
    if (yielding)
        pc_calls_g.yields++;
    else
        pc_calls_g.returns++;
    seg_popped(t, sc, last, yielding);
    return seg_return_result(sc, yielding);
other:
    return leave_other(args, nargs, yielding);
}

/* JUMP, BRANCH: code, source and destination units.  Only JUMP events
 * (kind BR_PLAIN, may_quiet) come from jumps that may be turned off
 * (quiet); kind BR_LEFT and BR_RIGHT are 3.14's branch events, whose
 * source may need fixing (branch_fixup()). */
HOT PyObject *
jump_units(PyObject *code, int32_t src, int32_t dst, int may_quiet, int kind)
{
    seg_thread *t = counting_thread(0);
    seg_frame *f;
    seg_code *sc;
    pc_iframe *cur;
    int32_t nt;

    if (t == NULL)
        goto other;
    f = &t->stack[t->depth - 1];
    cur = pc_tstate_iframe(t->ts);
    if (f->iframe != cur && (f = seg_pop_quiet(t, f, cur)) == NULL)
        goto other;
    sc = f->sc;
    if (sc->code != code || (uint32_t)src >= (uint32_t)sc->n || (uint32_t)dst >= (uint32_t)sc->n)
        goto other;
    if (kind == BR_LEFT && sc->op[src] != seg_op.for_iter && (nt = seg_next_unit(sc, src)) < dst &&
        sc->op[nt] == seg_op.not_taken && seg_next_unit(sc, nt) == dst) {
        /* the commonest moved event: a POP_JUMP_IF_*'s NOT_TAKEN */
        src = nt;
        kind = BR_FIXED;
    }
    else if (kind != BR_PLAIN && branch_moved(sc, src, dst, kind)) {
        if (branch_fixup(t, f, &src, &dst, kind) != 0)
            Py_RETURN_NONE;
        kind = BR_FIXED;
    }
    if (f->start >= 0) {
        if (f->at == src)
            goto other;
        /* Running (or restarted eagerly, which this event confirms). */
        seg_close_round(t, f, src);
        pc_g.pair[sc->op[src]][sc->op[dst]]++;
    }
    else {
        /* Stopped at src while Python code ran for it (the generator a
         * FOR_ITER resumed, a __bool__): src branches now. */
        if (f->at != src || f->resume >= 0 || f->seeded || t->last < 0)
            goto other;
        pc_g.pair[t->last][sc->op[dst]]++;
        t->last = SEG_TOP;
    }
    f->at = f->raised = -1;
    f->start = dst;
    f->jumped = src;
    if (may_quiet && sc->quiet_ok[src] == SEG_QUIET_JUMP)
        return seg_quiet_site(sc, src);
    if ((kind == BR_FIXED && sc->quiet_ok[src] == SEG_QUIET_LEFT) ||
        sc->quiet_ok[src] == SEG_QUIET_FORK)
        return Py_NewRef(seg_disable); /* silent now */
    Py_RETURN_NONE;
other:
    return jump_other(code, src, dst, may_quiet ? BR_PLAIN : kind);
}

/* JUMP, BRANCH (3.12, 3.13): (code, source offset, destination offset) */
HOT PyObject *
jump(PyObject *const *args, Py_ssize_t nargs, int may_quiet, int kind)
{
    int32_t src, dst;
    if (nargs < 3)
        Py_RETURN_NONE;
    src = pc_offset_unit_nonzero(args[1]);
    dst = pc_offset_unit_nonzero(args[2]);
    if (src < 0)
        src = seg_unit_arg(args[1]);
    if (dst < 0)
        dst = seg_unit_arg(args[2]);
    pc_stats_event_units(src, dst);
    return jump_units(args[0], src, dst, may_quiet, kind);
}

static PyObject *
cb_jump(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return jump(args, nargs, 1, BR_PLAIN);
}

#if !PC_BRANCH_LEFT_RIGHT
static PyObject *
cb_branch(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return jump(args, nargs, 0, BR_PLAIN);
}
#endif

#if PC_BRANCH_LEFT_RIGHT
/* BRANCH_LEFT, BRANCH_RIGHT (3.14): (code, source offset, destination
 * offset), the source fixed by branch_fixup(). */
static PyObject *
cb_branch_left(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return jump(args, nargs, 0, BR_LEFT);
}

static PyObject *
cb_branch_right(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return jump(args, nargs, 0, BR_RIGHT);
}
#endif

static inline void
raised_at(seg_thread *t, seg_frame *f, int32_t r)
{
    if (f->start < 0) {
        if (f->at < 0 || f->at == r)
            return; /* thrown in, or raised where it stopped */
        seg_restart(t, f, r, 0);
    }
    f->raised = r;
}

/* RAISE: (code, offset, exception) */
static PyObject *
cb_raise(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    seg_frame *f;
    int32_t r;
    (void)self;
    ENTER(t, 1);
    pc_calls_g.raises++;
    if (nargs < 2 || (f = seg_top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    if (f->start < 0 && f->at < 0)
        Py_RETURN_NONE; /* after PY_THROW: its YIELD_VALUE already ran */
    r = seg_own_instruction(t, f);
    if (r < 0) {
        SEG_DESYNC(t);
        Py_RETURN_NONE;
    }
    seg_eager_settle(t, f, r);
    raised_at(t, f, r);
    Py_RETURN_NONE;
}

/* RERAISE: (code, offset, exception); the offset is the instruction. */
static PyObject *
cb_reraise(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    seg_frame *f;
    int32_t r;
    (void)self;
    ENTER(t, 1);
    if (nargs < 2 || (f = seg_top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    if (f->start < 0 && f->at < 0)
        Py_RETURN_NONE;
    r = seg_owner_unit(f->sc, seg_unit_arg(args[1]));
    if (r < 0) {
        SEG_DESYNC(t);
        Py_RETURN_NONE;
    }
    seg_eager_settle(t, f, r);
    raised_at(t, f, r);
    Py_RETURN_NONE;
}

/* The open segment ends at the raising instruction.  Returns the
 * thread's last instruction. */
static int
close_raised(seg_thread *t, seg_frame *f)
{
    if (f->start >= 0 && !seg_valid_unit(f->sc, f->raised)) {
        /* No RAISE came: another tool's RAISE callback (a trace
         * function's 'exception' event) raised before ours was called.
         * The frame is still at its raise site: do now what RAISE would
         * have done. */
        int32_t r = seg_own_instruction(t, f);
        if (r >= 0) {
            seg_eager_settle(t, f, r);
            raised_at(t, f, r);
        }
    }
    if (f->start >= 0) {
        if (!seg_valid_unit(f->sc, f->raised)) {
            SEG_DESYNC(t);
            f->start = -1;
            return SEG_NONE;
        }
        seg_close_to(t, f, f->raised, 0);
        return f->sc->op[f->raised];
    }
    return t->last;
}

/* EXCEPTION_HANDLED: (code, offset of the handler, exception) */
static PyObject *
cb_handled(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    seg_frame *f;
    int32_t h;
    int prev;
    (void)self;
    ENTER(t, 1);
    pc_calls_g.handled++;
    if (nargs < 2 || (f = seg_top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    h = seg_unit_arg(args[1]);
    if (!seg_valid_unit(f->sc, h)) {
        SEG_DESYNC(t);
        Py_RETURN_NONE;
    }
    prev = close_raised(t, f);
    seg_pair(prev == SEG_TOP ? SEG_NONE : prev, f->sc->op[h]);
    f->start = h;
    f->at = f->raised = -1;
    f->seeded = 0;
    t->last = SEG_TOP;
    Py_RETURN_NONE;
}

/* PY_UNWIND: (code, offset, exception) */
static PyObject *
cb_unwind(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    seg_frame *f;
    (void)self;
    ENTER(t, 1);
    pc_calls_g.unwinds++;
    if (nargs < 1 || (f = seg_top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    t->last = close_raised(t, f);
    if (t->last == SEG_TOP)
        t->last = SEG_NONE;
    t->depth--;
    Py_RETURN_NONE;
}

/* Each callback as sys.monitoring calls it, straight (no trampoline):
 * the common ones count the ints CPython made for their event
 * themselves (pc_stats_event_units(), on their fast path), the rare
 * ones have their offset counted on the way in. */
PC_SEG_VECTORCALL(cb_start_vc, cb_start, 0)
PC_SEG_VECTORCALL(cb_resume_vc, cb_resume, 0)
PC_SEG_VECTORCALL(cb_throw_vc, cb_throw, 1)
PC_SEG_VECTORCALL(cb_return_vc, cb_return, 0)
PC_SEG_VECTORCALL(cb_yield_vc, cb_yield, 0)
PC_SEG_VECTORCALL(cb_jump_vc, cb_jump, 0)
#if !PC_BRANCH_LEFT_RIGHT
PC_SEG_VECTORCALL(cb_branch_vc, cb_branch, 0)
#else
PC_SEG_VECTORCALL(cb_branch_left_vc, cb_branch_left, 0)
PC_SEG_VECTORCALL(cb_branch_right_vc, cb_branch_right, 0)
#endif
PC_SEG_VECTORCALL(cb_raise_vc, cb_raise, 1)
PC_SEG_VECTORCALL(cb_reraise_vc, cb_reraise, 1)
PC_SEG_VECTORCALL(cb_handled_vc, cb_handled, 1)
PC_SEG_VECTORCALL(cb_unwind_vc, cb_unwind, 1)

static const pc_seg_callback seg_callbacks[] = {
    {"PY_START", NULL, cb_start_vc},
    {"PY_RESUME", NULL, cb_resume_vc},
    {"PY_THROW", NULL, cb_throw_vc},
    {"PY_RETURN", NULL, cb_return_vc},
    {"PY_YIELD", NULL, cb_yield_vc},
    {"PY_UNWIND", NULL, cb_unwind_vc},
    {"JUMP", NULL, cb_jump_vc},
#if PC_BRANCH_LEFT_RIGHT
    {"BRANCH_LEFT", NULL, cb_branch_left_vc},
    {"BRANCH_RIGHT", NULL, cb_branch_right_vc},
#else
    {"BRANCH", NULL, cb_branch_vc},
#endif
    {"RAISE", NULL, cb_raise_vc},
    {"RERAISE", NULL, cb_reraise_vc},
    {"EXCEPTION_HANDLED", NULL, cb_handled_vc},
};
#define NSEG (sizeof seg_callbacks / sizeof seg_callbacks[0])

static pc_seg_callback noop_callbacks[2][NSEG];

const pc_seg_callback *
pc_seg_callbacks(int noop, size_t *n)
{
    size_t i;
    *n = NSEG;
    if (!noop)
        return seg_callbacks;
    for (i = 0; i < NSEG; i++) {
        pc_seg_callback *cb = &noop_callbacks[noop == 2][i];
        cb->event = seg_callbacks[i].event;
        cb->def = NULL;
        cb->vc = seg_floor_vc(cb->event, noop == 2);
    }
    return noop_callbacks[noop == 2];
}

#endif /* PC_HAVE_MONITORING */
