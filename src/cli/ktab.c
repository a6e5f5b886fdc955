/* ktab.c: interning strings to dense ids (see ktab.h for invariants). */
#include "ktab.h"

#include "cli.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void
ktab_init(ktab *t)
{
    memset(t, 0, sizeof *t);
    t->cap = 256;
    t->index = cli_xcalloc(t->cap, sizeof *t->index);
}

void
ktab_free(ktab *t)
{
    free(t->index);
    free(t->ent);
    free(t->arena);
    memset(t, 0, sizeof *t);
}

/* A multiply-xorshift hash over 8-byte words: keys are short (20-40
 * bytes) and this runs once per input line. */
uint32_t
ktab_hash(const char *s, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    uint64_t w;

    while (n >= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    if (n > 0) {
        w = 0;
        memcpy(&w, s, n);
        h = (h ^ w) * 0x94D049BB133111EBull;
        h ^= h >> 29;
    }
    h *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(h >> 32);
}

static void
grow_index(ktab *t)
{
    size_t cap = t->cap * 2, i;
    uint32_t *index = cli_xcalloc(cap, sizeof *index);

    for (i = 0; i < t->n; i++) {
        size_t j = t->ent[i].hash & (cap - 1);
        while (index[j])
            j = (j + 1) & (cap - 1);
        index[j] = (uint32_t)i + 1;
    }
    free(t->index);
    t->index = index;
    t->cap = cap;
}

size_t
ktab_find(const ktab *t, const char *s, size_t n)
{
    uint32_t h = ktab_hash(s, n);
    size_t j = h & (t->cap - 1);
    uint32_t id;

    while ((id = t->index[j]) != 0) {
        const ktab_ent *e = &t->ent[id - 1];
        if (e->hash == h && e->len == n && memcmp(t->arena + e->off, s, n) == 0)
            return id - 1;
        j = (j + 1) & (t->cap - 1);
    }
    return (size_t)-1;
}

size_t
ktab_intern(ktab *t, const char *s, size_t n, int *is_new)
{
    uint32_t h = ktab_hash(s, n);
    size_t j = h & (t->cap - 1);
    uint32_t id;
    ktab_ent *e;

    while ((id = t->index[j]) != 0) {
        assert(id <= t->n);
        e = &t->ent[id - 1];
        if (e->hash == h && e->len == n && memcmp(t->arena + e->off, s, n) == 0) {
            if (is_new)
                *is_new = 0;
            return id - 1;
        }
        j = (j + 1) & (t->cap - 1);
    }
    if (t->n == t->ent_cap) {
        t->ent_cap = t->ent_cap ? t->ent_cap * 2 : 256;
        t->ent = cli_xrealloc(t->ent, t->ent_cap * sizeof *t->ent);
    }
    if (t->arena_len + n + 1 > t->arena_cap) {
        while (t->arena_len + n + 1 > t->arena_cap)
            t->arena_cap = t->arena_cap ? t->arena_cap * 2 : 8192;
        t->arena = cli_xrealloc(t->arena, t->arena_cap);
    }
    memcpy(t->arena + t->arena_len, s, n);
    t->arena[t->arena_len + n] = '\0';
    e = &t->ent[t->n];
    e->off = t->arena_len;
    e->len = (uint32_t)n;
    e->hash = h;
    t->arena_len += n + 1;
    t->index[j] = (uint32_t)++t->n;
    if (is_new)
        *is_new = 1;
    if (t->n * 2 > t->cap)
        grow_index(t);
    /* ktab.h: the index a power of two at most half full; ids dense. */
    assert(t->cap && (t->cap & (t->cap - 1)) == 0 && t->n * 2 <= t->cap);
    assert(t->arena[t->ent[t->n - 1].off + n] == '\0');
    return t->n - 1;
}
