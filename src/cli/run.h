/* run.h: the parts of `pystats run` (cmd_run.c) in their own files: its
 * directories (run_dir.c), the command it runs (run_cmd.c), why no dump
 * was written (run_why.c), and the reports and headline (run_report.c). */
#ifndef RUN_H
#define RUN_H

#include "model.h"
#include "subcmd.h"

#include <stddef.h>
#include <sys/types.h>

/* The variables that carry collection to a process, as pyperf's
 * --inherit-environ lists them. */
#define PYSTATS_VARS "PYTHONSTATS,PYSTATS_DIR,PYSTATS_LABEL,PYSTATS_BACKEND"

/* ---- run_dir.c ---- */

/* The directory a run made, as it was made: a directory of the same
 * name later (someone renamed this one away and put theirs in its
 * place) is not read. */
typedef struct run_dir {
    char *path; /* owned */
    dev_t dev;
    ino_t ino;
} run_dir;

/* The run's directory: -o DIR (new or empty), else a new unique one
 * under the user's default directory; private (0700) when made here.
 * -1 when it cannot be made or used, -2 when -o names a directory that
 * already holds files (a usage error). */
int run_dir_make(const char *out, run_dir *r);
/* Whether r->path is still the directory the run made. */
int run_dir_same(const run_dir *r);
/* Dumps in dir: non-hidden regular files. */
size_t run_count_dumps(const char *dir);
/* A private (0700) directory of its own under $TMPDIR or /tmp, named
 * NAME-XXXXXX: a new string, or NULL.  run_tmp_dir_remove: it and
 * whatever was left in it, gone (NULL: nothing); frees d. */
char *run_tmp_dir(const char *name);
void run_tmp_dir_remove(char *d);

/* ---- run_cmd.c ---- */

/* python, python3, python3.12, python3.13t, pypy3 ... */
int run_is_python(const char *path);
/* Python's options before the script, -c or -m: which of -E, -I, -S
 * (also inside groups such as -IS) and whether -X pystats_dir is given. */
void run_python_flags(char **argv, int *ign_env, int *isolated, int *no_site, int *xdir);
/* Whether an argument starts with prefix. */
int run_has_arg(char **argv, const char *prefix);
/* Whether `name` is the command or a module it runs (python -m name). */
int run_uses(char **argv, const char *name);
/* pyperf timeit|command told to pass PYSTATS_VARS to its workers: cmd
 * itself, or a new owned array (*extra_arg: a new owned string it
 * points to, else left alone). */
char **run_pyperf_environ(char **cmd, char **extra_arg);
/* Run cmd and wait for it.  Its exit status into *exit_code
 * (*status_known = 1), or 128 + the signal that killed it; returns 0, or
 * -1 if it could not be started. */
int run_command(char **cmd, int *exit_code, int *status_known);

/* ---- run_why.c ---- */

/* The dumps the command's processes could not write (the collector's
 * marks in fdir, FORMAT.md 1.5), said on stderr; returns how many. */
size_t run_say_failures(const char *fdir, const char *dir);
/* Why did a run write no dump?  Each likely reason on stderr. */
void run_explain_no_dump(char **cmd, const char *dir, int status_known, int exit_code);

/* ---- run_report.c ---- */

/* Read, check and summarize what the run wrote into dir, once; the
 * reports, the headline and, with --quiet, the verdict on stdout.
 * Returns a cli_exit. */
int run_report(const subcmd_common *co, const m_code_filter *filter, char *dir, size_t ndumps);

#endif
