/* cmd_summarize.c: `pystats summarize`: read dumps, write the report. */
#include "check.h"
#include "cli.h"
#include "load.h"
#include "outfile.h"
#include "report.h"
#include "report_html.h"
#include "weight.h"
#include "../format/psf_detect.h"
#include "../format/psf_write.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_INPUT "the collector's default directory,\n" \
    "                      /tmp/py_stats, or /tmp/py_stats-UID when another\n" \
    "                      user owns /tmp/py_stats"

static const char usage[] =
    "usage: pystats summarize [INPUT ...] [--json FILE] [--markdown FILE] [--html FILE]\n"
    "                         [--strict] [--python-version X.Y] [--jobs N]\n"
    "                         [--top-pairs N] [--top-sites N] [--quiet] [--by-label]\n"
    "                         [--equal-weight]\n"
    "\n"
    "Summarize pystats dumps: this project's dumps, CPython 3.11-3.14 native\n"
    "dumps (--enable-pystats), JSON from CPython's summarize_stats.py\n"
    "--json-output, and JSON summaries written by --json.\n"
    "\n"
    "  INPUT               a directory of dumps, a dump file or a JSON file;\n"
    "                      several are aggregated (default:\n"
    "                      " DEFAULT_INPUT ")\n"
    "  --markdown FILE     write the Markdown report to FILE ('-': stdout)\n"
    "  --json FILE         write the JSON summary to FILE ('-': stdout)\n"
    "  --html FILE         write a self-contained HTML report with charts\n"
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
    "\n"
    "Exit status: 0 ok, 1 no usable input or --strict and a problem,\n"
    "2 usage error, 3 a report could not be written, 4 internal error.\n";

typedef int (*writer_fn)(FILE *, const agg *, const report_opts *);

/* Write one report through a temporary file; returns a cli_exit. */
static int
write_report(const char *path, writer_fn fn, const agg *a, const report_opts *ro)
{
    outfile o;

    if (outfile_open(&o, path) != 0) {
        fprintf(stderr, "pystats: error: %s: cannot create report: %s\n", path, strerror(errno));
        return CLI_EXIT_OUTPUT;
    }
    if (fn(o.fp, a, ro) != 0) {
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

int
cmd_summarize(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", required_argument, NULL, 'j' },
        { "markdown", required_argument, NULL, 'm' },
        { "html", required_argument, NULL, 'H' },
        { "strict", no_argument, NULL, 's' },
        { "python-version", required_argument, NULL, 'V' },
        { "jobs", required_argument, NULL, 'J' },
        { "top-pairs", required_argument, NULL, 'T' },
        { "top-sites", required_argument, NULL, 'S' },
        { "quiet", no_argument, NULL, 'q' },
        { "by-label", no_argument, NULL, 'b' },
        { "equal-weight", no_argument, NULL, 'e' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *json_path = NULL, *md_path = NULL, *html_path = NULL;
    static char default_dir[PSF_PATH_MAX], *default_input[] = { default_dir };
    char **inputs;
    size_t ninputs, i;
    int strict = 0, equal_weight = 0, c, ret = CLI_EXIT_OK, r;
    load_opts lo = { 0 };
    report_opts ro = { .top_pairs = 100, .top_sites = 50 };
    uint64_t problems = 0;
    char warn[2048], trust[1024];
    check_set *cs;
    agg a;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json_path = optarg; break;
        case 'm': md_path = optarg; break;
        case 'H': html_path = optarg; break;
        case 's': strict = 1; break;
        case 'q': lo.quiet = 1; break;
        case 'b': lo.by_label = 1; break;
        case 'e': lo.by_label = equal_weight = 1; break;
        case 'V':
            if (cli_opt_version(optarg, &lo.force_minor) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'J':
            if (cli_opt_count("jobs", optarg, 100000, &lo.jobs) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'T':
            if (cli_opt_count("top-pairs", optarg, 100000, &ro.top_pairs) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'S':
            if (cli_opt_count("top-sites", optarg, 100000, &ro.top_sites) < 0)
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
    inputs = argv + optind;
    ninputs = (size_t)(argc - optind);
    if (ninputs == 0) {
        /* The collector's default for this user (base/py_stats, or
         * base/py_stats-UID when another user owns that). */
        psf_default_dir(getenv("PYSTATS_TMPDIR"), default_dir, sizeof default_dir);
        inputs = default_input;
        ninputs = 1;
    }
    /* The trust verdict comes from the checks of `pystats check`, made
     * while the files are read. */
    cs = check_load(inputs, ninputs, &lo, &a);
    ro.trust = check_verdict(cs, trust, sizeof trust);
    check_free(cs);
    if (agg_files(&a) == 0) {
        fputs("pystats: error: no dump files found in", stderr);
        for (i = 0; i < ninputs; i++) {
            fputc(' ', stderr);
            cli_fput_esc(stderr, inputs[i]);
        }
        fputc('\n', stderr);
        agg_free(&a);
        return CLI_EXIT_INPUT;
    }
    if (equal_weight && weight_equal_labels(&a) != 0) {
        agg_free(&a);
        return CLI_EXIT_INPUT;
    }
    agg_sort(&a);
    if (json_path == NULL && md_path == NULL && html_path == NULL)
        md_path = "-";
    if (md_path && (r = write_report(md_path, report_markdown, &a, &ro)) != CLI_EXIT_OK)
        ret = r;
    if (json_path && (r = write_report(json_path, report_json, &a, &ro)) != CLI_EXIT_OK)
        ret = r;
    if (html_path && (r = write_report(html_path, report_html, &a, &ro)) != CLI_EXIT_OK)
        ret = r;
    for (i = 0; i < AGG_P_COUNT; i++)
        problems += a.problems[i];
    if (strict && ret == CLI_EXIT_OK) {
        if (problems) {
            fprintf(stderr, "pystats: error: --strict: %llu input problems\n",
                    (unsigned long long)problems);
            ret = CLI_EXIT_INPUT;
        }
        if (report_mix_warning(&a, warn, sizeof warn)) {
            fputs("pystats: error: --strict: ", stderr);
            cli_fput_esc(stderr, warn);
            fputc('\n', stderr);
            ret = CLI_EXIT_INPUT;
        }
    }
    agg_free(&a);
    return ret;
}
