/* cmd_check.c: `pystats check`: every reason to distrust a set of dumps. */
#include "check.h"
#include "cli.h"
#include "load.h"
#include "subcmd.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_INPUT                                                          \
    "the collector's default directory:\n"                                     \
    "                      /tmp/py_stats, or /tmp/py_stats-UID when another\n" \
    "                      user owns /tmp/py_stats"

static const char usage[] =
    "usage: pystats check [INPUT ...] [--json FILE] [--strict] [--all-files]\n"
    "                     [--python-version X.Y] [--jobs N] [--quiet]\n"
    "                     [--run newest|all|ID]\n"
    "\n"
    "Report every reason to distrust a set of dumps: missing, empty, all-zero,\n"
    "truncated or unparsable files; temporaries of dumps never finished; mixed\n"
    "versions, builds, formats or modes; duplicates; counts that cannot happen\n"
    "in one process; startup or harness code counted in windowed sets; and,\n"
    "for this collector's dumps, os._exit and SIGTERM dumps, fork children,\n"
    "windows, collection left on at exit, counts it knows are not exact\n"
    "(another tool's trace function, frame.f_lineno jumps), files of\n"
    "another user in a directory others can write.\n"
    "Each finding names its files, a severity (error, warning, note) and why.\n"
    "\n"
    "  INPUT               a directory of dumps, a dump file or a JSON file\n"
    "                      (default: " DEFAULT_INPUT ")\n"
    "  --json FILE         also write the findings as JSON to FILE ('-': stdout,\n"
    "                      instead of the text)\n"
    "  --strict            warnings fail too (exit 6)\n"
    "  --all-files         list every file of each finding, not the first few\n"
    "  --python-version X.Y  version of native dumps instead of detecting it\n"
    "  --jobs N            reader threads (default: CPUs, at most 4)\n"
    "  --quiet             print the verdict line only\n"
    "  --run newest|all|ID  which run to check (the dumps of one process tree):\n"
    "                      as for summarize (default: newest without INPUT)\n"
    "\n"
    "Exit status: 0 no errors (warnings allowed unless --strict), 1 no dump\n"
    "files at all, 2 usage error, 3 the JSON could not be written, 4 internal\n"
    "error, 6 errors found (or warnings with --strict).\n";

static int
own_option(void *ctx, int c, const char *arg)
{
    (void)arg;
    if (c != 'a')
        return CLI_EXIT_USAGE;
    *(int *)ctx = 1;
    return 0;
}

static int
write_json(FILE *out, const void *cs)
{
    return check_report_json(cs, out);
}

int
cmd_check(int argc, char **argv)
{
    int all_files = 0, ret = CLI_EXIT_OK, r;
    const subcmd_spec spec = {usage, "h",
                              "json strict all-files python-version jobs quiet run help",
                              own_option, &all_files};
    subcmd_common co;
    char **inputs, verdict[1024];
    size_t ninputs;
    check_set *cs;
    agg a;

    if ((r = subcmd_parse(&spec, argc, argv, &co)) >= 0)
        return r;
    /* Problems are findings here, not warnings on stderr. */
    co.lo.quiet = 1;
    subcmd_inputs(argc, argv, &inputs, &ninputs);
    subcmd_runs(&co);
    cs = check_load(inputs, ninputs, &co.lo, &a);
    check_verdict(cs, verdict, sizeof verdict);
    if (co.json && strcmp(co.json, "-") == 0)
        ; /* the JSON is the output */
    else if (co.quiet)
        printf("verdict: %s\n", verdict);
    else
        check_report_text(cs, stdout, all_files);
    if (co.json)
        ret = subcmd_write(co.json, NULL, write_json, cs);
    if (ret == CLI_EXIT_OK) {
        if (agg_files(&a) == 0)
            ret = CLI_EXIT_INPUT;
        else if (check_count(cs, CHECK_ERROR) || (co.strict && check_count(cs, CHECK_WARNING)))
            ret = CLI_EXIT_UNTRUSTED;
    }
    check_free(cs);
    agg_free(&a);
    return ret;
}
