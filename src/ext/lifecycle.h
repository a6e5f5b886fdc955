/* lifecycle.h: the module layer's operations that touch every source of
 * statistics (the counters, per code tables, segment counting, the
 * census, the cheap statistics, per code statistics, the guard). */
#ifndef PC_LIFECYCLE_H
#define PC_LIFECYCLE_H

#include "collector.h"

/* Module init of the counting sources: the co_extra slot, the opcode
 * names, segment counting (handed the sys.monitoring module on 3.12+).
 * -1 with exception. */
int pc_lifecycle_init(PyObject *opnames);

/* Where a settle runs, which says what it may read. */
typedef enum pc_settle_at {
    /* An API call, os._exit: with the GIL and the API lock, the
     * interpreter alive, every thread's frames readable. */
    PC_SETTLE_API,
    /* Py_AtExit: no Python code left to run, the other thread states
     * deleted (their last cut was the atexit handler's). */
    PC_SETTLE_EXIT,
    /* A signal handler: plain C over C data. */
    PC_SETTLE_SIGNAL,
} pc_settle_at;

/* The one settle operation of every path that reads, clears or closes
 * the counts (off, dump, snapshot, clear, the census's fold, exit,
 * os._exit, SIGTERM): every counting thread cut where it stands (3.11:
 * the line-counted frames' pending runs; 3.12+: the open segments, the
 * threads that ended settled), then the per code segment counts and the
 * threads' shards folded into pc_g.  At PC_SETTLE_API the other threads
 * stay stopped (free-threaded builds) until pc_settle_end(): the caller
 * reads, writes, clears or closes in between.  At exit, only the frames
 * of this thread and of threads that ended are settled (pc_seg_exit); a
 * signal's settle reads frames only if its thread holds the GIL. */
void pc_settle(pc_settle_at at);
void pc_settle_end(pc_settle_at at);
/* The leftover of the last settle that could not cut (a signal's: the
 * segments no cut closed, segments.h's pc_seg_uncut): written into the
 * dump as a bound (FORMAT.md 1.1), nothing if there is none.  Plain C. */
void pc_leftover_write(psf_out *o);

/* pc_g.on's only writer: the callbacks' test of it follows
 * (pc_seg_on_changed()). */
void pc_set_on(int on);
/* Open a window of mode (on()): every thread starts counting at one
 * moment, from the instruction after this call; census: mode count's
 * census alongside.  -1 with exception (nothing left open). */
int pc_window_open(pc_mode mode, int census);
/* Close the window (off()): settled, then no thread counts.  -1 with
 * exception (the events could not be removed). */
int pc_window_close(void);
/* measure() on this thread: its counting opens (depth one more) and
 * closes (one less); mode: the mode when nothing else counts.  Open
 * returns -1 with exception, nothing left open; close says a failure
 * as unraisable. */
int pc_measure_open(pc_mode mode);
void pc_measure_close(void);

/* Forget everything counted since the last dump or clear, in every
 * source; a clear while counting starts a new dump period now.  Between
 * pc_settle(PC_SETTLE_API) and pc_settle_end(). */
void pc_clear(void);
/* Has any source something to write? */
int pc_has_data(void);
/* Free-threaded builds: every thread's shard (collector.h) into the
 * totals, zeroed (pc_fold_shards: at exit, or with the world stopped);
 * every shard zeroed (pc_zero_shards).  pc_gather_shards stops the
 * world for the fold (a thread with its thread state).  No-ops
 * elsewhere. */
#if PC_FREE_THREADING
void pc_fold_shards(void);
void pc_zero_shards(void);
void pc_gather_shards(void);
#else
#define pc_fold_shards() ((void)0)
#define pc_zero_shards() ((void)0)
#define pc_gather_shards() ((void)0)
#endif

/* pthread_atfork's child handler: the parent's counts are the parent's;
 * this process starts from zero and writes its own file. */
void pc_after_fork(void);

#endif
