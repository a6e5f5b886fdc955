/* dump.c: writing the counts out: on request, at exit (after atexit
 * handlers), from os._exit, on SIGTERM; and starting afresh in a fork
 * child.
 *
 * Every path ends in pc_dump(), which reads only pc_g and writes with
 * the signal-safe writer of src/format, so it works from Py_AtExit
 * (after the interpreter is gone) and from a signal handler.
 */
#include "dump.h"
#include "backend.h"
#include "lifecycle.h"
#include "census.h"
#include "census_sites.h"
#include "stats.h"
#include "segments.h"
#include "hotcode.h"
#include "guard.h"
#include "../format/psf_version.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const reason_names[] = {
    [PC_REASON_EXIT] = "exit",
    [PC_REASON_EXPLICIT] = "explicit",
    [PC_REASON_OS_EXIT] = "os._exit",
    [PC_REASON_SIGNAL] = "signal",
};

static void
say(const char *a, const char *b, const char *c, const char *d)
{
    char msg[PSF_PATH_MAX + 256];
    msg[0] = '\0';
    psf_strlcat(msg, "pystats: ", sizeof msg);
    psf_strlcat(msg, a, sizeof msg);
    psf_strlcat(msg, b ? b : "", sizeof msg);
    psf_strlcat(msg, c ? c : "", sizeof msg);
    psf_strlcat(msg, d ? d : "", sizeof msg);
    psf_strlcat(msg, "\n", sizeof msg);
    if (write(2, msg, strlen(msg)) < 0) {
        /* nowhere left to say it */
    }
}

/* The output directory (pc_g.dir holds its name, or the start of a
 * name too long for a path). */
static int dir_is_default;             /* may fall back to the private one */
static char dir_private[PSF_PATH_MAX]; /* the default's fallback: DIR-EUID */
static size_t dir_too_long;            /* the length of a name that did not fit */
static int fallback_said;              /* the private one was announced */

void
pc_dump_set_dir(const char *dir, int is_default)
{
    size_t n = strlen(dir);
    dir_is_default = is_default;
    dir_too_long = 0;
    if (n >= sizeof pc_g.dir) {
        /* Shown as its first bytes and its length: "/a/b... (6001 bytes)" */
        char num[24];
        dir_too_long = n;
        memcpy(pc_g.dir, dir, 120);
        pc_g.dir[120] = '\0';
        psf_u64_to_str((uint64_t)n, num);
        psf_strlcat(pc_g.dir, "... (", sizeof pc_g.dir);
        psf_strlcat(pc_g.dir, num, sizeof pc_g.dir);
        psf_strlcat(pc_g.dir, " bytes)", sizeof pc_g.dir);
        return;
    }
    psf_strlcpy(pc_g.dir, dir, sizeof pc_g.dir);
}

/* Open the directory a dump goes to, by the rules of psf_dir_open();
 * the default falls back to the user's private directory (said once).
 * Returns 0 with *fd open, or an error for psf_dir_strerror(); where
 * names the directory tried last. */
static int
open_dir(int *fd, char *where, size_t size, long *owner)
{
    char why[96];
    int err;

    *fd = -1;
    *owner = -1;
    psf_strlcpy(where, pc_g.dir, size);
    if (dir_too_long)
        return ENAMETOOLONG;
    err = psf_dir_open(pc_g.dir, 0775, fd, owner);
    if (err == 0 && dir_is_default && (err = psf_dir_writable(*fd)) != 0) {
        close(*fd);
        *fd = -1;
    }
    if (err == 0 || !dir_is_default)
        return err;
    /* The shared default is not this user's (another user made it, or
     * it is open to all): a directory of their own next to it, named by
     * the effective user of the moment (a program may have changed it). */
    {
        char num[24];
        psf_u64_to_str((uint64_t)geteuid(), num);
        psf_strlcpy(dir_private, pc_g.dir, sizeof dir_private);
        psf_strlcat(dir_private, "-", sizeof dir_private);
        if (psf_strlcat(dir_private, num, sizeof dir_private) >= sizeof dir_private)
            return err;
    }
    if (!fallback_said) {
        char msg[PSF_PATH_MAX];
        fallback_said = 1;
        psf_strlcpy(msg, ": ", sizeof msg);
        psf_strlcat(msg, psf_dir_strerror(err, *owner, why, sizeof why), sizeof msg);
        psf_strlcat(msg, "; this user's dumps go to ", sizeof msg);
        say(pc_g.dir, msg, dir_private, " instead");
    }
    psf_strlcpy(where, dir_private, size);
    return psf_dir_open(dir_private, 0700, fd, owner);
}

static void
put_int_header(psf_out *o, const char *key, long v)
{
    char num[24];
    if (v < 0) {
        num[0] = '-';
        psf_u64_to_str((uint64_t)(-v), num + 1);
    }
    else {
        psf_u64_to_str((uint64_t)v, num);
    }
    psf_put_header(o, key, num);
}

/* The report of the period's first desync, written beside the dump:
 * DIR/desync/pystats-desync-PID-RANDOM.txt (a directory, which readers
 * of DIR skip), named in the dump's header.  Only into a subdirectory
 * this user owns and that is no link; a failure loses the report only. */
static char report_name[PSF_PATH_MAX]; /* desync/NAME, or "" */

static void
write_report(int dirfd)
{
    const char *text = pc_seg_desync_report();
    struct stat st;
    psf_file f;
    psf_out o;
    int sub;

    report_name[0] = '\0';
    if (text[0] == '\0' || !pc_g.desync_where[0])
        return;
    if (mkdirat(dirfd, "desync", 0700) < 0 && errno != EEXIST)
        return;
    sub = openat(dirfd, "desync", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0)
        return;
    if (fstat(sub, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & S_IWOTH) ||
        psf_file_open(&f, sub, "pystats-desync")) {
        close(sub);
        return;
    }
    psf_out_init(&o, f.fd);
    psf_put(&o, "pystats desync report\ncollector: pystats " PSF_VERSION "\npython: ");
    psf_put(&o, pc_g.meta.sys_version);
    psf_put(&o, "\nmode: ");
    psf_put(&o, pc_mode_name(pc_g.mode));
    psf_put(&o, "\nfirst desync: ");
    psf_put(&o, pc_g.desync_where);
    psf_put(&o, "\n");
    psf_put(&o, text);
    if (psf_out_flush(&o) == 0 && psf_file_commit(&f) == 0) {
        psf_strlcpy(report_name, "desync/", sizeof report_name);
        psf_strlcat(report_name, f.name, sizeof report_name);
    }
    else if (f.fd >= 0) {
        psf_file_abort(&f);
    }
    close(sub);
}

/* benchmark.calls (FORMAT.md 1.19): the benchmark calls a harness says
 * the counts of this dump period cover; written when non-zero, zeroed
 * with the period (pc_dump_calls_clear()). */
static uint64_t bench_calls;

void
pc_dump_add_calls(uint64_t n)
{
    bench_calls = bench_calls > UINT64_MAX - n ? UINT64_MAX : bench_calls + n;
}

void
pc_dump_calls_clear(void)
{
    bench_calls = 0;
}

static void
write_dump(psf_out *o, pc_reason reason)
{
    const pc_meta *m = &pc_g.meta;
    char when[40];
    struct timespec now;
    int i, j;

    psf_put_header(o, PSF_H_FORMAT, PSF_FORMAT_VERSION_TEXT);
    psf_put_header(o, PSF_H_COLLECTOR, "pystats " PSF_VERSION);
    psf_put_header(o, PSF_H_COUNTS, PSF_COUNTS_BASE);
    psf_put_header(o, PSF_H_PY_VERSION, m->python_version);
    psf_put_header(o, PSF_H_PY_IMPL, m->implementation);
    psf_put_header(o, PSF_H_PY_SYS_VERSION, m->sys_version);
    psf_put_header(o, PSF_H_PY_GIT, m->git);
    psf_put_header(o, PSF_H_PY_CONFIG_ARGS, m->config_args);
    put_int_header(o, PSF_H_PY_PYSTATS_BUILD, m->pystats_build);
    put_int_header(o, PSF_H_PY_FREE_THREADING, m->free_threading);
    put_int_header(o, PSF_H_PY_JIT, m->jit);
    psf_put_header(o, PSF_H_MODE, pc_mode_name(pc_g.mode));
    psf_put_header(o, PSF_H_MECHANISM, pc_backend_name());
    psf_put_header(o, PSF_H_METHOD,
                   pc_seg_mode() || pc_g.mode == PC_MODE_NOOP_SEGMENTS ||
                           pc_g.mode == PC_MODE_NOOP_QUIET
                       ? "segments"
                       : "instructions");
    put_int_header(o, PSF_H_WINDOWS, (long)pc_g.windows);
    put_int_header(o, PSF_H_ON_AT_DUMP, pc_g.on);
    put_int_header(o, PSF_H_PID, (long)getpid());
    put_int_header(o, PSF_H_PPID, pc_g.forked ? pc_g.ppid : (long)getppid());
    put_int_header(o, PSF_H_FORKED, pc_g.forked);
    if (m->run_id[0])
        psf_put_header(o, PSF_H_RUN_ID, m->run_id);
    if (pc_g.started) {
        psf_format_time(when, pc_g.start.tv_sec, pc_g.start.tv_nsec);
        psf_put_header(o, PSF_H_TIME_START, when);
    }
    clock_gettime(CLOCK_REALTIME, &now);
    psf_format_time(when, now.tv_sec, now.tv_nsec);
    psf_put_header(o, PSF_H_TIME_END, when);
    psf_put_header(o, PSF_H_REASON, reason_names[reason]);
    psf_put_header(o, PSF_H_LABEL, m->label);
    if (m->cwd[0])
        psf_put_header(o, PSF_H_CWD, m->cwd);
    if (m->sys_path[0])
        psf_put_header(o, PSF_H_PY_PATH, m->sys_path);
    /* With a census: "census" (every family read) or "count" (taken
     * alongside segment counting: census.excluded_family says which
     * families were left out). */
    if (pc_census_scope_name() != NULL)
        psf_put_header(o, PSF_H_CENSUS_SCOPE, pc_census_scope_name());
    else if (pc_census_error() != NULL)
        psf_put_header(o, PSF_H_CENSUS_ERROR, pc_census_error());
    /* What made the counts inexact, if anything did (guard.c). */
    pc_guard_write(o);
    if (report_name[0])
        psf_put_header(o, PSF_H_DESYNC_REPORT, report_name);
    /* What a signal's dump could not cut, bounded (lifecycle.c). */
    pc_leftover_write(o);

    if (pc_stats_has_data())
        pc_stats_write(o);
    if (pc_census_has_data()) {
        pc_census_write(o);
        pc_sites_write(o);
    }
    pc_hot_write(o);
    if (bench_calls)
        psf_put_counter(o, PSF_KEY_BENCH_CALLS, bench_calls);
    for (i = 0; i < PC_NOPS; i++) {
        if (!pc_g.exec[i])
            continue;
        psf_put_exec(o, pc_g.opname[i], pc_g.exec[i]);
        for (j = 0; j < PC_NOPS; j++)
            if (pc_g.pair[i][j])
                psf_put_pair(o, pc_g.opname[i], pc_g.opname[j], pc_g.pair[i][j]);
    }
}

/* A dump that could not be written into its directory (a full disk, a
 * read-only or vanished directory) leaves a mark where whoever started
 * the process looks (`pystats run`: FORMAT.md 1.5): an empty file
 * PYSTATS_FAILURE_DIR/PID.ERR, ERR the errno (or psf_dir_open()'s
 * negative code).  Empty, so that a full disk can still take it (an
 * inode, no data); made with O_EXCL and never followed through a link.
 * Signal-safe: getenv reads, open/close, the format's string helpers. */
static void
mark_failure(int err)
{
    const char *d = getenv("PYSTATS_FAILURE_DIR");
    char path[PSF_PATH_MAX], num[24];
    int fd;

    if (d == NULL || d[0] != '/')
        return;
    psf_strlcpy(path, d, sizeof path);
    psf_strlcat(path, "/", sizeof path);
    psf_u64_to_str((uint64_t)getpid(), num);
    psf_strlcat(path, num, sizeof path);
    psf_strlcat(path, err < 0 ? ".-" : ".", sizeof path);
    psf_u64_to_str((uint64_t)(err < 0 ? -(long)err : (long)err), num);
    if (psf_strlcat(path, num, sizeof path) >= sizeof path)
        return;
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

/* Write what was counted since the last dump or clear, settled by the
 * caller (lifecycle.h's pc_settle).  Returns
 * PC_DUMP_FILE, PC_DUMP_STDERR (the directory failed: said so and wrote
 * the dump to stderr), PC_DUMP_NOTHING or PC_DUMP_FAILED.  Does not
 * clear: the caller decides. */
int
pc_dump(pc_reason reason)
{
    psf_file f;
    psf_out o;
    char where[PSF_PATH_MAX], why[96];
    long owner;
    int err, dirfd, ret = PC_DUMP_FAILED;

    if (pc_g.dumping || !pc_has_data())
        return PC_DUMP_NOTHING;
    pc_g.dumping = 1;
    err = open_dir(&dirfd, where, sizeof where, &owner);
    report_name[0] = '\0';
    if (err == 0)
        write_report(dirfd);
    if (err == 0)
        err = psf_file_open(&f, dirfd, "pystats");
    if (err == 0) {
        psf_out_init(&o, f.fd);
        write_dump(&o, reason);
        err = psf_out_flush(&o);
        if (err == 0)
            err = psf_file_commit(&f);
        else
            psf_file_abort(&f);
        if (err == 0)
            ret = PC_DUMP_FILE;
    }
    if (dirfd >= 0)
        close(dirfd);
    if (err != 0) {
        /* Never drop counts silently: say why, and put the dump itself
         * on stderr where the user can still recover it. */
        say("cannot write a dump into ", where, ": ",
            psf_dir_strerror(err, owner, why, sizeof why));
        mark_failure(err);
        say("writing the dump to stderr instead", NULL, NULL, NULL);
        psf_out_init(&o, 2);
        write_dump(&o, reason);
        if (psf_out_flush(&o) == 0)
            ret = PC_DUMP_STDERR;
    }
    pc_g.dumping = 0;
    if (pc_g.term_pending) {
        signal(SIGTERM, SIG_DFL);
        raise(SIGTERM);
    }
    return ret;
}

/* ---- exit paths ---- */

static void
at_exit(void)
{
    pc_settle(PC_SETTLE_EXIT);
    pc_dump(PC_REASON_EXIT);
}

static void
on_sigterm(int sig)
{
    int saved = errno;
    /* A dump being written, or a settle half done (its cut, fold or
     * clear, which this handler's settle would fold again: counts taken
     * twice, a false desync): left pending, honoured when it is whole
     * (pc_dump; lifecycle.c raises it again). */
    if (pc_g.dumping || pc_g.settling) {
        pc_g.term_pending = 1;
        return;
    }
    pc_settle(PC_SETTLE_SIGNAL);
    pc_dump(PC_REASON_SIGNAL);
    /* Then die of the signal, as the default action would have.  SIGTERM
     * stays blocked until this handler returns, so a second one (the
     * parent insisting) cannot cut the dump short. */
    signal(sig, SIG_DFL);
    errno = saved;
    raise(sig);
}

static PyObject *orig_os_exit; /* owned */

static PyObject *
os_exit_hook(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (pc_census_take() < 0)
        PyErr_WriteUnraisable(NULL);
    pc_settle(PC_SETTLE_API); /* os._exit's own CALL is counted */
    pc_dump(PC_REASON_OS_EXIT);
    pc_settle_end(PC_SETTLE_API);
    return PyObject_Vectorcall(orig_os_exit, args, (size_t)nargs, NULL);
}

static PyMethodDef os_exit_def = {
    "_exit", (PyCFunction)(void (*)(void))os_exit_hook, METH_FASTCALL,
    PyDoc_STR("_exit($module, status, /)\n--\n\n"
              "Exit to the system with specified status, without normal "
              "exit processing.\n\npystats writes what it collected "
              "first, then calls the original os._exit.")};

int
pc_dump_install_hooks(PyObject *os_module)
{
    static int done;
    struct sigaction old;
    PyObject *hook = NULL; /* owned */

    if (done)
        return 0;
    if (Py_AtExit(at_exit) < 0) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: no room for an exit function");
        return -1;
    }
    if (pthread_atfork(NULL, NULL, pc_after_fork) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: pthread_atfork failed");
        return -1;
    }
    /* SIGTERM: only where the program left the default action, which
     * would kill the process without a word (Pool.terminate()). */
    if (sigaction(SIGTERM, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
        old.sa_handler == SIG_DFL) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigterm;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;
        sigaction(SIGTERM, &sa, NULL);
    }
    orig_os_exit = PyObject_GetAttrString(os_module, "_exit");
    if (orig_os_exit == NULL)
        return -1;
    hook = PyCFunction_New(&os_exit_def, NULL);
    if (hook == NULL || PyObject_SetAttrString(os_module, "_exit", hook) < 0) {
        Py_XDECREF(hook);
        return -1;
    }
    Py_DECREF(hook);
    done = 1;
    return 0;
}

/* ---- snapshot ---- */

PyObject *
pc_snapshot(void)
{
    PyObject *result = NULL, *exec = NULL, *pairs = NULL; /* owned */
    int i, j;

    exec = PyDict_New();
    pairs = PyDict_New();
    if (exec == NULL || pairs == NULL)
        goto error;
    for (i = 0; i < PC_NOPS; i++) {
        PyObject *v;
        if (!pc_g.exec[i])
            continue;
        v = PyLong_FromUnsignedLongLong(pc_g.exec[i]);
        if (v == NULL || PyDict_SetItemString(exec, pc_g.opname[i], v) < 0) {
            Py_XDECREF(v);
            goto error;
        }
        Py_DECREF(v);
        for (j = 0; j < PC_NOPS; j++) {
            PyObject *k;
            if (!pc_g.pair[i][j])
                continue;
            k = Py_BuildValue("(ss)", pc_g.opname[i], pc_g.opname[j]);
            v = PyLong_FromUnsignedLongLong(pc_g.pair[i][j]);
            if (k == NULL || v == NULL || PyDict_SetItem(pairs, k, v) < 0) {
                Py_XDECREF(k);
                Py_XDECREF(v);
                goto error;
            }
            Py_DECREF(k);
            Py_DECREF(v);
        }
    }
    result = Py_BuildValue("{sOsO}", "execution_count", exec, "pair_count", pairs);
    if (result != NULL && (pc_stats_snapshot(result) < 0 || pc_hot_snapshot(result) < 0))
        Py_CLEAR(result);
error:
    Py_XDECREF(exec);
    Py_XDECREF(pairs);
    return result;
}
