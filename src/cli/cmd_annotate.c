/* cmd_annotate.c: `pystats annotate`: the source view of hot code. */
#include "annotate.h"
#include "check.h"
#include "cli.h"
#include "load.h"
#include "subcmd.h"

#include <stdio.h>
#include <stdlib.h>

#define TOP_TEXT 3  /* functions on a terminal */
#define TOP_HTML 20 /* functions on a page */

static const char usage[] =
    "usage: pystats annotate [INPUT ...] [--html FILE] [--function NAME] [--top N]\n"
    "                        [--python-version X.Y] [--jobs N] [--quiet]\n"
    "\n"
    "Show the source of the hottest functions, each line with the exact number\n"
    "of bytecode instructions it executed (dumps of modes count and\n"
    "instructions), each specializable site with its state: specialized (into\n"
    "which form), backing off (after how many failed attempts), never tried\n"
    "(dumps with a census: mode count on 3.12+).  Lines are read from the\n"
    "dump's own copy of the source where it has one, else from the file.\n"
    "\n"
    "  INPUT             a directory of dumps or a dump file (default: the\n"
    "                    collector's default directory, as for summarize)\n"
    "  --html FILE       write one self-contained page ('-': stdout) of the\n"
    "                    --top hottest functions (default 20), with a sidebar\n"
    "                    of them by instructions; without --html, the view of\n"
    "                    the --top hottest (default 3) goes to stdout as text\n"
    "  --function NAME   only functions whose qualified name is NAME, or whose\n"
    "                    FILE:LINE:QUALNAME ends with NAME\n"
    "  --top N           how many functions to show\n"
    "  --python-version X.Y, --jobs N, --quiet  as for summarize\n"
    "\n"
    "The dumps of one Python version are shown: with several, the version\n"
    "with most dumps, and a line on stderr says what was left out.\n"
    "\n"
    "Exit status: 0 ok, 1 no usable input or no per-line counts in it,\n"
    "2 usage error, 3 the page could not be written.\n";

typedef struct annotate_cmd {
    annotate_opts ao;
    int top_set;
} annotate_cmd;

static int
own_option(void *ctx, int c, const char *arg)
{
    annotate_cmd *ac = ctx;

    switch (c) {
    case 'F':
        ac->ao.function = arg;
        return 0;
    case 'T':
        ac->top_set = 1;
        return cli_opt_count("top", arg, SUBCMD_ROWS_MAX, &ac->ao.top) < 0 ? CLI_EXIT_USAGE : 0;
    default:
        return CLI_EXIT_USAGE;
    }
}

static int
write_html(FILE *out, const void *ctx)
{
    return annotate_html(out, ctx);
}

/* The first group (most files first) with per-line counts, built into
 * m; -1 if none has any. */
static int
pick_group(const agg *a, m_group *m, int quiet)
{
    size_t i, j;

    for (i = 0; i < a->ng; i++) {
        model_build(m, a->g[i]);
        for (j = 0; j < m->ncode; j++)
            if (m->code[j].nlines)
                break;
        if (j < m->ncode) {
            if (a->ng > 1 && !quiet)
                fprintf(stderr,
                        "pystats: annotating the %llu dumps of Python 3.%d; %llu others "
                        "(another version or kind) left out\n",
                        (unsigned long long)a->g[i]->files, a->g[i]->minor,
                        (unsigned long long)(agg_files(a) - a->g[i]->files));
            return 0;
        }
        model_free(m);
    }
    return -1;
}

int
cmd_annotate(int argc, char **argv)
{
    subcmd_common co;
    annotate_cmd ac = {{0, NULL}, 0};
    const subcmd_spec spec = {usage, "h", "html function top python-version jobs quiet help",
                              own_option, &ac};
    char **inputs, trust[1024];
    size_t ninputs;
    int ret = CLI_EXIT_OK, r;
    check_set *cs;
    annotate view;
    m_group m;
    agg a;

    if ((r = subcmd_parse(&spec, argc, argv, &co)) >= 0)
        return r;
    co.lo.quiet = co.quiet;
    subcmd_inputs(argc, argv, &inputs, &ninputs);
    cs = check_load(inputs, ninputs, &co.lo, &a);
    if (agg_files(&a) == 0) {
        check_free(cs);
        subcmd_say_no_files(NULL, inputs, ninputs);
        agg_free(&a);
        return CLI_EXIT_INPUT;
    }
    agg_sort(&a);
    if (pick_group(&a, &m, co.quiet) != 0) {
        fputs("pystats: error: no per-line counts in these dumps: they come from modes count\n"
              "and instructions (-X pystats, PYTHONSTATS=1) of this version of pystats\n",
              stderr);
        check_free(cs);
        agg_free(&a);
        return CLI_EXIT_INPUT;
    }
    if (!ac.top_set)
        ac.ao.top = co.html ? TOP_HTML : TOP_TEXT;
    if (annotate_build(&view, &m, &ac.ao) == 0 && ac.ao.function) {
        fputs("pystats: error: no function with per-line counts matches '", stderr);
        cli_fput_esc(stderr, ac.ao.function);
        fputs("'\n", stderr);
        ret = CLI_EXIT_INPUT;
    }
    else {
        view.trust = check_verdict(cs, trust, sizeof trust);
        view.verdict = check_verdict_word(cs);
        if (co.html)
            ret = subcmd_write(co.html, "page", write_html, &view);
        else if (annotate_text(stdout, &view) != 0)
            ret = CLI_EXIT_OUTPUT;
    }
    annotate_free(&view);
    model_free(&m);
    check_free(cs);
    agg_free(&a);
    return ret;
}
