/* seg_quiet.h: quiet returns and yields (3.12+).  Internal to segment
 * counting: see segments.c for the method.
 *
 * A function (code that is no generator, coroutine or async generator)
 * leaves by a return or by an exception.  The exception fires PY_UNWIND;
 * the return is where the straight-line run from the frame's last event
 * leads, silent jumps followed: its PY_RETURN says nothing the bytecode
 * does not.  So at a return's first PY_RETURN the callback counts it and
 * returns DISABLE, and from then on the frame's return is found at the
 * thread's next event, whose frame is not the top of the shadow stack
 * any more: every frame above the one the event belongs to has returned.
 * So do generators and coroutines (a SEND that their return ends jumps,
 * which seg_resume_unit() finds as when PY_RETURN fires).  A generator
 * without `yield from` (no SEND) leaves its frame by a yield the same
 * way: its yields are quiet, and its next PY_RESUME, which always fires,
 * finds it again.
 *
 * Invariants (on top of seg_stack.h's):
 *  - Frames are told apart by identity (seg_frame.iframe), never by code
 *    alone: a recursive call runs the same code.  The top of a stack
 *    stands for the frame an event comes from only if its iframe is the
 *    thread's current frame.
 *  - A frame on a stack whose interpreter frame is not in its thread's
 *    chain of frames has returned (or yielded) quietly; so have all the
 *    frames above it (its callees).  Every frame but an async
 *    generator's returns quietly, and only generators of seg_code.quiet
 *    SEG_QUIET_YIELDS yield quietly; every other exit fires an event
 *    (PY_RETURN, PY_YIELD, PY_UNWIND).
 *  - Every quiet return is settled (seg_returned) before anything reads
 *    the stack's counts: at the thread's next event, at a cut, at the
 *    end of measure(), when the code of such a frame dies, and, for a
 *    thread that ended, at the next cut (the stack is kept until then,
 *    its seg_thread's ts NULL).  Settling does exactly what PY_RETURN
 *    would have done at that return (seg_left()).
 *  - A stale frame's iframe can be the address of a frame that has not
 *    yet reported its start (waiting at the eval breaker of its RESUME),
 *    of a 3.13 __init__ shim, or of one that runs with events off
 *    (PyThreadState_EnterTracing: the census's walk, another tool's
 *    callback): searches from a caller pass over the first two
 *    (seg_unreported()), and a frame stands for a shadow frame only if
 *    it runs the same code at the same address.
 */
#ifndef PC_SEG_QUIET_H
#define PC_SEG_QUIET_H

#include "seg_run.h"

#if PC_HAVE_MONITORING

/* The return a frame of sc running from unit u reaches without an
 * event, following silent jumps; -1 if there is none. */
int32_t seg_exit_unit(seg_code *sc, int32_t u);
/* The frames [k, depth) of t returned quietly: settle them, top first. */
void seg_returned(seg_thread *t, int k);
/* Settle the frames of t above the one that stands for p, the thread's
 * frame that runs now (own: the event's own frame; else a new frame's
 * caller, or a waiting thread's current frame, in which case frames
 * that have not reported their start are passed over). */
void seg_resync(seg_thread *t, pc_iframe *p, int own);
/* The top frame, which the event's code must be, after settling quiet
 * returns; NULL if the stack does not fit the event. */
seg_frame *seg_top_mismatch(seg_thread *t, PyObject *code);
/* A code object dies: the frames of it still on a stack returned. */
void seg_settle_code(seg_code *sc);

/* The top frame for an event of code (the thread's current frame). */
static inline seg_frame *
seg_top_for(seg_thread *t, PyObject *code)
{
    if (t->depth > 0) {
        seg_frame *f = &t->stack[t->depth - 1];
        if (f->sc->code == code && f->iframe == pc_tstate_iframe(t->ts))
            return f;
    }
    return seg_top_mismatch(t, code);
}

/* The top frame f left quietly at r, its return or yield. */
static inline __attribute__((always_inline)) void
seg_left_quietly(seg_thread *t, seg_frame *f, int32_t r)
{
    int yields = f->sc->op[r] == seg_op.yield_value;
    if (yields)
        pc_calls_g.yields++;
    else
        pc_calls_g.returns++;
    seg_left(t, f, r, yields);
}

/* The commonest quiet return (or yield), in one step: f, the top frame,
 * ran straight from its segment's start to its known return, and
 * its caller g, right below it, stopped at an instruction after which it
 * goes on at the next one (seg_op.eager).  Does what seg_left_quietly()
 * and seg_popped() would do there, with seg_eager_restart() of g; 0 with
 * nothing changed if not that case. */
static inline __attribute__((always_inline)) int
seg_settle_one(seg_thread *t, seg_frame *f, seg_frame *g)
{
    seg_code *sc = f->sc, *gc = g->sc;
    int32_t s = f->start, r, u;
    int last;
    assert(f == &t->stack[t->depth - 1] && g == f - 1);
    /* f running, or restarted eagerly (start >= 0, raised < 0), its
     * return known and reached in one straight run, past the
     * instruction an eager restart was at */
    if ((s | ~f->raised) < 0 || (r = sc->exit[s] - 1) < 0 || f->at == r || s > r ||
        sc->silent[s] < r)
        return 0;
    last = sc->op[r];
    /* g stopped at `at` (start < 0, resume < 0, raised < 0), not seeded,
     * at an eager instruction with one after it */
    if (g->seeded || (g->start & g->resume & g->raised & ~g->at) >= 0 ||
        !seg_op.eager[gc->op[g->at]] || (u = seg_next_unit(gc, g->at)) >= gc->n)
        return 0;
    seg_close_run(sc, s, r);
    if (last == seg_op.yield_value)
        pc_calls_g.yields++;
    else
        pc_calls_g.returns++;
    t->depth--;
    pc_g.pair[last][gc->op[u]]++;
    g->start = u;
    g->eager_last = last;
    t->last = SEG_TOP;
    return 1;
}

/* The commonest quiet returns, inline: the event belongs to cur, the
 * frame a few levels below the top one f, and each frame above it ran
 * straight from its last event (or from its callee's return) to a return
 * already known (sc->exit).  Settles them and returns cur's frame, now
 * the top; NULL if not that case (what could be settled is, and the
 * general path decides the rest). */
#define SEG_QUIET_LEVELS 8
static inline __attribute__((always_inline)) seg_frame *
seg_pop_quiet(seg_thread *t, seg_frame *f, pc_iframe *cur)
{
    seg_frame *g;
    int32_t r;
    int k;
    if (f > t->stack && (g = f - 1)->iframe == cur && seg_settle_one(t, f, g))
        return g;
    g = f;
    for (k = 0; k < SEG_QUIET_LEVELS && g > t->stack; k++)
        if ((--g)->iframe == cur)
            break;
    if (g->iframe != cur || g == f)
        return NULL;
    for (; f > g; f--) {
        if ((f->start | ~f->raised) < 0 || (r = f->sc->exit[f->start] - 1) < 0) {
            /* a frame stopped at a SEND that went on (seg_send_went_on()),
             * its way to its return known */
            if (f->start >= 0 || f->at < 0 || f->sc->exit[f->sc->target[f->at]] <= 0 ||
                !seg_send_went_on(t, f))
                return NULL;
            r = f->sc->exit[f->start] - 1;
        }
        seg_left_quietly(t, f, r);
    }
    return g;
}

/* A new frame (the thread's current one) is entered, or a generator
 * thrown into: settle the quiet returns above its caller. */
static inline void
seg_resync_caller(seg_thread *t)
{
    pc_iframe *cur = pc_tstate_iframe(t->ts);
    if (t->depth > 0 && cur != NULL)
        seg_resync(t, seg_python_frame(cur->previous), 0);
}

/* What a PY_RETURN or PY_YIELD callback returns: DISABLE for a
 * function's return or a generator's yield (seg_code.quiet), None
 * otherwise. */
static inline PyObject *
seg_return_result(const seg_code *sc, int yielding)
{
    if (sc->quiet & (yielding ? SEG_QUIET_YIELDS : SEG_QUIET_RETURNS))
        return Py_NewRef(seg_disable);
    Py_RETURN_NONE;
}

#endif /* PC_HAVE_MONITORING */
#endif
