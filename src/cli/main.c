/* main.c: the pystats command: dispatch to a subcommand, nothing else. */
#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/psf_version.h"
#include "suggest.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
} commands[] = {
    {"summarize", cmd_summarize}, {"compare", cmd_compare}, {"check", cmd_check}, {"run", cmd_run},
    {"annotate", cmd_annotate},
};

static void
usage(FILE *to)
{
    fputs("usage: pystats <command> [options]\n\ncommands:\n"
          "  summarize   summarize dumps into a Markdown, JSON or HTML report\n"
          "  compare     compare two runs (Markdown, JSON, HTML; --fail-if for CI)\n"
          "  check       every reason to distrust a set of dumps, with a verdict\n"
          "  run         run a command with collection on, then summarize and check\n"
          "  annotate    hot functions' source with exact counts per line, sites by state\n"
          "  help        this text, or 'pystats help COMMAND': that command's options\n"
          "\noptions:\n"
          "  -h, --help  this text\n"
          "  --version   the version of pystats\n"
          "\nRun 'pystats <command> --help' for a command's options.\n",
          to);
}

int
main(int argc, char **argv)
{
    size_t i;
    int ret;

    /* jansson's own allocations follow the one out-of-memory policy: a
     * document it could not build or read whole is a message and exit 4,
     * never a report with members missing or a file called invalid. */
    json_set_alloc_funcs(cli_xmalloc, free);
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("pystats %s\n", PSF_VERSION);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) {
        /* 'pystats help COMMAND' is 'pystats COMMAND --help', as git has it. */
        static char help_opt[] = "--help";
        if (argc < 3) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[2], commands[i].name) == 0) {
                char *sub[] = {argv[2], help_opt, NULL};
                return commands[i].fn(2, sub);
            }
        argv++; /* an unknown COMMAND is reported as one */
    }
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            ret = commands[i].fn(argc - 1, argv + 1);
            /* A report on a full stdout must not exit 0 (git does this too). */
            if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
                fprintf(stderr, "pystats: error: writing standard output failed\n");
                if (ret == CLI_EXIT_OK)
                    ret = CLI_EXIT_OUTPUT;
            }
            return ret;
        }
    {
        const char *names[sizeof commands / sizeof commands[0]], *hint;
        for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
            names[i] = commands[i].name;
        hint = suggest(argv[1], names, i);
        fputs("pystats: unknown command '", stderr);
        cli_fput_esc(stderr, argv[1]);
        if (hint != NULL) {
            fprintf(stderr,
                    "'; did you mean '%s'?\n"
                    "Run 'pystats --help' for the commands.\n",
                    hint);
            return CLI_EXIT_USAGE;
        }
        fputs("'\n", stderr);
    }
    usage(stderr);
    return CLI_EXIT_USAGE;
}
