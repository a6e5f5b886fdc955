/* psf_write.c: the dump writer: buffered, async-signal-safe, and a file
 * appears under its final name only once it is complete. */
#include "psf_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void
psf_out_init(psf_out *o, int fd)
{
    o->fd = fd;
    o->err = 0;
    o->len = 0;
}

static void
out_drain(psf_out *o)
{
    size_t done = 0;
    while (done < o->len && o->err == 0) {
        ssize_t n = write(o->fd, o->buf + done, o->len - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            o->err = errno;
        }
        else if (n == 0) {
            o->err = EIO;
        }
        else {
            done += (size_t)n;
        }
    }
    o->len = 0;
}

void
psf_put_n(psf_out *o, const char *s, size_t n)
{
    while (n > 0 && o->err == 0) {
        size_t room = sizeof(o->buf) - o->len;
        size_t k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
        if (o->len == sizeof(o->buf))
            out_drain(o);
    }
}

void
psf_put(psf_out *o, const char *s)
{
    psf_put_n(o, s, strlen(s));
}

size_t
psf_u64_to_str(uint64_t v, char *buf)
{
    char tmp[24];
    size_t n = 0, i;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

void
psf_put_u64(psf_out *o, uint64_t v)
{
    char tmp[24];
    size_t n = psf_u64_to_str(v, tmp);
    psf_put_n(o, tmp, n);
}

void
psf_put_header(psf_out *o, const char *key, const char *value)
{
    const char *p;
    psf_put(o, key);
    psf_put_n(o, " : ", 3);
    /* A value is one line: newlines would start a line of their own. */
    for (p = value ? value : ""; *p; p++) {
        char c = (*p == '\n' || *p == '\r') ? ' ' : *p;
        psf_put_n(o, &c, 1);
    }
    psf_put_n(o, "\n", 1);
}

void
psf_put_value(psf_out *o, uint64_t v)
{
    psf_put_n(o, " : ", 3);
    psf_put_u64(o, v);
    psf_put_n(o, "\n", 1);
}

void
psf_put_counter(psf_out *o, const char *key, uint64_t v)
{
    psf_put(o, key);
    psf_put_value(o, v);
}

void
psf_put_exec(psf_out *o, const char *op, uint64_t v)
{
    psf_put_n(o, PSF_KEY_OPCODE, sizeof PSF_KEY_OPCODE - 1);
    psf_put(o, op);
    psf_put_n(o, PSF_KEY_EXEC, sizeof PSF_KEY_EXEC - 1);
    psf_put_value(o, v);
}

void
psf_put_pair(psf_out *o, const char *a, const char *b, uint64_t v)
{
    psf_put_n(o, PSF_KEY_OPCODE, sizeof PSF_KEY_OPCODE - 1);
    psf_put(o, a);
    psf_put_n(o, PSF_KEY_PAIR, sizeof PSF_KEY_PAIR - 1);
    psf_put(o, b);
    psf_put_n(o, "]", 1);
    psf_put_value(o, v);
}

int
psf_out_flush(psf_out *o)
{
    out_drain(o);
    return o->err;
}

size_t
psf_strlcpy(char *dst, const char *src, size_t size)
{
    size_t n = strlen(src);
    if (size) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(dst, src, k);
        dst[k] = '\0';
    }
    return n;
}

size_t
psf_strlcat(char *dst, const char *src, size_t size)
{
    size_t d = strnlen(dst, size);
    if (d == size)
        return d + strlen(src);
    return d + psf_strlcpy(dst + d, src, size - d);
}

/* The parents of dir, mkdir -p style, signal-safe: walks the path in a
 * local copy.  dir itself is left to the caller. */
static int
make_parents(char *tmp)
{
    char *p;
    for (p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            int err = errno;
            *p = '/';
            return err;
        }
        *p = '/';
    }
    return 0;
}

int
psf_dir_check(unsigned long mode, unsigned long owner)
{
    unsigned long uid = (unsigned long)geteuid();
    if (!S_ISDIR((mode_t)mode))
        return ENOTDIR;
    if (owner != uid && owner != 0)
        return PSF_EDIR_OWNER;
    if ((mode & S_IWOTH) && !(mode & S_ISVTX))
        return PSF_EDIR_OPEN;
    return 0;
}

int
psf_dir_open(const char *dir, unsigned mode, int *fd, long *owner)
{
    char tmp[PSF_PATH_MAX];
    size_t n;
    struct stat st;
    int err;

    *fd = -1;
    if (owner)
        *owner = -1;
    n = psf_strlcpy(tmp, dir, sizeof tmp);
    if (n >= sizeof tmp)
        return ENAMETOOLONG;
    if (n == 0)
        return ENOENT;
    /* "dir/" would follow a symbolic link named dir. */
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = '\0';
    err = make_parents(tmp);
    if (err)
        return err;
    if (mkdir(tmp, (mode_t)mode) != 0 && errno != EEXIST)
        return errno;
    *fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0) {
        err = errno;
        if (err == ELOOP || (err == ENOTDIR && lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode)))
            return PSF_EDIR_SYMLINK;
        return err;
    }
    /* The checks are on what was opened: a directory swapped in after
     * the mkdir is judged as itself. */
    if (fstat(*fd, &st) != 0)
        err = errno;
    else
        err = psf_dir_check((unsigned long)st.st_mode, (unsigned long)st.st_uid);
    if (owner && err == PSF_EDIR_OWNER)
        *owner = (long)st.st_uid;
    if (err) {
        close(*fd);
        *fd = -1;
    }
    return err;
}

int
psf_dir_writable(int fd)
{
    if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
        return errno;
    return 0;
}

const char *
psf_dir_strerror(int err, long owner, char *buf, size_t size)
{
    const char *s;
    char num[24];
    switch (err) {
    case PSF_EDIR_SYMLINK:
        return "a symbolic link (not followed)";
    case PSF_EDIR_OPEN:
        return "writable by others without the sticky bit";
    case PSF_EDIR_OWNER:
        psf_strlcpy(buf, "owned by another user", size);
        if (owner >= 0) {
            psf_u64_to_str((uint64_t)owner, num);
            psf_strlcat(buf, " (uid ", size);
            psf_strlcat(buf, num, size);
            psf_strlcat(buf, ")", size);
        }
        return buf;
    default:
        s = strerrorname_np(err);
        return s ? s : "I/O error";
    }
}

int
psf_default_dirs(const char *base, char *shared, char *private_, size_t size)
{
    char num[24];
    size_t n;
    if (base == NULL || *base == '\0')
        base = "/tmp";
    psf_strlcpy(shared, base, size);
    n = strlen(shared);
    while (n > 1 && shared[n - 1] == '/')
        shared[--n] = '\0';
    if (n > 1 || shared[0] != '/')
        psf_strlcat(shared, "/", size);
    n = psf_strlcat(shared, "py_stats", size);
    psf_strlcpy(private_, shared, size);
    psf_u64_to_str((uint64_t)geteuid(), num);
    psf_strlcat(private_, "-", size);
    if (psf_strlcat(private_, num, size) >= size || n >= size)
        return -1;
    return 0;
}

int
psf_default_dir(const char *base, char *out, size_t size)
{
    char shared[PSF_PATH_MAX], private_[PSF_PATH_MAX];
    struct stat st;
    int fd, ok;

    if (psf_default_dirs(base, shared, private_, sizeof shared) != 0)
        return -1;
    fd = open(shared, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        ok = errno == ENOENT; /* the collector would make it */
    else {
        ok = fstat(fd, &st) == 0 &&
             psf_dir_check((unsigned long)st.st_mode, (unsigned long)st.st_uid) == 0 &&
             psf_dir_writable(fd) == 0;
        close(fd);
    }
    if (psf_strlcpy(out, ok ? shared : private_, size) >= size)
        return -1;
    return !ok;
}

/* 64 random bits: getrandom() where it works (it is signal-safe),
 * otherwise the clock mixed with the pid. */
static uint64_t
random_u64(void)
{
    uint64_t r = 0;
#ifdef SYS_getrandom
    if (syscall(SYS_getrandom, &r, sizeof r, 1 /* GRND_NONBLOCK */) == (long)sizeof r)
        return r;
#endif
    {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = ((uint64_t)ts.tv_sec * 1000000007u) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40);
        r ^= r >> 33;
        r *= 0xff51afd7ed558ccdULL;
        r ^= r >> 33;
    }
    return r;
}

static void
put_hex(char *dst, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    int i;
    for (i = 15; i >= 0; i--) {
        dst[i] = digits[v & 15];
        v >>= 4;
    }
    dst[16] = '\0';
}

int
psf_file_open(psf_file *f, int dirfd, const char *prefix)
{
    char num[24], hex[17];
    struct stat st;
    int tries;

    f->fd = -1;
    f->dirfd = dirfd;
    f->tmp[0] = f->name[0] = '\0';
    for (tries = 0; tries < 16; tries++) {
        /* prefix-PID-RANDOM.txt: unique across processes and dumps. */
        psf_strlcpy(f->name, prefix, sizeof f->name);
        psf_u64_to_str((uint64_t)getpid(), num);
        psf_strlcat(f->name, "-", sizeof f->name);
        psf_strlcat(f->name, num, sizeof f->name);
        put_hex(hex, random_u64());
        psf_strlcat(f->name, "-", sizeof f->name);
        psf_strlcat(f->name, hex, sizeof f->name);
        psf_strlcat(f->name, ".txt", sizeof f->name);
        /* Readers skip names starting with '.', so a dump cut short
         * (killed mid-write) is never mistaken for a whole one. */
        psf_strlcpy(f->tmp, ".", sizeof f->tmp);
        psf_strlcat(f->tmp, f->name, sizeof f->tmp);
        f->tmp[strlen(f->tmp) - 4] = '\0';
        if (psf_strlcat(f->tmp, ".tmp", sizeof f->tmp) >= sizeof f->tmp) {
            f->tmp[0] = '\0';
            return ENAMETOOLONG;
        }
        if (fstatat(dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
            continue;
        /* O_EXCL: never through a symbolic link, never an old file. */
        f->fd = openat(dirfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (f->fd >= 0)
            return 0;
        if (errno != EEXIST) {
            f->tmp[0] = '\0';
            return errno;
        }
    }
    f->tmp[0] = '\0';
    return EEXIST;
}

int
psf_file_commit(psf_file *f)
{
    int err = 0;
    if (fsync(f->fd) != 0 && errno != EINVAL && errno != EROFS)
        err = errno;
    if (close(f->fd) != 0 && !err)
        err = errno;
    f->fd = -1;
    /* link() instead of rename() would refuse to replace an existing
     * file; the random name makes a clash practically impossible, and
     * rename() also works where hard links do not. */
    if (!err && renameat(f->dirfd, f->tmp, f->dirfd, f->name) != 0)
        err = errno;
    if (err)
        unlinkat(f->dirfd, f->tmp, 0);
    return err;
}

void
psf_file_abort(psf_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    if (f->tmp[0])
        unlinkat(f->dirfd, f->tmp, 0);
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian), without
 * gmtime_r, which may take locks and so is not signal-safe. */
static void
civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    int64_t era, yy;
    unsigned doe, yoe, doy, mp;
    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = (unsigned)(z - era * 146097);
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    yy = (int64_t)yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static char *
put_digits(char *p, uint64_t v, int width)
{
    int i;
    for (i = width - 1; i >= 0; i--) {
        p[i] = (char)('0' + v % 10);
        v /= 10;
    }
    return p + width;
}

void
psf_format_time(char *buf, int64_t sec, long nsec)
{
    int64_t days = sec >= 0 ? sec / 86400 : -((-sec + 86399) / 86400);
    int64_t rem = sec - days * 86400, y;
    unsigned m, d;
    char *p = buf;
    civil_from_days(days, &y, &m, &d);
    p = put_digits(p, (uint64_t)(y < 0 ? 0 : y), 4);
    *p++ = '-';
    p = put_digits(p, m, 2);
    *p++ = '-';
    p = put_digits(p, d, 2);
    *p++ = 'T';
    p = put_digits(p, (uint64_t)(rem / 3600), 2);
    *p++ = ':';
    p = put_digits(p, (uint64_t)(rem / 60 % 60), 2);
    *p++ = ':';
    p = put_digits(p, (uint64_t)(rem % 60), 2);
    *p++ = '.';
    p = put_digits(p, (uint64_t)(nsec / 1000), 6);
    *p++ = 'Z';
    *p = '\0';
}
