/* run_cmd.c: the command `pystats run` runs: what it is (a Python, and
 * its flags; pyperf), pyperf told to pass our variables to its workers,
 * and running it to its end. */
#include "run.h"

#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *
base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* python, python3, python3.12, python3.13t, pypy3 ... */
int
run_is_python(const char *path)
{
    const char *b = base_name(path);
    return strncmp(b, "python", 6) == 0 || strncmp(b, "pypy", 4) == 0;
}

/* Python's options before the script, -c or -m: which of -E, -I, -S
 * (also inside groups such as -IS) and whether -X pystats_dir is given. */
void
run_python_flags(char **argv, int *ign_env, int *isolated, int *no_site, int *xdir)
{
    int i;

    for (i = 1; argv[i] && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (a[1] == '-') {
            if (strcmp(a, "--check-hash-based-pycs") == 0 && argv[i + 1])
                i++;
            continue;
        }
        for (a++; *a; a++) {
            if (*a == 'E')
                *ign_env = 1;
            else if (*a == 'I')
                *isolated = 1;
            else if (*a == 'S')
                *no_site = 1;
            else if (*a == 'c' || *a == 'm')
                return; /* the rest is the program's */
            else if (*a == 'W' || *a == 'X') {
                const char *v = a[1] ? a + 1 : argv[i + 1];
                if (*a == 'X' && v && strncmp(v, "pystats_dir", 11) == 0)
                    *xdir = 1;
                if (!a[1] && argv[i + 1])
                    i++;
                break;
            }
        }
    }
}

int
run_has_arg(char **argv, const char *prefix)
{
    for (; *argv; argv++)
        if (strncmp(*argv, prefix, strlen(prefix)) == 0)
            return 1;
    return 0;
}

/* Whether `pyperf` is the command or a module it runs (python -m pyperf). */
int
run_uses(char **argv, const char *name)
{
    int i;

    if (strcmp(base_name(argv[0]), name) == 0)
        return 1;
    for (i = 1; argv[i]; i++)
        if (strcmp(argv[i], "-m") == 0 && argv[i + 1] && strcmp(argv[i + 1], name) == 0)
            return 1;
    return 0;
}


/* pyperf passes its workers only the variables listed with
 * --inherit-environ (or all with --copy-env): without them, only pyperf's
 * own process, the harness, would be counted.  For `pyperf timeit|command`
 * (also `python -m pyperf ...`) add ours to the list, or the list itself;
 * returns the command to run (cmd itself, or a new owned array). */
char **
run_pyperf_environ(char **cmd, char **extra_arg)
{
    int n, p = -1, i, at = -1;
    char **out;

    for (n = 0; cmd[n]; n++)
        if (p < 0 && ((n == 0 && strcmp(base_name(cmd[0]), "pyperf") == 0) ||
                      (n > 0 && strcmp(cmd[n - 1], "-m") == 0 && strcmp(cmd[n], "pyperf") == 0)))
            p = n;
    if (p < 0 || cmd[p + 1] == NULL ||
        (strcmp(cmd[p + 1], "timeit") != 0 && strcmp(cmd[p + 1], "command") != 0))
        return cmd;
    for (i = p + 2; cmd[i] && strcmp(cmd[i], "--") != 0; i++) {
        if (strcmp(cmd[i], "--copy-env") == 0)
            return cmd;
        if (strncmp(cmd[i], "--inherit-environ", 17) == 0)
            at = i;
    }
    out = cli_xcalloc((size_t)n + 3, sizeof *out);
    if (at >= 0) {
        /* --inherit-environ=LIST or --inherit-environ LIST: extend LIST. */
        int eq = cmd[at][17] == '=';
        int vi = eq ? at : at + 1;
        const char *list = eq ? cmd[at] + 18 : cmd[vi];
        if (list == NULL)
            list = "";
        memcpy(out, cmd, (size_t)n * sizeof *out);
        *extra_arg = cli_xmalloc(strlen(list) + sizeof PYSTATS_VARS + 20);
        sprintf(*extra_arg, "%s%s%s" PYSTATS_VARS, eq ? "--inherit-environ=" : "", list,
                *list ? "," : "");
        if (cmd[vi] == NULL)
            out[n++] = *extra_arg;
        else
            out[vi] = *extra_arg;
    }
    else {
        memcpy(out, cmd, (size_t)(p + 2) * sizeof *out);
        out[p + 2] = "--inherit-environ";
        out[p + 3] = PYSTATS_VARS;
        memcpy(out + p + 4, cmd + p + 2, (size_t)(n - p - 2) * sizeof *out);
    }
    fprintf(stderr,
            "pystats run: pyperf passes its workers only the variables it is told "
            "to: running it with --inherit-environ %s\n",
            PYSTATS_VARS);
    return out;
}

/* Run cmd and wait for it.  Its exit status into *exit_code
 * (*status_known = 1), or 128 + the signal that killed it; returns 0, or
 * -1 if it could not be started. */
int
run_command(char **cmd, int *exit_code, int *status_known)
{
    struct sigaction ign, old_int, old_quit;
    pid_t pid;
    int st;

    /* Like time(1): Ctrl-C is for the command; the summary still follows. */
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        execvp(cmd[0], cmd);
        {
            int e = errno;
            fputs("pystats: error: cannot run '", stderr);
            cli_fput_esc(stderr, cmd[0]);
            fprintf(stderr, "': %s\n", strerror(e));
        }
        _exit(127);
    }
    if (pid < 0) {
        fprintf(stderr, "pystats: error: cannot start the command: %s\n", strerror(errno));
        return -1;
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    *status_known = 0;
    *exit_code = 0;
    if (WIFEXITED(st)) {
        *status_known = 1;
        *exit_code = WEXITSTATUS(st);
    }
    else if (WIFSIGNALED(st)) {
        *exit_code = 128 + WTERMSIG(st);
    }
    return 0;
}
