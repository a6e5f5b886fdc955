/* cmd_run.c: `pystats run`: run a command with collection on for every
 * Python process it starts, into a fresh directory, then summarize and
 * check what it wrote.  A run that wrote no dump is an error that says
 * why, never an empty success. */
#include "run.h"

#include "cli.h"
#include "subcmd.h"

#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: pystats run [-o DIR] [--mode MODE] [--label LABEL] [--json FILE]\n"
    "                   [--markdown FILE] [--html FILE] [--quiet]\n"
    "                   [--code PREFIX ...] [--no-stdlib] -- COMMAND [ARG ...]\n"
    "\n"
    "Run COMMAND with collection on in every Python process it starts\n"
    "(PYTHONSTATS=MODE, PYSTATS_DIR=a fresh directory for this run,\n"
    "PYSTATS_LABEL=LABEL, PYSTATS_BACKEND=own unless set), then summarize the\n"
    "dumps it wrote (as 'pystats summarize DIR') and check them ('pystats\n"
    "check DIR'). Runs in parallel never mix their files. 'pyperf timeit' and\n"
    "'pyperf command' get --inherit-environ with these variables, so that their\n"
    "workers are counted. A run that wrote no dump is an error, with the\n"
    "likely reason (hook not installed in that interpreter, -E/-I/-S, a\n"
    "runner that does not pass the environment on, mode count on a\n"
    "free-threaded CPython without the GIL).\n"
    "\n"
    "  -o, --output DIR    the run's directory: created (mode 0700), must be new\n"
    "                      or empty, and the user's or root's, not open to others\n"
    "                      (default: a new private directory under /tmp/py_stats,\n"
    "                      or under /tmp/py_stats-UID when another user owns it)\n"
    "  --mode MODE         collection mode (default: 1, the interpreter's own\n"
    "                      default: count, or instructions on a free-threaded\n"
    "                      CPython running without the GIL)\n"
    "  --label LABEL       meta.label of every dump (PYSTATS_LABEL)\n"
    "  --markdown FILE     write the Markdown summary to FILE ('-': stdout)\n"
    "                      (default: DIR/report/summary.md)\n"
    "  --json FILE         the JSON summary (default: DIR/report/summary.json)\n"
    "  --html FILE         the HTML report (default: DIR/report/summary.html)\n"
    "  --quiet             the verdict line on stdout, nothing else there\n"
    "  --code PREFIX       the reports' hot code, source view and sites that\n"
    "                      fail to specialize, of this code only: a module and\n"
    "                      its submodules, or, with a '/', a path prefix; up\n"
    "                      to 16 times (as summarize)\n"
    "  --no-stdlib         leave the standard library's code out of the same\n"
    "\n"
    "After the command, a headline on stderr: the dumps, the trust verdict, the\n"
    "instructions executed, the three findings that matter most (the hottest\n"
    "code, the worst site failing to specialize, the family most run\n"
    "unspecialized) and where the reports are. DIR/report is a subdirectory:\n"
    "'pystats summarize DIR' and 'pystats check DIR' read the dumps alone.\n"
    "\n"
    "Exit status: 0 ok, 1 no dump was written, 2 usage error (-o DIR holding\n"
    "files included), 3 the run's directory or a report could not be written,\n"
    "4 internal error, 6 the check found errors, 7 the command failed (its\n"
    "status is printed; the summary is still written).\n";

typedef struct run_opts {
    const char *out, *mode, *label;
    m_code_filter filter; /* --code, --no-stdlib: which code the reports show */
    const char *prefix[SUBCMD_CODE_PREFIXES];
} run_opts;

static int
own_option(void *ctx, int c, const char *arg)
{
    run_opts *o = ctx;

    switch (c) {
    case 'o':
        o->out = arg;
        return 0;
    case 'M':
        o->mode = arg;
        return 0;
    case 'L':
        o->label = arg;
        return 0;
    case 'C':
        return subcmd_code_prefix(&o->filter, o->prefix, arg);
    case 'N':
        o->filter.no_stdlib = 1;
        return 0;
    default:
        return CLI_EXIT_USAGE;
    }
}

/* The environment of the command: collection on, into dir. */
static void
set_environment(const run_opts *o, const char *dir)
{
    setenv("PYTHONSTATS", o->mode, 1);
    setenv("PYSTATS_DIR", dir, 1);
    if (o->label)
        setenv("PYSTATS_LABEL", o->label, 1);
    /* Native --enable-pystats counters write to CPython's fixed directory,
     * where runs would mix: count with the collector unless told. */
    setenv("PYSTATS_BACKEND", getenv("PYSTATS_BACKEND") ? getenv("PYSTATS_BACKEND") : "own", 1);
}

/* After the command: what it wrote, summarized and checked. */
static int
after_run(const subcmd_common *co, const run_opts *o, const run_dir *rd, const char *fdir,
          char **cmd, int exit_code, int status_known)
{
    size_t ndumps, failed = run_say_failures(fdir, rd->path);
    int ret;

    if (!run_dir_same(rd)) {
        fputs("pystats: error: ", stderr);
        cli_fput_esc(stderr, rd->path);
        fputs(" is no longer the directory this run created (renamed, replaced or opened to "
              "others while the command ran): nothing in it is read\n",
              stderr);
        return CLI_EXIT_UNTRUSTED;
    }
    ndumps = run_count_dumps(rd->path);
    if (ndumps == 0) {
        /* The collector said why: no guessing. */
        if (failed == 0)
            run_explain_no_dump(cmd, rd->path, status_known, exit_code);
        return CLI_EXIT_INPUT;
    }
    ret = run_report(co, &o->filter, rd->path, ndumps);
    if (failed && ret == CLI_EXIT_OK)
        ret = CLI_EXIT_INPUT; /* the reports lack those processes */
    if (exit_code != 0) {
        fprintf(stderr, "pystats run: the command failed: %s %d\n",
                status_known ? "exit status" : "killed by signal",
                status_known ? exit_code : exit_code - 128);
        ret = CLI_EXIT_COMMAND;
    }
    return ret;
}

int
cmd_run(int argc, char **argv)
{
    run_opts o = {.mode = "1"};
    const subcmd_spec spec = {
        usage, "+ho:", "output mode label json markdown html quiet code no-stdlib help", own_option,
        &o};
    char **cmd, **given, *extra = NULL, *fdir;
    int r, ret, exit_code = 0, status_known = 0;
    subcmd_common co;
    run_dir rd;

    if ((r = subcmd_parse(&spec, argc, argv, &co)) >= 0)
        return r;
    cmd = argv + optind;
    if (*cmd == NULL) {
        fputs("pystats: error: run needs a command: pystats run [options] -- COMMAND ...\n",
              stderr);
        return CLI_EXIT_USAGE;
    }
    if (*o.mode == '\0' || strcmp(o.mode, "0") == 0 || strcmp(o.mode, "noop") == 0) {
        fprintf(stderr, "pystats: error: --mode %s writes no dump; use count\n",
                *o.mode ? o.mode : "''");
        return CLI_EXIT_USAGE;
    }
    if ((r = run_dir_make(o.out, &rd)) != 0)
        return r == -2 ? CLI_EXIT_USAGE : CLI_EXIT_OUTPUT;
    given = cmd;
    cmd = run_pyperf_environ(cmd, &extra);
    set_environment(&o, rd.path);
    /* Where the collector leaves a mark for a dump it could not write. */
    if ((fdir = run_tmp_dir("pystats-run")) != NULL)
        setenv("PYSTATS_FAILURE_DIR", fdir, 1);
    fputs("pystats run: dumps go to ", stderr);
    cli_fput_esc(stderr, rd.path);
    fputc('\n', stderr);
    fflush(NULL);
    if (run_command(cmd, &exit_code, &status_known) != 0)
        ret = CLI_EXIT_INTERNAL;
    else
        ret = after_run(&co, &o, &rd, fdir, cmd, exit_code, status_known);
    run_tmp_dir_remove(fdir);
    if (cmd != given)
        free(cmd);
    free(extra);
    free(rd.path);
    return ret;
}
