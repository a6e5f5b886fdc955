/* run_report.c: what `pystats run` makes of the dumps it found: read,
 * checked and summarized once, the reports written, and the headline. */
#include "run.h"

#include "check.h"
#include "cli.h"
#include "overview.h"
#include "report.h"
#include "summary.h"
#include "text.h"
#include "../format/psf_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The reports of a run: the paths given, else DIR/report/summary.md,
 * .json and .html (a subdirectory: readers of DIR skip it, so that
 * `pystats summarize DIR` reads the dumps alone).  Returns a cli_exit. */
typedef struct run_reports {
    const char *path[3];
    char own[3][PSF_PATH_MAX];
} run_reports;

static const char *const report_ext[3] = {"md", "json", "html"};
static int (*const report_fn[3])(FILE *, const summary *) = {
    report_markdown,
    report_json,
    report_html,
};

static int
write_reports(const subcmd_common *co, const char *dir, const summary *sum, run_reports *rr)
{
    const char *given[3] = {co->markdown, co->json, co->html};
    char sub[PSF_PATH_MAX - 16];
    int i, r, ret = CLI_EXIT_OK;

    if ((size_t)snprintf(sub, sizeof sub, "%s/report", dir) >= sizeof sub) {
        fputs("pystats: error: ", stderr);
        cli_fput_esc(stderr, dir);
        fputs(": name too long for its reports\n", stderr);
        return CLI_EXIT_OUTPUT;
    }
    if ((!given[0] || !given[1] || !given[2]) && mkdir(sub, 0700) != 0 && errno != EEXIST) {
        int e = errno;
        fputs("pystats: error: ", stderr);
        cli_fput_esc(stderr, sub);
        fprintf(stderr, ": cannot create the report directory: %s\n", strerror(e));
        return CLI_EXIT_OUTPUT;
    }
    for (i = 0; i < 3; i++) {
        rr->path[i] = given[i];
        if (given[i] != NULL)
            continue;
        snprintf(rr->own[i], sizeof rr->own[i], "%s/summary.%s", sub, report_ext[i]);
        rr->path[i] = rr->own[i];
    }
    for (i = 0; i < 3; i++)
        if ((r = subcmd_write_summary(rr->path[i], report_fn[i], sum)) != CLI_EXIT_OK)
            ret = r;
    return ret;
}

/* The group the headline speaks of: the one that executed the most. */
static const summary_group *
main_group(const summary *s)
{
    const summary_group *best = NULL;
    size_t i;
    for (i = 0; i < s->ng; i++)
        if (best == NULL || s->g[i].m.total_exec > best->m.total_exec)
            best = &s->g[i];
    return best;
}

/* One finding of the overview for the headline: "hot code: ...". */
static int
say_finding(const m_group *g, const overview *o, size_t k, uint64_t den)
{
    size_t round = k / 3, kind = k % 3;
    char c[32];

    if (kind == 0 && round < o->ncode) {
        const m_code *x = o->code[round];
        /* As "QUALNAME (FILE:LINE)". */
        char *name = text_display(x->qual ? x->qual : x->name);
        cli_count_str(c, sizeof c, x->instructions);
        fputs("pystats run:   hot code: ", stderr);
        cli_fput_esc(stderr, name);
        if (x->qual) {
            char *file = text_display_n(x->name, x->file_len);
            fputs(" (", stderr);
            cli_fput_esc(stderr, file);
            char *line = cli_xstrndup(x->line, x->line_len);
            fputc(':', stderr);
            cli_fput_esc(stderr, line); /* digits (psf_parse_line) */
            fputc(')', stderr);
            free(line);
            free(file);
        }
        fprintf(stderr, ": %s instructions (%.1f%%)\n", c,
                den ? 100.0 * (double)x->instructions / (double)den : 0.0);
        free(name);
        return 1;
    }
    if (kind == 1 && round < o->nfsite) {
        overview_put_fsite(stderr, "pystats run:   ", g, o->fsite[round]);
        return 1;
    }
    if (kind == 1 && round < o->nsite) {
        const m_csite *st = o->site[round];
        char *fam = text_display(st->family), *file = text_display(st->file),
             *func = text_display(st->func);
        cli_count_str(c, sizeof c, st->attempts);
        fputs("pystats run:   fails to specialize: ", stderr);
        cli_fput_esc(stderr, fam);
        fputs(" at ", stderr);
        cli_fput_esc(stderr, file);
        fputc(':', stderr);
        cli_fput_esc(stderr, st->line);
        fputs(" in ", stderr);
        cli_fput_esc(stderr, func);
        fprintf(stderr, ": %s failed attempts in a row\n", c);
        free(fam);
        free(file);
        free(func);
        return 1;
    }
    if (kind == 2 && round < o->nfam) {
        cli_count_str(c, sizeof c, o->fam[round].generic);
        fputs("pystats run:   runs unspecialized: ", stderr);
        cli_fput_esc(stderr, o->fam[round].family);
        fprintf(stderr, ": %s executions in a generic form\n", c);
        return 1;
    }
    return 0;
}

/* Whether x is a test runner's own code (pytest, its plugins' caller
 * pluggy, unittest), by its module: a test suite's headline led by it
 * says little about the code under test. */
static int
runner_code(const m_code *x)
{
    static const char *const mods[] = {"_pytest", "pytest", "pluggy", "unittest"};
    size_t n = x->qual ? x->file_len : strlen(x->name), i;
    for (i = 0; i < sizeof mods / sizeof mods[0]; i++) {
        size_t m = strlen(mods[i]);
        if (n >= m && memcmp(x->name, mods[i], m) == 0 && (n == m || x->name[m] == '.'))
            return 1;
    }
    return 0;
}

/* Without --code, a hint when a test runner's code is among the code
 * the headline names. */
static void
runner_hint(const overview *o, const m_code_filter *filter)
{
    size_t i;
    if (filter->nprefix)
        return;
    for (i = 0; i < o->ncode && i < 3; i++)
        if (runner_code(o->code[i])) {
            const m_code *x = o->code[i];
            char *file = text_display_n(x->name, x->qual ? x->file_len : strlen(x->name));
            fputs("pystats run: hint: the test runner's own code (", stderr);
            cli_fput_esc(stderr, file);
            fputs(") is among the hottest: --code PKG ranks your package's code only\n", stderr);
            free(file);
            return;
        }
}

/* The headline on stderr, after the command's own output: files, trust,
 * instructions, the three findings that matter most (the hottest code,
 * the worst failing site, the family most run unspecialized, in turn),
 * and where the reports are. */
static void
headline(const summary *s, const char *dir, size_t ndumps, const char *verdict,
         const run_reports *rr, const m_code_filter *filter)
{
    const summary_group *g = main_group(s);
    overview o;
    size_t k, said;
    char c[32];
    int i;

    fprintf(stderr, "pystats run: %zu %s in ", ndumps, ndumps == 1 ? "dump" : "dumps");
    cli_fput_esc(stderr, dir);
    fputc('\n', stderr);
    fprintf(stderr, "pystats run: trust: %s\n", verdict);
    if (g != NULL) {
        if (g->m.total_exec == 0 && g->m.has_census) {
            /* Mode census counts no instruction: say what it holds. */
            uint64_t sites = 0;
            size_t f;
            for (f = 0; f < g->m.ncfam; f++) {
                uint64_t n = g->m.cfam[f].f[PSF_CF_sites];
                sites = cli_sat_add(sites, n);
            }
            cli_count_str(c, sizeof c, sites);
            fprintf(stderr, "pystats run: a census, no instructions counted: %s sites", c);
        }
        else {
            cli_count_str(c, sizeof c, g->m.total_exec);
            fprintf(stderr, "pystats run: %s instructions executed", c);
        }
        if (s->ng > 1)
            fprintf(stderr, " in the largest of %zu groups", s->ng);
        fputs(": ", stderr);
        cli_fput_esc(stderr, g->title);
        fputc('\n', stderr);
        overview_build(&o, &g->m);
        if (o.ncode || o.nsite || o.nfam)
            fputs("pystats run: where to look:\n", stderr);
        for (k = 0, said = 0; said < 3 && k < 3 * OVERVIEW_TOP; k++)
            said += (size_t)say_finding(&g->m, &o, k, g->m.total_exec);
        if (g->m.total_exec && !g->m.has_census && !o.nfsite && !o.nsite && !o.nfam)
            fputs("pystats run:   fails to specialize: not known: no dump has a specialization "
                  "census (mode count takes one on 3.12+, mode census on 3.11 too; mode "
                  "instructions none)\n",
                  stderr);
        runner_hint(&o, filter);
    }
    fputs("pystats run: reports:", stderr);
    for (i = 0; i < 3; i++) {
        fputc(' ', stderr);
        cli_fput_esc(stderr, rr->path[i]);
    }
    fputc('\n', stderr);
}

/* Read, check and summarize what the run wrote, once; the reports, the
 * headline and, with --quiet, the verdict on stdout.  Returns a
 * cli_exit. */
int
run_report(const subcmd_common *co, const m_code_filter *filter, char *dir, size_t ndumps)
{
    summary_opts so = {.top_pairs = 100, .top_sites = 50, .filter = *filter};
    load_opts lo = {.quiet = 1};
    char verdict[1024], reason[1024];
    run_reports rr;
    check_set *cs;
    summary sum;
    int ret, wret;
    agg a;

    cs = check_load(&dir, 1, &lo, &a);
    check_verdict(cs, verdict, sizeof verdict);
    so.trust = check_verdict_reason(cs, reason, sizeof reason);
    so.verdict = check_verdict_word(cs);
    so.findings = check_items(cs, &so.nfindings);
    ret = check_count(cs, CHECK_ERROR) ? CLI_EXIT_UNTRUSTED : CLI_EXIT_OK;
    agg_sort(&a);
    summary_build(&sum, &a, &so);
    wret = write_reports(co, dir, &sum, &rr);
    fflush(stdout);
    if (wret == CLI_EXIT_OK)
        headline(&sum, dir, ndumps, verdict, &rr, filter);
    if (ret != CLI_EXIT_OK) {
        fputs("pystats run: details: pystats check ", stderr);
        cli_fput_esc(stderr, dir);
        fputc('\n', stderr);
    }
    if (co->quiet)
        printf("verdict: %s\n", verdict);
    summary_free(&sum);
    free((void *)so.findings);
    check_free(cs);
    agg_free(&a);
    return wret != CLI_EXIT_OK ? wret : ret;
}
