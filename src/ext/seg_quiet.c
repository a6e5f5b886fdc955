/* seg_quiet.c: quiet returns (seg_quiet.h): finding and settling the
 * frames that returned without an event. */
#include "seg_quiet.h"

#if PC_HAVE_MONITORING

/* The walk of seg_exit_unit(). */
static int32_t
exit_walk(const seg_code *sc, int32_t u)
{
    int32_t guard;
    for (guard = 0; guard <= sc->n && seg_valid_unit(sc, u) && sc->span[u] > 0; guard++) {
        int op = sc->op[u];
        if (seg_is_return_op(op))
            return (sc->quiet & SEG_QUIET_RETURNS) ? u : -1;
        if (op == seg_op.yield_value)
            return (sc->quiet & SEG_QUIET_YIELDS) ? u : -1;
        if (sc->quiet_ok[u] == SEG_QUIET_FORK)
            u = seg_fork_side(sc, u, -1); /* the side that returns */
        else if (op == seg_op.for_iter)
            return -1; /* fires: the frame did not get past it */
        else if (sc->silent[u] == u)
            u = sc->target[u]; /* a silent jump always jumps */
        else if (op == seg_op.jump_forward || op == seg_op.jump_backward)
            return -1; /* a jump not (yet) quiet fires JUMP */
        else
            u = seg_next_unit(sc, u); /* a branch not taken, or anything */
    }
    return -1;
}

int32_t
seg_exit_unit(seg_code *sc, int32_t u)
{
    int32_t r;
    if (!seg_valid_unit(sc, u))
        return -1;
    if (sc->exit[u] > 0) {
        /* once set, never changed: the run only gains silent jumps */
        assert(exit_walk(sc, u) == sc->exit[u] - 1);
        return sc->exit[u] - 1;
    }
    r = exit_walk(sc, u);
    if (r >= 0)
        sc->exit[u] = r + 1;
    return r;
}

/* The top frame of t returned (or yielded) quietly: do what PY_RETURN
 * (PY_YIELD) would have. */
static void
returned(seg_thread *t)
{
    seg_frame *f = &t->stack[t->depth - 1];
    int32_t u = -1, r;
    if (f->start < 0 && f->at >= 0 && f->resume < 0 && !f->seeded &&
        (seg_is_return_op(f->sc->op[f->at]) || f->sc->op[f->at] == seg_op.yield_value)) {
        /* Stopped at its return or yield itself, already counted: a cut
         * while the thread was inside another tool's INSTRUCTION (or
         * LINE) callback for it.  It did not go on past it (it has no
         * "after"): it left there, as its PY_RETURN (PY_YIELD) would
         * have said. */
        seg_left_quietly(t, f, f->at);
        return;
    }
    if (f->sc->quiet) {
        if (f->start >= 0)
            u = f->start;
        else if (f->at >= 0)
            u = seg_resume_unit(f, -1, 0); /* a SEND jumped: no PY_YIELD */
    }
    r = seg_exit_unit(f->sc, u);
    if (r < 0) {
        /* No quiet exit on its way: it left without an event we know
         * of. */
        SEG_DESYNC(t);
        t->depth--;
        t->last = SEG_NONE;
        return;
    }
    seg_left_quietly(t, f, r);
}

void
seg_returned(seg_thread *t, int k)
{
    while (t->depth > k)
        returned(t);
}

void
seg_resync(seg_thread *t, pc_iframe *p, int own)
{
    pc_iframe *q;
    int k;
    if (t->depth == 0 || (own && t->stack[t->depth - 1].iframe == p))
        return;
    for (q = p; q != NULL; q = seg_python_frame(q->previous)) {
        int unreported = !(own && q == p) && seg_unreported(q);
        for (k = t->depth - 1; k >= 0; k--) {
            const seg_frame *f = &t->stack[k];
            if (f->iframe == q && f->sc->code == pc_iframe_executable(q)) {
                /* A frame thrown into (close() of a generator suspended
                 * in a for loop over another: 3.14 throws whenever a tool
                 * takes PY_UNWIND) stands at the RESUME after its
                 * YIELD_VALUE while the exception unwinds it: reported,
                 * and still running. */
                if (unreported && !(f->start < 0 && f->at < 0))
                    break;
                seg_returned(t, k + 1);
                return;
            }
        }
    }
    seg_returned(t, 0); /* none of its frames is running any more */
}

__attribute__((noinline, cold)) seg_frame *
seg_top_mismatch(seg_thread *t, PyObject *code)
{
    pc_iframe *p = seg_python_frame(pc_tstate_iframe(t->ts));
    int i;
    seg_resync(t, p, 1);
    if (t->depth > 0) {
        seg_frame *f = &t->stack[t->depth - 1];
        if (f->sc->code == code && f->iframe == p)
            return f;
    }
    /* The thread's current frame runs this code and has not got past its
     * RESUME: a frame that never reported its start, because another
     * tool's PY_START/PY_RESUME callback (a trace function's 'call'
     * event) raised before ours was called, or the eval breaker at its
     * RESUME raised.  Nothing of it ran (mode instructions, whose RESUME
     * is counted at PY_START too, counts nothing of it either): its RAISE
     * and PY_UNWIND are not ours to follow. */
    if (p != NULL && pc_iframe_executable(p) == code && seg_at_resume(p))
        return NULL;
    SEG_DESYNC(t);
    for (i = t->depth - 2; i >= 0; i--) {
        if (t->stack[i].sc->code == code) {
            t->depth = i + 1;
            return &t->stack[i];
        }
    }
    return NULL;
}

void
seg_settle_code(seg_code *sc)
{
    seg_thread *t;
    int k;
    pthread_mutex_lock(&seg_threads_lock);
    for (t = seg_threads; t != NULL; t = t->next) {
        if (t->gen != seg_gen)
            continue;
        for (k = 0; k < t->depth; k++) {
            if (t->stack[k].sc == sc) {
                /* No frame runs sc (each holds its code): this one and
                 * its callees above it returned. */
                if (pc_g.on || t->measuring)
                    seg_returned(t, k);
                else
                    t->depth = k; /* not counting: nothing to settle */
                break;
            }
        }
    }
    pthread_mutex_unlock(&seg_threads_lock);
}

#endif /* PC_HAVE_MONITORING */
