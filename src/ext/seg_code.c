/* seg_code.c: segment counting's per code object tables (seg_code.h):
 * their first sight, the opcodes they tell apart, quiet jumps, and the
 * fold of their counts into pc_g.  Plain C after first sight: the fold
 * runs from Py_AtExit and signal handlers too. */
#include "seg_code.h"

#if PC_HAVE_MONITORING

#include <stdlib.h>
#include <string.h>

seg_ops seg_op = {.cache = -1,
                  .send = -1,
                  .jbni = -1,
                  .jump_backward = -1,
                  .jump_forward = -1,
                  .for_iter = -1,
                  .extended_arg = -1,
                  .resume = -1,
                  .exit_init_check = -1,
                  .not_taken = -1,
                  .pop_iter = -1,
                  .end_async_for = -1,
                  .return_value = -1,
                  .return_const = -1,
                  .yield_value = -1,
                  .raise_varargs = -1,
                  .reraise = -1,
                  .pop_jump = {-1, -1, -1, -1}};
PyObject *seg_disable;
int seg_quiet_returns = 1;
int seg_quiet_branches = 1;
const char *seg_test_desync;
seg_cache_entry seg_cache[SEG_CACHE];

static seg_code *codes; /* every live table (fold, zero) */

static int
opcode_of(const char *name)
{
    int i;
    for (i = 0; i < PC_NOPS; i++)
        if (strcmp(pc_g.opname[i], name) == 0)
            return i;
    return -1;
}


int
seg_ops_init(PyObject *mon)
{
    seg_op.cache = opcode_of("CACHE");
    seg_op.send = opcode_of("SEND");
    seg_op.jbni = opcode_of("JUMP_BACKWARD_NO_INTERRUPT");
    seg_op.jump_backward = opcode_of("JUMP_BACKWARD");
    seg_op.jump_forward = opcode_of("JUMP_FORWARD");
    seg_op.for_iter = opcode_of("FOR_ITER");
    seg_op.extended_arg = opcode_of("EXTENDED_ARG");
    seg_op.resume = opcode_of("RESUME");
    seg_op.exit_init_check = opcode_of("EXIT_INIT_CHECK"); /* 3.13 */
    seg_op.not_taken = opcode_of("NOT_TAKEN");             /* 3.14 */
    seg_op.pop_iter = opcode_of("POP_ITER");               /* 3.14 */
    seg_op.end_async_for = opcode_of("END_ASYNC_FOR");
    seg_op.pop_jump[0] = opcode_of("POP_JUMP_IF_FALSE");
    seg_op.pop_jump[1] = opcode_of("POP_JUMP_IF_TRUE");
    seg_op.pop_jump[2] = opcode_of("POP_JUMP_IF_NONE");
    seg_op.pop_jump[3] = opcode_of("POP_JUMP_IF_NOT_NONE");
    seg_op.return_value = opcode_of("RETURN_VALUE");
    seg_op.return_const = opcode_of("RETURN_CONST");
    seg_op.yield_value = opcode_of("YIELD_VALUE");
    seg_op.raise_varargs = opcode_of("RAISE_VARARGS");
    seg_op.reraise = opcode_of("RERAISE");
    {
        static const char *const not_eager[] = {"SEND",
                                                "JUMP_BACKWARD_NO_INTERRUPT",
                                                "FOR_ITER",
                                                "JUMP_BACKWARD",
                                                "JUMP_FORWARD",
                                                "POP_JUMP_IF_FALSE",
                                                "POP_JUMP_IF_TRUE",
                                                "POP_JUMP_IF_NONE",
                                                "POP_JUMP_IF_NOT_NONE",
                                                "RESUME",
                                                "CACHE"};
        int i;
        size_t k;
        for (i = 0; i < PC_NOPS; i++)
            seg_op.eager[i] = 1;
        for (k = 0; k < sizeof not_eager / sizeof not_eager[0]; k++)
            if ((i = opcode_of(not_eager[k])) >= 0)
                seg_op.eager[i] = 0;
    }
    if (seg_op.cache < 0 || seg_op.send < 0 || seg_op.jbni < 0 || seg_op.jump_backward < 0 ||
        seg_op.jump_forward < 0 || seg_op.for_iter < 0 || seg_op.extended_arg < 0 ||
        seg_op.resume < 0) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: an opcode segment counting needs is missing");
        return -1;
    }
    seg_op.no_stop[seg_op.jump_backward] = 1;
    seg_op.no_stop[seg_op.resume] = 1;
    {
        const char *q = getenv("PYSTATS_QUIET_RETURNS");
        seg_quiet_returns = !(q != NULL && strcmp(q, "0") == 0);
        q = getenv("PYSTATS_QUIET_BRANCHES");
        seg_quiet_branches = !(q != NULL && strcmp(q, "0") == 0);
        q = getenv("PYSTATS_TEST_DESYNC");
        if (q != NULL && *q != '\0') {
            static char name[256];
            psf_strlcpy(name, q, sizeof name);
            seg_test_desync = name;
        }
    }
    seg_disable = PyObject_GetAttrString(mon, "DISABLE");
    if (seg_disable == NULL)
        return -1;
    return 0;
}

/* ---- quiet jumps ----
 *
 * An unconditional jump always goes to its target, so its JUMP event
 * tells nothing the bytecode does not: at its first event the callback
 * returns sys.monitoring.DISABLE, CPython takes the instrumentation off
 * that instruction, and from then on segments are closed across it like
 * across JUMP_BACKWARD_NO_INTERRUPT (seg_walk_silent()).  That is one event
 * less per loop iteration.  The one condition: every pass through a
 * quiet backward jump must still meet an event before it comes round
 * again, or a loop's iterations could not be counted.  A JUMP_BACKWARD
 * qualifies when the straight-line run from its target reaches an
 * instruction that always fires one (FOR_ITER, POP_JUMP_IF_*: BRANCH
 * either way; RETURN_*, YIELD_VALUE) before any jump; a JUMP_FORWARD
 * never closes a loop.
 *
 * Quiet branch sides (3.14, which reports each side of a branch as its
 * own event, BRANCH_LEFT and BRANCH_RIGHT, each turned off on its own).
 * A POP_JUMP_IF_* that does not jump falls through to its NOT_TAKEN,
 * which fires BRANCH_LEFT to the next instruction: a straight line, which
 * a segment can run through without an event, as it runs through any
 * other instruction.  So its BRANCH_LEFT is turned off at its first
 * event, and the branch fires only when it jumps (BRANCH_RIGHT).  The
 * one exception is a branch that is a quiet backward jump's anchor (the
 * instruction of its loop that always fires, found by quiet_eligible()):
 * every pass round that loop meets it, so it keeps both sides, one of
 * which fires each time round.  Every loop still meets an event on every
 * pass: its backward jump's (not quiet), or its anchor's.  On 3.12 and
 * 3.13 one BRANCH event reports both sides: turning it off would hide
 * the jumps too, so a branch keeps its event there unless it is a quiet
 * branch (below). */

static int
always_fires(int op)
{
    return op == seg_op.for_iter || seg_is_return_op(op) || op == seg_op.yield_value ||
           seg_is_pop_jump(op);
}

/* Quiet branches.  A POP_JUMP_IF_* (3.12, 3.13: or a FOR_ITER) goes one
 * of two ways, and where the frame's next event is tells which, when the
 * two straight runs from its sides, each up to the first instruction that
 * always fires an event (its run's end), have nothing in common: every
 * event the frame can meet before either end (a call, a raise, a cut
 * where it stands) is at an instruction of one run only.  A FOR_ITER's
 * sides are its loop body and where it goes when exhausted; its loop's
 * quiet back edge then meets the body's end on every pass instead of
 * the FOR_ITER (an iterator that is a generator runs with the frame
 * stopped at the FOR_ITER, which goes on as its next event says).  Then all
 * its events are turned off at its first one (3.14: both sides; its
 * BRANCH_LEFT is off already), and a segment is closed across it by
 * seg_fork_side(), which looks up the next event's instruction in the taken side's
 * run.  The conditions, checked once per code object:
 *  - neither run holds a jump, a SEND, a yield or a RERAISE (they stay
 *    straight: one interval of code each, and two runs that meet share
 *    their end, so different ends mean no instruction in common);
 *  - each ends at a FOR_ITER, a return, a RAISE_VARARGS or a branch
 *    with an event either way (3.12, 3.13: every one that is not quiet;
 *    3.14: a quiet loop's anchor; any other falls through silently and
 *    fires only where it stands, so the run goes on through it); not
 *    at another quiet branch, so that a run through a quiet branch
 *    always ends at an event;
 *  - not both at a return: a frame that left quietly (seg_quiet.h) took
 *    the side that returns;
 *  - it is no quiet loop's anchor (every pass round a loop still meets
 *    an event; a FOR_ITER anchor's pass goes on through one of its runs,
 *    each ending at an event).
 * Chosen from the last branch of the code back to the first, so that a
 * run's end is known quiet or not when it is looked at. */

/* The last instruction of the straight run from u, -1 if it does not
 * qualify (above). */
static int32_t
fork_run_end(const seg_code *sc, int32_t u, const uint8_t *anchored)
{
    int32_t guard;
    for (guard = 0; guard <= sc->n && seg_valid_unit(sc, u) && sc->span[u] > 0;
         guard++, u = seg_next_unit(sc, u)) {
        int op = sc->op[u];
        if (sc->quiet_ok[u] == SEG_QUIET_FORK)
            return -1;
        if (op == seg_op.for_iter || seg_is_return_op(op) || op == seg_op.raise_varargs)
            return u;
        if (seg_is_pop_jump(op)) {
            if (!PC_BRANCH_LEFT_RIGHT || (anchored[u / 8] & (1u << (u % 8))))
                return u;
            continue;
        }
        if (op == seg_op.jump_forward || op == seg_op.jump_backward || op == seg_op.jbni ||
            op == seg_op.send || op == seg_op.yield_value || op == seg_op.reraise ||
            op == seg_op.resume)
            return -1;
    }
    return -1;
}

static void
choose_forks(seg_code *sc, const uint8_t *anchored)
{
    int32_t b, v;
    for (b = sc->n - 1; b >= 0; b--) {
        int32_t tf, tt, tg, k;
        int loop = !PC_BRANCH_LEFT_RIGHT && sc->op[b] == seg_op.for_iter;
        if (sc->span[b] <= 0 || (!seg_is_pop_jump(sc->op[b]) && !loop) ||
            (anchored[b / 8] & (1u << (b % 8))))
            continue;
        tg = seg_jump_target(sc, b);
        for (k = 0; loop && k < PC_FOR_ITER_EXIT_SKIP && seg_valid_unit(sc, tg) && sc->span[tg] > 0;
             k++)
            tg = seg_next_unit(sc, tg); /* where an exhausted FOR_ITER goes */
        if (tg <= b || !seg_valid_unit(sc, tg) || sc->span[tg] <= 0)
            continue;
        tf = fork_run_end(sc, seg_next_unit(sc, b), anchored);
        tt = fork_run_end(sc, tg, anchored);
        if (tf < 0 || tt < 0 || tf == tt ||
            (seg_is_return_op(sc->op[tf]) && seg_is_return_op(sc->op[tt])))
            continue;
        /* 3.14: the BRANCH_LEFT of a branch ending the run names the
         * NOT_TAKEN after it (branch_fixup), which is in no other run */
        if (seg_is_pop_jump(sc->op[tt]) && seg_next_unit(sc, tt) < sc->n &&
            sc->op[seg_next_unit(sc, tt)] == seg_op.not_taken)
            tt = seg_next_unit(sc, tt);
        sc->quiet_ok[b] = SEG_QUIET_FORK;
        sc->target[b] = tg;
        sc->fork[b] = tt;
        for (v = b; v >= 0 && sc->silent[v] > b; v--)
            sc->silent[v] = b;
    }
}

/* Whether the jump at u may be quiet; *anchor: the instruction that
 * always fires on the straight run from a quiet backward jump's target,
 * else -1. */
static int
quiet_eligible(const seg_code *sc, int32_t u, int32_t *anchor)
{
    int op = sc->op[u];
    int32_t v;
    *anchor = -1;
    if (op == seg_op.jump_forward)
        return 1;
    if (op != seg_op.jump_backward)
        return 0;
    for (v = seg_jump_target(sc, u); v >= 0 && v < sc->n; v = seg_next_unit(sc, v)) {
        int o = sc->op[v];
        if (always_fires(o)) {
            *anchor = v;
            return 1;
        }
        if (v == u || o == seg_op.jump_forward || o == seg_op.jump_backward || o == seg_op.jbni ||
            o == seg_op.send || sc->span[v] <= 0)
            return 0;
    }
    return 0;
}


/* ---- first sight (slow path) ---- */

/* The arrays of sc (allocated, zeroed, n and op set) from the code's
 * raw bytecode: see the invariants in seg_code.h. */
static void
fill_tables(seg_code *sc, const uint8_t *raw, uint8_t *anchored)
{
    int32_t n = sc->n, i, owner = 0, nxt = n;
    const uint8_t *op = sc->op;

    sc->first_resume = n;
    for (i = 0; i < n; i++) {
        sc->arg[i] = raw[2 * i + 1];
        if (sc->first_resume == n && op[i] == seg_op.resume)
            sc->first_resume = i;
    }
    for (i = 0; i < n; i++) {
        if (op[i] == seg_op.cache && i > 0 && i - owner <= 127) {
            sc->span[i] = (int8_t)(owner - i);
        }
        else {
            int32_t j = i + 1;
            while (j < n && op[j] == seg_op.cache && j - i <= 127)
                j++;
            sc->span[i] = (int8_t)(j - i);
            owner = i;
        }
    }
    for (i = n - 1; i >= 0; i--) {
        if (op[i] == seg_op.send || op[i] == seg_op.jbni)
            nxt = i;
        sc->silent[i] = nxt;
    }
    for (i = 0; i < n; i++) {
        int32_t tg = i;
        if (sc->span[i] > 0 && (op[i] == seg_op.send || op[i] == seg_op.jbni ||
                                op[i] == seg_op.jump_forward || op[i] == seg_op.jump_backward)) {
            tg = seg_jump_target(sc, i);
            if (tg < 0 || tg >= n)
                tg = i; /* never: seg_walk_silent's guard stops it */
        }
        sc->target[i] = tg;
    }
    for (i = 0; i<n; i += sc->span[i]> 0 ? sc->span[i] : 1) {
        int32_t a;
        if (quiet_eligible(sc, i, &a))
            sc->quiet_ok[i] = SEG_QUIET_JUMP;
        if (a >= 0 && sc->op[a] != seg_op.for_iter)
            anchored[a / 8] |= (uint8_t)(1u << (a % 8));
    }
#if PC_BRANCH_LEFT_RIGHT
    for (i = 0; i<n; i += sc->span[i]> 0 ? sc->span[i] : 1) {
        int32_t nt = seg_next_unit(sc, i);
        if (seg_is_pop_jump(op[i]) && nt < n && op[nt] == seg_op.not_taken &&
            !(anchored[i / 8] & (1u << (i % 8))))
            sc->quiet_ok[nt] = SEG_QUIET_LEFT;
    }
    for (i = 0; i<n; i += sc->span[i]> 0 ? sc->span[i] : 1) {
        int32_t nt = seg_next_unit(sc, i);
        if (nt < n && (op[i] == seg_op.pop_iter || op[i] == seg_op.end_async_for))
            sc->iter_end[nt] = 1;
    }
#endif
    for (i = 0; i < n; i++)
        sc->fork[i] = -1;
    if (seg_quiet_branches)
        choose_forks(sc, anchored);
    assert(n == 0 || sc->span[0] > 0);
}

#ifndef NDEBUG
/* Whether the instruction at u may jump without an event now. */
static int
silent_capable(const seg_code *sc, int32_t u)
{
    int op = sc->op[u];
    return op == seg_op.send || op == seg_op.jbni || sc->quiet_ok[u] == SEG_QUIET_FORK;
}

/* seg_code.h's invariants of a table just built (DEBUG=1 builds only:
 * a walk of the whole code).  The quiet jumps are not silent yet (their
 * first JUMP event makes them so, seg_quiet_site()), exit[] is all unknown,
 * starts[] and ends[] zero: those are asserted where they change. */
static void
check_tables(const seg_code *sc, const pc_codeinfo *ci, const uint8_t *raw)
{
    int32_t n = sc->n, u, v, nxt = n;
    assert(n == ci->n && sc->op == ci->op && sc->hot == ci->hot);
    for (u = 0; u < n; u++) {
        assert(sc->arg[u] == raw[2 * u + 1]);
        assert(sc->span[u] != 0);
        if (sc->span[u] > 0) {
            assert(u + sc->span[u] <= n);
            for (v = u + 1; v < u + sc->span[u]; v++)
                assert(v + sc->span[v] == u);
        }
        else {
            v = u + sc->span[u];
            assert(v >= 0 && sc->span[v] > 0 && v + sc->span[v] > u);
        }
        assert(sc->exit[u] == 0 && sc->starts[u] == 0 && sc->ends[u] == 0);
        v = seg_owner_unit(sc, u - 1);
        assert(sc->iter_end[u] ==
               (PC_BRANCH_LEFT_RIGHT && sc->span[u] > 0 && v >= 0 &&
                (sc->op[v] == seg_op.pop_iter || sc->op[v] == seg_op.end_async_for)));
    }
    for (u = n - 1; u >= 0; u--) {
        if (sc->span[u] > 0 && silent_capable(sc, u))
            nxt = u;
        assert(sc->silent[u] == nxt);
    }
    for (u = 0; u < n; u++) {
        int op = sc->op[u], q = sc->quiet_ok[u];
        int jumps = sc->span[u] > 0 && (op == seg_op.send || op == seg_op.jbni ||
                                        op == seg_op.jump_forward || op == seg_op.jump_backward);
        assert(q == 0 || sc->span[u] > 0);
        assert(q != SEG_QUIET_JUMP || op == seg_op.jump_forward || op == seg_op.jump_backward);
        assert(q != SEG_QUIET_LEFT || op == seg_op.not_taken);
        assert(q != SEG_QUIET_FORK || seg_is_pop_jump(op) || op == seg_op.for_iter);
        if (q == SEG_QUIET_FORK) {
            int32_t t = sc->target[u], f = sc->fork[u];
            /* the jumping side's run [t, f], which the other side's,
             * from seg_next_unit(u), does not enter */
            assert(seg_valid_unit(sc, t) && sc->span[t] > 0 && t > u);
            assert(seg_valid_unit(sc, f) && sc->span[f] > 0 && f >= t);
            assert(seg_next_unit(sc, u) < t || seg_next_unit(sc, u) > f);
            for (v = t; v < f; v = seg_next_unit(sc, v))
                assert(!silent_capable(sc, v));
        }
        else {
            assert(sc->fork[u] == -1);
            assert(sc->target[u] == u || jumps);
            assert(!jumps || sc->target[u] == u || sc->target[u] == seg_jump_target(sc, u));
        }
    }
}
#endif

/* seg_code.quiet of a code object. */
static int
quiet_kind(int flags, const pc_codeinfo *ci)
{
    Py_ssize_t u;
    if (!seg_quiet_returns || (flags & CO_ASYNC_GENERATOR))
        return 0;
    if (!(flags & CO_GENERATOR) || (flags & CO_COROUTINE))
        return SEG_QUIET_RETURNS;
    for (u = 0; u < ci->n; u++)
        if (ci->op[u] == seg_op.send)
            return SEG_QUIET_RETURNS; /* yield from: PY_YIELD resolves SEND */
    return SEG_QUIET_RETURNS | SEG_QUIET_YIELDS;
}

static seg_code *
seg_code_slow(pc_codeinfo *ci)
{
    pc_exc saved;    /* the exception in flight */
    PyObject *bytes; /* owned */
    seg_code *sc = NULL;
    int32_t n = (int32_t)ci->n;
    size_t size;
    char *p;
    uint8_t *anchored = NULL;

    assert(ci->seg == NULL && PyGILState_Check());
    saved = pc_exc_save();
    bytes = PyCode_GetCode((PyCodeObject *)ci->code);
    if (bytes == NULL || !PyBytes_Check(bytes) || PyBytes_GET_SIZE(bytes) / 2 != ci->n)
        goto done;
    size = sizeof(seg_code) + 2 * (size_t)n * sizeof(uint64_t) + 4 * (size_t)n * sizeof(int32_t) +
           4 * (size_t)n + 1;
    anchored = calloc((size_t)n / 8 + 1, 1); /* a bit per unit */
    p = anchored ? calloc(1, size) : NULL;
    if (p == NULL)
        goto done;
    sc = (seg_code *)p;
    p += sizeof(seg_code);
    sc->starts = (uint64_t *)p;
    p += (size_t)n * sizeof(uint64_t);
    sc->ends = (uint64_t *)p;
    p += (size_t)n * sizeof(uint64_t);
    sc->silent = (int32_t *)p;
    p += (size_t)n * sizeof(int32_t);
    sc->target = (int32_t *)p;
    p += (size_t)n * sizeof(int32_t);
    sc->exit = (int32_t *)p;
    p += (size_t)n * sizeof(int32_t);
    sc->fork = (int32_t *)p;
    p += (size_t)n * sizeof(int32_t);
    sc->quiet_ok = (uint8_t *)p;
    p += (size_t)n;
    sc->arg = (uint8_t *)p;
    p += (size_t)n;
    sc->span = (int8_t *)p;
    p += (size_t)n;
    sc->iter_end = (uint8_t *)p;
    sc->code = ci->code;
    sc->n = n;
    sc->op = ci->op;
    sc->hot = ci->hot;
    sc->quiet = quiet_kind(((PyCodeObject *)ci->code)->co_flags, ci);
    sc->drop_start = seg_test_desync != NULL &&
                     PyUnicode_CompareWithASCIIString(((PyCodeObject *)ci->code)->co_qualname,
                                                      seg_test_desync) == 0;
    fill_tables(sc, (const uint8_t *)PyBytes_AS_STRING(bytes), anchored);
#ifndef NDEBUG
    check_tables(sc, ci, (const uint8_t *)PyBytes_AS_STRING(bytes));
#endif
    sc->next = codes;
    if (codes)
        codes->pprev = &sc->next;
    sc->pprev = &codes;
    codes = sc;
    ci->seg = sc;
done:
    free(anchored);
    Py_XDECREF(bytes);
    if (sc == NULL)
        pc_g.error_pending = 1;
    pc_exc_restore(saved);
    return sc;
}

seg_code *
seg_code_miss(PyObject *code, unsigned k)
{
    pc_codeinfo *ci = pc_codeinfo_get(code);
    seg_code *sc;
    if (ci == NULL)
        return NULL;
    sc = ci->seg != NULL ? ci->seg : seg_code_slow(ci);
    if (sc != NULL) {
        seg_cache[k].code = code;
        seg_cache[k].sc = sc;
    }
    return sc;
}

seg_code *
seg_code_known(PyObject *code, unsigned k)
{
    void *extra = NULL;
    seg_code *sc;
    /* A code object's co_extra read raises nothing (code is one, the
     * index is ours). */
    if (pc_code_get_extra(code, pc_code_extra_index, &extra) != 0 || extra == NULL ||
        (sc = ((pc_codeinfo *)extra)->seg) == NULL)
        return NULL;
    seg_cache[k].code = code;
    seg_cache[k].sc = sc;
    return sc;
}

int32_t
seg_loop_exit(const seg_code *sc, int32_t v)
{
    int32_t e = seg_owner_unit(sc, v - 1), u;
    for (u = e - 1; u >= 0; u--)
        if (sc->span[u] > 0 && sc->op[u] == seg_op.for_iter && seg_jump_target(sc, u) == e)
            return u;
    return -1;
}

/* Per-instruction counts and pairs of one code object into pc_g; its
 * arrays back to zero.  Plain C. */
static void
fold_code(seg_code *sc)
{
    uint64_t run = 0;
    int32_t u = 0, v;
    const uint8_t *op = sc->op;

    while (u < sc->n && op[u] == seg_op.cache)
        u++;
    while (u < sc->n) {
        v = seg_next_unit(sc, u);
        run += sc->starts[u];
        if (sc->ends[u] > run) {
            PC_DESYNC();
            run = sc->ends[u];
        }
        if (run) {
            uint64_t through = run - sc->ends[u];
            pc_g.exec[op[u]] += run;
            sc->hot->counts[u] += run;
            if (through && v < sc->n)
                pc_g.pair[op[u]][op[v]] += through;
        }
        run -= sc->ends[u];
        sc->starts[u] = sc->ends[u] = 0;
        u = v;
    }
    if (run)
        PC_DESYNC();
}

void
seg_code_release(pc_codeinfo *ci)
{
    seg_code *sc = ci->seg;
    unsigned k;
    if (sc == NULL)
        return;
    k = seg_cache_slot(ci->code);
    if (seg_cache[k].code == ci->code)
        seg_cache[k].code = NULL;
#ifndef NDEBUG
    for (k = 0; k < SEG_CACHE; k++) /* only live tables in the cache */
        assert(seg_cache[k].code == NULL || seg_cache[k].sc != sc);
#endif
    /* Unlinked first: a dump from a signal handler arriving meanwhile
     * misses these counts rather than counting them twice. */
    assert(*sc->pprev == sc); /* on the list of live tables */
    *sc->pprev = sc->next;
    if (sc->next)
        sc->next->pprev = sc->pprev;
    fold_code(sc);
    ci->seg = NULL;
    free(sc);
}

void
pc_seg_fold(void)
{
    seg_code *sc;
    for (sc = codes; sc != NULL; sc = sc->next)
        fold_code(sc);
}


void
seg_code_zero_all(void)
{
    seg_code *sc;
    for (sc = codes; sc != NULL; sc = sc->next) {
        memset(sc->starts, 0, (size_t)sc->n * sizeof(uint64_t));
        memset(sc->ends, 0, (size_t)sc->n * sizeof(uint64_t));
    }
}

#endif /* PC_HAVE_MONITORING */
