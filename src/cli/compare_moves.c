/* compare_moves.c: hot code that moved between modules across versions
 * (3.12's pathlib:PurePath.parts is 3.13's pathlib._local:PurePath.parts)
 * shown as one row, "pathlib → pathlib._local:PurePath.parts".
 *
 * A hot code row is named LOCATION:QUALNAME, LOCATION a module
 * ("pathlib._local") or a file ("tools/util.py").  A row of the base
 * only and a row of the head only are a move when:
 *
 * - their qualified names are the same (after the last ':');
 * - their locations differ and are related: the same top-level package
 *   (first component: "pathlib" and "pathlib._local") or the same
 *   module or file name (last component: "a/util.py" and "b/util.py",
 *   "util" and "pkg.util"), a location's components being its dotted
 *   names, or for a file (".py") its '/'-separated directories and name
 *   without ".py" and without a final "__init__"; an absolute path
 *   ("/srv/app/util.py") is related by its name only;
 * - neither row has another such candidate on the other side (two
 *   candidates: no move, both rows stay as they are).
 *
 * The moved row takes the base row's figures as its base; the base row
 * is removed.  Run before cmp_sec_finish(). */
#include "compare_int.h"

#include "cli.h"
#include "ktab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One component of a location: its bytes. */
typedef struct span {
    const char *s;
    size_t n;
} span;

/* An unmatched row: its qualified name's id, its side, its row. */
typedef struct lone {
    size_t q;
    int side; /* 0 base only, 1 head only */
    size_t row;
    size_t nrel; /* related rows of the other side with the same q */
    size_t mate; /* the last such row's index in the lone array */
} lone;

static int
ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);

    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The first and last components of location s[0..n) (empty spans when
 * it has none, as "<frozen ...>" has not). */
static void
loc_ends(const char *s, size_t n, span *first, span *last)
{
    char sep = '.';
    size_t i, a;

    first->n = last->n = 0;
    first->s = last->s = s;
    if (n == 0 || s[0] == '<')
        return;
    if (ends_with(s, n, ".py")) {
        sep = '/';
        n -= 3;
        if (ends_with(s, n, "/__init__"))
            n -= strlen("/__init__");
    }
    for (a = 0; a < n && s[a] == sep; a++)
        ;
    for (i = a; i < n && s[i] != sep; i++)
        ;
    first->s = s + a;
    first->n = i - a;
    for (i = n; i > a && s[i - 1] != sep; i--)
        ;
    last->s = s + i;
    last->n = n - i;
}

static int
span_eq(span a, span b)
{
    return a.n > 0 && a.n == b.n && memcmp(a.s, b.s, a.n) == 0;
}

/* The location's length of row name s (before its last ':'), or 0 if it
 * has no qualified name. */
static size_t
loc_len(const char *s)
{
    const char *p = strrchr(s, ':');

    return p && p > s && p[1] ? (size_t)(p - s) : 0;
}

/* Two rows' locations are different and related (the top comment). */
static int
related(const char *a, const char *b)
{
    size_t na = loc_len(a), nb = loc_len(b);
    span fa, la, fb, lb;

    if (na == nb && memcmp(a, b, na) == 0)
        return 0;
    loc_ends(a, na, &fa, &la);
    loc_ends(b, nb, &fb, &lb);
    /* An absolute path's first directory ("home", "usr") says nothing. */
    if (a[0] == '/' || b[0] == '/')
        return span_eq(la, lb);
    return span_eq(fa, fb) || span_eq(la, lb);
}

static int
lone_cmp(const void *pa, const void *pb)
{
    const lone *a = pa, *b = pb;

    if (a->q != b->q)
        return a->q < b->q ? -1 : 1;
    if (a->side != b->side)
        return a->side - b->side;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* The rows of one side only, by qualified name; *n their number. */
static lone *
lone_rows(const cmp_section *s, ktab *quals, size_t *n)
{
    lone *v = cli_xcalloc(s->n ? s->n : 1, sizeof *v);
    size_t i, k = 0;
    int is_new;

    for (i = 0; i < s->n; i++) {
        const cmp_row *r = &s->rows[i];
        size_t at = loc_len(r->name);
        if (r->has_base == r->has_head || at == 0)
            continue;
        v[k].q = ktab_intern(quals, r->name + at + 1, strlen(r->name + at + 1), &is_new);
        v[k].side = r->has_head;
        v[k].row = i;
        k++;
    }
    qsort(v, k, sizeof *v, lone_cmp);
    *n = k;
    return v;
}

/* Row h takes row b's base figures, its name (moved_from) and the name
 * of the move; b is removed. */
static void
merge(cmp_row *b, cmp_row *h, char *name)
{
    h->moved_from = b->name;
    b->name = NULL; /* removed */
    free(h->name);
    h->name = name;
    h->has_base = 1;
    h->base_n = b->base_n;
    h->base_calls = b->base_calls;
    h->base_num = b->base_num;
    h->base_den = b->base_den;
}

/* "BASE_LOC → HEAD_LOC:QUALNAME", or NULL if a row has that name. */
static char *
move_name(const cmp_section *s, const char *b, const char *h)
{
    size_t nb = loc_len(b), len = nb + strlen(CMP_MOVE_ARROW) + strlen(h) + 1;
    char *name = cli_xmalloc(len);

    snprintf(name, len, "%.*s%s%s", (int)nb, b, CMP_MOVE_ARROW, h);
    if (ktab_find(s->index, name, strlen(name)) != (size_t)-1) {
        free(name);
        return NULL;
    }
    return name;
}

/* The removed rows dropped, the index made again. */
static void
compact(cmp_section *s)
{
    ktab *idx = s->index;
    size_t i, k = 0;
    int is_new;

    ktab_free(idx);
    ktab_init(idx);
    for (i = 0; i < s->n; i++) {
        if (s->rows[i].name == NULL)
            continue;
        s->rows[k] = s->rows[i];
        ktab_intern(idx, s->rows[k].name, strlen(s->rows[k].name), &is_new);
        k++;
    }
    s->n = k;
}

void
cmp_moves(cmp_section *s)
{
    ktab quals;
    size_t n, i, j, lo, moved = 0;
    lone *v;

    ktab_init(&quals);
    v = lone_rows(s, &quals, &n);
    for (lo = 0; lo < n; lo = i) {
        for (i = lo; i < n && v[i].q == v[lo].q; i++)
            ;
        for (j = lo; j < i; j++) {
            size_t k;
            for (k = lo; k < i; k++)
                if (v[k].side != v[j].side &&
                    related(s->rows[v[j].row].name, s->rows[v[k].row].name)) {
                    v[j].nrel++;
                    v[j].mate = k;
                }
        }
        for (j = lo; j < i; j++) {
            const lone *b = &v[j], *h = &v[b->mate];
            char *name;
            if (b->side != 0 || b->nrel != 1 || h->nrel != 1)
                continue;
            name = move_name(s, s->rows[b->row].name, s->rows[h->row].name);
            if (name) {
                merge(&s->rows[b->row], &s->rows[h->row], name);
                moved++;
            }
        }
    }
    if (moved)
        compact(s);
    free(v);
    ktab_free(&quals);
}
