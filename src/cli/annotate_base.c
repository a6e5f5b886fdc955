/* annotate_base.c: the source view of one run against another (a base):
 * per line the counts on both sides, per site the state on both.
 *
 * Functions are matched by FILE (named portably) and QUALNAME, not by
 * their first line, which moves when code above them is edited; their
 * lines are then matched at the same distance from the first line.
 * Counts are compared per million instructions of each side's view, so
 * that runs of different lengths compare.  Sites are matched by offset
 * within one Python version; across versions the bytecode of a line
 * differs (other instructions, superinstructions, new forms), so a site
 * is matched by family and line only, the first of its family there. */
#include "annotate.h"

#include "cli.h"

#include <stdio.h>
#include <string.h>

double
annotate_per_million(const annotate *a, uint64_t n)
{
    return a->total ? 1e6 * (double)n / (double)a->total : 0.0;
}

/* FILE and QUALNAME of c alike (the line between them left out). */
static int
same_function(const m_code *x, const m_code *y)
{
    return x->file_len == y->file_len && memcmp(x->name, y->name, x->file_len) == 0 && x->qual &&
           y->qual && strcmp(x->qual, y->qual) == 0;
}

static const a_fn *
find_fn(const annotate *base, const m_code *c)
{
    size_t i;

    for (i = 0; i < base->nfn; i++)
        if (same_function(base->fn[i].c, c))
            return &base->fn[i];
    return NULL;
}

static const a_line *
base_line(const a_fn *b, long line)
{
    long first = b->nlines ? b->lines[0].line : 0;

    if (line < first || line - first >= (long)b->nlines)
        return NULL;
    return &b->lines[line - first];
}

/* The site of base function b that s corresponds to, or NULL. */
static const a_site *
base_site(const a_fn *b, const a_site *s, long shift, int same_version)
{
    size_t i;

    for (i = 0; i < b->nsites; i++) {
        const a_site *t = &b->sites[i];
        if (same_version ? t->offset == s->offset
                         : t->line == s->line + shift && strcmp(t->family, s->family) == 0)
            return t;
    }
    return NULL;
}

void
annotate_against(annotate *a, const annotate *base)
{
    int same = a->minor == base->minor;
    size_t i, j;

    a->base = base;
    for (i = 0; i < a->nfn; i++) {
        a_fn *f = &a->fn[i];
        const a_fn *b = find_fn(base, f->c);
        if (b == NULL)
            continue;
        f->base = b;
        f->shift = b->first - f->first;
        for (j = 0; j < f->nlines; j++) {
            const a_line *bl = base_line(b, f->lines[j].line + f->shift);
            if (bl && bl->counted) {
                f->lines[j].has_base = 1;
                f->lines[j].base_count = bl->count;
            }
        }
        for (j = 0; j < f->nsites; j++) {
            const a_site *t = base_site(b, &f->sites[j], f->shift, same);
            f->sites[j].base_state = t ? t->state : -1;
            if (t && t->state != f->sites[j].state)
                f->states_changed++;
        }
    }
}

void
annotate_base_says(const annotate *a, const a_fn *f, char *buf, size_t size)
{
    char n[32];
    int k;

    if (f->base == NULL) {
        snprintf(buf, size, "not in the base run");
        return;
    }
    cli_count_str(n, sizeof n, f->base->instructions);
    k = snprintf(buf, size, "base run: %s instructions, %.1f per million there against %.1f here",
                 n, annotate_per_million(a->base, f->base->instructions),
                 annotate_per_million(a, f->instructions));
    if (f->shift && k >= 0 && (size_t)k < size)
        k += snprintf(buf + k, size - (size_t)k, "; its lines are %+ld there", f->shift);
    if (f->states_changed && k >= 0 && (size_t)k < size)
        k += snprintf(buf + k, size - (size_t)k, "; %zu sites changed state", f->states_changed);
    if (a->minor != a->base->minor && k >= 0 && (size_t)k < size)
        snprintf(buf + k, size - (size_t)k,
                 "; Python 3.%d against 3.%d: the bytecode of each line differs (~), so the "
                 "counts compare, not the instructions",
                 a->minor, a->base->minor);
}
