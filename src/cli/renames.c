/* renames.c: the table of instructions renamed, split or merged between
 * CPython versions (see renames.h; documented in docs/CLI.md, "Across
 * versions, by meaning").  One row per line: tests/py/test_renames.py
 * reads the rows from this file. */
#include "renames.h"

#include <string.h>

const char *const ren_kind_name[4] = {"renamed", "split", "merged", "inserted"};

static const ren_row table[] = {
    /* ---- 3.12 -> 3.13 ---- */
    /* The compiler's superinstructions (3.12 had them as specializations). */
    {12, REN_NEW, "LOAD_FAST_LOAD_FAST", "LOAD_FAST LOAD_FAST", REN_MERGE},
    {12, REN_NEW, "STORE_FAST_LOAD_FAST", "STORE_FAST LOAD_FAST", REN_MERGE},
    {12, REN_NEW, "STORE_FAST_STORE_FAST", "STORE_FAST STORE_FAST", REN_MERGE},
    /* A cell passed to a closure is loaded by LOAD_FAST (LOAD_CLOSURE is a
     * pseudo-instruction in 3.13). */
    {12, REN_OLD, "LOAD_CLOSURE", "LOAD_FAST", REN_RENAME},
    /* Keyword names: a constant loaded by LOAD_CONST, then CALL_KW. */
    {12, REN_OLD, "KW_NAMES", "LOAD_CONST", REN_RENAME},
    {12, REN_NEW, "CALL_KW", "CALL", REN_RENAME},
    /* FORMAT_VALUE split: the conversion (CONVERT_VALUE), then the format
     * with or without a spec. */
    {12, REN_NEW, "FORMAT_SIMPLE", "FORMAT_VALUE", REN_SPLIT},
    {12, REN_NEW, "FORMAT_WITH_SPEC", "FORMAT_VALUE", REN_SPLIT},
    {12, REN_NEW, "CONVERT_VALUE", "CONVERT_VALUE", REN_INSERTED},
    /* MAKE_FUNCTION's flags set by an instruction of their own. */
    {12, REN_NEW, "SET_FUNCTION_ATTRIBUTE", "SET_FUNCTION_ATTRIBUTE", REN_INSERTED},
    /* An explicit conversion before a conditional jump or `not`. */
    {12, REN_NEW, "TO_BOOL", "TO_BOOL", REN_INSERTED},
    /* NULL pushed after the callable of an attribute call. */
    {12, REN_NEW, "PUSH_NULL", "PUSH_NULL", REN_INSERTED},
    /* The send loop of `await` jumps back without an interrupt check. */
    {12, REN_OLD, "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_BACKWARD", REN_RENAME},
    {12, REN_NEW, "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_BACKWARD", REN_RENAME},
    /* ---- 3.13 -> 3.14 ---- */
    /* A local loaded as a borrowed reference where the compiler can tell
     * it outlives the use. */
    {13, REN_NEW, "LOAD_FAST_BORROW", "LOAD_FAST", REN_RENAME},
    {13, REN_NEW, "LOAD_FAST_BORROW_LOAD_FAST_BORROW", "LOAD_FAST LOAD_FAST", REN_MERGE},
    {13, REN_OLD, "LOAD_FAST_LOAD_FAST", "LOAD_FAST LOAD_FAST", REN_MERGE},
    {13, REN_NEW, "LOAD_FAST_LOAD_FAST", "LOAD_FAST LOAD_FAST", REN_MERGE},
    /* Small integers (0-255) without the constant table. */
    {13, REN_NEW, "LOAD_SMALL_INT", "LOAD_CONST", REN_SPLIT},
    /* Subscripts are a BINARY_OP form (operand NB_SUBSCR). */
    {13, REN_OLD, "BINARY_SUBSCR", "BINARY_OP", REN_MERGE},
    /* RETURN_CONST removed: the constant, then RETURN_VALUE. */
    {13, REN_OLD, "RETURN_CONST", "LOAD_CONST RETURN_VALUE", REN_SPLIT},
    {13, REN_OLD, "LOAD_ASSERTION_ERROR", "LOAD_COMMON_CONSTANT", REN_RENAME},
    /* `with`: __exit__ and __enter__ looked up by LOAD_SPECIAL, __enter__
     * called by CALL. */
    {13, REN_OLD, "BEFORE_WITH", "COPY LOAD_SPECIAL SWAP SWAP LOAD_SPECIAL CALL", REN_SPLIT},
    {13, REN_OLD, "BEFORE_ASYNC_WITH", "COPY LOAD_SPECIAL SWAP SWAP LOAD_SPECIAL CALL SWAP",
     REN_SPLIT},
    /* The branch not taken of a conditional jump (branch monitoring). */
    {13, REN_NEW, "NOT_TAKEN", "NOT_TAKEN", REN_INSERTED},
    /* The iterator popped at a loop's exit (3.13's FOR_ITER skipped its
     * END_FOR and POP_TOP). */
    {13, REN_NEW, "POP_ITER", "POP_ITER", REN_INSERTED},
};

const ren_row *
ren_table(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const ren_row *
ren_find(int lo, int side, const char *name)
{
    size_t i;

    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].minor == lo && table[i].side == side && strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

int
ren_has_pair(int lo)
{
    size_t i;

    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].minor == lo)
            return 1;
    return 0;
}
