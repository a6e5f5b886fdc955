/* run_why.c: why `pystats run` found no dump: the collector's marks of
 * the dumps it could not write, else the likely reasons, some of them
 * tried out with the command's interpreter. */
#include "run.h"

#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run argv with the environment as set, output to /dev/null, its dumps
 * (if any) into probe_dir (NULL: /dev/null, where none can be written);
 * its exit status, or -1. */
static int
probe(char *const argv[], const char *pystats, const char *probe_dir)
{
    pid_t pid = fork();
    int st;

    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *n = freopen("/dev/null", "w", stdout);
        FILE *m = freopen("/dev/null", "w", stderr);
        (void)n;
        (void)m;
        if (pystats)
            setenv("PYTHONSTATS", pystats, 1);
        else
            unsetenv("PYTHONSTATS");
        setenv("PYSTATS_DIR", probe_dir ? probe_dir : "/dev/null", 1);
        unsetenv("PYSTATS_FAILURE_DIR");
        execvp(argv[0], argv);
        _exit(127);
    }
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The dumps the command's processes could not write: the collector
 * leaves an empty file PID.ERR in PYSTATS_FAILURE_DIR for each (FORMAT.md
 * 1.5).  Said on stderr, each distinct reason once; returns how many. */
size_t
run_say_failures(const char *fdir, const char *dir)
{
    DIR *dh = fdir ? opendir(fdir) : NULL;
    struct dirent *e;
    size_t n = 0, i, nerr = 0;
    int errs[8];

    if (dh == NULL)
        return 0;
    while ((e = readdir(dh)) != NULL) {
        const char *dot = strchr(e->d_name, '.');
        char *end;
        long err;
        if (dot == NULL || dot == e->d_name)
            continue;
        err = strtol(dot + 1, &end, 10);
        if (*end != '\0' || end == dot + 1)
            continue;
        n++;
        for (i = 0; i < nerr && errs[i] != (int)err; i++)
            ;
        if (i == nerr && nerr < sizeof errs / sizeof errs[0])
            errs[nerr++] = (int)err;
    }
    closedir(dh);
    if (n == 0)
        return 0;
    fprintf(stderr, "pystats: error: %zu %s of the command could not write %s dump into ", n,
            n == 1 ? "process" : "processes", n == 1 ? "its" : "their");
    cli_fput_esc(stderr, dir);
    fputs(":\n", stderr);
    for (i = 0; i < nerr; i++) {
        int err = errs[i];
        const char *ename = err > 0 ? strerrorname_np(err) : NULL;
        if (err == ENOSPC || err == EDQUOT)
            fprintf(stderr,
                    "  - the disk is full (%s): free space, or run with -o DIR on "
                    "another file system\n",
                    ename ? ename : "ENOSPC");
        else if (err == EROFS || err == EACCES || err == EPERM)
            fprintf(stderr,
                    "  - the directory is read-only to the command (%s): run with -o "
                    "DIR where it can write\n",
                    ename ? ename : "EROFS");
        else if (err == ENOENT)
            fprintf(stderr, "  - the directory was removed while the command ran (ENOENT)\n");
        else if (err > 0)
            fprintf(stderr, "  - %s (%s)\n", strerror(err), ename ? ename : "?");
        else
            fprintf(stderr, "  - the directory failed the collector's checks (code %d)\n", err);
    }
    fputs("  the collector wrote each of those dumps to the command's stderr instead\n", stderr);
    return n;
}

/* Whether mode is one of the segment modes, which a free-threaded
 * CPython running without the GIL refuses (FORMAT.md 1.7). */
static int
segment_mode(const char *mode)
{
    return mode != NULL && (strcmp(mode, "count") == 0 || strcmp(mode, "noop-segments") == 0 ||
                            strcmp(mode, "noop-quiet") == 0);
}

/* Whether py, with the collector loaded and the command's environment
 * (PYTHON_GIL) and -X gil=0 if the command has it, runs without the
 * GIL: the collector then refuses a segment mode and writes nothing. */
static int
runs_without_gil(const char *py, char **cmd)
{
    int xgil0 = run_is_python(cmd[0]) && (run_has_arg(cmd, "gil=0") || run_has_arg(cmd, "-Xgil=0"));
    char *argv[] = {(char *)py,
                    "-X",
                    "gil=0",
                    "-c",
                    "import sys; sys.exit(5 if getattr(sys, '_is_gil_enabled', lambda: 1)() "
                    "is False else 0)",
                    NULL};
    char *pd = run_tmp_dir("pystats-probe");
    int r;
    if (!xgil0) { /* no -X gil=0: the environment alone */
        argv[1] = argv[3];
        argv[2] = argv[4];
        argv[3] = NULL;
    }
    r = probe(argv, "noop", pd);
    run_tmp_dir_remove(pd);
    return r == 5;
}

/* Why did a run write no dump?  Each likely reason on stderr. */
void
run_explain_no_dump(char **cmd, const char *dir, int status_known, int exit_code)
{
    const char *py = run_is_python(cmd[0]) ? cmd[0] : "python3";
    int ign_env = 0, isolated = 0, no_site = 0, xdir = 0, reasons = 0, r;
    char *hook_ran[] = {(char *)py, "-c",
                        "import sys; sys.exit(0 if 'pystats_startup' in sys.modules else 3)", NULL};
    char *importable[] = {(char *)py, "-c", "import pystats_startup", NULL};

#define REASON(...)                          \
    do {                                     \
        reasons++;                           \
        fprintf(stderr, "  - " __VA_ARGS__); \
    } while (0)
    fputs("pystats: error: the run wrote no dump into ", stderr);
    cli_fput_esc(stderr, dir);
    fputs("; likely reasons:\n", stderr);
    if (status_known && exit_code == 127)
        REASON("the command could not be run (exit status 127: not found?)\n");
    if (run_is_python(cmd[0])) {
        run_python_flags(cmd, &ign_env, &isolated, &no_site, &xdir);
        if (ign_env || isolated)
            REASON("%s ignores PYTHONSTATS and PYSTATS_DIR (%s): use -X pystats "
                   "-X pystats_dir=%s instead, or drop the flag\n",
                   py, isolated ? "-I" : "-E", dir);
        if (no_site)
            REASON("-S: the startup hook (a .pth file in site-packages) does not run; "
                   "drop -S, or call pystats.on() in the program\n");
        if (xdir)
            REASON("-X pystats_dir in the command sends the dumps to another directory\n");
    }
    if (run_uses(cmd, "pyperf") && !run_has_arg(cmd, "--inherit-environ") &&
        !run_has_arg(cmd, "--copy-env"))
        REASON("pyperf runs its worker processes with only the environment variables it "
               "is told to pass: add --inherit-environ " PYSTATS_VARS " (or --copy-env)\n");
    if (run_uses(cmd, "pyperformance"))
        REASON("pyperformance runs benchmarks in virtual environments it creates, where "
               "pystats is not installed, and passes only listed variables: install "
               "pystats there and add --inherit-environ PYTHONSTATS,PYSTATS_DIR,"
               "PYSTATS_LABEL,PYSTATS_BACKEND\n");
    if (!ign_env && !isolated && !no_site) {
        char *pd = run_tmp_dir("pystats-probe");
        r = probe(hook_ran, "noop", pd);
        run_tmp_dir_remove(pd);
        if (r == 127 || r < 0) {
            REASON("%s could not be run to check its startup hook\n", py);
        }
        else if (r != 0) {
            if (probe(importable, NULL, NULL) != 0)
                REASON("the startup hook is not installed in the interpreter %s: "
                       "'%s -c \"import pystats_startup\"' fails; install pystats into it "
                       "(pip install, or make install PYTHON=%s)\n",
                       py, py, py);
            else
                REASON("%s can import pystats_startup but its .pth line did not run it "
                       "(site-packages .pth files not processed?)\n",
                       py);
        }
        else if (!run_is_python(cmd[0])) {
            REASON("the startup hook works in %s, so the command's Python processes "
                   "use another interpreter, are started with a cleaned environment, "
                   "or ran no Python code while collecting\n",
                   py);
        }
    }
    if (!ign_env && !isolated && !no_site && segment_mode(getenv("PYTHONSTATS")) &&
        runs_without_gil(py, cmd))
        REASON("%s is a free-threaded CPython running without the GIL (PYTHON_GIL=0 or -X "
               "gil=0), where mode %s is refused and nothing is collected: use --mode "
               "instructions (the default there), or let the GIL be enabled\n",
               py, getenv("PYTHONSTATS"));
    if (status_known && exit_code != 0 && exit_code != 127)
        REASON("the command failed (exit status %d) before any Python process wrote "
               "its dump\n",
               exit_code);
    if (reasons == 0)
        REASON("the command started no Python process, or each one ran no Python code "
               "while collection was on\n");
#undef REASON
}
