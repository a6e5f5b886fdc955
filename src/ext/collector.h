/* collector.h: the counters, the per-thread state and the hot path that
 * every collection backend shares.
 *
 * Invariants:
 *  - pc_g holds the counts of this process since the last dump or clear.
 *    It is a static, process-wide object rather than module state on
 *    purpose: the exit dump runs from Py_AtExit, after the interpreter
 *    and every module are gone, and from a SIGTERM handler.
 *  - Counters are only written with the GIL held (or from the single
 *    thread of a fresh fork child), so plain increments suffice.  A
 *    free-threaded build (3.14t) may run without the GIL: there each
 *    thread counts into its own shard (pc_shard, below), which only it
 *    writes, merged into pc_g by pc_fold_shards() (lifecycle.h) with the world
 *    stopped.
 *  - A thread's previous instruction (pc_t.prev) only forms a pair when
 *    pc_t.epoch == pc_g.epoch; bumping pc_g.epoch (on, clear, dump,
 *    fork) forgets every thread's previous instruction at once.
 *  - The hot path (pc_count) allocates nothing, raises nothing, locks
 *    nothing.  A failure on the slow path (first sight of a code
 *    object) sets pc_g.error_pending, reported by the next API call.
 * Asserted: the pairs' previous instruction in pc_count(), a non-zero
 * epoch in pc_forget_prev().  Not asserted: what pc_g holds (a meaning,
 * not a state), that the GIL is held (PyGILState_Check() is no test:
 * it says yes for every thread once a subinterpreter exists, and no
 * for a thread state not made through the GIL-state API), and that the
 * hot path allocates, raises and locks nothing (nothing in C sees a
 * call that did not happen; the ASan run and the callbacks' code say
 * so).
 */
#ifndef PC_COLLECTOR_H
#define PC_COLLECTOR_H

#include "compat.h"
#include "../format/psf_stats.h"
#include "../format/psf_write.h"

#include <assert.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#define PC_NOPS 256
#define PC_OPNAME_MAX 48
#define PC_META_MAX 1024

typedef enum pc_mode {
    PC_MODE_COUNT = 0,         /* exact per-instruction counts and pairs */
    PC_MODE_NOOP = 1,          /* same events, callback does nothing: the cost floor */
    PC_MODE_CENSUS = 2,        /* no per-instruction events: specialization census */
    PC_MODE_INSTRUCTIONS = 3,  /* exact, from one event per instruction
                                  (3.12+; on 3.11 COUNT is this) */
    PC_MODE_NOOP_QUIET = 5,    /* exactly the events COUNT receives (its
                                  quiet jumps turned off too), callbacks
                                  do nothing (3.12+) */
    PC_MODE_NOOP_SEGMENTS = 4, /* the segment events of COUNT (3.12+),
                                  callbacks do nothing: its cost floor */
} pc_mode;

/* The longest run id (FORMAT.md 1.1, meta.run.id). */
#define PC_RUN_ID_MAX 64

/* The header fields captured from Python while it is alive. */
typedef struct pc_meta {
    char python_version[64];
    char implementation[64];
    /* Free text, in the dump's text encoding (src/format/psf_text.h). */
    char sys_version[PC_META_MAX];
    char git[PC_META_MAX];
    char config_args[PC_META_MAX * 4];
    char label[PC_META_MAX * 4];
    char cwd[PC_META_MAX * 4];       /* the working directory at configure */
    char sys_path[PC_META_MAX * 16]; /* sys.path then, entries joined by | */
    /* The process tree's run (PYSTATS_RUN_ID), empty if none. */
    char run_id[PC_RUN_ID_MAX + 1];
    int pystats_build;
    int free_threading;
    int jit;
} pc_meta;

typedef struct pc_state {
    uint64_t exec[PC_NOPS];
    uint64_t pair[PC_NOPS][PC_NOPS];

    uint32_t epoch;
    int on;        /* an on() window is open: every thread counts */
    int measuring; /* measure() calls active, all threads */
    int installed; /* backend instrumentation is in place */
    pc_mode mode;
    uint64_t windows; /* on()/measure() starts since last dump/clear */
    int forked;       /* this process is a fork child */
    long ppid;
    struct timespec start; /* first start since last dump/clear */
    int started;           /* start is set */
    int error_pending;     /* a hot-path failure to report */
    int native;            /* drive the interpreter's own counters */
    int census_wanted;     /* a census window was open since last dump/clear */

    int resume_op; /* RESUME's number in this interpreter */
    int extended_arg_op;
    int yield_value_op;
    char opname[PC_NOPS][PC_OPNAME_MAX];
    pc_meta meta;
    char dir[PSF_PATH_MAX];             /* output directory */
    volatile int dumping;               /* a dump is being written (signal re-entry) */
    uint64_t desync;                    /* events segment counting could not place
                                           (PC_DESYNC), since the process started */
    int desync_excused;                 /* another tool moved a counted frame without
                                           an event: desyncs may follow, no bug */
    char desync_where[PC_META_MAX * 2]; /* the first desync of the dump
                               period: where, plain text (pc_desync_note) */
    /* A settle, fold or clear in progress (lifecycle.c), and a SIGTERM
     * that came during it or during a dump: honoured once the counts
     * are whole (multiprocessing terminates its workers while they may
     * be folding for their census or writing their exit dump). */
    volatile sig_atomic_t settling;
    volatile sig_atomic_t term_pending;
} pc_state;

/* Hidden: the hot paths address it directly, not through the GOT. */
extern pc_state pc_g __attribute__((visibility("hidden")));

/* A family's counters as a struct of plain uint64_t fields, one per row
 * of its list in src/format/psf_stats.h. */
#define PC_STAT_FIELD(f, key, kind, label) uint64_t f;

/* The call statistics, PSF_CALLS (hotcode.c writes them). */
typedef struct pc_calls {
    PSF_CALLS(PC_STAT_FIELD)
} pc_calls;

/* The allocation statistics, PSF_OBJECTS (stats.c). */
typedef struct pc_allocs {
    PSF_OBJECTS(PC_STAT_FIELD)
} pc_allocs;

#if PC_FREE_THREADING
/* One thread's counters on a free-threaded build (shard.c).  Invariants:
 *  - A shard is owned by at most one live thread, which alone writes it
 *    (and its arrays in the hot-code records, pc_hot.shard[index]); a
 *    thread's exit gives it back with its counts, which the next owner
 *    adds to.  Shards are never freed.
 *  - pc_fold_shards() adds every shard into pc_g, pc_calls_g, pc_st and
 *    the records' counts, and zeroes it, with the world stopped (or
 *    from the one thread left: Py_AtExit, a fork child).
 *  - When every one of PC_SHARDS shards is owned, a thread counts into
 *    the shared counters with atomic adds (pc_shard_shared, index -1).
 * Asserted in shard.c where a shard is claimed and given back; the
 * fold is lifecycle.c's (the world stopped: not a state a C check
 * there can read).
 */
#define PC_SHARDS 64
typedef struct pc_shard {
    uint64_t exec[PC_NOPS];
    uint64_t pair[PC_NOPS][PC_NOPS];
    pc_calls calls;
    pc_allocs allocs;
    int index; /* 0..PC_SHARDS-1; -1: the shared counters */
    int owned; /* a live thread owns it (atomic) */
} pc_shard;
#endif

/* Per thread.  initial-exec TLS keeps the access to one instruction; the
 * few bytes come from the static TLS surplus glibc reserves for
 * dlopen()ed modules. */
typedef struct pc_thread {
    uint32_t epoch;
    int prev;
    int measure_depth; /* measure() calls active on this thread */
#if PC_FREE_THREADING
    pc_shard *shard; /* its counters; NULL until its first count */
    int locked;      /* pc_lock() depth in this thread */
#endif
} pc_thread;

extern __thread pc_thread pc_t __attribute__((tls_model("initial-exec")));

/* Does this thread count right now? */
static inline int
pc_counting(void)
{
    return pc_g.on | pc_t.measure_depth;
}

#include "shard.h"


/* The hot path: one executed instruction. */
static inline void
pc_count(int op)
{
    pc_thread *t = &pc_t;
#if PC_FREE_THREADING
    uint32_t epoch = __atomic_load_n(&pc_g.epoch, __ATOMIC_RELAXED);
    pc_shard *s = pc_shard_mine();
    assert(op >= 0 && op < PC_NOPS);
    if (s->index >= 0) {
        s->exec[op]++;
        if (t->epoch == epoch)
            s->pair[t->prev][op]++;
        else
            t->epoch = epoch;
    }
    else {
        PC_ATOMIC_ADD(pc_g.exec[op], 1);
        if (t->epoch == epoch)
            PC_ATOMIC_ADD(pc_g.pair[t->prev][op], 1);
        else
            t->epoch = epoch;
    }
#else
    assert(op >= 0 && op < PC_NOPS);
    assert(t->epoch != pc_g.epoch || (t->prev >= 0 && t->prev < PC_NOPS));
    pc_g.exec[op]++;
    if (t->epoch == pc_g.epoch)
        pc_g.pair[t->prev][op]++;
    else
        t->epoch = pc_g.epoch;
#endif
    t->prev = op;
}

/* Should per-instruction events be installed?  Census mode observes
 * specialization and must not disturb it: no events. */
static inline int
pc_wants_events(void)
{
    return (pc_g.on || pc_g.measuring) && pc_g.mode != PC_MODE_CENSUS;
}

const char *pc_mode_name(pc_mode mode);

/* Slow-path API used by the layers above. */
int pc_collector_init(PyObject *opnames); /* -1 with exception */
void pc_counts_zero(void);                /* exec and pair counts */
int pc_counts_any(void);                  /* an instruction was counted */
void pc_note_start(void);                 /* a window or measure begins */
void pc_forget_prev(void);

/* An event segment counting cannot place (its shadow stack does not fit
 * the event, a walk leaves the code): a bug, unless another tool moved a
 * frame without an event before (pc_g.desync_excused, set by the guard:
 * a trace function setting frame.f_lineno).  A release build counts it
 * (pc_g.desync, written as meta.collection.desync, so that the counts
 * are reported inexact); a debug build (make DEBUG=1) stops at a bug. */
#define PC_DESYNC()                                                          \
    (assert(pc_g.desync_excused || !"segment counting: event does not fit"), \
     pc_desync_note(__FILE__, __func__, __LINE__))

/* Count a desync; the first of a dump period (desync_where empty) also
 * records where: the collector's site (file, function, line), then what
 * pc_desync_describe adds (segment counting's hook: the thread's shadow
 * stack and its real frames).  Cold; no allocation, no exception. */
void pc_desync_note(const char *file, const char *func, int line);
extern void (*pc_desync_describe)(char *buf, size_t cap);

#endif
