/* check.c: the checks behind `pystats check` and the trust verdict: each
 * file while the readers read it (an observer), then the whole set.
 *
 * Per file, counters are classified once per distinct key and group (a
 * per-thread cache), so a file costs one pass over its counters.  The
 * invariants used (docs/FORMAT.md 1.3, CPython's ceval):
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
#include "ktab.h"
#include "text.h"
#include "../format/psf_key.h"
#include "../format/psf_keys.h"
#include "../format/psf_tables.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const check_severity_name[CHECK_SEVERITY_COUNT] = {
    "note", "warning", "error",
};

const char *const check_leak_ops[CK_NLEAK] = {
    "IMPORT_NAME", "IMPORT_FROM", "IMPORT_STAR", "LOAD_BUILD_CLASS",
    "SETUP_ANNOTATIONS", "LOAD_NAME", "STORE_NAME", "DELETE_NAME",
};

const ck_info check_info[CK_COUNT] = {
    [CK_NO_FILES] = { "no-files", "no dump files in the inputs",
        "An empty set is not a measurement of zero: collection never ran, "
        "the dumps went elsewhere (another PYSTATS_DIR, CPython's fixed "
        "/tmp/py_stats), or a harness hid the environment from the "
        "processes that ran the code." },
    [CK_UNREADABLE] = { "unreadable", "files that cannot be read",
        "Their counts are missing from every total." },
    [CK_EMPTY] = { "empty", "empty files, or files without counters",
        "Neither writer leaves such a file: the collector writes nothing "
        "when nothing was counted and CPython writes every counter. It is "
        "a dump cut short (a killed writer, a full disk) or one read while "
        "being written." },
    [CK_BINARY] = { "binary", "files with binary data",
        "A dump is text; a NUL byte means a corrupt file or one that is "
        "not a dump. The file is not counted." },
    [CK_TRUNCATED] = { "truncated", "files cut short (no newline at the end)",
        "Every dump ends with a newline. A file that does not was cut while "
        "being written (CPython writes its dumps in place; a writer killed "
        "or out of space), and the counts after the cut are lost." },
    [CK_UNPARSABLE] = { "unparsable", "lines or files that cannot be parsed",
        "A line that is not 'key : value' with an unsigned count, or JSON "
        "that does not parse, is not counted: corruption, or not a dump." },
    [CK_OVERFLOW] = { "overflow", "counts beyond 2**64-1",
        "No real counter reaches 2**64: such a value is corrupt. A file whose "
        "counters would take a sum past it is not counted, so that no total "
        "is ever capped or wrapped." },
    [CK_UNSUPPORTED] = { "unsupported", "unsupported format versions or schemas",
        "These files were skipped rather than misread." },
    [CK_ALL_ZERO] = { "all-zero", "files whose counters are all zero",
        "Nothing was counted in these processes: CPython 3.12 writes an "
        "all-zero dump for every process that never switched stats on. A "
        "set of only such files measured nothing." },
    [CK_MIXED_VERSIONS] = { "mixed-versions", "dumps of different Python versions",
        "Opcode names and numbers differ between versions: figures of one "
        "version say nothing about another, and summaries keep them apart. "
        "One set should come from one interpreter." },
    [CK_MIXED_BUILDS] = { "mixed-builds", "dumps of different builds of one version",
        "sys.version, the git revision or the configure options differ: "
        "different interpreters (debug, JIT, free-threading, another "
        "compiler) can execute different instructions for the same code." },
    [CK_MIXED_SOURCES] = { "mixed-sources", "native CPython dumps and collector dumps together",
        "Native dumps count each specialized form, this collector counts "
        "base instructions: different quantities that are never added "
        "(compare them family by family)." },
    [CK_MIXED_FORMATS] = { "mixed-formats", "dumps and JSON summaries together",
        "A summary made from these same dumps counts them twice." },
    [CK_MIXED_MODES] = { "mixed-modes", "different collection modes or counting semantics",
        "Files that count different things (pystats.counts, "
        "meta.collection.mode) cannot be added into one figure." },
    [CK_MIXED_COLLECTORS] = { "mixed-collectors", "dumps of different collector versions",
        "What is counted may differ between collector versions; keep one "
        "set to one collector." },
    [CK_DUP_CONTENT] = { "duplicate-content", "identical files",
        "A collector dump names its process and times, so two identical "
        "ones are one dump copied, counted twice. Two identical native "
        "dumps are a copy too, unless the run was perfectly deterministic." },
    [CK_DUP_PROCESS] = { "duplicate-process", "two dumps of one process and start time",
        "The collector clears its counts when it writes a dump, so one "
        "process never writes the same counting period twice: files from "
        "two copies of one run are mixed." },
    [CK_INEXACT] = { "inexact-counts", "counts the collector knows are not exact",
        "The collector counts from the events it receives, and another tool "
        "can take them away or move execution where no event shows it. On "
        "3.11 a thread has one trace function: one that coverage, a debugger "
        "or sys.settrace sets while counting replaces the collector's, and "
        "that thread goes uncounted from then on (" PSF_H_DISPLACED " "
        "threads). On 3.12+ a trace function that sets frame.f_lineno jumps "
        "with no event segment counting sees, which miscounts the "
        "straight-line run around the jump (" PSF_H_LINE_JUMPS "); "
        PSF_H_DESYNC " counts segment events that did not fit a "
        "thread's shadow stack, a collector bug; " PSF_H_EVENTS_LOST " "
        "counts tracing tools started while mode instructions counted, after "
        "which CPython 3.12 and 3.13 drop its INSTRUCTION events. "
        PSF_H_INEXACT_CAUSE " says where the first happened." },
    [CK_PAIRS_EXCEED] = { "pairs-exceed-executions", "more pairs than executions",
        "Each execution of an instruction is followed by at most one "
        "instruction and preceded by at most one, so the pairs starting "
        "(or ending) with an instruction never exceed its executions "
        "within one process. Such a file is corrupt, edited, or the sum of "
        "files that were not summed alike." },
    [CK_PAIRS_INTO] = { "pairs-into-mismatch", "pairs into an instruction differ from its executions",
        "CPython's eval loop (3.11-3.13) records one pair for every counted "
        "execution, with CACHE as the predecessor at each entry into the "
        "loop, so the pairs into an instruction equal its executions." },
    [CK_NO_START] = { "no-sequence-start", "as many pairs as executions",
        "The first instruction a thread executes after collection starts "
        "has no predecessor: within one window and thread pairs = "
        "executions - 1, so a dump has fewer pairs than executions." },
    [CK_NO_WINDOW] = { "no-window", "counts with no collection window",
        "Every count of the collector happens inside a window (on(), "
        "measure(), a fork child inheriting one), each counted in "
        "meta.collection.windows." },
    [CK_OWN_CACHE] = { "cache-counted", "CACHE counted by the collector",
        "CACHE entries are never executed; the collector counts executed "
        "instructions only." },
    [CK_OWN_SPECIALIZED] = { "specialized-in-base", "specialized instructions in a base-instructions dump",
        "The collector names every instruction by its base opcode; a "
        "specialized name means the file was not written by it, or edited." },
    [CK_TIME_ORDER] = { "time-order", "a dump that ends before it starts",
        "meta.time.start is taken when counting begins and meta.time.end "
        "when the dump is written: a corrupt or edited header, or the "
        "clock stepped back during the run." },
    [CK_SIGNAL] = { "killed", "dumps written on SIGTERM",
        "The process was terminated (Pool.terminate(), a timeout, a "
        "supervisor): its counts stop wherever the signal hit." },
    [CK_HITS_NO_SUCCESS] = { "hits-without-successes", "specialization hits with no successful specialization",
        "A specialized instruction runs only after a specialization "
        "succeeded. Hits without a success in the same dump mean it "
        "succeeded before counting began: normal in a fork child "
        "(specialized in the parent) or a window opened after warm-up, but "
        "then these families' success and failure figures cover part of "
        "the run only. In an aggregate of several processes (a summary "
        "of CPython's summarize_stats.py --json-output, __nfiles__ > 1) it "
        "is the rule, not a fault: benchmark harnesses (pyperformance's "
        "pystats hook) turn stats on after warm-up, when the hot "
        "instructions are specialized already; a note there, a warning "
        "for a single dump." },
    [CK_LEAKAGE] = { "leakage", "startup or harness code counted",
        "Imports and module-level code (IMPORT_NAME, LOAD_NAME, STORE_NAME, "
        "LOAD_BUILD_CLASS, ...) run mostly at startup and in harness "
        "scripts. In a windowed set they indicate, without proving, that a "
        "window caught startup or harness code (the lines around on() and "
        "off() at module level count themselves); a benchmark may also "
        "import or define classes itself. In a whole-program run they are "
        "the interpreter's startup." },
    [CK_ON_AT_EXIT] = { "on-at-exit", "collection still on when the process ended",
        "Everything until the dump is counted: the intent with -X pystats "
        "or PYTHONSTATS (the whole program), but in a harness that opens "
        "windows, one was left open and the interpreter's shutdown "
        "(atexit handlers, module teardown) is in the counts." },
    [CK_PARENT_MISSING] = { "parent-missing", "fork children whose parent's dump is absent",
        "A fork child counts because its parent was counting, yet no dump "
        "of the parent is in the set: it was killed without a dump, wrote "
        "elsewhere, or is still running." },
    [CK_OS_EXIT] = { "os-exit", "dumps written at os._exit",
        "os._exit skips atexit handlers and finalization: right for "
        "multiprocessing workers, which always exit so, but any other "
        "program's shutdown work is not in its counts." },
    [CK_FORKED] = { "forked", "dumps of fork children",
        "A fork child's counts start at the fork: the parent's earlier "
        "work is in the parent's dump, never in the child's." },
    [CK_WINDOWS] = { "windows", "collection windows per dump",
        "meta.collection.windows counts on() and measure() starts since the "
        "last dump: 1 for a whole-program run." },
    [CK_STARTS] = { "sequence-starts", "(thread, window) starts",
        "Within one window and one thread pairs = executions - 1, so "
        "executions - pairs counts the (thread, window) starts: about "
        "windows x threads. Far more means many threads or short ones; "
        "fewer than the windows means windows that counted nothing." },
    [CK_CACHE_PAIRS] = { "cache-pairs", "pairs that start with CACHE",
        "CPython's eval loop starts each entry (C code calling back into "
        "Python, a generator resumed from C) with previous opcode 0, which "
        "is CACHE: these pairs count entries into the loop, not a real "
        "instruction sequence. Leave them out of pair analyses." },
    [CK_SUMMARY_INPUT] = { "summary-input", "JSON summaries checked as sums only",
        "A summary written by --json holds sums, not the files they came "
        "from: the checks of each file cannot be made again here. Check "
        "the dumps themselves." },
    [CK_HIDDEN_TMP] = { "cut-short-temporaries", "hidden temporaries of dumps never finished",
        "The collector writes each dump to a hidden temporary (.NAME.tmp) "
        "and renames it when it is whole, so a writer killed mid-dump (a "
        "SIGKILL, a crash, a full disk) leaves only that hidden file: "
        "readers skip it and never count half a dump, but what it was "
        "writing is in no dump, so the set misses that process's last "
        "counts." },
    [CK_FOREIGN] = { "foreign-files", "files of another user in a directory others can write",
        "Anyone who can write the directory (a shared /tmp/py_stats) can "
        "add, replace or forge dumps there: files owned by neither you nor "
        "root may not be what a collector wrote. The collector itself "
        "never writes into such a directory; use one of your own "
        "(PYSTATS_DIR, or pystats run)." },
};

/* ---- small helpers ------------------------------------------------------ */

static uint64_t
sadd(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

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

static char *
xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
xprintf(const char *fmt, ...)
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

/* A growing text of at most a few items: "A (x); B (y) and 3 more". */
#define LIST_SHOW 3
typedef struct ck_list {
    char buf[600];
    size_t len, n;
} ck_list;

static void
list_add(ck_list *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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

static void
add_issue(check_set *c, int id, int severity, const char *file,
          const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
add_issue(check_set *c, int id, int severity, const char *file,
          const char *fmt, ...)
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

/* ---- per file: the observer -------------------------------------------- */

enum { S_UNSEEN = 0, S_OTHER, S_EXEC, S_PAIR, S_HIT, S_SUCCESS };

typedef struct ck_slot {
    uint64_t h;             /* hash of the canonical key */
    int32_t a, b;           /* op indices, -1 if none */
    uint8_t kind;
} ck_slot;

/* Slot classifications of one group of one reader thread. */
typedef struct ck_gcache {
    const agg_group *g;     /* borrowed: only compared */
    ck_slot *s;             /* owned */
    size_t n;
} ck_gcache;

typedef struct ck_op {
    uint64_t exec, row, col, hit, success;
} ck_op;

/* One reader thread's state. */
typedef struct ck_tls {
    ktab names;             /* instruction name -> index into op */
    ck_op *op;              /* owned, per file */
    size_t op_cap;
    ck_gcache *gc;          /* owned */
    size_t ngc;
} ck_tls;

static int32_t
op_index(ck_tls *t, const char *s, size_t n)
{
    int is_new;
    size_t id = ktab_intern(&t->names, s, n, &is_new);

    if (id >= t->op_cap) {
        size_t cap = t->op_cap ? t->op_cap * 2 : 512, old = t->op_cap;
        while (cap <= id)
            cap *= 2;
        t->op = cli_xrealloc(t->op, cap * sizeof *t->op);
        memset(t->op + old, 0, (cap - old) * sizeof *t->op);
        t->op_cap = cap;
    }
    return (int32_t)id;
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

        psf_key_parse(key, klen, &k);
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
        if (strcmp(k, PSF_H_PY_VERSION) == 0) dst = &r->version;
        else if (strcmp(k, PSF_H_MODE) == 0) dst = &r->mode;
        else if (strcmp(k, PSF_H_COLLECTOR) == 0) dst = &r->collector;
        else if (strcmp(k, PSF_H_COUNTS) == 0) dst = &r->counts;
        else if (strcmp(k, PSF_H_REASON) == 0) dst = &r->reason;
        else if (strcmp(k, PSF_H_TIME_START) == 0) dst = &r->time_start;
        else if (strcmp(k, PSF_H_TIME_END) == 0) dst = &r->time_end;
        else if (strcmp(k, PSF_H_PID) == 0) num = &r->pid;
        else if (strcmp(k, PSF_H_PPID) == 0) num = &r->ppid;
        else if (strcmp(k, PSF_H_FORKED) == 0) num = &r->forked;
        else if (strcmp(k, PSF_H_WINDOWS) == 0) num = &r->windows;
        else if (strcmp(k, PSF_H_ON_AT_DUMP) == 0) num = &r->on_at_dump;
        else if (strcmp(k, PSF_H_PY_SYS_VERSION) == 0) sysv = v;
        else if (strcmp(k, PSF_H_PY_GIT) == 0) git = v;
        else if (strcmp(k, PSF_H_PY_CONFIG_ARGS) == 0) cfg = v;
        else if (strcmp(k, PSF_H_PY_PYSTATS_BUILD) == 0) pb = v;
        else if (strcmp(k, PSF_H_PY_FREE_THREADING) == 0) ft = v;
        else if (strcmp(k, PSF_H_PY_JIT) == 0) jit = v;
        if (dst) {
            free(*dst);
            *dst = cli_xstrdup(v);
        } else if (num) {
            *num = hdr_int(v);
        }
    }
    if (r->source == AGG_OWN)
        r->build = xprintf("%s%s%s%s%s%s%s%s", sysv, *git ? ", git " : "", git,
                           *cfg ? ", configured " : "", cfg,
                           *pb == '1' ? ", --enable-pystats" : "",
                           *ft == '1' ? ", free-threading" : "", *jit == '1' ? ", JIT" : "");
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
        { PSF_H_DISPLACED, "thread", "threads",
          "displaced by another trace function, uncounted from then on" },
        { PSF_H_LINE_JUMPS, "frame.f_lineno jump", "frame.f_lineno jumps",
          "that segment counting does not see" },
        { PSF_H_DESYNC, "segment event", "segment events",
          "that did not fit the shadow stack (a collector bug)" },
        { PSF_H_EVENTS_LOST, "tracing tool started", "tracing tools started",
          "while mode instructions counted (INSTRUCTION events dropped)" },
    };
    char text[900];
    const char *cause = NULL;
    size_t i, k, used = 0;

    text[0] = '\0';
    for (i = 0; i < f->nhdr; i++) {
        const char *key = f->hdr[i].key, *v = f->hdr[i].val;
        if (strcmp(key, PSF_H_INEXACT_CAUSE) == 0)
            cause = v;
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
                                         n == 1 ? causes[k].one : causes[k].many,
                                         causes[k].what);
            if (used >= sizeof text)
                used = sizeof text - 1;
        }
    }
    if (!used)
        return;
    if (cause && *cause) {
        char *shown = text_display(cause);
        add_issue(c, CK_INEXACT, CHECK_ERROR, path, "%s; the first: %s", text, shown);
        free(shown);
    } else {
        add_issue(c, CK_INEXACT, CHECK_ERROR, path, "%s", text);
    }
}

/* One pass over a file's counters, then its own invariants. */
static void
analyse(check_set *c, ck_tls *t, const load_file_info *f, ck_file *r)
{
    int own = r->source == AGG_OWN;
    int exact = r->minor >= 11 && r->minor <= 13;
    ck_list exceed = { 0 }, into = { 0 }, spec = { 0 }, hits = { 0 };
    size_t i, nops;
    int32_t cache;
    ck_gcache *gc;

    r->has_counts = 1;
    if (t->op)
        memset(t->op, 0, t->op_cap * sizeof *t->op);
    gc = group_cache(t, f->g);
    for (i = 0; i < f->nent; i++) {
        uint64_t v = f->ent[i].v;
        const ck_slot *s = slot_info(t, f->g, gc, (size_t)f->slot[f->ent[i].raw]);
        ck_op *o;

        r->nvals++;
        r->total = sadd(r->total, v);
        r->hash += mix64(s->h ^ mix64(v + 1));
        switch (s->kind) {
        case S_EXEC:
            o = &t->op[s->a];
            o->exec = sadd(o->exec, v);
            r->exec = sadd(r->exec, v);
            break;
        case S_PAIR:
            t->op[s->a].row = sadd(t->op[s->a].row, v);
            t->op[s->b].col = sadd(t->op[s->b].col, v);
            r->pairs = sadd(r->pairs, v);
            break;
        case S_HIT:
            t->op[s->a].hit = sadd(t->op[s->a].hit, v);
            break;
        case S_SUCCESS:
            t->op[s->a].success = sadd(t->op[s->a].success, v);
            break;
        }
    }
    for (i = 0; i < f->nhdr; i++)
        r->hash += mix64(hash64(f->hdr[i].key, strlen(f->hdr[i].key)) * 3
                         ^ hash64(f->hdr[i].val, strlen(f->hdr[i].val)));
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

        if ((own || (int32_t)i != cache) && o->row > o->exec)
            list_add(&exceed, "%s: %llu pairs start with it, %llu executions", name,
                     (unsigned long long)o->row, (unsigned long long)o->exec);
        if (own && o->col > o->exec)
            list_add(&exceed, "%s: %llu pairs end with it, %llu executions", name,
                     (unsigned long long)o->col, (unsigned long long)o->exec);
        if (!own && r->pairs && o->col != o->exec)
            list_add(&into, "%s: %llu pairs end with it, %llu executions", name,
                     (unsigned long long)o->col, (unsigned long long)o->exec);
        if (own && (int32_t)i == cache && (o->exec || o->row || o->col))
            add_issue(c, CK_OWN_CACHE, CHECK_ERROR, r->path,
                      "CACHE: %llu executions, %llu pairs", (unsigned long long)o->exec,
                      (unsigned long long)(o->row + o->col));
        if (own && o->exec && psf_tab_has_opcodes(r->minor)) {
            const char *fam = psf_tab_family(r->minor, name);
            if (fam && strcmp(fam, name) != 0)
                list_add(&spec, "%s (%llu, family %s)", name,
                         (unsigned long long)o->exec, fam);
        }
        if (!own && o->hit && !o->success)
            list_add(&hits, "%s (%llu hits)", name, (unsigned long long)o->hit);
    }
    if (exceed.n)
        add_issue(c, CK_PAIRS_EXCEED, CHECK_ERROR, r->path, "%s", list_text(&exceed));
    if (into.n)
        add_issue(c, CK_PAIRS_INTO, exact ? CHECK_ERROR : CHECK_WARNING, r->path,
                  "%s", list_text(&into));
    if (spec.n)
        add_issue(c, CK_OWN_SPECIALIZED, CHECK_ERROR, r->path, "%s", list_text(&spec));
    /* Normal in an aggregate of several processes (CPython's
     * summarize_stats.py --json-output of a benchmark run, where the
     * harness turns stats on after warm-up): a note there; in one dump it
     * means that dump's success and failure figures are partial. */
    if (hits.n)
        add_issue(c, CK_HITS_NO_SUCCESS, f->nfiles > 1 ? CHECK_NOTE : CHECK_WARNING,
                  r->path, "%s", list_text(&hits));
    if (own && r->exec && r->pairs == r->exec)
        add_issue(c, CK_NO_START, CHECK_ERROR, r->path,
                  "%llu executions and as many pairs", (unsigned long long)r->exec);
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
        *state = t;
    }
    memset(&r, 0, sizeof r);
    r.path = cli_xstrdup(f->path);
    r.format = f->format;
    r.source = f->g->source;
    r.minor = f->g->minor;
    r.nfiles = f->nfiles;
    r.pid = r.ppid = r.forked = r.windows = r.on_at_dump = -1;
    read_header(&r, f);
    if (r.source == AGG_OWN)
        inexact_counts(c, f, r.path);
    if (f->slot)
        analyse(c, t, f, &r);
    pthread_mutex_lock(&c->lock);
    if (c->nf == c->f_cap) {
        c->f_cap = c->f_cap ? c->f_cap * 2 : 64;
        c->f = cli_xrealloc(c->f, c->f_cap * sizeof *c->f);
    }
    c->f[c->nf++] = r;
    pthread_mutex_unlock(&c->lock);
}

/* The readers' problems are the first checks, in agg_problem's order. */
_Static_assert(CK_UNSUPPORTED - CK_UNREADABLE == AGG_P_UNSUPPORTED - AGG_P_UNREADABLE
               && AGG_P_UNREADABLE == 0, "check ids follow agg_problem kinds");

static void
on_problem(void *ctx, int kind, const char *file, unsigned long line,
           const char *msg)
{
    check_set *c = ctx;
    char where[64] = "";

    if (line)
        snprintf(where, sizeof where, "line %lu: ", line);
    add_issue(c, CK_UNREADABLE + kind, CHECK_ERROR, file, "%s%s", where, msg);
}

static void
on_hidden(void *ctx, const char *path)
{
    add_issue(ctx, CK_HIDDEN_TMP, CHECK_WARNING, path,
              "a dump's temporary file: its writer did not finish");
}

static void
on_foreign(void *ctx, const char *path, unsigned long uid)
{
    add_issue(ctx, CK_FOREIGN, CHECK_WARNING, path,
              "owned by uid %lu, in a directory others can write", uid);
}

/* ---- the set ---------------------------------------------------------- */

check_set *
check_new(void)
{
    check_set *c = cli_xcalloc(1, sizeof *c);

    pthread_mutex_init(&c->lock, NULL);
    c->obs.ctx = c;
    c->obs.file = on_file;
    c->obs.free_state = tls_free;
    c->obs.problem = on_problem;
    c->obs.hidden = on_hidden;
    c->obs.foreign = on_foreign;
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

static ck_finding *
finding(check_set *c, int id, int severity, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static ck_finding *
finding(check_set *c, int id, int severity, const char *fmt, ...)
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

static void
finding_file(ck_finding *d, const char *path)
{
    if (d->nfiles && strcmp(d->files[d->nfiles - 1], path) == 0)
        return;
    d->files = cli_xrealloc(d->files, (d->nfiles + 1) * sizeof *d->files);
    d->files[d->nfiles++] = cli_xstrdup(path);
}

static void
finding_detail(ck_finding *d, char *owned)
{
    d->details = cli_xrealloc(d->details, (d->ndetails + 1) * sizeof *d->details);
    d->details[d->ndetails++] = owned;
}

/* qsort, which must not be given a NULL array even when it is empty. */
static void
sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
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

static const char *
plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Findings from the issues the readers and the per-file checks raised:
 * one per (check, severity), its files and one detail per issue. */
static void
issue_findings(check_set *c, const agg *a)
{
    size_t i = 0, j;

    while (i < c->nis) {
        int id = c->is[i].id, sev = c->is[i].severity;
        size_t files = 0;
        ck_finding *d;
        uint64_t n = 0;

        for (j = i; j < c->nis && c->is[j].id == id && c->is[j].severity == sev; j++)
            if (j == i || strcmp(c->is[j].file, c->is[j - 1].file) != 0)
                files++;
        if (id >= CK_UNREADABLE && id <= CK_UNSUPPORTED)
            n = a->problems[id - CK_UNREADABLE];
        if (n > j - i)
            d = finding(c, id, sev, "%llu problems in %zu %s (the first of each file shown)",
                        (unsigned long long)n, files, plural(files, "file", "files"));
        else
            d = finding(c, id, sev, "%zu %s", files, plural(files, "file", "files"));
        for (; i < j; i++) {
            finding_file(d, c->is[i].file);
            finding_detail(d, xprintf("%s: %s", c->is[i].file, c->is[i].text));
        }
    }
    /* Problems counted in JSON summaries read back name no file here. */
    for (j = 0; j < AGG_P_COUNT; j++) {
        int seen = 0;
        for (i = 0; i < c->nis; i++)
            seen |= c->is[i].id == (int)(CK_UNREADABLE + j);
        if (a->problems[j] && !seen)
            finding(c, CK_UNREADABLE + (int)j, CHECK_ERROR,
                    "%llu problems recorded in JSON summaries read back",
                    (unsigned long long)a->problems[j]);
    }
}

/* Distinct values of one property over the files. */
static void
tally(agg_strs *s, const char *v, uint64_t n)
{
    agg_strs_add(s, v, strlen(v), n);
}

static void
tally_free(agg_strs *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        free(s->v[i].text);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* A finding for a property with several values: "3.11: 2 files; ..." */
static void
mix_finding(check_set *c, int id, int severity, agg_strs *s)
{
    char text[900];
    size_t i, used = 0;

    if (s->n < 2)
        return;
    text[0] = '\0';
    for (i = 0; i < s->n && used < sizeof text - 1; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s: %llu %s",
                                 i ? "; " : "", s->v[i].text, (unsigned long long)s->v[i].n,
                                 plural(s->v[i].n, "file", "files"));
    finding(c, id, severity, "%zu values: %s", s->n, text);
}

static void
mixes(check_set *c)
{
    agg_strs ver = { 0 }, build = { 0 }, src = { 0 }, mode = { 0 }, coll = { 0 };
    int text_fmt = 0, json_fmt = 0;
    char b[64];
    size_t i;

    for (i = 0; i < c->nf; i++) {
        const ck_file *r = &c->f[i];
        if (r->minor)
            snprintf(b, sizeof b, "3.%d", r->minor);
        else
            snprintf(b, sizeof b, "unknown version");
        tally(&ver, b, r->nfiles);
        tally(&src, r->source == AGG_OWN ? "pystats collector" : "native CPython", r->nfiles);
        if (r->source == AGG_OWN) {
            char *t;
            /* Only what the headers say: an absent field is no difference. */
            if (r->build && *r->build) {
                t = xprintf("%s (%s)", r->version ? r->version : "?", r->build);
                tally(&build, t, r->nfiles);
                free(t);
            }
            t = xprintf("mode %s, %s", r->mode ? r->mode : "?",
                        r->counts ? r->counts : "?");
            tally(&mode, t, r->nfiles);
            free(t);
            tally(&coll, r->collector ? r->collector : "?", r->nfiles);
        }
        if (r->format == AGG_FMT_NATIVE_TEXT || r->format == AGG_FMT_OWN_TEXT)
            text_fmt = 1;
        else
            json_fmt = 1;
    }
    mix_finding(c, CK_MIXED_VERSIONS, CHECK_ERROR, &ver);
    mix_finding(c, CK_MIXED_BUILDS, CHECK_ERROR, &build);
    mix_finding(c, CK_MIXED_SOURCES, CHECK_ERROR, &src);
    mix_finding(c, CK_MIXED_MODES, CHECK_ERROR, &mode);
    mix_finding(c, CK_MIXED_COLLECTORS, CHECK_WARNING, &coll);
    if (text_fmt && json_fmt) {
        ck_finding *d = finding(c, CK_MIXED_FORMATS, CHECK_WARNING,
                                "dump files and JSON files in one set");
        for (i = 0; i < c->nf; i++)
            if (c->f[i].format == AGG_FMT_CPYTHON_JSON || c->f[i].format == AGG_FMT_SUMMARY_JSON)
                finding_file(d, c->f[i].path);
    }
    tally_free(&ver);
    tally_free(&build);
    tally_free(&src);
    tally_free(&mode);
    tally_free(&coll);
}

/* The set being sorted (check_finish runs on one thread). */
static const check_set *sort_ctx;

static int
by_content(const void *pa, const void *pb)
{
    const ck_file *a = &sort_ctx->f[*(const size_t *)pa], *b = &sort_ctx->f[*(const size_t *)pb];

    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    if (a->nvals != b->nvals)
        return a->nvals < b->nvals ? -1 : 1;
    return strcmp(a->path, b->path);
}

static int
by_process(const void *pa, const void *pb)
{
    const ck_file *a = &sort_ctx->f[*(const size_t *)pa], *b = &sort_ctx->f[*(const size_t *)pb];
    int r;

    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if ((r = strcmp(a->time_start, b->time_start)) != 0)
        return r;
    return strcmp(a->path, b->path);
}

static void
duplicates(check_set *c)
{
    size_t *ix = cli_xcalloc(c->nf, sizeof *ix), n = 0, i, j, k;
    ck_finding *own_d = NULL, *nat_d = NULL, *proc_d = NULL;

    for (i = 0; i < c->nf; i++)
        if (c->f[i].has_counts && c->f[i].nvals)
            ix[n++] = i;
    sort_ctx = c;
    sort(ix, n, sizeof *ix, by_content);
    for (i = 0; i < n; i = j) {
        const ck_file *a = &c->f[ix[i]];
        int own = 0;
        for (j = i + 1; j < n && c->f[ix[j]].hash == a->hash && c->f[ix[j]].nvals == a->nvals
                        && c->f[ix[j]].total == a->total; j++)
            ;
        if (j - i < 2)
            continue;
        for (k = i; k < j; k++)
            own |= c->f[ix[k]].source == AGG_OWN;
        if (own && own_d == NULL)
            own_d = finding(c, CK_DUP_CONTENT, CHECK_ERROR, "collector dumps with identical content");
        if (!own && nat_d == NULL)
            nat_d = finding(c, CK_DUP_CONTENT, CHECK_WARNING, "native dumps with identical counters");
        for (k = i; k < j; k++)
            finding_file(own ? own_d : nat_d, c->f[ix[k]].path);
        finding_detail(own ? own_d : nat_d,
                       xprintf("%zu identical files: %s ...", j - i, a->path));
    }
    /* The same process and counting period, different content. */
    n = 0;
    for (i = 0; i < c->nf; i++)
        if (c->f[i].source == AGG_OWN && c->f[i].pid >= 0 && c->f[i].time_start)
            ix[n++] = i;
    sort(ix, n, sizeof *ix, by_process);
    for (i = 0; i + 1 < n; i++) {
        const ck_file *a = &c->f[ix[i]], *b = &c->f[ix[i + 1]];
        if (a->pid != b->pid || strcmp(a->time_start, b->time_start) != 0 || a->hash == b->hash)
            continue;
        if (proc_d == NULL)
            proc_d = finding(c, CK_DUP_PROCESS, CHECK_ERROR,
                             "dumps sharing a pid and meta.time.start");
        finding_file(proc_d, a->path);
        finding_file(proc_d, b->path);
        finding_detail(proc_d, xprintf("pid %lld, start %s: %s and %s", a->pid,
                                       a->time_start, a->path, b->path));
    }
    free(ix);
}

static int
has_pid(const check_set *c, long long pid)
{
    size_t i;

    for (i = 0; i < c->nf; i++)
        if (c->f[i].source == AGG_OWN && c->f[i].pid == pid)
            return 1;
    return 0;
}

/* A finding built file by file: created at the first file. */
typedef struct lazy {
    check_set *c;
    int id, severity;
    ck_finding *d;
    uint64_t files;
} lazy;

static void
lazy_add(lazy *l, const ck_file *r, char *detail)
{
    if (l->d == NULL)
        l->d = finding(l->c, l->id, l->severity, "%s", "");
    finding_file(l->d, r->path);
    if (detail)
        finding_detail(l->d, detail);
    l->files += r->nfiles;
}

static void
lazy_done(lazy *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
lazy_done(lazy *l, const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    if (l->d == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    free(l->d->summary);
    l->d->summary = xprintf("%llu %s%s%s", (unsigned long long)l->files,
                            plural(l->files, "file", "files"), *text ? ": " : "", text);
}

static int
windowed(const ck_file *r)
{
    return r->source == AGG_OWN && (r->on_at_dump == 0 || r->windows > 1);
}

static void
own_headers(check_set *c)
{
    lazy zero = { c, CK_ALL_ZERO, CHECK_WARNING, NULL, 0 };
    lazy nowin = { c, CK_NO_WINDOW, CHECK_ERROR, NULL, 0 };
    lazy order = { c, CK_TIME_ORDER, CHECK_ERROR, NULL, 0 };
    lazy sig = { c, CK_SIGNAL, CHECK_WARNING, NULL, 0 };
    lazy osx = { c, CK_OS_EXIT, CHECK_NOTE, NULL, 0 };
    lazy fork = { c, CK_FORKED, CHECK_NOTE, NULL, 0 };
    lazy orphan = { c, CK_PARENT_MISSING, CHECK_NOTE, NULL, 0 };
    lazy onw = { c, CK_ON_AT_EXIT, CHECK_WARNING, NULL, 0 };
    lazy onn = { c, CK_ON_AT_EXIT, CHECK_NOTE, NULL, 0 };
    lazy starts = { c, CK_STARTS, CHECK_NOTE, NULL, 0 };
    lazy lw = { c, CK_LEAKAGE, CHECK_WARNING, NULL, 0 };
    lazy ln = { c, CK_LEAKAGE, CHECK_NOTE, NULL, 0 };
    lazy cp = { c, CK_CACHE_PAIRS, CHECK_NOTE, NULL, 0 };
    lazy sum = { c, CK_SUMMARY_INPUT, CHECK_NOTE, NULL, 0 };
    agg_strs win = { 0 };
    uint64_t nzero = 0, ncounted = 0, nstarts = 0, nwin = 0, ncache = 0, npairs = 0;
    uint64_t leak_w[CK_NLEAK] = { 0 }, leak_n[CK_NLEAK] = { 0 };
    char lw_text[600], ln_text[600], n1[32], n2[32];
    size_t i, k, u1, u2;

    for (i = 0; i < c->nf; i++)
        if (c->f[i].has_counts) {
            ncounted += c->f[i].nfiles;
            if (c->f[i].total == 0)
                nzero += c->f[i].nfiles;
        }
    if (nzero && nzero == ncounted)
        zero.severity = CHECK_ERROR;
    for (i = 0; i < c->nf; i++) {
        const ck_file *r = &c->f[i];
        int own = r->source == AGG_OWN;
        char ops[400];
        size_t used = 0;

        if (r->has_counts && r->total == 0)
            lazy_add(&zero, r, NULL);
        if (r->format == AGG_FMT_SUMMARY_JSON)
            lazy_add(&sum, r, NULL);
        if (!r->has_counts || r->total == 0)
            continue;
        ops[0] = '\0';
        for (k = 0; k < CK_NLEAK && used < sizeof ops; k++)
            if (r->leak[k]) {
                cli_count_str(n1, sizeof n1, r->leak[k]);
                used += (size_t)snprintf(ops + used, sizeof ops - used, "%s%s %s",
                                         used ? ", " : "", check_leak_ops[k], n1);
                if (windowed(r))
                    leak_w[k] = sadd(leak_w[k], r->leak[k]);
                else
                    leak_n[k] = sadd(leak_n[k], r->leak[k]);
            }
        if (used)
            lazy_add(windowed(r) ? &lw : &ln, r, xprintf("%s: %s of %llu executions%s", r->path,
                     ops, (unsigned long long)r->exec,
                     own ? (windowed(r) ? " (windowed)" : " (collection on from the start)") : ""));
        if (!own) {
            if (r->cache_pairs) {
                ncache = sadd(ncache, r->cache_pairs);
                npairs = sadd(npairs, r->pairs);
                lazy_add(&cp, r, NULL);
            }
            continue;
        }
        if (r->windows == 0 && r->exec)
            lazy_add(&nowin, r, xprintf("%s: %llu executions, meta.collection.windows 0",
                                        r->path, (unsigned long long)r->exec));
        if (r->time_start && r->time_end && *r->time_start && *r->time_end
            && strcmp(r->time_start, r->time_end) > 0)
            lazy_add(&order, r, xprintf("%s: start %s, end %s", r->path, r->time_start,
                                        r->time_end));
        if (r->reason && strcmp(r->reason, "signal") == 0)
            lazy_add(&sig, r, NULL);
        if (r->reason && strcmp(r->reason, "os._exit") == 0)
            lazy_add(&osx, r, NULL);
        if (r->forked == 1) {
            lazy_add(&fork, r, NULL);
            if (r->ppid >= 0 && !has_pid(c, r->ppid))
                lazy_add(&orphan, r, xprintf("%s: parent pid %lld", r->path, r->ppid));
        }
        if (r->on_at_dump == 1 && !(r->reason && strcmp(r->reason, "explicit") == 0))
            lazy_add(r->windows > 1 ? &onw : &onn, r,
                     xprintf("%s: %lld windows, written at %s", r->path, r->windows,
                             r->reason ? r->reason : "?"));
        if (r->windows >= 0) {
            snprintf(n1, sizeof n1, "%lld", r->windows);
            tally(&win, n1, 1);
            nwin += (uint64_t)r->windows;
        }
        if (r->exec > r->pairs && r->windows > 0) {
            uint64_t s = r->exec - r->pairs;
            nstarts = sadd(nstarts, s);
            lazy_add(&starts, r, xprintf("%s: %llu executions - %llu pairs = %llu starts in %lld "
                                         "%s (%.1f per window)", r->path,
                                         (unsigned long long)r->exec, (unsigned long long)r->pairs,
                                         (unsigned long long)s, r->windows,
                                         plural((uint64_t)r->windows, "window", "windows"),
                                         (double)s / (double)r->windows));
        }
    }
    lazy_done(&zero, "%s", nzero == ncounted ? "every file is all zero" : "no counts in them");
    lazy_done(&nowin, "%s", "counts without a window");
    lazy_done(&order, "%s", "meta.time.start after meta.time.end");
    lazy_done(&sig, "%s", "meta.dump.reason signal");
    lazy_done(&osx, "%s", "meta.dump.reason os._exit");
    lazy_done(&fork, "%s", "meta.process.forked 1");
    lazy_done(&orphan, "%s", "no dump of their meta.process.ppid in the set");
    lazy_done(&onw, "%s", "meta.collection.on_at_dump 1 after several windows");
    lazy_done(&onn, "%s", "meta.collection.on_at_dump 1 (whole-program collection)");
    lazy_done(&starts, "%llu starts in %llu %s (%.1f per window)",
              (unsigned long long)nstarts, (unsigned long long)nwin,
              plural(nwin, "window", "windows"),
              nwin ? (double)nstarts / (double)nwin : 0.0);
    u1 = u2 = 0;
    lw_text[0] = ln_text[0] = '\0';
    for (k = 0; k < CK_NLEAK; k++) {
        if (leak_w[k] && u1 < sizeof lw_text - 1) {
            cli_count_str(n1, sizeof n1, leak_w[k]);
            u1 += (size_t)snprintf(lw_text + u1, sizeof lw_text - u1, "%s%s %s", u1 ? ", " : "",
                                   check_leak_ops[k], n1);
        }
        if (leak_n[k] && u2 < sizeof ln_text - 1) {
            cli_count_str(n2, sizeof n2, leak_n[k]);
            u2 += (size_t)snprintf(ln_text + u2, sizeof ln_text - u2, "%s%s %s", u2 ? ", " : "",
                                   check_leak_ops[k], n2);
        }
    }
    lazy_done(&lw, "windowed collection counted %s", lw_text);
    lazy_done(&ln, "%s", ln_text);
    cli_count_str(n1, sizeof n1, ncache);
    lazy_done(&sum, "%s", "counted from JSON summaries");
    lazy_done(&cp, "%s pairs start with CACHE (%.1f%% of their pairs): entries into the eval loop",
              n1, npairs ? 100.0 * (double)ncache / (double)npairs : 0.0);
    if (win.n) {
        char text[900];
        size_t used = 0;
        text[0] = '\0';
        for (i = 0; i < win.n && used < sizeof text - 1; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s %s in %llu %s",
                                     i ? "; " : "", win.v[i].text,
                                     strcmp(win.v[i].text, "1") == 0 ? "window" : "windows",
                                     (unsigned long long)win.v[i].n,
                                     plural(win.v[i].n, "dump", "dumps"));
        finding(c, CK_WINDOWS, CHECK_NOTE, "%s", text);
    }
    tally_free(&win);
}

void
check_finish(check_set *c, const agg *a)
{
    if (c->finished)
        return;
    c->finished = 1;
    c->nfiles = agg_files(a);
    sort(c->f, c->nf, sizeof *c->f, file_cmp);
    sort(c->is, c->nis, sizeof *c->is, issue_cmp);
    if (c->nfiles == 0)
        finding(c, CK_NO_FILES, CHECK_ERROR, "%llu %s looked at, none counted",
                (unsigned long long)a->inputs, plural(a->inputs, "entry", "entries"));
    issue_findings(c, a);
    mixes(c);
    duplicates(c);
    own_headers(c);
    sort(c->fd, c->nfd, sizeof *c->fd, finding_cmp);
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
check_verdict(const check_set *c, char *buf, size_t size)
{
    size_t e = c->count[CHECK_ERROR], w = c->count[CHECK_WARNING], n = c->count[CHECK_NOTE];

    if (size == 0)
        return buf;
    if (e || w) {
        const ck_finding *d = c->fd[0];  /* most severe first */
        snprintf(buf, size, "%s: %zu %s, %zu %s, %zu %s; first: %s (%s)",
                 e ? "untrusted" : "caution", e, e == 1 ? "error" : "errors",
                 w, w == 1 ? "warning" : "warnings", n, n == 1 ? "note" : "notes",
                 check_info[d->id].name, check_info[d->id].title);
    } else {
        snprintf(buf, size, "ok: no errors or warnings in %llu %s (%zu %s)",
                 (unsigned long long)c->nfiles, plural(c->nfiles, "file", "files"),
                 n, n == 1 ? "note" : "notes");
    }
    return buf;
}
