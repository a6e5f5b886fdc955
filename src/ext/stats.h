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
 * program's: the callbacks count them all (pc_stats_event_int(), or
 * pc_stats_event_units() where the offsets are read already; no test of
 * the window), stats.c takes the part made while its wrappers
 * counted out of the figures (PC_EVENT_INTS_ALLOCATED, compat.h).  3.14
 * takes such ints from its freelist, 3.11's trace function gets none. */
extern uint64_t pc_event_ints __attribute__((visibility("hidden")));

static inline void
pc_stats_event_int(PyObject *o)
{
#if PC_EVENT_INTS_ALLOCATED
    pc_event_ints += pc_event_int_made(o);
#else
    (void)o;
#endif
}

/* The same for an event's arguments as a callback receives them (n of
 * them): args[1], the offset, and if ints is 2 args[2], a jump's
 * destination; none if ints is 0 (a callback that counts them itself,
 * pc_stats_event_units()). */
static inline void
pc_stats_event_args(PyObject *const *args, Py_ssize_t n, int ints)
{
    if (ints > 0 && n > 1)
        pc_stats_event_int(args[1]);
    if (ints > 1 && n > 2)
        pc_stats_event_int(args[2]);
}

/* The same, by a callback that has read its offsets as code units u and
 * v (0 if it has one): one past unit 128 (byte 256) was made.  One test
 * when neither is. */
static inline void
pc_stats_event_units(int32_t u, int32_t v)
{
#if PC_EVENT_INTS_ALLOCATED
    if (__builtin_expect((u | v) > 128, 0))
        pc_event_ints += (uint64_t)(u > 128) + (uint64_t)(v > 128);
#else
    (void)u;
    (void)v;
#endif
}
#if PC_FREE_THREADING
/* The shards' allocation counts into pc_st, zeroed (the world stopped);
 * or zeroed. */
void pc_stats_fold_shards(void);
void pc_stats_zero_shards(void);
#endif

#endif
