/* write_cpython_json.c: CPython's summarize_stats.py --json-output, written
 * from native dumps (write_cpython_json.h). */
#include "write_cpython_json.h"

#include "cli.h"
#include "ktab.h"
#include "subcmd.h"
#include "../format/psf_tables.h"

#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A key's sum on one thread, and where it first appeared there: the
 * thread's file ordinal and the counter's place in that file. */
typedef struct cpj_sum {
    uint64_t v;
    int over; /* the sum passed 2**64-1 */
    uint32_t file, pos;
} cpj_sum;

/* What one reading thread saw (the observer's per-thread state); kept
 * until cpj_write(), which merges them all. */
typedef struct cpj_thread {
    void *also; /* the other observer's state */
    ktab keys;  /* the script's spelling of each key -> id */
    cpj_sum *s; /* keys.n entries */
    size_t scap;
    char **path; /* the native files it read, in its order */
    size_t npath, pcap;
    uint32_t *rank; /* cpj_write(): each file's place among all files */
    struct cpj_thread *next;
} cpj_thread;

struct cpj {
    load_observer obs;
    const load_observer *also;
    pthread_mutex_t lock;
    cpj_thread *done;   /* every thread's state, once it is done */
    char *refused;      /* the first file that is not a native dump */
    int refused_format; /* its agg_format */
    char *ver_path[2];  /* the first file of a version, and the first of */
    int minor[2];       /* another version (ver_path[1] NULL: none) */
};

cpj *
cpj_new(void)
{
    cpj *c = cli_xcalloc(1, sizeof *c);

    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void
thread_free(cpj_thread *t)
{
    size_t i;

    ktab_free(&t->keys);
    free(t->s);
    for (i = 0; i < t->npath; i++)
        free(t->path[i]);
    free(t->path);
    free(t->rank);
    free(t);
}

void
cpj_free(cpj *c)
{
    cpj_thread *t, *next;

    if (c == NULL)
        return;
    for (t = c->done; t; t = next) {
        next = t->next;
        thread_free(t);
    }
    free(c->refused);
    free(c->ver_path[0]);
    free(c->ver_path[1]);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Under the lock: what the file says about the set (its kind, its
 * version).  Returns 1 if its counters are to be summed. */
static int
note_file(cpj *c, const load_file_info *f)
{
    int minor = f->g ? f->g->minor : 0, sum = 0;

    pthread_mutex_lock(&c->lock);
    if (f->format != AGG_FMT_NATIVE_TEXT) {
        if (c->refused == NULL) {
            c->refused = cli_xstrdup(f->path);
            c->refused_format = f->format;
        }
    }
    else {
        sum = 1;
        if (c->ver_path[0] == NULL) {
            c->ver_path[0] = cli_xstrdup(f->path);
            c->minor[0] = minor;
        }
        else if (minor != c->minor[0] && c->ver_path[1] == NULL) {
            c->ver_path[1] = cli_xstrdup(f->path);
            c->minor[1] = minor;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return sum;
}

/* The key as the script sums it: "uops[X" without its "_" gets one (the
 * script's own fix for older dumps). */
static const char *
script_key(const char *s, size_t n, char **buf, size_t *cap, size_t *len)
{
    if (n < 5 || memcmp(s, "uops[", 5) != 0 || (n > 5 && s[5] == '_')) {
        *len = n;
        return s;
    }
    if (*cap < n + 2) {
        *cap = n + 2;
        *buf = cli_xrealloc(*buf, *cap);
    }
    memcpy(*buf, "uops[_", 6);
    memcpy(*buf + 6, s + 5, n - 5);
    *len = n + 1;
    return *buf;
}

static void
sum_file(cpj_thread *t, const load_file_info *f)
{
    uint32_t file = (uint32_t)t->npath;
    char *buf = NULL;
    size_t cap = 0, i;

    if (t->npath == t->pcap) {
        t->pcap = t->pcap ? 2 * t->pcap : 16;
        t->path = cli_xrealloc(t->path, t->pcap * sizeof *t->path);
    }
    t->path[t->npath++] = cli_xstrdup(f->path);
    for (i = 0; i < f->nent; i++) {
        uint32_t raw = f->ent[i].raw;
        uint64_t v = f->ent[i].v;
        size_t len, id;
        int is_new;
        const char *k = script_key(ktab_key(f->raw, raw), ktab_len(f->raw, raw), &buf, &cap, &len);
        id = ktab_intern(&t->keys, k, len, &is_new);
        if (is_new) {
            if (id >= t->scap) {
                t->scap = t->scap ? 2 * t->scap : 1024;
                t->s = cli_xrealloc(t->s, t->scap * sizeof *t->s);
            }
            t->s[id] = (cpj_sum){0, 0, file, (uint32_t)i};
        }
        if (t->s[id].v > UINT64_MAX - v)
            t->s[id].over = 1;
        t->s[id].v += v;
    }
    free(buf);
}

static void
obs_file(void *ctx, void **state, const load_file_info *f)
{
    cpj *c = ctx;
    cpj_thread *t = *state;

    if (t == NULL) {
        *state = t = cli_xcalloc(1, sizeof *t);
        ktab_init(&t->keys);
    }
    if (c->also && c->also->file)
        c->also->file(c->also->ctx, &t->also, f);
    if (note_file(c, f) && f->raw)
        sum_file(t, f);
}

static void
obs_free_state(void *ctx, void *state)
{
    cpj *c = ctx;
    cpj_thread *t = state;

    if (c->also && c->also->free_state && t->also)
        c->also->free_state(c->also->ctx, t->also);
    t->also = NULL;
    pthread_mutex_lock(&c->lock);
    t->next = c->done;
    c->done = t;
    pthread_mutex_unlock(&c->lock);
}

static void
obs_problem(void *ctx, int kind, const char *file, unsigned long line, const char *msg)
{
    cpj *c = ctx;

    if (c->also && c->also->problem)
        c->also->problem(c->also->ctx, kind, file, line, msg);
}

static void
obs_hidden(void *ctx, const char *path)
{
    cpj *c = ctx;

    if (c->also && c->also->hidden)
        c->also->hidden(c->also->ctx, path);
}

static void
obs_foreign(void *ctx, const char *path, unsigned long uid)
{
    cpj *c = ctx;

    if (c->also && c->also->foreign)
        c->also->foreign(c->also->ctx, path, uid);
}

const load_observer *
cpj_observer(cpj *c, const load_observer *also)
{
    c->also = also;
    c->obs.ctx = c;
    c->obs.file = obs_file;
    c->obs.free_state = obs_free_state;
    c->obs.problem = obs_problem;
    c->obs.hidden = also && also->hidden ? obs_hidden : NULL;
    c->obs.foreign = obs_foreign;
    return &c->obs;
}

/* "pystats: error: --cpython-json: " and the rest; returns CLI_EXIT_INPUT. */
static int refuse(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
refuse(const char *path, const char *fmt, ...)
{
    va_list ap;

    fputs("pystats: error: --cpython-json: ", stderr);
    if (path) {
        cli_fput_esc(stderr, path);
        fputs(": ", stderr);
    }
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EXIT_INPUT;
}

/* Whether the files read can be written in CPython's format: 0 with the
 * version's tables in *tab, or a cli_exit (said why). */
static int
writable(const cpj *c, psf_tab_script *tab)
{
    if (c->refused && c->refused_format == AGG_FMT_OWN_TEXT)
        return refuse(c->refused,
                      "this collector's dump, not CPython's: it counts base instructions "
                      "only, which CPython's keys and summarize_stats.py would read as 0%% "
                      "specialized; only CPython's own dumps (--enable-pystats) are written "
                      "in its format (docs/CLI.md)");
    if (c->refused)
        return refuse(c->refused, "a JSON summary, not a dump: only CPython's own dumps "
                                  "(--enable-pystats) are written in its format");
    if (c->ver_path[0] == NULL)
        return refuse(NULL, "no CPython dump read");
    if (c->ver_path[1]) {
        fputs("pystats: error: --cpython-json: ", stderr);
        cli_fput_esc(stderr, c->ver_path[0]);
        fprintf(stderr, " is CPython 3.%d's, ", c->minor[0]);
        cli_fput_esc(stderr, c->ver_path[1]);
        fprintf(stderr,
                " 3.%d's: summarize_stats.py reads the dumps of one version; write each "
                "version's on its own\n",
                c->minor[1]);
        return CLI_EXIT_INPUT;
    }
    if (c->minor[0] == 0)
        return refuse(NULL, "the CPython version of the dumps is not known "
                            "(--python-version X.Y names it)");
    if (psf_tab_script_tables(c->minor[0], tab) != 0)
        return refuse(NULL,
                      "CPython 3.%d's dumps are not written: the tables its "
                      "summarize_stats.py adds (_specialized_instructions, _stats_defines, "
                      "_defines) are built in for 3.13 and 3.14 only",
                      c->minor[0]);
    return 0;
}

/* A file's place among all files read: by name, as load.c lists a
 * directory (and as the script, reading one directory, is assumed to). */
typedef struct cpj_file {
    const char *path;
    cpj_thread *t;
    size_t i;
} cpj_file;

static int
file_cmp(const void *x, const void *y)
{
    const cpj_file *a = x, *b = y;
    int r = strcmp(a->path, b->path);

    if (r)
        return r;
    if (a->t != b->t)
        return (uintptr_t)a->t < (uintptr_t)b->t ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Rank every thread's files; returns how many there are. */
static size_t
rank_files(cpj *c)
{
    size_t n = 0, k = 0, i;
    cpj_thread *t;
    cpj_file *f;

    for (t = c->done; t; t = t->next)
        n += t->npath;
    f = cli_xcalloc(n ? n : 1, sizeof *f);
    for (t = c->done; t; t = t->next) {
        t->rank = cli_xcalloc(t->npath ? t->npath : 1, sizeof *t->rank);
        for (i = 0; i < t->npath; i++)
            f[k++] = (cpj_file){t->path[i], t, i};
    }
    qsort(f, n, sizeof *f, file_cmp);
    for (i = 0; i < n; i++)
        f[i].t->rank[f[i].i] = (uint32_t)i;
    free(f);
    return n;
}

/* The merged sums: per key its total and first appearance (rank, pos). */
typedef struct cpj_merged {
    ktab keys;
    cpj_sum *s;
    size_t *order; /* key ids by first appearance */
} cpj_merged;

static int
first_cmp(const void *x, const void *y, void *ctx)
{
    const cpj_sum *s = ctx, *a = &s[*(const size_t *)x], *b = &s[*(const size_t *)y];

    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static void
merge(cpj *c, cpj_merged *m)
{
    size_t cap = 0, i, id;
    cpj_thread *t;
    int is_new;

    ktab_init(&m->keys);
    m->s = NULL;
    for (t = c->done; t; t = t->next) {
        for (i = 0; i < t->keys.n; i++) {
            cpj_sum x = t->s[i];
            x.file = t->rank[x.file];
            id = ktab_intern(&m->keys, ktab_key(&t->keys, i), ktab_len(&t->keys, i), &is_new);
            if (id >= cap) {
                cap = cap ? 2 * cap : 1024;
                m->s = cli_xrealloc(m->s, cap * sizeof *m->s);
            }
            if (is_new) {
                m->s[id] = x;
                continue;
            }
            if (m->s[id].v > UINT64_MAX - x.v)
                m->s[id].over = 1;
            m->s[id].v += x.v;
            m->s[id].over |= x.over;
            if (x.file < m->s[id].file || (x.file == m->s[id].file && x.pos < m->s[id].pos)) {
                m->s[id].file = x.file;
                m->s[id].pos = x.pos;
            }
        }
    }
    m->order = cli_xcalloc(m->keys.n ? m->keys.n : 1, sizeof *m->order);
    for (i = 0; i < m->keys.n; i++)
        m->order[i] = i;
    if (m->keys.n > 1)
        qsort_r(m->order, m->keys.n, sizeof *m->order, first_cmp, m->s);
}

static void
merged_free(cpj_merged *m)
{
    ktab_free(&m->keys);
    free(m->s);
    free(m->order);
}

static void
set_new(json_t *obj, const char *key, json_t *v)
{
    if (v == NULL || json_object_set_new(obj, key, v) != 0)
        cli_oom();
}

/* One key's sum into root: 0, or a cli_exit (said why). */
static int
put_sum(json_t *root, const cpj_merged *m, size_t id)
{
    const char *k = ktab_key(&m->keys, id);
    const cpj_sum *s = &m->s[id];

    if (s->over || s->v > (uint64_t)INT64_MAX) {
        fputs("pystats: error: --cpython-json: the sum of ", stderr);
        cli_fput_esc(stderr, k);
        fputs(" over the files is above 2**63-1, which this writer's JSON integers "
              "cannot hold\n",
              stderr);
        return CLI_EXIT_INPUT;
    }
    if (strlen(k) != ktab_len(&m->keys, id) || strcmp(k, "__nfiles__") == 0 ||
        strcmp(k, "_specialized_instructions") == 0 || strcmp(k, "_stats_defines") == 0 ||
        strcmp(k, "_defines") == 0) {
        fputs("pystats: error: --cpython-json: key ", stderr);
        cli_fput_esc(stderr, k);
        fputs(" is one of the names the script adds, or holds a NUL\n", stderr);
        return CLI_EXIT_INPUT;
    }
    if (json_object_set_new(root, k, json_integer((json_int_t)s->v)) != 0) {
        fputs("pystats: error: --cpython-json: key ", stderr);
        cli_fput_esc(stderr, k);
        fputs(" is not UTF-8: it cannot be a JSON member name\n", stderr);
        return CLI_EXIT_INPUT;
    }
    return 0;
}

/* The script's get_defines(): {value: [names in source order]}, values
 * in order of first appearance, written as JSON's string keys. */
static json_t *
defines(const psf_tab_kind *t)
{
    json_t *o = json_object(), *list;
    char num[24];

    if (o == NULL)
        cli_oom();
    for (; t && t->value >= 0; t++) {
        snprintf(num, sizeof num, "%d", t->value);
        if ((list = json_object_get(o, num)) == NULL) {
            list = json_array();
            set_new(o, num, list);
        }
        if (json_array_append_new(list, json_string(t->name)) != 0)
            cli_oom();
    }
    return o;
}

static json_t *
specialized(const psf_tab_kind *t)
{
    json_t *a = json_array();

    if (a == NULL)
        cli_oom();
    for (; t && t->value >= 0; t++)
        if (strstr(t->name, "__") == NULL && json_array_append_new(a, json_string(t->name)) != 0)
            cli_oom();
    return a;
}

/* The whole object, in the script's order: the sums (the first file's
 * keys, "__nfiles__", the keys later files added), then the tables. */
static int
build(cpj *c, const psf_tab_script *tab, json_t **out)
{
    cpj_merged m;
    size_t nfiles = rank_files(c), i;
    json_t *root = json_object();
    int nfiles_put = 0, r = 0;

    if (root == NULL)
        cli_oom();
    merge(c, &m);
    for (i = 0; i < m.keys.n && r == 0; i++) {
        size_t id = m.order[i];
        if (!nfiles_put && m.s[id].file != 0) {
            set_new(root, "__nfiles__", json_integer((json_int_t)nfiles));
            nfiles_put = 1;
        }
        r = put_sum(root, &m, id);
    }
    merged_free(&m);
    if (r != 0) {
        json_decref(root);
        return r;
    }
    if (!nfiles_put)
        set_new(root, "__nfiles__", json_integer((json_int_t)nfiles));
    set_new(root, "_specialized_instructions", specialized(tab->specialized));
    set_new(root, "_stats_defines", defines(tab->call_kinds));
    set_new(root, "_defines", defines(tab->fail_kinds));
    *out = root;
    return 0;
}

/* As Python's json.dump writes by default: ", " and ": " between items,
 * no newlines, non-ASCII escaped. */
static int
dump(FILE *out, const void *ctx)
{
    return json_dumpf((const json_t *)ctx, out, JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
}

int
cpj_write(cpj *c, const char *path)
{
    psf_tab_script tab;
    json_t *root = NULL;
    int r;

    if ((r = writable(c, &tab)) != 0 || (r = build(c, &tab, &root)) != 0)
        return r;
    r = subcmd_write(path, "CPython JSON", dump, root);
    json_decref(root);
    return r;
}
