/* compat.h: every CPython-version difference and every CPython
 * internal the extension depends on.
 *
 * Nothing outside this file tests the interpreter's version
 * (PY_VERSION_HEX) or whether the build has a GIL (Py_GIL_DISABLED):
 * the rest tests the feature macros defined here (PC_HAVE_MONITORING,
 * PC_FREE_THREADING, PC_CODE_TLBC...).  Nothing outside it names a
 * private CPython name (_Py*) or the error-fetch APIs, which differ
 * between versions (pc_exc_save(), pc_exc_restore()).
 * tests/py/test_layers.py checks both.  Each branch says why it exists.
 */
#ifndef PC_COMPAT_H
#define PC_COMPAT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <string.h>

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030F0000
#error "pystats supports CPython 3.11, 3.12, 3.13 and 3.14"
#endif

/* 3.12 added sys.monitoring, whose INSTRUCTION events are the cheapest
 * exact per-instruction hook; 3.11 only has the trace function with
 * opcode events. */
#if PY_VERSION_HEX >= 0x030C0000
#define PC_HAVE_MONITORING 1
#else
#define PC_HAVE_MONITORING 0
#endif

/* The co_extra slots were renamed PyUnstable_* in 3.12 (PEP 689); the
 * underscored names remain only as deprecated aliases. */
#if PY_VERSION_HEX >= 0x030C0000
#define pc_code_get_extra PyUnstable_Code_GetExtra
#define pc_code_set_extra PyUnstable_Code_SetExtra
#define pc_request_code_extra_index PyUnstable_Eval_RequestCodeExtraIndex
#else
#define pc_code_get_extra _PyCode_GetExtra
#define pc_code_set_extra _PyCode_SetExtra
#define pc_request_code_extra_index _PyEval_RequestCodeExtraIndex
#endif

/* How many of a sys.monitoring event's arguments after the code object
 * are ints that CPython makes for it: the offset, and a jump's
 * destination. */
static inline int
pc_event_int_args(const char *event)
{
    return strcmp(event, "JUMP") == 0 || strncmp(event, "BRANCH", 6) == 0 ? 2 : 1;
}

/* Whether an event's int argument was made for the event (stats.h):
 * 3.12 and 3.13 make one past the cached small ints, which are
 * immortal; 3.14 takes it from its freelist, no allocation. */
#if PC_HAVE_MONITORING && PY_VERSION_HEX < 0x030E0000
#define PC_EVENT_INTS_ALLOCATED 1
static inline int
pc_event_int_made(PyObject *o)
{
    return !_Py_IsImmortal(o); /* the small ints are immortal */
}
#else
#define PC_EVENT_INTS_ALLOCATED 0
#endif

/* A monitoring callback's offset argument is a small int.  3.12 exposes
 * the compact representation, which reads it without a call and without
 * an error path. */
#if PC_HAVE_MONITORING
static inline Py_ssize_t
pc_small_int(PyObject *o)
{
    if (PyLong_CheckExact(o) && PyUnstable_Long_IsCompact((PyLongObject *)o))
        return PyUnstable_Long_CompactValue((PyLongObject *)o);
    return -1;
}

/* An event's bytecode offset as a code unit, read from the int's tag
 * word (longintrepr.h: digit count << 3 | sign, sign 1 for zero).
 * 3.14 sets the tag's third bit on the cached small ints (-5..256),
 * which the reads below ignore.  Offsets are non-negative and below
 * 2**30, so one digit.  The fast paths take one compare: 0 (and anything
 * else) gives -1 there, which sends the event to the general path. */
#if PY_VERSION_HEX >= 0x030E0000
#define PC_LONG_TAG_FLAGS ((uintptr_t)4)
#else
#define PC_LONG_TAG_FLAGS ((uintptr_t)0)
#endif
static inline int32_t
pc_offset_unit_nonzero(PyObject *o)
{
    const PyLongObject *v = (const PyLongObject *)o;
    if ((v->long_value.lv_tag & ~PC_LONG_TAG_FLAGS) == ((uintptr_t)1 << _PyLong_NON_SIZE_BITS))
        return (int32_t)(v->long_value.ob_digit[0] >> 1);
    return -1;
}

/* The same, 0 included; -1 if not such an int. */
static inline int32_t
pc_offset_unit(PyObject *o)
{
    int32_t u = pc_offset_unit_nonzero(o);
    if (u >= 0)
        return u;
    return (((const PyLongObject *)o)->long_value.lv_tag & ~PC_LONG_TAG_FLAGS) == 1 ? 0 : -1;
}

/* The same, 0 tested first: PY_START's offset, a function's RESUME at 0
 * (a generator's is past its RETURN_GENERATOR). */
static inline int32_t
pc_offset_unit_zero_first(PyObject *o)
{
    if (__builtin_expect((((const PyLongObject *)o)->long_value.lv_tag & ~PC_LONG_TAG_FLAGS) == 1,
                         1))
        return 0;
    return pc_offset_unit_nonzero(o);
}
#endif

/* The trace function (3.11) of a thread: c_tracefunc is a public field
 * of PyThreadState on 3.11 (Include/cpython/pystate.h). */
#define pc_tstate_tracefunc(ts) ((ts)->c_tracefunc)

/* The census reads a code object's adaptive bytecode in place: the
 * co_code_adaptive array of PyCodeObject, Py_SIZE code units long, is
 * part of the (unstable) public struct in 3.11-3.14. */
#define pc_code_units(co) ((const uint16_t *)(co)->co_code_adaptive)
#define pc_code_nunits(co) Py_SIZE(co)

/* Backoff counters (Include/internal/pycore_code.h, and
 * pycore_backoff.h in 3.13): the first cache entry of an adaptive
 * instruction holds value << 4 | backoff exponent.  A failed
 * specialization increments the exponent from its warm-up value: 5 on
 * 3.11 (adaptive_counter_start), 1 on 3.12+ (adaptive_counter_warmup). */
#if PY_VERSION_HEX >= 0x030C0000
#define PC_WARMUP_BACKOFF 1u
#define PC_UNQUICKENED_IS_BASE 0
#else
#define PC_WARMUP_BACKOFF 5u
/* 3.11 turns adaptive instructions into their *_ADAPTIVE forms when it
 * quickens warm code: a base form means the code was never quickened. */
#define PC_UNQUICKENED_IS_BASE 1
#endif

/* The copies of a code object's adaptive bytecode the census reads
 * (docs/FORMAT.md 1.10, "On 3.14t").  A free-threaded 3.14 runs each
 * thread on its own copy, specialized on its own: co_tlbc, a
 * _PyCodeArray (Include/cpython/code.h) whose entry 0 is
 * co_code_adaptive and entry k the copy of the thread holding index k,
 * NULL where no such thread ran the code (PYTHON_TLBC=0: every thread
 * runs entry 0).  Every copy is Py_SIZE units long, laid out alike: only
 * opcodes of one family and their caches differ.  CPython only grows the
 * array (a larger one replaces it, the old one freed once no attached
 * thread can be reading it) and frees a copy only with the world
 * stopped, so a copy read while this thread stays attached is valid.
 * Elsewhere there is one copy, co_code_adaptive. */
#if PY_VERSION_HEX >= 0x030E0000 && defined(Py_GIL_DISABLED)
#define PC_CODE_TLBC 1
static inline Py_ssize_t
pc_code_ncopies(PyCodeObject *co)
{
    const _PyCodeArray *a = (const _PyCodeArray *)_Py_atomic_load_ptr_acquire(&co->co_tlbc);
    return a != NULL ? a->size : 1;
}

/* Copy k (0 <= k < pc_code_ncopies()), or NULL if there is none. */
static inline const uint16_t *
pc_code_copy(PyCodeObject *co, Py_ssize_t k)
{
    _PyCodeArray *a;
    if (k == 0)
        return pc_code_units(co);
    a = (_PyCodeArray *)_Py_atomic_load_ptr_acquire(&co->co_tlbc);
    if (a == NULL || k >= a->size)
        return NULL;
    return (const uint16_t *)_Py_atomic_load_ptr_acquire(&a->entries[k]);
}

/* PYTHON_TLBC=0 quickens code with the unreachable counter instead of
 * the warm-up one (Python/specialize.c _PyCode_Quicken, enable_counters
 * 0): backoff exponent 15, which no failure reaches (MAX_BACKOFF 12,
 * pycore_backoff.h), never triggering an attempt: specialization off. */
#define PC_UNREACHABLE_BACKOFF 15u
#else
#define PC_CODE_TLBC 0
#define pc_code_ncopies(co) ((Py_ssize_t)1)
#define pc_code_copy(co, k) ((k) == 0 ? pc_code_units(co) : NULL)
#endif

/* Code watchers (PyCode_AddWatcher) arrived in 3.12. */
#if PY_VERSION_HEX >= 0x030C0000
#define PC_HAVE_CODE_WATCHER 1
#else
#define PC_HAVE_CODE_WATCHER 0
#endif

/* Segment counting (segments.c, 3.12+) needs the current instruction of
 * a running frame: the caller's at PY_START/PY_RESUME/PY_THROW, the
 * raising frame's at RAISE, every frame's when collection starts.
 * CPython keeps it in its internal frame, _PyInterpreterFrame
 * (Include/internal/pycore_frame.h; pycore_interpframe_structs.h in
 * 3.14), whose leading fields are mirrored here; their layout is fixed
 * within a minor version.  3.12 calls the instruction pointer prev_instr
 * and the code f_code; 3.13 instr_ptr and f_executable (a code object,
 * or None for a shim frame).  3.14 holds f_executable and f_funcobj as
 * stack references (_PyStackRef, pycore_stackref.h): the object pointer
 * with tag bits in its two low bits (one on free-threaded builds), and
 * the int stacktop became a pointer, stackpointer.  3.12 finds the
 * thread's current frame through tstate->cframe, 3.13+ directly.
 * prev_instr (3.12) can point at a cache entry of the instruction it
 * names: readers map a cache unit to the instruction that owns it.
 * Frames owned by the C stack (3.12, 3.13: FRAME_OWNED_BY_CSTACK, 3) or
 * by the interpreter (3.14: FRAME_OWNED_BY_INTERPRETER, 3, and
 * FRAME_OWNED_BY_CSTACK, 4) run no Python code of their own. */
#if PC_HAVE_MONITORING
typedef struct pc_iframe {
#if PY_VERSION_HEX >= 0x030E0000
    uintptr_t code_bits; /* f_executable, a _PyStackRef */
    struct pc_iframe *previous;
    uintptr_t funcobj_bits;
    PyObject *globals, *builtins, *locals;
    PyFrameObject *frame_obj;
    uint16_t *instr; /* instr_ptr */
    void *stackpointer;
#ifdef Py_GIL_DISABLED
    int32_t tlbc_index;
#endif
#else
    PyObject *code; /* f_code (3.12) / f_executable (3.13) */
    struct pc_iframe *previous;
    PyObject *funcobj, *globals, *builtins, *locals;
    PyFrameObject *frame_obj;
    uint16_t *instr; /* prev_instr (3.12) / instr_ptr (3.13) */
    int stacktop;
#endif
    uint16_t return_offset;
    char owner;
} pc_iframe;

#define PC_FRAME_OWNED_BY_GENERATOR 1
#define PC_FRAME_OWNED_BY_CSTACK 3 /* and above: no Python code */

/* The frame's executable (code object, or None for a shim), borrowed. */
static inline PyObject *
pc_iframe_executable(const pc_iframe *f)
{
#if PY_VERSION_HEX >= 0x030E0000
    return (PyObject *)(f->code_bits & ~(uintptr_t)3);
#else
    return f->code;
#endif
}

/* The frame's function (f_funcobj: a function object for Python frames,
 * exec'd and eval'd code included), borrowed; NULL if it has none. */
static inline PyObject *
pc_iframe_funcobj(const pc_iframe *f)
{
#if PY_VERSION_HEX >= 0x030E0000
    PyObject *fn = (PyObject *)(f->funcobj_bits & ~(uintptr_t)3);
#else
    PyObject *fn = f->funcobj;
#endif
    return fn != NULL && PyFunction_Check(fn) ? fn : NULL;
}

static inline pc_iframe *
pc_tstate_iframe(PyThreadState *ts)
{
#if PY_VERSION_HEX >= 0x030D0000
    return (pc_iframe *)ts->current_frame;
#else
    return ts->cframe ? (pc_iframe *)ts->cframe->current_frame : NULL;
#endif
}

/* The frame's code object if it is a Python frame with one, else NULL
 * (shim frames of C calls). */
static inline PyObject *
pc_iframe_code(pc_iframe *f)
{
    PyObject *code = pc_iframe_executable(f);
    if (f->owner >= PC_FRAME_OWNED_BY_CSTACK || code == NULL || !PyCode_Check(code))
        return NULL;
    return code;
}

/* Code unit the frame's instruction pointer is at (may be a cache unit).
 * A free-threaded build runs each thread on its own copy of the
 * bytecode (3.14t: co_tlbc, PYTHON_TLBC), the frame's tlbc_index naming
 * which; entry 0 is co_code_adaptive itself. */
static inline Py_ssize_t
pc_iframe_unit(pc_iframe *f)
{
    PyCodeObject *co = (PyCodeObject *)pc_iframe_executable(f);
#if PC_CODE_TLBC
    return f->instr - (uint16_t *)co->co_tlbc->entries[f->tlbc_index];
#else
    return f->instr - (uint16_t *)co->co_code_adaptive;
#endif
}

/* JUMP_BACKWARD checks the eval breaker (signal handlers, pending calls,
 * the GC and its callbacks run there): 3.12 fires the JUMP event first,
 * 3.13+ handle the breaker first. */
#if PY_VERSION_HEX >= 0x030D0000
#define PC_JUMP_EVENT_BEFORE_BREAKER 0
#else
#define PC_JUMP_EVENT_BEFORE_BREAKER 1
#endif

/* RESUME checks the eval breaker too: 3.12 after PY_START/PY_RESUME
 * fired (what runs there has the new frame, reported, as its caller),
 * 3.13+ before (the new frame has not reported its start yet). */
#if PY_VERSION_HEX >= 0x030D0000
#define PC_RESUME_BREAKER_FIRST 1
#else
#define PC_RESUME_BREAKER_FIRST 0
#endif

/* A FOR_ITER whose iterator is exhausted jumps to its END_FOR target and
 * skips it: 3.12 skips END_FOR, 3.13 END_FOR and the POP_TOP after it;
 * 3.14 skips END_FOR and runs the POP_ITER after it. */
#if PY_VERSION_HEX >= 0x030E0000
#define PC_FOR_ITER_EXIT_SKIP 1
#elif PY_VERSION_HEX >= 0x030D0000
#define PC_FOR_ITER_EXIT_SKIP 2
#else
#define PC_FOR_ITER_EXIT_SKIP 1
#endif

/* Branch events (Python/instrumentation.c, bytecodes.c).  3.12 and 3.13
 * fire one BRANCH event at the branching instruction, taken or not.
 * 3.14 splits it in two, each with its own callback and each disabled
 * on its own: BRANCH_RIGHT when a POP_JUMP_IF_* jumps, BRANCH_LEFT from
 * the NOT_TAKEN after it when it does not, BRANCH_LEFT from FOR_ITER
 * when it goes round, BRANCH_RIGHT from the POP_ITER after the loop's
 * END_FOR when it is exhausted, and BRANCH_RIGHT from END_ASYNC_FOR
 * when an async for loop ends.  The instruction named as the source is
 * not always the one that fires (INSTRUMENTED_JUMP(prev_instr, ...)):
 * NOT_TAKEN names its POP_JUMP_IF_*, POP_ITER its FOR_ITER and
 * END_ASYNC_FOR the END_SEND of its loop; the one that fires is the
 * instruction just before the destination.  (The legacy BRANCH event of
 * 3.14 is both, through a wrapper.) */
#if PY_VERSION_HEX >= 0x030E0000
#define PC_BRANCH_LEFT_RIGHT 1
#else
#define PC_BRANCH_LEFT_RIGHT 0
#endif
#endif /* PC_HAVE_MONITORING */

/* The counters are process-wide, so the module supports one interpreter
 * per process; 3.12 lets a module say so. */
#if PY_VERSION_HEX >= 0x030C0000
#define PC_SLOT_ONE_INTERPRETER \
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#else
#define PC_SLOT_ONE_INTERPRETER
#endif

/* Free-threaded builds (3.13t) have no GIL protecting the counters. */
#ifdef Py_GIL_DISABLED
#define PC_FREE_THREADING 1
#else
#define PC_FREE_THREADING 0
#endif

/* Stopping the world (shard.c folds the per-thread shards with every
 * other thread waiting at a safe point: an eval breaker check, or
 * detached until started).  CPython exports both functions but declares
 * them only for the core (Include/internal/pycore_pystate.h). */
#if PC_FREE_THREADING
PyAPI_FUNC(void) _PyEval_StopTheWorld(PyInterpreterState *interp);
PyAPI_FUNC(void) _PyEval_StartTheWorld(PyInterpreterState *interp);
#define pc_stop_the_world _PyEval_StopTheWorld
#define pc_start_the_world _PyEval_StartTheWorld
#endif

/* 3.11's trace function backend (trace.c) installs its function with
 * _PyEval_SetTrace (any thread's state, where PyEval_SetTrace takes the
 * current one's) and reads the thread state of a fork child, which may
 * have none, with _PyThreadState_UncheckedGet (Include/cpython/ceval.h,
 * cpython/pystate.h). */
#if !PC_HAVE_MONITORING
#define pc_eval_set_trace _PyEval_SetTrace
#define pc_tstate_unchecked _PyThreadState_UncheckedGet
#endif

/* A METH_FASTCALL function (the monitoring callbacks, monitoring.c): the
 * type is named _PyCFunctionFast in 3.12, PyCFunctionFast from 3.13
 * (which keeps the old name as an alias). */
typedef _PyCFunctionFast pc_fastcall_fn;

/* The exception the interpreter has in flight, set aside while the
 * collector runs code that may raise or clear one, and put back after.
 * 3.12 holds it as one object (PyErr_GetRaisedException); 3.11 as the
 * triple of PyErr_Fetch, which 3.12 deprecates.  Saving, restoring and
 * copying never allocate or fail: they move references out of the
 * thread state and back, or count them (restoring drops whatever
 * exception is pending then, as PyErr_Restore does). */
#if PY_VERSION_HEX >= 0x030C0000
typedef struct pc_exc {
    PyObject *exc; /* owned, or NULL */
} pc_exc;
#else
typedef struct pc_exc {
    PyObject *type, *value, *tb; /* owned, or NULL */
} pc_exc;
#endif

/* Takes the pending exception, if any, out of the thread state, which
 * is left with none. */
static inline pc_exc
pc_exc_save(void)
{
    pc_exc e;
#if PY_VERSION_HEX >= 0x030C0000
    e.exc = PyErr_GetRaisedException();
#else
    PyErr_Fetch(&e.type, &e.value, &e.tb);
#endif
    return e;
}

/* Makes e the pending exception (none if e holds none), replacing any:
 * e's references pass to the thread state. */
static inline void
pc_exc_restore(pc_exc e)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(e.exc);
#else
    PyErr_Restore(e.type, e.value, e.tb);
#endif
}

/* e, with a reference of its own to each object it holds. */
static inline pc_exc
pc_exc_ref(pc_exc e)
{
#if PY_VERSION_HEX >= 0x030C0000
    Py_XINCREF(e.exc);
#else
    Py_XINCREF(e.type);
    Py_XINCREF(e.value);
    Py_XINCREF(e.tb);
#endif
    return e;
}

/* Drops e's references. */
static inline void
pc_exc_drop(pc_exc e)
{
#if PY_VERSION_HEX >= 0x030C0000
    Py_XDECREF(e.exc);
#else
    Py_XDECREF(e.type);
    Py_XDECREF(e.value);
    Py_XDECREF(e.tb);
#endif
}

/* The exception object e holds (borrowed), or NULL if none.  3.11
 * normalizes the triple first, which may create the object (allocate,
 * run Python code): not for the per-event paths. */
static inline PyObject *
pc_exc_object(pc_exc *e)
{
#if PY_VERSION_HEX >= 0x030C0000
    return e->exc;
#else
    PyErr_NormalizeException(&e->type, &e->value, &e->tb);
    return e->value;
#endif
}

#endif
