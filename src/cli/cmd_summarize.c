/* cmd_summarize.c: `pystats summarize`: read dumps, write the report. */
#include "check.h"
#include "cli.h"
#include "load.h"
#include "report.h"
#include "report_html.h"
#include "subcmd.h"
#include "weight.h"
#include "write_cpython_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_INPUT                                                          \
    "the collector's default directory,\n"                                     \
    "                      /tmp/py_stats, or /tmp/py_stats-UID when another\n" \
    "                      user owns /tmp/py_stats"

static const char usage[] =
    "usage: pystats summarize [INPUT ...] [--json FILE] [--markdown FILE] [--html FILE]\n"
    "                         [--strict] [--python-version X.Y] [--jobs N]\n"
    "                         [--top-pairs N] [--top-sites N] [--quiet] [--by-label]\n"
    "                         [--equal-weight] [--code PREFIX ...] [--no-stdlib]\n"
    "                         [--cpython-json FILE]\n"
    "                         [--run newest|all|ID] [--md-style STYLE]\n"
    "\n"
    "Summarize pystats dumps: this project's dumps, CPython 3.11-3.16 native\n"
    "dumps (--enable-pystats), JSON from CPython's summarize_stats.py\n"
    "--json-output, and JSON summaries written by --json.\n"
    "\n"
    "  INPUT               a directory of dumps, a dump file or a JSON file;\n"
    "                      several are aggregated (default:\n"
    "                      " DEFAULT_INPUT ")\n"
    "  --markdown FILE     write the Markdown report to FILE ('-': stdout)\n"
    "  --md-style STYLE    Markdown as written to a terminal: auto (the\n"
    "                      default: input text such as Vec.__init__ unescaped\n"
    "                      when the output is a terminal, escaped Markdown\n"
    "                      otherwise), markdown, or terminal\n"
    "  --json FILE         write the JSON summary to FILE ('-': stdout)\n"
    "  --html FILE         write a self-contained HTML report with charts\n"
    "                      and the hottest functions' source (dumps with\n"
    "                      per-line counts: see pystats annotate)\n"
    "  --cpython-json FILE write what CPython's summarize_stats.py --json-output\n"
    "                      writes for the same native dumps ('-': stdout);\n"
    "                      CPython 3.13 and 3.14 dumps of one version only\n"
    "                      (this collector's dumps count base instructions:\n"
    "                      refused, see docs/CLI.md)\n"
    "                      (without any of these, Markdown goes to stdout)\n"
    "  --strict            exit 1 on any input problem or mixed inputs\n"
    "  --python-version X.Y  version of native dumps instead of detecting it\n"
    "  --jobs N            reader threads (default: CPUs, at most 4)\n"
    "  --top-pairs N       rows of the pair-count table (default 100)\n"
    "  --top-sites N       rows of the census table of sites that fail to\n"
    "                      specialize (default 50)\n"
    "  --quiet             no warnings on stderr (still counted in the report)\n"
    "  --by-label          a group per label (meta.label, PYSTATS_LABEL)\n"
    "  --equal-weight      scale each label's counts to the same total before\n"
    "                      adding them, so that every label weighs the same\n"
    "  --code PREFIX       the hot code, source view, \"where to look\" and\n"
    "                      sites that fail to specialize of this code only:\n"
    "                      a module and its submodules (\"requests\"), or, with\n"
    "                      a '/', a path prefix; may be given up to 16 times\n"
    "                      (default: every code that ran, libraries included;\n"
    "                      the instruction counts stay the whole run's)\n"
    "  --no-stdlib         leave the standard library's code out of the same\n"
    "  --run newest|all|ID  which run to read, a run being the dumps of one\n"
    "                      process tree (their meta.run.id): the newest, all,\n"
    "                      or the one with that id (or its start); default:\n"
    "                      newest without INPUT, all with; a note on stderr\n"
    "                      names the runs found when there are several\n"
    "\n"
    "Exit status: 0 ok, 1 no usable input or --strict and a problem,\n"
    "2 usage error, 3 a report could not be written, 4 internal error.\n";

typedef struct summarize_opts {
    int equal_weight;
    const char *cpython_json; /* --cpython-json FILE */
    const char *prefix[SUBCMD_CODE_PREFIXES];
    load_opts *lo;
    summary_opts ro;
} summarize_opts;

static int
own_option(void *ctx, int c, const char *arg)
{
    summarize_opts *so = ctx;

    switch (c) {
    case 'b':
        so->lo->by_label = 1;
        return 0;
    case 'e':
        so->lo->by_label = so->equal_weight = 1;
        return 0;
    case 'J':
        so->cpython_json = arg;
        return 0;
    case 'T':
        return cli_opt_count("top-pairs", arg, SUBCMD_ROWS_MAX, &so->ro.top_pairs) < 0
                   ? CLI_EXIT_USAGE
                   : 0;
    case 'S':
        return cli_opt_count("top-sites", arg, SUBCMD_ROWS_MAX, &so->ro.top_sites) < 0
                   ? CLI_EXIT_USAGE
                   : 0;
    case 'C':
        return subcmd_code_prefix(&so->ro.filter, so->prefix, arg);
    case 'N':
        so->ro.filter.no_stdlib = 1;
        return 0;
    default:
        return CLI_EXIT_USAGE;
    }
}

/* --strict: any input problem, or inputs that are not like for like,
 * fail the run. */
static int
strict_verdict(const summary *s)
{
    int ret = CLI_EXIT_OK;

    if (s->nproblems) {
        fprintf(stderr, "pystats: error: --strict: %llu input problems\n",
                (unsigned long long)s->nproblems);
        ret = CLI_EXIT_INPUT;
    }
    if (s->mix) {
        fputs("pystats: error: --strict: ", stderr);
        cli_fput_esc(stderr, s->mix);
        fputc('\n', stderr);
        ret = CLI_EXIT_INPUT;
    }
    return ret;
}

/* Read the inputs; the trust verdict and its findings come from the
 * checks of `pystats check`, made while the files are read, when a report
 * is to be written (the check set, returned, outlives the reports);
 * --cpython-json's writer observes the same reading. */
static check_set *
read_inputs(char **inputs, size_t ninputs, subcmd_common *co, summarize_opts *so, cpj *cj,
            char *trust, size_t tsize, agg *a)
{
    check_set *cs = NULL;

    if (cj && co->json == NULL && co->markdown == NULL && co->html == NULL) {
        load_inputs_observed(inputs, ninputs, &co->lo, cpj_observer(cj, NULL), a);
        return NULL;
    }
    if (cj) {
        cs = check_new();
        load_inputs_observed(inputs, ninputs, &co->lo, cpj_observer(cj, check_observer(cs)), a);
        check_finish(cs, a);
    }
    else {
        cs = check_load(inputs, ninputs, &co->lo, a);
    }
    so->ro.trust = check_verdict_reason(cs, trust, tsize);
    so->ro.verdict = check_verdict_word(cs);
    so->ro.findings = check_items(cs, &so->ro.nfindings);
    return cs;
}

/* The reports asked for (Markdown on stdout when none is), from a. */
static int
write_reports(subcmd_common *co, summarize_opts *so, agg *a)
{
    int ret = CLI_EXIT_OK, r;
    const char *md_path = co->markdown;
    summary sum;

    if (co->json == NULL && md_path == NULL && co->html == NULL) {
        if (so->cpython_json)
            return CLI_EXIT_OK;
        md_path = "-";
    }
    agg_sort(a);
    summary_build(&sum, a, &so->ro);
    if (md_path && (r = subcmd_write_summary(md_path, report_markdown, &sum)) != CLI_EXIT_OK)
        ret = r;
    if (co->json && (r = subcmd_write_summary(co->json, report_json, &sum)) != CLI_EXIT_OK)
        ret = r;
    if (co->html && (r = subcmd_write_summary(co->html, report_html, &sum)) != CLI_EXIT_OK)
        ret = r;
    if (co->strict && ret == CLI_EXIT_OK)
        ret = strict_verdict(&sum);
    summary_free(&sum);
    return ret;
}

/* --strict with only --cpython-json: any input problem fails the run. */
static int
strict_problems(const agg *a)
{
    uint64_t n = 0;
    size_t i;

    for (i = 0; i < AGG_P_COUNT; i++)
        n += a->problems[i];
    if (n == 0)
        return CLI_EXIT_OK;
    fprintf(stderr, "pystats: error: --strict: %llu input problems\n", (unsigned long long)n);
    return CLI_EXIT_INPUT;
}

int
cmd_summarize(int argc, char **argv)
{
    subcmd_common co;
    summarize_opts so = {.ro = {.top_pairs = 100, .top_sites = 50}};
    const subcmd_spec spec = {
        usage, "h",
        "json markdown html md-style strict python-version jobs top-pairs top-sites quiet by-label "
        "equal-weight code no-stdlib cpython-json run help",
        own_option, &so};
    char **inputs, trust[1024];
    size_t ninputs;
    int ret = CLI_EXIT_OK, r;
    cpj *cj = NULL;
    check_set *cs;
    agg a;

    so.lo = &co.lo;
    if ((r = subcmd_parse(&spec, argc, argv, &co)) >= 0)
        return r;
    co.lo.quiet = co.quiet;
    subcmd_inputs(argc, argv, &inputs, &ninputs);
    subcmd_runs(&co);
    if (so.cpython_json)
        cj = cpj_new();
    cs = read_inputs(inputs, ninputs, &co, &so, cj, trust, sizeof trust, &a);
    if (agg_files(&a) == 0) {
        subcmd_say_no_files(NULL, inputs, ninputs);
        ret = CLI_EXIT_INPUT;
        goto done;
    }
    if (cj) {
        ret = cpj_write(cj, so.cpython_json);
        cpj_free(cj);
        cj = NULL;
        if (ret == CLI_EXIT_OK && co.strict && !co.json && !co.markdown && !co.html)
            ret = strict_problems(&a);
    }
    if (so.equal_weight && weight_equal_labels(&a) != 0) {
        ret = CLI_EXIT_INPUT;
        goto done;
    }
    if ((r = write_reports(&co, &so, &a)) != CLI_EXIT_OK && ret == CLI_EXIT_OK)
        ret = r;
done:
    cpj_free(cj);
    free((void *)so.ro.findings);
    check_free(cs);
    agg_free(&a);
    return ret;
}
