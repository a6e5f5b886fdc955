/* where.h: a name for a source file that survives a move.
 *
 * Hot code is keyed by co_filename, an absolute path: the same module
 * lives at different paths in two virtual environments, two Python
 * versions or two checkouts, so a comparison of two runs would match
 * nothing.  A dump carries the working directory and sys.path of its
 * process (meta.process.cwd, meta.python.path, docs/FORMAT.md 1.1); with
 * them a file is named
 *
 *   - by its module, for a file importable from an entry of sys.path
 *     (the longest entry the file lies under whose relative path is a
 *     dotted name of identifiers: "json.decoder", "pkg" for
 *     pkg/__init__.py);
 *   - by its path relative to the working directory otherwise
 *     ("tests/test_x.py");
 *   - as it is when neither applies ("<frozen os>", "<string>", a file
 *     elsewhere, a dump without these headers).
 *
 * All strings are free text in the command's canonical encoded form
 * (text.h).
 */
#ifndef CLI_WHERE_H
#define CLI_WHERE_H

#include <stddef.h>

typedef struct where {
    char *cwd; /* decoded, NUL-free; NULL if unknown */
    size_t cwd_len;
    char **path; /* decoded sys.path entries, absolute ones only */
    size_t *path_len;
    size_t npath;
} where;

/* Set w from a dump's headers (either may be NULL: absent).  Returns 0,
 * or -1 if a header does not decode (w then names every file as it
 * is). */
int where_init(where *w, const char *cwd_enc, const char *path_enc);
void where_free(where *w);

/* The portable name of file_enc as a new canonical string, and in *kind
 * what it is (WHERE_MODULE, WHERE_RELATIVE, WHERE_AS_IS).  Memory as
 * cli.h says: never NULL. */
enum { WHERE_AS_IS, WHERE_MODULE, WHERE_RELATIVE };
char *where_name(const where *w, const char *file_enc, int *kind);

/* s[0..len) with its file field s[at..end) named portably: a new
 * string, *out_len its length; *path the field as it was where it was
 * renamed, else NULL. */
char *where_rename(const where *w, const char *s, size_t len, size_t at, size_t end,
                   size_t *out_len, char **path);

#endif
