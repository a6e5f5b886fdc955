/* cli.h: what every part of the pystats command shares: exit codes, the
 * out-of-memory policy, the subcommands. */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdint.h>

/* Exit codes of the pystats command (documented in docs/CLI.md). */
enum cli_exit {
    CLI_EXIT_OK = 0,         /* report written */
    CLI_EXIT_INPUT = 1,      /* no usable input, or --strict and input problems */
    CLI_EXIT_USAGE = 2,      /* bad command line */
    CLI_EXIT_OUTPUT = 3,     /* a report could not be written whole */
    CLI_EXIT_INTERNAL = 4,   /* out of memory, thread failure */
    CLI_EXIT_CONDITION = 5,  /* compare: the --fail-if condition is true */
    CLI_EXIT_UNTRUSTED = 6,  /* check: errors found (warnings with --strict) */
    CLI_EXIT_COMMAND = 7     /* run: the command failed (its status is printed) */
};

/* One policy for running out of memory: a message and CLI_EXIT_INTERNAL.
 * A summary that silently lost counts would be worse than none. */
void *cli_xmalloc(size_t n);
void *cli_xcalloc(size_t n, size_t size);
void *cli_xrealloc(void *p, size_t n);
char *cli_xstrndup(const char *s, size_t n);
char *cli_xstrdup(const char *s);

/* n with thousands separators ("1,234,567"), cut to fit size. */
void cli_count_str(char *buf, size_t size, uint64_t n);

/* Option values shared by the subcommands.  Each returns 0, or says
 * what is wrong on stderr and returns -1 (exit with CLI_EXIT_USAGE). */
int cli_opt_version(const char *arg, int *minor);                  /* 3.X */
int cli_opt_count(const char *name, const char *arg, long max, int *out);

/* Subcommands: cmd_<name>(argc, argv) with argv[0] the subcommand. */
int cmd_summarize(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif
