/* census.h: the specialization census, its public face: the state of
 * every specializable instruction site, read from code objects'
 * adaptive bytecode (census_read.h), taken once per dump period.
 * Implemented by census.c (the period's census, its dump lines),
 * census_registry.c (the live code objects) and census_take.c (setup and
 * the walk).
 *
 * Invariants:
 *  - The live tally is written only once taken (pc_census_taken()):
 *    taken is set by the walk's last step (_census_sites), after the
 *    tally is whole, and cleared with it (a clear, a new walk, a failed
 *    one).
 *  - A taken census has a scope, the one the walk read in: never
 *    PC_CENSUS_NONE.
 *  - The dead tally grows only before the period's census is taken
 *    (after, the live census read those code objects), in the period's
 *    scope: census, code destroyed (3.12+); count, code that ran, when
 *    its record is retired.  Not asserted: the two places that add to
 *    it (pc_census_count_dead, the code watcher) test exactly this
 *    before they add.
 */
#ifndef PC_CENSUS_H
#define PC_CENSUS_H

#include "census_read.h"

extern pc_census pc_census_dead; /* code objects destroyed meanwhile (3.12+) */

/* Module init: the co_extra slot of pc_codeinfo (codeinfo.h). */
void pc_census_init(Py_ssize_t extra_index);
/* The per code record of code (it ran while counting), or NULL. */
struct pc_hot *pc_census_hot_of(PyObject *code);
/* Some instruction of code was counted in this period (its record's
 * counts, the segment counts folded in first). */
int pc_census_ran(PyObject *code);
/* A code object with the per code record h dies, its segment counts in
 * h: in scope count it joins the dead census if it ran in this period
 * and the live census, which read it, is not taken yet. */
void pc_census_count_dead(PyObject *code, const struct pc_hot *h);
/* The live census of this period is whole (taken). */
int pc_census_taken(void);
int pc_census_has_data(void); /* a census was taken since the last clear */
void pc_census_clear(void);
void pc_census_write(psf_out *o);
const char *pc_census_scope_name(void); /* of the census taken, or NULL */
/* A count window opens (after on() succeeded): census says whether it
 * takes the census alongside its counts. */
void pc_census_count_window(int census);
/* The census option of the last count window. */
int pc_census_count_option(void);
pc_census_scope pc_census_period_scope(void);
/* Why this period's census could not be taken (free text, FORMAT.md
 * 1.16: meta.census.error), or NULL. */
const char *pc_census_error(void);
/* census_take.c: the walk is about to read in scope (not NONE). */
void pc_census_taking(pc_census_scope scope);
/* census_take.c: the walk ended: ok, the period has no census error;
 * else the live tally is dropped (not taken). */
void pc_census_took(int ok);
/* The pending exception (the census failed): kept as the period's
 * census error, said on stderr, and cleared. */
void pc_census_failed(void);
extern PyMethodDef pc_census_methods[]; /* private API for _census.py */

/* census_registry.c */
/* The "exec" audit hook and the code watcher (3.12+), once; -1 with
 * exception. */
int pc_census_hooks(void);
extern PyMethodDef pc_census_registry_methods[]; /* for _census.py */

/* census_take.c */
int pc_census_setup(void);                   /* tables, hooks; -1 with exception */
int pc_census_take(void);                    /* walk live code now; -1 with exception */
extern PyMethodDef pc_census_take_methods[]; /* _census_take (atexit) */

#endif
