/* compare.c: a built comparison (compare.h): finding its sections and
 * rows, its sides' titles, and freeing it. */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cmp_only_name[3] = {"", "base", "head"};

void
cmp_free(cmp *c)
{
    size_t i, j;

    for (i = 0; i < c->nsec; i++) {
        for (j = 0; j < c->sec[i].n; j++) {
            free(c->sec[i].rows[j].name);
            free(c->sec[i].rows[j].moved_from);
        }
        free(c->sec[i].rows);
    }
    free(c->sec);
    free(c->ren);
    for (i = 0; i < c->nwarn; i++)
        free(c->warn[i]);
    free(c->warn);
    memset(c, 0, sizeof *c);
}

const cmp_section *
cmp_find_section(const cmp *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->nsec; i++)
        if (strcmp(c->sec[i].name, name) == 0)
            return &c->sec[i];
    return NULL;
}

const cmp_row *
cmp_find_row(const cmp_section *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->rows[i].name, name) == 0)
            return &s->rows[i];
    return NULL;
}

void
cmp_side_title(const cmp *c, int i, char *buf, size_t size)
{
    snprintf(buf, size, "%s", c->side[i].sg->title);
}
