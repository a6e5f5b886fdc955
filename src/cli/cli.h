/* cli.h: what every part of the pystats command shares: exit codes, the
 * out-of-memory policy, the subcommands. */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes of the pystats command (documented in docs/CLI.md). */
enum cli_exit {
    CLI_EXIT_OK = 0,        /* report written */
    CLI_EXIT_INPUT = 1,     /* no usable input, or --strict and input problems */
    CLI_EXIT_USAGE = 2,     /* bad command line */
    CLI_EXIT_OUTPUT = 3,    /* a report could not be written whole */
    CLI_EXIT_INTERNAL = 4,  /* out of memory, thread failure */
    CLI_EXIT_CONDITION = 5, /* compare: the --fail-if condition is true */
    CLI_EXIT_UNTRUSTED = 6, /* check: errors found (warnings with --strict) */
    CLI_EXIT_COMMAND = 7    /* run: the command failed (its status is printed) */
};

/* One policy for running out of memory: a message and CLI_EXIT_INTERNAL.
 * A summary that silently lost counts would be worse than none. */
void *cli_xmalloc(size_t n);
void *cli_xcalloc(size_t n, size_t size);
void *cli_xrealloc(void *p, size_t n);
char *cli_xstrndup(const char *s, size_t n);
char *cli_xstrdup(const char *s);
/* "pystats: out of memory" and exit CLI_EXIT_INTERNAL: for a library call
 * that failed with ENOMEM. */
void cli_oom(void);

/* A broken invariant of the command's own (never of an input): says
 * "pystats: internal error: " and the message on stderr, and exits with
 * CLI_EXIT_INTERNAL.  For the checks that stay in the release build;
 * the cheaper ones of the headers are assert()s, on with DEBUG=1. */
void cli_bug(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* a + b, or UINT64_MAX where it would wrap: the one sum of counts from
 * the inputs, which never wraps (docs/CLI.md, "Problems"). */
static inline uint64_t
cli_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Text for people: every name and value that comes from the inputs (file
 * names, keys, header values, source lines) goes through these before it
 * reaches a warning, check's text output or a report, so that no input
 * can move the cursor, retitle a terminal, fake a line of output or
 * format a report (docs/CLI.md, "Control characters").  A control
 * character (C0, DEL) or a byte that is not part of valid UTF-8 is
 * written as \xHH, a C1 control (U+0080-U+009F) as \u00HH; everything
 * else is copied.  JSON outputs carry the exact text instead.
 *
 * cli_esc: into dst (NUL-terminated, cut to fit size); returns the length
 * the whole would take, as snprintf.  cli_esc_dup: a new string.
 * cli_fput_esc: to a stream.  cli_fput_md: Markdown text: escaped so,
 * then what Markdown or HTML would read as markup (\ ` * _ < & | ~, and
 * a ] before ( [ or :) escaped with a backslash (underscores inside a
 * word, as in LOAD_ATTR or LOAD_FAST__LOAD_FAST, are left alone: they
 * cannot start emphasis), so that it renders as the text it is, in a
 * table cell too.  cli_fput_md_code: the text of a Markdown code span,
 * where a backslash is itself (CommonMark reads no escapes there): escaped
 * as cli_fput_esc does, and | as \| (a table cell ends at a bare | even
 * inside a span); 0, or -1 (nothing written) for text with a backtick,
 * which a one-backtick span cannot hold. */
size_t cli_esc(char *dst, size_t size, const char *s);
char *cli_esc_dup(const char *s);
void cli_fput_esc(FILE *out, const char *s);
void cli_fput_md(FILE *out, const char *s);
int cli_fput_md_code(FILE *out, const char *s);
/* s[0..n) as HTML text or attribute value: & < > " as entities, the
 * rest as it is (the text already made safe as above). */
void cli_fput_html(FILE *out, const char *s, size_t n);
/* Text from the inputs in HTML: made safe (cli_esc), then HTML's. */
void cli_fput_html_esc(FILE *out, const char *s);

/* n with thousands separators ("1,234,567"), cut to fit size. */
void cli_count_str(char *buf, size_t size, uint64_t n);

/* Option values shared by the subcommands.  Each returns 0, or says
 * what is wrong on stderr and returns -1 (exit with CLI_EXIT_USAGE). */
int cli_opt_version(const char *arg, int *minor); /* 3.X */
int cli_opt_count(const char *name, const char *arg, long max, int *out);

/* Subcommands: cmd_<name>(argc, argv) with argv[0] the subcommand. */
int cmd_summarize(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_annotate(int argc, char **argv);

#endif
