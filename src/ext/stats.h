/* stats.h: the cheap statistics a window collects in every mode, with
 * no per-instruction event: garbage collections (a gc.callbacks
 * function) and object allocations (allocator wrappers). */
#ifndef PC_STATS_H
#define PC_STATS_H

#include "collector.h"

int pc_stats_init(void);    /* module init; -1 with exception */
int pc_stats_install(void); /* -1 with exception */
int pc_stats_remove(void);  /* -1 with exception */
void pc_stats_clear(void);
int pc_stats_has_data(void);
void pc_stats_write(psf_out *o);
int pc_stats_snapshot(PyObject *dict); /* adds "gc", "objects"; -1 on error */
#if PC_FREE_THREADING
/* The shards' allocation counts into pc_st, zeroed (the world stopped);
 * or zeroed. */
void pc_stats_fold_shards(void);
void pc_stats_zero_shards(void);
#endif

#endif
