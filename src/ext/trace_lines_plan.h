/* trace_lines_plan.h: 3.11's line counting, what a code object's frames
 * need: whether its line events alone tell which instructions ran, and
 * its per unit tables (trace_lines_plan.c), built once per code object.
 *
 * Invariants of an eligible plan (n units, the first RESUME at fr):
 *  - every instruction unit u after fr is in a line range:
 *    start[u] <= u <= end[u] < n, and so are start[u] and end[u];
 *  - next[u] > u and next[u] <= n for every unit;
 *  - jt[u] is -1 or an instruction unit after fr.
 * Asserted when a plan is built (plan_whole(), trace_lines_plan.c).
 */
#ifndef PC_TRACE_LINES_PLAN_H
#define PC_TRACE_LINES_PLAN_H

#include "codeinfo.h"

#if !PC_HAVE_MONITORING

/* What a code object's frames need, per code unit. */
typedef struct lt_plan {
    int eligible;
    Py_ssize_t n;
    int32_t *end;   /* last instruction of u's line range */
    int32_t *start; /* first instruction of u's line range */
    int32_t *jt;    /* u's jump target, or -1 */
    int32_t *next;  /* the instruction after u (n at the end) */
    int32_t *nj;    /* the first jump from u on in its range, or its end */
    uint8_t *fl;    /* LT_* */
} lt_plan;

/* u's jump goes on without an event (to a range with no line, or on
 * its own line further on), or so does its fallthrough (u ends its
 * range; the next has no line); u never falls through. */
#define LT_JSIL 1
#define LT_FSIL 2
#define LT_NOFALL 4
/* u's range is counted from opcode events: its frame turns them on at
 * the line event entering it, off at the one leaving it. */
#define LT_OPS 8

/* The CACHE opcode (known once some plan was built). */
extern int pc_lines_cache_op;

/* code's plan, built on first sight (ci: its per code table); an
 * ineligible one (eligible 0) if its frames need opcode events or the
 * plan could not be built.  Never NULL, never raises. */
const lt_plan *pc_lines_plan(PyCodeObject *code, const pc_codeinfo *ci);

#endif
#endif
