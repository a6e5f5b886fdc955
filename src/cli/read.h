/* read.h: the readers: each turns one file's bytes into the sink's
 * per-file protocol (ingest.h).  load.c reads the file and picks the
 * reader by its first bytes. */
#ifndef READ_H
#define READ_H

#include "ingest.h"

#include <stddef.h>

/* A text dump: this collector's (format 1 or 2) or CPython's native
 * --enable-pystats output; buf holds n bytes, no NUL, no byte order mark. */
void read_text(ingest_worker *w, const char *path, const char *buf, size_t n);

/* JSON inputs (read_json.c): a summary written by --json, or CPython's
 * summarize_stats.py --json-output.  buf is NUL-terminated. */
void read_json(ingest_worker *w, const char *path, const char *buf, size_t n);

#endif
