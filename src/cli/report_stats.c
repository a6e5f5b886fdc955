/* report_stats.c: the summary's sections of the statistics families:
 * calls (CPython's and the collector's frame events), objects, garbage
 * collection, the optimizer and the JIT (its table, histograms, uops),
 * free-threading, rare events (CPython's and the watchers') and the
 * counters no section claims. */
#include "report_sec.h"

#include "cli.h"
#include "text.h"
#include "../format/psf_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether CPython's row k is summed into its sum n (PSF_NSUM_*): the
 * list's part, else (a counter not listed) the rule of summarize_stats.py
 * for the calls. */
static int
native_part(const psf_family *f, const char *k, int n)
{
    const psf_stat *st = psf_stat_find(f, k, strlen(k));

    if (st != NULL)
        return st->table == n;
    return n == PSF_NSUM_calls && f == &psf_stats_native_calls && strstr(k, "Calls to") != NULL;
}

/* CPython's sums of list l's rows (PSF_NATIVE_SUMS), into sum[]. */
static void
native_sums(const psf_family *f, const m_list *l, uint64_t *sum)
{
    size_t i;
    int n;

    for (n = 0; n < PSF_NSUMS; n++)
        for (sum[n] = 0, i = 0; i < l->n; i++)
            if (native_part(f, l->v[i].name, n))
                sum[n] += l->v[i].n;
}

/* CPython's calls (psf_stats.h's PSF_NATIVE_CALLS): every row a share of
 * the "Calls to" rows. */
static void
sec_calls(rdoc *m, const m_group *g)
{
    uint64_t sum[PSF_NSUMS];
    size_t i;

    if (g->calls.n == 0)
        return;
    native_sums(&psf_stats_native_calls, &g->calls, sum);
    rdoc_heading(m, 0, "Call stats");
    doc_para(m->d);
    doc_text(m->d, "Ratios are of all calls to Python functions (\"Calls to\" rows), "
                   "as CPython's report has them, frames too.");
    doc_table(m->d, "lrr", NULL, "Count", "Ratio");
    for (i = 0; i < g->calls.n; i++)
        rdoc_row3(m, g->calls.v[i].name, g->calls.v[i].n, sum[PSF_NSUM_calls]);
}

/* The denominator of CPython's object row k: its row's sum (psf_stats.h's
 * PSF_NATIVE_OBJECTS), else (a counter not listed, or the collector's
 * own) summarize_stats.py's rule, by the words of its key. */
static uint64_t
object_den(const char *k, const uint64_t *sum)
{
    const psf_stat *st = psf_stat_find(&psf_stats_native_objects, k, strlen(k));

    if (st != NULL)
        return st->den < 0 ? 0 : sum[st->den];
    if (strstr(k, "materialize"))
        return sum[PSF_NSUM_materializations];
    if (strstr(k, "allocations"))
        return sum[PSF_NSUM_allocations];
    if (strstr(k, "increfs"))
        return sum[PSF_NSUM_increfs];
    if (strstr(k, "decrefs"))
        return sum[PSF_NSUM_decrefs];
    return 0;
}

/* On 3.11 modes count and instructions collect through a trace function,
 * for which CPython creates a frame object at every Python call it
 * traces (FORMAT.md 1.11): one allocation and one free per Python start
 * counted, which census mode and a run without the collector do not
 * make.  A group is one version; the starts come from the dumps of those
 * modes only (census counts no calls), so a group mixing modes says in
 * which files.  The JSON summary has the figures and the modes, no note. */
static void
objects_trace_note(rdoc *m, const m_group *g)
{
    const psf_stat *start = &psf_stats_calls.rows[PSF_CALL_python_starts];
    uint64_t n = m_list_get(&g->own_calls, start->key);
    uint64_t traced =
        model_hdr_files(g, PSF_H_MODE, "count") + model_hdr_files(g, PSF_H_MODE, "instructions");
    uint64_t files = g->src ? g->src->files : 0;
    char c[32], t[32], f[32], key[64];

    if (!g->own || g->minor != 11 || n == 0 || traced == 0)
        return;
    cli_count_str(c, sizeof c, n);
    cli_count_str(t, sizeof t, traced);
    cli_count_str(f, sizeof f, files);
    doc_para(m->d);
    doc_textf(m->d, "About %s of these allocations (and their bytes) and as many of the frees ", c);
    if (traced < files) {
        doc_textf(m->d, "(all in the %s of these %s data files in mode ", t, f);
        doc_code(m->d, "count");
        doc_text(m->d, " or ");
        doc_code(m->d, "instructions");
        doc_text(m->d, ") ");
    }
    doc_text(m->d, "are frame objects the trace function of Python 3.11's modes ");
    doc_code(m->d, "count");
    doc_text(m->d, " and ");
    doc_code(m->d, "instructions");
    doc_text(m->d, " made CPython create, one per Python call (");
    snprintf(key, sizeof key, "%s%s", PSF_CALLS_PREFIX, start->key);
    doc_code(m->d, key);
    doc_text(m->d, "); mode ");
    doc_code(m->d, "census");
    doc_text(m->d, " has no trace function: its allocations compare with other versions'.");
}

static void
sec_objects(rdoc *m, const m_group *g)
{
    const m_list *l = &g->objects;
    uint64_t sum[PSF_NSUMS];
    size_t i;

    if (l->n == 0)
        return;
    native_sums(&psf_stats_native_objects, l, sum);
    rdoc_heading(m, 0, "Object stats");
    doc_table(m->d, "lrr", NULL, "Count", "Ratio");
    for (i = 0; i < l->n; i++) {
        const char *k = l->v[i].name;
        const psf_stat *st = psf_stat_find(&psf_stats_objects, k, strlen(k));
        char lab[256];
        if (st == NULL)
            st = psf_stat_find(&psf_stats_native_objects, k, strlen(k));
        /* The family's label; else CPython's: without "Object ", the
         * first letter capitalized. */
        snprintf(lab, sizeof lab, "%s", st ? st->label : strncmp(k, "Object ", 7) == 0 ? k + 7 : k);
        if (lab[0] >= 'a' && lab[0] <= 'z')
            lab[0] = (char)(lab[0] - 'a' + 'A');
        rdoc_row3(m, lab, l->v[i].n, object_den(k, sum));
    }
    objects_trace_note(m, g);
}

static void
sec_gc(rdoc *m, const m_group *g)
{
    m_list fields = {0};
    long gen, maxgen = -1;
    size_t i, f;
    char name[256], c[32], *align;

    if (g->gc.n == 0)
        return;
    for (i = 0; i < g->gc.n; i++) {
        const char *sp = strchr(g->gc.v[i].name, ' ');
        gen = strtol(g->gc.v[i].name, NULL, 10);
        if (gen > maxgen)
            maxgen = gen;
        if (sp)
            m_list_add(&fields, sp + 1, strlen(sp + 1), 0);
    }
    rdoc_heading(m, 0, "GC stats");
    align = cli_xmalloc(fields.n + 2);
    memset(align, 'r', fields.n + 1);
    align[fields.n + 1] = '\0';
    doc_table_begin(m->d, align);
    free(align);
    doc_cell_text(m->d, "Generation");
    for (f = 0; f < fields.n; f++)
        doc_cell_name(m->d, fields.v[f].name);
    for (gen = 0; gen <= maxgen; gen++) {
        doc_row_begin(m->d);
        doc_cell_textf(m->d, "%ld", gen);
        for (f = 0; f < fields.n; f++) {
            snprintf(name, sizeof name, "%ld %s", gen, fields.v[f].name);
            cli_count_str(c, sizeof c, m_list_get(&g->gc, name));
            doc_cell_text(m->d, c);
        }
    }
    for (f = 0; f < fields.n; f++)
        free(fields.v[f].name);
    free(fields.v);
}

/* CPython's optimizer counters: psf_stats.h's PSF_NATIVE_OPT, its labels
 * and tables as CPython's Tools/scripts/summarize_stats.py (3.13-3.16)
 * prints them, in its order.  The script shows a row for each counter
 * its version has, so a label applies where the counter is present.
 * Counters it does not show (3.15's "Optimization fitness terminated",
 * anything newer) are listed after, under their own names. */
#define OPT_ROW(id) (psf_stats_native_opt.rows[PSF_OPT_##id])

/* The denominator of a row of CPython's optimization table: its row's,
 * else (a counter of trace stack or trace size not listed) attempts. */
static uint64_t
opt_den(const m_list *l, const char *k)
{
    const psf_stat *st = psf_stat_find(&psf_stats_native_opt, k, strlen(k));

    /* CPython's script means the uops per trace, but its label is a Doc,
     * never equal to the string it tests, so it prints a percentage. */
    if (st != NULL)
        return st->den < 0 ? 0 : m_list_get(l, psf_stats_native_opt.rows[st->den].key);
    if (strstr(k, "trace stack") || strstr(k, "trace too"))
        return m_list_get(l, OPT_ROW(attempts).key);
    return 0;
}

static const m_kv *
opt_find(const m_group *g, const char *key)
{
    size_t i;

    for (i = 0; i < g->opt.n; i++)
        if (strcmp(g->opt.v[i].name, key) == 0)
            return &g->opt.v[i];
    return NULL;
}

static void
opt_row(rdoc *m, const m_group *g, const char *key, const char *label, uint64_t n)
{
    rdoc_row3(m, label, n, opt_den(&g->opt, key));
}

static void
sec_opt_table(rdoc *m, const m_group *g)
{
    const psf_stat *rows = psf_stats_native_opt.rows;
    size_t i, j, nl = psf_stats_native_opt.n;
    int t, started, other = 0;

    for (t = 0; t < 2; t++) {
        started = 0;
        for (j = 0; j < nl; j++) {
            const m_kv *e = rows[j].table == t ? opt_find(g, rows[j].key) : NULL;
            if (e == NULL)
                continue;
            if (!started)
                doc_table(m->d, "lrr", NULL, "Count", "Ratio");
            started = 1;
            opt_row(m, g, e->name, rows[j].label, e->n);
        }
    }
    for (i = 0; i < g->opt.n; i++) {
        const char *k = g->opt.v[i].name;
        if (psf_stat_find(&psf_stats_native_opt, k, strlen(k)) != NULL)
            continue;
        if (!other) {
            rdoc_heading(m, 1, "Other optimizer counters");
            doc_table(m->d, "lrr", NULL, "Count", "Ratio");
        }
        other = 1;
        opt_row(m, g, g->opt.v[i].name, g->opt.v[i].name, g->opt.v[i].n);
    }
}

/* CPython's JIT memory table (psf_stats.h's PSF_NATIVE_JIT): its labels,
 * in its order, each size a share of the total; other JIT counters after,
 * under their own names. */
static void
sec_opt_jit(rdoc *m, const m_group *g)
{
    const psf_stat *rows = psf_stats_native_jit.rows;
    size_t i, j, nl = psf_stats_native_jit.n;
    uint64_t total = m_list_get(&g->jit, rows[PSF_JIT_total].key);

    rdoc_heading(m, 1, "JIT memory stats");
    doc_table(m->d, "lrr", NULL, "Size (bytes)", "Ratio");
    for (j = 0; j < nl; j++)
        for (i = 0; i < g->jit.n; i++)
            if (strcmp(g->jit.v[i].name, rows[j].key) == 0)
                rdoc_row3(m, rows[j].label, g->jit.v[i].n, rows[j].den < 0 ? 0 : total);
    for (i = 0; i < g->jit.n; i++) {
        const char *k = g->jit.v[i].name;
        if (psf_stat_find(&psf_stats_native_jit, k, strlen(k)) == NULL)
            rdoc_row3(m, k, g->jit.v[i].n, total);
    }
}

/* A histogram as CPython's summarize_stats.py shows it: no zero buckets
 * after the last count (and, by 3.14's script on, none before the
 * first); 3.14's "Trace total memory size" as "JIT trace total memory",
 * each bucket a share of them all. */
static void
sec_opt_hist(rdoc *m, const m_group *g, const m_hist *h)
{
    uint64_t den = 0;
    size_t first = 0, last = 0, j;
    char c[32], label[64];
    int memory = strcmp(h->name, "Trace total memory size") == 0;

    if (strcmp(h->name, "Trace run length") == 0)
        den = m_list_get(&g->opt, OPT_ROW(traces_executed).key);
    else if (strstr(h->name, "race length"))
        den = m_list_get(&g->opt, OPT_ROW(traces_created).key);
    for (j = 0; j < h->buckets.n; j++) {
        if (h->buckets.v[j].n)
            last = j + 1;
        if (memory)
            den += h->buckets.v[j].n;
    }
    if (last == 0)
        return;
    if (g->minor >= 14)
        while (h->buckets.v[first].n == 0)
            first++;
    if (memory)
        rdoc_heading(m, 1, "JIT trace total memory histogram");
    else
        rdoc_heading_name(m, 1, h->name, " histogram");
    doc_table(m->d, "lrr", memory ? "Size (bytes)" : "Range", "Count", "Ratio");
    for (j = first; j < last; j++) {
        cli_count_str(c, sizeof c, strtoull(h->buckets.v[j].name, NULL, 10));
        snprintf(label, sizeof label, "<= %s", c);
        rdoc_row3(m, label, h->buckets.v[j].n, den);
    }
}

static void
sec_opt_uops(rdoc *m, const m_group *g)
{
    m_list l = {0};
    uint64_t total = 0, cum = 0;
    size_t i, j;
    char c[32], p[32], cu[32];

    for (i = 0; i < g->uops.n; i++) {
        total += g->uops.v[i].exec;
        if (g->uops.v[i].has_exec)
            m_list_add(&l, g->uops.v[i].name, strlen(g->uops.v[i].name), g->uops.v[i].exec);
    }
    m_list_sort(&l);
    rdoc_heading(m, 1, "Uop execution stats");
    doc_table(m->d, "lrrrr", "Name", "Count", "Self", "Cumulative", "Miss ratio");
    for (i = 0; i < l.n; i++) {
        uint64_t miss = 0;
        for (j = 0; j < g->uops.n; j++)
            if (strcmp(g->uops.v[j].name, l.v[i].name) == 0)
                miss = g->uops.v[j].spec[PSF_SPEC_MISS];
        cum += l.v[i].n;
        cli_count_str(c, sizeof c, l.v[i].n);
        rdoc_pct_str(p, l.v[i].n, total);
        rdoc_pct_str(cu, cum, total);
        doc_row_begin(m->d);
        doc_cell_name(m->d, l.v[i].name);
        doc_cell_text(m->d, c);
        doc_cell_text(m->d, p);
        doc_cell_text(m->d, cu);
        if (miss)
            rdoc_pct_str(p, miss, l.v[i].n);
        else
            p[0] = '\0';
        doc_cell_text(m->d, p);
        free(l.v[i].name);
    }
    free(l.v);
}

static void
sec_optimization(rdoc *m, const m_group *g)
{
    size_t i;

    if (g->opt.n == 0 && g->nhist == 0 && g->uops.n == 0 && g->jit.n == 0 && g->unsupported.n == 0)
        return;
    rdoc_heading(m, 0, "Optimization (Tier 2) stats");
    if (g->opt.n)
        sec_opt_table(m, g);
    if (g->jit.n)
        sec_opt_jit(m, g);
    for (i = 0; i < g->nhist; i++)
        sec_opt_hist(m, g, &g->hist[i]);
    if (g->uops.n)
        sec_opt_uops(m, g);
    if (g->unsupported.n) {
        rdoc_heading(m, 1, "Unsupported opcodes");
        rdoc_table3(m, "Opcode", &g->unsupported, rdoc_list_total(&g->unsupported), (size_t)-1);
    }
    if (g->errors.n) {
        rdoc_heading(m, 1, "Errors in uops");
        rdoc_table3(m, "Uop", &g->errors, rdoc_list_total(&g->errors), (size_t)-1);
    }
}

static void
sec_simple(rdoc *m, const char *title, const char *col, const m_list *l)
{
    size_t i;
    char c[32];

    if (l->n == 0)
        return;
    rdoc_heading(m, 0, title);
    doc_table(m->d, "lr", col, "Count");
    for (i = 0; i < l->n; i++) {
        cli_count_str(c, sizeof c, l->v[i].n);
        doc_row_begin(m->d);
        doc_cell_name(m->d, l->v[i].name);
        doc_cell_text(m->d, c);
    }
}

static void
sec_own_calls(rdoc *m, const m_group *g)
{
    /* Ratios of the first of the family, Python function starts. */
    const psf_stat *start = &psf_stats_calls.rows[PSF_CALL_python_starts];

    if (g->own_calls.n == 0)
        return;
    rdoc_heading(m, 0, "Calls");
    doc_para(m->d);
    doc_text(m->d, "Frame events seen by the collector (");
    doc_code(m->d, "calls.*");
    doc_text(m->d, " keys; not CPython's \"Calls to\" counters, which mean other things). Ratios "
                   "are of ");
    doc_code(m->d, start->label);
    doc_text(m->d, ".");
    rdoc_table3(m, "Event", &g->own_calls, m_list_get(&g->own_calls, start->key), (size_t)-1);
}

static void
sec_own_rare(rdoc *m, const m_group *g)
{
    size_t i;
    char c[32];

    if (g->own_rare.n == 0)
        return;
    rdoc_heading(m, 0, "Rare events (watchers, partial)");
    doc_para(m->d);
    doc_text(m->d, "What the collector's dict, type and function watchers saw (");
    doc_code(m->d, "rare.*");
    doc_text(m->d, " keys). These are not CPython's native \"Rare event\" figures: watchers see "
                   "only part of those changes, and the two are never added together.");
    /* Watchers are installed in mode census only: a dump of another mode
     * watched nothing, and its zeros measured nothing. */
    if (m_list_get(&g->own_rare, psf_stats_rare.rows[PSF_RARE_watched_dicts].key) == 0 &&
        m_list_get(&g->own_rare, psf_stats_rare.rows[PSF_RARE_watched_types].key) == 0) {
        doc_para(m->d);
        doc_bold(m->d, "Left out: the table.");
        doc_text(m->d, " No watcher was installed (watched_dicts and watched_types are 0: only "
                       "mode census installs them), so its counts measured nothing.");
        return;
    }
    doc_table(m->d, "lr", "Event", "Count");
    for (i = 0; i < g->own_rare.n; i++) {
        cli_count_str(c, sizeof c, g->own_rare.v[i].n);
        doc_row_begin(m->d);
        doc_cell_name(m->d, g->own_rare.v[i].name);
        doc_cell_text(m->d, c);
    }
}

void
rdoc_stats(rdoc *m, const m_group *g)
{
    sec_calls(m, g);
    sec_own_calls(m, g);
    sec_objects(m, g);
    sec_gc(m, g);
    sec_optimization(m, g);
    sec_simple(m, "Free-threading", "Counter", &g->ft);
    sec_simple(m, "Rare events", "Event", &g->rare);
    sec_own_rare(m, g);
    sec_simple(m, "Other counters", "Key", &g->other);
}
