/* seg_run.h: segment arithmetic (3.12+): opening, closing and
 * restarting a frame's segments, and the pairs across their ends.
 * Internal to segment counting: see segments.c for the method.  Inline:
 * every callback's fast path is made of these.
 *
 * Invariants (on top of seg_code.h's and seg_stack.h's):
 *  - A frame's open segment runs from f->start to the instruction now
 *    executing, in code order, silent jumps included; closing it at e
 *    adds one to starts[] and ends[] of each straight run on the way
 *    (seg_walk_silent) and counts the pair of every silent jump taken.
 *  - Every pair inside a straight run is counted at the fold, never
 *    here; every pair across a run's end is counted here, exactly once:
 *    a segment's first instruction gets its predecessor's pair when the
 *    segment opens (thread->last, or the jump's source).
 *  - An eager restart (eager_restart) counted the pair into the next
 *    instruction in advance; eager_settle takes it back when the frame
 *    turns out not to have gone on (eager_last remembers whose it was).
 *  - Nothing here allocates or raises.
 */
#ifndef PC_SEG_RUN_H
#define PC_SEG_RUN_H

#include "seg_stack.h"

#if PC_HAVE_MONITORING

static inline __attribute__((always_inline)) void
seg_close_run(seg_code *sc, int32_t s, int32_t e)
{
    /* A segment runs between two instructions of the code (no cache
     * unit, nothing outside it). */
    assert(seg_valid_unit(sc, s) && seg_valid_unit(sc, e));
    assert(sc->span[s] > 0 && sc->span[e] > 0);
    sc->starts[s]++;
    sc->ends[e]++;
}

/* Close the open segment of f at e, following the silent jumps on the
 * way (see segments.c).  yielding: e is a YIELD_VALUE closed by
 * PY_YIELD. */
void seg_walk_silent(seg_thread *t, seg_frame *f, int32_t e, int yielding);

/* Where a run towards e goes on past the silent jump j: one step of
 * seg_walk_silent(). */
static inline int32_t
seg_walk_next(const seg_code *sc, int32_t j, int32_t e)
{
    return sc->quiet_ok[j] == SEG_QUIET_FORK ? seg_fork_side(sc, j, e) : sc->target[j];
}

/* No silent jump between the segment's start s and e: one run. */
static inline int
seg_straight(const seg_code *sc, int32_t s, int32_t e)
{
    return s <= e && sc->silent[s] >= e;
}

/* Close f's open segment at e: one run, or two across one silent jump
 * (a quiet branch, a quiet jump, a loop's back edge to before e), inline,
 * as seg_walk_silent() would; anything else walks.  (A yield's SEND may
 * fall through: walked.) */
static inline __attribute__((always_inline)) void
seg_close_to(seg_thread *t, seg_frame *f, int32_t e, int yielding)
{
    seg_code *sc = f->sc;
    int32_t s = f->start, j = sc->silent[s], u;
    if (seg_straight(sc, s, e)) {
        seg_close_run(sc, s, e);
    }
    else if (j < sc->n && !(yielding && sc->op[j] == seg_op.send) &&
             (u = seg_walk_next(sc, j, e)) <= e && sc->silent[u] >= e) {
        seg_close_run(sc, s, j);
        pc_g.pair[sc->op[j]][sc->op[u]]++;
        seg_close_run(sc, u, e);
    }
    else {
        seg_walk_silent(t, f, e, yielding);
    }
    f->start = -1;
}

/* seg_close_to() for an event at e that is not a yield, with the commonest
 * walk inline: round a loop, from the body through its quiet back edge
 * j to its head e (a FOR_ITER or a test), which fires the event. */
static inline __attribute__((always_inline)) void
seg_close_round(seg_thread *t, seg_frame *f, int32_t e)
{
    seg_code *sc = f->sc;
    int32_t s = f->start, j = sc->silent[s];
    if (s > e && j < sc->n && sc->target[j] == e) {
        sc->starts[s]++;
        sc->ends[j]++;
        pc_g.pair[sc->op[j]][sc->op[e]]++;
        sc->starts[e]++;
        sc->ends[e]++;
        f->start = -1;
        return;
    }
    seg_close_to(t, f, e, 0);
}

/* Where a frame stopped at f->at goes on, given that its next event is
 * at e. */
static inline int32_t
seg_resume_unit(const seg_frame *f, int32_t e, int yielding)
{
    const seg_code *sc = f->sc;
    int32_t c = f->at, nx = seg_next_unit(sc, c);
    int op = sc->op[c];

    if (f->resume >= 0)
        return f->resume;
    if (sc->quiet_ok[c] == SEG_QUIET_FORK)
        return seg_fork_side(sc, c, e); /* Python code ran for it: a __bool__
                                       (3.12), an iterator (FOR_ITER) */
    if (op == seg_op.send)
        return (yielding && e == nx) ? nx : seg_jump_target(sc, c);
    if (op == seg_op.jbni)
        return seg_jump_target(sc, c);
    if ((op == seg_op.jump_backward || op == seg_op.jump_forward) && sc->silent[c] == c)
        return seg_jump_target(sc, c); /* a quiet jump (no event) */
    if (f->seeded) {
        /* The instruction was under way, uninstrumented, when collection
         * started: a jump fires no event for it any more. */
        if (op == seg_op.jump_backward || op == seg_op.jump_forward)
            return seg_jump_target(sc, c);
        if (op == seg_op.for_iter) {
            int32_t tg = seg_jump_target(sc, c), k;
            if (e >= nx && e < tg)
                return nx;
            for (k = 0; k < PC_FOR_ITER_EXIT_SKIP && tg < sc->n; k++)
                tg = seg_next_unit(sc, tg);
            return tg;
        }
    }
    return nx;
}

/* A stopped frame runs again: open its segment where it went on. */
static inline void
seg_restart(seg_thread *t, seg_frame *f, int32_t e, int yielding)
{
    int32_t u = seg_resume_unit(f, e, yielding);
    if (!seg_valid_unit(f->sc, u)) {
        SEG_DESYNC(t);
        u = e;
    }
    assert(seg_valid_unit(f->sc, u));
    seg_pair(t->last, f->sc->op[u]);
    f->start = u;
    f->at = f->raised = f->resume = -1;
    f->seeded = 0;
    t->last = SEG_TOP;
}

/* f is stopped at a SEND (nothing in flight, not seeded) and its next
 * event is not its own yield right after it: the SEND's sub-iterator
 * finished (a coroutine awaited to its end), and f went on at the SEND's
 * target, as seg_restart() would find (seg_resume_unit()).  Restarts f
 * there and returns 1; 0 (nothing changed) if f is not that case. */
static inline __attribute__((always_inline)) int
seg_send_went_on(seg_thread *t, seg_frame *f)
{
    const seg_code *sc = f->sc;
    int32_t a = f->at, u;
    if ((a | ~f->resume | ~f->raised | ~f->start) < 0 || f->seeded || sc->op[a] != seg_op.send ||
        (u = sc->target[a]) == a)
        return 0;
    assert(u == seg_resume_unit(f, -1, 0));
    seg_pair(t->last, sc->op[u]);
    f->start = u;
    f->at = -1;
    t->last = SEG_TOP;
    return 1;
}

/* g's Python callee has returned or yielded, last being its last
 * opcode.  A frame stopped at an instruction of eager_op goes on at the
 * next one: open its segment there now, while the frame is at hand, so
 * that its next event finds it running (the cheap path of every
 * callback).  Should it not go on -- the instruction calls Python code
 * again, raises or branches where it stands -- its next event is at the
 * same instruction and seg_eager_settle() takes the restart back.  g is
 * not seeded.  Returns whether it restarted g. */
static inline int
seg_eager_restart(seg_thread *t, seg_frame *g, int last)
{
    seg_code *sc = g->sc;
    int32_t u;
    assert(!g->seeded); /* seg_popped() tells those apart */
    /* stopped (start < 0, at >= 0), resume < 0, raised < 0: one test */
    if ((g->start & g->resume & g->raised & ~g->at) >= 0 || !seg_op.eager[sc->op[g->at]])
        return 0;
    assert(seg_valid_unit(sc, g->at));
    u = seg_next_unit(sc, g->at);
    if (u >= sc->n)
        return 0;
    pc_g.pair[last][sc->op[u]]++;
    g->start = u;
    g->eager_last = last;
    t->last = SEG_TOP;
    return 1;
}

/* The first event of f, at e, after an eager restart: if e is where f
 * stopped, f never went on. */
static inline void
seg_eager_settle(seg_thread *t, seg_frame *f, int32_t e)
{
    if (f->start < 0 || f->at < 0)
        return;
    if (e == f->at) {
        if (f->eager_last >= 0)
            pc_g.pair[f->eager_last][f->sc->op[f->start]]--;
        f->start = -1;
        t->last = f->eager_last;
    }
    else {
        f->at = -1;
    }
}

/* f has executed up to and including e: close what is open there.
 * Returns the thread's last executed instruction afterwards. */
static inline int
seg_settle(seg_thread *t, seg_frame *f, int32_t e, int yielding)
{
    if (f->start < 0) {
        /* Still at the instruction it stopped at, the same execution:
         * nothing ran in f since.  Not so for a frame that goes on
         * elsewhere (resume) or was under way when collection started
         * (seeded): the event is from a later pass over that
         * instruction. */
        if (f->at < 0 || (f->at == e && f->resume < 0 && !f->seeded))
            return t->last;
        seg_restart(t, f, e, yielding);
    }
    seg_close_to(t, f, e, yielding);
    return f->sc->op[e];
}

/* g was under way at a FOR_ITER when collection started, and the
 * Python code that FOR_ITER called (callee, a frame of sc) has left: by a
 * yield, or a return that is no generator's (a __next__), its value goes
 * round the loop, so g goes on at the next instruction.  Said now: its
 * next event may be later than one quiet exit (seg_quiet.h), and a
 * generator's return (the iterator exhausted) is seg_resume_unit()'s case. */
static inline void
seg_seeded_went_on(seg_frame *g, const seg_code *sc, int yielding)
{
    if (g->start < 0 && g->at >= 0 && g->resume < 0 && g->sc->op[g->at] == seg_op.for_iter &&
        (yielding || !(((PyCodeObject *)sc->code)->co_flags & CO_GENERATOR)))
        g->resume = seg_next_unit(g->sc, g->at);
}

/* The top frame, of sc, has left (its segment closed, last its last
 * opcode): pop it; its caller may go on. */
static inline __attribute__((always_inline)) void
seg_popped(seg_thread *t, const seg_code *sc, int last, int yielding)
{
    seg_frame *g;
    if (--t->depth > 0) {
        g = &t->stack[t->depth - 1];
        if (g->seeded)
            seg_seeded_went_on(g, sc, yielding);
        else if (last >= 0 && seg_eager_restart(t, g, last))
            return;
    }
    t->last = last;
}

/* The top frame f leaves at off, by PY_RETURN or PY_YIELD there or a
 * quiet return found later (seg_quiet.h): close its segment at off; its
 * caller may go on. */
static inline __attribute__((always_inline)) void
seg_left(seg_thread *t, seg_frame *f, int32_t off, int yielding)
{
    seg_code *sc = f->sc;
    int last;
    assert(f == &t->stack[t->depth - 1]);
    if (f->start >= 0 && f->at != off && seg_straight(sc, f->start, off)) {
        seg_close_run(sc, f->start, off);
        last = sc->op[off];
    }
    else {
        seg_eager_settle(t, f, off);
        last = seg_settle(t, f, off, yielding);
    }
    seg_popped(t, sc, last, yielding);
}

/* f is stopped at its current instruction c (a callee starts, or
 * counts are taken): close up to c; it resumes after c. */
static inline void
seg_stop_at(seg_thread *t, seg_frame *f, int32_t c)
{
    assert(seg_valid_unit(f->sc, c));
    seg_eager_settle(t, f, c);
    if (f->start < 0 && (f->at < 0 || f->at == c))
        return;
    if (PC_JUMP_EVENT_BEFORE_BREAKER && f->start >= 0 && f->sc->op[c] == seg_op.jump_backward &&
        f->jumped == c && f->start == seg_jump_target(f->sc, c)) {
        /* 3.12: the JUMP event of c came before c's eval breaker ran
         * this callee (or before the thread stopped there): the jump
         * and its pair are not done yet; the frame goes on at the
         * target afterwards. */
        seg_code *sc = f->sc;
        pc_g.pair[sc->op[c]][sc->op[f->start]]--;
        f->resume = f->start;
        f->start = -1;
        f->at = c;
        f->seeded = 0;
        t->last = sc->op[c];
        return;
    }
    t->last = seg_settle(t, f, c, 0);
    f->at = c;
    f->seeded = 0;
    f->resume = -1;
}

/* A frame running straight-line code: an open segment, not stopped, no
 * exception in flight (start >= 0, at < 0, raised < 0, in one test). */
static inline int
seg_running(const seg_frame *f)
{
    return (f->start | ~f->at | ~f->raised) >= 0;
}

#endif /* PC_HAVE_MONITORING */
#endif
