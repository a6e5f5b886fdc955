/* segments.c: exact instruction and pair counts from the events that
 * begin and end straight-line runs of bytecode (3.12+): the mechanism of
 * mode "count" there.  Mode "instructions" (monitoring.c) takes one
 * INSTRUCTION event per instruction instead; both give identical counts
 * and pairs (tests/py/test_segments.py).
 *
 * The method.  A segment is a run of instructions executed one after
 * the other in one frame, from a first unit s to a last unit e in code
 * order.  Segments begin at PY_START/PY_RESUME (the RESUME), at the
 * target of a JUMP or BRANCH event and at the handler of
 * EXCEPTION_HANDLED; they end at the source of JUMP/BRANCH, at
 * PY_RETURN/PY_YIELD, and at the raising instruction when the exception
 * is handled (EXCEPTION_HANDLED) or leaves the frame (PY_UNWIND).  Each
 * code object has two arrays indexed by code unit, starts[] and ends[];
 * a closed segment adds one to starts[s] and ends[e].  At dump time a
 * running sum over the code gives every instruction's execution count,
 * and count minus ends[u] is how often u was followed by the next
 * instruction in code order: the pairs inside segments.  Pairs across
 * segment boundaries (jumps, calls, returns, handlers) are counted
 * directly into pc_g.pair when the boundary is seen.
 *
 * On 3.14 BRANCH is BRANCH_LEFT and BRANCH_RIGHT, some of which name
 * another instruction than the one that fired them (branch_fixup()).
 *
 * Two jumps fire no event: JUMP_BACKWARD_NO_INTERRUPT (await and yield
 * from loops; after except handlers on 3.13) and SEND jumping to its
 * END_SEND when the sub-iterator is exhausted.  They are resolved from
 * the bytecode when a segment is closed: a JUMP_BACKWARD_NO_INTERRUPT on
 * the way always jumps; a SEND on the way fell through only if the
 * closing event is PY_YIELD at the YIELD_VALUE right after it (its
 * fall-through path always reaches that YIELD_VALUE, which always fires
 * PY_YIELD).  Unconditional jumps whose events are turned off after
 * their first one ("quiet jumps", see quiet_site()) are resolved the
 * same way.
 *
 * A frame whose Python callee returned goes on at the next instruction:
 * its segment is reopened there at once (eager_restart()), and taken
 * back if its next event is where it stopped (eager_settle()).  Each
 * callback first tries the common case inline (start(), leave(),
 * cb_jump()) and hands everything else to a *_other function.
 *
 * Each thread keeps a shadow stack of its frames: code, open segment
 * start, and, while the frame waits for a callee (or was running when
 * collection started), the instruction it stopped at.  A frame calling
 * another is stopped at its current instruction, read from the frame
 * itself at PY_START/PY_RESUME/PY_THROW (compat.h); control comes back
 * without an event, so the frame resumes "after" that instruction at its
 * next event: at the next instruction in code order, or where a SEND or
 * a pending jump leads.  The thread's last executed instruction (a
 * callee's RETURN_VALUE, YIELD_VALUE or raising instruction) is the
 * predecessor of whatever runs next.
 *
 * RAISE only records where the frame raised (it also fires for a
 * StopIteration that FOR_ITER or SEND swallows, which ends nothing), read
 * from the frame: its offset can name a cache entry or, for an exception
 * from a callee, an earlier instruction.  After PY_THROW no segment is
 * open: the RAISE that follows names the YIELD_VALUE that already ran.
 *
 * Hot path rules (collector.h): no allocation except on first sight of a
 * code object and when a stack must grow, no exception, no lock.
 */
#include "segments.h"
#include "hotcode.h"

#if PC_HAVE_MONITORING

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef PC_FRAME_READ_PUBLIC
#  define PC_PUBLIC_FRAMES 1
#else
#  define PC_PUBLIC_FRAMES 0
#endif

#define SEG_NONE (-1)   /* the thread's last instruction: none (no pair) */
#define SEG_TOP (-2)    /* ... is the top frame's, inside its open segment */

/* ---- per code object ---- */

typedef struct seg_code {
    struct seg_code *next, **pprev;     /* live ones, for fold and zero */
    PyObject *code;                     /* borrowed */
    int32_t n;                          /* code units */
    int32_t first_resume;               /* unit of the first RESUME */
    const uint8_t *op;                  /* base opcode per unit (codeinfo) */
    const uint8_t *slot;                /* hot->counts slot per unit */
    pc_hot *hot;                        /* per code statistics */
    uint8_t *arg;                       /* oparg byte per unit */
    int8_t *span;                       /* instruction start: its length in
                                           units; cache unit: minus the
                                           distance back to its owner */
    int32_t *silent;                    /* first silent jump at or after u
                                           (SEND, JBNI, a quiet jump), n if
                                           none */
    uint8_t *quiet_ok;                  /* a jump whose event may be turned
                                           off (see quiet_site()) */
    int32_t *target;                    /* a silent-capable jump's target
                                           (SEND, JBNI, JUMP_FORWARD,
                                           JUMP_BACKWARD), else itself */
    uint64_t *starts, *ends;
} seg_code;

static seg_code *codes;

/* Opcodes after which a frame whose Python callee returned goes on at
 * the next instruction unless it raises or calls again there: those
 * that jump, or fire an event of their own, are not in it. */
static uint8_t eager_op[PC_NOPS];

static int op_cache = -1, op_send = -1, op_jbni = -1, op_jump_backward = -1,
           op_jump_forward = -1, op_for_iter = -1, op_extended_arg = -1,
           op_resume = -1, op_exit_init_check = -1, op_not_taken = -1,
           op_pop_iter = -1, op_end_async_for = -1;

/* ---- per thread ---- */

typedef struct seg_frame {
    seg_code *sc;       /* its code (sc->code) and counts */
    pc_iframe *iframe;  /* the interpreter's frame it shadows: where a
                           dump finds its current instruction */
    int32_t start;      /* first unit of the open segment, or -1 */
    int32_t at;         /* stopped at this unit, resumes after it; or -1 */
    int32_t raised;     /* last raising instruction of the open segment */
    int32_t resume;     /* where a frame stopped at `at` goes on, when
                           known already; else -1 */
    int32_t jumped;     /* source of the frame's last JUMP/BRANCH event */
    int16_t eager_last; /* restarted eagerly: the callee's last opcode */
    int8_t seeded;      /* `at` was under way, uninstrumented, when
                           collection started */
} seg_frame;
/* A frame with start < 0 and at < 0 was entered by PY_THROW: nothing of
 * it runs until EXCEPTION_HANDLED or PY_UNWIND.  A frame with start >= 0
 * and at >= 0 was restarted eagerly when its callee returned (see
 * eager_restart()): not yet confirmed by an event of its own. */

typedef struct seg_thread {
    struct seg_thread *next;
    PyThreadState *ts;
    pthread_t owner;        /* the thread that adopted it */
    int adopted;
    uint64_t gen;           /* valid while == seg_gen */
    int last;               /* opcode, SEG_NONE or SEG_TOP */
    int measuring;          /* its measure() depth */
    int depth, cap;
    seg_frame *stack;
} seg_thread;

static seg_thread *threads;                 /* guarded by threads_lock */
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t thread_key;
static uint64_t seg_gen = 1;
static __thread seg_thread *seg_t __attribute__((tls_model("initial-exec")));

/* ---- bytecode helpers ---- */

/* The next instruction after the one starting at u. */
static inline int32_t
next_unit(const seg_code *sc, int32_t u)
{
    return u + sc->span[u];
}

/* The instruction a unit belongs to (a cache unit's owner). */
static inline int32_t
owner_unit(const seg_code *sc, Py_ssize_t u)
{
    if (u < 0 || u >= sc->n)
        return -1;
    return sc->span[u] < 0 ? (int32_t)u + sc->span[u] : (int32_t)u;
}

static int32_t
oparg(const seg_code *sc, int32_t u)
{
    int32_t a = sc->arg[u], k = u - 1, shift = 8;
    while (k >= 0 && sc->op[k] == op_extended_arg && shift < 32) {
        a |= (int32_t)sc->arg[k] << shift;
        shift += 8;
        k--;
    }
    return a;
}

static int32_t
jump_target(const seg_code *sc, int32_t u)
{
    int op = sc->op[u];
    int32_t nx = next_unit(sc, u);
    if (op == op_jbni || op == op_jump_backward)
        return nx - oparg(sc, u);
    return nx + oparg(sc, u);
}

/* An event's offset argument (bytes) as a code unit; -1 if odd. */
static inline int32_t
unit_arg(PyObject *o)
{
    return pc_offset_unit(o);
}

static inline void
pair(int a, int b)
{
    if (a >= 0)
        pc_g.pair[a][b]++;
}

static inline int
valid_unit(const seg_code *sc, int32_t u)
{
    return u >= 0 && u < sc->n;
}

/* ---- quiet jumps ----
 *
 * An unconditional jump always goes to its target, so its JUMP event
 * tells nothing the bytecode does not: at its first event the callback
 * returns sys.monitoring.DISABLE, CPython takes the instrumentation off
 * that instruction, and from then on segments are closed across it like
 * across JUMP_BACKWARD_NO_INTERRUPT (walk_silent()).  That is one event
 * less per loop iteration.  The one condition: every pass through a
 * quiet backward jump must still meet an event before it comes round
 * again, or a loop's iterations could not be counted.  A JUMP_BACKWARD
 * qualifies when the straight-line run from its target reaches an
 * instruction that always fires one (FOR_ITER, POP_JUMP_IF_*: BRANCH
 * either way; RETURN_*, YIELD_VALUE) before any jump; a JUMP_FORWARD
 * never closes a loop. */

static int op_pop_jump[4] = {-1, -1, -1, -1}, op_return_value = -1,
           op_return_const = -1, op_yield_value = -1;

static int
always_fires(int op)
{
    int k;
    if (op == op_for_iter || op == op_return_value ||
        op == op_return_const || op == op_yield_value)
        return 1;
    for (k = 0; k < 4; k++)
        if (op == op_pop_jump[k])
            return 1;
    return 0;
}

static int
quiet_eligible(const seg_code *sc, int32_t u)
{
    int op = sc->op[u];
    int32_t v;
    if (op == op_jump_forward)
        return 1;
    if (op != op_jump_backward)
        return 0;
    for (v = jump_target(sc, u); v >= 0 && v < sc->n; v = next_unit(sc, v)) {
        int o = sc->op[v];
        if (always_fires(o))
            return 1;
        if (v == u || o == op_jump_forward || o == op_jump_backward ||
            o == op_jbni || o == op_send || sc->span[v] <= 0)
            return 0;
    }
    return 0;
}

static PyObject *monitoring_disable;    /* sys.monitoring.DISABLE */

/* The JUMP event of the jump at u has been counted: make u silent and
 * tell CPython to stop reporting it.  Idempotent (another tool's
 * restart_events() brings the event back). */
static PyObject *
quiet_site(seg_code *sc, int32_t u)
{
    int32_t v;
    for (v = u; v >= 0 && sc->silent[v] > u; v--)
        sc->silent[v] = u;
    return Py_NewRef(monitoring_disable);
}

/* ---- code objects: first sight (slow path) ---- */

static seg_code *
seg_code_slow(pc_codeinfo *ci)
{
    PyObject *exc_type, *exc_value, *exc_tb;
    PyObject *bytes;    /* owned */
    seg_code *sc = NULL;
    int32_t n = (int32_t)ci->n, i;
    size_t size;
    char *p;
    const uint8_t *raw;

    PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
    bytes = PyCode_GetCode((PyCodeObject *)ci->code);
    if (bytes == NULL || !PyBytes_Check(bytes) ||
        PyBytes_GET_SIZE(bytes) / 2 != ci->n)
        goto done;
    raw = (const uint8_t *)PyBytes_AS_STRING(bytes);
    size = sizeof(seg_code) + 2 * (size_t)n * sizeof(uint64_t) +
           2 * (size_t)n * sizeof(int32_t) + 3 * (size_t)n + 1;
    p = calloc(1, size);
    if (p == NULL)
        goto done;
    sc = (seg_code *)p;
    p += sizeof(seg_code);
    sc->starts = (uint64_t *)p;
    p += (size_t)n * sizeof(uint64_t);
    sc->ends = (uint64_t *)p;
    p += (size_t)n * sizeof(uint64_t);
    sc->silent = (int32_t *)p;
    p += (size_t)n * sizeof(int32_t);
    sc->target = (int32_t *)p;
    p += (size_t)n * sizeof(int32_t);
    sc->quiet_ok = (uint8_t *)p;
    p += (size_t)n;
    sc->arg = (uint8_t *)p;
    p += (size_t)n;
    sc->span = (int8_t *)p;
    sc->code = ci->code;
    sc->n = n;
    sc->op = ci->op;
    sc->slot = ci->slot;
    sc->hot = ci->hot;
    sc->first_resume = n;
    for (i = 0; i < n; i++) {
        sc->arg[i] = raw[2 * i + 1];
        if (sc->first_resume == n && ci->op[i] == op_resume)
            sc->first_resume = i;
    }
    {
        int32_t owner = 0;
        for (i = 0; i < n; i++) {
            if (ci->op[i] == op_cache && i > 0 && i - owner <= 127) {
                sc->span[i] = (int8_t)(owner - i);
            }
            else {
                int32_t j = i + 1;
                while (j < n && ci->op[j] == op_cache && j - i <= 127)
                    j++;
                sc->span[i] = (int8_t)(j - i);
                owner = i;
            }
        }
    }
    {
        int32_t nxt = n;
        for (i = n - 1; i >= 0; i--) {
            if (ci->op[i] == op_send || ci->op[i] == op_jbni)
                nxt = i;
            sc->silent[i] = nxt;
        }
    }
    for (i = 0; i < n; i++) {
        int op = ci->op[i];
        int32_t tg = i;
        if (sc->span[i] > 0 &&
            (op == op_send || op == op_jbni || op == op_jump_forward ||
             op == op_jump_backward)) {
            tg = jump_target(sc, i);
            if (tg < 0 || tg >= n)
                tg = i;         /* never: walk_silent's guard stops it */
        }
        sc->target[i] = tg;
    }
    for (i = 0; i < n; i += sc->span[i] > 0 ? sc->span[i] : 1)
        sc->quiet_ok[i] = quiet_eligible(sc, i);
    sc->next = codes;
    if (codes)
        codes->pprev = &sc->next;
    sc->pprev = &codes;
    codes = sc;
    ci->seg = sc;
done:
    Py_XDECREF(bytes);
    if (sc == NULL)
        pc_g.error_pending = 1;
    PyErr_Restore(exc_type, exc_value, exc_tb);
    return sc;
}

/* A direct-mapped cache in front of co_extra: the frames of a program's
 * hot loop come from a handful of code objects.  An entry is cleared
 * when its code object dies (pc_seg_code_free). */
#define SEG_CACHE 256
static struct {
    PyObject *code;
    seg_code *sc;
} seg_cache[SEG_CACHE];

static inline unsigned
cache_slot(PyObject *code)
{
    uintptr_t p = (uintptr_t)code;
    return (unsigned)((p >> 4) ^ (p >> 12)) & (SEG_CACHE - 1);
}

static seg_code *
seg_code_miss(PyObject *code, unsigned k)
{
    pc_codeinfo *ci = pc_codeinfo_get(code);
    seg_code *sc;
    if (ci == NULL)
        return NULL;
    sc = ci->seg != NULL ? ci->seg : seg_code_slow(ci);
    if (sc != NULL) {
        seg_cache[k].code = code;
        seg_cache[k].sc = sc;
    }
    return sc;
}

static inline seg_code *
seg_code_for(PyObject *code)
{
    unsigned k = cache_slot(code);
    if (seg_cache[k].code == code)
        return seg_cache[k].sc;
    return seg_code_miss(code, k);
}

/* Per-instruction counts and pairs of one code object into pc_g; its
 * arrays back to zero.  Plain C. */
static void
fold_code(seg_code *sc)
{
    uint64_t run = 0;
    int32_t u = 0, v;
    const uint8_t *op = sc->op;

    while (u < sc->n && op[u] == op_cache)
        u++;
    while (u < sc->n) {
        v = next_unit(sc, u);
        run += sc->starts[u];
        if (sc->ends[u] > run) {
            PC_DESYNC();
            run = sc->ends[u];
        }
        if (run) {
            uint64_t through = run - sc->ends[u];
            pc_g.exec[op[u]] += run;
            sc->hot->counts[sc->slot[u]] += run;
            if (through && v < sc->n)
                pc_g.pair[op[u]][op[v]] += through;
        }
        run -= sc->ends[u];
        sc->starts[u] = sc->ends[u] = 0;
        u = v;
    }
    if (run)
        PC_DESYNC();
}

void
pc_seg_code_free(pc_codeinfo *ci)
{
    seg_code *sc = ci->seg;
    unsigned k;
    if (sc == NULL)
        return;
    k = cache_slot(ci->code);
    if (seg_cache[k].code == ci->code)
        seg_cache[k].code = NULL;
    /* Unlinked first: a dump from a signal handler arriving meanwhile
     * misses these counts rather than counting them twice. */
    *sc->pprev = sc->next;
    if (sc->next)
        sc->next->pprev = sc->pprev;
    fold_code(sc);
    ci->seg = NULL;
    free(sc);
}

void
pc_seg_fold(void)
{
    seg_code *sc;
    for (sc = codes; sc != NULL; sc = sc->next)
        fold_code(sc);
}

void
pc_seg_zero(void)
{
    seg_code *sc;
    seg_thread *t;
    for (sc = codes; sc != NULL; sc = sc->next) {
        memset(sc->starts, 0, (size_t)sc->n * sizeof(uint64_t));
        memset(sc->ends, 0, (size_t)sc->n * sizeof(uint64_t));
    }
    pthread_mutex_lock(&threads_lock);
    for (t = threads; t != NULL; t = t->next) {
        if (t->last != SEG_TOP)
            t->last = SEG_NONE;
        if (t->depth > 0) {
            /* An eager restart's pair is gone with the old counts: an
             * undo must not take it from the new ones. */
            seg_frame *f = &t->stack[t->depth - 1];
            if (f->start >= 0 && f->at >= 0)
                f->eager_last = SEG_NONE;
        }
    }
    pthread_mutex_unlock(&threads_lock);
}

/* ---- threads ---- */

static void
thread_exit(void *p)
{
    seg_thread *t = p, **pp;
    pthread_mutex_lock(&threads_lock);
    if (!t->adopted || !pthread_equal(t->owner, pthread_self())) {
        pthread_mutex_unlock(&threads_lock);
        return;             /* another thread has taken it over */
    }
    for (pp = &threads; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            break;
        }
    }
    pthread_mutex_unlock(&threads_lock);
    free(t->stack);
    free(t);
}

/* The entry of ts, created if asked.  Caller holds threads_lock. */
static seg_thread *
thread_find(PyThreadState *ts, int create)
{
    seg_thread *t;
    for (t = threads; t != NULL; t = t->next)
        if (t->ts == ts)
            return t;
    if (!create)
        return NULL;
    t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->ts = ts;
    t->last = SEG_NONE;
    t->next = threads;
    threads = t;
    return t;
}

static void
thread_reset(seg_thread *t)
{
    t->depth = 0;
    t->last = SEG_NONE;
    t->gen = seg_gen;
}

static seg_thread *
thread_adopt(int reset)
{
    PyThreadState *ts = PyThreadState_Get();
    seg_thread *t;
    pthread_mutex_lock(&threads_lock);
    t = thread_find(ts, 1);
    if (t != NULL) {
        t->owner = pthread_self();
        t->adopted = 1;
    }
    pthread_mutex_unlock(&threads_lock);
    if (t == NULL) {
        pc_g.error_pending = 1;
        return NULL;
    }
    if (reset || t->gen != seg_gen)
        thread_reset(t);
    seg_t = t;
    pthread_setspecific(thread_key, t);
    return t;
}

static inline seg_thread *
thread_get(void)
{
    seg_thread *t = seg_t;
    if (t != NULL && t->gen == seg_gen)
        return t;
    return thread_adopt(0);
}

static __attribute__((noinline, cold)) int
grow(seg_thread *t)
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

static inline seg_frame *
push(seg_thread *t, PyObject *code)
{
    seg_code *sc;
    seg_frame *f;
    if (t->depth == t->cap && grow(t) < 0)
        return NULL;
    sc = seg_code_for(code);
    if (sc == NULL)
        return NULL;
    f = &t->stack[t->depth++];
    f->sc = sc;
    f->iframe = pc_tstate_iframe(t->ts);    /* the frame starting now */
    f->start = f->at = f->raised = f->resume = f->jumped = -1;
    f->seeded = 0;
    return f;
}

/* The top frame, which the event's code must be; NULL if the stack does
 * not fit the event (a bug: counted in desync, the event is dropped). */
static int at_resume(pc_iframe *p);

static __attribute__((noinline, cold)) seg_frame *
top_mismatch(seg_thread *t, PyObject *code)
{
    pc_iframe *p = pc_tstate_iframe(t->ts);
    int i;
    /* The thread's current frame runs this code and has not got past its
     * RESUME: a frame that never reported its start, because another
     * tool's PY_START/PY_RESUME callback (a trace function's 'call'
     * event) raised before ours was called, or the eval breaker at its
     * RESUME raised.  Nothing of it ran (mode instructions, whose RESUME
     * is counted at PY_START too, counts nothing of it either): its RAISE
     * and PY_UNWIND are not ours to follow. */
    while (p != NULL && pc_iframe_code(p) == NULL)
        p = p->previous;
    if (p != NULL && pc_iframe_executable(p) == code && at_resume(p))
        return NULL;
    PC_DESYNC();
    for (i = t->depth - 2; i >= 0; i--) {
        if (t->stack[i].sc->code == code) {
            t->depth = i + 1;
            return &t->stack[i];
        }
    }
    return NULL;
}

static inline seg_frame *
top_for(seg_thread *t, PyObject *code)
{
    if (t->depth > 0) {
        seg_frame *f = &t->stack[t->depth - 1];
        if (f->sc->code == code)
            return f;
    }
    return top_mismatch(t, code);
}

/* ---- segments ---- */

static inline __attribute__((always_inline)) void
close_run(seg_code *sc, int32_t s, int32_t e)
{
    sc->starts[s]++;
    sc->ends[e]++;
}

/* Close the open segment of f at e, following the silent jumps on the
 * way (see the top of this file).  yielding: e is a YIELD_VALUE closed
 * by PY_YIELD. */
static __attribute__((noinline)) void
walk_silent(seg_frame *f, int32_t e, int yielding)
{
    seg_code *sc = f->sc;
    int32_t s = f->start, j, u;
    int guard = 0;

    while ((j = sc->silent[s]) < e || s > e) {
        if (j >= sc->n || ++guard > 10000) {
            PC_DESYNC();
            break;
        }
        if (yielding && sc->op[j] == op_send && e == next_unit(sc, j))
            break;
        u = sc->target[j];
        close_run(sc, s, j);
        pc_g.pair[sc->op[j]][sc->op[u]]++;
        s = u;
    }
    close_run(sc, s, e);
    f->start = -1;
}

/* No silent jump between the segment's start s and e: one run. */
static inline int
straight(const seg_code *sc, int32_t s, int32_t e)
{
    return s <= e && sc->silent[s] >= e;
}

/* Close f's open segment at e: one run inline, anything else walks. */
static inline __attribute__((always_inline)) void
close_to(seg_frame *f, int32_t e, int yielding)
{
    if (straight(f->sc, f->start, e))
        close_run(f->sc, f->start, e);
    else
        walk_silent(f, e, yielding);
    f->start = -1;
}

/* close_to() for an event at e that is not a yield, with the commonest
 * walk inline: round a loop, from the body through its quiet back edge
 * j to its head e (a FOR_ITER or a test), which fires the event. */
static inline __attribute__((always_inline)) void
close_round(seg_frame *f, int32_t e)
{
    seg_code *sc = f->sc;
    int32_t s = f->start, j = sc->silent[s];
    if (s > e && j < sc->n && sc->target[j] == e) {
        sc->starts[s]++;
        sc->ends[j]++;
        pc_g.pair[sc->op[j]][sc->op[e]]++;
        sc->starts[e]++;
        sc->ends[e]++;
        f->start = -1;
        return;
    }
    close_to(f, e, 0);
}

/* Where a frame stopped at f->at goes on, given that its next event is
 * at e. */
static int32_t
resume_unit(const seg_frame *f, int32_t e, int yielding)
{
    const seg_code *sc = f->sc;
    int32_t c = f->at, nx = next_unit(sc, c);
    int op = sc->op[c];

    if (f->resume >= 0)
        return f->resume;
    if (op == op_send)
        return (yielding && e == nx) ? nx : jump_target(sc, c);
    if (op == op_jbni)
        return jump_target(sc, c);
    if ((op == op_jump_backward || op == op_jump_forward) &&
        sc->silent[c] == c)
        return jump_target(sc, c);      /* a quiet jump (no event) */
    if (f->seeded) {
        /* The instruction was under way, uninstrumented, when collection
         * started: a jump fires no event for it any more. */
        if (op == op_jump_backward || op == op_jump_forward)
            return jump_target(sc, c);
        if (op == op_for_iter) {
            int32_t tg = jump_target(sc, c), k;
            if (e >= nx && e < tg)
                return nx;
            for (k = 0; k < PC_FOR_ITER_EXIT_SKIP && tg < sc->n; k++)
                tg = next_unit(sc, tg);
            return tg;
        }
    }
    return nx;
}

/* A stopped frame runs again: open its segment where it went on. */
static void
restart(seg_thread *t, seg_frame *f, int32_t e, int yielding)
{
    int32_t u = resume_unit(f, e, yielding);
    if (!valid_unit(f->sc, u)) {
        PC_DESYNC();
        u = e;
    }
    pair(t->last, f->sc->op[u]);
    f->start = u;
    f->at = f->raised = f->resume = -1;
    f->seeded = 0;
    t->last = SEG_TOP;
}

/* g's Python callee has returned or yielded, last being its last
 * opcode.  A frame stopped at an instruction of eager_op goes on at the
 * next one: open its segment there now, while the frame is at hand, so
 * that its next event finds it running (the cheap path of every
 * callback).  Should it not go on -- the instruction calls Python code
 * again, raises or branches where it stands -- its next event is at the
 * same instruction and eager_settle() takes the restart back.  Returns
 * whether it restarted g. */
static inline int
eager_restart(seg_thread *t, seg_frame *g, int last)
{
    seg_code *sc = g->sc;
    int32_t u;
    /* stopped (start < 0, at >= 0), resume < 0, raised < 0: one test */
    if ((g->start & g->resume & g->raised & ~g->at) >= 0 || g->seeded ||
        !eager_op[sc->op[g->at]])
        return 0;
    u = next_unit(sc, g->at);
    if (u >= sc->n)
        return 0;
    pc_g.pair[last][sc->op[u]]++;
    g->start = u;
    g->eager_last = last;
    t->last = SEG_TOP;
    return 1;
}

/* The first event of f, at e, after an eager restart: if e is where f
 * stopped, f never went on. */
static inline void
eager_settle(seg_thread *t, seg_frame *f, int32_t e)
{
    if (f->start < 0 || f->at < 0)
        return;
    if (e == f->at) {
        if (f->eager_last >= 0)
            pc_g.pair[f->eager_last][f->sc->op[f->start]]--;
        f->start = -1;
        t->last = f->eager_last;
    }
    else {
        f->at = -1;
    }
}

/* f has executed up to and including e: close what is open there.
 * Returns the thread's last executed instruction afterwards. */
static inline int
settle(seg_thread *t, seg_frame *f, int32_t e, int yielding)
{
    if (f->start < 0) {
        /* Still at the instruction it stopped at, the same execution:
         * nothing ran in f since.  Not so for a frame that goes on
         * elsewhere (resume) or was under way when collection started
         * (seeded): the event is from a later pass over that
         * instruction. */
        if (f->at < 0 || (f->at == e && f->resume < 0 && !f->seeded))
            return t->last;
        restart(t, f, e, yielding);
    }
    close_to(f, e, yielding);
    return f->sc->op[e];
}

/* f is stopped at its current instruction c (a callee starts, or
 * counts are taken): close up to c; it resumes after c. */
static inline void
stop_at(seg_thread *t, seg_frame *f, int32_t c)
{
    eager_settle(t, f, c);
    if (f->start < 0 && (f->at < 0 || f->at == c))
        return;
    if (PC_JUMP_EVENT_BEFORE_BREAKER && f->start >= 0 &&
        f->sc->op[c] == op_jump_backward && f->jumped == c &&
        f->start == jump_target(f->sc, c)) {
        /* 3.12: the JUMP event of c came before c's eval breaker ran
         * this callee (or before the thread stopped there): the jump
         * and its pair are not done yet; the frame goes on at the
         * target afterwards. */
        seg_code *sc = f->sc;
        pc_g.pair[sc->op[c]][sc->op[f->start]]--;
        f->resume = f->start;
        f->start = -1;
        f->at = c;
        f->seeded = 0;
        t->last = sc->op[c];
        return;
    }
    t->last = settle(t, f, c, 0);
    f->at = c;
    f->seeded = 0;
    f->resume = -1;
}

/* ---- reading frames ---- */

/* The unit of the current instruction of the Python frame p, if it runs
 * the code of f; else -1. */
static inline int32_t
iframe_instruction(pc_iframe *p, const seg_frame *f)
{
    if (p == NULL || pc_iframe_executable(p) != f->sc->code)
        return -1;
    return owner_unit(f->sc, pc_iframe_unit(p));
}

static inline pc_iframe *
python_frame(pc_iframe *p)
{
    while (p != NULL && pc_iframe_code(p) == NULL)
        p = p->previous;
    return p;
}

#ifdef PC_FRAME_READ_PUBLIC
/* Frames the caller search passes over (as caller_instruction() does
 * with internal frames): a generator's not entered by throw(), and one
 * waiting at the eval breaker of a RESUME it has not reported. */
static int
public_skipped(PyFrameObject *fr, PyCodeObject *code)
{
    PyObject *gen = PyFrame_GetGenerator(fr);       /* new reference */
    pc_codeinfo *ci;
    int lasti;
    if (gen != NULL) {
        Py_DECREF(gen);
        return 1;
    }
    ci = pc_codeinfo_get((PyObject *)code);
    lasti = PyFrame_GetLasti(fr);
    return ci != NULL && lasti >= 0 && lasti / 2 < ci->n &&
           ci->op[lasti / 2] == op_resume;
}

/* The public API's way, for comparison (see docs/FORMAT.md 1.9): it
 * materializes frame objects, so it may allocate. */
static int32_t
frame_unit_public(const seg_frame *f, int caller)
{
    PyObject *exc_type, *exc_value, *exc_tb;
    PyFrameObject *cur, *fr;
    PyCodeObject *code;
    int lasti;
    int32_t r = -1;

    PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
    cur = PyEval_GetFrame();                /* borrowed */
    if (cur == NULL)
        goto done;
    fr = caller ? PyFrame_GetBack(cur) : (Py_INCREF(cur), cur);
    if (fr == NULL)
        goto done;
    code = PyFrame_GetCode(fr);
    while (caller && (PyObject *)code != f->sc->code &&
           public_skipped(fr, code)) {
        PyFrameObject *back = PyFrame_GetBack(fr);
        Py_DECREF(code);
        Py_DECREF(fr);
        if ((fr = back) == NULL)
            goto done;
        code = PyFrame_GetCode(fr);
    }
    lasti = PyFrame_GetLasti(fr);
    if ((PyObject *)code == f->sc->code && lasti >= 0)
        r = owner_unit(f->sc, lasti / 2);
    Py_DECREF(code);
    Py_DECREF(fr);
done:
    PyErr_Clear();
    PyErr_Restore(exc_type, exc_value, exc_tb);
    return r;
}
#endif

/* 3.13's specialized CALL of a class with a Python __init__ puts a shim
 * frame between the caller and __init__ (its code: EXIT_INIT_CHECK,
 * RETURN_VALUE); it fires no event and runs nothing counted. */
static inline int
init_shim(pc_iframe *p)
{
    return op_exit_init_check >= 0 &&
           (((PyCodeObject *)pc_iframe_executable(p))->co_code_adaptive[0] & 0xff) ==
               op_exit_init_check;
}

/* A frame at a RESUME it has not yet reported: RESUME checks the eval
 * breaker before PY_START/PY_RESUME fire, and what runs there has that
 * frame as its caller. */
static int
at_resume(pc_iframe *p)
{
    pc_codeinfo *ci = pc_codeinfo_get(pc_iframe_executable(p));
    Py_ssize_t u = pc_iframe_unit(p);
    return ci != NULL && u >= 0 && u < ci->n && ci->op[u] == op_resume;
}

/* At PY_START/PY_RESUME/PY_THROW: the caller's current instruction. */
static inline int32_t
caller_instruction(seg_thread *t, const seg_frame *f)
{
#ifdef PC_FRAME_READ_PUBLIC
    (void)t;
    return frame_unit_public(f, 1);
#else
    pc_iframe *cur = pc_tstate_iframe(t->ts), *p;
    if (cur == NULL)
        return -1;
    p = python_frame(cur->previous);
    /* throw() into a generator suspended in `yield from`/`await` throws
     * into the innermost one first, with the outer ones linked into the
     * frame chain but not entered (no event, nothing executed): skip
     * them. */
    while (p != NULL && pc_iframe_executable(p) != f->sc->code &&
           (p->owner == PC_FRAME_OWNED_BY_GENERATOR || init_shim(p) ||
            at_resume(p)))
        p = python_frame(p->previous);
    return iframe_instruction(p, f);
#endif
}

/* At RAISE: the raising frame's own current instruction. */
static inline int32_t
own_instruction(seg_thread *t, const seg_frame *f)
{
#ifdef PC_FRAME_READ_PUBLIC
    (void)t;
    return frame_unit_public(f, 0);
#else
    return iframe_instruction(python_frame(pc_tstate_iframe(t->ts)), f);
#endif
}

/* A new frame is entered: stop the caller where it is (any case). */
static __attribute__((noinline)) void
caller_stop_slow(seg_thread *t)
{
    seg_frame *f = &t->stack[t->depth - 1];
    int32_t c;
    int in_flight = 0;
    if (f->start < 0 && f->at < 0)
        return;
    c = caller_instruction(t, f);
    if (f->start >= 0 && f->at < 0 && f->raised >= 0 && c != f->raised &&
        f->sc->op[f->raised] != op_for_iter &&
        f->sc->op[f->raised] != op_send) {
        /* An exception is in flight: the callee runs from the stack
         * unwinding (a __del__, a weakref callback), and RERAISE may have
         * set the frame's instruction back to where the exception first
         * arose.  The frame is at its raise site.  (A StopIteration that
         * FOR_ITER or SEND swallowed is no exception in flight.) */
        c = f->raised;
        in_flight = 1;
    }
    if (c < 0) {
        PC_DESYNC();
        return;
    }
    stop_at(t, f, c);
    if (!in_flight)
        f->raised = -1;     /* restart() resets it; eager_restart() reads it */
}

/* A frame running straight-line code: an open segment, not stopped, no
 * exception in flight (start >= 0, at < 0, raised < 0, in one test). */
static inline int
running(const seg_frame *f)
{
    return (f->start | ~f->at | ~f->raised) >= 0;
}

/* The common case of caller_instruction(), read in a few loads: the new
 * frame (*cur) has the caller as its previous one, or past the entry
 * frame of a call from C.  -1 in any other case, and at a
 * JUMP_BACKWARD (whose 3.12 eval-breaker case stop_at() handles): the
 * general path decides. */
static inline int32_t
caller_unit_fast(seg_thread *t, const seg_frame *f, pc_iframe **cur)
{
    pc_iframe *p;
    int32_t c;
    *cur = pc_tstate_iframe(t->ts);
    if (PC_PUBLIC_FRAMES)
        return -1;      /* measure the public API's way: no internal reads */
    if (*cur == NULL || (p = (*cur)->previous) == NULL)
        return -1;
    if (p->owner >= PC_FRAME_OWNED_BY_CSTACK && (p = p->previous) == NULL)
        return -1;
    if (pc_iframe_executable(p) != f->sc->code)
        return -1;
    c = owner_unit(f->sc, pc_iframe_unit(p));
    if (c < 0 || f->sc->op[c] == op_jump_backward)
        return -1;
    return c;
}

/* A new frame is entered: stop the caller where it is.  Returns the
 * thread's last executed instruction, the new frame's predecessor. */
static inline int
caller_stop(seg_thread *t)
{
    if (t->depth > 0) {
        seg_frame *f = &t->stack[t->depth - 1];
        pc_iframe *cur;
        int32_t c;
        if (running(f) && (c = caller_unit_fast(t, f, &cur)) >= 0) {
            close_round(f, c);
            f->at = c;
            return f->sc->op[c];
        }
        caller_stop_slow(t);
    }
    return t->last == SEG_TOP ? SEG_NONE : t->last;
}

/* ---- the callbacks ---- */

/* Counting threads only (measure() counts one); t->measuring mirrors
 * pc_t.measure_depth so that one thread-local access suffices. */
#define ENTER(t)                                            \
    do {                                                    \
        t = seg_t;                                          \
        if (t == NULL || t->gen != seg_gen) {               \
            if (!pc_counting())                             \
                Py_RETURN_NONE;                             \
            t = thread_adopt(0);                            \
            if (t == NULL)                                  \
                Py_RETURN_NONE;                             \
        }                                                   \
        if (!(pc_g.on | t->measuring))                      \
            Py_RETURN_NONE;                                 \
    } while (0)

#define HOT static inline __attribute__((always_inline))
HOT PyObject *start(PyObject *const *args, Py_ssize_t nargs, int call);
HOT PyObject *leave(PyObject *const *args, Py_ssize_t nargs, int yielding);

/* PY_START, PY_RESUME: (code, offset of RESUME); any case. */
static __attribute__((noinline)) PyObject *
start_other(PyObject *const *args, Py_ssize_t nargs, int call)
{
    seg_thread *t;
    seg_frame *f;
    int32_t off;
    int prev;
    ENTER(t);
    if (call)
        pc_calls_g.python_starts++;
    else
        pc_calls_g.resumptions++;
    if (nargs < 2)
        Py_RETURN_NONE;
    prev = caller_stop(t);
    f = push(t, args[0]);
    if (f == NULL)
        Py_RETURN_NONE;
    off = unit_arg(args[1]);
    if (!valid_unit(f->sc, off)) {
        PC_DESYNC();
        t->depth--;
        Py_RETURN_NONE;
    }
    pair(prev, f->sc->op[off]);
    f->start = off;
    t->last = SEG_TOP;
    if (call)
        f->sc->hot->calls++;
    Py_RETURN_NONE;
}

static PyObject *
cb_start(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return start(args, nargs, 1);
}

static PyObject *
cb_resume(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return start(args, nargs, 0);
}

/* PY_THROW: (code, offset, exception).  Nothing of the frame runs
 * before its handler (EXCEPTION_HANDLED) or its exit (PY_UNWIND). */
static PyObject *
cb_throw(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    (void)self;
    ENTER(t);
    pc_calls_g.throws++;
    if (nargs < 1)
        Py_RETURN_NONE;
    t->last = caller_stop(t);
    push(t, args[0]);
    Py_RETURN_NONE;
}

/* PY_RETURN, PY_YIELD: the frame leaves; its caller may go on.  Any
 * case. */
static __attribute__((noinline)) PyObject *
leave_other(PyObject *const *args, Py_ssize_t nargs, int yielding)
{
    seg_thread *t;
    seg_frame *f;
    seg_code *sc;
    int32_t off;
    int last;
    ENTER(t);
    if (yielding)
        pc_calls_g.yields++;
    else
        pc_calls_g.returns++;
    if (nargs < 2 || (f = top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    sc = f->sc;
    off = unit_arg(args[1]);
    if (!valid_unit(sc, off)) {
        PC_DESYNC();
        Py_RETURN_NONE;
    }
    if (f->start >= 0 && f->at != off && straight(sc, f->start, off)) {
        close_run(sc, f->start, off);
        last = sc->op[off];
    }
    else {
        eager_settle(t, f, off);
        last = settle(t, f, off, yielding);
    }
    t->depth--;
    if (last < 0 || t->depth == 0 ||
        !eager_restart(t, &t->stack[t->depth - 1], last))
        t->last = last;
    Py_RETURN_NONE;
}

/* PY_RETURN: (code, offset, value) */
static PyObject *
cb_return(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return leave(args, nargs, 0);
}

/* PY_YIELD: (code, offset, value) */
static PyObject *
cb_yield(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return leave(args, nargs, 1);
}

/* Kinds of jump event: JUMP and 3.12/3.13's BRANCH name the instruction
 * that jumps; 3.14's BRANCH_LEFT and BRANCH_RIGHT may not (compat.h,
 * PC_BRANCH_LEFT_RIGHT). */
#define BR_PLAIN 0
#define BR_LEFT 1
#define BR_RIGHT 2
#define BR_FIXED 3      /* a BR_LEFT or BR_RIGHT event branch_fixup() fixed */

/* Whether a 3.14 branch event may name another instruction than the
 * one that fired it: NOT_TAKEN (BRANCH_LEFT, naming its POP_JUMP_IF_*),
 * POP_ITER (BRANCH_RIGHT, naming the FOR_ITER whose exit it is, or the
 * last instruction before it that saved the frame's instruction pointer
 * when it is reached in straight line, as in the inlined any()/all()),
 * END_ASYNC_FOR (BRANCH_RIGHT, naming its loop's END_SEND; it is
 * reached from the handler EXCEPTION_HANDLED reports).  FOR_ITER's
 * own BRANCH_LEFT (to the next instruction) and a POP_JUMP_IF_*'s
 * BRANCH_RIGHT (to its target) name themselves. */
static inline int
branch_moved(const seg_code *sc, int32_t src, int32_t dst, int kind)
{
    int32_t v;
    int op = sc->op[src];
    if (kind == BR_LEFT)
        return !(op == op_for_iter && dst == next_unit(sc, src));
    v = owner_unit(sc, dst - 1);
    if (v < 0 || v == src ||
        (sc->op[v] != op_pop_iter && sc->op[v] != op_end_async_for))
        return 0;
    /* A POP_JUMP_IF_* jumping: its target may well follow a POP_ITER
     * (the end of a loop it jumps over). */
    return !((op == op_pop_jump[0] || op == op_pop_jump[1] ||
              op == op_pop_jump[2] || op == op_pop_jump[3]) &&
             dst == jump_target(sc, src));
}

/* The instruction v that fired a moved branch event runs right before
 * the destination, which follows it in code order.  NOT_TAKEN is the
 * jump's real source: a segment runs up to it, the next one starts at
 * dst.  A POP_ITER after a FOR_ITER is that FOR_ITER's destination
 * (FOR_ITER jumps there, over END_FOR; the segment goes on through dst).
 * POP_ITER and END_ASYNC_FOR fire their event before they do their work
 * (which can run Python code, a __del__ or an async generator's
 * finalizer hook, with the frame at that instruction; END_ASYNC_FOR can
 * also re-raise): reached in straight line, or at the handler that
 * EXCEPTION_HANDLED opened, they end nothing, and the event is ignored
 * (returns 1).  -1 if the bytecode does not fit (counted in desync; the
 * event is dropped). */
static int
branch_fixup(seg_frame *f, int32_t *src, int32_t *dst, int kind)
{
    const seg_code *sc = f->sc;
    int32_t v;
    if (!branch_moved(sc, *src, *dst, kind))
        return 0;
    v = owner_unit(sc, *dst - 1);
    if (v < 0) {
        PC_DESYNC();
        return -1;
    }
    if (kind == BR_RIGHT && sc->op[v] == op_pop_iter) {
        if (sc->op[*src] != op_for_iter)
            return 1;
        if (f->at == *src && f->seeded && f->start < 0)
            f->seeded = 0;  /* the exit of the FOR_ITER under way */
        *dst = v;
        return 0;
    }
    if (kind == BR_RIGHT && sc->op[v] == op_end_async_for)
        return 1;
    if (kind == BR_LEFT && sc->op[v] == op_not_taken) {
        *src = v;
        return 0;
    }
    PC_DESYNC();
    return -1;
}

/* JUMP, BRANCH (rare cases): see cb_jump. */
static __attribute__((noinline)) void
jump_slow(seg_thread *t, seg_frame *f, int32_t src, int32_t dst)
{
    seg_code *sc = f->sc;
    int prev;
    eager_settle(t, f, src);
    prev = settle(t, f, src, 0);
    pair(prev, sc->op[dst]);
    f->at = f->raised = -1;
    f->seeded = 0;
    t->last = SEG_TOP;
    f->start = dst;
}

/* JUMP, BRANCH: code, source and destination units (see
 * branch_source()); any case. */
static __attribute__((noinline)) PyObject *
jump_other(PyObject *code, int32_t src, int32_t dst, int kind)
{
    seg_thread *t;
    seg_frame *f;
    seg_code *sc;
    ENTER(t);
    if ((f = top_for(t, code)) == NULL)
        Py_RETURN_NONE;
    sc = f->sc;
    if (!valid_unit(sc, src) || !valid_unit(sc, dst)) {
        PC_DESYNC();
        Py_RETURN_NONE;
    }
    if ((kind == BR_LEFT || kind == BR_RIGHT) &&
        branch_fixup(f, &src, &dst, kind) != 0)
        Py_RETURN_NONE;
    if (f->start >= 0 && f->at != src && straight(sc, f->start, src)) {
        /* Running straight-line code (or restarted eagerly, which this
         * event confirms). */
        close_run(sc, f->start, src);
        pc_g.pair[sc->op[src]][sc->op[dst]]++;
        f->at = f->raised = -1;
        f->start = dst;
    }
    else if (f->start < 0 && f->at == src && f->resume < 0 && !f->seeded) {
        /* Stopped at src while Python code ran for it (a generator that
         * FOR_ITER resumed, a __bool__): src branches now. */
        pair(t->last, sc->op[dst]);
        f->at = f->raised = -1;
        f->seeded = 0;
        f->start = dst;
        t->last = SEG_TOP;
    }
    else {
        jump_slow(t, f, src, dst);
    }
    f->jumped = src;
    if (sc->quiet_ok[src])
        return quiet_site(sc, src);
    Py_RETURN_NONE;
}


/* The fast paths.  Each callback first tries the common case in a few
 * loads and compares: a counting thread whose top frame is the event's
 * and runs straight-line code (an open segment, no silent jump in its
 * code, not stopped, no exception in flight).  Everything else goes to
 * the *_other function, which handles every case. */

HOT seg_thread *
counting_thread(void)
{
    seg_thread *t = seg_t;
    if (t != NULL && t->gen == seg_gen && (pc_g.on | t->measuring) &&
        t->depth > 0)
        return t;
    return NULL;
}

/* PY_START, PY_RESUME: (code, offset of RESUME) */
HOT PyObject *
start(PyObject *const *args, Py_ssize_t nargs, int call)
{
    seg_thread *t = counting_thread();
    seg_frame *f, *g;
    seg_code *sc, *nsc;
    pc_iframe *cur;
    PyObject *code;
    int32_t off, c;
    unsigned k;

    if (t == NULL || nargs < 2 || t->depth == t->cap)
        goto other;
    f = &t->stack[t->depth - 1];
    sc = f->sc;
    if (!running(f))
        goto other;
    code = args[0];
    k = cache_slot(code);
    if (seg_cache[k].code != code)
        goto other;
    nsc = seg_cache[k].sc;
    off = unit_arg(args[1]);        /* RESUME is often at offset 0 */
    if ((uint32_t)off >= (uint32_t)nsc->n)
        goto other;
    if ((c = caller_unit_fast(t, f, &cur)) < 0)
        goto other;
    close_round(f, c);
    f->at = c;
    pc_g.pair[sc->op[c]][nsc->op[off]]++;
    g = f + 1;
    g->sc = nsc;
    g->iframe = cur;
    g->start = off;
    g->at = g->raised = g->resume = g->jumped = -1;
    g->seeded = 0;
    t->depth++;
    t->last = SEG_TOP;
    if (call) {
        pc_calls_g.python_starts++;
        nsc->hot->calls++;
    }
    else {
        pc_calls_g.resumptions++;
    }
    Py_RETURN_NONE;
other:
    return start_other(args, nargs, call);
}

/* PY_RETURN, PY_YIELD: (code, offset, value) */
HOT PyObject *
leave(PyObject *const *args, Py_ssize_t nargs, int yielding)
{
    seg_thread *t = counting_thread();
    seg_frame *f;
    seg_code *sc;
    int32_t off;
    int last;

    if (t == NULL || nargs < 2)
        goto other;
    f = &t->stack[t->depth - 1];
    sc = f->sc;
    off = pc_offset_unit_nonzero(args[1]);
    if (sc->code != args[0] || (uint32_t)off >= (uint32_t)sc->n ||
        f->start < 0 || f->at == off)
        goto other;
    close_to(f, off, yielding);
    last = sc->op[off];
    if (yielding)
        pc_calls_g.yields++;
    else
        pc_calls_g.returns++;
    t->depth--;
    if (t->depth == 0 || !eager_restart(t, f - 1, last))
        t->last = last;
    Py_RETURN_NONE;
other:
    return leave_other(args, nargs, yielding);
}

/* JUMP, BRANCH: code, source and destination units.  Only JUMP events
 * (kind BR_PLAIN, may_quiet) come from jumps that may be turned off
 * (quiet); kind BR_LEFT and BR_RIGHT are 3.14's branch events, whose
 * source may need fixing (branch_fixup()). */
HOT PyObject *
jump_units(PyObject *code, int32_t src, int32_t dst, int may_quiet, int kind)
{
    seg_thread *t = counting_thread();
    seg_frame *f;
    seg_code *sc;
    int32_t nt;

    if (t == NULL)
        goto other;
    f = &t->stack[t->depth - 1];
    sc = f->sc;
    if (sc->code != code || (uint32_t)src >= (uint32_t)sc->n ||
        (uint32_t)dst >= (uint32_t)sc->n)
        goto other;
    if (kind == BR_LEFT && sc->op[src] != op_for_iter &&
        (nt = next_unit(sc, src)) < dst && sc->op[nt] == op_not_taken &&
        next_unit(sc, nt) == dst) {
        /* the commonest moved event: a POP_JUMP_IF_*'s NOT_TAKEN */
        src = nt;
        kind = BR_FIXED;
    }
    else if (kind != BR_PLAIN && branch_moved(sc, src, dst, kind)) {
        if (branch_fixup(f, &src, &dst, kind) != 0)
            Py_RETURN_NONE;
        kind = BR_FIXED;
    }
    if (f->start >= 0) {
        if (f->at == src)
            goto other;
        /* Running (or restarted eagerly, which this event confirms). */
        close_round(f, src);
        pc_g.pair[sc->op[src]][sc->op[dst]]++;
    }
    else {
        /* Stopped at src while Python code ran for it (the generator a
         * FOR_ITER resumed, a __bool__): src branches now. */
        if (f->at != src || f->resume >= 0 || f->seeded || t->last < 0)
            goto other;
        pc_g.pair[t->last][sc->op[dst]]++;
        t->last = SEG_TOP;
    }
    f->at = f->raised = -1;
    f->start = dst;
    f->jumped = src;
    if (may_quiet && sc->quiet_ok[src])
        return quiet_site(sc, src);
    Py_RETURN_NONE;
other:
    return jump_other(code, src, dst, may_quiet ? BR_PLAIN : kind);
}

/* JUMP, BRANCH (3.12, 3.13): (code, source offset, destination offset) */
HOT PyObject *
jump(PyObject *const *args, Py_ssize_t nargs, int may_quiet, int kind)
{
    int32_t src, dst;
    if (nargs < 3)
        Py_RETURN_NONE;
    src = pc_offset_unit_nonzero(args[1]);
    dst = pc_offset_unit_nonzero(args[2]);
    if (src < 0)
        src = unit_arg(args[1]);
    if (dst < 0)
        dst = unit_arg(args[2]);
    return jump_units(args[0], src, dst, may_quiet, kind);
}

static PyObject *
cb_jump(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return jump(args, nargs, 1, BR_PLAIN);
}

#if !PC_BRANCH_LEFT_RIGHT
static PyObject *
cb_branch(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return jump(args, nargs, 0, BR_PLAIN);
}
#endif

#if PC_BRANCH_LEFT_RIGHT
/* BRANCH_LEFT, BRANCH_RIGHT (3.14): (code, source offset, destination
 * offset), the source fixed by branch_fixup(). */
static PyObject *
cb_branch_left(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return jump(args, nargs, 0, BR_LEFT);
}

static PyObject *
cb_branch_right(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return jump(args, nargs, 0, BR_RIGHT);
}
#endif

static inline void
raised_at(seg_thread *t, seg_frame *f, int32_t r)
{
    if (f->start < 0) {
        if (f->at < 0 || f->at == r)
            return;         /* thrown in, or raised where it stopped */
        restart(t, f, r, 0);
    }
    f->raised = r;
}

/* RAISE: (code, offset, exception) */
static PyObject *
cb_raise(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    seg_frame *f;
    int32_t r;
    (void)self;
    ENTER(t);
    pc_calls_g.raises++;
    if (nargs < 2 || (f = top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    if (f->start < 0 && f->at < 0)
        Py_RETURN_NONE;     /* after PY_THROW: its YIELD_VALUE already ran */
    r = own_instruction(t, f);
    if (r < 0) {
        PC_DESYNC();
        Py_RETURN_NONE;
    }
    eager_settle(t, f, r);
    raised_at(t, f, r);
    Py_RETURN_NONE;
}

/* RERAISE: (code, offset, exception); the offset is the instruction. */
static PyObject *
cb_reraise(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    seg_frame *f;
    int32_t r;
    (void)self;
    ENTER(t);
    if (nargs < 2 || (f = top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    if (f->start < 0 && f->at < 0)
        Py_RETURN_NONE;
    r = owner_unit(f->sc, unit_arg(args[1]));
    if (r < 0) {
        PC_DESYNC();
        Py_RETURN_NONE;
    }
    eager_settle(t, f, r);
    raised_at(t, f, r);
    Py_RETURN_NONE;
}

/* The open segment ends at the raising instruction.  Returns the
 * thread's last instruction. */
static int
close_raised(seg_thread *t, seg_frame *f)
{
    if (f->start >= 0 && !valid_unit(f->sc, f->raised)) {
        /* No RAISE came: another tool's RAISE callback (a trace
         * function's 'exception' event) raised before ours was called.
         * The frame is still at its raise site: do now what RAISE would
         * have done. */
        int32_t r = own_instruction(t, f);
        if (r >= 0) {
            eager_settle(t, f, r);
            raised_at(t, f, r);
        }
    }
    if (f->start >= 0) {
        if (!valid_unit(f->sc, f->raised)) {
            PC_DESYNC();
            f->start = -1;
            return SEG_NONE;
        }
        close_to(f, f->raised, 0);
        return f->sc->op[f->raised];
    }
    return t->last;
}

/* EXCEPTION_HANDLED: (code, offset of the handler, exception) */
static PyObject *
cb_handled(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    seg_frame *f;
    int32_t h;
    int prev;
    (void)self;
    ENTER(t);
    pc_calls_g.handled++;
    if (nargs < 2 || (f = top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    h = unit_arg(args[1]);
    if (!valid_unit(f->sc, h)) {
        PC_DESYNC();
        Py_RETURN_NONE;
    }
    prev = close_raised(t, f);
    pair(prev == SEG_TOP ? SEG_NONE : prev, f->sc->op[h]);
    f->start = h;
    f->at = f->raised = -1;
    f->seeded = 0;
    t->last = SEG_TOP;
    Py_RETURN_NONE;
}

/* PY_UNWIND: (code, offset, exception) */
static PyObject *
cb_unwind(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_thread *t;
    seg_frame *f;
    (void)self;
    ENTER(t);
    pc_calls_g.unwinds++;
    if (nargs < 1 || (f = top_for(t, args[0])) == NULL)
        Py_RETURN_NONE;
    t->last = close_raised(t, f);
    if (t->last == SEG_TOP)
        t->last = SEG_NONE;
    t->depth--;
    Py_RETURN_NONE;
}

/* The floor: the same events, nothing done. */
static PyObject *
cb_noop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    (void)args;
    (void)nargs;
    Py_RETURN_NONE;
}

/* The floor's JUMP: nothing done, but the same jumps turned off, so that
 * it receives exactly the events count mode does. */
static PyObject *
cb_noop_jump(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_code *sc;
    int32_t src;
    (void)self;
    if (nargs < 2 || (sc = seg_code_for(args[0])) == NULL)
        Py_RETURN_NONE;
    src = unit_arg(args[1]);
    if ((uint32_t)src < (uint32_t)sc->n && sc->quiet_ok[src])
        return quiet_site(sc, src);
    Py_RETURN_NONE;
}

#define DEF(name, fn) \
    static PyMethodDef fn##_def = {name, (PyCFunction)(void (*)(void))fn, \
                                   METH_FASTCALL, NULL}
DEF("_pystats_seg_start", cb_start);
DEF("_pystats_seg_resume", cb_resume);
DEF("_pystats_seg_throw", cb_throw);
DEF("_pystats_seg_return", cb_return);
DEF("_pystats_seg_yield", cb_yield);
DEF("_pystats_seg_jump", cb_jump);
#if !PC_BRANCH_LEFT_RIGHT
DEF("_pystats_seg_branch", cb_branch);
#else
DEF("_pystats_seg_branch_left", cb_branch_left);
DEF("_pystats_seg_branch_right", cb_branch_right);
#endif
DEF("_pystats_seg_raise", cb_raise);
DEF("_pystats_seg_reraise", cb_reraise);
DEF("_pystats_seg_handled", cb_handled);
DEF("_pystats_seg_unwind", cb_unwind);
DEF("_pystats_seg_noop", cb_noop);
DEF("_pystats_seg_noop_jump", cb_noop_jump);

static const pc_seg_callback seg_callbacks[] = {
    {"PY_START", &cb_start_def},
    {"PY_RESUME", &cb_resume_def},
    {"PY_THROW", &cb_throw_def},
    {"PY_RETURN", &cb_return_def},
    {"PY_YIELD", &cb_yield_def},
    {"PY_UNWIND", &cb_unwind_def},
    {"JUMP", &cb_jump_def},
#if PC_BRANCH_LEFT_RIGHT
    {"BRANCH_LEFT", &cb_branch_left_def},
    {"BRANCH_RIGHT", &cb_branch_right_def},
#else
    {"BRANCH", &cb_branch_def},
#endif
    {"RAISE", &cb_raise_def},
    {"RERAISE", &cb_reraise_def},
    {"EXCEPTION_HANDLED", &cb_handled_def},
};
#define NSEG (sizeof seg_callbacks / sizeof seg_callbacks[0])

static pc_seg_callback noop_callbacks[2][NSEG];

const pc_seg_callback *
pc_seg_callbacks(int noop, size_t *n)
{
    size_t i;
    *n = NSEG;
    if (!noop)
        return seg_callbacks;
    for (i = 0; i < NSEG; i++) {
        pc_seg_callback *cb = &noop_callbacks[noop == 2][i];
        cb->event = seg_callbacks[i].event;
        cb->def = noop == 2 && strcmp(cb->event, "JUMP") == 0
                      ? &cb_noop_jump_def : &cb_noop_def;
    }
    return noop_callbacks[noop == 2];
}

/* ---- starting, cutting, forking ---- */

static int
opcode_of(const char *name)
{
    int i;
    for (i = 0; i < PC_NOPS; i++)
        if (strcmp(pc_g.opname[i], name) == 0)
            return i;
    return -1;
}

int
pc_seg_init(PyObject *mon)
{
    static int done;
    if (done)
        return 0;
    op_cache = opcode_of("CACHE");
    op_send = opcode_of("SEND");
    op_jbni = opcode_of("JUMP_BACKWARD_NO_INTERRUPT");
    op_jump_backward = opcode_of("JUMP_BACKWARD");
    op_jump_forward = opcode_of("JUMP_FORWARD");
    op_for_iter = opcode_of("FOR_ITER");
    op_extended_arg = opcode_of("EXTENDED_ARG");
    op_resume = opcode_of("RESUME");
    op_exit_init_check = opcode_of("EXIT_INIT_CHECK");   /* 3.13 */
    op_not_taken = opcode_of("NOT_TAKEN");               /* 3.14 */
    op_pop_iter = opcode_of("POP_ITER");                 /* 3.14 */
    op_end_async_for = opcode_of("END_ASYNC_FOR");
    op_pop_jump[0] = opcode_of("POP_JUMP_IF_FALSE");
    op_pop_jump[1] = opcode_of("POP_JUMP_IF_TRUE");
    op_pop_jump[2] = opcode_of("POP_JUMP_IF_NONE");
    op_pop_jump[3] = opcode_of("POP_JUMP_IF_NOT_NONE");
    op_return_value = opcode_of("RETURN_VALUE");
    op_return_const = opcode_of("RETURN_CONST");
    op_yield_value = opcode_of("YIELD_VALUE");
    monitoring_disable = PyObject_GetAttrString(mon, "DISABLE");
    if (monitoring_disable == NULL)
        return -1;
    {
        static const char *const not_eager[] = {
            "SEND", "JUMP_BACKWARD_NO_INTERRUPT", "FOR_ITER", "JUMP_BACKWARD",
            "JUMP_FORWARD", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE",
            "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "RESUME",
            "CACHE"};
        int i;
        size_t k;
        for (i = 0; i < PC_NOPS; i++)
            eager_op[i] = 1;
        for (k = 0; k < sizeof not_eager / sizeof not_eager[0]; k++)
            if ((i = opcode_of(not_eager[k])) >= 0)
                eager_op[i] = 0;
    }
    if (op_cache < 0 || op_send < 0 || op_jbni < 0 || op_jump_backward < 0 ||
        op_jump_forward < 0 || op_for_iter < 0 || op_extended_arg < 0 ||
        op_resume < 0) {
        PyErr_SetString(PyExc_RuntimeError,
                        "pystats: an opcode segment counting needs is missing");
        return -1;
    }
    if (pthread_key_create(&thread_key, thread_exit) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: pthread_key_create");
        return -1;
    }
    done = 1;
    return 0;
}

/* Put ts's running frames on t's stack, outermost first, each stopped at
 * its current instruction.  -1 if out of memory. */
static int
seed(seg_thread *t, PyThreadState *ts)
{
    pc_iframe *p;
    int n = 0, i;
    pc_iframe **frames = NULL;

    for (p = python_frame(pc_tstate_iframe(ts)); p != NULL;
         p = python_frame(p->previous))
        n++;
    if (n == 0)
        return 0;
    frames = malloc((size_t)n * sizeof *frames);
    if (frames == NULL)
        return -1;
    i = n;
    for (p = python_frame(pc_tstate_iframe(ts)); p != NULL;
         p = python_frame(p->previous))
        frames[--i] = p;
    for (i = 0; i < n; i++) {
        seg_frame *f;
        int32_t c;
        p = frames[i];
        f = push(t, pc_iframe_executable(p));
        if (f == NULL) {
            free(frames);
            return -1;
        }
        f->iframe = p;
        c = iframe_instruction(p, f);
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

int
pc_seg_window_start(void)
{
    PyInterpreterState *interp = PyInterpreterState_Get();
    PyThreadState *ts;
    int ret = 0;

    seg_gen++;
    pthread_mutex_lock(&threads_lock);
    for (ts = PyInterpreterState_ThreadHead(interp); ts != NULL;
         ts = PyThreadState_Next(ts)) {
        seg_thread *t = thread_find(ts, 1);
        if (t == NULL) {
            ret = -1;
            break;
        }
        thread_reset(t);
        if (seed(t, ts) < 0) {
            thread_reset(t);
            ret = -1;
            break;
        }
    }
    pthread_mutex_unlock(&threads_lock);
    if (ret < 0)
        PyErr_NoMemory();
    return ret;
}

void
pc_seg_measure_start(void)
{
    thread_adopt(1);
}

void
pc_seg_measure_set(int depth)
{
    seg_thread *t = thread_get();
    if (t != NULL)
        t->measuring = depth;
}

/* Close t's open segment where ts is now. */
static void
cut_thread(seg_thread *t, PyThreadState *ts)
{
    seg_frame *f;
    pc_iframe *p;
    int32_t c;
    if (t->gen != seg_gen || t->depth == 0 || !(pc_g.on || t->measuring))
        return;
    f = &t->stack[t->depth - 1];
    if (f->start < 0 && f->at < 0)
        return;
    /* By identity, not by code: the thread may be waiting at the eval
     * breaker of a new frame's RESUME, whose PY_START has not fired yet
     * (it is not on the stack), or of a recursive call's. */
    for (p = pc_tstate_iframe(ts); p != NULL && p != f->iframe;
         p = p->previous)
        ;
    c = iframe_instruction(p, f);
    if (c < 0) {
        PC_DESYNC();
        return;
    }
    stop_at(t, f, c);
}

void
pc_seg_cut(void)
{
    PyInterpreterState *interp;
    PyThreadState *ts;
    if (!pc_seg_mode() || !(pc_g.on || pc_g.measuring))
        return;
    interp = PyInterpreterState_Get();
    pthread_mutex_lock(&threads_lock);
    for (ts = PyInterpreterState_ThreadHead(interp); ts != NULL;
         ts = PyThreadState_Next(ts)) {
        seg_thread *t = thread_find(ts, 0);
        if (t != NULL)
            cut_thread(t, ts);
    }
    pthread_mutex_unlock(&threads_lock);
}

void
pc_seg_after_fork(void)
{
    seg_thread *me = seg_t, *t, *next;
    /* The only thread left is this one; the lock may have been held by
     * another at the fork. */
    pthread_mutex_init(&threads_lock, NULL);
    for (t = threads; t != NULL; t = next) {
        next = t->next;
        if (t != me) {
            free(t->stack);
            free(t);
        }
    }
    threads = me;
    if (me != NULL) {
        me->next = NULL;
        me->owner = pthread_self();
        if (pc_seg_mode())
            cut_thread(me, me->ts);
    }
    /* The cut can count a pair of the parent's: drop them all. */
    memset(pc_g.exec, 0, sizeof pc_g.exec);
    memset(pc_g.pair, 0, sizeof pc_g.pair);
    pc_seg_zero();
}

#endif /* PC_HAVE_MONITORING */
