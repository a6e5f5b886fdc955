/* subcmd.h: the plumbing every subcommand shares: the common options,
 * the default input, writing a report whole.
 *
 * Every option of every subcommand is one row of subcmd.c's table (its
 * name, whether it takes a value, its getopt value), so that a common
 * option is spelled, and means, the same everywhere.  A subcommand names
 * the options it takes, in the order getopt_long is to see them, and
 * hands subcmd_parse() a function for its own.  Then subcmd_inputs() gives its operands (or the
 * default directory) and subcmd_write() writes each report it was asked for.
 */
#ifndef SUBCMD_H
#define SUBCMD_H

#include "load.h"

#include <getopt.h> /* optind, for the operands */
#include <stddef.h>
#include <stdio.h>

/* getopt_long values of the common options (above any character). */
enum subcmd_opt {
    SUBCMD_O_JSON = 0x100, /* --json FILE */
    SUBCMD_O_MARKDOWN,     /* --markdown FILE */
    SUBCMD_O_HTML,         /* --html FILE */
    SUBCMD_O_STRICT,       /* --strict */
    SUBCMD_O_VERSION,      /* --python-version X.Y */
    SUBCMD_O_JOBS,         /* --jobs N */
    SUBCMD_O_QUIET,        /* --quiet */
    SUBCMD_O_RUN,          /* --run newest|all|ID */
    SUBCMD_O_MD_STYLE,     /* --md-style auto|markdown|terminal */
    SUBCMD_O_HELP          /* --help, -h */
};

/* The largest --jobs (reader threads) and --top-* row count. */
#define SUBCMD_JOBS_MAX 1024
#define SUBCMD_ROWS_MAX 1000000

/* What the common options said.  lo carries --python-version and
 * --jobs; --quiet is "less on the terminal": each subcommand says what
 * it leaves out. */
typedef struct subcmd_common {
    const char *json, *markdown, *html; /* report paths ("-": stdout) */
    int strict, quiet;
    load_opts lo;
} subcmd_common;

typedef struct subcmd_spec {
    const char *usage;     /* --help text */
    const char *shortopts; /* getopt's ("h", "+ho:") */
    const char *options;   /* "json strict all-files ...": the
                            * names of its long options */
    /* One of the subcommand's own options: 0, or a cli_exit to stop with
     * (having said why on stderr). */
    int (*own)(void *ctx, int c, const char *arg);
    void *ctx;
} subcmd_spec;

/* --code PREFIX of summarize and run: arg added to f's prefixes, kept in
 * slots (SUBCMD_CODE_PREFIXES of them).  0, or CLI_EXIT_USAGE after
 * saying why (an empty prefix, too many). */
#define SUBCMD_CODE_PREFIXES 16
struct m_code_filter;
int subcmd_code_prefix(struct m_code_filter *f, const char **slots, const char *arg);

/* Parse argv (argv[0] the subcommand) into co (zeroed here).  Returns
 * -1 when the subcommand is to go on, with optind at its first operand;
 * else the exit status to return: CLI_EXIT_OK after --help, or
 * CLI_EXIT_USAGE after saying what is wrong. */
int subcmd_parse(const subcmd_spec *s, int argc, char **argv, subcmd_common *co);

/* The operands after the options, or the collector's default directory
 * for this user (PYSTATS_TMPDIR/py_stats, or py_stats-UID when another
 * user owns that) when there are none. */
void subcmd_inputs(int argc, char **argv, char ***inputs, size_t *ninputs);

/* After subcmd_inputs(): the run to read where --run did not say
 * (runs.h): the newest of the default directory, every run of inputs
 * named; and whether to say how the files group (not with --quiet). */
void subcmd_runs(subcmd_common *co);

/* Write one output whole (outfile.h): fn(out, ctx) returns 0, or -1
 * with errno set.  noun names it in errors ("report": "cannot create
 * report"; NULL: "cannot create").  Returns a cli_exit. */
int subcmd_write(const char *path, const char *noun, int (*fn)(FILE *out, const void *ctx),
                 const void *ctx);

/* Write one report of a summary whole to path ("-": stdout). */
struct summary;
int subcmd_write_summary(const char *path, int (*render)(FILE *, const struct summary *),
                         const struct summary *s);

/* "pystats: error: no dump files found in IN ...": for no input read. */
void subcmd_say_no_files(const char *what, char **inputs, size_t ninputs);

#endif
