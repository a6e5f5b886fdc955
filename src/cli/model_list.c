/* model_list.c: the model's named counts (m_list): add by name, read,
 * sort by count or in input order, free.  A leaf of the model: every
 * model file adds to lists through it. */
#include "model.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>

void
m_list_add(m_list *l, const char *name, size_t len, uint64_t n)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (strlen(l->v[i].name) == len && memcmp(l->v[i].name, name, len) == 0) {
            l->v[i].n = cli_sat_add(l->v[i].n, n);
            return;
        }
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = cli_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n].name = cli_xstrndup(name, len);
    l->v[l->n].n = n;
    l->v[l->n].seq = l->n;
    l->n++;
}

uint64_t
m_list_get(const m_list *l, const char *name)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return l->v[i].n;
    return 0;
}

static int
kv_cmp(const void *pa, const void *pb)
{
    const m_kv *a = pa, *b = pb;

    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    return strcmp(a->name, b->name);
}

void
m_list_sort(m_list *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, kv_cmp);
}

static int
kv_seq_cmp(const void *pa, const void *pb)
{
    const m_kv *a = pa, *b = pb;

    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return strcmp(a->name, b->name);
}

void
m_list_sort_input(m_list *l, int by_input)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, by_input ? kv_seq_cmp : kv_cmp);
}

void
m_list_free(m_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    memset(l, 0, sizeof *l);
}
