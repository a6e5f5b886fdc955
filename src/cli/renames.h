/* renames.h: instructions renamed, split or merged between two CPython
 * versions (renames.c), so that a comparison across versions counts the
 * same work under one name.
 *
 * Each row of the table says what one instruction of one side of a
 * version pair (3.minor -> 3.minor+1) amounts to in the pair's common
 * units, a list of instruction names: LOAD_FAST_BORROW (new side of
 * 3.13 -> 3.14) is one LOAD_FAST; RETURN_CONST (old side) is LOAD_CONST
 * and RETURN_VALUE.  An instruction without a row is itself.  Rows of
 * kind REN_INSERTED name an instruction with no counterpart on the other
 * side (executed in addition: a real change in the work), kept as
 * itself; they document, they do not translate.
 *
 * The table is taken from CPython's sources (Python/bytecodes.c,
 * Python/flowgraph.c, Python/codegen.c of each version, "What's New")
 * and checked against `dis` on both interpreters of each pair by
 * tests/py/test_renames.py: the same functions, run on both, execute the
 * same units but for the inserted instructions.
 */
#ifndef RENAMES_H
#define RENAMES_H

#include <stddef.h>

enum ren_side { REN_OLD = 0, REN_NEW = 1 };
enum ren_kind { REN_RENAME = 0, REN_SPLIT, REN_MERGE, REN_INSERTED };
extern const char *const ren_kind_name[4];

typedef struct ren_row {
    int minor;         /* the pair 3.minor -> 3.minor+1 */
    int side;          /* ren_side: which side's instruction */
    const char *name;  /* that side's instruction */
    const char *units; /* what it amounts to: names separated by spaces */
    int kind;          /* ren_kind */
} ren_row;

/* The row of `name` on side `side` of the pair 3.lo -> 3.lo+1, or NULL. */
const ren_row *ren_find(int lo, int side, const char *name);

/* Whether the table has rows for the pair 3.lo -> 3.lo+1. */
int ren_has_pair(int lo);

/* The table (n rows), for listing. */
const ren_row *ren_table(size_t *n);

#endif
