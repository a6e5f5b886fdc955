/* seg_stack.h: segment counting's thread stacks (3.12+) and how it
 * reads the interpreter's frames.  Internal to segment counting: see
 * segments.c for the method.
 *
 * Invariants:
 *  - Each thread state that ran a counted event has one seg_thread on
 *    seg_threads (guarded by seg_threads_lock, taken only on slow
 *    paths: adoption, thread exit, window start, cut, zero).  A stack
 *    changes only with the GIL held: in its owner thread's callbacks,
 *    or at a window start, cut or zero from whichever thread holds the
 *    GIL (the owner then runs no Python code).
 *  - A seg_thread is valid while gen == seg_gen: a window start bumps
 *    seg_gen, which empties every stack at once (seg_thread_reset at its
 *    next adoption, or the seeding).
 *  - lost: an event of the thread did not fit its stack (SEG_DESYNC);
 *    gen is 0 then, so that its next event takes a slow path, which
 *    rebuilds the stack from the thread's real frames (seg_rebuild)
 *    before anything else.  Cleared by the rebuild, a window start and
 *    measure()'s start.
 *  - stack[0..depth) shadows the thread's Python frames that started
 *    while counting (or were running when the window started, seeded),
 *    outermost first; depth <= cap.  stack[i].sc is the table of the
 *    code the frame runs, stack[i].iframe the interpreter's frame.
 *  - A frame is in one of four states (seg_frame below): running
 *    (start >= 0, at < 0), stopped at `at` (start < 0, at >= 0),
 *    restarted eagerly (start >= 0, at >= 0), thrown into (start < 0,
 *    at < 0).  raised >= 0 only while an exception is in flight in it.
 *  - last is the opcode the thread executed last, the predecessor of
 *    whatever runs next: SEG_NONE for none, SEG_TOP for the top frame's
 *    own, inside its open segment.
 *  - Frames are read (compat.h, pc_iframe) only with the GIL held, and
 *    only the fields compat.h mirrors for this interpreter version.
 */
#ifndef PC_SEG_STACK_H
#define PC_SEG_STACK_H

#include "seg_code.h"

#if PC_HAVE_MONITORING

#include <pthread.h>

#ifdef PC_FRAME_READ_PUBLIC
#define PC_PUBLIC_FRAMES 1
#else
#define PC_PUBLIC_FRAMES 0
#endif

#define SEG_NONE (-1) /* the thread's last instruction: none (no pair) */
#define SEG_TOP (-2)  /* ... is the top frame's, inside its open segment */

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
 * seg_eager_restart()): not yet confirmed by an event of its own. */

typedef struct seg_thread {
    struct seg_thread *next;
    PyThreadState *ts;
    uint64_t ts_id;  /* ts->id: an address can be reused by a new thread
                        state once ts is gone */
    pthread_t owner; /* the thread that adopted it */
    int adopted;
    uint64_t gen;  /* valid while == seg_gen */
    int last;      /* opcode, SEG_NONE or SEG_TOP */
    int measuring; /* its measure() depth */
    int lost;      /* a desync: rebuild at the next event (seg_rebuild) */
    int depth, cap;
    seg_frame *stack;
} seg_thread;

/* Hidden (see seg_code.h).  seg_threads is guarded by seg_threads_lock. */
extern seg_thread *seg_threads __attribute__((visibility("hidden")));
extern pthread_mutex_t seg_threads_lock __attribute__((visibility("hidden")));
extern uint64_t seg_gen __attribute__((visibility("hidden")));
/* seg_gen while the collector is on (pc_g.on), else a value no thread's
 * gen takes: a thread with gen == seg_on_gen counts, as does a measuring
 * one with gen == seg_gen (counting_thread(); one compare when on).  Set
 * by pc_seg_on_changed() wherever pc_g.on (pc_set_on()) or seg_gen
 * changes. */
extern uint64_t seg_on_gen __attribute__((visibility("hidden")));
#define SEG_GEN_NONE (~(uint64_t)0)
/* After the exit cut (pc_seg_exit_cut): the only thread state that may
 * still count; NULL before. */
extern PyThreadState *seg_exit_ts __attribute__((visibility("hidden")));
/* The thread's entry once adopted; before, seg_unadopted, an entry no
 * thread owns (not on seg_threads), of gen 0, which seg_gen never is:
 * a callback's first test (counting_thread()) needs no NULL check. */
extern __thread seg_thread *seg_t __attribute__((tls_model("initial-exec"), visibility("hidden")));
extern seg_thread seg_unadopted __attribute__((visibility("hidden")));

int seg_stack_init(void); /* module init; -1 with exception */
/* Hands pc_desync_describe its describer (the thread's shadow stack and
 * real frames). */
/* The first desync's report (segments.h's pc_seg_desync_report). */
const char *seg_report_text(void) __attribute__((visibility("hidden")));
void seg_report_clear(void) __attribute__((visibility("hidden")));
void seg_describe_init(void);
/* The entry of ts, created if asked.  Caller holds seg_threads_lock. */
seg_thread *seg_thread_find(PyThreadState *ts, int create);
void seg_thread_reset(seg_thread *t);
/* This thread's entry, made current (reset: emptied); NULL with
 * error_pending set if out of memory. */
seg_thread *seg_thread_adopt(int reset);
/* Room for one more frame; -1 with error_pending set. */
int seg_stack_grow(seg_thread *t);
/* Put ts's running frames on t's stack, outermost first, each stopped at
 * its current instruction.  -1 if out of memory. */
int seg_seed(seg_thread *t, PyThreadState *ts);
/* t's next event, after a desync: its stack rebuilt from the thread's
 * real frames, each stopped at its current instruction as a caller is
 * (not seeded: every instruction of theirs fires its events), but the
 * current one, which own puts on it with nothing open (as a frame
 * thrown into: its next event opens its segment) and !own leaves off
 * (the event's new frame).  The segments that were open are lost. */
void seg_rebuild(seg_thread *t, int own);

/* An event of t that does not fit: counted (PC_DESYNC), and t's stack
 * is rebuilt at its next event. */
#define SEG_DESYNC(t) (PC_DESYNC(), seg_lose(t))
static inline void
seg_lose(seg_thread *t)
{
    t->lost = 1;
    t->gen = 0;
}

static inline seg_thread *
seg_thread_get(void)
{
    seg_thread *t = seg_t;
    if (t != NULL && t->gen == seg_gen)
        return t;
    return seg_thread_adopt(0);
}

static inline seg_frame *
seg_push(seg_thread *t, PyObject *code)
{
    seg_code *sc;
    seg_frame *f;
    if (t->depth == t->cap && seg_stack_grow(t) < 0)
        return NULL;
    sc = seg_code_for(code);
    if (sc == NULL)
        return NULL;
    assert(t->depth < t->cap);
    f = &t->stack[t->depth++];
    f->sc = sc;
    f->iframe = pc_tstate_iframe(t->ts); /* the frame starting now */
    f->start = f->at = f->raised = f->resume = f->jumped = -1;
    f->seeded = 0;
    return f;
}

/* ---- reading frames ---- */

/* The unit of the current instruction of the Python frame p, if it runs
 * the code of f; else -1. */
static inline int32_t
seg_iframe_instruction(pc_iframe *p, const seg_frame *f)
{
    if (p == NULL || pc_iframe_executable(p) != f->sc->code)
        return -1;
    return seg_owner_unit(f->sc, pc_iframe_unit(p));
}

static inline pc_iframe *
seg_python_frame(pc_iframe *p)
{
    while (p != NULL && pc_iframe_code(p) == NULL)
        p = p->previous;
    return p;
}

/* The specialized CALL of a class with a Python __init__ (3.13+) puts a
 * shim frame between the caller and __init__ (its code: EXIT_INIT_CHECK,
 * RETURN_VALUE); it fires no event and runs nothing counted. */
static inline int
seg_init_shim(pc_iframe *p)
{
    return seg_op.exit_init_check >= 0 &&
           (((PyCodeObject *)pc_iframe_executable(p))->co_code_adaptive[0] & 0xff) ==
               seg_op.exit_init_check;
}

/* The common case of seg_caller_instruction(), read in a few loads: the
 * new frame's (*cur's) previous one, or the one past the entry frame of a
 * call from C; NULL if none (or with PC_FRAME_READ_PUBLIC: the general
 * path decides).  A class's __init__ shim is seg_caller_past_shim()'s. */
static inline pc_iframe *
seg_caller_fast(seg_thread *t, pc_iframe **cur)
{
    pc_iframe *p;
    *cur = pc_tstate_iframe(t->ts);
    if (PC_PUBLIC_FRAMES)
        return NULL; /* measure the public API's way: no internal reads */
    if (*cur == NULL || (p = (*cur)->previous) == NULL)
        return NULL;
    if (p->owner >= PC_FRAME_OWNED_BY_CSTACK)
        p = p->previous;
    return p;
}

/* p, or the frame that called a class if p is its __init__ shim (the
 * frame seg_caller_fast() found for __init__). */
static inline pc_iframe *
seg_caller_past_shim(pc_iframe *p)
{
    if (p == NULL || !seg_init_shim(p) || (p = p->previous) == NULL)
        return p;
    return p->owner >= PC_FRAME_OWNED_BY_CSTACK ? p->previous : p;
}

/* The current instruction of f's frame p, the new frame's caller; -1
 * if p does not run f's code (a shim), or at a JUMP_BACKWARD (whose 3.12
 * eval-breaker case seg_stop_at() handles) or a RESUME (a frame that has not
 * reported its start, PC_RESUME_BREAKER_FIRST, at the address of one that
 * returned): the general path decides. */
static inline int32_t
seg_caller_unit(const seg_frame *f, pc_iframe *p)
{
    int32_t c;
    if (pc_iframe_executable(p) != f->sc->code)
        return -1;
    c = seg_owner_unit(f->sc, pc_iframe_unit(p));
    if (c < 0 || seg_op.no_stop[f->sc->op[c]])
        return -1;
    return c;
}

/* A frame that has reported nothing of itself: waiting at the eval
 * breaker of a RESUME whose PY_START/PY_RESUME has not fired (3.13+,
 * PC_RESUME_BREAKER_FIRST), or 3.13's shim between a class's call and
 * its __init__. */
int seg_unreported(pc_iframe *p);
/* A frame whose current instruction is a RESUME. */
int seg_at_resume(pc_iframe *p);
/* At PY_START/PY_RESUME/PY_THROW: the caller's current instruction;
 * -1 if it cannot be found. */
int32_t seg_caller_instruction(seg_thread *t, const seg_frame *f);
/* At RAISE: the raising frame's own current instruction; -1 if not
 * found. */
int32_t seg_own_instruction(seg_thread *t, const seg_frame *f);

#endif /* PC_HAVE_MONITORING */
#endif
