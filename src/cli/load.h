/* load.h: reading inputs (directories, dump files, JSON summaries) into
 * an aggregate, on several threads: the driver of read (read.h) and
 * ingest (ingest.h).
 *
 * Each thread owns a worker (ingest.h); workers are merged when all files
 * are read.  Memory grows with distinct keys and the largest file, not
 * with the number of files.
 */
#ifndef LOAD_H
#define LOAD_H

#include "agg.h"
#include "ingest.h"

#include <stddef.h>

/* Read every input into *out (initialised here).  Returns 0, or -1 if an
 * input names nothing that exists or can be listed (reported on stderr
 * and in out's problems); files inside are read regardless. */
int load_inputs(char **inputs, size_t ninputs, const load_opts *opt, agg *out);
/* The same, telling obs (may be NULL) of every file and problem. */
int load_inputs_observed(char **inputs, size_t ninputs, const load_opts *opt,
                         const load_observer *obs, agg *out);

/* One file's n bytes (buf[n] is NUL, buf writable), read as load_inputs
 * reads each file: by its first bytes, text goes to the text reader,
 * JSON (a '{' first) to the JSON reader; an empty or binary file is a
 * problem and not counted. */
void load_bytes(ingest_worker *w, const char *path, char *buf, size_t n);

#endif
