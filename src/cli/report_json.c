/* report_json.c: the JSON summary (schema 1, documented in
 * docs/FORMAT.md, section 3): name-keyed, self-contained, readable back as input
 * by read_json.c. */
#include "../format/psf_keys.h"
#include "../format/psf_version.h"
#include "report.h"

#include "cli.h"
#include "model.h"
#include "text.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_SCHEMA 1

static void
set(json_t *o, const char *k, json_t *v)
{
    text_json_set_raw(o, k, v);
}


static json_t *
list_obj(const m_list *l, size_t skip)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; i < l->n; i++)
        set(o, l->v[i].name + skip, text_json_count(l->v[i].n));
    return o;
}

static json_t *
op_obj(const m_op *op, int uop)
{
    json_t *o = json_object(), *s;
    int f;

    if (!uop)
        set(o, "family", text_json_str(op->family));
    if (op->has_exec)
        set(o, "execution_count", text_json_count(op->exec));
    if (op->specializable)
        set(o, "specializable", json_true());
    if (uop && op->has_spec) {
        set(o, "miss", text_json_count(op->spec[PSF_SPEC_MISS]));
    }
    else if (op->has_spec) {
        s = json_object();
        for (f = 0; f < PSF_SPEC_COUNT; f++)
            set(s, psf_spec_field_name[f], text_json_count(op->spec[f]));
        set(s, "failure_kinds", list_obj(&op->fail_names, 0));
        set(o, "specialization", s);
    }
    if (op->succ.n)
        set(o, "pair_count", list_obj(&op->succ, 0));
    return o;
}

/* Texts and their counts; encoded: the texts are free text in the
 * dump's encoding (text.h), else raw (not UTF-8: escaped, never lost). */
static json_t *
strs_obj(const summary_texts *s, int encoded)
{
    json_t *o = json_object();
    size_t i, len;

    for (i = 0; i < s->n; i++) {
        char *enc = encoded ? NULL : text_from_dump(1, s->v[i].text, strlen(s->v[i].text), &len);
        text_json_set(o, enc ? enc : s->v[i].text, text_json_count(s->v[i].n));
        free(enc);
    }
    return o;
}

static json_t *
group_meta(const summary_meta *g)
{
    json_t *m = json_object(), *f = json_object(), *h = json_object();
    char ver[16];
    size_t i;

    set(m, "files", text_json_count(g->files));
    set(m, "source", json_string(g->source));
    if (g->minor) {
        snprintf(ver, sizeof ver, "3.%d", g->minor);
        set(m, "python_version", json_string(ver));
    }
    else {
        set(m, "python_version", json_null());
    }
    set(m, "counts", text_json_str(g->counts));
    if (g->label)
        set(m, "label", text_json(g->label));
    if (g->weight_total) {
        json_t *w = json_object();
        set(w, "labels", text_json_count(g->weight_labels));
        set(w, "executions_per_label", text_json_count(g->weight_total));
        set(m, "equal_weight", w);
    }
    for (i = 0; i < g->formats.n; i++)
        set(f, g->formats.v[i].text, text_json_count(g->formats.v[i].n));
    set(m, "formats", f);
    set(m, "version_detection", strs_obj(&g->how, 0));
    set(m, "collectors", strs_obj(&g->collectors, 0));
    for (i = 0; i < g->nhdr; i++)
        set(h, g->hdr[i].key, strs_obj(&g->hdr[i].vals, g->hdr[i].free_text));
    set(m, "headers", h);
    /* A known leftover (SIGTERM dumps): at most this many instructions
     * uncounted, over the group's files. */
    if (g->leftover_bound)
        set(m, "leftover_bound", text_json_count(g->leftover_bound));
    if (g->time_start)
        set(m, "time_start", text_json_str(g->time_start));
    if (g->time_end)
        set(m, "time_end", text_json_str(g->time_end));
    return m;
}

static json_t *
gc_obj(const m_list *l)
{
    json_t *o = json_object();
    size_t i;
    char gen[32];

    for (i = 0; i < l->n; i++) {
        const char *sp = strchr(l->v[i].name, ' ');
        json_t *g;
        if (sp == NULL)
            continue;
        snprintf(gen, sizeof gen, "%.*s", (int)(sp - l->v[i].name), l->v[i].name);
        g = json_object_get(o, gen);
        if (g == NULL) {
            g = json_object();
            set(o, gen, g);
        }
        set(g, sp + 1, text_json_count(l->v[i].n));
    }
    return o;
}

/* The sites run unspecialized, most executions first (FORMAT.md 1.18,
 * section 3): every one, as the site table ranks them. */
static json_t *
failing_sites(const m_group *g)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < g->nfsites; i++) {
        const m_fsite *f = &g->fsites[i];
        const m_code *k = f->code;
        const char *src = model_fsite_source(g, f);
        json_t *so = json_object();
        set(so, "family", text_json(f->family));
        set(so, "executions", text_json_count(f->executions));
        if (f->family_exec)
            set(so, "family_executions", text_json_count(f->family_exec));
        set(so, "state", text_json(f->state));
        if (strcmp(f->state, PSF_SITE_BACKING_OFF) == 0)
            set(so, "attempts", text_json_count(strtoull(f->detail, NULL, 10)));
        set(so, "file", text_json_n(k->name, k->qual ? k->file_len : strlen(k->name)));
        if (k->path)
            set(so, "path", text_json(k->path));
        set(so, "line", text_json_str(f->line));
        set(so, "function", text_json(k->qual ? k->qual : k->name));
        if (k->module != NULL) {
            set(so, "module", text_json_n(k->module, k->module_len));
            set(so, "generated", json_true());
        }
        set(so, "code",
            text_json_n(k->name, k->module ? (size_t)(k->module - 1 - k->name) : strlen(k->name)));
        set(so, "offset", json_integer(f->offset));
        /* The code's own key parts, for reading the row back. */
        set(so, "first_line", json_stringn(k->line ? k->line : "", k->line_len));
        set(so, "code_function",
            k->module ? text_json_n(k->co_qual, k->co_qual_len)
                      : text_json(k->qual ? k->qual : k->name));
        if (src)
            set(so, "source", text_json(src));
        json_array_append_new(a, so);
    }
    return a;
}

/* Executions at each family's sites by state and by specialized form
 * (FORMAT.md 3, census.site_executions); family_executions (the
 * family's opcode executions, what the rows cover a part of) is derived
 * and not read back. */
static json_t *
site_executions(const m_group *g)
{
    json_t *o = json_object();
    size_t i;
    int f;

    for (i = 0; i < g->nsxfam; i++) {
        const m_sxfam *x = &g->sxfam[i];
        json_t *fo = json_object();
        for (f = 0; f < M_SX_COUNT; f++)
            set(fo, m_sx_name[f], text_json_count(x->f[f]));
        if (x->family_exec)
            set(fo, "family_executions", text_json_count(x->family_exec));
        set(fo, "forms", list_obj(&x->forms, 0));
        set(o, x->name, fo);
    }
    return o;
}

/* The census: totals, families and site rows (all of them: the reader
 * needs every row to merge summaries). */
static json_t *
census_obj(const m_group *g)
{
    json_t *o = json_object(), *fams = json_object(), *sites = json_array();
    size_t i;
    int f;

    for (i = 0; i < g->census.n; i++)
        set(o, g->census.v[i].name, text_json_count(g->census.v[i].n));
    for (i = 0; i < g->ncfam; i++) {
        const m_cfam *c = &g->cfam[i];
        json_t *fo = json_object();
        size_t j;
        for (f = 0; f < PSF_NCF; f++)
            set(fo, psf_stats_census_family.rows[f].key, text_json_count(c->f[f]));
        for (j = 0; j < c->extra.n; j++)
            if (strcmp(c->extra.v[j].name, "forms") != 0)
                set(fo, c->extra.v[j].name, text_json_count(c->extra.v[j].n));
        set(fo, "forms", list_obj(&c->forms, 0));
        set(fams, c->name, fo);
    }
    set(o, "families", fams);
    /* A census taken alongside counting: the families it left out. */
    if (g->census_excluded.n)
        set(o, "excluded_families", list_obj(&g->census_excluded, 0));
    for (i = 0; i < g->nsites; i++) {
        const m_csite *st = &g->sites[i];
        json_t *so = json_object();
        set(so, "family", text_json(st->family));
        set(so, "file", text_json(st->file));
        if (st->path)
            set(so, "path", text_json(st->path));
        set(so, "line", text_json_str(st->line));
        set(so, "function", text_json(st->func));
        set(so, "source", text_json(st->source));
        set(so, "attempts", text_json_count(st->attempts));
        set(so, "sites", text_json_count(st->count));
        json_array_append_new(sites, so);
    }
    set(o, "sites", sites);
    if (g->nfsites)
        set(o, "failing_sites", failing_sites(g));
    if (g->nsxfam)
        set(o, "site_executions", site_executions(g));
    return o;
}

static json_t *
code_obj(const m_group *g)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; i < g->nhot; i++) {
        json_t *c = json_object();
        const m_code *k = &g->code[i];
        set(c, "instructions", text_json_count(g->code[i].instructions));
        set(c, "calls", text_json_count(g->code[i].calls));
        set(c, "opcodes", list_obj(&g->code[i].ops, 0));
        /* The key's parts, decoded: FILE and QUALNAME may hold ':'. */
        if (k->qual) {
            set(c, "file", text_json_n(k->name, k->file_len));
            set(c, "line", json_stringn(k->line, k->line_len));
            set(c, "function", text_json(k->qual));
        }
        /* The file as the dump named it, where "file" is portable. */
        if (k->path)
            set(c, "path", text_json(k->path));
        text_json_set(o, k->name, c);
    }
    return o;
}

/* The sections of one group, added to o (the root or a group object). */
static void
group_fill(json_t *o, const summary_group *sg, const summary *s, int with_problems)
{
    const m_group *g = &sg->m;
    json_t *ops = json_object(), *opt = json_object(), *h = json_object(), *u = json_object();
    json_t *meta = group_meta(&sg->info), *p;
    size_t i;

    if (with_problems) {
        p = json_object();
        for (i = 0; i < SUMMARY_P_COUNT; i++)
            set(p, s->problems[i].text, text_json_count(s->problems[i].n));
        set(meta, "problems", p);
    }
    set(o, "meta", meta);
    set(meta, "total_execution_count", text_json_count(g->total_exec));
    if (g->bench_calls)
        set(meta, "benchmark_calls", text_json_count(g->bench_calls));
    for (i = 0; i < g->ops.n; i++)
        set(ops, g->ops.v[i].name, op_obj(&g->ops.v[i], 0));
    set(o, "opcodes", ops);
    set(o, "calls", list_obj(&g->calls, 0));
    set(o, "objects", list_obj(&g->objects, 0));
    set(o, "gc", gc_obj(&g->gc));
    set(opt, "counters", list_obj(&g->opt, 0));
    for (i = 0; i < g->nhist; i++)
        set(h, g->hist[i].name, list_obj(&g->hist[i].buckets, 0));
    set(opt, "histograms", h);
    for (i = 0; i < g->uops.n; i++)
        set(u, g->uops.v[i].name, op_obj(&g->uops.v[i], 1));
    set(opt, "uops", u);
    set(opt, "unsupported_opcodes", list_obj(&g->unsupported, 0));
    set(opt, "errors_in_opcode", list_obj(&g->errors, 0));
    set(opt, "jit", list_obj(&g->jit, 0));
    set(o, "optimization", opt);
    if (g->ft.n)
        set(o, "free_threading", list_obj(&g->ft, 0));
    set(o, "rare_events", list_obj(&g->rare, 0));
    /* The collector's own sections, present only when the dumps had them. */
    if (g->has_census)
        set(o, "census", census_obj(g));
    if (g->nhot)
        set(o, "code", code_obj(g));
    if (g->own_calls.n)
        set(o, "own_calls", list_obj(&g->own_calls, 0));
    if (g->own_rare.n)
        set(o, "rare_watchers", list_obj(&g->own_rare, 0));
    set(o, "other", list_obj(&g->other, 0));
}

/* The trust verdict and every finding behind it, as `pystats check
 * --json` has them (its schema's members). */
static void
trust_fill(json_t *meta, const summary *s)
{
    json_t *fs = json_array();
    size_t i;

    set(meta, "verdict", json_string(s->verdict));
    set(meta, "verdict_line", text_json_str(s->trust));
    for (i = 0; i < s->nfindings; i++) {
        const check_item *f = &s->findings[i];
        json_t *o = json_object();
        set(o, "check", json_string(f->check));
        set(o, "severity", json_string(f->severity));
        set(o, "title", json_string(f->title));
        set(o, "summary", text_json_str(f->summary));
        set(o, "why", json_string(f->why));
        set(o, "files", text_json_strs(f->files, f->nfiles));
        set(o, "details", text_json_strs(f->details, f->ndetails));
        json_array_append_new(fs, o);
    }
    set(meta, "findings", fs);
}

int
report_json(FILE *out, const summary *s)
{
    json_t *root = json_object(), *groups, *meta, *p, *notes, *g;
    size_t i;
    int ret = -1;

    set(root, "schema", json_integer(SUMMARY_SCHEMA));
    set(root, "pystats", json_string(PSF_VERSION));
    if (s->ng == 1) {
        group_fill(root, &s->g[0], s, 1);
        meta = json_object_get(root, "meta");
    }
    else {
        meta = json_object();
        set(meta, "files", text_json_count(s->files));
        p = json_object();
        for (i = 0; i < SUMMARY_P_COUNT; i++)
            set(p, s->problems[i].text, text_json_count(s->problems[i].n));
        set(meta, "problems", p);
        set(root, "meta", meta);
        groups = json_array();
        for (i = 0; i < s->ng; i++) {
            g = json_object();
            group_fill(g, &s->g[i], s, 0);
            json_array_append_new(groups, g);
        }
        set(root, "groups", groups);
    }
    if (s->mix)
        set(meta, "mix_warning", text_json_str(s->mix));
    notes = json_array();
    for (i = 0; i < s->nnotes; i++) {
        json_t *n = json_object();
        set(n, "kind", json_string(s->notes[i].kind));
        set(n, "where", text_json_str(s->notes[i].text));
        json_array_append_new(notes, n);
    }
    set(meta, "problem_notes", notes);
    if (s->trust && s->verdict)
        trust_fill(meta, s);
    if (text_json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0 &&
        fputc('\n', out) != EOF && !ferror(out))
        ret = 0;
    json_decref(root);
    return ret;
}
