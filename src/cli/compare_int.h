/* compare_int.h: what the files that build a comparison share
 * (compare_build.c over compare_fill.c, compare_lists.c, compare_moves.c,
 * compare_warn.c, all over compare_rows.c); the rest of the command reads compare.h. */
#ifndef COMPARE_INT_H
#define COMPARE_INT_H

#include "compare.h"
#include "renames.h"

#include <stddef.h>
#include <stdint.h>

/* ---- compare_rows.c ---- */

/* A new section of c (at most CMP_MAX_SECTIONS: c->sec is never
 * reallocated, so callers may keep pointers to several sections). */
cmp_section *cmp_sec_new(cmp *c, const char *name, const char *title, const char *col, int kind,
                         int normalized, const char *note);
/* Add side `side`'s (0 base, 1 head) figure to row `name` of s, the row
 * made if new: a count, a share's numerator and denominator, or a
 * per-call section's calls.  Sums saturate (cli_sat_add). */
void cmp_add_count(cmp_section *s, int side, const char *name, uint64_t n);
void cmp_add_share(cmp_section *s, int side, const char *name, uint64_t num, uint64_t den);
void cmp_add_calls(cmp_section *s, int side, const char *name, uint64_t n);
/* A row name, formatted and cut to fit size. */
void cmp_fmt_name(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Side i's name of instruction or family `name` in the version pair's
 * units (renames.h): its row, or NULL (itself). */
const ren_row *cmp_side_rename(const cmp *c, int i, const char *name);
/* Once both sides are in: the section's figures, weights, folding and
 * order; its index freed. */
void cmp_sec_finish(cmp *c, cmp_section *s);

/* ---- compare_fill.c, compare_lists.c ---- */

/* Every section of the comparison, in the reports' order, finished; the
 * sections with no rows left out. */
void cmp_fill(cmp *c);
/* The sections after the instructions' (compare_lists.c). */
void cmp_fill_lists(cmp *c);

/* ---- compare_moves.c ---- */

/* Hot code rows of one side only that moved between modules, each pair
 * made one row named "BASE_LOC → HEAD_LOC:QUALNAME" (the rule:
 * compare_moves.c, docs/CLI.md).  Before cmp_sec_finish(). */
void cmp_moves(cmp_section *s);

/* ---- compare_warn.c ---- */

/* The warnings of a built comparison, into c->warn. */
void cmp_warnings(cmp *c);

#endif
