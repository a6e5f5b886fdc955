/* write_cpython_json.h: `pystats summarize --cpython-json FILE`: what
 * CPython's Tools/scripts/summarize_stats.py --json-output writes for the
 * same native dumps (--enable-pystats), for pipelines (bench_runner) that
 * compare such files.
 *
 * The script sums every raw key of every file (a flag such as
 * opcode[X].specializable too: it adds, never ORs), adds "__nfiles__"
 * after the first file's keys, then "_specialized_instructions",
 * "_stats_defines" and "_defines" from the interpreter and the source tree
 * it runs in.  The writer observes the readers (load_observer): each
 * file's counters as it spells them, summed apart from the aggregate
 * (which ORs flags and renames keys canonically); the three tables come
 * from src/format's (psf_tab_script_tables).  Keys come out in the order
 * the script's would for files read in name order: by first appearance.
 *
 * Only CPython's own dumps are written, of one version whose tables are
 * built in (3.13, 3.14).  This project's dumps count base instructions:
 * in CPython's keys the script would read them as "0% specialized", so
 * they are refused, as are JSON summaries and mixed versions.
 *
 *     cpj *c = cpj_new();
 *     load_inputs_observed(inputs, n, &lo, cpj_observer(c, other), &a);
 *     ret = cpj_write(c, path);
 *     cpj_free(c);
 */
#ifndef WRITE_CPYTHON_JSON_H
#define WRITE_CPYTHON_JSON_H

#include "load.h"

typedef struct cpj cpj;

cpj *cpj_new(void);
void cpj_free(cpj *c);

/* The observer to hand to load_inputs_observed(): it records what the
 * writer needs and passes every call on to also (may be NULL), so that
 * pystats check's observer still sees everything.  One cpj observes one
 * load; valid while c lives. */
const load_observer *cpj_observer(cpj *c, const load_observer *also);

/* Write the JSON to path ("-": stdout), whole or not at all.  Returns a
 * cli_exit: CLI_EXIT_INPUT (said why on stderr) when the files read
 * cannot be written in CPython's format (none, not native, several
 * versions, a version without tables, a sum JSON cannot hold). */
int cpj_write(cpj *c, const char *path);

#endif
