/* load.c: reading dump files into an aggregate on several threads. */
#include "load.h"
#include "read.h"
#include "runs.h"

#include "cli.h"
#include "text.h"
#include "../format/psf_keys.h"
#include "../format/psf_detect.h"
#include "../format/psf_key.h"
#include "../format/psf_line.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOBS_MAX 4

/* The largest input file read, in bytes (docs/CLI.md, "Problems"): real
 * dumps are tens of MB, and --jobs reads several at once, so one huge or
 * sparse file planted in a shared directory must not take the memory
 * every other file needs.  PYSTATS_MAX_FILE_SIZE overrides it. */
#define MAX_FILE_DEFAULT ((uint64_t)1 << 30)

static uint64_t max_file = MAX_FILE_DEFAULT;

/* PYSTATS_MAX_FILE_SIZE: bytes, or a number with K, M or G (powers of
 * 1024).  0, or -1 and an error on stderr when it is none of these. */
static int
max_file_from_env(void)
{
    const char *s = getenv("PYSTATS_MAX_FILE_SIZE");
    uint64_t n = 0, unit = 1;
    const char *p;

    max_file = MAX_FILE_DEFAULT;
    if (s == NULL || *s == '\0')
        return 0;
    for (p = s; *p >= '0' && *p <= '9'; p++) {
        if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            break;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    if (*p == 'K' || *p == 'k')
        unit = (uint64_t)1 << 10, p++;
    else if (*p == 'M' || *p == 'm')
        unit = (uint64_t)1 << 20, p++;
    else if (*p == 'G' || *p == 'g')
        unit = (uint64_t)1 << 30, p++;
    if (p == s || *p != '\0' || n == 0 || n > UINT64_MAX / unit) {
        fputs("pystats: error: PYSTATS_MAX_FILE_SIZE='", stderr);
        cli_fput_esc(stderr, s);
        fputs("' is not a size (bytes, or a number with K, M or G)\n", stderr);
        return -1;
    }
    max_file = n * unit;
    return 0;
}

static void
too_large(ingest_worker *w, const char *path, uint64_t size)
{
    agg_problem(&w->a, AGG_P_UNREADABLE, path, 0,
                "too large: %" PRIu64 " bytes, over the limit of %" PRIu64
                " (PYSTATS_MAX_FILE_SIZE); skipped",
                size, max_file);
}

static const char *
file_kind(mode_t m)
{
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
           : S_ISDIR(m)  ? "a directory"
                         : "not a file";
}

static unsigned long
line_of(const char *buf, const char *p)
{
    unsigned long n = 1;

    for (; buf < p; buf++)
        n += *buf == '\n';
    return n;
}

void
load_bytes(ingest_worker *w, const char *path, char *buf, size_t n)
{
    const char *p, *z;

    /* A UTF-8 byte order mark (some editors write one) is not content. */
    if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        buf += 3;
        n -= 3;
    }
    if (n == 0) {
        agg_problem(&w->a, AGG_P_EMPTY, path, 0, "empty file, not counted");
        return;
    }
    if ((z = memchr(buf, '\0', n)) != NULL) {
        agg_problem(&w->a, AGG_P_BINARY, path, line_of(buf, z),
                    "binary data (NUL byte), file not counted");
        return;
    }
    for (p = buf; p < buf + n && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'); p++)
        ;
    if (p < buf + n && *p == '{')
        read_json(w, path, buf, n);
    else
        read_text(w, path, buf, n);
}

/* Whether the file at path (st: its descriptor's stat) is the reader's
 * by the collector's own rule (FORMAT.md 1.5): it, and the link that
 * named it, owned by the reader or root and not writable by others, in a
 * directory owned by the reader or root that others cannot write into
 * unless its sticky bit keeps them from replacing what is not theirs
 * (the directory of the link, and of the file it leads to).
 * Anything else could have been written by another user: a dump of it
 * may name any file as its source, and such a file is never read on its
 * behalf (annotate.c). */
static int
dir_vouched(const char *path, uid_t me)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    struct stat ds;
    int ok;

    if (slash == NULL)
        dir = cli_xstrdup(".");
    else if (slash == path)
        dir = cli_xstrdup("/");
    else
        dir = cli_xstrndup(path, (size_t)(slash - path));
    ok = stat(dir, &ds) == 0 && (ds.st_uid == me || ds.st_uid == 0) &&
         (!(ds.st_mode & S_IWOTH) || (ds.st_mode & S_ISVTX));
    free(dir);
    return ok;
}

static int
vouched(const char *path, const struct stat *st)
{
    uid_t me = geteuid();
    struct stat ls;
    char *real;
    int ok;

    if ((st->st_uid != me && st->st_uid != 0) || (st->st_mode & S_IWOTH))
        return 0;
    if (lstat(path, &ls) != 0 || (ls.st_uid != me && ls.st_uid != 0) || !dir_vouched(path, me))
        return 0;
    if (!S_ISLNK(ls.st_mode))
        return 1;
    real = realpath(path, NULL);
    ok = real != NULL && dir_vouched(real, me);
    free(real);
    return ok;
}

static void
do_file(ingest_worker *w, const char *path)
{
    struct stat st;
    size_t n = 0;
    ssize_t r;
    int fd;

    w->a.inputs++;
    /* Only regular files are read: a FIFO (or a device) in a shared
     * directory would block the reader forever.  Decided before opening,
     * and again on the descriptor, opened so that the open itself never
     * blocks (a FIFO swapped in between). */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "not a regular file (%s), skipped",
                    file_kind(st.st_mode));
        return;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "cannot open: %s", strerror(errno));
        return;
    }
    if (fstat(fd, &st) != 0) {
        agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "cannot stat: %s", strerror(errno));
        close(fd);
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "not a regular file (%s), skipped",
                    file_kind(st.st_mode));
        close(fd);
        return;
    }
    if ((uint64_t)st.st_size > max_file) {
        too_large(w, path, (uint64_t)st.st_size);
        close(fd);
        return;
    }
    for (;;) {
        if (n > max_file) {
            /* It grew while being read. */
            too_large(w, path, n);
            close(fd);
            return;
        }
        if (w->buf_cap < n + 65536 + 1 || w->buf_cap < (size_t)st.st_size + 2) {
            size_t cap = w->buf_cap ? w->buf_cap : 262144;
            while (cap < n + 65536 + 1 || cap < (size_t)st.st_size + 2)
                cap *= 2;
            w->buf = cli_xrealloc(w->buf, cap);
            w->buf_cap = cap;
        }
        r = read(fd, w->buf + n, w->buf_cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            agg_problem(&w->a, AGG_P_UNREADABLE, path, 0, "read error: %s", strerror(errno));
            close(fd);
            return;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    w->buf[n] = '\0';
    w->vouched = vouched(path, &st);
    load_bytes(w, path, w->buf, n);
    w->vouched = 0;
}

/* ---- inputs and threads --------------------------------------------- */

typedef struct file_list {
    char **path;        /* owned */
    unsigned long *uid; /* per path: its owner if foreign_file() is to be
                         * said of it (after pick_run()), else 0 */
    size_t n, cap;
} file_list;

static void
list_add(file_list *l, char *path)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->path = cli_xrealloc(l->path, l->cap * sizeof *l->path);
        l->uid = cli_xrealloc(l->uid, l->cap * sizeof *l->uid);
    }
    l->uid[l->n] = 0;
    l->path[l->n++] = path;
}

static int
str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file in a directory others can write, owned by neither the user nor
 * root (a shared /tmp/py_stats): said, then read as any other. */
static void
foreign_file(const char *path, unsigned long uid, agg *a, const load_observer *obs)
{
    if (!a->quiet) {
        flockfile(stderr); /* one line whole, whatever other readers say */
        fputs("pystats: warning: ", stderr);
        cli_fput_esc(stderr, path);
        fprintf(stderr,
                ": owned by uid %lu, not by you or root, in a directory others can write: "
                "anyone could have written it\n",
                uid);
        funlockfile(stderr);
    }
    if (obs && obs->foreign)
        obs->foreign(obs->ctx, path, uid);
}

/* Every non-hidden entry of dir that is not a directory, sorted by name
 * (hidden names are the writers' temporary files: told to the observer,
 * never read). */
static int
list_dir(file_list *l, const char *dir, agg *a, const load_observer *obs)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t first = l->n, dlen = strlen(dir), i;
    struct stat st;
    int shared;

    if (d == NULL) {
        if (errno == ENOMEM)
            cli_oom();
        agg_problem(a, AGG_P_UNREADABLE, dir, 0, "cannot list directory: %s", strerror(errno));
        return -1;
    }
    shared = fstat(dirfd(d), &st) == 0 && (st.st_mode & S_IWOTH);
    while ((e = readdir(d)) != NULL) {
        size_t nlen = strlen(e->d_name), size = dlen + nlen + 2;
        int hidden = e->d_name[0] == '.';
        char *path;
        if (hidden &&
            !(obs && obs->hidden && nlen > 5 && strcmp(e->d_name + nlen - 4, ".tmp") == 0))
            continue;
        path = cli_xmalloc(size);
        snprintf(path, size, "%s%s%s", dir, (dlen && dir[dlen - 1] == '/') ? "" : "/", e->d_name);
        if (hidden) {
            obs->hidden(obs->ctx, path); /* a writer's temporary */
            free(path);
            continue;
        }
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            free(path);
            continue;
        }
        list_add(l, path);
    }
    closedir(d);
    if (l->n - first > 1) /* never qsort(NULL, 0): an empty directory */
        qsort(l->path + first, l->n - first, sizeof *l->path, str_cmp);
    /* Who put each entry there (lstat: a link's own owner); said once
     * the files to read are known (load_inputs_observed). */
    for (i = first; shared && i < l->n; i++)
        if (lstat(l->path[i], &st) == 0 && st.st_uid != geteuid() && st.st_uid != 0)
            l->uid[i] = (unsigned long)st.st_uid;
    return 0;
}

typedef struct pool {
    ingest_worker *w;
    file_list *files;
    atomic_size_t next;
} pool;

typedef struct thread_arg {
    pool *p;
    ingest_worker *w;
} thread_arg;

static void *
thread_main(void *arg)
{
    thread_arg *t = arg;
    size_t i;

    while ((i = atomic_fetch_add(&t->p->next, 1)) < t->p->files->n)
        do_file(t->w, t->p->files->path[i]);
    return NULL;
}


/* Keep, of files, those of the run opt->run selects (runs.h).  Returns
 * 0, or -1 when it names no run (said on stderr). */
static int
pick_run(file_list *files, char **inputs, size_t ninputs, const load_opts *opt)
{
    unsigned char *keep = cli_xcalloc(files->n ? files->n : 1, 1);
    size_t i, k = 0;
    char where[64];
    int r;

    if (ninputs != 1)
        snprintf(where, sizeof where, "the %zu inputs", ninputs);
    r = runs_select(files->path, files->n, opt->run, opt->run_given, opt->run_quiet,
                    ninputs == 1 ? inputs[0] : where, keep);
    for (i = 0; i < files->n; i++) {
        if (keep[i]) {
            files->uid[k] = files->uid[i];
            files->path[k++] = files->path[i];
        }
        else
            free(files->path[i]);
    }
    files->n = k;
    free(keep);
    return r;
}

int
load_inputs(char **inputs, size_t ninputs, const load_opts *opt, agg *out)
{
    return load_inputs_observed(inputs, ninputs, opt, NULL, out);
}

int
load_inputs_observed(char **inputs, size_t ninputs, const load_opts *opt, const load_observer *obs,
                     agg *out)
{
    int ret = 0;
    file_list files = {0};
    ingest_worker *w = NULL;
    thread_arg *args = NULL;
    pthread_t *tid = NULL;
    pool p;
    size_t i, jobs, started = 0;
    struct stat st;
    atomic_uint_fast64_t total;

    if (max_file_from_env() != 0)
        exit(CLI_EXIT_USAGE);
    agg_init(out);
    out->quiet = opt->quiet;
    ingest_observe_problems(out, obs);
    for (i = 0; i < ninputs; i++) {
        if (stat(inputs[i], &st) != 0) {
            agg_problem(out, AGG_P_UNREADABLE, inputs[i], 0, "cannot open: %s", strerror(errno));
            ret = -1;
        }
        else if (S_ISDIR(st.st_mode)) {
            if (list_dir(&files, inputs[i], out, obs) != 0)
                ret = -1;
        }
        else {
            list_add(&files, cli_xstrdup(inputs[i]));
        }
    }
    if (opt->run && pick_run(&files, inputs, ninputs, opt) != 0)
        exit(CLI_EXIT_USAGE);
    for (i = 0; i < files.n; i++)
        if (files.uid[i])
            foreign_file(files.path[i], files.uid[i], out, obs);
    jobs = opt->jobs > 0 ? (size_t)opt->jobs : (size_t)sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1)
        jobs = 1;
    if (opt->jobs <= 0 && jobs > JOBS_MAX)
        jobs = JOBS_MAX;
    if (jobs > files.n)
        jobs = files.n ? files.n : 1;
    w = cli_xcalloc(jobs, sizeof *w);
    args = cli_xcalloc(jobs, sizeof *args);
    tid = cli_xcalloc(jobs, sizeof *tid);
    p.w = w;
    p.files = &files;
    atomic_init(&p.next, 0);
    atomic_init(&total, 0);
    for (i = 0; i < jobs; i++) {
        ingest_init(&w[i], opt, obs);
        w[i].total = &total;
        args[i].p = &p;
        args[i].w = &w[i];
    }
    /* Thread 0 is this thread; the others are helpers. */
    for (i = 1; i < jobs; i++) {
        if (pthread_create(&tid[i], NULL, thread_main, &args[i]) != 0)
            break;
        started++;
    }
    thread_main(&args[0]);
    for (i = 1; i <= started; i++)
        pthread_join(tid[i], NULL);
    for (i = 0; i < jobs; i++) {
        agg_merge(out, &w[i].a);
        ingest_free(&w[i]);
    }
    out->on_problem = NULL;
    for (i = 0; i < files.n; i++)
        free(files.path[i]);
    free(files.path);
    free(files.uid);
    free(w);
    free(args);
    free(tid);
    return ret;
}
