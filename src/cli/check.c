/* check.c: the checks behind `pystats check` and the trust verdict: the
 * driver.  Each file is checked while the readers read it (the observer,
 * check_file.c); check_finish() then runs the checks of the whole set,
 * one row of the table (check_table.c) each (check_set.c).
 *
 * The invariants used (docs/FORMAT.md 1.3, CPython's ceval):
 *  - one process, this collector: each execution of A is followed in its
 *    thread by at most one instruction and preceded by at most one, so
 *    sum_B pair[A][B] <= exec[A] and sum_A pair[A][B] <= exec[B]; and
 *    sum pairs = sum executions - (thread, window) starts, at least one;
 *  - native dumps of 3.11-3.13: the eval loop records one pair per counted
 *    execution, its predecessor being opcode 0 (CACHE) at each entry into
 *    the loop, so sum_A pair[A][B] == exec[B] exactly.
 */
#include "check_int.h"

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

check_set *
check_new(void)
{
    check_set *c = cli_xcalloc(1, sizeof *c);

    pthread_mutex_init(&c->lock, NULL);
    ck_observer_init(&c->obs, c);
    return c;
}

const load_observer *
check_observer(check_set *c)
{
    return &c->obs;
}

static void
file_free(ck_file *r)
{
    free(r->path);
    free(r->version);
    free(r->build);
    free(r->mode);
    free(r->collector);
    free(r->counts);
    free(r->reason);
    free(r->time_start);
    free(r->time_end);
}

void
check_free(check_set *c)
{
    size_t i, j;

    if (c == NULL)
        return;
    for (i = 0; i < c->nf; i++)
        file_free(&c->f[i]);
    free(c->f);
    for (i = 0; i < c->nis; i++) {
        free(c->is[i].file);
        free(c->is[i].text);
    }
    free(c->is);
    for (i = 0; i < c->nfd; i++) {
        ck_finding *d = c->fd[i];
        free(d->summary);
        for (j = 0; j < d->nfiles; j++)
            free(d->files[j]);
        free(d->files);
        for (j = 0; j < d->ndetails; j++)
            free(d->details[j]);
        free(d->details);
        free(d);
    }
    free(c->fd);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static int
file_cmp(const void *pa, const void *pb)
{
    return strcmp(((const ck_file *)pa)->path, ((const ck_file *)pb)->path);
}

static int
issue_cmp(const void *pa, const void *pb)
{
    const ck_issue *a = pa, *b = pb;
    int r;

    if (a->id != b->id)
        return a->id - b->id;
    if (a->severity != b->severity)
        return b->severity - a->severity;
    if ((r = strcmp(a->file, b->file)) != 0)
        return r;
    return strcmp(a->text, b->text);
}

static int
finding_cmp(const void *pa, const void *pb)
{
    const ck_finding *a = *(ck_finding *const *)pa, *b = *(ck_finding *const *)pb;

    if (a->severity != b->severity)
        return b->severity - a->severity;
    return a->id - b->id;
}

/* The driver: the findings of the issues the observer raised per file,
 * then every set check of the table, in the table's order; findings are
 * then sorted, most severe first. */
void
check_finish(check_set *c, const agg *a)
{
    size_t i;

    if (c->finished)
        return;
    c->finished = 1;
    c->nfiles = agg_files(a);
    ck_sort(c->f, c->nf, sizeof *c->f, file_cmp);
    ck_sort(c->is, c->nis, sizeof *c->is, issue_cmp);
    ck_issue_findings(c, a);
    for (i = 0; i < CK_COUNT; i++)
        if (check_info[i].run)
            check_info[i].run(c, a, (int)i, check_info[i].severity);
    ck_sort(c->fd, c->nfd, sizeof *c->fd, finding_cmp);
}

check_set *
check_load(char **inputs, size_t ninputs, const load_opts *opt, agg *out)
{
    check_set *c = check_new();

    load_inputs_observed(inputs, ninputs, opt, check_observer(c), out);
    check_finish(c, out);
    return c;
}

size_t
check_count(const check_set *c, int severity)
{
    return severity >= 0 && severity < CHECK_SEVERITY_COUNT ? c->count[severity] : 0;
}

const char *
check_verdict_word(const check_set *c)
{
    return c->count[CHECK_ERROR] ? "untrusted" : c->count[CHECK_WARNING] ? "caution" : "ok";
}

const char *
check_verdict(const check_set *c, char *buf, size_t size)
{
    size_t e = c->count[CHECK_ERROR], w = c->count[CHECK_WARNING], n = c->count[CHECK_NOTE];

    if (size == 0)
        return buf;
    if (e || w) {
        const ck_finding *d = c->fd[0]; /* most severe first */
        snprintf(buf, size, "%s: %zu %s, %zu %s, %zu %s; first: %s (%s)", check_verdict_word(c), e,
                 e == 1 ? "error" : "errors", w, w == 1 ? "warning" : "warnings", n,
                 n == 1 ? "note" : "notes", check_info[d->id].name, check_info[d->id].title);
    }
    else {
        snprintf(buf, size, "%s: no errors or warnings in %llu %s (%zu %s)", check_verdict_word(c),
                 (unsigned long long)c->nfiles, ck_plural(c->nfiles, "file", "files"), n,
                 n == 1 ? "note" : "notes");
    }
    return buf;
}

check_item *
check_items(const check_set *c, size_t *n)
{
    check_item *v = cli_xcalloc(c->nfd ? c->nfd : 1, sizeof *v);
    size_t i;

    for (i = 0; i < c->nfd; i++) {
        const ck_finding *d = c->fd[i];
        v[i].check = check_info[d->id].name;
        v[i].severity = check_severity_name[d->severity];
        v[i].level = d->severity;
        v[i].title = check_info[d->id].title;
        v[i].summary = d->summary;
        v[i].why = check_info[d->id].why;
        v[i].files = d->files;
        v[i].nfiles = d->nfiles;
        v[i].details = d->details;
        v[i].ndetails = d->ndetails;
    }
    *n = c->nfd;
    return v;
}

/* s past a leading "N file"/"N files" and the ": " after it: what
 * "in K of N files" says already. */
static const char *
past_file_count(const char *s)
{
    const char *p = s;

    while (*p >= '0' && *p <= '9')
        p++;
    if (p == s || strncmp(p, " file", 5) != 0)
        return s;
    p += 5;
    if (*p == 's')
        p++;
    if (*p == ':' && p[1] == ' ')
        return p + 2;
    return *p ? s : p;
}

/* What the first finding found and in how many files: " in K of N files
 * (WHAT)", WHAT its one detail without the file it names, or its
 * summary; ": SUMMARY" when it names no file.  N is the files read (a
 * JSON summary is one, whatever it sums); files that could not be read
 * (unreadable, empty...) are not "of" them. */
static void
first_magnitude(const check_set *c, const ck_finding *d, char *buf, size_t size)
{
    const char *what = past_file_count(d->summary);
    int uncounted = (d->id >= CK_UNREADABLE && d->id <= CK_UNSUPPORTED) || d->id == CK_HIDDEN_TMP;

    if (d->ndetails == 1 && d->nfiles == 1) {
        size_t k = strlen(d->files[0]);
        what = d->details[0];
        if (strncmp(what, d->files[0], k) == 0 && strncmp(what + k, ": ", 2) == 0)
            what += k + 2;
    }
    if (d->nfiles == 0)
        snprintf(buf, size, "%s%s", *what ? ": " : "", what);
    else if (uncounted || d->nfiles > c->nf)
        snprintf(buf, size, " in %zu %s%s%s%s", d->nfiles, ck_plural(d->nfiles, "file", "files"),
                 *what ? " (" : "", what, *what ? ")" : "");
    else
        snprintf(buf, size, " in %zu of %zu %s%s%s%s", d->nfiles, c->nf,
                 ck_plural(c->nf, "file", "files"), *what ? " (" : "", what, *what ? ")" : "");
}

const char *
check_verdict_reason(const check_set *c, char *buf, size_t size)
{
    size_t e = c->count[CHECK_ERROR], w = c->count[CHECK_WARNING], n = c->count[CHECK_NOTE];
    char what[768];

    if ((e == 0 && w == 0) || size == 0)
        return check_verdict(c, buf, size);
    first_magnitude(c, c->fd[0], what, sizeof what);
    snprintf(buf, size, "%s: %s%s; %zu %s, %zu %s, %zu %s", check_verdict_word(c),
             check_info[c->fd[0]->id].name, what, e, e == 1 ? "error" : "errors", w,
             w == 1 ? "warning" : "warnings", n, n == 1 ? "note" : "notes");
    return buf;
}
