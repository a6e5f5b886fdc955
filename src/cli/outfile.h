/* outfile.h: writing a report whole or not at all.
 *
 * The report goes to a hidden temporary file in the target's directory,
 * which is flushed, synced and closed with every result checked, then
 * renamed over the target.  A full disk leaves the old target (or none)
 * and an error, never a truncated report.  "-" means standard output,
 * which is flushed and checked the same way, and so is a target that
 * exists and is not a regular file (/dev/null, a FIFO): renaming over it
 * would replace it.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stdio.h>

typedef struct outfile {
    FILE *fp;   /* owned (borrowed for stdout) */
    char *path; /* owned */
    char *tmp;  /* owned; NULL for stdout and direct */
    int direct; /* fp is the target itself, not a temporary */
} outfile;

/* Returns 0, or -1 with errno set. */
int outfile_open(outfile *o, const char *path);
/* Finish: flush, close, rename.  Returns 0, or -1 with errno set (the
 * temporary file is then removed). */
int outfile_commit(outfile *o);
/* Give up: remove the temporary file. */
void outfile_abort(outfile *o);

#endif
