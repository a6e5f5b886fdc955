/* runs.c: grouping input files into runs (runs.h), from their headers. */
#include "runs.h"

#include "cli.h"
#include "../format/psf_keys.h"
#include "../format/psf_line.h"
#include "../format/psf_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEAD_MAX 65536
#define HEAD_STEP 8192
#define RUN_ID_MAX 64
#define WHEN_MAX 32
/* Runs named in one line, past the one read. */
#define SAY_MAX 4

enum rf_kind { RF_OTHER, RF_OWN, RF_NATIVE };
enum run_kind { RUN_ID, RUN_TREE, RUN_NATIVE };

typedef struct run_file {
    int kind;                /* enum rf_kind */
    char id[RUN_ID_MAX + 1]; /* meta.run.id, "" if none (or not valid) */
    long pid, ppid;          /* -1: not said */
    char when[WHEN_MAX];     /* last written: meta.time.end, else mtime */
    int tree;                /* id is "pid:N", a process tree's */
    int mine;                /* owned by the reader or root */
    size_t up;               /* union-find parent (the process trees) */
    size_t run;              /* its run, for RF_OWN and RF_NATIVE */
} run_file;

typedef struct run {
    int kind; /* enum run_kind */
    char id[RUN_ID_MAX + 24];
    size_t nfiles;
    char when[WHEN_MAX]; /* its newest dump's */
    size_t made;         /* its index before sort_runs() */
    int mine;            /* a dump of it is the reader's or root's */
} run;

static int
id_valid(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || n > RUN_ID_MAX)
        return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || (s[i] != '\0' && strchr("._:+-", s[i]))))
            return 0;
    return 1;
}

static long
pid_of(const psf_line *l)
{
    uint64_t v;

    return psf_parse_u64(l->val, l->val_len, &v) == PSF_NUM_OK && v <= 0x7fffffff ? (long)v : -1;
}

static int
key_is(const psf_line *l, const char *key)
{
    return l->key_len == strlen(key) && memcmp(l->key, key, l->key_len) == 0;
}

/* One header line of an own dump into f. */
static void
header_line(run_file *f, const psf_line *l)
{
    if (key_is(l, PSF_H_RUN_ID) && id_valid(l->val, l->val_len)) {
        memcpy(f->id, l->val, l->val_len);
        f->id[l->val_len] = '\0';
    }
    else if (key_is(l, PSF_H_PID))
        f->pid = pid_of(l);
    else if (key_is(l, PSF_H_PPID))
        f->ppid = pid_of(l);
    else if (key_is(l, PSF_H_TIME_END) && l->val_len > 0 && l->val_len < WHEN_MAX) {
        memcpy(f->when, l->val, l->val_len);
        f->when[l->val_len] = '\0';
    }
}

/* What the first n bytes of a file say: its kind, and for an own dump
 * its header's run, process and time.  A line cut at the end of the
 * buffer is not read.  Returns 1 when the header has ended (or the file
 * is no own dump), 0 when more bytes could say more. */
static int
parse_head(run_file *f, const char *buf, size_t n)
{
    const char *p = buf, *end = buf + n, *nl;
    int first = 1;
    psf_line l;

    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL; p = nl + 1) {
        int st = psf_line_split(p, (size_t)(nl - p), &l);
        uint64_t v;
        if (st == PSF_LINE_BLANK)
            continue;
        if (st != PSF_LINE_OK)
            return 1;
        if (first) {
            first = 0;
            if (l.header && key_is(&l, PSF_H_FORMAT))
                f->kind = RF_OWN;
            else if (!l.header && psf_parse_u64(l.val, l.val_len, &v) == PSF_NUM_OK)
                f->kind = RF_NATIVE;
            if (f->kind != RF_OWN)
                return 1;
            continue;
        }
        if (!l.header)
            return 1;
        header_line(f, &l);
    }
    return 0;
}

/* Read path's head into f (its kind stays RF_OTHER if it is no regular
 * file or cannot be read: load.c reads it and says why): HEAD_STEP bytes
 * at a time, until its header has ended or HEAD_MAX bytes. */
static void
scan_file(const char *path, run_file *f, char *buf)
{
    struct stat st;
    size_t n = 0;
    ssize_t r;
    int fd;

    memset(f, 0, sizeof *f);
    f->pid = f->ppid = -1;
    /* Never opened if not a regular file (a FIFO would block), and
     * opened so that the open itself never blocks. */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    psf_format_time(f->when, (int64_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    f->mine = st.st_uid == geteuid() || st.st_uid == 0;
    while (n < HEAD_MAX) {
        size_t want = n + HEAD_STEP <= HEAD_MAX ? HEAD_STEP : HEAD_MAX - n;
        r = read(fd, buf + n, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
        f->kind = RF_OTHER;
        if (parse_head(f, buf, n))
            break;
    }
    close(fd);
}

/* ---- process trees of own dumps without a run id ------------------- */

static size_t
find(run_file *f, size_t i)
{
    while (f[i].up != i) {
        f[i].up = f[f[i].up].up;
        i = f[i].up;
    }
    return i;
}

typedef struct pid_ix {
    long pid;
    size_t i;
} pid_ix;

static int
pid_cmp(const void *a, const void *b)
{
    const pid_ix *x = a, *y = b;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int
treeless(const run_file *f)
{
    return f->kind == RF_OWN && f->id[0] == '\0';
}

/* Whether a dump of pid is among ix[0..m) (sorted by pid). */
static const pid_ix *
pid_find(const pid_ix *ix, size_t m, long pid)
{
    size_t lo = 0, hi = m;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m && ix[lo].pid == pid ? &ix[lo] : NULL;
}

/* The dump of c's parent, if one is among ix[0..m). */
static const pid_ix *
parent_of(const run_file *c, const pid_ix *ix, size_t m)
{
    return c->ppid >= 0 && c->ppid != c->pid ? pid_find(ix, m, c->ppid) : NULL;
}

/* Join each dump without a run id to the other dumps of its pid and to
 * its parent's; name each tree by the pid of its root (the smallest
 * pid among its dumps whose parent wrote none), into f[].id. */
static void
join_trees(run_file *f, size_t n)
{
    pid_ix *ix = cli_xcalloc(n ? n : 1, sizeof *ix);
    long *root = cli_xcalloc(n ? n : 1, sizeof *root);
    const pid_ix *hit;
    size_t m = 0, i, t;

    for (i = 0; i < n; i++) {
        f[i].up = i;
        root[i] = -1;
        if (treeless(&f[i]))
            ix[m++] = (pid_ix){f[i].pid, i};
    }
    if (m > 1)
        qsort(ix, m, sizeof *ix, pid_cmp);
    for (i = 1; i < m; i++)
        if (ix[i].pid == ix[i - 1].pid)
            f[find(f, ix[i].i)].up = find(f, ix[i - 1].i);
    for (i = 0; i < m; i++)
        if ((hit = parent_of(&f[ix[i].i], ix, m)) != NULL)
            f[find(f, ix[i].i)].up = find(f, hit->i);
    for (i = 0; i < m; i++) {
        const run_file *c = &f[ix[i].i];
        t = find(f, ix[i].i);
        if (parent_of(c, ix, m) == NULL && (root[t] < 0 || c->pid < root[t]))
            root[t] = c->pid;
    }
    for (i = 0; i < m; i++) {
        t = find(f, ix[i].i);
        snprintf(f[ix[i].i].id, sizeof f[ix[i].i].id, "pid:%ld", root[t] >= 0 ? root[t] : f[t].pid);
        f[ix[i].i].tree = 1;
    }
    free(root);
    free(ix);
}

/* ---- runs ----------------------------------------------------------- */

typedef struct run_set {
    run *r;
    size_t n, cap;
} run_set;

/* The run of f (an own or native dump), added to rs if new. */
static size_t
run_of(run_set *rs, const run_file *f)
{
    int kind = f->kind == RF_NATIVE ? RUN_NATIVE : f->tree ? RUN_TREE : RUN_ID;
    const char *id = kind == RUN_NATIVE ? "native" : f->id;
    size_t i;

    for (i = 0; i < rs->n; i++)
        if (rs->r[i].kind == kind && strcmp(rs->r[i].id, id) == 0)
            break;
    if (i == rs->n) {
        if (rs->n == rs->cap) {
            rs->cap = rs->cap ? rs->cap * 2 : 8;
            rs->r = cli_xrealloc(rs->r, rs->cap * sizeof *rs->r);
        }
        memset(&rs->r[i], 0, sizeof rs->r[i]);
        rs->r[i].kind = kind;
        snprintf(rs->r[i].id, sizeof rs->r[i].id, "%s", id);
        rs->n++;
    }
    rs->r[i].nfiles++;
    rs->r[i].mine |= f->mine;
    if (strcmp(f->when, rs->r[i].when) > 0)
        memcpy(rs->r[i].when, f->when, sizeof f->when);
    return i;
}

/* Newest first (the last dump written), then by id. */
static int run_cmp(const void *a, const void *b);

/* Sort rs, and each file's run with it. */
static void
sort_runs(run_set *rs, run_file *f, size_t n)
{
    size_t *now = cli_xcalloc(rs->n ? rs->n : 1, sizeof *now), i;

    for (i = 0; i < rs->n; i++)
        rs->r[i].made = i;
    if (rs->n > 1)
        qsort(rs->r, rs->n, sizeof *rs->r, run_cmp);
    for (i = 0; i < rs->n; i++)
        now[rs->r[i].made] = i;
    for (i = 0; i < n; i++)
        if (f[i].kind != RF_OTHER)
            f[i].run = now[f[i].run];
    free(now);
}

static int
run_cmp(const void *a, const void *b)
{
    const run *x = a, *y = b;
    int c = strcmp(y->when, x->when);

    return c ? c : strcmp(x->id, y->id);
}

static void
say_run(const run *r)
{
    fputs(r->id, stderr); /* letters, digits, ._:+- only (id_valid) */
    fprintf(stderr, " (%zu ", r->nfiles);
    if (r->kind == RUN_NATIVE)
        fputs("of CPython's own dumps", stderr);
    else
        fputs(r->nfiles == 1 ? "dump" : "dumps", stderr);
    if (r->kind == RUN_TREE)
        fputs(" without a run id, grouped by pid and ppid", stderr);
    fputc(')', stderr);
}

/* The runs r[from..n) but r[skip], at most SAY_MAX of them named. */
static void
say_runs(const run_set *rs, size_t from, size_t skip)
{
    size_t i, said = 0, n = rs->n - from - (skip >= from && skip < rs->n);

    for (i = from; i < rs->n && said < SAY_MAX; i++) {
        if (i == skip)
            continue;
        if (said++)
            fputs(", ", stderr);
        say_run(&rs->r[i]);
    }
    if (n > SAY_MAX)
        fprintf(stderr, " and %zu more", n - SAY_MAX);
}

static void
say_where(const char *where)
{
    fputs("pystats: note: ", stderr);
    cli_fput_esc(stderr, where);
    fprintf(stderr, " holds ");
}

/* "2026-12-03T19:28:14.123456Z" as "2026-12-03 19:28:14 UTC". */
static void
say_when(const char *when)
{
    if (strlen(when) >= 19 && when[10] == 'T')
        fprintf(stderr, "%.10s %.8s UTC", when, when + 11);
    else
        fputs("an unknown time", stderr);
}

static void
say_newest(const run_set *rs, size_t pick, const char *where)
{
    say_where(where);
    fprintf(stderr, "%zu runs; read the newest%s, ", rs->n, pick ? " of yours" : "");
    say_run(&rs->r[pick]);
    fputs(", last written ", stderr);
    say_when(rs->r[pick].when);
    fputs("; the others: ", stderr);
    say_runs(rs, 0, pick);
    fputs("; --run ID reads another, --run all reads them together\n", stderr);
}

static void
say_all(const run_set *rs, const char *where)
{
    say_where(where);
    fprintf(stderr, "%zu runs, read together: ", rs->n);
    say_runs(rs, 0, rs->n);
    fputs("; --run newest or --run ID reads one\n", stderr);
}

/* The run named by want: its id, or the only one that starts with it.
 * Returns its index, or -1 after saying why not. */
static long
run_named(const run_set *rs, const char *want, const char *where)
{
    size_t i, len = strlen(want), nmatch = 0, match = 0;

    for (i = 0; i < rs->n; i++)
        if (strcmp(rs->r[i].id, want) == 0)
            return (long)i;
    for (i = 0; i < rs->n; i++)
        if (strncmp(rs->r[i].id, want, len) == 0 && nmatch++ == 0)
            match = i;
    if (nmatch == 1)
        return (long)match;
    fputs("pystats: error: --run ", stderr);
    cli_fput_esc(stderr, want);
    fputs(nmatch ? ": several runs in " : ": no such run in ", stderr);
    cli_fput_esc(stderr, where);
    if (rs->n == 0) {
        fputs(", which holds no dump\n", stderr);
        return -1;
    }
    fputs(nmatch ? " start with it; its runs, newest first: " : "; its runs, newest first: ",
          stderr);
    say_runs(rs, 0, rs->n);
    fputc('\n', stderr);
    return -1;
}

int
runs_select(char *const *path, size_t n, const char *want, int run_given, int quiet,
            const char *where, unsigned char *keep)
{
    run_file *f = cli_xcalloc(n ? n : 1, sizeof *f);
    char *buf = cli_xmalloc(HEAD_MAX);
    run_set rs = {0};
    size_t i;
    long pick = -1;
    int all = strcmp(want, "all") == 0, newest = strcmp(want, "newest") == 0, ret = 0;

    for (i = 0; i < n; i++)
        scan_file(path[i], &f[i], buf);
    free(buf);
    join_trees(f, n);
    for (i = 0; i < n; i++)
        if (f[i].kind != RF_OTHER)
            f[i].run = run_of(&rs, &f[i]);
    sort_runs(&rs, f, n);
    /* The newest of the reader's own runs: in a directory others can
     * write, another user's dump is never the newest merely by its
     * time. */
    if (newest && rs.n > 0)
        for (pick = 0; pick + 1 < (long)rs.n && !rs.r[pick].mine; pick++)
            ;
    if (newest && rs.n > 0 && !rs.r[pick].mine)
        pick = 0;
    else if (!all && !newest && (pick = run_named(&rs, want, where)) < 0)
        ret = -1;
    if (ret == 0 && !quiet && rs.n > 1 && (newest || (all && !run_given))) {
        if (newest)
            say_newest(&rs, (size_t)pick, where);
        else
            say_all(&rs, where);
    }
    for (i = 0; i < n; i++)
        keep[i] = f[i].kind == RF_OTHER || pick < 0 || f[i].run == (size_t)pick;
    free(rs.r);
    free(f);
    return ret;
}
