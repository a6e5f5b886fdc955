/* psf_keys.h: the vocabulary of the dump format, defined once.
 *
 * Every header name and every key (or key prefix) of the collector's own
 * dumps, as docs/FORMAT.md section 1 lists them.  The collector writes
 * them and the command reads them from these definitions only; a key
 * spelled as a string literal in src/ext/ or src/cli/ is a bug.  Keys of
 * CPython's native dumps are parsed by psf_key.c, which takes its
 * prefixes from here too where the two formats share a spelling.
 */
#ifndef PSF_KEYS_H
#define PSF_KEYS_H

/* The format line: PSF_H_FORMAT " : " PSF_FORMAT_VERSION_TEXT. */
#define PSF_FORMAT_VERSION 2
#define PSF_FORMAT_VERSION_TEXT "2"

/* ---- header (docs/FORMAT.md 1.1) ---- */
#define PSF_H_PREFIX_OWN "pystats."
#define PSF_H_PREFIX_META "meta."
#define PSF_H_PREFIX_PYTHON "meta.python."
#define PSF_H_PREFIX_TIME "meta.time."
#define PSF_H_FORMAT "pystats.format"
#define PSF_H_COLLECTOR "pystats.collector"
#define PSF_H_COUNTS "pystats.counts"
#define PSF_H_PY_VERSION "meta.python.version"
#define PSF_H_PY_IMPL "meta.python.implementation"
#define PSF_H_PY_SYS_VERSION "meta.python.sys_version"
#define PSF_H_PY_GIT "meta.python.git"
#define PSF_H_PY_CONFIG_ARGS "meta.python.config_args"
#define PSF_H_PY_PYSTATS_BUILD "meta.python.pystats_build"
#define PSF_H_PY_FREE_THREADING "meta.python.free_threading"
#define PSF_H_PY_JIT "meta.python.jit"
#define PSF_H_PY_PATH "meta.python.path"
#define PSF_H_MODE "meta.collection.mode"
#define PSF_H_MECHANISM "meta.collection.mechanism"
#define PSF_H_METHOD "meta.collection.method"
#define PSF_H_WINDOWS "meta.collection.windows"
#define PSF_H_ON_AT_DUMP "meta.collection.on_at_dump"
#define PSF_H_PID "meta.process.pid"
#define PSF_H_PPID "meta.process.ppid"
#define PSF_H_FORKED "meta.process.forked"
#define PSF_H_RUN_ID "meta.run.id"
#define PSF_H_CWD "meta.process.cwd"
#define PSF_H_TIME_START "meta.time.start"
#define PSF_H_TIME_END "meta.time.end"
#define PSF_H_REASON "meta.dump.reason"
#define PSF_H_LABEL "meta.label"
#define PSF_H_CENSUS_SCOPE "meta.census.scope"
/* Only when the census of the period could not be taken: why. */
#define PSF_H_CENSUS_ERROR "meta.census.error"
/* Only when non-zero: what made the counts inexact (1.1, 1.17). */
#define PSF_H_DISPLACED "meta.collection.displaced"
#define PSF_H_LINE_JUMPS "meta.collection.line_jumps"
#define PSF_H_DESYNC "meta.collection.desync"
#define PSF_H_EVENTS_LOST "meta.collection.events_lost"
#define PSF_H_INEXACT_CAUSE "meta.collection.inexact_cause"
/* A known leftover (FORMAT.md 1.x): at most this many instructions ran
 * uncounted, why, and in how many threads. */
/* With desync: the report of the first desync, a file beside the dump
 * (its name relative to the dump's directory: desync/NAME). */
#define PSF_H_DESYNC_REPORT "meta.collection.desync_report"
#define PSF_H_LEFTOVER_BOUND "meta.collection.leftover_bound"
#define PSF_H_LEFTOVER_CAUSE "meta.collection.leftover_cause"
#define PSF_H_LEFTOVER_THREADS "meta.collection.leftover_threads"

/* The value of PSF_H_COUNTS in the collector's dumps. */
#define PSF_COUNTS_BASE "base-instructions"

/* ---- counters (1.2) ---- */
#define PSF_KEY_OPCODE "opcode[" /* opcode[NAME]... */
#define PSF_KEY_EXEC "].execution_count"
#define PSF_KEY_PAIR "].pair_count[" /* opcode[A].pair_count[B] */

/* ---- census (1.10) ---- */
#define PSF_KEY_CENSUS "census."
#define PSF_KEY_CENSUS_CODE "census.code_objects"
#define PSF_KEY_CENSUS_DEAD "census.dead_code_objects"
#define PSF_KEY_CENSUS_INSTRUMENTED "census.instrumented_code_objects"
#define PSF_KEY_CENSUS_FAMILY "census.family[" /* census.family[F].field */
#define PSF_KEY_FIELD "]."                     /* between a bracket and its field */
#define PSF_KEY_CENSUS_EXCLUDED "census.excluded_family["
#define PSF_KEY_CENSUS_SITE "census.site[" /* census.site[I] : a row */
/* Scope count: site rows and source lines left out by their bounds
 * (1.18). */
#define PSF_KEY_CENSUS_OMITTED_ROWS "census.omitted_site_rows"
#define PSF_KEY_CENSUS_OMITTED_SOURCE "census.omitted_source_lines"
/* Scope count: the rows, and their executions, of code objects that
 * share their key with a hotter one, whose rows the key has (1.18). */
#define PSF_KEY_CENSUS_SHARED_ROWS "census.shared_key_site_rows"
#define PSF_KEY_CENSUS_SHARED_EXEC "census.shared_key_site_executions"
/* The command's own rows of merged sites (never in a dump). */
#define PSF_KEY_CENSUS_ROWS "census.sites["
/* The command's own figures read back from a JSON summary (never in a
 * dump): census.site_executions[F].STATE and
 * census.site_executions[F].form[FORM], the executions at F's sites by
 * state and by specialized form (FORMAT.md 3); census.site_executions[].none
 * marks a summary read back without them, whose rows give none. */
#define PSF_KEY_SITE_FX "census.site_executions["
#define PSF_KEY_SITE_FX_FORM "].form["

/* ---- GC, objects, rare events, calls, hot code (1.11, 1.12, 1.14, 1.15) ----
 * The families' prefixes; their statistics are psf_stats.h's lists. */
/* CPython's own spelling, where the statistic is the same. */
#define PSF_KEY_NATIVE_GC "GC[" /* GC[G] field */
/* The collector's own. */
#define PSF_KEY_GC "gc[" /* gc[G].field */
#define PSF_KEY_OBJECTS "objects."
#define PSF_KEY_RARE "rare."
#define PSF_KEY_CALLS "calls."
#define PSF_KEY_CODE "code[" /* code[FILE:LINE:QUALNAME]... */
#define PSF_KEY_CODE_INSTRUCTIONS "].instructions"
#define PSF_KEY_CODE_CALLS "].calls"
#define PSF_KEY_CODE_OPCODE "].opcode["
/* Source view (1.18): code[K].line[N] / code[K].line[none] : count,
 * code[K].site[OFFSET] : a row; source[FILE].line[N] : free text, the
 * source lines of the code objects a dump has rows for. */
#define PSF_KEY_CODE_LINE "].line["
#define PSF_CODE_NO_LINE "none"
#define PSF_KEY_SOURCE "source["
#define PSF_KEY_SOURCE_LINE "].line["
#define PSF_KEY_CODE_SITE "].site["
/* code[K].site_executions[OFFSET] : N, the executions of the site at
 * OFFSET (1.18; a key added within format 2). */
#define PSF_KEY_CODE_SITE_EXEC "].site_executions["
/* code_lines.omitted : N, the code objects a dump has hot code for but
 * no lines (the bound of 1.18). */
#define PSF_KEY_CODE_LINES_OMITTED "code_lines.omitted"
/* benchmark.calls : N, the benchmark calls the dump's counts cover, as
 * the pyperf hook counts them (1.19; a key added within format 2). */
#define PSF_KEY_BENCH_CALLS "benchmark.calls"
/* States of a code[K].site row. */
#define PSF_SITE_SPECIALIZED "specialized"
#define PSF_SITE_BACKING_OFF "backing_off"
#define PSF_SITE_NEVER_TRIED "never_tried"
#define PSF_SITE_EXCLUDED "excluded"
/* The command's own rows (never in a dump): a code[K].site[OFFSET] row
 * as code[K].site_row[OFFSET | ROW], a source[FILE].line[N] text as
 * source[FILE].text[N | TEXT], each counting the dumps that had it. */
#define PSF_KEY_CODE_SITE_ROW "].site_row["
#define PSF_KEY_SOURCE_ROW "].text["
/* A position a code object does not have (co_positions() None). */
#define PSF_NO_POSITION "-"

/* Separators: between key and value, between census site fields. */
#define PSF_SEP_VALUE " : "
#define PSF_SEP_FIELD " | "

#endif
