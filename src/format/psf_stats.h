/* psf_stats.h: the statistics families of the collector's dumps, each
 * statistic defined once.
 *
 * A family is an X-macro list, one row per statistic, in the order the
 * dump writes them, snapshot() returns them and the reports list them:
 *
 *     X(field, key, kind, label)
 *
 *  - field: the counter's C field in the collector's struct of the
 *    family (collector.h's pc_calls and pc_allocs, rare.h's pc_rare,
 *    stats.c's pc_gc_gen), and its name in snapshot();
 *  - key: the dump key after the family's prefix (PSF_<FAMILY>_PREFIX;
 *    the GC family's keys are PREFIX G SEP NAME, its rows say which);
 *  - kind: PSF_STAT_EVENTS, _NS, _LEVEL or _BYTES, below;
 *  - label: what the report shows for it (the row of its family's
 *    table, the GC table's column).
 *
 * The collector's structs, its writers and snapshot(), the command's
 * order of each family and the tests' vocabulary (tests/py/statsdef.py
 * reads this file) are made from these lists: a statistic's key is
 * spelled nowhere else in src/ (tests/py/test_vocabulary.py).  A new
 * counter of a family is one row here, its increment where the event is
 * seen, and its line in docs/FORMAT.md.
 *
 * The census's figures of a family (census.family[F].KEY,
 * PSF_CENSUS_FAMILY) are a list of the same kind, X(field, key, label,
 * den): census_read.h's pc_census, census.c's writer and
 * _census_totals(), and the command's key grammar, model, census table,
 * JSON summary and comparison are made from it.
 *
 * CPython's own families (its calls, objects, optimizer and JIT memory
 * counters, PSF_NATIVE_*) are lists of keys and of the labels CPython's
 * summarize_stats.py prints for them, for the report and the key
 * grammar: X(id, key, label, table, den), the calls' and objects' table
 * and den naming sums of rows (PSF_NATIVE_SUMS).  The collector counts
 * none of them but the allocations and frees PSF_OBJECTS spells alike.
 */
#ifndef PSF_STATS_H
#define PSF_STATS_H

#include "psf_keys.h"

#include <stddef.h>

/* Kinds. */
#define PSF_STAT_EVENTS 0 /* events of the dump period: zeroed by a clear, summed across dumps */
#define PSF_STAT_NS 1     /* nanoseconds spent in the period's events, summed */
#define PSF_STAT_LEVEL 2  /* a state at dump time (what is watched): kept by a clear */
#define PSF_STAT_BYTES 3  /* bytes of the period's events, summed */

/* ---- calls.KEY (FORMAT.md 1.15): frame events; written when non-zero ---- */
#define PSF_CALLS_PREFIX PSF_KEY_CALLS
#define PSF_CALLS(X)                                                    \
    X(python_starts, "python_starts", PSF_STAT_EVENTS, "python_starts") \
    X(resumptions, "resumptions", PSF_STAT_EVENTS, "resumptions")       \
    X(throws, "throws", PSF_STAT_EVENTS, "throws")                      \
    X(returns, "returns", PSF_STAT_EVENTS, "returns")                   \
    X(yields, "yields", PSF_STAT_EVENTS, "yields")                      \
    X(unwinds, "unwinds", PSF_STAT_EVENTS, "unwinds")                   \
    X(raises, "raises", PSF_STAT_EVENTS, "raises")                      \
    X(handled, "handled", PSF_STAT_EVENTS, "handled")

/* ---- objects (1.11): allocations, CPython's spellings but one ---- */
#define PSF_OBJECTS_PREFIX ""
/* CPython's spellings, also rows of PSF_NATIVE_OBJECTS. */
#define PSF_OBJ_KEY_ALLOCATIONS "Object allocations"
#define PSF_OBJ_KEY_512 "Object allocations to 512 bytes"
#define PSF_OBJ_KEY_4K "Object allocations to 4 kbytes"
#define PSF_OBJ_KEY_BIG "Object allocations over 4 kbytes"
#define PSF_OBJ_KEY_FREES "Object frees"
#define PSF_OBJECTS(X)                                                                \
    X(allocations, PSF_OBJ_KEY_ALLOCATIONS, PSF_STAT_EVENTS, "Allocations")           \
    X(allocations512, PSF_OBJ_KEY_512, PSF_STAT_EVENTS, "Allocations to 512 bytes")   \
    X(allocations4k, PSF_OBJ_KEY_4K, PSF_STAT_EVENTS, "Allocations to 4 kbytes")      \
    X(allocations_big, PSF_OBJ_KEY_BIG, PSF_STAT_EVENTS, "Allocations over 4 kbytes") \
    X(frees, PSF_OBJ_KEY_FREES, PSF_STAT_EVENTS, "Frees")                             \
    X(reallocs, PSF_KEY_OBJECTS "reallocs", PSF_STAT_EVENTS, "Objects.reallocs")      \
    X(allocated_bytes, PSF_KEY_OBJECTS "allocated_bytes", PSF_STAT_BYTES, "Allocated bytes")

/* ---- GC (1.11): per generation G, keys PREFIX G SEP KEY ---- */
#define PSF_GC_GENERATIONS 3
#define PSF_GC_SEP_NATIVE "] " /* CPython's GC[G] FIELD */
#define PSF_GC_SEP_OWN "]."    /* the collector's gc[G].FIELD */
/* X(field, prefix, sep, key, kind): the label is the key (the column
 * of the report's GC table, the field of the JSON summary's gc[G]). */
#define PSF_GC(X)                                                                            \
    X(collections, PSF_KEY_NATIVE_GC, PSF_GC_SEP_NATIVE, "collections", PSF_STAT_EVENTS)     \
    X(collected, PSF_KEY_NATIVE_GC, PSF_GC_SEP_NATIVE, "objects collected", PSF_STAT_EVENTS) \
    X(uncollectable, PSF_KEY_GC, PSF_GC_SEP_OWN, "uncollectable", PSF_STAT_EVENTS)           \
    X(time_ns, PSF_KEY_GC, PSF_GC_SEP_OWN, "time_ns", PSF_STAT_NS)

/* ---- rare.KEY (1.12): what the watchers saw (3.12+) ---- */
#define PSF_RARE_PREFIX PSF_KEY_RARE
#define PSF_RARE(X)                                                                             \
    X(func_modification, "func_modification", PSF_STAT_EVENTS, "func_modification")             \
    X(builtins_modification, "builtins_modification", PSF_STAT_EVENTS, "builtins_modification") \
    X(globals_modification, "globals_modification", PSF_STAT_EVENTS, "globals_modification")    \
    X(type_modification, "type_modification", PSF_STAT_EVENTS, "type_modification")             \
    X(watched_dicts, "watched_dicts", PSF_STAT_LEVEL, "watched_dicts")                          \
    X(watched_types, "watched_types", PSF_STAT_LEVEL, "watched_types")

/* ---- census.family[F].KEY (1.10): a family's sites by state ----
 * X(field, key, label, den): field the census's per family array
 * (census_read.h's pc_census) and its name in _census_totals()'s
 * families; den the row whose count is its share's denominator (none:
 * a count).  Sites read; in a specialized form; backing off after
 * failed attempts; the consecutive failed attempts their counters
 * imply; never tried (warming up, no attempt yet).  The dump writes a
 * family's specialized forms, specialized[FORM], after its specialized
 * row. */
#define PSF_CENSUS_FAMILY_PREFIX PSF_KEY_CENSUS_FAMILY
#define PSF_CENSUS_FAMILY_SEP PSF_KEY_FIELD
#define PSF_CENSUS_FAMILY(X)                                       \
    X(sites, "sites", "Sites", none)                               \
    X(specialized, "specialized", "Specialized", sites)            \
    X(backing_off, "backing_off", "Backing off", sites)            \
    X(failed_attempts, "failed_attempts", "Failed attempts", none) \
    X(never_tried, "never_tried", "Never tried", sites)

/* ---- CPython's optimizer counters (native dumps, 3.13+) ----
 * X(id, key, label, table, den): table 0 is summarize_stats.py's
 * "optimization" table, 1 its "optimizer" table; label as its 3.13-3.16
 * versions print it; den the row whose count is the ratio's
 * denominator (none: no ratio).  The collector counts none of them. */
#define PSF_NATIVE_OPT(X)                                                                          \
    X(attempts, "Optimization attempts", "Optimization attempts", 0, none)                         \
    X(traces_created, "Optimization traces created", "Traces created", 0, attempts)                \
    X(stack_overflow, "Optimization trace stack overflow", "Trace stack overflow", 0, attempts)    \
    X(stack_underflow, "Optimization trace stack underflow", "Trace stack underflow", 0, attempts) \
    X(too_long, "Optimization trace too long", "Trace too long", 0, attempts)                      \
    X(too_short, "Optimization trace too short", "Trace too short", 0, attempts)                   \
    X(inner_loop, "Optimization inner loop", "Inner loop found", 0, attempts)                      \
    X(recursive_call, "Optimization recursive call", "Recursive call", 0, attempts)                \
    X(low_confidence, "Optimization low confidence", "Low confidence", 0, attempts)                \
    X(unknown_callee, "Optimization unknown callee", "Unknown callee", 0, attempts)                \
    X(invalidated, "Executors invalidated", "Executors invalidated", 0, traces_created)            \
    X(traces_executed, "Optimization traces executed", "Traces executed", 0, none)                 \
    X(uops_executed, "Optimization uops executed", "Uops executed", 0, traces_executed)            \
    X(optimizer_attempts, "Optimization optimizer attempts", "Optimizer attempts", 1, none)        \
    X(optimizer_successes, "Optimization optimizer successes", "Optimizer successes", 1,           \
      optimizer_attempts)                                                                          \
    X(optimizer_no_memory, "Optimization optimizer failure no memory", "Optimizer no memory", 1,   \
      optimizer_attempts)                                                                          \
    X(globals_builtins, "Optimizer remove globals builtins changed",                               \
      "Remove globals builtins changed", 1, optimizer_attempts)                                    \
    X(globals_keys, "Optimizer remove globals incorrect keys", "Remove globals incorrect keys", 1, \
      optimizer_attempts)

/* ---- CPython's JIT memory counters (native dumps, 3.14+) ----
 * X(id, key, label, table, den) as PSF_NATIVE_OPT's: summarize_stats.py's
 * one JIT memory table (3.14 on), each size a share of the total. */
#define PSF_NATIVE_JIT(X)                                             \
    X(total, "JIT total memory size", "Total memory size", 0, none)   \
    X(code, "JIT code size", "Code size", 0, total)                   \
    X(trampoline, "JIT trampoline size", "Trampoline size", 0, total) \
    X(data, "JIT data size", "Data size", 0, total)                   \
    X(padding, "JIT padding size", "Padding size", 0, total)          \
    X(freed, "JIT freed memory size", "Freed memory size", 0, total)

/* ---- CPython's call and object counters (native dumps, 3.11+) ----
 * X(id, key, label, part, den): label as summarize_stats.py prints it
 * (an object counter's key without "Object ", its first letter
 * capitalized); part the sum its count adds to, den the sum that is its
 * ratio's denominator (none: none), summarize_stats.py's: PSF_NSUM_calls
 * its "Calls to" rows (every call row's denominator, "Calls via
 * PyEval_EvalFrame[KIND]" included), the others its object table's
 * totals (3.14's mortal and immortal refcounts, 3.13's "inline values"
 * for 3.11-3.12's "new values" included).  The object rows in the order
 * CPython 3.11-3.16 print them; the collector counts the allocations
 * and frees (PSF_OBJECTS) and none of the rest. */
#define PSF_NATIVE_SUMS(X) X(calls) X(allocations) X(materializations) X(increfs) X(decrefs)
#define PSF_NATIVE_CALLS(X)                                                                     \
    X(eval_default, "Calls to PyEval_EvalDefault", "Calls to PyEval_EvalDefault", calls, calls) \
    X(inlined, "Calls to Python functions inlined", "Calls to Python functions inlined", calls, \
      calls)                                                                                    \
    X(frames_pushed, "Frames pushed", "Frames pushed", none, calls)                             \
    X(frame_objects, "Frame objects created", "Frame objects created", none, calls)
#define PSF_NATIVE_OBJECTS(X)                                                                      \
    X(from_freelist, "Object allocations from freelist", "Allocations from freelist", allocations, \
      allocations)                                                                                 \
    X(to_freelist, "Object frees to freelist", "Frees to freelist", none, none)                    \
    X(allocations, PSF_OBJ_KEY_ALLOCATIONS, "Allocations", allocations, allocations)               \
    X(allocations512, PSF_OBJ_KEY_512, "Allocations to 512 bytes", none, allocations)              \
    X(allocations4k, PSF_OBJ_KEY_4K, "Allocations to 4 kbytes", none, allocations)                 \
    X(allocations_big, PSF_OBJ_KEY_BIG, "Allocations over 4 kbytes", none, allocations)            \
    X(frees, PSF_OBJ_KEY_FREES, "Frees", none, none)                                               \
    X(new_values, "Object new values", "New values", materializations, none)                       \
    X(inline_values, "Object inline values", "Inline values", materializations, none)              \
    X(interp_increfs, "Object interpreter increfs", "Interpreter increfs", increfs, increfs)       \
    X(interp_decrefs, "Object interpreter decrefs", "Interpreter decrefs", decrefs, decrefs)       \
    X(increfs, "Object increfs", "Increfs", increfs, increfs)                                      \
    X(decrefs, "Object decrefs", "Decrefs", decrefs, decrefs)                                      \
    X(interp_mortal_increfs, "Object interpreter mortal increfs", "Interpreter mortal increfs",    \
      increfs, increfs)                                                                            \
    X(interp_mortal_decrefs, "Object interpreter mortal decrefs", "Interpreter mortal decrefs",    \
      decrefs, decrefs)                                                                            \
    X(mortal_increfs, "Object mortal increfs", "Mortal increfs", increfs, increfs)                 \
    X(mortal_decrefs, "Object mortal decrefs", "Mortal decrefs", decrefs, decrefs)                 \
    X(interp_immortal_increfs, "Object interpreter immortal increfs",                              \
      "Interpreter immortal increfs", increfs, increfs)                                            \
    X(interp_immortal_decrefs, "Object interpreter immortal decrefs",                              \
      "Interpreter immortal decrefs", decrefs, decrefs)                                            \
    X(immortal_increfs, "Object immortal increfs", "Immortal increfs", increfs, increfs)           \
    X(immortal_decrefs, "Object immortal decrefs", "Immortal decrefs", decrefs, decrefs)           \
    X(dict_on_request, "Object materialize dict (on request)", "Materialize dict (on request)",    \
      none, materializations)                                                                      \
    X(dict_new_key, "Object materialize dict (new key)", "Materialize dict (new key)", none,       \
      materializations)                                                                            \
    X(dict_too_big, "Object materialize dict (too big)", "Materialize dict (too big)", none,       \
      materializations)                                                                            \
    X(dict_str_subclass, "Object materialize dict (str subclass)",                                 \
      "Materialize dict (str subclass)", none, materializations)                                   \
    X(cache_hits, "Object method cache hits", "Method cache hits", none, none)                     \
    X(cache_misses, "Object method cache misses", "Method cache misses", none, none)               \
    X(cache_collisions, "Object method cache collisions", "Method cache collisions", none, none)   \
    X(cache_too_big, "Object method cache too big", "Method cache too big", none, none)            \
    X(cache_dunder_hits, "Object method cache dunder hits", "Method cache dunder hits", none,      \
      none)                                                                                        \
    X(cache_dunder_misses, "Object method cache dunder misses", "Method cache dunder misses",      \
      none, none)                                                                                  \
    X(cache_invalidations, "Object method cache invalidations", "Method cache invalidations",      \
      none, none)                                                                                  \
    X(cache_resizes, "Object method cache resizes", "Method cache resizes", none, none)

/* Each family's rows as indices: PSF_CALL_python_starts, ...,
 * PSF_NCALLS. */
#define PSF_STAT_ENUM_CALL(f, key, kind, label) PSF_CALL_##f,
#define PSF_STAT_ENUM_OBJ(f, key, kind, label) PSF_OBJ_##f,
#define PSF_STAT_ENUM_GC(f, prefix, sep, key, kind) PSF_GC_##f,
#define PSF_STAT_ENUM_RARE(f, key, kind, label) PSF_RARE_##f,
#define PSF_STAT_ENUM_CF(f, key, label, den) PSF_CF_##f,
#define PSF_STAT_ENUM_OPT(id, key, label, table, den) PSF_OPT_##id,
#define PSF_STAT_ENUM_JIT(id, key, label, table, den) PSF_JIT_##id,
#define PSF_STAT_ENUM_NCALL(id, key, label, part, den) PSF_NCALL_##id,
#define PSF_STAT_ENUM_NOBJ(id, key, label, part, den) PSF_NOBJ_##id,
#define PSF_STAT_ENUM_NSUM(id) PSF_NSUM_##id,
enum { PSF_CALLS(PSF_STAT_ENUM_CALL) PSF_NCALLS };
enum { PSF_OBJECTS(PSF_STAT_ENUM_OBJ) PSF_NOBJECTS };
enum { PSF_GC(PSF_STAT_ENUM_GC) PSF_NGC };
enum { PSF_RARE(PSF_STAT_ENUM_RARE) PSF_NRARE };
enum { PSF_CF_none = -1, PSF_CENSUS_FAMILY(PSF_STAT_ENUM_CF) PSF_NCF };
enum { PSF_OPT_none = -1, PSF_NATIVE_OPT(PSF_STAT_ENUM_OPT) PSF_NOPT };
enum { PSF_JIT_none = -1, PSF_NATIVE_JIT(PSF_STAT_ENUM_JIT) PSF_NJIT };
enum { PSF_NSUM_none = -1, PSF_NATIVE_SUMS(PSF_STAT_ENUM_NSUM) PSF_NSUMS };
enum { PSF_NATIVE_CALLS(PSF_STAT_ENUM_NCALL) PSF_NNCALLS };
enum { PSF_NATIVE_OBJECTS(PSF_STAT_ENUM_NOBJ) PSF_NNOBJECTS };

/* The command's view of a family (psf_stats.c): its rows in order. */
typedef struct psf_stat {
    const char *key;    /* after the family's prefix (GC: the field after SEP) */
    const char *label;  /* what the report shows */
    const char *prefix; /* GC: PSF_KEY_NATIVE_GC or PSF_KEY_GC; else the family's */
    const char *sep;    /* GC: between the generation and the key; else "" */
    int kind;
    int table; /* CPython's optimizer: which of its tables; its calls and
                  objects: the sum its count adds to (PSF_NSUM_*), or -1;
                  else 0 */
    int den;   /* CPython's optimizer, the census: the denominator's row;
                  CPython's calls and objects: its sum; or -1 */
} psf_stat;

typedef struct psf_family {
    const psf_stat *rows;
    size_t n;
} psf_family;

extern const psf_family psf_stats_calls, psf_stats_objects, psf_stats_gc, psf_stats_rare;
extern const psf_family psf_stats_census_family;
extern const psf_family psf_stats_native_opt, psf_stats_native_jit;
extern const psf_family psf_stats_native_calls, psf_stats_native_objects;

/* The row of f whose key is s[0..n), or NULL. */
const psf_stat *psf_stat_find(const psf_family *f, const char *s, size_t n);

/* The rank of key s[0..n) in f (its row's index), or f->n if none. */
size_t psf_stat_rank(const psf_family *f, const char *s, size_t n);

/* The prefix and separator of GC field s[0..n) (its key is PREFIX G SEP
 * s): its row's, or CPython's GC[G] s for a field not in PSF_GC. */
void psf_gc_key_parts(const char *s, size_t n, const char **prefix, const char **sep);

#endif
