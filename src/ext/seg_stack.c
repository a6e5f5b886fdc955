/* seg_stack.c: segment counting's thread stacks and frame reading, the
 * slow paths (seg_stack.h holds the inline ones and the invariants). */
#include "seg_stack.h"

#if PC_HAVE_MONITORING

#include <stdlib.h>
#include <string.h>

seg_thread *seg_threads;
pthread_mutex_t seg_threads_lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t seg_gen = 1;
uint64_t seg_on_gen = SEG_GEN_NONE;
PyThreadState *seg_exit_ts;
seg_thread seg_unadopted; /* gen 0: seg_gen never is */
__thread seg_thread *seg_t __attribute__((tls_model("initial-exec"))) = &seg_unadopted;
static pthread_key_t thread_key; /* its destructor: thread_exit() */

static void
thread_exit(void *p)
{
    seg_thread *t = p, **pp;
    pthread_mutex_lock(&seg_threads_lock);
    if (!t->adopted || !pthread_equal(t->owner, pthread_self())) {
        pthread_mutex_unlock(&seg_threads_lock);
        return; /* another thread has taken it over */
    }
    if (t->gen == seg_gen && t->depth > 0) {
        /* Its last frames returned quietly (seg_quiet.h): kept, without
         * the GIL to settle them now, for the next cut to settle. */
        t->ts = NULL;
        t->adopted = 0;
        pthread_mutex_unlock(&seg_threads_lock);
        return;
    }
    for (pp = &seg_threads; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            break;
        }
    }
    pthread_mutex_unlock(&seg_threads_lock);
    free(t->stack);
    free(t);
}


int
seg_stack_init(void)
{
    if (pthread_key_create(&thread_key, thread_exit) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: pthread_key_create");
        return -1;
    }
    return 0;
}

/* The entry of ts, created if asked.  Caller holds seg_threads_lock. */
seg_thread *
seg_thread_find(PyThreadState *ts, int create)
{
    seg_thread *t;
    for (t = seg_threads; t != NULL; t = t->next)
        if (t->ts == ts && t->ts_id == ts->id)
            return t;
    if (!create)
        return NULL;
    t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->ts = ts;
    t->ts_id = ts->id;
    t->last = SEG_NONE;
    t->next = seg_threads;
    seg_threads = t;
    return t;
}

void
seg_thread_reset(seg_thread *t)
{
    t->depth = 0;
    t->last = SEG_NONE;
    t->gen = seg_gen;
}

seg_thread *
seg_thread_adopt(int reset)
{
    PyThreadState *ts = PyThreadState_Get();
    seg_thread *t;
    /* After the exit cut only the exiting thread counts: another one is
     * a daemon thread that will be killed or hung where it stands, its
     * counts settled by the cut. */
    if (seg_exit_ts != NULL && ts != seg_exit_ts)
        return NULL;
    pthread_mutex_lock(&seg_threads_lock);
    t = seg_thread_find(ts, 1);
    if (t != NULL) {
        t->owner = pthread_self();
        t->adopted = 1;
    }
    pthread_mutex_unlock(&seg_threads_lock);
    if (t == NULL) {
        pc_g.error_pending = 1;
        return NULL;
    }
    if (reset)
        t->lost = 0; /* measure()'s start: nothing of before counts */
    if (reset || t->gen != seg_gen)
        seg_thread_reset(t);
    seg_t = t;
    pthread_setspecific(thread_key, t);
    return t;
}

__attribute__((noinline, cold)) int
seg_stack_grow(seg_thread *t)
{
    int cap = t->cap ? 2 * t->cap : 64;
    seg_frame *s = realloc(t->stack, (size_t)cap * sizeof *s);
    if (s == NULL) {
        pc_g.error_pending = 1;
        return -1;
    }
    t->stack = s;
    t->cap = cap;
    return 0;
}

/* A frame at a RESUME: one that has not reported its start there when
 * what runs at RESUME's eval breaker (3.13+) has it as its caller, or
 * whose start another tool's callback cut short. */
int
seg_at_resume(pc_iframe *p)
{
    pc_codeinfo *ci = pc_codeinfo_get(pc_iframe_executable(p));
    Py_ssize_t u = pc_iframe_unit(p);
    return ci != NULL && u >= 0 && u < ci->n && ci->op[u] == seg_op.resume;
}

#ifdef PC_FRAME_READ_PUBLIC
/* Frames the caller search passes over (as seg_caller_instruction() does
 * with internal frames): a generator's not entered by throw(), and one
 * waiting at the eval breaker of a RESUME it has not reported. */
static int
public_skipped(PyFrameObject *fr, PyCodeObject *code)
{
    PyObject *gen = PyFrame_GetGenerator(fr); /* new reference */
    pc_codeinfo *ci;
    int lasti;
    if (gen != NULL) {
        Py_DECREF(gen);
        return 1;
    }
    ci = pc_codeinfo_get((PyObject *)code);
    lasti = PyFrame_GetLasti(fr);
    return ci != NULL && lasti >= 0 && lasti / 2 < ci->n && ci->op[lasti / 2] == seg_op.resume;
}

/* The public API's way, for comparison (see docs/FORMAT.md 1.9): it
 * materializes frame objects, so it may allocate. */
static int32_t
frame_unit_public(const seg_frame *f, int caller)
{
    pc_exc saved; /* the exception in flight */
    PyFrameObject *cur, *fr;
    PyCodeObject *code;
    int lasti;
    int32_t r = -1;

    saved = pc_exc_save();
    cur = PyEval_GetFrame(); /* borrowed */
    if (cur == NULL)
        goto done;
    fr = caller ? PyFrame_GetBack(cur) : (Py_INCREF(cur), cur);
    if (fr == NULL)
        goto done;
    code = PyFrame_GetCode(fr);
    while (caller && (PyObject *)code != f->sc->code && public_skipped(fr, code)) {
        PyFrameObject *back = PyFrame_GetBack(fr);
        Py_DECREF(code);
        Py_DECREF(fr);
        if ((fr = back) == NULL)
            goto done;
        code = PyFrame_GetCode(fr);
    }
    lasti = PyFrame_GetLasti(fr);
    if ((PyObject *)code == f->sc->code && lasti >= 0)
        r = seg_owner_unit(f->sc, lasti / 2);
    Py_DECREF(code);
    Py_DECREF(fr);
done:
    PyErr_Clear();
    pc_exc_restore(saved);
    return r;
}
#endif


int
seg_unreported(pc_iframe *p)
{
    return seg_init_shim(p) || (PC_RESUME_BREAKER_FIRST && seg_at_resume(p));
}

/* At PY_START/PY_RESUME/PY_THROW: the caller's current instruction. */
int32_t
seg_caller_instruction(seg_thread *t, const seg_frame *f)
{
#ifdef PC_FRAME_READ_PUBLIC
    (void)t;
    return frame_unit_public(f, 1);
#else
    pc_iframe *cur = pc_tstate_iframe(t->ts), *p;
    if (cur == NULL)
        return -1;
    p = seg_python_frame(cur->previous);
    /* throw() into a generator suspended in `yield from`/`await` throws
     * into the innermost one first, with the outer ones linked into the
     * frame chain but not entered (no event, nothing executed): skip
     * them. */
    while (p != NULL && pc_iframe_executable(p) != f->sc->code &&
           (p->owner == PC_FRAME_OWNED_BY_GENERATOR || seg_init_shim(p) || seg_at_resume(p)))
        p = seg_python_frame(p->previous);
    return seg_iframe_instruction(p, f);
#endif
}

/* At RAISE: the raising frame's own current instruction. */
int32_t
seg_own_instruction(seg_thread *t, const seg_frame *f)
{
#ifdef PC_FRAME_READ_PUBLIC
    (void)t;
    return frame_unit_public(f, 0);
#else
    return seg_iframe_instruction(seg_python_frame(pc_tstate_iframe(t->ts)), f);
#endif
}

/* Put ts's running frames on t's stack, outermost first, each stopped at
 * its current instruction.  -1 if out of memory. */
int
seg_seed(seg_thread *t, PyThreadState *ts)
{
    pc_iframe *p;
    int n = 0, i;
    pc_iframe **frames = NULL;

    for (p = seg_python_frame(pc_tstate_iframe(ts)); p != NULL; p = seg_python_frame(p->previous))
        n++;
    if (n == 0)
        return 0;
    frames = malloc((size_t)n * sizeof *frames);
    if (frames == NULL)
        return -1;
    i = n;
    for (p = seg_python_frame(pc_tstate_iframe(ts)); p != NULL; p = seg_python_frame(p->previous))
        frames[--i] = p;
    for (i = 0; i < n; i++) {
        seg_frame *f;
        int32_t c;
        p = frames[i];
        f = seg_push(t, pc_iframe_executable(p));
        if (f == NULL) {
            free(frames);
            return -1;
        }
        f->iframe = p;
        c = seg_iframe_instruction(p, f);
        if (c < f->sc->first_resume) {
            /* Not started yet (before RESUME): PY_START will come. */
            t->depth--;
            continue;
        }
        f->at = c;
        f->seeded = 1;
    }
    free(frames);
    return 0;
}

/* The frame p goes on the rebuilt stack at index i (seg_rebuild): one
 * that has started and reported it, stopped at its current instruction,
 * or (cur) with nothing open.  0 if left off, -1 if out of memory. */
static int
rebuilt_frame(seg_thread *t, int i, pc_iframe *p, int cur)
{
    seg_code *sc = seg_code_for(pc_iframe_executable(p));
    seg_frame *f = &t->stack[i];
    int32_t c;
    if (sc == NULL)
        return -1;
    f->sc = sc;
    f->iframe = p;
    c = seg_iframe_instruction(p, f);
    if (c < sc->first_resume || (!cur && seg_unreported(p)))
        return 0; /* its PY_START is still to come */
    f->start = f->raised = f->resume = f->jumped = -1;
    f->at = cur ? -1 : c;
    f->eager_last = SEG_NONE;
    f->seeded = 0;
    return 1;
}

void
seg_rebuild(seg_thread *t, int own)
{
    pc_iframe *cur = seg_python_frame(pc_tstate_iframe(t->ts)), *p;
    int n = 0, k = 0, r;

    t->lost = 0;
    seg_thread_reset(t);
    for (p = cur; p != NULL; p = seg_python_frame(p->previous))
        n++;
    while (t->cap < n)
        if (seg_stack_grow(t) < 0)
            return;
    /* Innermost first, from the top of [0, n) down: the frames kept end
     * in [n - k, n) outermost first, then move to the bottom. */
    for (p = cur; p != NULL; p = seg_python_frame(p->previous)) {
        if (p == cur && !own)
            continue;
        r = rebuilt_frame(t, n - 1 - k, p, p == cur);
        if (r < 0)
            return;
        k += r;
    }
    memmove(t->stack, t->stack + (n - k), (size_t)k * sizeof *t->stack);
    t->depth = k;
}

#endif /* PC_HAVE_MONITORING */

#if PC_HAVE_MONITORING
/* ---- where a desync happened (pc_desync_describe) ---- */

/* s, a str, appended as UTF-8 without allocating (ASCII) or with
 * Python's cached UTF-8 (keeping any exception in flight). */
static void
put_str(char *buf, size_t cap, PyObject *s)
{
    const char *u = NULL;
    if (s == NULL || !PyUnicode_Check(s)) {
        psf_strlcat(buf, "?", cap);
        return;
    }
    if (PyUnicode_IS_ASCII(s)) {
        u = (const char *)PyUnicode_DATA(s);
    }
    else {
        pc_exc saved = pc_exc_save();
        u = PyUnicode_AsUTF8(s);
        PyErr_Clear();
        pc_exc_restore(saved);
    }
    psf_strlcat(buf, u != NULL ? u : "?", cap);
}

static void
put_num(char *buf, size_t cap, const char *before, long long v)
{
    char num[24];
    psf_strlcat(buf, before, cap);
    if (v < 0) {
        psf_strlcat(buf, "-", cap);
        v = -v;
    }
    psf_u64_to_str((uint64_t)v, num);
    psf_strlcat(buf, num, cap);
}

/* A code object by its key's parts: FILE line FIRSTLINE QUALNAME. */
static void
put_code(char *buf, size_t cap, PyObject *code)
{
    PyCodeObject *co = (PyCodeObject *)code;
    if (code == NULL || !PyCode_Check(code)) {
        psf_strlcat(buf, "(no code)", cap);
        return;
    }
    put_str(buf, cap, co->co_filename);
    put_num(buf, cap, " line ", co->co_firstlineno);
    psf_strlcat(buf, " ", cap);
    put_str(buf, cap, co->co_qualname);
}

static void
put_unit(char *buf, size_t cap, const char *what, const seg_code *sc, int32_t u)
{
    if (u < 0)
        return;
    put_num(buf, cap, what, 2LL * u);
    if (sc != NULL && u < sc->n) {
        psf_strlcat(buf, " ", cap);
        psf_strlcat(buf, pc_g.opname[sc->op[u]], cap);
    }
}

static void build_report(void);

/* The current thread's shadow stack and its real frames, innermost
 * first (at most 8 of each), appended to buf; then the report built. */
static void
describe(char *buf, size_t cap)
{
    seg_thread *t = seg_t;
    PyThreadState *ts = PyGILState_GetThisThreadState();
    pc_iframe *p;
    int i, k;

    if (t == NULL || t->gen != seg_gen) {
        psf_strlcat(buf, "; no shadow stack", cap);
    }
    else {
        put_num(buf, cap, "; shadow stack (depth ", t->depth);
        psf_strlcat(buf, ", last ", cap);
        psf_strlcat(buf,
                    t->last >= 0         ? pc_g.opname[t->last]
                    : t->last == SEG_TOP ? "top"
                                         : "none",
                    cap);
        psf_strlcat(buf, ")", cap);
        for (i = t->depth - 1, k = 0; i >= 0 && k < 8; i--, k++) {
            const seg_frame *f = &t->stack[i];
            psf_strlcat(buf, k ? ", " : " ", cap);
            put_code(buf, cap, f->sc->code);
            put_unit(buf, cap, " start ", f->sc, f->start);
            put_unit(buf, cap, " at ", f->sc, f->at);
            put_unit(buf, cap, " raised ", f->sc, f->raised);
            put_unit(buf, cap, " resume ", f->sc, f->resume);
            put_unit(buf, cap, " jumped ", f->sc, f->jumped);
            if (f->seeded)
                psf_strlcat(buf, " seeded", cap);
        }
    }
    psf_strlcat(buf, "; frames", cap);
    if (ts == NULL) {
        psf_strlcat(buf, " (no thread state)", cap);
        return;
    }
    for (p = seg_python_frame(pc_tstate_iframe(ts)), k = 0; p != NULL && k < 8;
         p = seg_python_frame(p->previous), k++) {
        psf_strlcat(buf, k ? ", " : " ", cap);
        put_code(buf, cap, pc_iframe_executable(p));
        put_num(buf, cap, " offset ", 2LL * pc_iframe_unit(p));
    }
    if (k == 0)
        psf_strlcat(buf, " none", cap);
    build_report();
}

/* The first desync's report (pc_seg_desync_report): the code objects
 * of its shadow stack and of its real frames, each disassembled (base
 * opcodes by byte offset, opargs where segment counting has them), up
 * to 8 distinct ones.  Built in describe(), cold; static: no allocation,
 * and a signal's dump may write it. */
static char report[32768];
static PyObject *reported[16]; /* borrowed, while building only */
static int nreported;

static void
report_code(PyObject *code)
{
    pc_codeinfo *ci;
    const seg_code *sc;
    Py_ssize_t u;
    int i;
    if (code == NULL || !PyCode_Check(code) || nreported >= 8)
        return;
    for (i = 0; i < nreported; i++)
        if (reported[i] == code)
            return;
    reported[nreported++] = code;
    ci = pc_codeinfo_get(code);
    psf_strlcat(report, "\ncode ", sizeof report);
    put_code(report, sizeof report, code);
    if (ci == NULL) {
        psf_strlcat(report, " (unreadable)\n", sizeof report);
        return;
    }
    put_num(report, sizeof report, " (", (long long)ci->n);
    psf_strlcat(report, " code units)\n", sizeof report);
    sc = ci->seg;
    for (u = 0; u < ci->n; u++) {
        const char *name = pc_g.opname[ci->op[u]];
        if (sc != NULL && u < sc->n && sc->span[u] <= 0)
            continue; /* a cache unit */
        if (sc == NULL && strcmp(name, "CACHE") == 0)
            continue;
        put_num(report, sizeof report, "  ", 2LL * u);
        psf_strlcat(report, " ", sizeof report);
        psf_strlcat(report, name, sizeof report);
        if (sc != NULL && u < sc->n)
            put_num(report, sizeof report, " ", sc->arg[u]);
        psf_strlcat(report, "\n", sizeof report);
    }
}

static void
build_report(void)
{
    seg_thread *t = seg_t;
    PyThreadState *ts = PyGILState_GetThisThreadState();
    pc_iframe *p;
    int i;
    report[0] = '\0';
    nreported = 0;
    if (t != NULL && t->gen == seg_gen)
        for (i = t->depth - 1; i >= 0 && t->depth - i <= 8; i--)
            report_code(t->stack[i].sc->code);
    if (ts != NULL)
        for (p = seg_python_frame(pc_tstate_iframe(ts)), i = 0; p != NULL && i < 8;
             p = seg_python_frame(p->previous), i++)
            report_code(pc_iframe_executable(p));
    nreported = 0;
}

const char *
seg_report_text(void)
{
    return report;
}

void
seg_report_clear(void)
{
    report[0] = '\0';
}

void
seg_describe_init(void)
{
    pc_desync_describe = describe;
}
#endif
