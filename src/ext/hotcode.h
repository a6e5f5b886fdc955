/* hotcode.h: per code object statistics (instructions, calls, opcodes,
 * source lines) and process-wide call statistics, in the exact modes
 * (count, instructions).
 *
 * Invariants:
 *  - A pc_hot record is allocated with its code object's pc_codeinfo
 *    (first sight, slow path) and captures, as C data, the code's key
 *    "FILE:LINE:QUALNAME", the base opcode of every code unit and the
 *    code's line table (co_lines()), so that dumps (Py_AtExit, SIGTERM)
 *    read only C data.
 *  - counts[u] counts the executions of the instruction starting at code
 *    unit u (CACHE and other non-starting units stay 0).  The hot paths
 *    only increment counts[] and calls; per opcode and per line sums are
 *    derived from counts[], op[] and lines[] at dump and snapshot time.
 *  - lines[] cover units 0..n-1 in order, without gaps: lines[0].start
 *    is 0, starts increase, and lines[r] covers units lines[r].start up
 *    to lines[r + 1].start (n for the last); line is PC_NO_LINE where
 *    co_lines() gives None (or gives no range).
 *  - Every record is in the process-wide table until the next clear,
 *    also after its code object died (then it is no longer live); dead
 *    records with nothing counted are freed at once.
 *  - site_key is key, or key:MODULE:FUNCQUAL (each encoded) for code
 *    compiled from a string (co_filename "<...>", not "<frozen ...>"),
 *    MODULE and FUNCQUAL the __module__ and __qualname__ of the function
 *    of the frame that ran it at first sight (3.12+).
 *  - The table and the dump's scratch space grow on the slow path only:
 *    the dump allocates nothing.
 * Asserted in hotcode.c: the line table and the site key when a record
 * is made, a record's place in the table when its code dies.  Not
 * asserted: that the hot paths only increment and that the dump
 * allocates nothing (no C check sees an allocation or a write that did
 * not happen), nor that a cache unit's count stays 0 (the per unit
 * counts are written inline by the backends and segment counting,
 * which do not know a unit is a cache; the reference collector's tests
 * compare every count).
 */
#ifndef PC_HOTCODE_H
#define PC_HOTCODE_H

#include "collector.h"

#define PC_HOT_CAP 2000  /* code objects a dump writes, by instructions */
#define PC_HOT_TOP_OPS 5 /* opcodes written per code object */
/* Line entries (code[K].line[..]) a dump writes at most, over all its
 * code objects (docs/FORMAT.md 1.18). */
#define PC_LINES_CAP 100000
#define PC_NO_LINE (-1) /* co_lines() gave None */

/* Units lines[r].start up to the next range's start are on line. */
typedef struct pc_line_range {
    int32_t start, line;
} pc_line_range;

typedef struct pc_hot {
    uint64_t calls;             /* starts (PY_START / 'call' at the first
                                 * RESUME) */
    uint64_t total;             /* scratch: instructions, at dump time */
    uint64_t *counts;           /* per code unit */
    const uint8_t *op;          /* per code unit: its base opcode */
    const pc_line_range *lines; /* the line table, nlines ranges */
    char *key;                  /* FILE:LINE:QUALNAME, FILE and QUALNAME
                                 * in the dump's text encoding
                                 * (psf_text.h) */
    char *site_key;             /* the key of its site rows (1.18):
                                 * key, or for generated code (FILE
                                 * <...>) whose function was seen,
                                 * key:MODULE:FUNCQUAL, one record per
                                 * function where keys collide */
    size_t idx;                 /* its place in the table */
    int32_t n, nlines;
    int live; /* its code object is alive */
#if PC_FREE_THREADING
    /* Per shard (collector.h): its owner's counts per unit, then its
     * calls at [n]; allocated by the owner at its first count here. */
    uint64_t *shard[PC_SHARDS];
#endif
} pc_hot;


/* Slow path: the record of code, whose n units have the base opcodes
 * op[]; NULL on failure (no exception set, none pending). */
pc_hot *pc_hot_new(PyObject *code, const uint8_t *op, Py_ssize_t n);
/* The code object died (ci's counts are folded in already). */
void pc_hot_code_dead(pc_hot *h);
/* Zero every record and the call counters; free the dead records. */
void pc_hot_clear(void);
int pc_hot_has_data(void);
void pc_hot_write(psf_out *o);
int pc_hot_snapshot(PyObject *dict); /* adds "code", "calls"; -1 on error */

extern pc_calls pc_calls_g __attribute__((visibility("hidden")));

/* A call statistic of this thread (its shard's on a free-threaded
 * build). */
#if PC_FREE_THREADING
#define PC_CALLS_ADD(field) PC_SHARD_ADD(pc_shard_mine(), calls, pc_calls_g, field)
#else
#define PC_CALLS_ADD(field) ((void)pc_calls_g.field++)
#endif

#if PC_FREE_THREADING
/* The per unit counts of this thread's shard for h, allocated on first
 * use (slow path); NULL: count into h->counts with atomic adds. */
uint64_t *pc_hot_shard_slow(pc_hot *h);
/* Every record's shard arrays and the shards' call statistics into the
 * totals, zeroed (the world stopped); or zeroed. */
void pc_hot_fold_all(void);
void pc_hot_zero_shards(void);

static inline uint64_t *
pc_hot_mine(pc_hot *h)
{
    pc_shard *s = pc_t.shard;
    if (s != NULL && s->index >= 0 && h->shard[s->index] != NULL)
        return h->shard[s->index];
    return pc_hot_shard_slow(h);
}
#endif

/* Some instruction of h's code was counted since the last clear: a
 * record alone does not say so (segment counting makes one for every
 * frame it reads, the callers of measure() or on() among them, which may
 * run nothing while counting).  Reads counts[]: segment counts are there
 * once folded (pc_seg_fold, or at the code's death), a free-threaded
 * build's shard counts once gathered. */
static inline int
pc_hot_ran(const pc_hot *h)
{
    int32_t u;
    for (u = 0; h != NULL && u < h->n; u++)
        if (h->counts[u])
            return 1;
    return 0;
}

/* One executed instruction, the one starting at code unit u. */
static inline void
pc_hot_count(pc_hot *h, Py_ssize_t u)
{
    assert(u >= 0 && u < h->n);
#if PC_FREE_THREADING
    {
        uint64_t *c = pc_hot_mine(h);
        if (c != NULL)
            c[u]++;
        else
            PC_ATOMIC_ADD(h->counts[u], 1);
    }
#else
    h->counts[u]++;
#endif
}

/* One start of h's code (mode instructions, 3.11's trace function). */
static inline void
pc_hot_count_call(pc_hot *h)
{
#if PC_FREE_THREADING
    uint64_t *c = pc_hot_mine(h);
    if (c != NULL)
        c[h->n]++;
    else
        PC_ATOMIC_ADD(h->calls, 1);
#else
    h->calls++;
#endif
}

#endif
