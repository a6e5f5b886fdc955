/* compare_fill.c: the comparison's sections of instructions (totals,
 * by meaning, execution counts, families, specialization, pairs), then
 * the rest (compare_lists.c), each section's figures and the sections
 * kept. */
#include "compare_int.h"

#include "cli.h"
#include "renames.h"
#include "../format/psf_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The specialization sections' rows of one instruction. */
typedef struct spec_secs {
    cmp_section *spec, *specn, *fail;
} spec_secs;

static void
add_op_spec(const spec_secs *secs, int i, const m_op *op)
{
    cmp_section *spec = secs->spec, *specn = secs->specn, *fail = secs->fail;
    static const int f[] = {PSF_SPEC_HIT, PSF_SPEC_MISS, PSF_SPEC_DEFERRED, PSF_SPEC_DEOPT};
    static const char *const fn[] = {"hit_ratio", "miss_ratio", "deferred_ratio", "deopt_ratio"};
    uint64_t total = m_spec_total(op), sf;
    char name[1200];
    size_t q;

    if (total)
        for (q = 0; q < 4; q++) {
            cmp_fmt_name(name, sizeof name, "%s.%s", op->name, fn[q]);
            cmp_add_share(spec, i, name, op->spec[f[q]], total);
        }
    sf = cli_sat_add(op->spec[PSF_SPEC_SUCCESS], op->spec[PSF_SPEC_FAILURE]);
    if (sf) {
        cmp_fmt_name(name, sizeof name, "%s.success_ratio", op->name);
        cmp_add_share(spec, i, name, op->spec[PSF_SPEC_SUCCESS], sf);
    }
    for (q = 0; q < PSF_SPEC_COUNT; q++) {
        cmp_fmt_name(name, sizeof name, "%s.%s", op->name, psf_spec_field_name[q]);
        cmp_add_count(specn, i, name, op->spec[q]);
    }
    for (q = 0; q < op->fail.n; q++) {
        cmp_fmt_name(name, sizeof name, "%s.%s", op->name, op->fail.v[q].name);
        cmp_add_share(fail, i, name, op->fail.v[q].n, op->spec[PSF_SPEC_FAILURE]);
    }
}

/* The pair rows of one instruction (by family when c->by_family). */
static void
add_op_pairs(cmp *c, cmp_section *pairs, int i, const m_op *op)
{
    char name[1200];
    size_t j;

    for (j = 0; j < op->succ.n; j++) {
        const char *b = op->succ.v[j].name;
        if (c->by_family) {
            const char *fb = psf_tab_family(c->side[i].g->minor, b);
            cmp_fmt_name(name, sizeof name, "%s %s", op->family, fb ? fb : b);
        }
        else {
            cmp_fmt_name(name, sizeof name, "%s %s", op->name, b);
        }
        cmp_add_count(pairs, i, name, op->succ.v[j].n);
    }
}

/* Per family (native dumps): the share of its executions that ran a
 * specialized form. */
static void
add_specialized_shares(cmp_section *spec, int i, const m_group *m, const m_list *famexec,
                       const m_list *famspec)
{
    char name[1200];
    size_t k;

    for (k = 0; k < famexec->n; k++) {
        const m_op *base = model_op(m, famexec->v[k].name);
        uint64_t sp = m_list_get(famspec, famexec->v[k].name);
        if (famexec->v[k].n == 0 || (sp == 0 && !(base && base->specializable)))
            continue;
        cmp_fmt_name(name, sizeof name, "%s.specialized_share", famexec->v[k].name);
        cmp_add_share(spec, i, name, sp, famexec->v[k].n);
    }
}

/* Remember that side i ran `row`'s instruction n times (headline). */
static void
note_rename(cmp *c, int i, const ren_row *row, uint64_t n)
{
    size_t k;

    if (row->kind == REN_INSERTED || n == 0)
        return;
    for (k = 0; k < c->nren; k++)
        if (c->ren[k].row == row)
            break;
    if (k == c->nren) {
        c->ren = cli_xrealloc(c->ren, (c->nren + 1) * sizeof *c->ren);
        c->ren[k].row = row;
        c->ren[k].side = i;
        c->ren[k].n = 0;
        c->nren++;
    }
    c->ren[k].n = cli_sat_add(c->ren[k].n, n);
}

/* Execution counts by meaning: each side's instructions (families when
 * comparing by family) in the units of the version pair's table of
 * renames, so that LOAD_FAST_BORROW counts as LOAD_FAST and RETURN_CONST
 * as LOAD_CONST + RETURN_VALUE. */
static void
fill_meaning(cmp *c)
{
    cmp_section *s;
    char unit[128];
    size_t k;
    int i;

    s = cmp_sec_new(c, "meaning", "Execution counts by meaning", "Instruction", CMP_COUNT, 1,
                    "Instructions renamed, split or merged between the two versions counted "
                    "as one (the table of docs/CLI.md, \"Across versions, by meaning\"): the "
                    "changes left are changes in the work. Self: the share of all instructions "
                    "executed on that side.");
    s->self_share = 1;
    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        for (k = 0; k < m->ops.n; k++) {
            const m_op *op = &m->ops.v[k];
            const char *name = c->by_family ? op->family : op->name, *u, *e;
            const ren_row *row;
            if (!op->has_exec)
                continue;
            row = cmp_side_rename(c, i, name);
            if (row == NULL) {
                cmp_add_count(s, i, name, op->exec);
                continue;
            }
            note_rename(c, i, row, op->exec);
            for (u = row->units; *u; u = *e ? e + 1 : e) {
                e = strchr(u, ' ');
                if (e == NULL)
                    e = u + strlen(u);
                cmp_fmt_name(unit, sizeof unit, "%.*s", (int)(e - u), u);
                cmp_add_count(s, i, unit, op->exec);
            }
        }
    }
}

static void
fill_total(cmp *c)
{
    cmp_section *s = cmp_sec_new(c, "total", "Totals", "Figure", CMP_COUNT, 0, NULL);
    int i;

    for (i = 0; i < 2; i++) {
        cmp_add_count(s, i, "instructions", c->side[i].m->total_exec);
        cmp_add_count(s, i, "files", c->side[i].g->files);
    }
}

static void
fill(cmp *c)
{
    cmp_section *exec = NULL, *fam, *eff, *spec, *specn, *fail, *pairs = NULL;
    spec_secs secs;
    int i;
    size_t k;

    fill_total(c);
    if (c->ren_lo)
        fill_meaning(c);
    if (!c->by_family) {
        exec = cmp_sec_new(c, "execution", "Execution counts", "Instruction", CMP_COUNT, 1,
                           "Self: the share of all instructions executed on that side.");
        exec->self_share = 1;
    }
    fam = cmp_sec_new(c, "family", "Execution counts by family", "Family", CMP_COUNT, 1,
                      "A family is a base instruction with all its specialized forms. "
                      "Self: the share of all instructions executed on that side.");
    fam->self_share = 1;
    eff = cmp_sec_new(c, "effectiveness", "Specialization effectiveness", "Instructions", CMP_SHARE,
                      0, "Shares of all instructions executed (native dumps only).");
    spec = cmp_sec_new(c, "specialization", "Specialization", "Family.figure", CMP_SHARE, 0,
                       "hit, miss, deferred and deopt ratios of hit + miss + executions of the "
                       "base instruction; success ratio of specialization attempts; specialized "
                       "share of the family's executions.");
    specn = cmp_sec_new(c, "specialization_counts", "Specialization counts", "Family.counter",
                        CMP_COUNT, 1, NULL);
    fail = cmp_sec_new(c, "failure_kinds", "Specialization failure kinds", "Family.kind", CMP_SHARE,
                       0, "Shares of the family's specialization failures.");
    secs = (spec_secs){spec, specn, fail};
    if (c->side[0].m->has_pairs || c->side[1].m->has_pairs)
        pairs = cmp_sec_new(c, "pairs", c->by_family ? "Pair counts by family" : "Pair counts",
                            "Pair", CMP_COUNT, 1, NULL);

    for (i = 0; i < 2; i++) {
        const m_group *m = c->side[i].m;
        int native = c->side[i].g->source == AGG_NATIVE;
        uint64_t basic = 0, notspec = 0, hits = 0, misses = 0;
        m_list famexec = {0}, famspec = {0};

        for (k = 0; k < m->ops.n; k++) {
            const m_op *op = &m->ops.v[k];
            if (op->has_exec) {
                if (exec)
                    cmp_add_count(exec, i, op->name, op->exec);
                cmp_add_count(fam, i, op->family, op->exec);
                m_list_add(&famexec, op->family, strlen(op->family), op->exec);
                if (native && model_is_specialized(op)) {
                    uint64_t ms =
                        op->spec[PSF_SPEC_MISS] < op->exec ? op->spec[PSF_SPEC_MISS] : op->exec;
                    m_list_add(&famspec, op->family, strlen(op->family), op->exec);
                    hits += op->exec - ms;
                    misses += ms;
                }
                else if (native && op->specializable) {
                    notspec += op->exec;
                }
                else if (native) {
                    basic += op->exec;
                }
            }
            if (op->specializable && op->has_spec)
                add_op_spec(&secs, i, op);
            if (pairs)
                add_op_pairs(c, pairs, i, op);
        }
        if (native && m->total_exec) {
            cmp_add_share(eff, i, "basic", basic, m->total_exec);
            cmp_add_share(eff, i, "not_specialized", notspec, m->total_exec);
            cmp_add_share(eff, i, "specialized_hits", hits, m->total_exec);
            cmp_add_share(eff, i, "specialized_misses", misses, m->total_exec);
        }
        if (native)
            add_specialized_shares(spec, i, m, &famexec, &famspec);
        m_list_free(&famexec);
        m_list_free(&famspec);
    }

    cmp_fill_lists(c);
}

/* Mark instructions (and families) that one side's version does not have. */
static void
mark_only(cmp *c, cmp_section *s)
{
    int bm = c->side[0].g->minor, hm = c->side[1].g->minor;
    size_t i;

    if (bm == 0 || hm == 0 || bm == hm)
        return;
    for (i = 0; i < s->n; i++) {
        int inb = psf_tab_family(bm, s->rows[i].name) != NULL;
        int inh = psf_tab_family(hm, s->rows[i].name) != NULL;
        if (inb && !inh)
            s->rows[i].only = CMP_ONLY_BASE;
        else if (inh && !inb)
            s->rows[i].only = CMP_ONLY_HEAD;
    }
}

void
cmp_fill(cmp *c)
{
    size_t i, j;

    fill(c);
    for (i = 0; i < c->nsec; i++) {
        if (strcmp(c->sec[i].name, "execution") == 0 || strcmp(c->sec[i].name, "family") == 0 ||
            strcmp(c->sec[i].name, "meaning") == 0 ||
            strcmp(c->sec[i].name, "site_executions_forms") == 0)
            mark_only(c, &c->sec[i]);
        cmp_sec_finish(c, &c->sec[i]);
    }
    /* Sections with no rows at all are left out. */
    for (i = j = 0; i < c->nsec; i++) {
        if (c->sec[i].n == 0) {
            free(c->sec[i].rows);
            continue;
        }
        c->sec[j++] = c->sec[i];
    }
    c->nsec = j;
}
