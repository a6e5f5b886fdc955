/* model_sitefx.c: the model's site executions by state (FORMAT.md 1.18
 * and 3): per family, the executions at its sites in each state the
 * census read, and per specialized form the executions at sites in
 * that form, with the executions whose attribution is uncertain.
 *
 * A site's executions (code[K].site_executions) are every dispatch of
 * the site in the dump period, in any form; they are credited to the
 * state of the site's row, which the census read at the end of the
 * period.  Uncertain, by the rule of docs/FORMAT.md ("Site executions
 * by state"): a site whose rows disagree between the group's dumps
 * (state, or form), and an unspecialized site that ran more often than
 * its state allows (fail_bound()): it was specialized before, and
 * deoptimized; not on a free-threaded build, where each thread's copy
 * of the bytecode has its counter and the state merges the copies.
 *
 * Reads the model's hot code and ops (built before); calls no other
 * file of the model. */
#include "model.h"

#include "cli.h"
#include "../format/psf_keys.h"

#include <stdlib.h>
#include <string.h>

const char *const m_sx_name[M_SX_COUNT] = {
    "specialized", "backing_off", "never_tried", "excluded", "uncertain", "sites",
};

static m_sxfam *
fam_get(m_group *m, const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < m->nsxfam; i++)
        if (strlen(m->sxfam[i].name) == len && memcmp(m->sxfam[i].name, name, len) == 0)
            return &m->sxfam[i];
    m->sxfam = cli_xrealloc(m->sxfam, (m->nsxfam + 1) * sizeof *m->sxfam);
    memset(&m->sxfam[m->nsxfam], 0, sizeof *m->sxfam);
    m->sxfam[m->nsxfam].name = cli_xstrndup(name, len);
    return &m->sxfam[m->nsxfam++];
}

int
model_sitefx_add(m_group *m, const psf_key *k, uint64_t v)
{
    m_sxfam *f;
    int i;

    if ((k->kind == PSF_K_SITE_FX || k->kind == PSF_K_SITE_FX_FORM) && k->a_len == 0) {
        /* A summary without the figures: its rows (failing_sites, read
         * back) are only the sites run unspecialized and give none. */
    }
    else if (k->kind == PSF_K_SITE_FX_FORM) {
        f = fam_get(m, k->a, k->a_len);
        m_list_add(&f->forms, k->b, k->b_len, v);
    }
    else if (k->kind == PSF_K_SITE_FX) {
        f = fam_get(m, k->a, k->a_len);
        for (i = 0; i < M_SX_COUNT; i++)
            if (strlen(m_sx_name[i]) == k->b_len && memcmp(m_sx_name[i], k->b, k->b_len) == 0)
                f->f[i] = cli_sat_add(f->f[i], v);
    }
    else {
        return 0;
    }
    m->has_census = 1;
    m->sx_read = 1;
    return 1;
}

/* A row's fields: FAMILY | STATE | DETAIL, each [start, len). */
typedef struct row3 {
    const char *p[3];
    size_t len[3];
} row3;

static int
split_row(const char *row, row3 *r)
{
    const char *p = row;
    int i;

    for (i = 0; i < 3; i++) {
        const char *sep = strstr(p, PSF_SEP_FIELD);
        r->p[i] = p;
        r->len[i] = sep ? (size_t)(sep - p) : strlen(p);
        if (sep == NULL)
            return i == 2 ? 0 : -1;
        p = sep + 3;
    }
    return 0;
}

static int
state_of(const row3 *r)
{
    int i;

    for (i = 0; i < M_SX_STATES; i++)
        if (strlen(m_sx_name[i]) == r->len[1] && memcmp(m_sx_name[i], r->p[1], r->len[1]) == 0)
            return i;
    return -1;
}

/* Whether two rows of one site credit its executions alike: the same
 * family and state, and for a specialized site the same form. */
static int
same_credit(const row3 *a, const row3 *b, int state)
{
    int n = state == M_SX_SPECIALIZED ? 3 : 2, i;

    for (i = 0; i < n; i++)
        if (a->len[i] != b->len[i] || memcmp(a->p[i], b->p[i], a->len[i]) != 0)
            return 0;
    return 1;
}

/* CPython 3.12-3.14's backoff counter (pycore_code.h, pycore_backoff.h):
 * a site starts at its warm-up value (1, exponent 1) and attempts to
 * specialize at its second execution; a failed attempt raises the
 * exponent b by one (to at most 12) and waits 2^b - 1 executions, so the
 * j-th consecutive failed attempt is at execution 2^(j+1) - 2.  A site
 * whose row says k failed attempts (never tried: 0) has run at most
 * 2^(k+2) - 3 times since warm-up, if k < 11 (below the ceiling, where
 * attempts stop counting): more means an earlier history its state no
 * longer shows (specialized, deoptimized after misses, and failing from
 * the cool-down exponent 0, which reads as never tried, then 1 attempt).
 * UINT64_MAX: no bound. */
static uint64_t
fail_bound(int state, const row3 *r)
{
    unsigned long k = 0;
    char buf[8];

    if (state == M_SX_BACKING_OFF) {
        if (r->len[2] == 0 || r->len[2] >= sizeof buf)
            return UINT64_MAX;
        memcpy(buf, r->p[2], r->len[2]);
        buf[r->len[2]] = '\0';
        k = strtoul(buf, NULL, 10);
    }
    else if (state != M_SX_NEVER_TRIED) {
        return UINT64_MAX;
    }
    return k < 11 ? ((uint64_t)1 << (k + 2)) - 3 : UINT64_MAX;
}

/* The sites of c: each offset's rows (most dumps first), credited to the
 * first. */
static void
add_code(m_group *m, const m_code *c, int ft)
{
    size_t i = 0, j;

    while (i < c->nvsites) {
        const m_vsite *v = &c->vsites[i];
        row3 r, o;
        int st, uncertain = 0;
        uint64_t n, bound;
        m_sxfam *f;

        for (j = i + 1; j < c->nvsites && c->vsites[j].offset == v->offset; j++)
            ;
        if (split_row(v->row, &r) < 0 || (st = state_of(&r)) < 0) {
            i = j;
            continue;
        }
        for (; i + 1 < j; i++)
            if (split_row(c->vsites[i + 1].row, &o) < 0 || !same_credit(&r, &o, st))
                uncertain = 1;
        i = j;
        n = model_site_executions(c, v->offset);
        bound = ft ? UINT64_MAX : fail_bound(st, &r);
        if (bound != UINT64_MAX && v->n <= UINT64_MAX / bound && n > bound * v->n)
            uncertain = 1;
        f = fam_get(m, r.p[0], r.len[0]);
        f->f[st] = cli_sat_add(f->f[st], n);
        f->f[M_SX_SITES]++;
        if (uncertain)
            f->f[M_SX_UNCERTAIN] = cli_sat_add(f->f[M_SX_UNCERTAIN], n);
        if (st == M_SX_SPECIALIZED && r.len[2] > 0)
            m_list_add(&f->forms, r.p[2], r.len[2], n);
    }
}

static int
fam_cmp(const void *pa, const void *pb)
{
    const m_sxfam *a = pa, *b = pb;

    if (a->rows_exec != b->rows_exec)
        return a->rows_exec > b->rows_exec ? -1 : 1;
    return strcmp(a->name, b->name);
}

void
model_sitefx_build(m_group *m, int ft)
{
    size_t i, k;
    int s;

    /* Code without executions at its sites: rows of dumps written
     * before site_executions, which give no figure. */
    if (!m->sx_read)
        for (i = 0; i < m->ncode; i++)
            if (m->code[i].nsexec)
                add_code(m, &m->code[i], ft);
    for (i = 0; i < m->nsxfam; i++) {
        m_sxfam *f = &m->sxfam[i];
        f->rows_exec = 0;
        for (s = 0; s < M_SX_STATES; s++)
            f->rows_exec = cli_sat_add(f->rows_exec, f->f[s]);
        for (k = 0; k < m->ops.n; k++)
            if (m->ops.v[k].has_exec && m->ops.v[k].family &&
                strcmp(m->ops.v[k].family, f->name) == 0)
                f->family_exec = cli_sat_add(f->family_exec, m->ops.v[k].exec);
        m_list_sort(&f->forms);
    }
    if (m->nsxfam > 1)
        qsort(m->sxfam, m->nsxfam, sizeof *m->sxfam, fam_cmp);
}

void
model_sitefx_free(m_group *m)
{
    size_t i, k;

    for (i = 0; i < m->nsxfam; i++) {
        free(m->sxfam[i].name);
        for (k = 0; k < m->sxfam[i].forms.n; k++)
            free(m->sxfam[i].forms.v[k].name);
        free(m->sxfam[i].forms.v);
    }
    free(m->sxfam);
    m->sxfam = NULL;
    m->nsxfam = 0;
}
