/* suggest.c: "did you mean" (suggest.h). */
#include "suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

size_t
suggest_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b), i, j, r;
    size_t *d, *row[3];
    d = cli_xmalloc(3 * (m + 1) * sizeof *d);
    row[0] = d;         /* i - 2 */
    row[1] = d + m + 1; /* i - 1 */
    row[2] = d + 2 * (m + 1);
    for (j = 0; j <= m; j++)
        row[1][j] = j;
    for (i = 1; i <= n; i++) {
        size_t *cur = row[2], *prev = row[1], *pp = row[0];
        cur[0] = i;
        for (j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = prev[j - 1] + cost;
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            cur[j] = v;
        }
        row[0] = prev;
        row[1] = cur;
        row[2] = pp;
    }
    r = row[1][m];
    free(d);
    return r;
}

const char *
suggest(const char *word, const char *const *cand, size_t n)
{
    const char *best = NULL, *prefix_of = NULL;
    size_t i, best_d = (size_t)-1, wlen = strlen(word), prefixes = 0;
    if (wlen == 0)
        return NULL;
    for (i = 0; i < n; i++) {
        size_t d = suggest_distance(word, cand[i]), len = strlen(cand[i]);
        size_t longer = len > wlen ? len : wlen;
        if (strncmp(cand[i], word, wlen) == 0) {
            prefixes++;
            prefix_of = cand[i];
        }
        if (d == 0)
            return NULL; /* it is a candidate: nothing to suggest */
        if (d * 3 <= longer && d < best_d) {
            best = cand[i];
            best_d = d;
        }
    }
    if (best == NULL && prefixes == 1)
        return prefix_of;
    return best;
}

const char *
suggest_option(const char *word, const struct option *opts)
{
    const char *names[256];
    char buf[128];
    size_t n = 0, len;
    const char *eq;
    if (strncmp(word, "--", 2) == 0)
        word += 2;
    eq = strchr(word, '=');
    len = eq ? (size_t)(eq - word) : strlen(word);
    if (len >= sizeof buf)
        return NULL;
    memcpy(buf, word, len);
    buf[len] = '\0';
    for (; opts->name != NULL && n < sizeof names / sizeof names[0]; opts++)
        names[n++] = opts->name;
    return suggest(buf, names, n);
}

int
suggest_after_getopt(const char *cmd, char **argv, int optind_now, const struct option *opts)
{
    const char *word, *hint;
    if (optind_now < 1)
        return 0;
    word = argv[optind_now - 1];
    if (word == NULL || strncmp(word, "--", 2) != 0 || word[2] == '\0')
        return 0;
    hint = suggest_option(word, opts);
    if (hint == NULL)
        return 0;
    fprintf(stderr, "pystats %s: did you mean '--%s'?\n", cmd, hint);
    return 1;
}
