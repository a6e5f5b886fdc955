/* cmd_check.c: `pystats check`: every reason to distrust a set of dumps. */
#include "check.h"
#include "cli.h"
#include "load.h"
#include "outfile.h"
#include "../format/psf_detect.h"
#include "../format/psf_write.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_INPUT "the collector's default directory:\n" \
    "                      /tmp/py_stats, or /tmp/py_stats-UID when another\n" \
    "                      user owns /tmp/py_stats"

static const char usage[] =
    "usage: pystats check [INPUT ...] [--json FILE] [--strict] [--all-files]\n"
    "                     [--python-version X.Y] [--jobs N] [--quiet]\n"
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
    "\n"
    "Exit status: 0 no errors (warnings allowed unless --strict), 1 no dump\n"
    "files at all, 2 usage error, 3 the JSON could not be written, 4 internal\n"
    "error, 6 errors found (or warnings with --strict).\n";

int
cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", required_argument, NULL, 'j' },
        { "strict", no_argument, NULL, 's' },
        { "all-files", no_argument, NULL, 'a' },
        { "python-version", required_argument, NULL, 'V' },
        { "jobs", required_argument, NULL, 'J' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static char default_dir[PSF_PATH_MAX], *default_input[] = { default_dir };
    const char *json_path = NULL;
    char **inputs, verdict[1024];
    size_t ninputs;
    int strict = 0, all_files = 0, quiet = 0, c, ret = CLI_EXIT_OK;
    load_opts lo = { .quiet = 1 };
    check_set *cs;
    agg a;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json_path = optarg; break;
        case 's': strict = 1; break;
        case 'a': all_files = 1; break;
        case 'q': quiet = 1; break;
        case 'V':
            if (cli_opt_version(optarg, &lo.force_minor) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'J':
            if (cli_opt_count("jobs", optarg, 1024, &lo.jobs) < 0)
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
    cs = check_load(inputs, ninputs, &lo, &a);
    check_verdict(cs, verdict, sizeof verdict);
    if (json_path && strcmp(json_path, "-") == 0)
        ;   /* the JSON is the output */
    else if (quiet)
        printf("verdict: %s\n", verdict);
    else
        check_report_text(cs, stdout, all_files);
    if (json_path) {
        outfile o;
        if (outfile_open(&o, json_path) != 0) {
            fprintf(stderr, "pystats: error: %s: cannot create: %s\n", json_path, strerror(errno));
            ret = CLI_EXIT_OUTPUT;
        } else if (check_report_json(cs, o.fp) != 0) {
            int e = errno;
            outfile_abort(&o);
            fprintf(stderr, "pystats: error: %s: writing failed: %s\n", json_path,
                    strerror(e ? e : EIO));
            ret = CLI_EXIT_OUTPUT;
        } else if (outfile_commit(&o) != 0) {
            fprintf(stderr, "pystats: error: %s: writing failed: %s\n", json_path, strerror(errno));
            ret = CLI_EXIT_OUTPUT;
        }
    }
    if (ret == CLI_EXIT_OK) {
        if (agg_files(&a) == 0)
            ret = CLI_EXIT_INPUT;
        else if (check_count(cs, CHECK_ERROR) || (strict && check_count(cs, CHECK_WARNING)))
            ret = CLI_EXIT_UNTRUSTED;
    }
    check_free(cs);
    agg_free(&a);
    return ret;
}
