/* seg_code.h: segment counting's per code object tables (3.12+), and
 * the bytecode arithmetic on them.  Internal to segment counting
 * (segments.c, seg_*.c): see segments.c for the method.
 *
 * Invariants of a seg_code (built once, on first sight, by
 * seg_code_slow(); freed with its code object, pc_seg_code_free()):
 *  - n, op[] are the code's pc_codeinfo's (codeinfo.h); arg[u] is
 *    the oparg byte of unit u.
 *  - span[u] > 0 at the start of an instruction: its length in units
 *    (itself and its CACHE entries); span[u] < 0 at a cache unit: minus
 *    the distance back to the instruction that owns it.
 *  - silent[u] is the first unit v >= u whose instruction may jump
 *    without an event (SEND, JUMP_BACKWARD_NO_INTERRUPT, a quiet jump,
 *    a quiet branch); n if none.  Only ever lowered (seg_quiet_site()),
 *    never raised.
 *  - target[u] is the jump target of a SEND, JUMP_BACKWARD_NO_INTERRUPT,
 *    JUMP_FORWARD, JUMP_BACKWARD or quiet branch at u, else u itself.
 *  - quiet_ok[u] is SEG_QUIET_JUMP where the JUMP event of the jump at
 *    u may be turned off, SEG_QUIET_LEFT (3.14) where u is the NOT_TAKEN
 *    of a POP_JUMP_IF_* whose BRANCH_LEFT may be turned off,
 *    SEG_QUIET_FORK where u is a quiet branch (every event of its
 *    POP_JUMP_IF_* turned off: seg_fork_side()), else 0.  Set once, when the
 *    table is built.
 *  - fork[u] of a quiet branch u: the last instruction of the straight
 *    run from its target (3.14: or the NOT_TAKEN after it, which its
 *    BRANCH_LEFT names); every instruction of that run lies in
 *    [target[u], fork[u]], and none of the run from seg_next_unit(u) does.
 *  - iter_end[u] (3.14) is 1 where u follows a POP_ITER or an
 *    END_ASYNC_FOR instruction, else 0 (branch_moved(), seg_events.c).
 *  - exit[u], once set, never changes: the straight run from u to a
 *    return only gains silent jumps.
 *  - starts[s] and ends[e] count the closed segments that began at s and
 *    ended at e since the last fold; at a fold every prefix sum of
 *    starts minus ends is non-negative (a segment ends after it starts)
 *    and the total is zero (every segment was closed).
 *  - Every live seg_code is on one list (codes, seg_code.c), which the
 *    fold and the zeroing walk; seg_cache[] only ever holds live ones.
 * Asserted in DEBUG=1 builds: the tables as built (check_tables(),
 * seg_code.c: n, op, arg, span, silent, target, quiet_ok, fork, and
 * exit[], starts[], ends[] still empty); silent[] lowered by
 * seg_quiet_site(); exit[] rechecked by seg_exit_unit() whenever it is read
 * there; the fold's sums by fold_code() (PC_DESYNC, an assert unless
 * another tool moved a frame); the list and the cache when a table is
 * freed (seg_code_release()).
 */
#ifndef PC_SEG_CODE_H
#define PC_SEG_CODE_H

#include "segments.h"

#if PC_HAVE_MONITORING

typedef struct seg_code {
    struct seg_code *next, **pprev; /* live ones, for fold and zero */
    PyObject *code;                 /* borrowed */
    int32_t n;                      /* code units */
    int32_t first_resume;           /* unit of the first RESUME */
    const uint8_t *op;              /* base opcode per unit (codeinfo) */
    pc_hot *hot;                    /* per code statistics */
    uint8_t *arg;                   /* oparg byte per unit */
    int8_t *span;                   /* instruction start: its length in
                                       units; cache unit: minus the
                                       distance back to its owner */
    int32_t *silent;                /* first silent jump at or after u
                                       (SEND, JBNI, a quiet jump), n if
                                       none */
    uint8_t *quiet_ok;              /* an event that may be turned off:
                                       SEG_QUIET_JUMP, SEG_QUIET_LEFT,
                                       SEG_QUIET_FORK */
    int32_t *target;                /* a silent-capable jump's target
                                       (SEND, JBNI, JUMP_FORWARD,
                                       JUMP_BACKWARD, a quiet branch),
                                       else itself */
    int32_t *fork;                  /* a quiet branch's: the last
                                       instruction of its jumping side's
                                       run (see seg_code.c), else -1 */
    uint8_t *iter_end;              /* 3.14: 1 where the instruction
                                       before u is a POP_ITER or an
                                       END_ASYNC_FOR (a BRANCH_RIGHT to u
                                       may name another instruction),
                                       else 0 */
    uint64_t *starts, *ends;
    int32_t *exit;  /* exit[u] - 1: the return a quiet return from a
                       segment starting at u reached; 0 if not known yet
                       (seg_exit_unit) */
    int quiet;      /* how its frames leave quietly (seg_quiet.h):
                       SEG_QUIET_RETURNS, SEG_QUIET_YIELDS (bits) */
    int drop_start; /* the tests' forced desync: its next PY_START is
                       dropped (seg_test_desync) */
} seg_code;

/* The opcodes segment counting tells apart, by number in this
 * interpreter (-1 where it has none), and eager[]: the opcodes after
 * which a frame whose Python callee returned goes on at the next
 * instruction unless it raises or calls again there (those that jump,
 * or fire an event of their own, are not in it).  Set once by
 * seg_ops_init(). */
typedef struct seg_ops {
    int cache, send, jbni, jump_backward, jump_forward, for_iter, extended_arg, resume,
        exit_init_check, not_taken, pop_iter, end_async_for, return_value, return_const,
        yield_value, raise_varargs, reraise;
    int pop_jump[4]; /* POP_JUMP_IF_FALSE, _TRUE, _NONE, _NOT_NONE */
    uint8_t eager[PC_NOPS];
    uint8_t no_stop[PC_NOPS]; /* JUMP_BACKWARD, RESUME: seg_caller_unit() */
} seg_ops;

/* Hidden, as every global the fast paths read (collector.h): addressed
 * directly, not through the GOT. */
extern seg_ops seg_op __attribute__((visibility("hidden")));
/* seg_code.quiet: the returns of every code but an async generator's are
 * quiet, and the yields of a generator without `yield from` (whose
 * yields pass a sub-iterator's values on); none if
 * PYSTATS_QUIET_RETURNS=0 (read once, by seg_ops_init). */
#define SEG_QUIET_RETURNS 1
#define SEG_QUIET_YIELDS 2
extern int seg_quiet_returns __attribute__((visibility("hidden")));
/* Whether quiet branches are chosen (seg_code.c); not if
 * PYSTATS_QUIET_BRANCHES=0 (read once, by seg_ops_init). */
extern int seg_quiet_branches __attribute__((visibility("hidden")));
/* The qualified name whose first PY_START segment counting drops as a
 * desync, for the tests (PYSTATS_TEST_DESYNC, read once by
 * seg_ops_init); NULL if none. */
extern const char *seg_test_desync __attribute__((visibility("hidden")));
/* sys.monitoring.DISABLE, owned */
extern PyObject *seg_disable __attribute__((visibility("hidden")));

/* Module init: the opcode numbers and sys.monitoring.DISABLE, from the
 * monitoring module handed down.  -1 with exception. */
int seg_ops_init(PyObject *monitoring);

/* ---- bytecode helpers ---- */

/* The next instruction after the one starting at u. */
static inline int32_t
seg_next_unit(const seg_code *sc, int32_t u)
{
    return u + sc->span[u];
}

/* The instruction a unit belongs to (a cache unit's owner). */
static inline int32_t
seg_owner_unit(const seg_code *sc, Py_ssize_t u)
{
    if (u < 0 || u >= sc->n)
        return -1;
    return sc->span[u] < 0 ? (int32_t)u + sc->span[u] : (int32_t)u;
}

static inline int32_t
seg_oparg(const seg_code *sc, int32_t u)
{
    int32_t a = sc->arg[u], k = u - 1, shift = 8;
    while (k >= 0 && sc->op[k] == seg_op.extended_arg && shift < 32) {
        a |= (int32_t)sc->arg[k] << shift;
        shift += 8;
        k--;
    }
    return a;
}

static inline int32_t
seg_jump_target(const seg_code *sc, int32_t u)
{
    int op = sc->op[u];
    int32_t nx = seg_next_unit(sc, u);
    if (op == seg_op.jbni || op == seg_op.jump_backward)
        return nx - seg_oparg(sc, u);
    return nx + seg_oparg(sc, u);
}

static inline int
seg_is_pop_jump(int op)
{
    return op == seg_op.pop_jump[0] || op == seg_op.pop_jump[1] || op == seg_op.pop_jump[2] ||
           op == seg_op.pop_jump[3];
}

static inline int
seg_is_return_op(int op)
{
    return op == seg_op.return_value || op == seg_op.return_const;
}

/* An event's offset argument (bytes) as a code unit; -1 if odd. */
static inline int32_t
seg_unit_arg(PyObject *o)
{
    return pc_offset_unit(o);
}

static inline void
seg_pair(int a, int b)
{
    if (a >= 0)
        pc_g.pair[a][b]++;
}

static inline int
seg_valid_unit(const seg_code *sc, int32_t u)
{
    return u >= 0 && u < sc->n;
}

/* ---- the table of a code object ---- */

/* A direct-mapped cache in front of co_extra: the frames of a program's
 * hot loop come from a handful of code objects.  An entry is cleared
 * when its code object dies (seg_code_release). */
#define SEG_CACHE 256
typedef struct seg_cache_entry {
    PyObject *code;
    seg_code *sc;
} seg_cache_entry;
extern seg_cache_entry seg_cache[SEG_CACHE] __attribute__((visibility("hidden")));

static inline unsigned
seg_cache_slot(PyObject *code)
{
    /* Fibonacci hashing: the top 8 bits of the address times 2**64/phi */
    _Static_assert(SEG_CACHE == 256, "seg_cache_slot() takes 8 bits");
    return (unsigned)(((uint64_t)(uintptr_t)code * UINT64_C(0x9E3779B97F4A7C15)) >> 56);
}

/* The table of code, built on a cache miss (slow path); NULL with
 * error_pending set if that fails. */
seg_code *seg_code_miss(PyObject *code, unsigned k);

/* The table of code if it has one already (a code whose cache slot k
 * another code took), put back in the cache; NULL if it has none yet.
 * Neither allocates nor raises. */
seg_code *seg_code_known(PyObject *code, unsigned k);

static inline seg_code *
seg_code_for(PyObject *code)
{
    unsigned k = seg_cache_slot(code);
    if (seg_cache[k].code == code)
        return seg_cache[k].sc;
    return seg_code_miss(code, k);
}

#define SEG_QUIET_JUMP 1 /* a quiet jump: seg_quiet_site() */
#define SEG_QUIET_LEFT 2 /* a branch that falls through silently */
#define SEG_QUIET_FORK 3 /* a branch with no event either way */

/* Where a run through the quiet branch b went on: to its target if e,
 * the instruction of the frame's next event (or where it stands), lies
 * on the run from the target, else to the next instruction.  e < 0: the
 * frame left quietly, by the side whose run ends at a return (at most
 * one does). */
static inline int32_t
seg_fork_side(const seg_code *sc, int32_t b, int32_t e)
{
    int32_t t = sc->target[b];
    if (e < 0 ? seg_is_return_op(sc->op[sc->fork[b]]) : (e >= t && e <= sc->fork[b]))
        return t;
    return seg_next_unit(sc, b);
}

/* The JUMP event of the jump at u has been counted: make u silent and
 * tell CPython to stop reporting it.  Idempotent (another tool's
 * restart_events() brings the event back). */
static inline PyObject *
seg_quiet_site(seg_code *sc, int32_t u)
{
    int32_t v;
    assert(seg_valid_unit(sc, u) && sc->quiet_ok[u] == SEG_QUIET_JUMP);
    for (v = u; v >= 0 && sc->silent[v] > u; v--)
        sc->silent[v] = u; /* only ever lowered */
    assert(sc->silent[u] == u);
    return Py_NewRef(seg_disable);
}

/* The FOR_ITER whose exit is the POP_ITER at v (3.14): the one that
 * jumps to the END_FOR right before v, and skips it; -1 if none (a
 * POP_ITER reached in straight line: a break's, a return's).  A scan of
 * the loop, for a slow path. */
int32_t seg_loop_exit(const seg_code *sc, int32_t v);

/* A code object dies: fold its counts into pc_g, free its table (no
 * stack holds it any more: pc_seg_code_free). */
void seg_code_release(pc_codeinfo *ci);

/* Every live table's starts[] and ends[] back to zero. */
void seg_code_zero_all(void);

#endif /* PC_HAVE_MONITORING */
#endif
