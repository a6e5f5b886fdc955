/* subcmd.c: the plumbing every subcommand shares: common options,
 * default input, writing a report whole. */
#include "subcmd.h"
#include "suggest.h"

#include "cli.h"
#include "doc.h"
#include "model.h"
#include "outfile.h"
#include "../format/psf_detect.h"
#include "../format/psf_write.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Every long option of the command: the common ones (SUBCMD_O_*), then
 * each subcommand's own (its getopt value its own to interpret). */
static const struct option every_option[] = {
    {"json", required_argument, NULL, SUBCMD_O_JSON},
    {"markdown", required_argument, NULL, SUBCMD_O_MARKDOWN},
    {"html", required_argument, NULL, SUBCMD_O_HTML},
    {"strict", no_argument, NULL, SUBCMD_O_STRICT},
    {"python-version", required_argument, NULL, SUBCMD_O_VERSION},
    {"jobs", required_argument, NULL, SUBCMD_O_JOBS},
    {"quiet", no_argument, NULL, SUBCMD_O_QUIET},
    {"run", required_argument, NULL, SUBCMD_O_RUN},
    {"md-style", required_argument, NULL, SUBCMD_O_MD_STYLE},
    {"help", no_argument, NULL, SUBCMD_O_HELP},
    /* summarize */
    {"top-pairs", required_argument, NULL, 'T'},
    {"top-sites", required_argument, NULL, 'S'},
    {"by-label", no_argument, NULL, 'b'},
    {"equal-weight", no_argument, NULL, 'e'},
    {"cpython-json", required_argument, NULL, 'J'},
    {"code", required_argument, NULL, 'C'},
    {"no-stdlib", no_argument, NULL, 'N'},
    /* compare */
    {"min-change", required_argument, NULL, 'c'},
    {"top", required_argument, NULL, 'T'},
    {"fail-if", required_argument, NULL, 'f'},
    /* check */
    {"all-files", no_argument, NULL, 'a'},
    /* run */
    {"output", required_argument, NULL, 'o'},
    {"mode", required_argument, NULL, 'M'},
    {"label", required_argument, NULL, 'L'},
    /* annotate */
    {"function", required_argument, NULL, 'F'},
    {"base", required_argument, NULL, 'B'},
    {"read-files", no_argument, NULL, 'R'},
};
#define NOPTIONS (sizeof every_option / sizeof every_option[0])

/* The getopt_long table of the options named in names (space-separated,
 * in that order), into opts (NOPTIONS + 1 rows). */
static void
build_longopts(const char *names, struct option *opts)
{
    size_t n = 0, len, i;

    while (*names) {
        len = strcspn(names, " ");
        for (i = 0; i < NOPTIONS; i++)
            if (strlen(every_option[i].name) == len &&
                memcmp(every_option[i].name, names, len) == 0)
                break;
        if (i == NOPTIONS || n == NOPTIONS)
            cli_bug("no option '%.*s'", (int)len, names);
        opts[n++] = every_option[i];
        names += len;
        names += strspn(names, " ");
    }
    memset(&opts[n], 0, sizeof opts[n]);
}

/* --run newest, all, or a run's id (or the start of one): FORMAT.md
 * 1.1's characters, or "pid:N" and "native" (runs.h). */
static int
run_option(subcmd_common *co, const char *arg)
{
    size_t n = strlen(arg), ok = strspn(arg, "abcdefghijklmnopqrstuvwxyz"
                                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:+-");

    if (n == 0 || n > 64 || ok != n) {
        fputs("pystats: error: --run '", stderr);
        cli_fput_esc(stderr, arg);
        fputs("': not newest, all or a run id (letters, digits and ._:+-)\n", stderr);
        return CLI_EXIT_USAGE;
    }
    co->lo.run = arg;
    co->lo.run_given = 1;
    return 0;
}

/* --md-style auto|markdown|terminal: 0, or CLI_EXIT_USAGE. */
static int
md_style_option(const char *arg)
{
    static const char *const names[] = {"auto", "markdown", "terminal"};
    static const int styles[] = {DOC_MD_AUTO, DOC_MD_MARKDOWN, DOC_MD_TERMINAL};
    size_t i;

    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(arg, names[i]) == 0) {
            doc_md_style(styles[i]);
            return 0;
        }
    fputs("pystats: error: --md-style '", stderr);
    cli_fput_esc(stderr, arg);
    fputs("': not auto, markdown or terminal\n", stderr);
    return CLI_EXIT_USAGE;
}

/* A common option: 0, or CLI_EXIT_USAGE. */
static int
common_option(subcmd_common *co, int c, const char *arg)
{
    switch (c) {
    case SUBCMD_O_JSON:
        co->json = arg;
        return 0;
    case SUBCMD_O_MARKDOWN:
        co->markdown = arg;
        return 0;
    case SUBCMD_O_HTML:
        co->html = arg;
        return 0;
    case SUBCMD_O_STRICT:
        co->strict = 1;
        return 0;
    case SUBCMD_O_QUIET:
        co->quiet = 1;
        return 0;
    case SUBCMD_O_RUN:
        return run_option(co, arg);
    case SUBCMD_O_MD_STYLE:
        return md_style_option(arg);
    case SUBCMD_O_VERSION:
        return cli_opt_version(arg, &co->lo.force_minor) < 0 ? CLI_EXIT_USAGE : 0;
    case SUBCMD_O_JOBS:
        return cli_opt_count("jobs", arg, SUBCMD_JOBS_MAX, &co->lo.jobs) < 0 ? CLI_EXIT_USAGE : 0;
    default:
        return CLI_EXIT_USAGE;
    }
}

int
subcmd_parse(const subcmd_spec *s, int argc, char **argv, subcmd_common *co)
{
    struct option longopts[NOPTIONS + 1];
    int c, r;

    memset(co, 0, sizeof *co);
    build_longopts(s->options, longopts);
    optind = 1;
    while ((c = getopt_long(argc, argv, s->shortopts, longopts, NULL)) != -1) {
        if (c == 'h' || c == SUBCMD_O_HELP) {
            fputs(s->usage, stdout);
            return CLI_EXIT_OK;
        }
        if (c == '?' || c == ':') {
            /* getopt_long said what is wrong; a close option name, if
             * any, instead of the whole usage. */
            if (c == '?' && suggest_after_getopt(argv[0], argv, optind, longopts)) {
                fprintf(stderr, "Run 'pystats %s --help' for its options.\n", argv[0]);
                return CLI_EXIT_USAGE;
            }
            fputs(s->usage, stderr);
            return CLI_EXIT_USAGE;
        }
        if (c >= SUBCMD_O_JSON && c < SUBCMD_O_HELP)
            r = common_option(co, c, optarg);
        else
            r = s->own ? s->own(s->ctx, c, optarg) : CLI_EXIT_USAGE;
        if (r != 0)
            return r;
    }
    return -1;
}

/* Whether the inputs are the collector's default directory, no INPUT
 * given: where that is missing, the collector never wrote. */
static int inputs_defaulted;

void
subcmd_inputs(int argc, char **argv, char ***inputs, size_t *ninputs)
{
    static char default_dir[PSF_PATH_MAX], *default_input[] = {default_dir};

    *inputs = argv + optind;
    *ninputs = (size_t)(argc - optind);
    if (*ninputs == 0) {
        psf_default_dir(getenv("PYSTATS_TMPDIR"), default_dir, sizeof default_dir);
        *inputs = default_input;
        *ninputs = 1;
        inputs_defaulted = 1;
    }
}

void
subcmd_runs(subcmd_common *co)
{
    if (co->lo.run == NULL)
        co->lo.run = inputs_defaulted ? "newest" : "all";
    co->lo.run_quiet = co->quiet;
}

int
subcmd_write(const char *path, const char *noun, int (*fn)(FILE *out, const void *ctx),
             const void *ctx)
{
    const char *sp = noun ? " " : "", *nn = noun ? noun : "";
    outfile o;

    if (outfile_open(&o, path) != 0) {
        int e = errno;
        fputs("pystats: error: ", stderr);
        cli_fput_esc(stderr, path);
        fprintf(stderr, ": cannot create%s%s: %s\n", sp, nn, strerror(e));
        return CLI_EXIT_OUTPUT;
    }
    errno = 0;
    if (fn(o.fp, ctx) != 0) {
        int e = errno;
        outfile_abort(&o);
        fputs("pystats: error: ", stderr);
        cli_fput_esc(stderr, path);
        fprintf(stderr, ": writing%s%s failed: %s\n", sp, nn, strerror(e ? e : EIO));
        return CLI_EXIT_OUTPUT;
    }
    if (outfile_commit(&o) != 0) {
        int e = errno;
        fputs("pystats: error: ", stderr);
        cli_fput_esc(stderr, path);
        fprintf(stderr, ": writing%s%s failed: %s\n", sp, nn, strerror(e));
        return CLI_EXIT_OUTPUT;
    }
    return CLI_EXIT_OK;
}

typedef struct report_job {
    int (*render)(FILE *, const struct summary *);
    const struct summary *s;
} report_job;

static int
write_job(FILE *out, const void *ctx)
{
    const report_job *j = ctx;
    return j->render(out, j->s);
}

int
subcmd_write_summary(const char *path, int (*render)(FILE *, const struct summary *),
                     const struct summary *s)
{
    report_job j = {render, s};
    return subcmd_write(path, "report", write_job, &j);
}

/* What an input that gave no dump is: absent, not a directory, an empty
 * directory, or one holding files none of which is a dump.  Only an
 * empty directory (or none given: the default) points at a collector
 * that wrote nothing; the other cases have their own cause. */
enum no_files_why { NF_ABSENT, NF_EMPTY, NF_NOT_DUMPS };

static enum no_files_why
no_files_why(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    enum no_files_why why = NF_EMPTY;

    if (stat(path, &st) != 0)
        return NF_ABSENT;
    if (!S_ISDIR(st.st_mode))
        return NF_NOT_DUMPS;
    if ((d = opendir(path)) == NULL)
        return NF_EMPTY;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            why = NF_NOT_DUMPS;
            break;
        }
    closedir(d);
    return why;
}

void
subcmd_say_no_files(const char *what, char **inputs, size_t ninputs)
{
    size_t i;
    int install_hint = ninputs == 0 || inputs_defaulted;

    fputs("pystats: error: ", stderr);
    if (what)
        fprintf(stderr, "%s: ", what);
    fputs("no dump files found in", stderr);
    for (i = 0; i < ninputs; i++) {
        fputc(' ', stderr);
        cli_fput_esc(stderr, inputs[i]);
    }
    fputc('\n', stderr);
    for (i = 0; i < ninputs && !inputs_defaulted; i++) {
        switch (no_files_why(inputs[i])) {
        case NF_ABSENT:
            fputs("pystats: hint: ", stderr);
            cli_fput_esc(stderr, inputs[i]);
            fputs(" does not exist: give a directory of dumps, a dump or a JSON summary\n", stderr);
            break;
        case NF_NOT_DUMPS:
            fputs("pystats: hint: ", stderr);
            cli_fput_esc(stderr, inputs[i]);
            fputs(" holds no dump: a dump is a text file of 'key : value' lines that the "
                  "collector (pystats.format), a CPython built with --enable-pystats, or "
                  "summarize --json wrote\n",
                  stderr);
            break;
        case NF_EMPTY:
            install_hint = 1;
            break;
        }
    }
    /* python -X pystats says nothing where the collector is not
     * installed: say it here, where the silence shows. */
    if (install_hint)
        fputs("pystats: hint: python -X pystats (or PYTHONSTATS=1) writes dumps only "
              "where the collector is installed in that interpreter: 'PYTHON -c \"import "
              "pystats_startup\"' tells; install with 'PYTHON -m pip install .' in the "
              "source tree, or 'make install PYTHON=PYTHON'\n",
              stderr);
}

int
subcmd_code_prefix(struct m_code_filter *f, const char **slots, const char *arg)
{
    if (f->nprefix == SUBCMD_CODE_PREFIXES || *arg == '\0') {
        fputs(*arg ? "pystats: error: --code: at most 16 prefixes\n"
                   : "pystats: error: --code: an empty prefix\n",
              stderr);
        return CLI_EXIT_USAGE;
    }
    slots[f->nprefix++] = arg;
    f->prefix = slots;
    return 0;
}
