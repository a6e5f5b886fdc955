/* util.c: the command's allocation wrappers (one out-of-memory policy). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
oom(void)
{
    fputs("pystats: out of memory\n", stderr);
    exit(CLI_EXIT_INTERNAL);
}

void *
cli_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        oom();
    return p;
}

void *
cli_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL)
        oom();
    return p;
}

void *
cli_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (p == NULL)
        oom();
    return p;
}

char *
cli_xstrndup(const char *s, size_t n)
{
    char *d = cli_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *
cli_xstrdup(const char *s)
{
    return cli_xstrndup(s, strlen(s));
}
