/* overview.c: where to look first (overview.h). */
#include "overview.h"

#include "cli.h"
#include "text.h"
#include "../format/psf_keys.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keep the OVERVIEW_TOP families with the most generic executions
 * (ties: by name, as the model's lists). */
static void
offer_family(overview *o, const char *family, uint64_t generic, uint64_t exec)
{
    size_t i, at;
    if (generic == 0)
        return;
    for (at = 0; at < o->nfam; at++)
        if (generic > o->fam[at].generic ||
            (generic == o->fam[at].generic && strcmp(family, o->fam[at].family) < 0))
            break;
    if (at >= OVERVIEW_TOP)
        return;
    if (o->nfam < OVERVIEW_TOP)
        o->nfam++;
    for (i = o->nfam - 1; i > at; i--)
        o->fam[i] = o->fam[i - 1];
    o->fam[at].family = family;
    o->fam[at].generic = generic;
    o->fam[at].exec = exec;
}

/* Families with specialization figures (native dumps and published
 * summaries have them; collector dumps count base instructions only and
 * have none): each such op names a family; its forms are the ops of
 * that family.  The figure: executions of its generic forms plus
 * misses (a deoptimized form runs the generic path without counting as
 * an execution of the base instruction). */
static void
families(overview *o, const m_group *g)
{
    size_t i, j;

    for (i = 0; i < g->ops.n; i++) {
        const m_op *op = &g->ops.v[i];
        uint64_t generic = 0, exec = 0;
        int first = 1, any_spec = 0;
        if (!op->specializable)
            continue;
        for (j = 0; j < i && first; j++)
            if (g->ops.v[j].specializable && strcmp(g->ops.v[j].family, op->family) == 0)
                first = 0;
        if (!first)
            continue;
        for (j = 0; j < g->ops.n; j++) {
            const m_op *f = &g->ops.v[j];
            if (strcmp(f->family, op->family) != 0)
                continue;
            if (f->has_exec) {
                exec = cli_sat_add(exec, f->exec);
                if (!model_is_specialized(f))
                    generic = cli_sat_add(generic, f->exec);
            }
            if (f->has_spec) {
                any_spec = 1;
                generic = cli_sat_add(generic, f->spec[PSF_SPEC_MISS]);
            }
        }
        /* "specializable" without figures (3.13's POP_JUMP_IF_*, whose
         * cache holds branch history): no forms to miss. */
        if (any_spec)
            offer_family(o, op->family, generic, exec);
    }
}

void
overview_build(overview *o, const m_group *g)
{
    size_t i;
    memset(o, 0, sizeof *o);
    for (i = 0; i < g->nhot && o->ncode < OVERVIEW_TOP; i++)
        if (!g->code[i].out)
            o->code[o->ncode++] = &g->code[i];
    for (i = 0; i < g->nfsites && i < OVERVIEW_TOP; i++)
        o->fsite[o->nfsite++] = &g->fsites[i];
    for (i = 0; o->nfsite == 0 && i < g->nsites && i < OVERVIEW_TOP; i++)
        o->site[o->nsite++] = &g->sites[i];
    families(o, g);
    /* overview.h: each list ranked, most first; sites only without
     * site executions. */
    for (i = 1; i < o->ncode; i++)
        assert(o->code[i - 1]->instructions >= o->code[i]->instructions);
    for (i = 1; i < o->nfsite; i++)
        assert(o->fsite[i - 1]->executions >= o->fsite[i]->executions);
    for (i = 1; i < o->nsite; i++)
        assert(o->site[i - 1]->attempts >= o->site[i]->attempts);
    for (i = 1; i < o->nfam; i++)
        assert(o->fam[i - 1].generic >= o->fam[i].generic);
    assert(o->nfsite == 0 || o->nsite == 0);
}

void
overview_put_fsite(FILE *out, const char *prefix, const m_group *g, const m_fsite *f)
{
    const m_code *k = f->code;
    m_apart a;
    char c[32];
    char *fam = text_display(f->family), *func = text_display(k->qual ? k->qual : k->name),
         *file = text_display_n(k->name, k->qual ? k->file_len : strlen(k->name));

    cli_count_str(c, sizeof c, f->executions);
    fputs(prefix, out);
    fputs("fails to specialize: ", out);
    cli_fput_esc(out, fam);
    fputs(" at ", out);
    cli_fput_esc(out, file);
    fputc(':', out);
    cli_fput_esc(out, f->line);
    model_fsite_apart(g, f, &a);
    if (a.kind == M_APART_OFFSET)
        fprintf(out, ", offset %ld", f->offset);
    else if (a.kind == M_APART_COLUMN) {
        fprintf(out, ", column %ld", a.col);
        if (a.span != NULL) {
            fputs(" `", out);
            cli_fput_esc(out, a.span);
            fputc('`', out);
        }
    }
    free(a.span);
    if (k->module != NULL) { /* generated code: no source file */
        char *mod = text_display_n(k->module, k->module_len);
        fputs(" (generated, module ", out);
        cli_fput_esc(out, mod);
        fputc(')', out);
        free(mod);
    }
    fputs(" in ", out);
    cli_fput_esc(out, func);
    fprintf(out, ": %s executions not specialized", c);
    if (f->family_exec)
        fprintf(out, " (%.1f%% of %s)", 100.0 * (double)f->executions / (double)f->family_exec,
                fam);
    if (strcmp(f->state, PSF_SITE_BACKING_OFF) == 0) {
        fputs(", backing off after ", out);
        cli_fput_esc(out, f->detail);
        fputs(" failed attempts\n", out);
    }
    else {
        fputs(", never tried\n", out);
    }
    free(fam);
    free(func);
    free(file);
}
