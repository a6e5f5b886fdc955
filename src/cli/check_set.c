/* check_set.c: the checks of the whole set, one function each (the
 * rows of check_table.c), run by check_finish() once every file is read:
 * mixes, duplicates, and what the collector's headers say of each
 * process (windows, dump reasons, forks). */
#include "check_int.h"

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Findings from the issues the readers and the per-file checks raised:
 * one per (check, severity), its files and one detail per issue. */
void
ck_issue_findings(check_set *c, const agg *a)
{
    size_t i = 0, j;

    while (i < c->nis) {
        int id = c->is[i].id, sev = c->is[i].severity;
        size_t files = 0;
        ck_finding *d;
        uint64_t n = 0;

        for (j = i; j < c->nis && c->is[j].id == id && c->is[j].severity == sev; j++)
            if (j == i || strcmp(c->is[j].file, c->is[j - 1].file) != 0)
                files++;
        if (id >= CK_UNREADABLE && id <= CK_UNSUPPORTED)
            n = a->problems[id - CK_UNREADABLE];
        if (n > j - i)
            d = ck_new_finding(c, id, sev, "%llu problems in %zu %s (the first of each file shown)",
                               (unsigned long long)n, files, ck_plural(files, "file", "files"));
        else
            d = ck_new_finding(c, id, sev, "%zu %s", files, ck_plural(files, "file", "files"));
        for (; i < j; i++) {
            ck_finding_file(d, c->is[i].file);
            ck_finding_detail(d, ck_xprintf("%s: %s", c->is[i].file, c->is[i].text));
        }
    }
    /* Problems counted in JSON summaries read back name no file here. */
    for (j = 0; j < AGG_P_COUNT; j++) {
        int seen = 0;
        for (i = 0; i < c->nis; i++)
            seen |= c->is[i].id == (int)(CK_UNREADABLE + j);
        if (a->problems[j] && !seen)
            ck_new_finding(c, CK_UNREADABLE + (int)j, CHECK_ERROR,
                           "%llu problems recorded in JSON summaries read back",
                           (unsigned long long)a->problems[j]);
    }
}

void
ck_no_files(check_set *c, const agg *a, int id, int severity)
{
    if (c->nfiles == 0)
        ck_new_finding(c, id, severity, "%llu %s looked at, none counted",
                       (unsigned long long)a->inputs, ck_plural(a->inputs, "entry", "entries"));
}

/* ---- mixes ---------------------------------------------------------------- */

/* A finding for a property with several values: "3.11: 2 files; ..." */
static void
mix_finding(check_set *c, int id, int severity, agg_strs *s)
{
    char text[900];
    size_t i, used = 0;

    if (s->n < 2)
        return;
    text[0] = '\0';
    for (i = 0; i < s->n && used < sizeof text - 1; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s: %llu %s", i ? "; " : "",
                                 s->v[i].text, (unsigned long long)s->v[i].n,
                                 ck_plural(s->v[i].n, "file", "files"));
    ck_new_finding(c, id, severity, "%zu values: %s", s->n, text);
}

/* The value of one property of a file (a new string), or NULL: no value. */
typedef char *ck_value_fn(const ck_file *r);

/* A finding when the files have several values of a property. */
static void
mixed(check_set *c, int id, int severity, ck_value_fn *value)
{
    agg_strs s = {0};
    size_t i;
    char *v;

    for (i = 0; i < c->nf; i++)
        if ((v = value(&c->f[i])) != NULL) {
            ck_tally(&s, v, c->f[i].nfiles);
            free(v);
        }
    mix_finding(c, id, severity, &s);
    agg_strs_free(&s);
}

static char *
version_of(const ck_file *r)
{
    return r->minor ? ck_xprintf("3.%d", r->minor) : cli_xstrdup("unknown version");
}

/* Only what the headers say: an absent field is no difference. */
static char *
build_of(const ck_file *r)
{
    if (r->source != AGG_OWN || !r->build || !*r->build)
        return NULL;
    return ck_xprintf("%s (%s)", r->version ? r->version : "?", r->build);
}

static char *
source_of(const ck_file *r)
{
    return cli_xstrdup(r->source == AGG_OWN ? "pystats collector" : "native CPython");
}

static char *
mode_of(const ck_file *r)
{
    if (r->source != AGG_OWN)
        return NULL;
    return ck_xprintf("mode %s, %s", r->mode ? r->mode : "?", r->counts ? r->counts : "?");
}

static char *
collector_of(const ck_file *r)
{
    return r->source == AGG_OWN ? cli_xstrdup(r->collector ? r->collector : "?") : NULL;
}

void
ck_mixed_versions(check_set *c, const agg *a, int id, int severity)
{
    (void)a;
    mixed(c, id, severity, version_of);
}

void
ck_mixed_builds(check_set *c, const agg *a, int id, int severity)
{
    (void)a;
    mixed(c, id, severity, build_of);
}

void
ck_mixed_sources(check_set *c, const agg *a, int id, int severity)
{
    (void)a;
    mixed(c, id, severity, source_of);
}

void
ck_mixed_modes(check_set *c, const agg *a, int id, int severity)
{
    (void)a;
    mixed(c, id, severity, mode_of);
}

void
ck_mixed_collectors(check_set *c, const agg *a, int id, int severity)
{
    (void)a;
    mixed(c, id, severity, collector_of);
}

static int
is_text(const ck_file *r)
{
    return r->format == AGG_FMT_NATIVE_TEXT || r->format == AGG_FMT_OWN_TEXT;
}

void
ck_mixed_formats(check_set *c, const agg *a, int id, int severity)
{
    int text_fmt = 0, json_fmt = 0;
    ck_finding *d;
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++) {
        text_fmt |= is_text(&c->f[i]);
        json_fmt |= !is_text(&c->f[i]);
    }
    if (!text_fmt || !json_fmt)
        return;
    d = ck_new_finding(c, id, severity, "dump files and JSON files in one set");
    for (i = 0; i < c->nf; i++)
        if (c->f[i].format == AGG_FMT_CPYTHON_JSON || c->f[i].format == AGG_FMT_SUMMARY_JSON)
            ck_finding_file(d, c->f[i].path);
}

/* ---- duplicates ------------------------------------------------------------ */

/* The set being sorted (check_finish runs on one thread). */
static const check_set *sort_ctx;

static int
by_content(const void *pa, const void *pb)
{
    const ck_file *a = &sort_ctx->f[*(const size_t *)pa], *b = &sort_ctx->f[*(const size_t *)pb];

    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    if (a->nvals != b->nvals)
        return a->nvals < b->nvals ? -1 : 1;
    return strcmp(a->path, b->path);
}

static int
by_process(const void *pa, const void *pb)
{
    const ck_file *a = &sort_ctx->f[*(const size_t *)pa], *b = &sort_ctx->f[*(const size_t *)pb];
    int r;

    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if ((r = strcmp(a->time_start, b->time_start)) != 0)
        return r;
    return strcmp(a->path, b->path);
}

/* Files with identical content: collector dumps (an error: one process
 * never writes two), native ones (a warning: rerun workloads can). */
void
ck_dup_content(check_set *c, const agg *a, int id, int severity)
{
    size_t *ix = cli_xcalloc(c->nf, sizeof *ix), n = 0, i, j, k;
    ck_finding *own_d = NULL, *nat_d = NULL;

    (void)a;
    for (i = 0; i < c->nf; i++)
        if (c->f[i].has_counts && c->f[i].nvals)
            ix[n++] = i;
    sort_ctx = c;
    ck_sort(ix, n, sizeof *ix, by_content);
    for (i = 0; i < n; i = j) {
        const ck_file *f = &c->f[ix[i]];
        int own = 0;
        for (j = i + 1; j < n && c->f[ix[j]].hash == f->hash && c->f[ix[j]].nvals == f->nvals &&
                        c->f[ix[j]].total == f->total;
             j++)
            ;
        if (j - i < 2)
            continue;
        for (k = i; k < j; k++)
            own |= c->f[ix[k]].source == AGG_OWN;
        if (own && own_d == NULL)
            own_d = ck_new_finding(c, id, severity, "collector dumps with identical content");
        if (!own && nat_d == NULL)
            nat_d = ck_new_finding(c, id, CHECK_WARNING, "native dumps with identical counters");
        for (k = i; k < j; k++)
            ck_finding_file(own ? own_d : nat_d, c->f[ix[k]].path);
        ck_finding_detail(own ? own_d : nat_d,
                          ck_xprintf("%zu identical files: %s ...", j - i, f->path));
    }
    free(ix);
}

/* The same process and counting period, different content. */
void
ck_dup_process(check_set *c, const agg *a, int id, int severity)
{
    size_t *ix = cli_xcalloc(c->nf, sizeof *ix), n = 0, i;
    ck_finding *proc_d = NULL;

    (void)a;
    for (i = 0; i < c->nf; i++)
        if (c->f[i].source == AGG_OWN && c->f[i].pid >= 0 && c->f[i].time_start)
            ix[n++] = i;
    sort_ctx = c;
    ck_sort(ix, n, sizeof *ix, by_process);
    for (i = 0; i + 1 < n; i++) {
        const ck_file *f = &c->f[ix[i]], *g = &c->f[ix[i + 1]];
        if (f->pid != g->pid || strcmp(f->time_start, g->time_start) != 0 || f->hash == g->hash)
            continue;
        if (proc_d == NULL)
            proc_d = ck_new_finding(c, id, severity, "dumps sharing a pid and meta.time.start");
        ck_finding_file(proc_d, f->path);
        ck_finding_file(proc_d, g->path);
        ck_finding_detail(proc_d, ck_xprintf("pid %lld, start %s: %s and %s", f->pid, f->time_start,
                                             f->path, g->path));
    }
    free(ix);
}

/* ---- what each file says of its process ------------------------------------ */

static int
has_pid(const check_set *c, long long pid)
{
    size_t i;

    for (i = 0; i < c->nf; i++)
        if (c->f[i].source == AGG_OWN && c->f[i].pid == pid)
            return 1;
    return 0;
}

static int
windowed(const ck_file *r)
{
    return r->source == AGG_OWN && (r->on_at_dump == 0 || r->windows > 1);
}

/* A file with counts, not all zero: the rest of its checks apply. */
static int
counted(const ck_file *r)
{
    return r->has_counts && r->total != 0;
}

/* The same, of this collector: its header says what the process did. */
static int
own_counted(const ck_file *r)
{
    return counted(r) && r->source == AGG_OWN;
}

#define LAZY(id, severity)           \
    {                                \
        c, (id), (severity), NULL, 0 \
    }

void
ck_all_zero(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy zero = LAZY(id, severity);
    uint64_t nzero = 0, ncounted = 0;
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++)
        if (c->f[i].has_counts) {
            ncounted += c->f[i].nfiles;
            if (c->f[i].total == 0)
                nzero += c->f[i].nfiles;
        }
    if (nzero && nzero == ncounted)
        zero.severity = CHECK_ERROR;
    for (i = 0; i < c->nf; i++)
        if (c->f[i].has_counts && c->f[i].total == 0)
            ck_lazy_add(&zero, &c->f[i], NULL);
    ck_lazy_done(&zero, "%s", nzero == ncounted ? "every file is all zero" : "no counts in them");
}

void
ck_summary_input(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy sum = LAZY(id, severity);
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++)
        if (c->f[i].format == AGG_FMT_SUMMARY_JSON)
            ck_lazy_add(&sum, &c->f[i], NULL);
    ck_lazy_done(&sum, "%s", "counted from JSON summaries");
}

/* "IMPORT_NAME 1,234, LOAD_NAME 56" of leak[] (those not 0). */
static void
leak_text(char *buf, size_t size, const uint64_t *leak)
{
    char n[32];
    size_t k, used = 0;

    buf[0] = '\0';
    for (k = 0; k < CK_NLEAK && used < size - 1; k++)
        if (leak[k]) {
            cli_count_str(n, sizeof n, leak[k]);
            used += (size_t)snprintf(buf + used, size - used, "%s%s %s", used ? ", " : "",
                                     check_leak_ops[k], n);
        }
}

/* Startup and module-body instructions counted: a warning in windowed
 * collection (the window should have left them out), a note otherwise. */
void
ck_leakage(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy lw = LAZY(id, severity), ln = LAZY(id, CHECK_NOTE);
    uint64_t leak_w[CK_NLEAK] = {0}, leak_n[CK_NLEAK] = {0};
    char lw_text[600], ln_text[600], ops[400];
    size_t i, k;

    (void)a;
    for (i = 0; i < c->nf; i++) {
        const ck_file *r = &c->f[i];
        int win = windowed(r);
        if (!counted(r))
            continue;
        for (k = 0; k < CK_NLEAK; k++) {
            if (win)
                leak_w[k] = cli_sat_add(leak_w[k], r->leak[k]);
            else
                leak_n[k] = cli_sat_add(leak_n[k], r->leak[k]);
        }
        leak_text(ops, sizeof ops, r->leak);
        if (ops[0])
            ck_lazy_add(win ? &lw : &ln, r,
                        ck_xprintf("%s: %s of %llu executions%s", r->path, ops,
                                   (unsigned long long)r->exec,
                                   r->source == AGG_OWN
                                       ? (win ? " (windowed)" : " (collection on from the start)")
                                       : ""));
    }
    leak_text(lw_text, sizeof lw_text, leak_w);
    leak_text(ln_text, sizeof ln_text, leak_n);
    ck_lazy_done(&lw, "windowed collection counted %s", lw_text);
    ck_lazy_done(&ln, "%s", ln_text);
}

void
ck_cache_pairs(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy cp = LAZY(id, severity);
    uint64_t ncache = 0, npairs = 0;
    char n1[32];
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++) {
        const ck_file *r = &c->f[i];
        if (counted(r) && r->source != AGG_OWN && r->cache_pairs) {
            ncache = cli_sat_add(ncache, r->cache_pairs);
            npairs = cli_sat_add(npairs, r->pairs);
            ck_lazy_add(&cp, r, NULL);
        }
    }
    cli_count_str(n1, sizeof n1, ncache);
    ck_lazy_done(&cp,
                 "%s pairs start with CACHE (%.1f%% of their pairs): entries into the eval loop",
                 n1, npairs ? 100.0 * (double)ncache / (double)npairs : 0.0);
}

void
ck_no_window(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy nowin = LAZY(id, severity);
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++) {
        const ck_file *r = &c->f[i];
        if (own_counted(r) && r->windows == 0 && r->exec)
            ck_lazy_add(&nowin, r,
                        ck_xprintf("%s: %llu executions, meta.collection.windows 0", r->path,
                                   (unsigned long long)r->exec));
    }
    ck_lazy_done(&nowin, "%s", "counts without a window");
}

void
ck_time_order(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy order = LAZY(id, severity);
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++) {
        const ck_file *r = &c->f[i];
        if (own_counted(r) && r->time_start && r->time_end && *r->time_start && *r->time_end &&
            strcmp(r->time_start, r->time_end) > 0)
            ck_lazy_add(&order, r,
                        ck_xprintf("%s: start %s, end %s", r->path, r->time_start, r->time_end));
    }
    ck_lazy_done(&order, "%s", "meta.time.start after meta.time.end");
}

/* Files whose meta.dump.reason is reason. */
static void
dump_reason(check_set *c, int id, int severity, const char *reason)
{
    ck_lazy l = LAZY(id, severity);
    size_t i;

    for (i = 0; i < c->nf; i++)
        if (own_counted(&c->f[i]) && c->f[i].reason && strcmp(c->f[i].reason, reason) == 0)
            ck_lazy_add(&l, &c->f[i], NULL);
    ck_lazy_done(&l, "meta.dump.reason %s", reason);
}

void
ck_signal(check_set *c, const agg *a, int id, int severity)
{
    (void)a;
    dump_reason(c, id, severity, "signal");
}

void
ck_os_exit(check_set *c, const agg *a, int id, int severity)
{
    (void)a;
    dump_reason(c, id, severity, "os._exit");
}

void
ck_forked(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy fork = LAZY(id, severity);
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++)
        if (own_counted(&c->f[i]) && c->f[i].forked == 1)
            ck_lazy_add(&fork, &c->f[i], NULL);
    ck_lazy_done(&fork, "%s", "meta.process.forked 1");
}

void
ck_parent_missing(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy orphan = LAZY(id, severity);
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++) {
        const ck_file *r = &c->f[i];
        if (own_counted(r) && r->forked == 1 && r->ppid >= 0 && !has_pid(c, r->ppid))
            ck_lazy_add(&orphan, r, ck_xprintf("%s: parent pid %lld", r->path, r->ppid));
    }
    ck_lazy_done(&orphan, "%s", "no dump of their meta.process.ppid in the set");
}

/* Collection still on when the dump was written at exit: a warning after
 * several windows (one was left open), a note for whole-program runs. */
void
ck_on_at_exit(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy onw = LAZY(id, severity), onn = LAZY(id, CHECK_NOTE);
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++) {
        const ck_file *r = &c->f[i];
        if (own_counted(r) && r->on_at_dump == 1 &&
            !(r->reason && strcmp(r->reason, "explicit") == 0))
            ck_lazy_add(r->windows > 1 ? &onw : &onn, r,
                        ck_xprintf("%s: %lld windows, written at %s", r->path, r->windows,
                                   r->reason ? r->reason : "?"));
    }
    ck_lazy_done(&onw, "%s", "meta.collection.on_at_dump 1 after several windows");
    ck_lazy_done(&onn, "%s", "meta.collection.on_at_dump 1 (whole-program collection)");
}

void
ck_starts(check_set *c, const agg *a, int id, int severity)
{
    ck_lazy starts = LAZY(id, severity);
    uint64_t nstarts = 0, nwin = 0;
    size_t i;

    (void)a;
    for (i = 0; i < c->nf; i++) {
        const ck_file *r = &c->f[i];
        uint64_t s;
        if (!own_counted(r))
            continue;
        if (r->windows >= 0)
            nwin += (uint64_t)r->windows;
        if (r->exec <= r->pairs || r->windows <= 0)
            continue;
        s = r->exec - r->pairs;
        nstarts = cli_sat_add(nstarts, s);
        ck_lazy_add(&starts, r,
                    ck_xprintf("%s: %llu executions - %llu pairs = %llu starts in "
                               "%lld %s (%.1f per window)",
                               r->path, (unsigned long long)r->exec, (unsigned long long)r->pairs,
                               (unsigned long long)s, r->windows,
                               ck_plural((uint64_t)r->windows, "window", "windows"),
                               (double)s / (double)r->windows));
    }
    ck_lazy_done(&starts, "%llu starts in %llu %s (%.1f per window)", (unsigned long long)nstarts,
                 (unsigned long long)nwin, ck_plural(nwin, "window", "windows"),
                 nwin ? (double)nstarts / (double)nwin : 0.0);
}

void
ck_windows(check_set *c, const agg *a, int id, int severity)
{
    agg_strs win = {0};
    char n1[32], text[900];
    size_t i, used = 0;

    (void)a;
    for (i = 0; i < c->nf; i++)
        if (own_counted(&c->f[i]) && c->f[i].windows >= 0) {
            snprintf(n1, sizeof n1, "%lld", c->f[i].windows);
            ck_tally(&win, n1, 1);
        }
    if (win.n) {
        text[0] = '\0';
        for (i = 0; i < win.n && used < sizeof text - 1; i++)
            used += (size_t)snprintf(
                text + used, sizeof text - used, "%s%s %s in %llu %s", i ? "; " : "", win.v[i].text,
                strcmp(win.v[i].text, "1") == 0 ? "window" : "windows",
                (unsigned long long)win.v[i].n, ck_plural(win.v[i].n, "dump", "dumps"));
        ck_new_finding(c, id, severity, "%s", text);
    }
    agg_strs_free(&win);
}
