/* faultshim.c: an LD_PRELOAD library that makes file system calls fail
 * on demand, to test how a process writes its files with the disk full,
 * the directory unwritable or the device failing.
 *
 * Only calls on paths under PSF_FAULT_DIR, on file descriptors opened
 * there, and on names relative to such a descriptor (openat, renameat,
 * unlinkat, mkdirat with a directory opened there) are candidates; they are numbered from 1 in the order
 * they happen (all threads, one process: a forked child keeps counting
 * from its parent's number).
 *
 *   PSF_FAULT_DIR    the directory (prefix of the path) whose calls may fail
 *   PSF_FAULT_OPS    candidate calls, comma-separated (default: all of
 *                    open,write,fsync,close,rename,mkdir,unlink)
 *   PSF_FAULT_AT     N: the Nth candidate fails; N-: it and every later
 *                    one fail (a full disk stays full); 0 or unset: none
 *   PSF_FAULT_ERRNO  ENOSPC, EIO, EACCES, EROFS, EDQUOT, ENOENT or a
 *                    number (default EIO)
 *   PSF_FAULT_SHORT  1: a failing write() first writes half its bytes
 *                    and returns that short count; the next write() on
 *                    the same descriptor fails (what a filling disk does)
 *   PSF_FAULT_LOG    a file that gets one line per candidate call:
 *                    "N op ok" or "N op fail ERRNO"
 *
 * Allocations (malloc, calloc, realloc; every one of the process, counted
 * apart from the file system calls, from the shim's start):
 *
 *   PSF_FAULT_ALLOC_AT     N: the Nth allocation returns NULL (ENOMEM);
 *                          N-: it and every later one
 *   PSF_FAULT_ALLOC_COUNT  a file that gets the number of allocations
 *                          made, written at exit (to choose N)
 *
 * Everything here is async-signal-safe (the collector writes dumps from
 * a SIGTERM handler): no malloc, no stdio, no locks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FDS 65536

enum { OP_OPEN, OP_WRITE, OP_FSYNC, OP_CLOSE, OP_RENAME, OP_MKDIR, OP_UNLINK,
       N_OPS };
static const char *const op_names[N_OPS] = {"open", "write", "fsync", "close",
                                            "rename", "mkdir", "unlink"};

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_close)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_mkdir)(const char *, mode_t);
static int (*real_unlink)(const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_unlinkat)(int, const char *, int);
static int (*real_mkdirat)(int, const char *, mode_t);

static char dir[4096];
static size_t dir_len;
static int ops_on[N_OPS];
static unsigned long fail_at;       /* 0: never */
static int fail_onwards;
static int fail_errno = EIO;
static int short_writes;
static int log_fd = -1;
static unsigned long counter;
static unsigned char watched[MAX_FDS];  /* fd opened under dir */
static unsigned char doomed[MAX_FDS];   /* next write fails (after short) */
static unsigned long alloc_at;          /* 0: never */
static int alloc_onwards;
static unsigned long allocs;
static int alloc_on;                    /* counting (after init) */
static char alloc_count_path[4096];

/* glibc's own allocator, under the names it exports for this. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static int
alloc_fails(void)
{
    unsigned long n;
    if (!alloc_on)
        return 0;
    n = __atomic_add_fetch(&allocs, 1, __ATOMIC_SEQ_CST);
    if (alloc_at && (n == alloc_at || (alloc_onwards && n > alloc_at))) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *
malloc(size_t n)
{
    return alloc_fails() ? NULL : __libc_malloc(n);
}

void *
calloc(size_t n, size_t size)
{
    return alloc_fails() ? NULL : __libc_calloc(n, size);
}

void *
realloc(void *p, size_t n)
{
    return alloc_fails() ? NULL : __libc_realloc(p, n);
}

__attribute__((destructor)) static void
alloc_report(void)
{
    char num[24];
    int i = 0, fd;
    unsigned long v = allocs;
    char out[24];
    int k = 0;

    if (!alloc_count_path[0] || !real_open)
        return;
    do {
        num[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (i)
        out[k++] = num[--i];
    out[k++] = '\n';
    fd = real_open(alloc_count_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (real_write(fd, out, (size_t)k) < 0) {
            /* nothing to do */
        }
        real_close(fd);
    }
}

static int
errno_from(const char *s)
{
    static const struct { const char *name; int value; } names[] = {
        {"ENOSPC", ENOSPC}, {"EIO", EIO},       {"EACCES", EACCES},
        {"EROFS", EROFS},   {"EDQUOT", EDQUOT}, {"ENOENT", ENOENT},
        {"EPERM", EPERM},   {"EFBIG", EFBIG},
    };
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].name))
            return names[i].value;
    return atoi(s) > 0 ? atoi(s) : EIO;
}

__attribute__((constructor)) static void
init(void)
{
    const char *s;
    int i;

    real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    real_open64 = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
    real_openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    real_openat64 =
        (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat64");
    real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    real_rename = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    real_mkdir = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
    real_unlink = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    real_renameat = (int (*)(int, const char *, int, const char *))dlsym(
        RTLD_NEXT, "renameat");
    real_unlinkat = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
    real_mkdirat = (int (*)(int, const char *, mode_t))dlsym(RTLD_NEXT, "mkdirat");

    s = getenv("PSF_FAULT_DIR");
    if (s && *s && strlen(s) < sizeof dir) {
        strcpy(dir, s);
        dir_len = strlen(dir);
        while (dir_len > 1 && dir[dir_len - 1] == '/')
            dir[--dir_len] = '\0';
    }
    s = getenv("PSF_FAULT_OPS");
    for (i = 0; i < N_OPS; i++) {
        if (!s || !*s) {
            ops_on[i] = 1;
            continue;
        }
        {
            const char *p = s;
            size_t n = strlen(op_names[i]);
            while ((p = strstr(p, op_names[i])) != NULL) {
                if ((p == s || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) {
                    ops_on[i] = 1;
                    break;
                }
                p += n;
            }
        }
    }
    s = getenv("PSF_FAULT_AT");
    if (s && *s) {
        char *end;
        fail_at = strtoul(s, &end, 10);
        fail_onwards = *end == '-';
    }
    s = getenv("PSF_FAULT_ERRNO");
    if (s && *s)
        fail_errno = errno_from(s);
    s = getenv("PSF_FAULT_SHORT");
    short_writes = s && *s == '1';
    s = getenv("PSF_FAULT_LOG");
    if (s && *s && real_open)
        log_fd = real_open(s, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    s = getenv("PSF_FAULT_ALLOC_COUNT");
    if (s && *s && strlen(s) < sizeof alloc_count_path)
        strcpy(alloc_count_path, s);
    s = getenv("PSF_FAULT_ALLOC_AT");
    if (s && *s) {
        char *end;
        alloc_at = strtoul(s, &end, 10);
        alloc_onwards = *end == '-';
    }
    alloc_on = alloc_at != 0 || alloc_count_path[0] != '\0';
}

static int
under_dir(const char *path)
{
    return dir_len && path && !strncmp(path, dir, dir_len) &&
           (path[dir_len] == '/' || path[dir_len] == '\0');
}

static void
log_call(unsigned long n, int op, int failed)
{
    char line[128], num[24], *p = line;
    int i = 0;
    unsigned long v = n;
    if (log_fd < 0)
        return;
    do {
        num[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (i)
        *p++ = num[--i];
    *p++ = ' ';
    p = stpcpy(p, op_names[op]);
    p = stpcpy(p, failed ? " fail " : " ok");
    if (failed) {
        const char *e = strerrorname_np(fail_errno);
        p = stpcpy(p, e ? e : "?");
    }
    *p++ = '\n';
    if (real_write(log_fd, line, (size_t)(p - line)) < 0) {
        /* nothing to do */
    }
}

/* Number this candidate call; nonzero if it must fail. */
static int
must_fail(int op)
{
    unsigned long n;
    int fail;
    if (!ops_on[op])
        return 0;
    n = __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
    fail = fail_at && (n == fail_at || (fail_onwards && n > fail_at));
    log_call(n, op, fail);
    return fail;
}

static int
watched_fd(int fd)
{
    return fd >= 0 && fd < MAX_FDS && watched[fd];
}

/* A path under the directory: absolute under PSF_FAULT_DIR, or relative
 * to a descriptor opened there. */
static int
under_at(int atfd, const char *path)
{
    if (path && path[0] != '/' && atfd != AT_FDCWD)
        return watched_fd(atfd);
    return under_dir(path);
}

static int
do_open(int (*real)(const char *, int, ...), int atfd,
        int (*realat)(int, const char *, int, ...), const char *path,
        int flags, mode_t mode)
{
    int fd;
    int under = real ? under_dir(path) : under_at(atfd, path);
    if (under && must_fail(OP_OPEN)) {
        errno = fail_errno;
        return -1;
    }
    fd = real ? real(path, flags, mode) : realat(atfd, path, flags, mode);
    if (fd >= 0 && fd < MAX_FDS) {
        watched[fd] = (unsigned char)under;
        doomed[fd] = 0;
    }
    return fd;
}

#define MODE_ARG(flags, mode)                                                 \
    do {                                                                      \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                                \
            va_list ap;                                                       \
            va_start(ap, flags);                                              \
            mode = (mode_t)va_arg(ap, int);                                   \
            va_end(ap);                                                       \
        }                                                                     \
    } while (0)

int
open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    return do_open(real_open, 0, NULL, path, flags, mode);
}

int
open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    return do_open(real_open64 ? real_open64 : real_open, 0, NULL, path, flags,
                   mode);
}

int
openat(int atfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    return do_open(NULL, atfd, real_openat, path, flags, mode);
}

int
openat64(int atfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    return do_open(NULL, atfd, real_openat64 ? real_openat64 : real_openat,
                   path, flags, mode);
}

ssize_t
write(int fd, const void *buf, size_t n)
{
    if (watched_fd(fd)) {
        if (doomed[fd]) {
            doomed[fd] = 0;
            errno = fail_errno;
            return -1;
        }
        if (must_fail(OP_WRITE)) {
            if (short_writes && n > 1) {
                ssize_t k = real_write(fd, buf, n / 2);
                if (k > 0) {
                    doomed[fd] = 1;
                    return k;
                }
            }
            errno = fail_errno;
            return -1;
        }
    }
    return real_write(fd, buf, n);
}

int
fsync(int fd)
{
    if (watched_fd(fd) && must_fail(OP_FSYNC)) {
        errno = fail_errno;
        return -1;
    }
    return real_fsync(fd);
}

int
fdatasync(int fd)
{
    if (watched_fd(fd) && must_fail(OP_FSYNC)) {
        errno = fail_errno;
        return -1;
    }
    return real_fdatasync(fd);
}

int
close(int fd)
{
    if (watched_fd(fd)) {
        int fail = must_fail(OP_CLOSE);
        watched[fd] = doomed[fd] = 0;
        /* As Linux does: the descriptor is released even when close()
         * reports an error. */
        real_close(fd);
        if (fail) {
            errno = fail_errno;
            return -1;
        }
        return 0;
    }
    return real_close(fd);
}

int
rename(const char *from, const char *to)
{
    if ((under_dir(from) || under_dir(to)) && must_fail(OP_RENAME)) {
        errno = fail_errno;
        return -1;
    }
    return real_rename(from, to);
}

int
mkdir(const char *path, mode_t mode)
{
    if (under_dir(path) && must_fail(OP_MKDIR)) {
        errno = fail_errno;
        return -1;
    }
    return real_mkdir(path, mode);
}

int
unlink(const char *path)
{
    if (under_dir(path) && must_fail(OP_UNLINK)) {
        errno = fail_errno;
        return -1;
    }
    return real_unlink(path);
}

int
renameat(int fromfd, const char *from, int tofd, const char *to)
{
    if ((under_at(fromfd, from) || under_at(tofd, to)) && must_fail(OP_RENAME)) {
        errno = fail_errno;
        return -1;
    }
    return real_renameat(fromfd, from, tofd, to);
}

int
unlinkat(int atfd, const char *path, int flags)
{
    if (under_at(atfd, path) && must_fail(OP_UNLINK)) {
        errno = fail_errno;
        return -1;
    }
    return real_unlinkat(atfd, path, flags);
}

int
mkdirat(int atfd, const char *path, mode_t mode)
{
    if (under_at(atfd, path) && must_fail(OP_MKDIR)) {
        errno = fail_errno;
        return -1;
    }
    return real_mkdirat(atfd, path, mode);
}
