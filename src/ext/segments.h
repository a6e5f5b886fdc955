/* segments.h: exact counts from segment events (3.12+): see segments.c.
 *
 * On 3.11 (no sys.monitoring) every function here is a no-op, so callers
 * need no version test.
 */
#ifndef PC_SEGMENTS_H
#define PC_SEGMENTS_H

#include "codeinfo.h"

#if PC_HAVE_MONITORING

/* A callback as sys.monitoring calls it: vc, its callable's vectorcall,
 * straight (no trampoline on the hot path), which counts the ints CPython
 * made for its event itself (stats.h); or, if vc is NULL, def through a
 * trampoline that counts them. */
typedef struct pc_seg_callback {
    const char *event; /* sys.monitoring.events attribute */
    PyMethodDef *def;
    vectorcallfunc vc;
} pc_seg_callback;

/* Defines vc, a vectorcall that sys.monitoring calls straight
 * (pc_seg_callback.vc): it counts the first ints of the event's
 * arguments, those CPython made (pc_stats_event_args(), stats.h, which
 * the using file includes; 0 for an fn that counts them itself), and
 * calls fn, a METH_FASTCALL function. */
#define PC_SEG_VECTORCALL(vc, fn, ints)                                                          \
    static PyObject *vc(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) \
    {                                                                                            \
        Py_ssize_t n_ = PyVectorcall_NARGS(nargsf);                                              \
        (void)kwnames;                                                                           \
        pc_stats_event_args(args, n_, ints);                                                     \
        return fn(self, args, n_);                                                               \
    }

/* The events and callbacks of segment counting.  noop 1: the same
 * events with callbacks that do nothing (the floor of the events); noop
 * 2: ... that also turn off the jumps counting turns off, so that they
 * receive exactly the events counting does. */
const pc_seg_callback *pc_seg_callbacks(int noop, size_t *n);

/* Is segment counting the mechanism of the current mode? */
static inline int
pc_seg_mode(void)
{
    return pc_g.mode == PC_MODE_COUNT;
}

/* Module init, handed the sys.monitoring module (for its DISABLE);
 * -1 with exception. */
int pc_seg_init(PyObject *monitoring);
/* on(): every thread's running frames become the shadow stacks, each
 * resuming after its current instruction.  -1 with exception. */
int pc_seg_window_start(void);
/* pc_g.on has changed: the callbacks' test of it follows (seg_on_gen). */
void pc_seg_on_changed(void);
/* Outermost measure() on this thread: fn starts on an empty stack. */
void pc_seg_measure_start(void);
void pc_seg_measure_set(int depth); /* this thread's measure depth */
/* Close every counting thread's open segment at its current instruction
 * (it resumes after it), so that the per-code arrays hold everything
 * executed so far.  With the GIL, interpreter alive. */
void pc_seg_cut(void);
/* The last cut of the process (the collector's atexit handler, after the
 * program's own handlers and threading's shutdown): pc_seg_cut(), then
 * every other thread (a daemon thread) stops counting where it stands,
 * its frames settled as they are.  With the GIL. */
void pc_seg_exit_cut(void);
/* What no cut closed, for a dump that cannot cut (a signal handler's):
 * every counting thread's frames whose segment may be open or running
 * unseen (all but those thrown into), each holding at most its code's
 * length in units of uncounted instructions (an event-free path never
 * comes round a loop: every loop meets an event, seg_code.c).  *units:
 * their sum; *frames, *threads: how many.  Plain C, no lock (a signal
 * handler): read as it stands. */
void pc_seg_uncut(uint64_t *units, uint64_t *frames, uint64_t *threads);
/* The report of the dump period's first desync: the code objects its
 * shadow stack and real frames ran, disassembled (FORMAT.md: the desync
 * report); "" if none.  Static text: a signal's dump may write it.
 * _clear forgets it (a new dump period). */
const char *pc_seg_desync_report(void);
void pc_seg_desync_report_clear(void);
/* Move the per-code counts into pc_g.exec/pair.  Plain C over C data:
 * safe from Py_AtExit and a signal handler. */
void pc_seg_fold(void);
/* Forget the per-code counts and every thread's previous instruction. */
void pc_seg_zero(void);
/* In a fork child: only this thread survives; its counts start now. */
void pc_seg_after_fork(void);
/* A code object dies: fold its counts, free its arrays. */
void pc_seg_code_free(pc_codeinfo *ci);
/* Py_AtExit, no Python code left to run: the frames of this thread and of
 * ended threads have all returned (quiet returns, seg_quiet.h).  Plain C
 * over C data. */
void pc_seg_exit(void);

#else

static inline int
pc_seg_mode(void)
{
    return 0;
}
static inline int
pc_seg_window_start(void)
{
    return 0;
}
static inline void
pc_seg_on_changed(void)
{
}
static inline void
pc_seg_measure_start(void)
{
}
static inline void
pc_seg_measure_set(int depth)
{
    (void)depth;
}
static inline void
pc_seg_cut(void)
{
}
static inline void
pc_seg_exit(void)
{
}
static inline void
pc_seg_exit_cut(void)
{
}
static inline void
pc_seg_uncut(uint64_t *units, uint64_t *frames, uint64_t *threads)
{
    *units = *frames = *threads = 0;
}
static inline const char *
pc_seg_desync_report(void)
{
    return "";
}
static inline void
pc_seg_desync_report_clear(void)
{
}
static inline void
pc_seg_fold(void)
{
}
static inline void
pc_seg_zero(void)
{
}
static inline void
pc_seg_after_fork(void)
{
}
static inline void
pc_seg_code_free(pc_codeinfo *ci)
{
    (void)ci;
}

#endif
#endif
