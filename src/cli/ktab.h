/* ktab.h: interning strings (counter keys) to dense ids.
 *
 * Invariants: ids are 0..n-1 in order of first insertion and never
 * change; every key is stored once, NUL-terminated, in one arena; the
 * open-addressing index is a power of two at most half full.  Memory is
 * proportional to the number of distinct keys, never to the input size.
 * ktab.c asserts the ids and the index; that every key is stored once
 * is not asserted (a second search per insertion): the search before
 * each insertion is what keeps it.
 */
#ifndef KTAB_H
#define KTAB_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ktab_ent {
    size_t off; /* key offset in arena */
    uint32_t len;
    uint32_t hash;
} ktab_ent;

typedef struct ktab {
    uint32_t *index; /* owned; id + 1, 0 = empty */
    size_t cap;      /* index slots, power of two */
    ktab_ent *ent;   /* owned; n entries */
    size_t n, ent_cap;
    char *arena; /* owned */
    size_t arena_len, arena_cap;
} ktab;

void ktab_init(ktab *t);
void ktab_free(ktab *t);
uint32_t ktab_hash(const char *s, size_t n);
/* Id of s[0..n), inserting it if new (*is_new = 1). */
size_t ktab_intern(ktab *t, const char *s, size_t n, int *is_new);
/* Id of s[0..n), or (size_t)-1 if absent. */
size_t ktab_find(const ktab *t, const char *s, size_t n);
static inline const char *
ktab_key(const ktab *t, size_t id)
{
    assert(id < t->n);
    return t->arena + t->ent[id].off;
}
static inline size_t
ktab_len(const ktab *t, size_t id)
{
    return t->ent[id].len;
}

#endif
