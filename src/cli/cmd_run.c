/* cmd_run.c: `pystats run`: run a command with collection on for every
 * Python process it starts, into a fresh directory, then summarize and
 * check what it wrote.  A run that wrote no dump is an error that says
 * why, never an empty success. */
#include "check.h"
#include "cli.h"
#include "overview.h"
#include "report.h"
#include "subcmd.h"
#include "summary.h"
#include "text.h"
#include "../format/psf_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
    "runner that does not pass the environment on).\n"
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
    "  --code PREFIX       the reports' sites that fail to specialize, of this\n"
    "                      code only: a module and its submodules, or, with a\n"
    "                      '/', a path prefix; up to 16 times (as summarize)\n"
    "  --no-stdlib         leave the standard library's sites out of the reports\n"
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

/* Dumps in dir: non-hidden regular files. */
static size_t
count_dumps(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    if (d == NULL)
        return 0;
    /* As the readers list a directory: not hidden, not a directory (a
     * file system without d_type is asked). */
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.' || e->d_type == DT_DIR)
            continue;
        if (e->d_type == DT_UNKNOWN && fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
            S_ISDIR(st.st_mode))
            continue;
        n++;
    }
    closedir(d);
    return n;
}

/* The directory a run made, as it was made: a directory of the same
 * name later (someone renamed this one away and put theirs in its
 * place) is not read. */
typedef struct run_dir {
    char *path; /* owned */
    dev_t dev;
    ino_t ino;
} run_dir;

static int
say_dir_error(const char *what, const char *dir, int err, long owner)
{
    char why[96];
    fprintf(stderr, "pystats: error: %s", what);
    cli_fput_esc(stderr, dir);
    fprintf(stderr, ": %s\n", psf_dir_strerror(err, owner, why, sizeof why));
    return -1;
}

/* Open dir (creating it with mode) by the collector's rules and note
 * what it is. */
static int
take_dir(run_dir *r, const char *dir, unsigned mode, const char *what)
{
    struct stat st;
    long owner;
    int fd, err = psf_dir_open(dir, mode, &fd, &owner);

    if (err != 0)
        return say_dir_error(what, dir, err, owner);
    if (fstat(fd, &st) != 0) {
        err = errno;
        close(fd);
        return say_dir_error(what, dir, err, -1);
    }
    close(fd);
    r->dev = st.st_dev;
    r->ino = st.st_ino;
    return 0;
}

/* The run's directory: -o DIR (new or empty), else a new unique one
 * under the user's default directory; private (0700) when made here.
 * -1 when it cannot be made or used, -2 when -o names a directory that
 * already holds files (a usage error). */
static int
make_run_dir(const char *out, run_dir *r)
{
    r->path = NULL;
    if (out) {
        if (take_dir(r, out, 0700, "cannot use the directory ") != 0)
            return -1;
        if (count_dumps(out) != 0) {
            fputs("pystats: error: ", stderr);
            cli_fput_esc(stderr, out);
            fputs(" already holds files: a run needs a new or empty directory, or "
                  "its files would mix with others\n",
                  stderr);
            return -2; /* the option's value, not a failed write */
        }
        r->path = cli_xstrdup(out);
        return 0;
    }
    else {
        char stamp[32], base[PSF_PATH_MAX], *dir;
        time_t now = time(NULL);
        struct tm tm;
        run_dir b;
        size_t n;
        int priv = psf_default_dir(getenv("PYSTATS_TMPDIR"), base, sizeof base);

        if (priv < 0) {
            fprintf(stderr, "pystats: error: PYSTATS_TMPDIR is too long\n");
            return -1;
        }
        /* As the collector does: the shared default when it is the
         * user's, else their own beside it. */
        if (take_dir(&b, base, priv ? 0700 : 0775, "cannot use the directory ") != 0)
            return -1;
        gmtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        n = strlen(base) + 64;
        dir = cli_xmalloc(n);
        snprintf(dir, n, "%s/run-%s-XXXXXX", base, stamp);
        if (mkdtemp(dir) == NULL) {
            int e = errno;
            fputs("pystats: error: cannot create a run directory under ", stderr);
            cli_fput_esc(stderr, base);
            fprintf(stderr, ": %s\n", strerror(e));
            free(dir);
            return -1;
        }
        if (take_dir(r, dir, 0700, "cannot use the directory ") != 0) {
            free(dir);
            return -1;
        }
        r->path = dir;
        return 0;
    }
}

/* Whether r->path is still the directory the run made. */
static int
same_dir(const run_dir *r)
{
    struct stat st;
    int fd = open(r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ok;

    if (fd < 0)
        return 0;
    ok = fstat(fd, &st) == 0 && st.st_dev == r->dev && st.st_ino == r->ino &&
         psf_dir_check((unsigned long)st.st_mode, (unsigned long)st.st_uid) == 0;
    close(fd);
    return ok;
}

static const char *
base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* python, python3, python3.12, python3.13t, pypy3 ... */
static int
is_python(const char *path)
{
    const char *b = base_name(path);
    return strncmp(b, "python", 6) == 0 || strncmp(b, "pypy", 4) == 0;
}

/* Python's options before the script, -c or -m: which of -E, -I, -S
 * (also inside groups such as -IS) and whether -X pystats_dir is given. */
static void
python_flags(char **argv, int *ign_env, int *isolated, int *no_site, int *xdir)
{
    int i;

    for (i = 1; argv[i] && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (a[1] == '-') {
            if (strcmp(a, "--check-hash-based-pycs") == 0 && argv[i + 1])
                i++;
            continue;
        }
        for (a++; *a; a++) {
            if (*a == 'E')
                *ign_env = 1;
            else if (*a == 'I')
                *isolated = 1;
            else if (*a == 'S')
                *no_site = 1;
            else if (*a == 'c' || *a == 'm')
                return; /* the rest is the program's */
            else if (*a == 'W' || *a == 'X') {
                const char *v = a[1] ? a + 1 : argv[i + 1];
                if (*a == 'X' && v && strncmp(v, "pystats_dir", 11) == 0)
                    *xdir = 1;
                if (!a[1] && argv[i + 1])
                    i++;
                break;
            }
        }
    }
}

static int
has_arg(char **argv, const char *prefix)
{
    for (; *argv; argv++)
        if (strncmp(*argv, prefix, strlen(prefix)) == 0)
            return 1;
    return 0;
}

/* Whether `pyperf` is the command or a module it runs (python -m pyperf). */
static int
runs(char **argv, const char *name)
{
    int i;

    if (strcmp(base_name(argv[0]), name) == 0)
        return 1;
    for (i = 1; argv[i]; i++)
        if (strcmp(argv[i], "-m") == 0 && argv[i + 1] && strcmp(argv[i + 1], name) == 0)
            return 1;
    return 0;
}

#define PYSTATS_VARS "PYTHONSTATS,PYSTATS_DIR,PYSTATS_LABEL,PYSTATS_BACKEND"

/* pyperf passes its workers only the variables listed with
 * --inherit-environ (or all with --copy-env): without them, only pyperf's
 * own process, the harness, would be counted.  For `pyperf timeit|command`
 * (also `python -m pyperf ...`) add ours to the list, or the list itself;
 * returns the command to run (cmd itself, or a new owned array). */
static char **
pyperf_environ(char **cmd, char **extra_arg)
{
    int n, p = -1, i, at = -1;
    char **out;

    for (n = 0; cmd[n]; n++)
        if (p < 0 && ((n == 0 && strcmp(base_name(cmd[0]), "pyperf") == 0) ||
                      (n > 0 && strcmp(cmd[n - 1], "-m") == 0 && strcmp(cmd[n], "pyperf") == 0)))
            p = n;
    if (p < 0 || cmd[p + 1] == NULL ||
        (strcmp(cmd[p + 1], "timeit") != 0 && strcmp(cmd[p + 1], "command") != 0))
        return cmd;
    for (i = p + 2; cmd[i] && strcmp(cmd[i], "--") != 0; i++) {
        if (strcmp(cmd[i], "--copy-env") == 0)
            return cmd;
        if (strncmp(cmd[i], "--inherit-environ", 17) == 0)
            at = i;
    }
    out = cli_xcalloc((size_t)n + 3, sizeof *out);
    if (at >= 0) {
        /* --inherit-environ=LIST or --inherit-environ LIST: extend LIST. */
        int eq = cmd[at][17] == '=';
        int vi = eq ? at : at + 1;
        const char *list = eq ? cmd[at] + 18 : cmd[vi];
        if (list == NULL)
            list = "";
        memcpy(out, cmd, (size_t)n * sizeof *out);
        *extra_arg = cli_xmalloc(strlen(list) + sizeof PYSTATS_VARS + 20);
        sprintf(*extra_arg, "%s%s%s" PYSTATS_VARS, eq ? "--inherit-environ=" : "", list,
                *list ? "," : "");
        if (cmd[vi] == NULL)
            out[n++] = *extra_arg;
        else
            out[vi] = *extra_arg;
    }
    else {
        memcpy(out, cmd, (size_t)(p + 2) * sizeof *out);
        out[p + 2] = "--inherit-environ";
        out[p + 3] = PYSTATS_VARS;
        memcpy(out + p + 4, cmd + p + 2, (size_t)(n - p - 2) * sizeof *out);
    }
    fprintf(stderr,
            "pystats run: pyperf passes its workers only the variables it is told "
            "to: running it with --inherit-environ %s\n",
            PYSTATS_VARS);
    return out;
}

/* A private (0700) directory of its own for the probes' dumps, under
 * $TMPDIR or /tmp: a probe never writes where the user reads (the run's
 * directory would then hold a dump of no run).  A new string, or NULL. */
static char *
probe_dir_make(const char *name)
{
    const char *t = getenv("TMPDIR");
    size_t n;
    char *d;

    if (t == NULL || *t != '/')
        t = "/tmp";
    n = strlen(t) + strlen(name) + 16;
    d = cli_xmalloc(n);
    snprintf(d, n, "%s/%s-XXXXXX", t, name);
    if (mkdtemp(d) == NULL) {
        free(d);
        return NULL;
    }
    return d;
}

/* The probe directory and whatever the probes left in it, gone. */
static void
probe_dir_remove(char *d)
{
    DIR *dh;
    struct dirent *e;

    if (d == NULL)
        return;
    if ((dh = opendir(d)) != NULL) {
        while ((e = readdir(dh)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(dirfd(dh), e->d_name, 0);
        closedir(dh);
    }
    rmdir(d);
    free(d);
}

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
static size_t
say_failures(const char *fdir, const char *dir)
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

/* Why did a run write no dump?  Each likely reason on stderr. */
static void
explain_no_dump(char **cmd, const char *dir, int status_known, int exit_code)
{
    const char *py = is_python(cmd[0]) ? cmd[0] : "python3";
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
    if (is_python(cmd[0])) {
        python_flags(cmd, &ign_env, &isolated, &no_site, &xdir);
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
    if (runs(cmd, "pyperf") && !has_arg(cmd, "--inherit-environ") && !has_arg(cmd, "--copy-env"))
        REASON("pyperf runs its worker processes with only the environment variables it "
               "is told to pass: add --inherit-environ " PYSTATS_VARS " (or --copy-env)\n");
    if (runs(cmd, "pyperformance"))
        REASON("pyperformance runs benchmarks in virtual environments it creates, where "
               "pystats is not installed, and passes only listed variables: install "
               "pystats there and add --inherit-environ PYTHONSTATS,PYSTATS_DIR,"
               "PYSTATS_LABEL,PYSTATS_BACKEND\n");
    if (!ign_env && !isolated && !no_site) {
        char *pd = probe_dir_make("pystats-probe");
        r = probe(hook_ran, "noop", pd);
        probe_dir_remove(pd);
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
        else if (!is_python(cmd[0])) {
            REASON("the startup hook works in %s, so the command's Python processes "
                   "use another interpreter, are started with a cleaned environment, "
                   "or ran no Python code while collecting\n",
                   py);
        }
    }
    if (status_known && exit_code != 0 && exit_code != 127)
        REASON("the command failed (exit status %d) before any Python process wrote "
               "its dump\n",
               exit_code);
    if (reasons == 0)
        REASON("the command started no Python process, or each one ran no Python code "
               "while collection was on\n");
#undef REASON
}

typedef struct run_opts {
    const char *out, *mode, *label;
    m_site_filter sites; /* --code, --no-stdlib: which sites the reports show */
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
        return subcmd_code_prefix(&o->sites, o->prefix, arg);
    case 'N':
        o->sites.no_stdlib = 1;
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

/* Run cmd and wait for it.  Its exit status into *exit_code
 * (*status_known = 1), or 128 + the signal that killed it; returns 0, or
 * -1 if it could not be started. */
static int
run_command(char **cmd, int *exit_code, int *status_known)
{
    struct sigaction ign, old_int, old_quit;
    pid_t pid;
    int st;

    /* Like time(1): Ctrl-C is for the command; the summary still follows. */
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        execvp(cmd[0], cmd);
        {
            int e = errno;
            fputs("pystats: error: cannot run '", stderr);
            cli_fput_esc(stderr, cmd[0]);
            fprintf(stderr, "': %s\n", strerror(e));
        }
        _exit(127);
    }
    if (pid < 0) {
        fprintf(stderr, "pystats: error: cannot start the command: %s\n", strerror(errno));
        return -1;
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    *status_known = 0;
    *exit_code = 0;
    if (WIFEXITED(st)) {
        *status_known = 1;
        *exit_code = WEXITSTATUS(st);
    }
    else if (WIFSIGNALED(st)) {
        *exit_code = 128 + WTERMSIG(st);
    }
    return 0;
}

/* The reports of a run: the paths given, else DIR/report/summary.md,
 * .json and .html (a subdirectory: readers of DIR skip it, so that
 * `pystats summarize DIR` reads the dumps alone).  Returns a cli_exit. */
typedef struct run_reports {
    const char *path[3];
    char own[3][PSF_PATH_MAX];
} run_reports;

static const char *const report_ext[3] = {"md", "json", "html"};
static int (*const report_fn[3])(FILE *, const summary *) = {
    report_markdown,
    report_json,
    report_html,
};

static int
write_reports(const subcmd_common *co, const char *dir, const summary *sum, run_reports *rr)
{
    const char *given[3] = {co->markdown, co->json, co->html};
    char sub[PSF_PATH_MAX - 16];
    int i, r, ret = CLI_EXIT_OK;

    if ((size_t)snprintf(sub, sizeof sub, "%s/report", dir) >= sizeof sub) {
        fputs("pystats: error: ", stderr);
        cli_fput_esc(stderr, dir);
        fputs(": name too long for its reports\n", stderr);
        return CLI_EXIT_OUTPUT;
    }
    if ((!given[0] || !given[1] || !given[2]) && mkdir(sub, 0700) != 0 && errno != EEXIST) {
        int e = errno;
        fputs("pystats: error: ", stderr);
        cli_fput_esc(stderr, sub);
        fprintf(stderr, ": cannot create the report directory: %s\n", strerror(e));
        return CLI_EXIT_OUTPUT;
    }
    for (i = 0; i < 3; i++) {
        rr->path[i] = given[i];
        if (given[i] != NULL)
            continue;
        snprintf(rr->own[i], sizeof rr->own[i], "%s/summary.%s", sub, report_ext[i]);
        rr->path[i] = rr->own[i];
    }
    for (i = 0; i < 3; i++)
        if ((r = subcmd_write_summary(rr->path[i], report_fn[i], sum)) != CLI_EXIT_OK)
            ret = r;
    return ret;
}

/* The group the headline speaks of: the one that executed the most. */
static const summary_group *
main_group(const summary *s)
{
    const summary_group *best = NULL;
    size_t i;
    for (i = 0; i < s->ng; i++)
        if (best == NULL || s->g[i].m.total_exec > best->m.total_exec)
            best = &s->g[i];
    return best;
}

/* One finding of the overview for the headline: "hot code: ...". */
static int
say_finding(const overview *o, size_t k, uint64_t den)
{
    size_t round = k / 3, kind = k % 3;
    char c[32];

    if (kind == 0 && round < o->ncode) {
        const m_code *x = o->code[round];
        /* As "QUALNAME (FILE:LINE)". */
        char *name = text_display(x->qual ? x->qual : x->name);
        cli_count_str(c, sizeof c, x->instructions);
        fputs("pystats run:   hot code: ", stderr);
        cli_fput_esc(stderr, name);
        if (x->qual) {
            char *file = text_display_n(x->name, x->file_len);
            fputs(" (", stderr);
            cli_fput_esc(stderr, file);
            char *line = cli_xstrndup(x->line, x->line_len);
            fputc(':', stderr);
            cli_fput_esc(stderr, line); /* digits (psf_parse_line) */
            fputc(')', stderr);
            free(line);
            free(file);
        }
        fprintf(stderr, ": %s instructions (%.1f%%)\n", c,
                den ? 100.0 * (double)x->instructions / (double)den : 0.0);
        free(name);
        return 1;
    }
    if (kind == 1 && round < o->nfsite) {
        overview_put_fsite(stderr, "pystats run:   ", o->fsite[round]);
        return 1;
    }
    if (kind == 1 && round < o->nsite) {
        const m_csite *st = o->site[round];
        char *fam = text_display(st->family), *file = text_display(st->file),
             *func = text_display(st->func);
        cli_count_str(c, sizeof c, st->attempts);
        fputs("pystats run:   fails to specialize: ", stderr);
        cli_fput_esc(stderr, fam);
        fputs(" at ", stderr);
        cli_fput_esc(stderr, file);
        fputc(':', stderr);
        cli_fput_esc(stderr, st->line);
        fputs(" in ", stderr);
        cli_fput_esc(stderr, func);
        fprintf(stderr, ": %s failed attempts in a row\n", c);
        free(fam);
        free(file);
        free(func);
        return 1;
    }
    if (kind == 2 && round < o->nfam) {
        cli_count_str(c, sizeof c, o->fam[round].generic);
        fputs("pystats run:   runs unspecialized: ", stderr);
        cli_fput_esc(stderr, o->fam[round].family);
        fprintf(stderr, ": %s executions in a generic form\n", c);
        return 1;
    }
    return 0;
}

/* The headline on stderr, after the command's own output: files, trust,
 * instructions, the three findings that matter most (the hottest code,
 * the worst failing site, the family most run unspecialized, in turn),
 * and where the reports are. */
static void
headline(const summary *s, const char *dir, size_t ndumps, const char *verdict,
         const run_reports *rr)
{
    const summary_group *g = main_group(s);
    overview o;
    size_t k, said;
    char c[32];
    int i;

    fprintf(stderr, "pystats run: %zu %s in ", ndumps, ndumps == 1 ? "dump" : "dumps");
    cli_fput_esc(stderr, dir);
    fputc('\n', stderr);
    fprintf(stderr, "pystats run: trust: %s\n", verdict);
    if (g != NULL) {
        if (g->m.total_exec == 0 && g->m.has_census) {
            /* Mode census counts no instruction: say what it holds. */
            uint64_t sites = 0;
            size_t f;
            for (f = 0; f < g->m.ncfam; f++) {
                uint64_t n = g->m.cfam[f].f[M_CF_SITES];
                sites = cli_sat_add(sites, n);
            }
            cli_count_str(c, sizeof c, sites);
            fprintf(stderr, "pystats run: a census, no instructions counted: %s sites", c);
        }
        else {
            cli_count_str(c, sizeof c, g->m.total_exec);
            fprintf(stderr, "pystats run: %s instructions executed", c);
        }
        if (s->ng > 1)
            fprintf(stderr, " in the largest of %zu groups", s->ng);
        fputs(": ", stderr);
        cli_fput_esc(stderr, g->title);
        fputc('\n', stderr);
        overview_build(&o, &g->m);
        if (o.ncode || o.nsite || o.nfam)
            fputs("pystats run: where to look:\n", stderr);
        for (k = 0, said = 0; said < 3 && k < 3 * OVERVIEW_TOP; k++)
            said += (size_t)say_finding(&o, k, g->m.total_exec);
    }
    fputs("pystats run: reports:", stderr);
    for (i = 0; i < 3; i++) {
        fputc(' ', stderr);
        cli_fput_esc(stderr, rr->path[i]);
    }
    fputc('\n', stderr);
}

/* Read, check and summarize what the run wrote, once; the reports, the
 * headline and, with --quiet, the verdict on stdout.  Returns a
 * cli_exit. */
static int
report_run(const subcmd_common *co, const run_opts *o, char *dir, size_t ndumps)
{
    summary_opts so = {.top_pairs = 100, .top_sites = 50, .sites = o->sites};
    load_opts lo = {.quiet = 1};
    char verdict[1024];
    run_reports rr;
    check_set *cs;
    summary sum;
    int ret, wret;
    agg a;

    cs = check_load(&dir, 1, &lo, &a);
    so.trust = check_verdict(cs, verdict, sizeof verdict);
    so.verdict = check_verdict_word(cs);
    ret = check_count(cs, CHECK_ERROR) ? CLI_EXIT_UNTRUSTED : CLI_EXIT_OK;
    check_free(cs);
    agg_sort(&a);
    summary_build(&sum, &a, &so);
    wret = write_reports(co, dir, &sum, &rr);
    fflush(stdout);
    if (wret == CLI_EXIT_OK)
        headline(&sum, dir, ndumps, verdict, &rr);
    if (ret != CLI_EXIT_OK) {
        fputs("pystats run: details: pystats check ", stderr);
        cli_fput_esc(stderr, dir);
        fputc('\n', stderr);
    }
    if (co->quiet)
        printf("verdict: %s\n", verdict);
    summary_free(&sum);
    agg_free(&a);
    return wret != CLI_EXIT_OK ? wret : ret;
}

/* After the command: what it wrote, summarized and checked. */
static int
after_run(const subcmd_common *co, const run_opts *o, const run_dir *rd, const char *fdir,
          char **cmd, int exit_code, int status_known)
{
    size_t ndumps, failed = say_failures(fdir, rd->path);
    int ret;

    if (!same_dir(rd)) {
        fputs("pystats: error: ", stderr);
        cli_fput_esc(stderr, rd->path);
        fputs(" is no longer the directory this run created (renamed, replaced or opened to "
              "others while the command ran): nothing in it is read\n",
              stderr);
        return CLI_EXIT_UNTRUSTED;
    }
    ndumps = count_dumps(rd->path);
    if (ndumps == 0) {
        /* The collector said why: no guessing. */
        if (failed == 0)
            explain_no_dump(cmd, rd->path, status_known, exit_code);
        return CLI_EXIT_INPUT;
    }
    ret = report_run(co, o, rd->path, ndumps);
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
    if ((r = make_run_dir(o.out, &rd)) != 0)
        return r == -2 ? CLI_EXIT_USAGE : CLI_EXIT_OUTPUT;
    given = cmd;
    cmd = pyperf_environ(cmd, &extra);
    set_environment(&o, rd.path);
    /* Where the collector leaves a mark for a dump it could not write. */
    if ((fdir = probe_dir_make("pystats-run")) != NULL)
        setenv("PYSTATS_FAILURE_DIR", fdir, 1);
    fputs("pystats run: dumps go to ", stderr);
    cli_fput_esc(stderr, rd.path);
    fputc('\n', stderr);
    fflush(NULL);
    if (run_command(cmd, &exit_code, &status_known) != 0)
        ret = CLI_EXIT_INTERNAL;
    else
        ret = after_run(&co, &o, &rd, fdir, cmd, exit_code, status_known);
    probe_dir_remove(fdir);
    if (cmd != given)
        free(cmd);
    free(extra);
    free(rd.path);
    return ret;
}
