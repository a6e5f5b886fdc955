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

/* Forget everything counted since the last dump or clear, in every
 * source; a clear while counting starts a new dump period now. */
void pc_clear(void);
/* In mode count, once: an atexit handler that makes the last cut of
 * every thread (pc_seg_exit_cut) while their frames can still be read.
 * -1 with exception. */
int pc_exit_cut_register(void);
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
