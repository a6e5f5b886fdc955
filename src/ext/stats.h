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

/* 3.12 and 3.13 hand a sys.monitoring callback its offsets (a jump's
 * destination, a line's number) as ints made for the event: beyond the
 * cached small ints (-5..256) each is one PyObject_Malloc of a
 * PyLongObject, freed right after the event.  No allocation of the
 * program's: the callbacks count them (pc_stats_event_ints()) while the
 * allocation wrappers count, and the figures leave them out
 * (PC_EVENT_INTS_ALLOCATED, compat.h).  3.14 takes such ints from its
 * freelist, 3.11's trace function gets none. */
extern int pc_allocs_counting __attribute__((visibility("hidden")));
extern uint64_t pc_event_ints __attribute__((visibility("hidden")));

/* The ints among args[1..ints] that the event's delivery allocated. */
static inline void
pc_stats_event_ints(PyObject *const *args, Py_ssize_t nargs, int ints)
{
#if PC_EVENT_INTS_ALLOCATED
    Py_ssize_t k;
    if (!pc_allocs_counting)
        return;
    for (k = 1; k <= ints && k < nargs; k++)
        pc_event_ints += pc_event_int_made(args[k]);
#else
    (void)args;
    (void)nargs;
    (void)ints;
#endif
}
#if PC_FREE_THREADING
/* The shards' allocation counts into pc_st, zeroed (the world stopped);
 * or zeroed. */
void pc_stats_fold_shards(void);
void pc_stats_zero_shards(void);
#endif

#endif
