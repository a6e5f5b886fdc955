/* cmd_compare.c: `pystats compare BASE HEAD`: two runs side by side. */
#include "cli.h"
#include "compare.h"
#include "compare_expr.h"
#include "load.h"
#include "report_html.h"
#include "subcmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: pystats compare BASE HEAD [--json FILE] [--markdown FILE] [--html FILE]\n"
    "                       [--min-change PCT] [--top N] [--fail-if EXPR]\n"
    "                       [--by-label] [--python-version X.Y] [--jobs N] [--quiet]\n"
    "                       [--md-style STYLE] [--code PREFIX ...] [--no-stdlib]\n"
    "\n"
    "Compare two runs.  BASE and HEAD are anything `pystats summarize` reads:\n"
    "a directory of dumps, a dump file, or a JSON summary.  Every section is\n"
    "shown side by side (base, head, change, relative change), counts also\n"
    "per million executed instructions, shares (hit ratio, specialized share)\n"
    "in percentage points; rows sorted by their share of the total change.\n"
    "Hot code that moved between modules across versions (pathlib to\n"
    "pathlib._local) is one row, \"pathlib \xe2\x86\x92 pathlib._local:NAME\", when the match\n"
    "is unique (docs/CLI.md, \"Hot code that moved\").\n"
    "\n"
    "  --markdown FILE     write the Markdown report to FILE ('-': stdout)\n"
    "  --md-style STYLE    Markdown as written to a terminal: auto (the\n"
    "                      default: input text such as Vec.__init__ unescaped\n"
    "                      when the output is a terminal, escaped Markdown\n"
    "                      otherwise), markdown, or terminal\n"
    "  --json FILE         write the comparison as JSON to FILE ('-': stdout)\n"
    "  --html FILE         write a self-contained HTML report with charts\n"
    "                      (without any of these, Markdown goes to stdout)\n"
    "  --min-change PCT    fold rows that changed less than PCT percent\n"
    "                      (counts: relative change per million instructions;\n"
    "                      shares: points; hot code: instructions per call,\n"
    "                      never code that is 3% or more of a side; default 1)\n"
    "  --top N             rows shown per section (default 30; JSON has all)\n"
    "  --fail-if EXPR      exit 5 if EXPR is true (see below)\n"
    "  --by-label          benchmark against benchmark: each label (pyperf's\n"
    "                      benchmark name) against the same label, in\n"
    "                      instructions per benchmark call (the calls the pyperf\n"
    "                      hook counted, whatever loops pyperf calibrated), a\n"
    "                      table of the suite and its geometric mean (as pyperf's\n"
    "                      compare_to); not with --fail-if\n"
    "  --code PREFIX       the hot code of this code only, on both sides: a\n"
    "                      module and its submodules, or, with a '/', a path\n"
    "                      prefix; up to 16 times (as summarize; the counts\n"
    "                      and totals stay the whole runs')\n"
    "  --no-stdlib         leave the standard library's hot code out\n"
    "  --python-version X.Y  version of native dumps instead of detecting it\n"
    "  --jobs N            reader threads (default: CPUs, at most 4)\n"
    "  --quiet             no warnings on stderr\n"
    "\n"
    "Expressions (--fail-if):\n"
    "  expr   := cmp | expr and expr | expr or expr | not expr | ( expr )\n"
    "            (also &&, ||, !)\n"
    "  cmp    := value OP value       OP: < <= > >= == !=\n"
    "  value  := number | figure      number: 12, -2.5, 1e6, -2% (= -0.02)\n"
    "  figure := SECTION.NAME | FUNC(SECTION.NAME)   (\"...\" quotes a name\n"
    "            with spaces: \"pairs.LOAD_FAST LOAD_ATTR\")\n"
    "  FUNC   := base head change rel base_pm head_pm change_pm rel_pm\n"
    "  SECTION.NAME alone is the change the report shows: for shares the\n"
    "  change in points (head - base), for counts the relative change per\n"
    "  million instructions.  Sections: total, execution, family,\n"
    "  effectiveness, specialization (FAMILY.hit_ratio, .miss_ratio,\n"
    "  .deferred_ratio, .deopt_ratio, .success_ratio, .specialized_share),\n"
    "  specialization_counts, failure_kinds, pairs, calls, objects, gc,\n"
    "  optimization, histograms, uops, rare_events, other, ...\n"
    "  A comparison with an undefined figure is false.  Examples:\n"
    "    --fail-if 'specialization.LOAD_ATTR.hit_ratio < -2%'\n"
    "    --fail-if 'total.instructions > 5% or family.CALL > 10%'\n"
    "\n"
    "Exit status: 0 compared (and --fail-if false), 1 no usable input,\n"
    "2 usage error or malformed --fail-if, 3 a report could not be written,\n"
    "4 internal error, 5 the --fail-if condition is true.\n";

typedef struct compare_opts {
    double min_change;
    int top;
    const char *expr; /* --fail-if */
    int by_label;
    m_code_filter filter; /* --code, --no-stdlib: which hot code */
    const char *prefix[SUBCMD_CODE_PREFIXES];
} compare_opts;

typedef struct report_job {
    int which; /* 0 Markdown, 1 JSON, 2 HTML */
    const cmp *c;
    const cmp_suite *cs; /* --by-label: the suite instead of c */
    const char *expr;
    int result; /* of --fail-if: 1, 0, -1 (none) */
} report_job;

static int
write_job(FILE *out, const void *ctx)
{
    const report_job *j = ctx;

    if (j->cs && j->which == 0)
        return cmp_suite_markdown(out, j->cs);
    if (j->cs && j->which == 1)
        return cmp_suite_json(out, j->cs);
    if (j->cs)
        return cmp_suite_report_html(out, j->cs);
    if (j->which == 0)
        return cmp_report_markdown(out, j->c);
    if (j->which == 1)
        return cmp_report_json(out, j->c, j->expr, j->result);
    return cmp_report_html(out, j->c);
}

static int
own_option(void *ctx, int c, const char *arg)
{
    compare_opts *o = ctx;
    char *end;

    switch (c) {
    case 'b':
        o->by_label = 1;
        return 0;
    case 'C':
        return subcmd_code_prefix(&o->filter, o->prefix, arg);
    case 'N':
        o->filter.no_stdlib = 1;
        return 0;
    case 'f':
        o->expr = arg;
        return 0;
    case 'T':
        return cli_opt_count("top", arg, SUBCMD_ROWS_MAX, &o->top) < 0 ? CLI_EXIT_USAGE : 0;
    case 'c':
        o->min_change = strtod(arg, &end);
        if (end != arg && *end == '%')
            end++;
        if (end == arg || *end || !(o->min_change >= 0) || o->min_change > 1e9) {
            fputs("pystats: error: --min-change wants a percentage >= 0, not '", stderr);
            cli_fput_esc(stderr, arg);
            fputs("'\n", stderr);
            return CLI_EXIT_USAGE;
        }
        return 0;
    default:
        return CLI_EXIT_USAGE;
    }
}

/* --fail-if names: SECTION.ROW. */
static int
lookup(void *ctx, int fn, const char *path, double *out, char *err, size_t errsize)
{
    const cmp *c = ctx;
    const char *dot = strchr(path, '.');
    const cmp_section *s;
    const cmp_row *r;
    char sec[128];
    size_t i, used;

    snprintf(sec, sizeof sec, "%.*s", (int)(dot - path), path);
    s = cmp_find_section(c, sec);
    if (s == NULL) {
        used = (size_t)snprintf(err, errsize,
                                "'%s': no section '%s' in this comparison (sections:", path, sec);
        for (i = 0; i < c->nsec && used < errsize; i++)
            used += (size_t)snprintf(err + used, errsize - used, " %s", c->sec[i].name);
        if (used < errsize)
            snprintf(err + used, errsize - used, ")");
        return -1;
    }
    r = cmp_find_row(s, dot + 1);
    if (r == NULL) {
        snprintf(err, errsize, "'%s': no '%s' in section '%s' on either side", path, dot + 1, sec);
        return -1;
    }
    switch (fn) {
    case CX_BASE:
        *out = r->base;
        break;
    case CX_HEAD:
        *out = r->head;
        break;
    case CX_CHANGE:
        *out = r->change;
        break;
    case CX_REL:
        *out = r->rel;
        break;
    case CX_BASE_PM:
        *out = r->base_pm;
        break;
    case CX_HEAD_PM:
        *out = r->head_pm;
        break;
    case CX_CHANGE_PM:
        *out = r->change_pm;
        break;
    case CX_REL_PM:
        *out = r->rel_pm;
        break;
    default:
        if (s->kind == CMP_SHARE)
            *out = r->change;
        else
            *out = s->normalized ? r->rel_pm : r->rel;
        break;
    }
    if (s->kind == CMP_SHARE &&
        (fn == CX_BASE_PM || fn == CX_HEAD_PM || fn == CX_CHANGE_PM || fn == CX_REL_PM))
        *out = NAN;
    return 0;
}

/* One side: its input read and summarized. */
static int
load_side(char *input, const load_opts *lo, const m_code_filter *filter, agg *a, summary *s,
          const char *label)
{
    summary_opts so = {.top_pairs = 100, .top_sites = 50, .filter = *filter};

    load_inputs(&input, 1, lo, a);
    if (agg_files(a) == 0) {
        subcmd_say_no_files(label, &input, 1);
        return -1;
    }
    agg_sort(a);
    summary_build(s, a, &so);
    return 0;
}

/* Evaluate --fail-if over the comparison: 1 true, 0 false, or -1 after
 * saying why it cannot be. */
static int
fail_if(const cexpr *expr, const char *text, cmp *cm, int quiet)
{
    char err[1024];
    int result;
    size_t i;

    if (!quiet)
        for (i = 0; i < cm->nwarn; i++) {
            fputs("pystats: warning: ", stderr);
            cli_fput_esc(stderr, cm->warn[i]);
            fputc('\n', stderr);
        }
    if (expr == NULL)
        return -1;
    if (!quiet) {
        fputs("pystats: --fail-if ", stderr);
        cli_fput_esc(stderr, text);
        fputc('\n', stderr);
    }
    result = cexpr_eval(expr, lookup, cm, quiet ? NULL : stderr, err, sizeof err);
    if (result < 0)
        fprintf(stderr, "pystats: error: --fail-if: %s\n", err);
    return result;
}

/* Every report asked for (Markdown on stdout when none is). */
static int
write_reports(const subcmd_common *co, report_job *j)
{
    const char *md = co->markdown;
    int ret = CLI_EXIT_OK, r;

    if (co->json == NULL && md == NULL && co->html == NULL)
        md = "-";
    j->which = 0;
    if (md && (r = subcmd_write(md, "report", write_job, j)) != CLI_EXIT_OK)
        ret = r;
    j->which = 1;
    if (co->json && (r = subcmd_write(co->json, "report", write_job, j)) != CLI_EXIT_OK)
        ret = r;
    j->which = 2;
    if (co->html && (r = subcmd_write(co->html, "report", write_job, j)) != CLI_EXIT_OK)
        ret = r;
    return ret;
}

/* Benchmarks on both sides whose calls changed in different proportions
 * (the sides read again, by label). */
static void
calls_warning(cmp *cm, const load_opts *lo, char **in)
{
    load_opts l = *lo;
    agg a[2];
    int k;

    l.by_label = 1;
    l.quiet = 1;
    for (k = 0; k < 2; k++)
        load_inputs(&in[k], 1, &l, &a[k]);
    cmp_warn_calls(cm, &a[0], &a[1]);
    agg_free(&a[0]);
    agg_free(&a[1]);
}

/* --by-label: both sides read by label, each label compared with its
 * namesake. */
static int
compare_by_label(subcmd_common *co, const compare_opts *o, char **in)
{
    int ret = CLI_EXIT_INPUT;
    agg base, head;
    summary sb, sh;
    cmp_suite cs;
    report_job j;
    size_t i;

    co->lo.by_label = 1;
    memset(&head, 0, sizeof head);
    memset(&sb, 0, sizeof sb);
    memset(&sh, 0, sizeof sh);
    if (load_side(in[0], &co->lo, &o->filter, &base, &sb, "base") != 0 ||
        load_side(in[1], &co->lo, &o->filter, &head, &sh, "head") != 0)
        goto fail;
    cmp_suite_build(&cs, &sb, in, &sh, in + 1, o->min_change, o->top);
    for (i = 0; !co->quiet && i < cs.nwarn; i++) {
        fputs("pystats: warning: ", stderr);
        cli_fput_esc(stderr, cs.warn[i]);
        fputc('\n', stderr);
    }
    j = (report_job){0, NULL, &cs, NULL, -1};
    ret = write_reports(co, &j);
    cmp_suite_free(&cs);
fail:
    summary_free(&sb);
    summary_free(&sh);
    agg_free(&base);
    agg_free(&head);
    return ret;
}

int
cmd_compare(int argc, char **argv)
{
    compare_opts o = {.min_change = 1.0, .top = 30};
    const subcmd_spec spec = {usage, "h",
                              "json markdown html md-style min-change top fail-if by-label "
                              "python-version jobs quiet code no-stdlib help",
                              own_option, &o};
    int ret = CLI_EXIT_INPUT, r, result = -1;
    subcmd_common co;
    cexpr *expr = NULL;
    char err[1024];
    agg base, head;
    summary sb, sh;
    report_job j;
    cmp cm;

    if ((r = subcmd_parse(&spec, argc, argv, &co)) >= 0)
        return r;
    co.lo.quiet = co.quiet;
    /* Each side reads every run of its input, and says so (runs.h). */
    co.lo.run = "all";
    co.lo.run_quiet = co.quiet;
    if (argc - optind != 2) {
        fprintf(stderr, "pystats: error: compare wants two inputs, BASE and HEAD (got %d)\n",
                argc - optind);
        fputs(usage, stderr);
        return CLI_EXIT_USAGE;
    }
    if (o.by_label && o.expr) {
        fputs("pystats: error: --fail-if does not apply to --by-label (compare one "
              "benchmark's dumps without it)\n",
              stderr);
        return CLI_EXIT_USAGE;
    }
    if (o.by_label)
        return compare_by_label(&co, &o, argv + optind);
    if (o.expr && (expr = cexpr_parse(o.expr, err, sizeof err)) == NULL) {
        fprintf(stderr, "pystats: error: --fail-if: %s\n  %s\n", err, o.expr);
        return CLI_EXIT_USAGE;
    }
    memset(&head, 0, sizeof head);
    memset(&sb, 0, sizeof sb);
    memset(&sh, 0, sizeof sh);
    if (load_side(argv[optind], &co.lo, &o.filter, &base, &sb, "base") != 0 ||
        load_side(argv[optind + 1], &co.lo, &o.filter, &head, &sh, "head") != 0)
        goto fail;
    cmp_build(&cm, &sb, argv + optind, 1, &sh, argv + optind + 1, 1, o.min_change, o.top);
    if (cm.side[0].m->bench_calls && cm.side[1].m->bench_calls)
        calls_warning(&cm, &co.lo, argv + optind);
    result = fail_if(expr, o.expr, &cm, co.quiet);
    if (expr && result < 0) {
        ret = CLI_EXIT_USAGE;
        goto done;
    }
    cm.fail_if = o.expr;
    cm.fail_result = result;
    j = (report_job){0, &cm, NULL, o.expr, result};
    ret = write_reports(&co, &j);
    if (ret == CLI_EXIT_OK && result == 1) {
        fprintf(stderr, "pystats: --fail-if condition is true (exit %d)\n", CLI_EXIT_CONDITION);
        ret = CLI_EXIT_CONDITION;
    }
    else if (result == 0 && !co.quiet) {
        fputs("pystats: --fail-if condition is false\n", stderr);
    }
done:
    cmp_free(&cm);
fail:
    summary_free(&sb);
    summary_free(&sh);
    agg_free(&base);
    agg_free(&head);
    cexpr_free(expr);
    return ret;
}
