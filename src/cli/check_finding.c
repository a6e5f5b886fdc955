/* check_finding.c: what the checks build: issues raised per file,
 * findings (a check that fired, its files and details) and the small
 * text helpers the checks share, and the startup instructions the
 * per-file and the set checks both name. */
#include "check_int.h"

#include "cli.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const check_leak_ops[CK_NLEAK] = {
    "IMPORT_NAME",       "IMPORT_FROM", "IMPORT_STAR", "LOAD_BUILD_CLASS",
    "SETUP_ANNOTATIONS", "LOAD_NAME",   "STORE_NAME",  "DELETE_NAME",
};

char *
ck_xprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    s = cli_xmalloc((size_t)(n < 0 ? 0 : n) + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    va_end(ap);
    return s;
}

void
ck_add_issue(check_set *c, int id, int severity, const char *file, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    ck_issue *is;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&c->lock);
    if (c->nis == c->is_cap) {
        c->is_cap = c->is_cap ? c->is_cap * 2 : 64;
        c->is = cli_xrealloc(c->is, c->is_cap * sizeof *c->is);
    }
    is = &c->is[c->nis++];
    is->id = id;
    is->severity = severity;
    is->file = cli_xstrdup(file);
    is->text = cli_xstrdup(text);
    pthread_mutex_unlock(&c->lock);
}

ck_finding *
ck_new_finding(check_set *c, int id, int severity, const char *fmt, ...)
{
    ck_finding *d;
    char text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (c->nfd == c->fd_cap) {
        c->fd_cap = c->fd_cap ? c->fd_cap * 2 : 16;
        c->fd = cli_xrealloc(c->fd, c->fd_cap * sizeof *c->fd);
    }
    d = cli_xcalloc(1, sizeof *d);
    c->fd[c->nfd++] = d;
    d->id = id;
    d->severity = severity;
    d->summary = cli_xstrdup(text);
    c->count[severity]++;
    return d;
}

void
ck_finding_file(ck_finding *d, const char *path)
{
    if (d->nfiles && strcmp(d->files[d->nfiles - 1], path) == 0)
        return;
    d->files = cli_xrealloc(d->files, (d->nfiles + 1) * sizeof *d->files);
    d->files[d->nfiles++] = cli_xstrdup(path);
}

void
ck_finding_detail(ck_finding *d, char *owned)
{
    d->details = cli_xrealloc(d->details, (d->ndetails + 1) * sizeof *d->details);
    d->details[d->ndetails++] = owned;
}

/* qsort, which must not be given a NULL array even when it is empty. */
void
ck_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

const char *
ck_plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Distinct values of one property over the files. */
void
ck_tally(agg_strs *s, const char *v, uint64_t n)
{
    agg_strs_add(s, v, strlen(v), n);
}

void
ck_lazy_add(ck_lazy *l, const ck_file *r, char *detail)
{
    if (l->d == NULL)
        l->d = ck_new_finding(l->c, l->id, l->severity, "%s", "");
    ck_finding_file(l->d, r->path);
    if (detail)
        ck_finding_detail(l->d, detail);
    l->files += r->nfiles;
}

void
ck_lazy_done(ck_lazy *l, const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    if (l->d == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    free(l->d->summary);
    l->d->summary = ck_xprintf("%llu %s%s%s", (unsigned long long)l->files,
                               ck_plural(l->files, "file", "files"), *text ? ": " : "", text);
}
