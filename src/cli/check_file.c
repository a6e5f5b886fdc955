/* check_file.c: the per-file checks of `pystats check`: an observer of
 * the readers (load_observer) that takes in each file once, while it is
 * read, and raises an issue for what is wrong in it alone.
 *
 * Counters are classified once per distinct key and group (a per-thread
 * cache), so a file costs one pass over its counters.
 */
#include "check_int.h"

#include "cli.h"
#include "ktab.h"
#include "text.h"
#include "../format/psf_key.h"
#include "../format/psf_keys.h"
#include "../format/psf_tables.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The severity of a check's issues: its row's (check_table.c). */
#define SEV(id) (check_info[(id)].severity)

static uint64_t
mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

static uint64_t
hash64(const char *s, size_t n)
{
    uint64_t h = 0xCBF29CE484222325ull;

    while (n--)
        h = (h ^ (unsigned char)*s++) * 0x100000001B3ull;
    return mix64(h);
}

/* A growing text of at most a few items: "A (x); B (y) and 3 more". */
#define LIST_SHOW 3
typedef struct ck_list {
    char buf[600];
    size_t len, n;
} ck_list;

static void
list_add(ck_list *l, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (l->n++ >= LIST_SHOW || l->len >= sizeof l->buf - 1)
        return;
    if (l->len)
        l->len += (size_t)snprintf(l->buf + l->len, sizeof l->buf - l->len, "; ");
    if (l->len >= sizeof l->buf - 1)
        return;
    va_start(ap, fmt);
    k = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
    va_end(ap);
    l->len += k < 0 ? 0 : (size_t)k;
    if (l->len > sizeof l->buf - 1)
        l->len = sizeof l->buf - 1;
}

/* The list as text, "" if empty; valid until the next call. */
static const char *
list_text(ck_list *l)
{
    static __thread char out[700];

    if (l->n > LIST_SHOW)
        snprintf(out, sizeof out, "%s and %zu more", l->buf, l->n - LIST_SHOW);
    else
        snprintf(out, sizeof out, "%s", l->buf);
    return out;
}

enum { S_UNSEEN = 0, S_OTHER, S_EXEC, S_PAIR, S_HIT, S_SUCCESS, S_CODE, S_CODE_LINE };

typedef struct ck_slot {
    uint64_t h;   /* hash of the canonical key */
    int32_t a, b; /* op indices, -1 if none */
    uint8_t kind;
} ck_slot;

/* Slot classifications of one group of one reader thread. */
typedef struct ck_gcache {
    const agg_group *g; /* borrowed: only compared */
    ck_slot *s;         /* owned */
    size_t n;
} ck_gcache;

typedef struct ck_op {
    uint64_t exec, row, col, hit, success;
} ck_op;

/* A code object of one file: its instructions and its lines' sum. */
typedef struct ck_code {
    uint64_t instructions, lines;
    uint64_t file; /* the file (ck_tls.file) the figures are of */
    int has_lines;
} ck_code;

/* One reader thread's state. */
typedef struct ck_tls {
    ktab names; /* instruction name -> index into op */
    ck_op *op;  /* owned, per file */
    size_t op_cap;
    ktab codes;    /* code key -> index into code */
    ck_code *code; /* owned, per file */
    size_t code_cap;
    uint64_t file;    /* files analysed so far: the current one's number */
    int32_t *touched; /* owned: the codes of the current file */
    size_t ntouched, touched_cap;
    ck_gcache *gc; /* owned */
    size_t ngc;
} ck_tls;

/* The id of name s in names, the array *arr (of *cap elements of size
 * elem, zeroed when grown) long enough to hold it. */
static int32_t
name_slot(ktab *names, const char *s, size_t n, void **arr, size_t *cap, size_t elem)
{
    int is_new;
    size_t id = ktab_intern(names, s, n, &is_new);

    if (id >= *cap) {
        size_t c = *cap ? *cap * 2 : 256, old = *cap;
        while (c <= id)
            c *= 2;
        *arr = cli_xrealloc(*arr, c * elem);
        memset((char *)*arr + old * elem, 0, (c - old) * elem);
        *cap = c;
    }
    return (int32_t)id;
}

static int32_t
op_index(ck_tls *t, const char *s, size_t n)
{
    return name_slot(&t->names, s, n, (void **)&t->op, &t->op_cap, sizeof *t->op);
}

static int32_t
code_index(ck_tls *t, const char *s, size_t n)
{
    return name_slot(&t->codes, s, n, (void **)&t->code, &t->code_cap, sizeof *t->code);
}

/* The slot classifications of group g, covering every slot it has. */
static ck_gcache *
group_cache(ck_tls *t, const agg_group *g)
{
    ck_gcache *gc = NULL;
    size_t i;

    for (i = 0; i < t->ngc; i++)
        if (t->gc[i].g == g) {
            gc = &t->gc[i];
            break;
        }
    if (gc == NULL) {
        t->gc = cli_xrealloc(t->gc, (t->ngc + 1) * sizeof *t->gc);
        gc = &t->gc[t->ngc++];
        gc->g = g;
        gc->s = NULL;
        gc->n = 0;
    }
    if (g->keys.n > gc->n) {
        gc->s = cli_xrealloc(gc->s, g->keys.n * sizeof *gc->s);
        memset(gc->s + gc->n, 0, (g->keys.n - gc->n) * sizeof *gc->s);
        gc->n = g->keys.n;
    }
    return gc;
}

/* What slot of g is, classified at its first sight. */
static inline const ck_slot *
slot_info(ck_tls *t, const agg_group *g, ck_gcache *gc, size_t slot)
{
    ck_slot *s = &gc->s[slot];

    if (s->kind == S_UNSEEN) {
        const char *key = ktab_key(&g->keys, slot);
        size_t klen = ktab_len(&g->keys, slot);
        psf_key k;

        agg_key_of(g, slot, &k);
        s->h = hash64(key, klen);
        s->a = s->b = -1;
        s->kind = S_OTHER;
        switch (k.kind) {
        case PSF_K_OP_EXEC:
            s->kind = S_EXEC;
            s->a = op_index(t, k.a, k.a_len);
            break;
        case PSF_K_OP_PAIR:
            s->kind = S_PAIR;
            s->a = op_index(t, k.a, k.a_len);
            s->b = op_index(t, k.b, k.b_len);
            break;
        case PSF_K_CODE:
            if (k.b_len == strlen(PSF_KEY_CODE_INSTRUCTIONS) - 2) { /* not .calls */
                s->kind = S_CODE;
                s->a = code_index(t, k.a, k.a_len);
            }
            break;
        case PSF_K_CODE_LINE:
            s->kind = S_CODE_LINE;
            s->a = code_index(t, k.a, k.a_len);
            break;
        case PSF_K_OP_SPEC:
            if (k.field == PSF_SPEC_HIT || k.field == PSF_SPEC_SUCCESS) {
                s->kind = k.field == PSF_SPEC_HIT ? S_HIT : S_SUCCESS;
                s->a = op_index(t, k.a, k.a_len);
            }
            break;
        }
    }
    return s;
}

static void
tls_free(void *ctx, void *state)
{
    ck_tls *t = state;
    size_t i;

    (void)ctx;
    ktab_free(&t->names);
    free(t->op);
    ktab_free(&t->codes);
    free(t->code);
    free(t->touched);
    for (i = 0; i < t->ngc; i++)
        free(t->gc[i].s);
    free(t->gc);
    free(t);
}

static long long
hdr_int(const char *v)
{
    long long n = 0;

    if (v == NULL || *v == '\0')
        return -1;
    for (; *v; v++) {
        if (*v < '0' || *v > '9' || n > 100000000000000LL)
            return -1;
        n = n * 10 + (*v - '0');
    }
    return n;
}

static void
read_header(ck_file *r, const load_file_info *f)
{
    const char *sysv = "", *git = "", *cfg = "", *pb = "", *ft = "", *jit = "";
    size_t i;

    for (i = 0; i < f->nhdr; i++) {
        const char *k = f->hdr[i].key, *v = f->hdr[i].val;
        char **dst = NULL;
        long long *num = NULL;

        if (strncmp(k, PSF_H_PREFIX_META, 5) != 0 && strncmp(k, "pystats.", 8) != 0)
            continue;
        if (strcmp(k, PSF_H_PY_VERSION) == 0)
            dst = &r->version;
        else if (strcmp(k, PSF_H_MODE) == 0)
            dst = &r->mode;
        else if (strcmp(k, PSF_H_COLLECTOR) == 0)
            dst = &r->collector;
        else if (strcmp(k, PSF_H_COUNTS) == 0)
            dst = &r->counts;
        else if (strcmp(k, PSF_H_REASON) == 0)
            dst = &r->reason;
        else if (strcmp(k, PSF_H_TIME_START) == 0)
            dst = &r->time_start;
        else if (strcmp(k, PSF_H_TIME_END) == 0)
            dst = &r->time_end;
        else if (strcmp(k, PSF_H_PID) == 0)
            num = &r->pid;
        else if (strcmp(k, PSF_H_PPID) == 0)
            num = &r->ppid;
        else if (strcmp(k, PSF_H_FORKED) == 0)
            num = &r->forked;
        else if (strcmp(k, PSF_H_WINDOWS) == 0)
            num = &r->windows;
        else if (strcmp(k, PSF_H_ON_AT_DUMP) == 0)
            num = &r->on_at_dump;
        else if (strcmp(k, PSF_H_LEFTOVER_BOUND) == 0)
            num = &r->leftover;
        else if (strcmp(k, PSF_H_LEFTOVER_THREADS) == 0)
            num = &r->leftover_threads;
        else if (strcmp(k, PSF_H_PY_SYS_VERSION) == 0)
            sysv = v;
        else if (strcmp(k, PSF_H_PY_GIT) == 0)
            git = v;
        else if (strcmp(k, PSF_H_PY_CONFIG_ARGS) == 0)
            cfg = v;
        else if (strcmp(k, PSF_H_PY_PYSTATS_BUILD) == 0)
            pb = v;
        else if (strcmp(k, PSF_H_PY_FREE_THREADING) == 0)
            ft = v;
        else if (strcmp(k, PSF_H_PY_JIT) == 0)
            jit = v;
        if (dst) {
            free(*dst);
            *dst = cli_xstrdup(v);
        }
        else if (num) {
            *num = hdr_int(v);
        }
    }
    if (r->source == AGG_OWN) {
        /* Free text in the dump's encoding: decoded, as it is shown. */
        char *dsysv = text_display(sysv), *dgit = text_display(git), *dcfg = text_display(cfg);
        r->build =
            ck_xprintf("%s%s%s%s%s%s%s%s", dsysv, *dgit ? ", git " : "", dgit,
                       *dcfg ? ", configured " : "", dcfg, *pb == '1' ? ", --enable-pystats" : "",
                       *ft == '1' ? ", free-threading" : "", *jit == '1' ? ", JIT" : "");
        free(dsysv);
        free(dgit);
        free(dcfg);
    }
}

/* What the collector itself recorded as making a dump's counts inexact
 * (src/ext/guard.c): one header per cause, written only when non-zero;
 * a value that is not a number is taken as the worst. */
static void
inexact_counts(check_set *c, const load_file_info *f, const char *path)
{
    static const struct {
        const char *key, *one, *many, *what;
    } causes[] = {
        {PSF_H_DISPLACED, "thread", "threads",
         "displaced by another trace function, uncounted from then on"},
        {PSF_H_LINE_JUMPS, "frame.f_lineno jump", "frame.f_lineno jumps",
         "that segment counting does not see"},
        {PSF_H_DESYNC, "segment event", "segment events",
         "that did not fit the shadow stack (a collector bug)"},
        {PSF_H_EVENTS_LOST, "tracing tool started", "tracing tools started",
         "while mode instructions counted (INSTRUCTION events dropped)"},
    };
    char text[900];
    const char *cause = NULL, *report = NULL;
    size_t i, k, used = 0;

    text[0] = '\0';
    for (i = 0; i < f->nhdr; i++) {
        const char *key = f->hdr[i].key, *v = f->hdr[i].val;
        if (strcmp(key, PSF_H_INEXACT_CAUSE) == 0)
            cause = v;
        if (strcmp(key, PSF_H_DESYNC_REPORT) == 0)
            report = v;
        for (k = 0; k < sizeof causes / sizeof causes[0]; k++) {
            long long n;
            if (strcmp(key, causes[k].key) != 0)
                continue;
            n = hdr_int(v);
            if (n == 0)
                continue;
            if (n < 0)
                used += (size_t)snprintf(text + used, sizeof text - used, "%s%s %s",
                                         used ? "; " : "", key, v);
            else
                used += (size_t)snprintf(text + used, sizeof text - used, "%s%lld %s %s",
                                         used ? "; " : "", n,
                                         n == 1 ? causes[k].one : causes[k].many, causes[k].what);
            if (used >= sizeof text)
                used = sizeof text - 1;
        }
    }
    if (!used)
        return;
    if (cause && *cause) {
        char *shown = text_display(cause);
        char *rep = report && *report ? text_display(report) : NULL;
        ck_add_issue(c, CK_INEXACT, SEV(CK_INEXACT), path, "%s; the first: %s%s%s", text, shown,
                     rep ? "; report (attach it to a bug report): " : "", rep ? rep : "");
        free(shown);
        free(rep);
    }
    else {
        ck_add_issue(c, CK_INEXACT, SEV(CK_INEXACT), path, "%s", text);
    }
}

/* A dump whose census could not be taken says why (src/ext/census.c). */
static void
census_missing(check_set *c, const load_file_info *f, const char *path)
{
    size_t i;

    for (i = 0; i < f->nhdr; i++) {
        if (strcmp(f->hdr[i].key, PSF_H_CENSUS_ERROR) == 0) {
            char *shown = text_display(f->hdr[i].val);
            ck_add_issue(c, CK_CENSUS_ERROR, SEV(CK_CENSUS_ERROR), path,
                         "no census: it could not be taken (%s)", shown);
            free(shown);
        }
    }
}

/* Code a's figures in the current file, zero at its first sight there. */
static ck_code *
code_of(ck_tls *t, int32_t a)
{
    ck_code *k = &t->code[a];

    if (k->file != t->file) {
        memset(k, 0, sizeof *k);
        k->file = t->file;
        if (t->ntouched == t->touched_cap) {
            t->touched_cap = t->touched_cap ? 2 * t->touched_cap : 256;
            t->touched = cli_xrealloc(t->touched, t->touched_cap * sizeof *t->touched);
        }
        t->touched[t->ntouched++] = a;
    }
    return k;
}

/* Each code object's lines add up to its instructions (1.18). */
static void
line_sums(check_set *c, ck_tls *t, const ck_file *r)
{
    ck_list off = {0};
    size_t i;

    for (i = 0; i < t->ntouched; i++) {
        int32_t a = t->touched[i];
        const ck_code *k = &t->code[a];
        if (k->has_lines && k->lines != k->instructions) {
            char *name =
                text_display_n(ktab_key(&t->codes, (size_t)a), ktab_len(&t->codes, (size_t)a));
            list_add(&off, "%s: lines add up to %llu, instructions %llu", name,
                     (unsigned long long)k->lines, (unsigned long long)k->instructions);
            free(name);
        }
    }
    if (off.n)
        ck_add_issue(c, CK_LINE_SUMS, SEV(CK_LINE_SUMS), r->path, "%s", list_text(&off));
}

/* One pass over a file's counters: its totals, per instruction and per
 * code object. */
static void
count_file(ck_tls *t, const load_file_info *f, ck_gcache *gc, ck_file *r)
{
    size_t i;

    for (i = 0; i < f->nent; i++) {
        uint64_t v = f->ent[i].v;
        const ck_slot *s = slot_info(t, f->g, gc, (size_t)f->slot[f->ent[i].raw]);
        ck_code *k;
        ck_op *o;

        r->nvals++;
        r->total = cli_sat_add(r->total, v);
        r->hash += mix64(s->h ^ mix64(v + 1));
        switch (s->kind) {
        case S_EXEC:
            o = &t->op[s->a];
            o->exec = cli_sat_add(o->exec, v);
            r->exec = cli_sat_add(r->exec, v);
            break;
        case S_PAIR:
            t->op[s->a].row = cli_sat_add(t->op[s->a].row, v);
            t->op[s->b].col = cli_sat_add(t->op[s->b].col, v);
            r->pairs = cli_sat_add(r->pairs, v);
            break;
        case S_HIT:
            t->op[s->a].hit = cli_sat_add(t->op[s->a].hit, v);
            break;
        case S_SUCCESS:
            t->op[s->a].success = cli_sat_add(t->op[s->a].success, v);
            break;
        case S_CODE:
            k = code_of(t, s->a);
            k->instructions = cli_sat_add(k->instructions, v);
            break;
        case S_CODE_LINE:
            k = code_of(t, s->a);
            k->lines = cli_sat_add(k->lines, v);
            k->has_lines = 1;
            break;
        }
    }
}

/* One pass over a file's counters, then its own invariants. */
static void
analyse(check_set *c, ck_tls *t, const load_file_info *f, ck_file *r)
{
    int own = r->source == AGG_OWN;
    int exact = r->minor >= 11 && r->minor <= 13;
    ck_list exceed = {0}, into = {0}, spec = {0}, hits = {0};
    size_t i, nops;
    int32_t cache;
    ck_gcache *gc;
    uint64_t excess = 0; /* pairs over executions, summed over the opcodes */

    r->has_counts = 1;
    if (t->op)
        memset(t->op, 0, t->op_cap * sizeof *t->op);
    t->file++;
    t->ntouched = 0;
    gc = group_cache(t, f->g);
    count_file(t, f, gc, r);
    line_sums(c, t, r);
    for (i = 0; i < f->nhdr; i++)
        r->hash += mix64(hash64(f->hdr[i].key, strlen(f->hdr[i].key)) * 3 ^
                         hash64(f->hdr[i].val, strlen(f->hdr[i].val)));
    nops = t->names.n;
    cache = (int32_t)ktab_find(&t->names, "CACHE", 5);
    if (cache >= 0)
        r->cache_pairs = t->op[cache].row;
    for (i = 0; i < CK_NLEAK; i++) {
        size_t id = ktab_find(&t->names, check_leak_ops[i], strlen(check_leak_ops[i]));
        r->leak[i] = id == (size_t)-1 ? 0 : t->op[id].exec;
    }
    for (i = 0; i < nops; i++) {
        const ck_op *o = &t->op[i];
        const char *name = ktab_key(&t->names, i);

        if ((own || (int32_t)i != cache) && o->row > o->exec) {
            list_add(&exceed, "%s: %llu pairs start with it, %llu executions", name,
                     (unsigned long long)o->row, (unsigned long long)o->exec);
            excess = cli_sat_add(excess, o->row - o->exec);
        }
        if (own && o->col > o->exec) {
            list_add(&exceed, "%s: %llu pairs end with it, %llu executions", name,
                     (unsigned long long)o->col, (unsigned long long)o->exec);
            excess = cli_sat_add(excess, o->col - o->exec);
        }
        if (!own && r->pairs && o->col != o->exec)
            list_add(&into, "%s: %llu pairs end with it, %llu executions", name,
                     (unsigned long long)o->col, (unsigned long long)o->exec);
        if (own && (int32_t)i == cache && (o->exec || o->row || o->col))
            ck_add_issue(c, CK_OWN_CACHE, SEV(CK_OWN_CACHE), r->path,
                         "CACHE: %llu executions, %llu pairs", (unsigned long long)o->exec,
                         (unsigned long long)(o->row + o->col));
        if (own && o->exec && psf_tab_has_opcodes(r->minor)) {
            const char *fam = psf_tab_family(r->minor, name);
            if (fam && strcmp(fam, name) != 0)
                list_add(&spec, "%s (%llu, family %s)", name, (unsigned long long)o->exec, fam);
        }
        if (!own && o->hit && !o->success)
            list_add(&hits, "%s (%llu hits)", name, (unsigned long long)o->hit);
    }
    if (own && r->leftover > 0) {
        /* A known leftover: the pairs into the instructions it left
         * uncounted were counted; within its bound, not an error. */
        ck_add_issue(c, CK_LEFTOVER, SEV(CK_LEFTOVER), r->path,
                     "at most %llu of %llu instructions uncounted (%llu counted): the open "
                     "segments of %lld %s at the signal; pair checks relaxed by %llu",
                     (unsigned long long)r->leftover,
                     (unsigned long long)cli_sat_add(r->exec, (uint64_t)r->leftover),
                     (unsigned long long)r->exec, r->leftover_threads < 0 ? 0 : r->leftover_threads,
                     r->leftover_threads == 1 ? "thread" : "threads",
                     (unsigned long long)r->leftover);
        if (excess <= (uint64_t)r->leftover)
            exceed.n = 0;
    }
    if (exceed.n)
        ck_add_issue(c, CK_PAIRS_EXCEED, SEV(CK_PAIRS_EXCEED), r->path, "%s", list_text(&exceed));
    if (into.n)
        ck_add_issue(c, CK_PAIRS_INTO, exact ? SEV(CK_PAIRS_INTO) : CHECK_WARNING, r->path, "%s",
                     list_text(&into));
    if (spec.n)
        ck_add_issue(c, CK_OWN_SPECIALIZED, SEV(CK_OWN_SPECIALIZED), r->path, "%s",
                     list_text(&spec));
    /* Normal in an aggregate of several processes (CPython's
     * summarize_stats.py --json-output of a benchmark run, where the
     * harness turns stats on after warm-up): a note there; in one dump it
     * means that dump's success and failure figures are partial. */
    if (hits.n)
        ck_add_issue(c, CK_HITS_NO_SUCCESS, f->nfiles > 1 ? CHECK_NOTE : SEV(CK_HITS_NO_SUCCESS),
                     r->path, "%s", list_text(&hits));
    if (own && r->exec && r->pairs == r->exec && r->leftover <= 0)
        ck_add_issue(c, CK_NO_START, SEV(CK_NO_START), r->path, "%llu executions and as many pairs",
                     (unsigned long long)r->exec);
}

static void
on_file(void *ctx, void **state, const load_file_info *f)
{
    check_set *c = ctx;
    ck_tls *t = *state;
    ck_file r;

    if (t == NULL) {
        t = cli_xcalloc(1, sizeof *t);
        ktab_init(&t->names);
        ktab_init(&t->codes);
        *state = t;
    }
    memset(&r, 0, sizeof r);
    r.path = cli_xstrdup(f->path);
    r.format = f->format;
    r.source = f->g->source;
    r.minor = f->g->minor;
    r.nfiles = f->nfiles;
    r.pid = r.ppid = r.forked = r.windows = r.on_at_dump = -1;
    r.leftover = r.leftover_threads = -1;
    read_header(&r, f);
    if (r.source == AGG_OWN) {
        inexact_counts(c, f, r.path);
        census_missing(c, f, r.path);
    }
    if (f->slot)
        analyse(c, t, f, &r);
    /* A text dump without counters is an empty file (the reader says); a
     * JSON summary without any is a run that counted nothing. */
    if ((f->format == AGG_FMT_CPYTHON_JSON || f->format == AGG_FMT_SUMMARY_JSON) && r.nvals == 0)
        ck_add_issue(c, CK_NO_COUNTERS, SEV(CK_NO_COUNTERS), r.path,
                     "no counters: a summary of no dumps (stats never switched on?)");
    pthread_mutex_lock(&c->lock);
    if (c->nf == c->f_cap) {
        c->f_cap = c->f_cap ? c->f_cap * 2 : 64;
        c->f = cli_xrealloc(c->f, c->f_cap * sizeof *c->f);
    }
    c->f[c->nf++] = r;
    pthread_mutex_unlock(&c->lock);
}

/* The readers' problems are the first checks, in agg_problem's order. */
_Static_assert(CK_UNSUPPORTED - CK_UNREADABLE == AGG_P_UNSUPPORTED - AGG_P_UNREADABLE &&
                   AGG_P_UNREADABLE == 0,
               "check ids follow agg_problem kinds");

static void
on_problem(void *ctx, int kind, const char *file, unsigned long line, const char *msg)
{
    check_set *c = ctx;
    char where[64] = "";

    if (line)
        snprintf(where, sizeof where, "line %lu: ", line);
    ck_add_issue(c, CK_UNREADABLE + kind, SEV(CK_UNREADABLE + kind), file, "%s%s", where, msg);
}

static void
on_hidden(void *ctx, const char *path)
{
    ck_add_issue(ctx, CK_HIDDEN_TMP, SEV(CK_HIDDEN_TMP), path,
                 "a dump's temporary file: its writer did not finish");
}

static void
on_foreign(void *ctx, const char *path, unsigned long uid)
{
    ck_add_issue(ctx, CK_FOREIGN, SEV(CK_FOREIGN), path,
                 "owned by uid %lu, in a directory others can write", uid);
}

void
ck_observer_init(load_observer *obs, check_set *c)
{
    obs->ctx = c;
    obs->file = on_file;
    obs->free_state = tls_free;
    obs->problem = on_problem;
    obs->hidden = on_hidden;
    obs->foreign = on_foreign;
}
