/* psf_write.h: writing one dump file, whole or not at all.
 *
 * Everything here is async-signal-safe (open, write, rename, close and
 * integer formatting by hand; no malloc, no stdio, no locale), because
 * the collector also dumps from a SIGTERM handler and from a forked
 * child that is about to _exit.  No Python.h: the command-line tool
 * shares this file.
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
    int err;            /* errno of the first failure, 0 if none */
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

/* A dump being written: a hidden temporary file in the output directory
 * that psf_file_commit() renames to its final, unique name. */
typedef struct psf_file {
    int fd;
    char tmp[PSF_PATH_MAX];
    char path[PSF_PATH_MAX];
} psf_file;

/* Create the directory (and its parents) if missing, then open a new
 * temporary file there.  Returns 0 or an errno value. */
int psf_file_open(psf_file *f, const char *dir, const char *prefix);
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
