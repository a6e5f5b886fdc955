/* util.c: the command's allocation wrappers (one out-of-memory policy). */
#include "cli.h"
#include "../format/psf_detect.h"

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

int
cli_opt_version(const char *arg, int *minor)
{
    *minor = psf_parse_version(arg, strlen(arg));
    if (*minor == 0) {
        fprintf(stderr, "pystats: error: --python-version wants 3.X, not '%s'\n", arg);
        return -1;
    }
    return 0;
}

int
cli_opt_count(const char *name, const char *arg, long max, int *out)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < 1 || v > max) {
        fprintf(stderr, "pystats: error: --%s wants a positive number, not '%s'\n", name, arg);
        return -1;
    }
    *out = (int)v;
    return 0;
}

void
cli_count_str(char *buf, size_t size, uint64_t n)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n), i;
    size_t j = 0;

    for (i = 0; i < len && j + 2 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[j++] = ',';
        buf[j++] = tmp[i];
    }
    buf[j] = '\0';
}
