/* compare_lists.c: the comparison's sections of what is not per
 * instruction: the collector's census, hot code and site executions,
 * and the named counter lists (calls, objects, GC, optimization, uops,
 * JIT, free-threading, rare events, other counters). */
#include "compare_int.h"

#include "cli.h"
#include "renames.h"
#include "text.h"
#include "../format/psf_stats.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
fill_list(cmp *c, const char *name, const char *title, const char *col, int normalized,
          size_t list_off)
{
    cmp_section *s = NULL;
    int i;
    size_t k;

    for (i = 0; i < 2; i++) {
        const m_list *l = (const m_list *)((const char *)c->side[i].m + list_off);
        for (k = 0; k < l->n; k++) {
            if (s == NULL)
                s = cmp_sec_new(c, name, title, col, CMP_COUNT, normalized, NULL);
            cmp_add_count(s, i, l->v[k].name, l->v[k].n);
        }
    }
}

/* What the hot code sections compare. */
#define HOT_NOTE                                                       \
    "Instructions executed by FILE:FUNCTION, FILE by module where it " \
    "is importable (else relative to the working directory), without " \
    "the line, so that code matches across environments and Python "   \
    "versions; code objects alike in both are added. Self: the share " \
    "of all instructions executed on that side. Ranked by the change " \
    "in instructions per call times the base's calls (a change in "    \
    "the number of calls, as pyperf's loop counts, is no change); "    \
    "code that is 3% or more of a side's instructions is never "       \
    "folded."

/* The collector's census and hot code, when either side has them.  The
 * census is a state: its counts are not per instruction executed. */
static void
fill_own(cmp *c)
{
    cmp_section *cen = NULL, *cenn = NULL, *sites = NULL, *hot = NULL, *hotc = NULL;
    char name[1200];
    int i, f;
    size_t k;

    if (c->side[0].m->has_census || c->side[1].m->has_census) {
        cen = cmp_sec_new(c, "census", "Specialization census", "Family.state", CMP_SHARE, 0,
                          "Shares of the family's sites at dump time: specialized, backing off "
                          "after failed attempts, never tried.");
        cenn = cmp_sec_new(c, "census_counts", "Specialization census counts", "Counter", CMP_COUNT,
                           0, "Code objects and sites, summed over dumps.");
    }
    if (c->side[0].m->nsites || c->side[1].m->nsites)
        sites = cmp_sec_new(c, "census_sites", "Sites that fail to specialize",
                            "Family file:line function", CMP_COUNT, 0,
                            "Sites backing off, merged by family, file, line and function.");
    if (c->side[0].m->ncode || c->side[1].m->ncode) {
        int filtered = c->side[0].m->hot_out || c->side[1].m->hot_out;
        hot = cmp_sec_new(c, "hot_code", "Hot code: instructions", "Code object", CMP_COUNT, 1,
                          filtered ? HOT_NOTE " Only the code that --code and --no-stdlib keep, "
                                              "on both sides."
                                   : HOT_NOTE);
        hot->self_share = 1;
        hot->per_call = 1;
        hotc =
            cmp_sec_new(c, "hot_code_calls", "Hot code: calls", "Code object", CMP_COUNT, 1, NULL);
    }
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        if (cen) {
            for (k = 0; k < m->census.n; k++)
                cmp_add_count(cenn, i, m->census.v[k].name, m->census.v[k].n);
            for (k = 0; k < m->census_excluded.n; k++) {
                cmp_fmt_name(name, sizeof name, "%s.left_out", m->census_excluded.v[k].name);
                cmp_add_count(cenn, i, name, m->census_excluded.v[k].n);
            }
            for (k = 0; k < m->ncfam; k++) {
                const m_cfam *fm = &m->cfam[k];
                const psf_stat *row = psf_stats_census_family.rows;
                cmp_fmt_name(name, sizeof name, "%s.%s", fm->name, row[PSF_CF_sites].key);
                cmp_add_count(cenn, i, name, fm->f[PSF_CF_sites]);
                if (fm->f[PSF_CF_sites] == 0)
                    continue;
                /* The figures that are a share of the sites. */
                for (f = 0; f < PSF_NCF; f++) {
                    if (row[f].den != PSF_CF_sites)
                        continue;
                    cmp_fmt_name(name, sizeof name, "%s.%s", fm->name, row[f].key);
                    cmp_add_share(cen, i, name, fm->f[f], fm->f[row[f].den]);
                }
            }
        }
        if (sites)
            for (k = 0; k < m->nsites; k++) {
                const m_csite *st = &m->sites[k];
                /* Free text decoded for reading (text.h), the same on both sides. */
                char *fl = text_display(st->file), *fn = text_display(st->func);
                /* A site of a family renamed between the versions under
                 * its name on the other side (BINARY_SUBSCR: BINARY_OP). */
                const ren_row *rr = cmp_side_rename(c, i, st->family);
                const char *fam = rr && rr->kind != REN_INSERTED && !strchr(rr->units, ' ')
                                      ? rr->units
                                      : st->family;
                cmp_fmt_name(name, sizeof name, "%s %s:%s %s", fam, fl, st->line, fn);
                free(fl);
                free(fn);
                cmp_add_count(sites, i, name, st->count);
            }
        if (hot)
            for (k = 0; k < m->ncode; k++) {
                /* FILE:QUALNAME, without the line, which moves between
                 * Python versions of the standard library. */
                const m_code *x = &m->code[k];
                size_t n = x->file_len + (x->qual ? strlen(x->qual) + 2 : 1);
                char *enc, *cn;
                if (x->out) /* --code, --no-stdlib */
                    continue;
                enc = cli_xmalloc(n);
                snprintf(enc, n, "%.*s%s%s", (int)x->file_len, x->name, x->qual ? ":" : "",
                         x->qual ? x->qual : "");
                cn = text_display(enc);
                free(enc);
                cmp_add_count(hot, i, cn, m->code[k].instructions);
                cmp_add_calls(hot, i, cn, m->code[k].calls);
                cmp_add_count(hotc, i, cn, m->code[k].calls);
                free(cn);
            }
    }
    if (hot) {
        cmp_moves(hot);
        cmp_moves(hotc);
    }
}

/* Site executions by state (model_sitefx.c), when either side has them:
 * per family and state, and (same instruction set only) per specialized
 * form, counts per million instructions; the shares of the family's
 * site executions. */
static void
fill_sitefx(cmp *c)
{
    cmp_section *st, *forms = NULL, *sh;
    char name[600];
    size_t k, j;
    int i, f;

    if (c->side[0].m->nsxfam == 0 && c->side[1].m->nsxfam == 0)
        return;
    st = cmp_sec_new(c, "site_executions", "Site executions by state", "Family.state", CMP_COUNT, 1,
                     "Every dispatch at the sites with census rows, credited to the state the "
                     "census read (specialized: hits plus misses in a --enable-pystats build's "
                     "terms, not hits; excluded: instrumented while counting, not read; uncertain: "
                     "sites whose state visibly changed, any state).");
    if (!c->by_family)
        forms = cmp_sec_new(c, "site_executions_forms", "Site executions by specialized form",
                            "Form", CMP_COUNT, 1,
                            "Executions at sites in that form when the census was taken.");
    sh = cmp_sec_new(c, "site_execution_shares", "Site execution shares", "Family.state", CMP_SHARE,
                     0,
                     "Shares of the family's site executions; coverage: the site executions as a "
                     "share of the family's executions (the rows are capped).");
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->nsxfam; k++) {
            const m_sxfam *x = &m->sxfam[k];
            /* Across versions, by family: one renamed between them
             * under the other side's name (BINARY_SUBSCR: BINARY_OP). */
            const ren_row *rr = cmp_side_rename(c, i, x->name);
            const char *fam =
                rr && rr->kind != REN_INSERTED && !strchr(rr->units, ' ') ? rr->units : x->name;
            for (f = 0; f < M_SX_SITES; f++) {
                cmp_fmt_name(name, sizeof name, "%s.%s", fam, m_sx_name[f]);
                cmp_add_count(st, i, name, x->f[f]);
                if (x->rows_exec)
                    cmp_add_share(sh, i, name, x->f[f], x->rows_exec);
            }
            if (x->family_exec) {
                cmp_fmt_name(name, sizeof name, "%s.coverage", fam);
                cmp_add_share(sh, i, name, x->rows_exec, x->family_exec);
            }
            for (j = 0; forms && j < x->forms.n; j++)
                cmp_add_count(forms, i, x->forms.v[j].name, x->forms.v[j].n);
        }
    }
}

/* GC stats: each field by its key (psf_stats.h's PSF_GC), the rest as CPython names them. */
static void
fill_gc(cmp *c)
{
    cmp_section *s;
    char name[1200];
    size_t k;
    int i;

    s = NULL;
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->gc.n; k++) {
            const char *sp = strchr(m->gc.v[k].name, ' '), *pre, *sep;
            if (s == NULL)
                s = cmp_sec_new(c, "gc", "GC stats", "Counter", CMP_COUNT, 1, NULL);
            if (sp) {
                psf_gc_key_parts(sp + 1, strlen(sp + 1), &pre, &sep);
                cmp_fmt_name(name, sizeof name, "%s%.*s%s%s", pre, (int)(sp - m->gc.v[k].name),
                             m->gc.v[k].name, sep, sp + 1);
            }
            else
                cmp_fmt_name(name, sizeof name, "GC %s", m->gc.v[k].name);
            cmp_add_count(s, i, name, m->gc.v[k].n);
        }
    }
}

/* Optimization histograms: a row per bucket. */
static void
fill_hist(cmp *c)
{
    cmp_section *s;
    char name[1200];
    size_t k, j;
    int i;

    s = NULL;
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->nhist; k++)
            for (j = 0; j < m->hist[k].buckets.n; j++) {
                if (s == NULL)
                    s = cmp_sec_new(c, "histograms", "Optimization histograms", "Bucket", CMP_COUNT,
                                    1, NULL);
                cmp_fmt_name(name, sizeof name, "%s <= %s", m->hist[k].name,
                             m->hist[k].buckets.v[j].name);
                cmp_add_count(s, i, name, m->hist[k].buckets.v[j].n);
            }
    }
}

/* Uop execution counts. */
static void
fill_uops(cmp *c)
{
    cmp_section *s;
    size_t k;
    int i;

    s = NULL;
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->uops.n; k++) {
            if (!m->uops.v[k].has_exec)
                continue;
            if (s == NULL)
                s = cmp_sec_new(c, "uops", "Uop execution counts", "Uop", CMP_COUNT, 1, NULL);
            cmp_add_count(s, i, m->uops.v[k].name, m->uops.v[k].exec);
        }
    }
}

void
cmp_fill_lists(cmp *c)
{
    fill_own(c);
    fill_sitefx(c);
    fill_list(c, "calls", "Call stats", "Counter", 1, offsetof(m_group, calls));
    fill_list(c, "own_calls", "Calls (collector's frame events)", "Event", 1,
              offsetof(m_group, own_calls));
    fill_list(c, "objects", "Object stats", "Counter", 1, offsetof(m_group, objects));
    fill_gc(c);
    fill_list(c, "optimization", "Optimization (Tier 2) counters", "Counter", 1,
              offsetof(m_group, opt));
    fill_hist(c);
    fill_uops(c);
    fill_list(c, "unsupported_opcodes", "Unsupported opcodes", "Opcode", 1,
              offsetof(m_group, unsupported));
    fill_list(c, "errors_in_opcode", "Errors in uops", "Uop", 1, offsetof(m_group, errors));
    fill_list(c, "jit", "JIT memory", "Counter", 0, offsetof(m_group, jit));
    fill_list(c, "free_threading", "Free-threading", "Counter", 1, offsetof(m_group, ft));
    fill_list(c, "rare_events", "Rare events", "Event", 1, offsetof(m_group, rare));
    fill_list(c, "rare_watchers", "Rare events (watchers, partial)", "Event", 0,
              offsetof(m_group, own_rare));
    fill_list(c, "other", "Other counters", "Key", 1, offsetof(m_group, other));
}
