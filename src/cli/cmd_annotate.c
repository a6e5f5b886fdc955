/* cmd_annotate.c: `pystats annotate`: the source view of hot code. */
#include "annotate.h"
#include "check.h"
#include "cli.h"
#include "load.h"
#include "subcmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_TEXT 3  /* functions on a terminal */
#define TOP_HTML 20 /* functions on a page */

static const char usage[] =
    "usage: pystats annotate [INPUT ...] [--html FILE [--read-files]] [--function NAME]\n"
    "                        [--top N] [--base INPUT] [--python-version X.Y] [--jobs N]\n"
    "                        [--quiet] [--run newest|all|ID] [--code PREFIX ...]\n"
    "                        [--no-stdlib]\n"
    "\n"
    "Show the source of the hottest functions, each line with the exact number\n"
    "of bytecode instructions it executed (dumps of modes count and\n"
    "instructions), each specializable site with its state: specialized (into\n"
    "which form), backing off (after how many failed attempts), never tried\n"
    "(dumps with a census: mode count on 3.12+).  Lines are read from the\n"
    "dump's own copy of the source where it has one, else from the file as it\n"
    "is now, but only if every dump read is yours: owned by you or root, in a\n"
    "directory others cannot write into unless sticky (a dump another user\n"
    "left in /tmp/py_stats may name any file; yours would be read and shown).\n"
    "The page (--html) shows the dumps' own copies only, unless --read-files.\n"
    "Where no text is shown, the view says what the file is instead.\n"
    "\n"
    "  INPUT             a directory of dumps or a dump file (default: the\n"
    "                    collector's default directory, as for summarize)\n"
    "  --html FILE       write one self-contained page ('-': stdout) of the\n"
    "                    --top hottest functions (default 20), with a sidebar\n"
    "                    of them by instructions; without --html, the view of\n"
    "                    the --top hottest (default 3) goes to stdout as text\n"
    "  --read-files      the page too shows the text of files as they are now\n"
    "                    where the dumps have no copy (your dumps only, as\n"
    "                    above)\n"
    "  --function NAME   only functions whose qualified name is NAME, or whose\n"
    "                    FILE:LINE:QUALNAME ends with NAME\n"
    "  --top N           how many functions to show\n"
    "  --base INPUT      compare with another run (its dumps): per line the\n"
    "                    counts per million instructions of each run and the\n"
    "                    change, per site its state there; functions matched\n"
    "                    by file and qualified name, lines from the first line\n"
    "                    (every run of INPUT, whatever --run says)\n"
    "  --code PREFIX     the functions of this code only: a module and its\n"
    "                    submodules, or, with a '/', a path prefix; up to 16\n"
    "                    times (as summarize)\n"
    "  --no-stdlib       leave the standard library's functions out\n"
    "  --python-version X.Y, --jobs N, --quiet, --run  as for summarize\n"
    "\n"
    "The dumps of one Python version are shown: with several, the version\n"
    "with most dumps, and a line on stderr says what was left out.\n"
    "\n"
    "Exit status: 0 ok, 1 no usable input or no per-line counts in it,\n"
    "2 usage error, 3 the page could not be written.\n";

typedef struct annotate_cmd {
    annotate_opts ao;
    m_code_filter filter; /* --code, --no-stdlib: which functions */
    const char *prefix[SUBCMD_CODE_PREFIXES];
    int top_set;
    int read_files;
    const char *base;
} annotate_cmd;

static int
own_option(void *ctx, int c, const char *arg)
{
    annotate_cmd *ac = ctx;

    switch (c) {
    case 'F':
        ac->ao.function = arg;
        return 0;
    case 'B':
        ac->base = arg;
        return 0;
    case 'R':
        ac->read_files = 1;
        return 0;
    case 'C':
        return subcmd_code_prefix(&ac->filter, ac->prefix, arg);
    case 'N':
        ac->filter.no_stdlib = 1;
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

/* One run's dumps, read and checked, its view built. */
typedef struct side {
    agg a;
    check_set *cs;
    m_group m;
    annotate view;
    char trust[1024];
    int built;
} side;

static int
side_load(side *s, char **inputs, size_t ninputs, const subcmd_common *co, const annotate_opts *ao,
          const m_code_filter *filter)
{
    memset(s, 0, sizeof *s);
    s->cs = check_load(inputs, ninputs, &co->lo, &s->a);
    if (agg_files(&s->a) == 0) {
        subcmd_say_no_files(NULL, inputs, ninputs);
        return CLI_EXIT_INPUT;
    }
    agg_sort(&s->a);
    if (pick_group(&s->a, &s->m, co->quiet) != 0) {
        fputs("pystats: error: no per-line counts in ", stderr);
        cli_fput_esc(stderr, inputs[0]);
        fputs(ninputs > 1 ? " ...: " : ": ", stderr);
        fputs("they come from modes count and instructions\n"
              "(-X pystats, PYTHONSTATS=1) of this version of pystats\n",
              stderr);
        return CLI_EXIT_INPUT;
    }
    s->built = 1;
    model_filter_code(&s->m, filter);
    if (annotate_build(&s->view, &s->m, ao) == 0 && ao->function) {
        fputs("pystats: error: no function with per-line counts matches '", stderr);
        cli_fput_esc(stderr, ao->function);
        fputs("'\n", stderr);
        return CLI_EXIT_INPUT;
    }
    s->view.trust = check_verdict(s->cs, s->trust, sizeof s->trust);
    s->view.verdict = check_verdict_word(s->cs);
    return CLI_EXIT_OK;
}

static void
side_free(side *s)
{
    if (s->built) {
        annotate_free(&s->view);
        model_free(&s->m);
    }
    check_free(s->cs);
    agg_free(&s->a);
}

int
cmd_annotate(int argc, char **argv)
{
    subcmd_common co;
    annotate_cmd ac = {.top_set = 0};
    const subcmd_spec spec = {
        usage, "h",
        "html function top base read-files python-version jobs quiet run code no-stdlib "
        "help",
        own_option, &ac};
    annotate_opts all = {.top = 0, .no_text = 1};
    const m_code_filter no_filter = {.nprefix = 0}; /* the base: every function, to match */
    char **inputs, *base_in[1];
    size_t ninputs;
    int ret, r, base_loaded = 0;
    side head, base;

    if ((r = subcmd_parse(&spec, argc, argv, &co)) >= 0)
        return r;
    co.lo.quiet = co.quiet;
    subcmd_inputs(argc, argv, &inputs, &ninputs);
    subcmd_runs(&co);
    if (!ac.top_set)
        ac.ao.top = co.html ? TOP_HTML : TOP_TEXT;
    /* A page is made to be shared: like summarize's, it shows the dumps'
     * own copies of the source unless told to read the files. */
    ac.ao.dump_text_only = co.html && !ac.read_files;
    ret = side_load(&head, inputs, ninputs, &co, &ac.ao, &ac.filter);
    if (ret == CLI_EXIT_OK && ac.base) {
        base_in[0] = (char *)ac.base;
        /* A named input, and another run: all of it (runs.h). */
        co.lo.run = "all";
        co.lo.run_given = 0;
        ret = side_load(&base, base_in, 1, &co, &all, &no_filter);
        base_loaded = 1;
        if (ret == CLI_EXIT_OK)
            annotate_against(&head.view, &base.view);
    }
    if (ret == CLI_EXIT_OK) {
        if (co.html)
            ret = subcmd_write(co.html, "page", write_html, &head.view);
        else if (annotate_text(stdout, &head.view) != 0)
            ret = CLI_EXIT_OUTPUT;
    }
    if (base_loaded)
        side_free(&base);
    side_free(&head);
    return ret;
}
