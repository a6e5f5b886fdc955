/* trace_lines.c: 3.11's mode count from line events, for the code whose
 * line events alone tell which instructions ran (see trace_lines.h):
 * the runs of a line-counted frame counted at its events, each thread's
 * stack of such frames, and the cuts.  What 3.11's interpreter
 * guarantees, the rules a code object must meet and its plan are in
 * trace_lines_plan.c.
 */
#include "trace_lines.h"
#include "trace_lines_plan.h"

#if !PC_HAVE_MONITORING

#include <stdlib.h>
#include <string.h>

typedef struct lt_entry {
    PyFrameObject *frame; /* owned */
    const lt_plan *plan;
    pc_codeinfo *ci;
    int32_t s;    /* first instruction not yet counted */
    int32_t cand; /* the interrupted instruction before s, or -1 */
    int fresh;    /* the next event is a line event starting the run, at
                     s or at cand's target */
    int ops;      /* in an LT_OPS range: opcode events count, none pending */
    int nested;   /* 'call' events less 'return' events since it called:
                     while > 0, it runs no instruction of its own */
} lt_entry;

typedef struct lt_thread {
    PyThreadState *ts;
    unsigned long id;
    pc_thread *t; /* that thread's pc_t */
    lt_entry *stack;
    int depth, cap;
    struct lt_thread *next;
} lt_thread;

static lt_thread *lt_threads;
static __thread lt_thread *lt_me __attribute__((tls_model("initial-exec")));
int pc_lines_flag = -1;
static uint32_t lt_epoch_seen;     /* pc_g.epoch when last counted or cut */
static Py_ssize_t opcodes_at = -1; /* f_trace_opcodes in a frame */
static Py_tracefunc our_trace;

void
pc_lines_setup(Py_ssize_t opcodes_offset, Py_tracefunc ours)
{
    opcodes_at = opcodes_offset;
    our_trace = ours;
}

static inline void
set_opcodes(PyFrameObject *frame, int on)
{
    ((char *)frame)[opcodes_at] = (char)on;
}

int
pc_lines_read_flag(void)
{
    const char *v = getenv("PYSTATS_TRACE_LINES");
    pc_lines_flag = !(v != NULL && strcmp(v, "0") == 0);
    return pc_lines_flag;
}

/* ---- runs ---- */

/* Count units from..to (inclusive, caches skipped) as thread t's. */
static void
run_count(pc_thread *t, const lt_entry *e, int32_t from, int32_t to)
{
    const uint8_t *op = e->ci->op;
    const int32_t *next = e->plan->next;
    uint64_t *hot = e->ci->hot->counts;
    int32_t u = from;
    int prev, o;
    if (from > to)
        return;
    o = op[u];
    pc_g.exec[o]++;
    if (t->epoch == pc_g.epoch)
        pc_g.pair[t->prev][o]++;
    else
        t->epoch = pc_g.epoch;
    hot[u]++;
    prev = o;
    for (u = next[u]; u <= to; u = next[u]) {
        o = op[u];
        pc_g.exec[o]++;
        pc_g.pair[prev][o]++;
        hot[u]++;
        prev = o;
    }
    t->prev = prev;
    lt_epoch_seen = pc_g.epoch;
}

/* Line events that do not fit (no assert: 3.11's line counting has no
 * debug-build stop); the first says where. */
#define desync() pc_desync_note(__FILE__, __func__, __LINE__)

/* Does a run going on quietly into the range starting at t meet its
 * next line event at at? */
static inline int
quiet_to(const lt_plan *p, int32_t t, int32_t at)
{
    int32_t b = p->end[t];
    return p->jt[b] == at || (!(p->fl[b] & LT_NOFALL) && p->next[b] == at);
}

/* Which way the run from e->s (or its interrupted jump) left for a line
 * event at at: counts it. */
static void
run_to_event(pc_thread *t, lt_entry *e, int32_t at)
{
    const lt_plan *p = e->plan;
    int32_t s = e->s, c = e->cand, u, b;

    if (c >= 0 && p->jt[c] >= 0) {
        if (!(p->fl[c] & LT_JSIL) && p->jt[c] == at)
            return;
        if ((p->fl[c] & LT_JSIL) && quiet_to(p, p->jt[c], at)) {
            run_count(t, e, p->jt[c], p->end[p->jt[c]]);
            return;
        }
    }
    if (e->fresh) {
        if (at != s)
            desync();
        return;
    }
    if (s >= p->n || p->end[s] < 0) {
        desync();
        return;
    }
    b = p->end[s];
    for (u = p->nj[s];; u = p->nj[p->next[u]]) {
        int32_t j = p->jt[u];
        if (j >= 0 && (!(p->fl[u] & LT_JSIL) ? j == at : quiet_to(p, j, at))) {
            run_count(t, e, s, u);
            if (p->fl[u] & LT_JSIL)
                run_count(t, e, j, p->end[j]);
            return;
        }
        if (u >= b)
            break;
    }
    run_count(t, e, s, b);
    if (p->fl[b] & LT_NOFALL)
        desync();
    else if (p->fl[b] & LT_FSIL) {
        if (quiet_to(p, p->next[b], at))
            run_count(t, e, p->next[b], p->end[p->next[b]]);
        else
            desync();
    }
    else if (p->next[b] != at)
        desync();
}

/* The frame is interrupted at unit c (an event there, a cut): count its
 * run up to c's instruction, and go on after it (count: 0 drops). */
static void
close_at(pc_thread *t, lt_entry *e, int32_t c, int count)
{
    const lt_plan *p = e->plan;
    const uint8_t *op = e->ci->op;
    int32_t s = e->s, b, x;
    if (c < 0 || c >= p->n || e->ops)
        return;
    while (c > 0 && op[c] == pc_lines_cache_op)
        c--;
    if (c < s || p->end[c] < 0)
        return;
    if (s < p->n && p->end[s] >= 0 && c <= p->end[s]) {
        if (count)
            run_count(t, e, s, c);
    }
    else {
        /* c is in a range the run went on in quietly: from where? */
        int32_t from = -1, q = p->start[c];
        if (e->cand >= 0 && (p->fl[e->cand] & LT_JSIL) && p->jt[e->cand] == q) {
            from = e->cand;
        }
        else if (!e->fresh && s < p->n && p->end[s] >= 0) {
            b = p->end[s];
            for (x = s; x <= b && from < 0; x++)
                if (op[x] != pc_lines_cache_op && (p->fl[x] & LT_JSIL) && p->jt[x] == q)
                    from = x;
            if (from < 0 && (p->fl[b] & LT_FSIL) && p->next[b] == q)
                from = b;
        }
        if (from < 0)
            desync();
        else if (count) {
            if (from >= s)
                run_count(t, e, s, from);
            run_count(t, e, q, c);
        }
    }
    e->s = p->next[c];
    e->cand = c;
    e->fresh = p->end[c] == c && !(p->fl[c] & LT_FSIL);
}

static lt_thread *
me_get(void)
{
    lt_thread *lt = lt_me, **pp;
    PyThreadState *ts;
    if (lt != NULL)
        return lt;
    ts = PyThreadState_Get();
    /* A dead thread's record for the same thread state goes. */
    for (pp = &lt_threads; *pp != NULL;) {
        lt_thread *o = *pp;
        if (o->ts == ts) {
            int i;
            *pp = o->next;
            for (i = 0; i < o->depth; i++)
                Py_DECREF(o->stack[i].frame);
            PyMem_RawFree(o->stack);
            PyMem_RawFree(o);
        }
        else {
            pp = &o->next;
        }
    }
    lt = PyMem_RawCalloc(1, sizeof *lt);
    if (lt == NULL)
        return NULL;
    lt->ts = ts;
    lt->id = ts->thread_id;
    lt->t = &pc_t;
    lt->next = lt_threads;
    lt_threads = lt;
    lt_me = lt;
    return lt;
}

static inline lt_entry *
lt_top(PyFrameObject *frame)
{
    lt_thread *lt = lt_me;
    if (lt != NULL && lt->depth > 0 && lt->stack[lt->depth - 1].frame == frame)
        return &lt->stack[lt->depth - 1];
    return NULL;
}

static inline int32_t
unit_of(PyFrameObject *frame)
{
    int lasti = PyFrame_GetLasti(frame);
    return lasti < 0 ? -1 : lasti / 2;
}

void
pc_lines_call_caller(PyFrameObject *frame)
{
    lt_thread *lt = lt_me;
    PyFrameObject *back; /* owned */
    lt_entry *e;
    if (lt == NULL || lt->depth == 0)
        return;
    e = &lt->stack[lt->depth - 1];
    if (e->nested > 0) {
        /* a callee of a callee: the caller's run ended at its call */
        e->nested++;
        return;
    }
    back = PyFrame_GetBack(frame);
    if (back == e->frame) {
        close_at(&pc_t, e, unit_of(back), 1);
        e->nested = 1;
    }
    Py_XDECREF(back);
}

int
pc_lines_start(PyFrameObject *frame, PyCodeObject *code, pc_codeinfo *ci, int lasti)
{
    const lt_plan *p = pc_lines_plan(code, ci);
    lt_thread *lt;
    lt_entry *e;
    int32_t u;
    if (!p->eligible || lasti < 0 || lasti / 2 >= p->n)
        return 0;
    u = lasti / 2;
    if (ci->op[u] != pc_g.resume_op) /* throw(): stays on opcodes */
        return 0;
    lt = me_get();
    if (lt == NULL)
        return 0;
#ifndef NDEBUG
    if (lt->depth > 0) {
        /* A 'call' whose caller is the top closed the caller's run
         * first (pc_lines_call_caller): only the top has instructions
         * not yet counted. */
        PyFrameObject *back = PyFrame_GetBack(frame); /* owned */
        assert(back != lt->stack[lt->depth - 1].frame || lt->stack[lt->depth - 1].nested > 0);
        Py_XDECREF(back);
    }
#endif
    if (lt->depth == lt->cap) {
        int cap = lt->cap ? 2 * lt->cap : 64;
        lt_entry *s = PyMem_RawRealloc(lt->stack, sizeof(lt_entry) * cap);
        if (s == NULL)
            return 0;
        lt->stack = s;
        lt->cap = cap;
    }
    /* Whole before it is on the stack: a dump from a signal reads it. */
    e = &lt->stack[lt->depth];
    Py_INCREF(frame);
    e->frame = frame;
    e->plan = p;
    e->ci = ci;
    e->s = p->next[u];
    e->cand = -1;
    e->nested = 0;
    /* After the first RESUME a line event always comes; after a later
     * one (a generator resumed), when the next instruction's line
     * differs. */
    e->fresh = u == ci->first_resume || (p->end[u] == u && !(p->fl[u] & LT_FSIL));
    /* A generator resumed inside a line counted from opcode events. */
    e->ops = u != ci->first_resume && !e->fresh && (p->fl[u] & LT_OPS);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    lt->depth++;
    return e->ops ? 2 : 1;
}

void
pc_lines_line(PyFrameObject *frame)
{
    lt_entry *e = lt_top(frame);
    int32_t at;
    if (e == NULL)
        return;
    at = unit_of(frame);
    if (at < 0 || at >= e->plan->n)
        return;
    e->nested = 0;
    if (!e->ops)
        run_to_event(&pc_t, e, at);
    if (e->plan->fl[at] & LT_OPS) {
        /* at's opcode event comes next, in the same dispatch */
        if (!e->ops)
            set_opcodes(frame, 1);
        e->ops = 1;
    }
    else {
        if (e->ops)
            set_opcodes(frame, 0);
        e->ops = 0;
        e->s = at;
    }
    e->cand = -1;
    e->fresh = 0;
}

static void
pop_to(lt_thread *lt, PyFrameObject *frame)
{
    int i;
    for (i = lt->depth - 1; i >= 0; i--)
        if (lt->stack[i].frame == frame)
            break;
    if (i < 0)
        return;
    close_at(&pc_t, &lt->stack[i], unit_of(frame), 1);
    while (lt->depth > i) {
        lt->depth--;
        Py_DECREF(lt->stack[lt->depth].frame);
    }
}

void
pc_lines_return(PyFrameObject *frame)
{
    lt_thread *lt = lt_me;
    lt_entry *e;
    if (lt == NULL || lt->depth == 0)
        return;
    e = &lt->stack[lt->depth - 1];
    if (e->frame != frame && e->nested > 0) {
        e->nested--; /* a callee returns (or yields) */
        return;
    }
    pop_to(lt, frame);
    assert(lt->depth == 0 || lt->stack[lt->depth - 1].frame != frame);
    /* The frame popped was the callee of the one below. */
    if (lt->depth > 0 && lt->stack[lt->depth - 1].nested > 0)
        lt->stack[lt->depth - 1].nested--;
}

void
pc_lines_exception(PyFrameObject *frame)
{
    lt_entry *e = lt_top(frame);
    if (e != NULL) {
        e->nested = 0;
        close_at(&pc_t, e, unit_of(frame), 1);
    }
}

/* ---- cuts ---- */

static lt_thread *
find(PyThreadState *ts)
{
    lt_thread *lt;
    for (lt = lt_threads; lt != NULL; lt = lt->next)
        if (lt->ts == ts && lt->id == ts->thread_id)
            return lt;
    return NULL;
}

static void
cut_top(lt_thread *lt, int count)
{
    lt_entry *e;
    if (lt->depth == 0)
        return;
    e = &lt->stack[lt->depth - 1];
    close_at(lt->t, e, unit_of(e->frame), count);
}

void
pc_lines_cut_all(void)
{
    PyThreadState *ts;
    uint32_t epoch = pc_g.epoch;
    if (lt_threads == NULL) {
        lt_epoch_seen = epoch;
        return;
    }
    /* As counted before whatever bumped the epoch since (on()). */
    pc_g.epoch = lt_epoch_seen;
    for (ts = PyInterpreterState_ThreadHead(PyInterpreterState_Get()); ts;
         ts = PyThreadState_Next(ts)) {
        lt_thread *lt = find(ts);
        if (lt != NULL && pc_tstate_tracefunc(ts) == our_trace)
            cut_top(lt, 1);
    }
    pc_g.epoch = epoch;
    lt_epoch_seen = epoch;
}

void
pc_lines_drop_all(int here_only)
{
    lt_thread *lt, **pp;
    if (here_only) {
        /* A fork child: the other threads are gone, their frames with
         * them (their records are forgotten, not released). */
        for (pp = &lt_threads; *pp != NULL;) {
            lt = *pp;
            if (lt != lt_me) {
                *pp = lt->next;
                PyMem_RawFree(lt->stack);
                PyMem_RawFree(lt);
            }
            else {
                pp = &lt->next;
            }
        }
        if (lt_me != NULL)
            cut_top(lt_me, 0);
    }
    else if (pc_g.epoch != lt_epoch_seen) {
        for (lt = lt_threads; lt != NULL; lt = lt->next)
            cut_top(lt, 0);
    }
    lt_epoch_seen = pc_g.epoch;
}

static void
release(lt_thread *lt)
{
    while (lt->depth > 0) {
        lt->depth--;
        Py_DECREF(lt->stack[lt->depth].frame);
    }
}

void
pc_lines_release(PyThreadState *ts)
{
    lt_thread *lt = find(ts);
    if (lt != NULL)
        release(lt);
}

void
pc_lines_cut_here(void)
{
    if (lt_me != NULL) {
        cut_top(lt_me, 1);
        release(lt_me);
    }
}

#endif /* !PC_HAVE_MONITORING */
