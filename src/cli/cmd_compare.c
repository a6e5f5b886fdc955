/* cmd_compare.c: `pystats compare BASE HEAD`: two runs side by side. */
#include "cli.h"
#include "compare.h"
#include "compare_expr.h"
#include "load.h"
#include "outfile.h"
#include "report_html.h"
#include "../format/psf_detect.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: pystats compare BASE HEAD [--json FILE] [--markdown FILE] [--html FILE]\n"
    "                       [--min-change PCT] [--top N] [--fail-if EXPR]\n"
    "                       [--python-version X.Y] [--jobs N] [--quiet]\n"
    "\n"
    "Compare two runs.  BASE and HEAD are anything `pystats summarize` reads:\n"
    "a directory of dumps, a dump file, or a JSON summary.  Every section is\n"
    "shown side by side (base, head, change, relative change), counts also\n"
    "per million executed instructions, shares (hit ratio, specialized share)\n"
    "in percentage points; rows sorted by their share of the total change.\n"
    "\n"
    "  --markdown FILE     write the Markdown report to FILE ('-': stdout)\n"
    "  --json FILE         write the comparison as JSON to FILE ('-': stdout)\n"
    "  --html FILE         write a self-contained HTML report with charts\n"
    "                      (without any of these, Markdown goes to stdout)\n"
    "  --min-change PCT    fold rows that changed less than PCT percent\n"
    "                      (counts: relative change per million instructions;\n"
    "                      shares: points; default 1)\n"
    "  --top N             rows shown per section (default 30; JSON has all)\n"
    "  --fail-if EXPR      exit 5 if EXPR is true (see below)\n"
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

typedef struct writer {
    const char *expr;
    int result;
} writer;

static int
write_report(const char *path, int which, const cmp *c, const writer *w)
{
    outfile o;
    int r;

    if (outfile_open(&o, path) != 0) {
        fprintf(stderr, "pystats: error: %s: cannot create report: %s\n", path, strerror(errno));
        return CLI_EXIT_OUTPUT;
    }
    errno = 0;
    if (which == 0)
        r = cmp_report_markdown(o.fp, c);
    else if (which == 1)
        r = cmp_report_json(o.fp, c, w->expr, w->result);
    else
        r = cmp_report_html(o.fp, c);
    if (r != 0) {
        int e = errno;
        outfile_abort(&o);
        fprintf(stderr, "pystats: error: %s: writing report failed: %s\n", path,
                strerror(e ? e : EIO));
        return CLI_EXIT_OUTPUT;
    }
    if (outfile_commit(&o) != 0) {
        fprintf(stderr, "pystats: error: %s: writing report failed: %s\n", path, strerror(errno));
        return CLI_EXIT_OUTPUT;
    }
    return CLI_EXIT_OK;
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
        used = (size_t)snprintf(err, errsize, "'%s': no section '%s' in this comparison (sections:",
                                path, sec);
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
    case CX_BASE: *out = r->base; break;
    case CX_HEAD: *out = r->head; break;
    case CX_CHANGE: *out = r->change; break;
    case CX_REL: *out = r->rel; break;
    case CX_BASE_PM: *out = r->base_pm; break;
    case CX_HEAD_PM: *out = r->head_pm; break;
    case CX_CHANGE_PM: *out = r->change_pm; break;
    case CX_REL_PM: *out = r->rel_pm; break;
    default:
        if (s->kind == CMP_SHARE)
            *out = r->change;
        else
            *out = s->normalized ? r->rel_pm : r->rel;
        break;
    }
    if (s->kind == CMP_SHARE && (fn == CX_BASE_PM || fn == CX_HEAD_PM || fn == CX_CHANGE_PM
                                 || fn == CX_REL_PM))
        *out = NAN;
    return 0;
}

static int
load_side(char *input, const load_opts *lo, agg *a, const char *label)
{
    load_inputs(&input, 1, lo, a);
    if (agg_files(a) == 0) {
        fprintf(stderr, "pystats: error: %s: no dump files found in ", label);
        cli_fput_esc(stderr, input);
        fputc('\n', stderr);
        return -1;
    }
    agg_sort(a);
    return 0;
}

int
cmd_compare(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", required_argument, NULL, 'j' },
        { "markdown", required_argument, NULL, 'm' },
        { "html", required_argument, NULL, 'H' },
        { "min-change", required_argument, NULL, 'c' },
        { "top", required_argument, NULL, 'T' },
        { "fail-if", required_argument, NULL, 'f' },
        { "python-version", required_argument, NULL, 'V' },
        { "jobs", required_argument, NULL, 'J' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *json_path = NULL, *md_path = NULL, *html_path = NULL, *expr_text = NULL;
    double min_change = 1.0;
    int top = 30, c, ret = CLI_EXIT_OK, r, result = -1;
    load_opts lo = { 0 };
    cexpr *expr = NULL;
    char err[1024];
    agg base, head;
    cmp cm;
    writer w;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json_path = optarg; break;
        case 'm': md_path = optarg; break;
        case 'H': html_path = optarg; break;
        case 'f': expr_text = optarg; break;
        case 'q': lo.quiet = 1; break;
        case 'c': {
            char *end;
            min_change = strtod(optarg, &end);
            if (end != optarg && *end == '%')
                end++;
            if (end == optarg || *end || !(min_change >= 0) || min_change > 1e9) {
                fprintf(stderr, "pystats: error: --min-change wants a percentage >= 0, not '%s'\n",
                        optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        }
        case 'V':
            if (cli_opt_version(optarg, &lo.force_minor) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'J':
            if (cli_opt_count("jobs", optarg, 1000000, &lo.jobs) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'T':
            if (cli_opt_count("top", optarg, 1000000, &top) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'h':
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        default:
            fputs(usage, stderr);
            return CLI_EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "pystats: error: compare wants two inputs, BASE and HEAD (got %d)\n",
                argc - optind);
        fputs(usage, stderr);
        return CLI_EXIT_USAGE;
    }
    if (expr_text) {
        expr = cexpr_parse(expr_text, err, sizeof err);
        if (expr == NULL) {
            fprintf(stderr, "pystats: error: --fail-if: %s\n  %s\n", err, expr_text);
            return CLI_EXIT_USAGE;
        }
    }
    if (load_side(argv[optind], &lo, &base, "base") != 0) {
        agg_free(&base);
        cexpr_free(expr);
        return CLI_EXIT_INPUT;
    }
    if (load_side(argv[optind + 1], &lo, &head, "head") != 0) {
        agg_free(&base);
        agg_free(&head);
        cexpr_free(expr);
        return CLI_EXIT_INPUT;
    }
    cmp_build(&cm, &base, argv + optind, 1, &head, argv + optind + 1, 1, min_change, top);
    if (!lo.quiet) {
        size_t i;
        for (i = 0; i < cm.nwarn; i++) {
            fputs("pystats: warning: ", stderr);
            cli_fput_esc(stderr, cm.warn[i]);
            fputc('\n', stderr);
        }
    }
    if (expr) {
        if (!lo.quiet)
            fprintf(stderr, "pystats: --fail-if %s\n", expr_text);
        result = cexpr_eval(expr, lookup, &cm, lo.quiet ? NULL : stderr, err, sizeof err);
        if (result < 0) {
            fprintf(stderr, "pystats: error: --fail-if: %s\n", err);
            ret = CLI_EXIT_USAGE;
            goto done;
        }
    }
    w.expr = expr_text;
    w.result = result;
    if (json_path == NULL && md_path == NULL && html_path == NULL)
        md_path = "-";
    if (md_path && (r = write_report(md_path, 0, &cm, &w)) != CLI_EXIT_OK)
        ret = r;
    if (json_path && (r = write_report(json_path, 1, &cm, &w)) != CLI_EXIT_OK)
        ret = r;
    if (html_path && (r = write_report(html_path, 2, &cm, &w)) != CLI_EXIT_OK)
        ret = r;
    if (ret == CLI_EXIT_OK && result == 1) {
        fprintf(stderr, "pystats: --fail-if condition is true (exit %d)\n", CLI_EXIT_CONDITION);
        ret = CLI_EXIT_CONDITION;
    } else if (result == 0 && !lo.quiet) {
        fputs("pystats: --fail-if condition is false\n", stderr);
    }
done:
    cmp_free(&cm);
    agg_free(&base);
    agg_free(&head);
    cexpr_free(expr);
    return ret;
}
