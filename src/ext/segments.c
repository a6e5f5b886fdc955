/* segments.c: exact instruction and pair counts from the events that
 * begin and end straight-line runs of bytecode (3.12+): the mechanism of
 * mode "count" there.  Mode "instructions" (monitoring.c) takes one
 * INSTRUCTION event per instruction instead; both give identical counts
 * and pairs (tests/py/test_segments.py).
 *
 * The method.  A segment is a run of instructions executed one after
 * the other in one frame, from a first unit s to a last unit e in code
 * order.  Segments begin at PY_START/PY_RESUME (the RESUME), at the
 * target of a JUMP or BRANCH event and at the handler of
 * EXCEPTION_HANDLED; they end at the source of JUMP/BRANCH, at
 * PY_RETURN/PY_YIELD, and at the raising instruction when the exception
 * is handled (EXCEPTION_HANDLED) or leaves the frame (PY_UNWIND).  Each
 * code object has two arrays indexed by code unit, starts[] and ends[];
 * a closed segment adds one to starts[s] and ends[e].  At dump time a
 * running sum over the code gives every instruction's execution count,
 * and count minus ends[u] is how often u was followed by the next
 * instruction in code order: the pairs inside segments.  Pairs across
 * segment boundaries (jumps, calls, returns, handlers) are counted
 * directly into pc_g.pair when the boundary is seen.
 *
 * On 3.14 BRANCH is BRANCH_LEFT and BRANCH_RIGHT, some of which name
 * another instruction than the one that fired them (branch_fixup()).
 *
 * Two jumps fire no event: JUMP_BACKWARD_NO_INTERRUPT (await and yield
 * from loops; after except handlers on 3.13) and SEND jumping to its
 * END_SEND when the sub-iterator is exhausted.  They are resolved from
 * the bytecode when a segment is closed: a JUMP_BACKWARD_NO_INTERRUPT on
 * the way always jumps; a SEND on the way fell through only if the
 * closing event is PY_YIELD at the YIELD_VALUE right after it (its
 * fall-through path always reaches that YIELD_VALUE, which always fires
 * PY_YIELD).  Unconditional jumps whose events are turned off after
 * their first one ("quiet jumps", see seg_quiet_site()) are resolved the
 * same way, and so are branches whose events are all turned off ("quiet
 * branches", seg_code.c), on the side whose straight run holds the
 * closing event's instruction (seg_fork_side()).
 *
 * A frame whose Python callee returned goes on at the next instruction:
 * its segment is reopened there at once (seg_eager_restart()), and taken
 * back if its next event is where it stopped (seg_eager_settle()).  Each
 * callback first tries the common case inline (start(), leave(),
 * cb_jump()) and hands everything else to a *_other function.
 *
 * Each thread keeps a shadow stack of its frames: code, open segment
 * start, and, while the frame waits for a callee (or was running when
 * collection started), the instruction it stopped at.  A frame calling
 * another is stopped at its current instruction, read from the frame
 * itself at PY_START/PY_RESUME/PY_THROW (compat.h); control comes back
 * without an event, so the frame resumes "after" that instruction at its
 * next event: at the next instruction in code order, or where a SEND or
 * a pending jump leads.  The thread's last executed instruction (a
 * callee's RETURN_VALUE, YIELD_VALUE or raising instruction) is the
 * predecessor of whatever runs next.
 *
 * RAISE only records where the frame raised (it also fires for a
 * StopIteration that FOR_ITER or SEND swallows, which ends nothing), read
 * from the frame: its offset can name a cache entry or, for an exception
 * from a callee, an earlier instruction.  After PY_THROW no segment is
 * open: the RAISE that follows names the YIELD_VALUE that already ran.
 *
 * Hot path rules (collector.h): no allocation except on first sight of a
 * code object and when a stack must grow, no exception, no lock.
 *
 * The files.  segments.c (this one): the method, and the lifecycle:
 * init, window start, measure(), cut, zero, fork.  seg_code.[ch]: the
 * per code object tables and the bytecode arithmetic on them.
 * seg_stack.[ch]: the per thread shadow stacks and the reading of the
 * interpreter's frames (compat.h).  seg_run.[ch]: segment arithmetic,
 * opening and closing segments.  seg_quiet.[ch]: quiet returns, the
 * functions' returns found without their PY_RETURN.  seg_events.c: the event
 * rules, one callback per event.  Each states its invariants at its top.
 */
#include "seg_quiet.h"

#if PC_HAVE_MONITORING

#include <stdlib.h>
#include <string.h>

int
pc_seg_init(PyObject *mon)
{
    static int done;
    if (done)
        return 0;
    if (seg_ops_init(mon) < 0 || seg_stack_init() < 0)
        return -1;
    seg_describe_init();
    done = 1;
    return 0;
}

/* Free the stacks of threads that have ended (ts NULL, seg_stack.c's
 * thread_exit), settling their quiet returns first if asked.  Caller
 * holds seg_threads_lock. */
static void
reap(int settle)
{
    seg_thread **pp = &seg_threads, *t;
    while ((t = *pp) != NULL) {
        if (t->ts != NULL) {
            pp = &t->next;
            continue;
        }
        if (settle && t->gen == seg_gen)
            seg_returned(t, 0); /* its thread ended: every frame returned */
        *pp = t->next;
        free(t->stack);
        free(t);
    }
}

void
pc_seg_on_changed(void)
{
    seg_on_gen = pc_g.on ? seg_gen : SEG_GEN_NONE;
}

int
pc_seg_window_start(void)
{
    PyInterpreterState *interp = PyInterpreterState_Get();
    PyThreadState *ts;
    int ret = 0;

    assert(PyGILState_Check());
    seg_gen++;
    pc_seg_on_changed();
    pthread_mutex_lock(&seg_threads_lock);
    reap(0); /* ended threads of an earlier window: cut already */
    for (ts = PyInterpreterState_ThreadHead(interp); ts != NULL; ts = PyThreadState_Next(ts)) {
        seg_thread *t = seg_thread_find(ts, 1);
        if (t == NULL) {
            ret = -1;
            break;
        }
        seg_thread_reset(t);
        t->lost = 0;
        if (seg_seed(t, ts) < 0) {
            seg_thread_reset(t);
            ret = -1;
            break;
        }
    }
    pthread_mutex_unlock(&seg_threads_lock);
    if (ret < 0)
        PyErr_NoMemory();
    return ret;
}

void
pc_seg_measure_start(void)
{
    seg_thread_adopt(1);
}

void
pc_seg_measure_set(int depth)
{
    seg_thread *t = seg_thread_get();
    if (t == NULL)
        return;
    if (depth == 0 && t->measuring > 0 && !pc_g.on) {
        /* fn is over: its quiet returns count before counting stops */
        pc_iframe *cur = pc_tstate_iframe(t->ts);
        seg_resync(t, cur != NULL ? seg_python_frame(cur) : NULL, 0);
    }
    t->measuring = depth;
}

/* Close t's open segment where ts is now. */
static void
cut_thread(seg_thread *t, PyThreadState *ts)
{
    seg_frame *f;
    pc_iframe *p;
    int32_t c;
    if (t->gen != seg_gen || t->depth == 0 || !(pc_g.on || t->measuring))
        return;
    p = pc_tstate_iframe(ts);
    seg_resync(t, p != NULL ? seg_python_frame(p) : NULL, 0);
    if (t->depth == 0)
        return;
    f = &t->stack[t->depth - 1];
    if (f->start < 0 && f->at < 0)
        return;
    /* By identity, not by code: the thread may be waiting at the eval
     * breaker of a new frame's RESUME, whose PY_START has not fired yet
     * (it is not on the stack), or of a recursive call's. */
    for (p = pc_tstate_iframe(ts); p != NULL && p != f->iframe; p = p->previous)
        ;
    c = seg_iframe_instruction(p, f);
    if (c < 0) {
        SEG_DESYNC(t);
        return;
    }
    seg_stop_at(t, f, c);
}

/* Is t's thread state still one of interp's?  By address and id: the
 * address of a deleted one can be reused by a new thread state. */
static int
alive(const seg_thread *t, PyInterpreterState *interp)
{
    PyThreadState *ts;
    for (ts = PyInterpreterState_ThreadHead(interp); ts != NULL; ts = PyThreadState_Next(ts))
        if (ts == t->ts && ts->id == t->ts_id)
            return 1;
    return 0;
}

/* Threads whose thread state is gone but whose thread-exit destructor
 * has not run yet (the state is unlinked and the GIL released before the
 * thread ends): every frame returned.  Settled now, and left for the
 * destructor to free (or freed now if never adopted: no destructor will
 * come).  Caller holds seg_threads_lock and the GIL. */
static void
settle_ended(PyInterpreterState *interp)
{
    seg_thread **pp = &seg_threads, *t;
    while ((t = *pp) != NULL) {
        if (t->ts == NULL || alive(t, interp)) {
            pp = &t->next;
            continue;
        }
        if (t->gen == seg_gen && (pc_g.on || t->measuring))
            seg_returned(t, 0);
        t->depth = 0;
        t->gen = 0;
        if (t->adopted) {
            pp = &t->next;
            continue;
        }
        *pp = t->next;
        free(t->stack);
        free(t);
    }
}

/* Cut every live thread where it stands and settle the ended ones.
 * Caller holds seg_threads_lock and the GIL. */
static void
cut_all(PyInterpreterState *interp)
{
    PyThreadState *ts;
    for (ts = PyInterpreterState_ThreadHead(interp); ts != NULL; ts = PyThreadState_Next(ts)) {
        seg_thread *t = seg_thread_find(ts, 0);
        if (t != NULL)
            cut_thread(t, ts);
    }
    settle_ended(interp);
    if (pc_g.on)
        reap(1);
}

void
pc_seg_cut(void)
{
    if (!pc_seg_mode() || !(pc_g.on || pc_g.measuring))
        return;
    pthread_mutex_lock(&seg_threads_lock);
    cut_all(PyInterpreterState_Get());
    pthread_mutex_unlock(&seg_threads_lock);
}

void
pc_seg_exit_cut(void)
{
    PyThreadState *me = PyThreadState_Get();
    seg_thread *t;
    if (!pc_seg_mode() || seg_exit_ts != NULL)
        return;
    pthread_mutex_lock(&seg_threads_lock);
    if (pc_g.on || pc_g.measuring)
        cut_all(PyInterpreterState_Get());
    /* Every other thread is a daemon thread: killed (3.12, 3.13) or hung
     * (3.14) where it stands once finalization begins, its frames never
     * returning.  Its counts end here, exactly: what it runs from now on
     * is not counted. */
    for (t = seg_threads; t != NULL; t = t->next) {
        if (t->ts != me) {
            t->depth = 0;
            t->gen = 0;
        }
    }
    seg_exit_ts = me;
    pthread_mutex_unlock(&seg_threads_lock);
}

void
pc_seg_uncut(uint64_t *units, uint64_t *frames, uint64_t *threads)
{
    const seg_thread *t;
    *units = *frames = *threads = 0;
    if (!pc_seg_mode())
        return;
    for (t = seg_threads; t != NULL; t = t->next) {
        uint64_t n = 0;
        int i;
        if (t->gen != seg_gen || !(pc_g.on || t->measuring))
            continue;
        for (i = 0; i < t->depth; i++) {
            const seg_frame *f = &t->stack[i];
            if (f->start < 0 && f->at < 0)
                continue; /* thrown into: runs nothing before an event */
            *units += (uint64_t)f->sc->n;
            n++;
        }
        if (n > 0) {
            *frames += n;
            (*threads)++;
        }
    }
}

const char *
pc_seg_desync_report(void)
{
    return seg_report_text();
}

void
pc_seg_desync_report_clear(void)
{
    seg_report_clear();
}

void
pc_seg_zero(void)
{
    seg_thread *t;
    seg_code_zero_all();
    pthread_mutex_lock(&seg_threads_lock);
    for (t = seg_threads; t != NULL; t = t->next) {
        if (t->last != SEG_TOP)
            t->last = SEG_NONE;
        if (t->depth > 0) {
            /* An eager restart's pair is gone with the old counts: an
             * undo must not take it from the new ones. */
            seg_frame *f = &t->stack[t->depth - 1];
            if (f->start >= 0 && f->at >= 0)
                f->eager_last = SEG_NONE;
        }
    }
    pthread_mutex_unlock(&seg_threads_lock);
}


void
pc_seg_exit(void)
{
    seg_thread *t;
    if (!pc_seg_mode())
        return;
    pthread_mutex_lock(&seg_threads_lock);
    for (t = seg_threads; t != NULL; t = t->next) {
        /* This thread ran the last Python code there was; a thread that
         * ended returned from all its frames too.  Any other is a daemon
         * thread stopped where it was: its frames never returned. */
        if (t->gen == seg_gen && (t == seg_t || t->ts == NULL) && (pc_g.on || t->measuring))
            seg_returned(t, 0);
    }
    pthread_mutex_unlock(&seg_threads_lock);
}

void
pc_seg_code_free(pc_codeinfo *ci)
{
    if (ci->seg != NULL)
        seg_settle_code(ci->seg); /* frames of it returned quietly */
    seg_code_release(ci);
}


void
pc_seg_after_fork(void)
{
    seg_thread *me = seg_t == &seg_unadopted ? NULL : seg_t, *t, *next;
    /* The only thread left is this one; the lock may have been held by
     * another at the fork. */
    pthread_mutex_init(&seg_threads_lock, NULL);
    for (t = seg_threads; t != NULL; t = next) {
        next = t->next;
        if (t != me) {
            free(t->stack);
            free(t);
        }
    }
    seg_threads = me;
    if (me != NULL) {
        me->next = NULL;
        me->owner = pthread_self();
        if (pc_seg_mode())
            cut_thread(me, me->ts);
    }
    /* The cut can count a pair of the parent's: drop them all. */
    memset(pc_g.exec, 0, sizeof pc_g.exec);
    memset(pc_g.pair, 0, sizeof pc_g.pair);
    pc_seg_zero();
}


#endif /* PC_HAVE_MONITORING */
