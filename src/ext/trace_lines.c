/* trace_lines.c: 3.11's mode count from line events, for the code whose
 * line events alone tell which instructions ran (see trace_lines.h).
 *
 * What 3.11's interpreter (Python/ceval.c) does with a trace function:
 *  - Every instruction after the code's first RESUME goes through
 *    DO_TRACING, except the one an EXTENDED_ARG extends.  There a RESUME
 *    gives the 'call' event; any other instruction at unit i gives a
 *    'line' event when its line is not -1 and differs from the line of
 *    the frame's previous instruction (prev_instr; -1 when that is the
 *    first RESUME), or when i is before it (a backward jump) and is not a
 *    SEND; then the 'opcode' event if f_trace_opcodes.
 *  - 'return' comes at RETURN_VALUE and YIELD_VALUE (prev_instr there),
 *    and with no value when an exception leaves the frame; 'exception'
 *    at the instruction that raised (also FOR_ITER, when the iterator
 *    raised StopIteration, after which it jumps as at its end), and not
 *    for RERAISE.  A frame's prev_instr stays at its current instruction
 *    (a CALL's last cache unit) while it calls.
 *
 * So a frame of code meeting these rules (checked once per code object,
 * plan_build) runs straight between two of its events:
 *  - no exception table (no handler: a raise ends the frame, or, after
 *    FOR_ITER's StopIteration, execution goes on as after a call);
 *  - no SEND, no RERAISE, every jump one the table below knows;
 *  - every unit after the first RESUME has a line; an EXTENDED_ARG has
 *    its instruction's; a RESUME follows a YIELD_VALUE; no jump lands on
 *    a RESUME, a cache unit or an extended instruction;
 *  - every jump lands on a line other than its own (so an event fires at
 *    its target: a forward jump changes line, a backward one always
 *    fires);
 *  - within one line's range (consecutive instructions of one line), the
 *    targets of the jumps before its last instruction differ from each
 *    other and from where the last instruction goes: the line event's
 *    instruction then tells where the run left the range.
 * A run starts at an event's instruction, or after the instruction a
 * call, a raise or another thread's cut interrupted (which, a jump, may
 * also go to its target); it ends at the end of its range, at the jump
 * whose target the next line event is at, or at the instruction of a
 * 'call' (the caller's current one), 'return' or 'exception' event.
 */
#include "trace_lines.h"

#if !PC_HAVE_MONITORING

#include <stdlib.h>

/* What a code object's frames need, per code unit. */
typedef struct lt_plan {
    int eligible;
    Py_ssize_t n;
    int32_t *end;  /* last instruction of u's line range */
    int32_t *jt;   /* u's jump target, or -1 */
    int32_t *next; /* the instruction after u (n at the end) */
} lt_plan;

static lt_plan lt_ineligible; /* shared by every ineligible code */

typedef struct lt_entry {
    PyFrameObject *frame; /* owned */
    const lt_plan *plan;
    pc_codeinfo *ci;
    int32_t s;    /* first instruction not yet counted */
    int32_t cand; /* the interrupted instruction before s, or -1 */
    int fresh;    /* the next event is a line event starting the run, at
                     s or at cand's target */
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
static __thread lt_thread *lt_me;
static Py_ssize_t lt_extra = -1; /* our co_extra slot */
static int lt_wanted = -1;
static uint32_t lt_epoch_seen; /* pc_g.epoch when last counted or cut */
static int cache_op = -1;

enum { K_NONE, K_FORWARD, K_BACKWARD, K_FORBIDDEN };
static uint8_t kind[PC_NOPS];

int
pc_lines_wanted(void)
{
    if (lt_wanted < 0) {
        const char *v = getenv("PYSTATS_TRACE_LINES");
        lt_wanted = v != NULL && strcmp(v, "1") == 0;
    }
    return lt_wanted;
}

static void
plan_free(void *p)
{
    if (p != NULL && p != &lt_ineligible)
        PyMem_RawFree(p);
}

static int
kinds_init(void)
{
    int op;
    if (cache_op >= 0)
        return 0;
    for (op = 0; op < PC_NOPS; op++) {
        const char *nm = pc_g.opname[op];
        kind[op] = K_NONE;
        if (strcmp(nm, "CACHE") == 0)
            cache_op = op;
        if (strcmp(nm, "FOR_ITER") == 0 || strcmp(nm, "JUMP_FORWARD") == 0 ||
            strncmp(nm, "POP_JUMP_FORWARD_IF_", 20) == 0 ||
            strcmp(nm, "JUMP_IF_FALSE_OR_POP") == 0 ||
            strcmp(nm, "JUMP_IF_TRUE_OR_POP") == 0)
            kind[op] = K_FORWARD;
        else if (strcmp(nm, "JUMP_BACKWARD") == 0 ||
                 strcmp(nm, "JUMP_BACKWARD_NO_INTERRUPT") == 0 ||
                 strncmp(nm, "POP_JUMP_BACKWARD_IF_", 21) == 0)
            kind[op] = K_BACKWARD;
        else if (strstr(nm, "JUMP") != NULL || strcmp(nm, "SEND") == 0 ||
                 strcmp(nm, "RERAISE") == 0)
            kind[op] = K_FORBIDDEN;
    }
    if (cache_op < 0)
        return -1;
    return 0;
}

/* Each unit's line from co_lines(), -1 for none; -1 on failure. */
static int
read_lines(PyCodeObject *code, int32_t *line, Py_ssize_t n)
{
    PyObject *it, *item; /* owned */
    Py_ssize_t u;
    for (u = 0; u < n; u++)
        line[u] = -1;
    it = PyObject_CallMethod((PyObject *)code, "co_lines", NULL);
    if (it == NULL)
        return -1;
    while ((item = PyIter_Next(it)) != NULL) {
        long a, b, l = -1;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
            Py_DECREF(item);
            Py_DECREF(it);
            return -1;
        }
        a = PyLong_AsLong(PyTuple_GET_ITEM(item, 0));
        b = PyLong_AsLong(PyTuple_GET_ITEM(item, 1));
        if (PyTuple_GET_ITEM(item, 2) != Py_None)
            l = PyLong_AsLong(PyTuple_GET_ITEM(item, 2));
        Py_DECREF(item);
        if (PyErr_Occurred() || l < -1 || l > INT32_MAX) {
            Py_DECREF(it);
            return -1;
        }
        for (u = a / 2; u < b / 2 && u < n; u++)
            line[u] = (int32_t)l;
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

/* Does code (ci) meet the rules above?  Fills p's tables; 0 if not. */
static int
plan_check(PyCodeObject *code, const pc_codeinfo *ci, const uint8_t *raw,
           const int32_t *line, lt_plan *p)
{
    Py_ssize_t n = ci->n, fr = ci->first_resume, u, v;
    int32_t cur_end = -1, cur_line = -2, nxt = (int32_t)n;
    uint32_t ext = 0;

    if (fr >= n || n > INT32_MAX / 2 || code->co_exceptiontable == NULL ||
        !PyBytes_Check(code->co_exceptiontable) ||
        PyBytes_GET_SIZE(code->co_exceptiontable) != 0)
        return 0;
    for (u = 0; u < n; u++) {
        p->jt[u] = -1;
        p->end[u] = -1;
    }
    /* Jumps and the instructions they may not be. */
    for (u = fr + 1; u < n; u++) {
        int op = ci->op[u];
        uint32_t arg;
        Py_ssize_t t;
        if (op == cache_op)
            continue;
        if (line[u] < 0 || kind[op] == K_FORBIDDEN)
            return 0;
        arg = (ext << 8) | raw[2 * u + 1];
        if (op == pc_g.extended_arg_op) {
            ext = arg;
            if (u + 1 >= n || line[u + 1] != line[u])
                return 0;
            continue;
        }
        ext = 0;
        if (op == pc_g.resume_op) {
            for (v = u - 1; v > fr && ci->op[v] == cache_op; v--)
                ;
            if (v <= fr || ci->op[v] != pc_g.yield_value_op)
                return 0;
        }
        if (kind[op] == K_NONE)
            continue;
        t = kind[op] == K_FORWARD ? u + 1 + (Py_ssize_t)arg
                                  : u + 1 - (Py_ssize_t)arg;
        if (t <= fr || t >= n || ci->op[t] == cache_op ||
            ci->op[t] == pc_g.resume_op || line[t] == line[u] ||
            ci->op[t - 1] == pc_g.extended_arg_op)
            return 0;
        p->jt[u] = (int32_t)t;
    }
    /* Line ranges, from the end. */
    for (u = n - 1; u > fr; u--) {
        if (ci->op[u] == cache_op) {
            p->next[u] = nxt;
            continue;
        }
        if (line[u] != cur_line) {
            cur_line = line[u];
            cur_end = (int32_t)u;
        }
        p->end[u] = cur_end;
        p->next[u] = nxt;
        nxt = (int32_t)u;
    }
    for (u = 0; u <= fr; u++)
        p->next[u] = nxt;
    p->end[fr] = (int32_t)fr; /* a RESUME starts no range of its own */
    /* Where each range's runs may leave it must tell them apart. */
    for (u = fr + 1; u < n; u++) {
        int32_t b = p->end[u], w;
        if (b < 0 || b == u || p->jt[u] < 0)
            continue;
        if (p->jt[u] == p->next[b] || p->jt[u] == p->jt[b])
            return 0;
        for (w = (int32_t)u + 1; w < b; w++)
            if (p->jt[w] == p->jt[u])
                return 0;
    }
    return 1;
}

static const lt_plan *
plan_build(PyCodeObject *code, const pc_codeinfo *ci)
{
    Py_ssize_t n = ci->n;
    lt_plan *p = NULL;
    int32_t *line = NULL;
    PyObject *bytes = NULL; /* owned */
    const lt_plan *r = &lt_ineligible;
    PyObject *exc_type, *exc_value, *exc_tb;

    PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
    if (kinds_init() < 0)
        goto done;
    p = PyMem_RawMalloc(sizeof(lt_plan) + 3 * sizeof(int32_t) * (size_t)n);
    line = PyMem_RawMalloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    bytes = PyCode_GetCode(code);
    if (p == NULL || line == NULL || bytes == NULL || !PyBytes_Check(bytes) ||
        PyBytes_GET_SIZE(bytes) != 2 * n)
        goto done;
    p->n = n;
    p->end = (int32_t *)(p + 1);
    p->jt = p->end + n;
    p->next = p->jt + n;
    if (read_lines(code, line, n) < 0)
        goto done;
    if (plan_check(code, ci, (const uint8_t *)PyBytes_AS_STRING(bytes), line,
                   p)) {
        p->eligible = 1;
        r = p;
        p = NULL;
    }
done:
    PyErr_Clear();
    PyMem_RawFree(p);
    PyMem_RawFree(line);
    Py_XDECREF(bytes);
    if (lt_extra >= 0)
        pc_code_set_extra((PyObject *)code, lt_extra, (void *)r);
    PyErr_Clear();
    PyErr_Restore(exc_type, exc_value, exc_tb);
    return r;
}

static const lt_plan *
plan_get(PyCodeObject *code, const pc_codeinfo *ci)
{
    void *extra = NULL;
    if (lt_extra < 0) {
        lt_extra = pc_request_code_extra_index(plan_free);
        if (lt_extra < 0)
            return &lt_ineligible;
    }
    if (pc_code_get_extra((PyObject *)code, lt_extra, &extra) == 0 && extra)
        return extra;
    return plan_build(code, ci);
}

/* ---- runs ---- */

/* Count units from..to (inclusive, caches skipped) as thread t's. */
static void
run_count(pc_thread *t, const lt_entry *e, int32_t from, int32_t to)
{
    const uint8_t *op = e->ci->op;
    int32_t u;
    for (u = from; u <= to; u++) {
        int o = op[u];
        if (o == cache_op)
            continue;
        pc_g.exec[o]++;
        if (t->epoch == pc_g.epoch)
            pc_g.pair[t->prev][o]++;
        else
            t->epoch = pc_g.epoch;
        t->prev = o;
        pc_codeinfo_count_hot(e->ci, u);
    }
    lt_epoch_seen = pc_g.epoch;
}

/* The frame is interrupted at unit c (an event there, a cut): count its
 * run up to c's instruction, and go on after it (count: 0 drops). */
static void
close_at(pc_thread *t, lt_entry *e, int32_t c, int count)
{
    const lt_plan *p = e->plan;
    if (c < 0 || c >= p->n)
        return;
    while (c > 0 && e->ci->op[c] == cache_op)
        c--;
    if (c < e->s)
        return;
    if (count)
        run_count(t, e, e->s, c);
    e->s = p->next[c];
    e->cand = c;
    e->fresh = p->end[c] == c;
}

static void
desync(void)
{
    pc_g.desync++;
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
top_for(PyFrameObject *frame)
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
    back = PyFrame_GetBack(frame);
    if (back == e->frame)
        close_at(&pc_t, e, unit_of(back), 1);
    Py_XDECREF(back);
}

int
pc_lines_start(PyFrameObject *frame, PyCodeObject *code, pc_codeinfo *ci,
               int lasti)
{
    const lt_plan *p = plan_get(code, ci);
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
    if (lt->depth == lt->cap) {
        int cap = lt->cap ? 2 * lt->cap : 64;
        lt_entry *s = PyMem_RawRealloc(lt->stack, sizeof(lt_entry) * cap);
        if (s == NULL)
            return 0;
        lt->stack = s;
        lt->cap = cap;
    }
    e = &lt->stack[lt->depth++];
    Py_INCREF(frame);
    e->frame = frame;
    e->plan = p;
    e->ci = ci;
    e->s = p->next[u];
    e->cand = -1;
    /* After the first RESUME a line event always comes; after a later
     * one (a generator resumed), when the next instruction's line
     * differs. */
    e->fresh = u == ci->first_resume || p->end[u] == u;
    return 1;
}

void
pc_lines_line(PyFrameObject *frame)
{
    lt_entry *e = top_for(frame);
    const lt_plan *p;
    int32_t at, u, b;
    if (e == NULL)
        return;
    p = e->plan;
    at = unit_of(frame);
    if (at < 0)
        return;
    if (e->fresh) {
        if (at != e->s && (e->cand < 0 || p->jt[e->cand] != at))
            desync();
    }
    else if (e->cand >= 0 && p->jt[e->cand] == at) {
        /* the interrupted jump jumped */
    }
    else if (e->s < p->n && p->end[e->s] >= 0) {
        const uint8_t *op = e->ci->op;
        b = p->end[e->s];
        for (u = e->s; u < b; u++)
            if (op[u] != cache_op && p->jt[u] == at)
                break;
        run_count(&pc_t, e, e->s, u);
        if (u == b && at != p->next[b] && at != p->jt[b])
            desync();
    }
    else {
        desync();
    }
    e->s = at;
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
    if (lt != NULL && lt->depth > 0)
        pop_to(lt, frame);
}

void
pc_lines_exception(PyFrameObject *frame)
{
    lt_entry *e = top_for(frame);
    if (e != NULL)
        close_at(&pc_t, e, unit_of(frame), 1);
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
pc_lines_cut_all(int (*is_ours)(PyThreadState *))
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
        if (lt != NULL && is_ours(ts))
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
