/* summary_schema.h: checking that a JSON document is a summary of schema 1
 * (docs/FORMAT.md 3) before anything of it is counted.
 *
 * Members the schema knows must have its types: each section an object
 * (or the array it is), each opcode, generation, histogram, code object
 * and census family an object, meta an object with `files` a count.
 * Members it does not know are ignored (3.1: members are only added), and
 * leaf counts are left to the reader, which skips a value that is not a
 * count and says how many it skipped. */
#ifndef SUMMARY_SCHEMA_H
#define SUMMARY_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

/* 0 if root (an object with "schema": 1) follows the schema; else -1 and
 * why[0..size) says what is wrong and where ("groups[1].opcodes is an
 * array, not an object"). */
int summary_schema_check(json_t *root, char *why, size_t size);

/* The sum of every count in the document outside its "meta" members (an
 * upper bound of what reading it adds up: load_reserve). */
unsigned __int128 summary_count_total(json_t *v);

#endif
