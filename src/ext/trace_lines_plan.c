/* trace_lines_plan.c: 3.11's line counting, the plan of a code object:
 * whether its line events alone tell which instructions ran, and the
 * tables its frames' runs are counted from (trace_lines.c counts them).
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
 *  - the first instruction after the first RESUME has a line; an
 *    EXTENDED_ARG has its instruction's; a RESUME follows a YIELD_VALUE
 *    and has a line; no jump lands on a RESUME, a cache unit or an
 *    extended instruction, nor back on an instruction with no line.
 * A range is a run of consecutive instructions of one line (or none),
 * ended early by one that never goes on to the next (a return, an
 * unconditional jump).  An edge from one range to another fires a line
 * event unless it goes to an instruction with no line or forward to its
 * own line ("quiet"); a backward one always fires.  A run goes straight
 * through its range, and may go on quietly into a range that runs
 * straight to a jump or return firing one.  From each range, every event
 * a run may next meet, and every range it may go on in quietly, must
 * come one way only: then the line event's instruction tells how the
 * run left.  A range where that fails (a jump within the range, two ways
 * out to one place, a quiet way on that the next event would not tell)
 * is counted from opcode events instead (LT_OPS): the line event
 * entering it turns them on for the frame (its own opcode event follows
 * in the same dispatch), the next line event off; such a range has a
 * line and is never entered quietly from a range counted from lines.
 * A run starts at an event's instruction, or after the instruction a
 * call, a raise or another thread's cut interrupted (which, a jump, may
 * also go to its target); it ends at the jump whose target (or whose
 * quiet range's exit) the next line event is at, at the end of its
 * range, or at the instruction of a 'call' (the caller's current one),
 * 'return' or 'exception' event.
 */
#include "trace_lines_plan.h"

#if !PC_HAVE_MONITORING

#include <string.h>

static lt_plan lt_ineligible;    /* shared by every ineligible code */
static Py_ssize_t lt_extra = -1; /* our co_extra slot */
int pc_lines_cache_op = -1;

enum { K_NONE, K_FORWARD, K_BACKWARD, K_FORBIDDEN };
static uint8_t kind[PC_NOPS];
static uint8_t nofall[PC_NOPS]; /* never goes on to the next instruction */

/* The last code looked up and its plan, forgotten when a code with that
 * plan dies (any ineligible one, for the shared plan). */
static PyCodeObject *last_code;
static const lt_plan *last_plan;

static void
plan_free(void *p)
{
    if (p == last_plan)
        last_code = NULL;
    if (p != NULL && p != &lt_ineligible)
        PyMem_RawFree(p);
}

static int
kinds_init(void)
{
    int op;
    if (pc_lines_cache_op >= 0)
        return 0;
    for (op = 0; op < PC_NOPS; op++) {
        const char *nm = pc_g.opname[op];
        kind[op] = K_NONE;
        nofall[op] = strcmp(nm, "JUMP_FORWARD") == 0 || strcmp(nm, "JUMP_BACKWARD") == 0 ||
                     strcmp(nm, "JUMP_BACKWARD_NO_INTERRUPT") == 0 ||
                     strcmp(nm, "RETURN_VALUE") == 0 || strcmp(nm, "RAISE_VARARGS") == 0;
        if (strcmp(nm, "CACHE") == 0)
            pc_lines_cache_op = op;
        if (strcmp(nm, "FOR_ITER") == 0 || strcmp(nm, "JUMP_FORWARD") == 0 ||
            strncmp(nm, "POP_JUMP_FORWARD_IF_", 20) == 0 ||
            strcmp(nm, "JUMP_IF_FALSE_OR_POP") == 0 || strcmp(nm, "JUMP_IF_TRUE_OR_POP") == 0)
            kind[op] = K_FORWARD;
        else if (strcmp(nm, "JUMP_BACKWARD") == 0 ||
                 strcmp(nm, "JUMP_BACKWARD_NO_INTERRUPT") == 0 ||
                 strncmp(nm, "POP_JUMP_BACKWARD_IF_", 21) == 0)
            kind[op] = K_BACKWARD;
        else if (strstr(nm, "JUMP") != NULL || strcmp(nm, "SEND") == 0 ||
                 strcmp(nm, "RERAISE") == 0)
            kind[op] = K_FORBIDDEN;
    }
    if (pc_lines_cache_op < 0)
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

/* Where a run that left its range without an event, into the range
 * starting at t, may next meet a line event: the ends of that range.
 * Adds them to obs; 0 if the range may not be entered so. */
static int
silent_exits(const lt_plan *p, int32_t t, int32_t *obs, int *k)
{
    int32_t b = p->end[t], u;
    if (t != p->start[t])
        return 0;
    for (u = t; u < b; u++)
        if (p->jt[u] >= 0)
            return 0;
    if (p->jt[b] >= 0) {
        if (p->fl[b] & LT_JSIL)
            return 0;
        obs[(*k)++] = p->jt[b];
    }
    if (!(p->fl[b] & LT_NOFALL)) {
        if (p->fl[b] & LT_FSIL)
            return 0;
        obs[(*k)++] = p->next[b];
    }
    return 1;
}

/* The line ranges (p->end, p->start) and p->next; 0 if the first
 * instruction after the first RESUME has no line. */
static int
plan_ranges(const pc_codeinfo *ci, const int32_t *line, lt_plan *p)
{
    Py_ssize_t n = ci->n, fr = ci->first_resume, u;
    int32_t cur_end = -1, cur_line = -2, nxt = (int32_t)n;

    /* Line ranges, from the end, then from the start. */
    for (u = n - 1; u > fr; u--) {
        p->next[u] = nxt;
        if (ci->op[u] == pc_lines_cache_op)
            continue;
        /* A range also ends where control cannot go on: what follows is
         * only reached by jumps. */
        if (line[u] != cur_line || nofall[ci->op[u]]) {
            cur_line = line[u];
            cur_end = (int32_t)u;
        }
        p->end[u] = cur_end;
        nxt = (int32_t)u;
    }
    for (u = 0; u <= fr; u++)
        p->next[u] = nxt;
    p->end[fr] = (int32_t)fr; /* a RESUME starts no range of its own */
    cur_end = -1;             /* here: the start of the range being read */
    for (u = fr + 1; u < n; u++) {
        if (ci->op[u] == pc_lines_cache_op)
            continue;
        if (cur_end < 0)
            cur_end = (int32_t)u;
        p->start[u] = cur_end;
        if (p->end[u] == u)
            cur_end = -1;
    }
    /* The first instruction after the first RESUME meets a line event. */
    if (nxt >= n || line[nxt] < 0)
        return 0;
    return 1;
}

/* The jumps (p->jt) and the flags; 0 if one breaks the rules. */
static int
plan_jumps(const pc_codeinfo *ci, const uint8_t *raw, const int32_t *line, lt_plan *p)
{
    Py_ssize_t n = ci->n, fr = ci->first_resume, u;
    uint32_t ext = 0;

    /* Jumps, and the instructions they may not be. */
    for (u = fr + 1; u < n; u++) {
        int op = ci->op[u];
        uint32_t arg;
        Py_ssize_t t, v;
        if (op == pc_lines_cache_op)
            continue;
        if (kind[op] == K_FORBIDDEN)
            return 0;
        if (nofall[op])
            p->fl[u] |= LT_NOFALL;
        if (p->end[u] == u && !nofall[op] && p->next[u] < n && line[p->next[u]] < 0)
            p->fl[u] |= LT_FSIL;
        arg = (ext << 8) | raw[2 * u + 1];
        if (op == pc_g.extended_arg_op) {
            ext = arg;
            if (u + 1 >= n || line[u + 1] != line[u])
                return 0;
            continue;
        }
        ext = 0;
        if (op == pc_g.resume_op) {
            for (v = u - 1; v > fr && ci->op[v] == pc_lines_cache_op; v--)
                ;
            if (v <= fr || ci->op[v] != pc_g.yield_value_op || line[u] < 0)
                return 0;
        }
        if (kind[op] == K_NONE)
            continue;
        t = kind[op] == K_FORWARD ? u + 1 + (Py_ssize_t)arg : u + 1 - (Py_ssize_t)arg;
        if (t <= fr || t >= n || ci->op[t] == pc_lines_cache_op || ci->op[t] == pc_g.resume_op ||
            ci->op[t - 1] == pc_g.extended_arg_op)
            return 0;
        if (p->start[t] == p->start[u]) {
            /* within its own line: that line counts from opcode events */
            p->fl[p->start[u]] |= LT_OPS;
            p->jt[u] = (int32_t)t;
            continue;
        }
        if (line[t] < 0 || (line[t] == line[u] && t > u)) {
            if (t < u)
                return 0; /* a quiet jump back */
            p->fl[u] |= LT_JSIL;
        }
        p->jt[u] = (int32_t)t;
    }
    return 1;
}

/* One way out of a range, to t: told by the next event there, or, if
 * the run goes on into t quietly (silent), t is a range the run enters
 * (entries) whose own ways out must then be told (silent_exits); 0 if
 * they cannot. */
static int
way_out(const lt_plan *p, int32_t t, int silent, int32_t *obs, int *k, int32_t *entries, int *m)
{
    if (!silent) {
        obs[(*k)++] = t;
        return 1;
    }
    if (!silent_exits(p, t, obs, k))
        return 0;
    entries[(*m)++] = t;
    return 1;
}

/* Marks LT_OPS the ranges whose line events cannot tell how a run left
 * them; 0 if a range has too many ways out to check. */
static int
plan_exits(const pc_codeinfo *ci, lt_plan *p)
{
    Py_ssize_t n = ci->n, fr = ci->first_resume, u;
    int32_t obs[128], entries[64];

    /* From each range, where a run may leave it must tell it apart: every
     * event it may next meet, and every range it may go on in quietly,
     * comes one way only. */
    for (u = fr + 1; u < n; u++) {
        int32_t b = p->end[u], x;
        int k = 0, m = 0, i, j, ok = 1;
        if (b < 0 || p->start[u] != u || (p->fl[u] & LT_OPS))
            continue;
        for (x = (int32_t)u; x <= b; x++) {
            if (ci->op[x] == pc_lines_cache_op)
                continue;
            if (k > 120 || m > 60)
                return 0;
            if (p->jt[x] >= 0 && !way_out(p, p->jt[x], p->fl[x] & LT_JSIL, obs, &k, entries, &m))
                ok = 0;
            if (x == b && !(p->fl[b] & LT_NOFALL) &&
                !way_out(p, p->next[b], p->fl[b] & LT_FSIL, obs, &k, entries, &m))
                ok = 0;
        }
        for (i = 0; i < k; i++)
            for (j = i + 1; j < k; j++)
                if (obs[i] == obs[j])
                    ok = 0;
        for (i = 0; i < m; i++)
            for (j = i + 1; j < m; j++)
                if (entries[i] == entries[j])
                    ok = 0;
        /* Two ways out to one place, or on quietly to where the next
         * event would not tell: that line counts from opcode events (and
         * so does what it goes on to quietly, until the next line event).
         */
        if (!ok)
            p->fl[u] |= LT_OPS;
    }
    return 1;
}

/* 0 if a range counted from opcode events could be entered without a
 * line event; else spreads LT_OPS over the ranges and fills p->nj. */
static int
plan_ops(const pc_codeinfo *ci, const int32_t *line, lt_plan *p)
{
    Py_ssize_t n = ci->n, fr = ci->first_resume, u;

    /* A line counted from opcode events is entered at a line event only
     * (it has a line, and no jump or fallthrough reaches it quietly). */
    for (u = fr + 1; u < n; u++) {
        int32_t q;
        if (p->end[u] < 0)
            continue;
        q = p->start[u];
        if ((p->fl[q] & LT_OPS) && line[u] < 0)
            return 0;
        if (p->fl[q] & LT_OPS)
            continue;
        if ((p->fl[u] & LT_JSIL) && (p->fl[p->start[p->jt[u]]] & LT_OPS))
            return 0;
        if ((p->fl[u] & LT_FSIL) && p->next[u] < n && (p->fl[p->start[p->next[u]]] & LT_OPS))
            return 0;
    }
    for (u = fr + 1; u < n; u++)
        if (p->end[u] >= 0 && (p->fl[p->start[u]] & LT_OPS))
            p->fl[u] |= LT_OPS;
    for (u = n - 1; u >= 0; u--)
        p->nj[u] = u <= fr || p->end[u] < 0          ? (int32_t)u
                   : p->jt[u] >= 0 || p->end[u] == u ? (int32_t)u
                                                     : p->nj[p->next[u]];
    return 1;
}

#ifndef NDEBUG
/* An eligible plan's invariants (trace_lines_plan.h). */
static int
plan_whole(const pc_codeinfo *ci, const lt_plan *p)
{
    Py_ssize_t n = ci->n, fr = ci->first_resume, u;
    for (u = 0; u < n; u++) {
        int32_t j = p->jt[u];
        if (p->next[u] <= u || p->next[u] > n)
            return 0;
        if (u <= fr || ci->op[u] == pc_lines_cache_op)
            continue;
        if (p->start[u] <= fr || p->start[u] > u || p->end[u] < u || p->end[u] >= n ||
            ci->op[p->start[u]] == pc_lines_cache_op || ci->op[p->end[u]] == pc_lines_cache_op)
            return 0;
        if (j != -1 && (j <= fr || j >= n || ci->op[j] == pc_lines_cache_op))
            return 0;
    }
    return 1;
}
#endif

/* Does code (ci) meet the rules above?  Fills p's tables; 0 if not. */
static int
plan_check(PyCodeObject *code, const pc_codeinfo *ci, const uint8_t *raw, const int32_t *line,
           lt_plan *p)
{
    Py_ssize_t n = ci->n, fr = ci->first_resume, u;

    if (fr >= n || n > INT32_MAX / 2 || code->co_exceptiontable == NULL ||
        !PyBytes_Check(code->co_exceptiontable) || PyBytes_GET_SIZE(code->co_exceptiontable) != 0)
        return 0;
    for (u = 0; u < n; u++) {
        p->jt[u] = -1;
        p->end[u] = -1;
        p->start[u] = -1;
        p->fl[u] = 0;
    }
    return plan_ranges(ci, line, p) && plan_jumps(ci, raw, line, p) && plan_exits(ci, p) &&
           plan_ops(ci, line, p);
}

static const lt_plan *
plan_build(PyCodeObject *code, const pc_codeinfo *ci)
{
    Py_ssize_t n = ci->n;
    lt_plan *p = NULL;
    int32_t *line = NULL;
    PyObject *bytes = NULL; /* owned */
    const lt_plan *r = &lt_ineligible;
    pc_exc saved; /* the exception in flight */

    saved = pc_exc_save();
    if (kinds_init() < 0)
        goto done;
    p = PyMem_RawMalloc(sizeof(lt_plan) + 5 * sizeof(int32_t) * (size_t)n + (size_t)n);
    line = PyMem_RawMalloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    bytes = PyCode_GetCode(code);
    if (p == NULL || line == NULL || bytes == NULL || !PyBytes_Check(bytes) ||
        PyBytes_GET_SIZE(bytes) != 2 * n)
        goto done;
    p->n = n;
    p->end = (int32_t *)(p + 1);
    p->start = p->end + n;
    p->jt = p->start + n;
    p->next = p->jt + n;
    p->nj = p->next + n;
    p->fl = (uint8_t *)(p->nj + n);
    if (read_lines(code, line, n) < 0)
        goto done;
    if (plan_check(code, ci, (const uint8_t *)PyBytes_AS_STRING(bytes), line, p)) {
        assert(plan_whole(ci, p));
        p->eligible = 1;
        r = p;
        p = NULL;
    }
done:
    PyErr_Clear();
    PyMem_RawFree(p);
    PyMem_RawFree(line);
    Py_XDECREF(bytes);
    if (lt_extra < 0 || pc_code_set_extra((PyObject *)code, lt_extra, (void *)r) != 0) {
        if (r != &lt_ineligible)
            PyMem_RawFree((void *)r);
        r = &lt_ineligible;
    }
    PyErr_Clear();
    pc_exc_restore(saved);
    return r;
}

const lt_plan *
pc_lines_plan(PyCodeObject *code, const pc_codeinfo *ci)
{
    void *extra = NULL;
    if (lt_extra < 0) {
        lt_extra = pc_request_code_extra_index(plan_free);
        if (lt_extra < 0)
            return &lt_ineligible;
    }
    if (code == last_code)
        return last_plan;
    if (pc_code_get_extra((PyObject *)code, lt_extra, &extra) != 0 || extra == NULL)
        extra = (void *)plan_build(code, ci);
    last_code = code;
    last_plan = extra;
    return extra;
}

#endif /* !PC_HAVE_MONITORING */
