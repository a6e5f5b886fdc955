/* psf_write.h: writing one dump file, whole or not at all.
 *
 * Everything here is async-signal-safe (open, openat, fstat, faccessat,
 * write, renameat, unlinkat, close and integer formatting by hand; no
 * malloc, no stdio, no locale, no getenv), because
 * the collector also dumps from a SIGTERM handler and from a forked
 * child that is about to _exit.  No Python.h: the command-line tool
 * shares this file.  For the same reason nothing here is assert()ed
 * (assert()'s report is not async-signal-safe): the first error sticks
 * in psf_out.err instead.
 */
#ifndef PSF_WRITE_H
#define PSF_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "psf_keys.h"

#define PSF_PATH_MAX 4096

/* A buffered writer over a file descriptor.  The first error sticks:
 * later puts are ignored and psf_out_finish() reports it. */
typedef struct psf_out {
    int fd;
    int err; /* errno of the first failure, 0 if none */
    size_t len;
    char buf[8192];
} psf_out;

void psf_out_init(psf_out *o, int fd);
void psf_put(psf_out *o, const char *s);
void psf_put_n(psf_out *o, const char *s, size_t n);
void psf_put_u64(psf_out *o, uint64_t v);
/* "key : value\n" with CR/LF in value replaced by spaces. */
void psf_put_header(psf_out *o, const char *key, const char *value);
/* " : v\n": the end of every counter line. */
void psf_put_value(psf_out *o, uint64_t v);
/* "key : v\n" */
void psf_put_counter(psf_out *o, const char *key, uint64_t v);
/* "opcode[A].execution_count : v\n" */
void psf_put_exec(psf_out *o, const char *op, uint64_t v);
/* "opcode[A].pair_count[B] : v\n" */
void psf_put_pair(psf_out *o, const char *a, const char *b, uint64_t v);
/* Flush; returns 0 or the first errno seen. */
int psf_out_flush(psf_out *o);

/* The dump directory.  The rules, OpenSSH's StrictModes as the model:
 * the directory itself is never a symbolic link (it is opened once with
 * O_DIRECTORY|O_NOFOLLOW and every file is made relative to that
 * descriptor), it belongs to the effective user or to root, and others
 * cannot write into it unless the sticky bit keeps them from removing
 * or renaming what is not theirs.  Errors beyond errno values: */
#define PSF_EDIR_SYMLINK (-1) /* the directory is a symbolic link */
#define PSF_EDIR_OWNER (-2)   /* owned by another user, not root */
#define PSF_EDIR_OPEN (-3)    /* writable by others, not sticky */

/* 0 if a directory with these attributes passes the rules for the
 * effective user, else ENOTDIR or PSF_EDIR_OWNER or PSF_EDIR_OPEN. */
int psf_dir_check(unsigned long mode, unsigned long owner);
/* Create dir if missing (its parents with 0777, itself with mode, both
 * less the umask), open it without following a symbolic link and check
 * the rules.  Returns 0 with *fd open (O_CLOEXEC), or an errno value or
 * PSF_EDIR_*; *owner is the directory's owner when known, else -1. */
int psf_dir_open(const char *dir, unsigned mode, int *fd, long *owner);
/* 0 if the effective user may create files in the open directory fd,
 * else an errno value. */
int psf_dir_writable(int fd);
/* Why err (from psf_dir_open, psf_file_open or psf_file_commit) stopped
 * a dump, as a short text: "ENOSPC", "a symbolic link (not followed)",
 * "owned by another user (uid 1001)".  buf >= 64 bytes. */
const char *psf_dir_strerror(int err, long owner, char *buf, size_t size);

/* The default directory for base (NULL or "": "/tmp"): base/py_stats,
 * CPython's own, or base/py_stats-UID when the shared one is not the
 * user's (private: 0700).  psf_default_dirs() writes both names;
 * psf_default_dir() chooses as the collector does when it writes:
 * the shared one if it is missing, or passes the rules and the user may
 * write into it; the private one otherwise.  Returns 1 when it chose
 * the private one, 0 for the shared one, -1 if the names do not fit. */
int psf_default_dirs(const char *base, char *shared, char *private_, size_t size);
int psf_default_dir(const char *base, char *out, size_t size);

/* A dump being written: a hidden temporary file in the open output
 * directory that psf_file_commit() renames to its final, unique name. */
typedef struct psf_file {
    int fd;
    int dirfd;     /* borrowed from psf_dir_open() */
    char tmp[160]; /* names in that directory */
    char name[160];
} psf_file;

/* Open a new temporary file in the directory dirfd (from psf_dir_open).
 * Returns 0 or an errno value. */
int psf_file_open(psf_file *f, int dirfd, const char *prefix);
/* fsync, close and rename into place.  Returns 0 or an errno value; on
 * failure the temporary file is removed. */
int psf_file_commit(psf_file *f);
/* Close and remove the temporary file. */
void psf_file_abort(psf_file *f);

/* Signal-safe string helpers for building messages. */
size_t psf_strlcpy(char *dst, const char *src, size_t size);
size_t psf_strlcat(char *dst, const char *src, size_t size);
/* "2026-11-29T22:19:52.123456Z" for a UTC time; buf >= 32 bytes. */
void psf_format_time(char *buf, int64_t sec, long nsec);
/* Decimal text of v into buf (at least 21 bytes); returns its length. */
size_t psf_u64_to_str(uint64_t v, char *buf);

#endif
