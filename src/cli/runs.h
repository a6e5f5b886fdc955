/* runs.h: which dumps belong to which run, and the run a command reads.
 *
 * A run is the dumps of one process tree (docs/CLI.md, "Runs"): the
 * collector's dumps that carry the same meta.run.id (docs/FORMAT.md 1.1);
 * the collector's dumps without one (older collectors) by process tree,
 * a dump joined to the dump of its parent (meta.process.ppid) and to the
 * other dumps of its own pid; CPython's native dumps, which say nothing
 * of their process, one run of their own.  Files that are no dump (JSON
 * summaries, anything unreadable) belong to no run and are always read,
 * so that their problems are still reported.
 *
 * Only each file's header is read here (its first 64 KiB at most); the
 * files are read whole later, by load.c.
 */
#ifndef RUNS_H
#define RUNS_H

#include <stddef.h>

/* Of the n files path[], mark in keep[] those to read: every run's
 * (run "all"), the newest run's ("newest": the run whose last dump was
 * written last, by meta.time.end, else the file's modification time), or
 * the run whose id is run or starts with it; files of no run always.
 * where names the inputs in messages.  Unless quiet, says on stderr how
 * the files group when they hold several runs and run_given is 0 (the
 * command's default, not --run) or run is "newest".  Returns 0, or -1
 * after saying on stderr that run names no run (or several). */
int runs_select(char *const *path, size_t n, const char *run, int run_given, int quiet,
                const char *where, unsigned char *keep);

#endif
