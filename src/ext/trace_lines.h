/* trace_lines.h: 3.11's mode count from line events (trace.c), for code
 * whose line events alone tell which instructions ran.
 *
 * A frame of such code runs with f_trace_opcodes off: between two of its
 * events it runs straight in code order, and each event closes the run
 * since the frame's previous one, counting its instructions in order (so
 * that the pairs are the thread's real order).  Any other frame keeps
 * opcode events.  The rules, and what 3.11's interpreter guarantees, are
 * in trace_lines_plan.c and docs/FORMAT.md 1.6.
 *
 * Invariants:
 *  - A line-counted frame is on its thread's stack from its 'call' event
 *    to its 'return' event (a strong reference to its frame object): the
 *    top entry is the only one with instructions not yet counted; a
 *    'call' whose caller is the top closes the caller's run first.
 *  - Everything runs with the GIL; another thread's stack is only read
 *    or changed while that thread waits for the GIL.
 * Asserted in trace_lines.c: the caller's run closed when a callee is
 * pushed, a frame gone from the top when it returns.  Not asserted:
 * the GIL (PyGILState_Check() is no test, see collector.h), and that
 * the 'return' event comes (the interpreter's promise; a trace
 * function replaced meanwhile releases the stack, pc_lines_release).
 */
#ifndef PC_TRACE_LINES_H
#define PC_TRACE_LINES_H

#include "codeinfo.h"

#if !PC_HAVE_MONITORING

/* On unless PYSTATS_TRACE_LINES=0 (opcode events for every frame). */
extern int pc_lines_flag; /* -1 until read */
int pc_lines_read_flag(void);
static inline int
pc_lines_wanted(void)
{
    return pc_lines_flag >= 0 ? pc_lines_flag : pc_lines_read_flag();
}

/* A 'call' event, before its own counts: closes the caller's run if the
 * caller is line-counted. */
void pc_lines_call_caller(PyFrameObject *frame);
/* After them: 1 if frame (at lasti, of code) is now line-counted (the
 * trace function leaves its opcode events off), 2 if line-counted but
 * starting in a line counted from opcode events (turned on), 0 if not a
 * line-counted frame (opcode events). */
int pc_lines_start(PyFrameObject *frame, PyCodeObject *code, pc_codeinfo *ci, int lasti);
/* 'line', 'return' and 'exception' events. */
void pc_lines_line(PyFrameObject *frame);
void pc_lines_return(PyFrameObject *frame);
void pc_lines_exception(PyFrameObject *frame);

/* trace.c, once: where a frame keeps f_trace_opcodes, and the trace
 * function whose threads count. */
void pc_lines_setup(Py_ssize_t opcodes_offset, Py_tracefunc ours);

/* Count every thread's pending run up to the instruction it is at now
 * (a thread traced by ours), before the instrumentation or the counting
 * state changes or the counts are read (trace.c: pc_backend_sync, a
 * dump, pc_backend_cut for snapshot()). */
void pc_lines_cut_all(void);
/* The counts were cleared (or this is a fork child): forget what every
 * thread (only this one: here_only) ran so far. */
void pc_lines_drop_all(int here_only);
/* ts stops or starts being traced by ours: its stack is forgotten. */
void pc_lines_release(PyThreadState *ts);
/* This thread is being displaced: count its pending run, forget it. */
void pc_lines_cut_here(void);

#endif
#endif
