/* census_sites.h: the source view's part of the census (docs/FORMAT.md
 * 1.18): a row per specializable site of the code that ran, with its
 * position, and the source lines of that code.
 *
 * Invariants:
 *  - Rows exist only for scope count (3.12+), for code objects with a
 *    hot-code record (hotcode.h) that has instructions; a row's key is
 *    the record's key.
 *  - Code that ran and died before the live census was taken keeps the
 *    rows it had when it died (pc_sites_code_dead); each such entry
 *    holds a reference to its co_filename only.
 *  - Everything a dump writes is ready-made text, taken with the
 *    census: pc_sites_write() reads only C data.
 * The first two are asserted where an entry is made or written (scope
 * count is by construction: rows are only ever read in it); the last
 * is not assertable (no C check tells a Python object from C data): it
 * holds because pc_sites_write() takes no Python object.
 */
#ifndef PC_CENSUS_SITES_H
#define PC_CENSUS_SITES_H

#include "census.h"
#include "codeinfo.h"

#define PC_SITES_MAX_ROWS 100000       /* rows a dump writes */
#define PC_SITES_MAX_DEAD 10000        /* dead code objects kept */
#define PC_SITES_MAX_SOURCE (4u << 20) /* bytes of source lines */

/* A code object with a pc_codeinfo dies: its segment counts are in its
 * hot record already, which is not retired yet.  Its census (scope
 * count, pc_census_count_dead) and its rows. */
void pc_sites_code_dead(pc_codeinfo *ci);
void pc_sites_clear(void);
void pc_sites_write(psf_out *o);
extern PyMethodDef pc_sites_methods[]; /* private API for _census.py */

#endif
