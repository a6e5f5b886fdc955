/* lifecycle.c: the module layer's side of every source: module init,
 * the one settle operation (cut every thread, fold the counts) that
 * every path reading or closing the counts takes, windows and measure()
 * opening and closing, clear, has-data, the exit cut, a fork child's
 * fresh start, and a code object's death.  The sources below never call
 * one another for these: this file calls each in turn, in the order
 * their invariants need (see each function). */
#include "lifecycle.h"
#include "backend.h"
#include "codeinfo.h"
#include "census.h"
#include "census_sites.h"
#include "guard.h"
#include "hotcode.h"
#include "segments.h"
#include "stats.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static int exit_cut_register(void);

/* Called by CPython when a code object dies (possibly during
 * finalization, possibly after our module is gone: plain C only). */
static void
code_dead(void *p)
{
    pc_codeinfo *ci = p;
    pc_lock();              /* any thread, at once (free-threaded builds) */
    pc_seg_code_free(ci);   /* its segment counts go into pc_g first */
    pc_sites_code_dead(ci); /* its rows, while its record is whole */
    pc_hot_code_dead(ci->hot);
    pc_codeinfo_free(ci);
    pc_unlock();
}

int
pc_lifecycle_init(PyObject *opnames)
{
    static Py_ssize_t extra_index = -1;

    if (extra_index < 0) {
        extra_index = pc_request_code_extra_index(code_dead);
        if (extra_index < 0) {
            PyErr_SetString(PyExc_RuntimeError, "pystats: no free co_extra slot");
            return -1;
        }
        pc_codeinfo_init(extra_index);
        pc_census_init(extra_index);
    }
    if (pc_collector_init(opnames) < 0)
        return -1;
#if PC_HAVE_MONITORING
    {
        PyObject *mon = pc_monitoring_module(); /* owned */
        int r;
        if (mon == NULL)
            return -1;
        r = pc_seg_init(mon);
        Py_DECREF(mon);
        if (r < 0)
            return -1;
    }
#endif
    return 0;
}

/* A settle's cut, fold or clear half done must not be folded again by
 * a SIGTERM's dump (dump.c's handler): counts taken twice, a false
 * desync.  While one is held the handler leaves the signal pending;
 * the outermost release raises it again, and the handler then finds the
 * counts whole.  Atomic: on free-threaded builds the holder and the
 * thread the signal lands on may differ. */
static void
hold(void)
{
    __atomic_add_fetch(&pc_g.settling, 1, __ATOMIC_SEQ_CST);
}

static void
release(void)
{
    if (__atomic_sub_fetch(&pc_g.settling, 1, __ATOMIC_SEQ_CST) == 0 && pc_g.term_pending &&
        !pc_g.dumping) {
        pc_g.term_pending = 0;
        raise(SIGTERM);
    }
}

/* What the last settle could not cut (a signal's). */
static struct {
    uint64_t units, frames, threads;
} leftover;

void
pc_settle(pc_settle_at at)
{
    if (at != PC_SETTLE_SIGNAL)
        hold(); /* released by pc_settle_end(), or below at exit */
    switch (at) {
    case PC_SETTLE_API:
        assert(PyGILState_Check());
        pc_world_stop();  /* every thread at one moment (free-threaded) */
        pc_backend_cut(); /* 3.11's line-counted frames */
        pc_seg_cut();     /* 3.12+'s open segments; ended threads */
        break;
    case PC_SETTLE_EXIT:
        /* This thread's frames, and ended threads', have all returned;
         * daemon threads had their last cut in the atexit handler. */
        pc_seg_exit();
        /* fall through */
    case PC_SETTLE_SIGNAL:
        if (pc_g.dumping) { /* a signal during a dump: the dump has them */
            if (at == PC_SETTLE_EXIT)
                release();
            return;
        }
        /* Other threads' frames are not read here: what their open
         * segments ran stays uncounted, bounded. */
        if (at == PC_SETTLE_SIGNAL)
            pc_seg_uncut(&leftover.units, &leftover.frames, &leftover.threads);
        /* Frames only from the thread holding the GIL, the interpreter
         * alive (never after finalization began: 3.11's Py_AtExit). */
        if (Py_IsInitialized() && PyGILState_Check())
            pc_backend_cut();
        break;
    }
    pc_seg_fold();    /* segment counts into pc_g: plain C */
    pc_fold_shards(); /* at exit one thread is left; a signal's is last */
    if (at == PC_SETTLE_EXIT)
        release();
}

void
pc_leftover_write(psf_out *o)
{
    char num[24];
    if (leftover.units == 0)
        return;
    psf_u64_to_str(leftover.units, num);
    psf_put_header(o, PSF_H_LEFTOVER_BOUND, num);
    psf_put_header(o, PSF_H_LEFTOVER_CAUSE, "signal");
    psf_u64_to_str(leftover.threads, num);
    psf_put_header(o, PSF_H_LEFTOVER_THREADS, num);
}

void
pc_settle_end(pc_settle_at at)
{
    if (at == PC_SETTLE_API) {
        pc_world_start();
        release();
    }
}

void
pc_set_on(int on)
{
    pc_g.on = on;
    pc_seg_on_changed();
}

int
pc_window_open(pc_mode mode, int census)
{
    if (mode == PC_MODE_COUNT && exit_cut_register() < 0)
        return -1;
    pc_g.mode = mode;
    /* Segment counting starts from the frames running now. */
    if (pc_seg_mode() && pc_seg_window_start() < 0)
        return -1;
    pc_world_stop(); /* every thread starts at one moment */
    pc_set_on(1);
    pc_forget_prev();
    pc_world_start();
    if (mode == PC_MODE_CENSUS)
        pc_g.census_wanted = 1;
    pc_note_start();
    pc_guard_arm();
    if (pc_backend_sync() < 0) {
        pc_set_on(0);
        pc_g.windows--;
        return -1;
    }
    if (pc_stats_install() < 0) {
        pc_exc saved = pc_exc_save();
        pc_set_on(0);
        pc_g.windows--;
        if (pc_backend_sync() < 0)
            PyErr_Clear();
        pc_exc_restore(saved);
        return -1;
    }
    if (mode == PC_MODE_COUNT)
        pc_census_count_window(census);
    return 0;
}

int
pc_window_close(void)
{
    pc_settle(PC_SETTLE_API); /* off()'s own CALL is the last one counted */
    pc_set_on(0);             /* every thread stops at one moment */
    pc_settle_end(PC_SETTLE_API);
    if (pc_backend_sync() < 0 || pc_stats_remove() < 0)
        return -1;
    return 0;
}

int
pc_measure_open(pc_mode mode)
{
    /* measure() always counts; a window's mode only lasts the window. */
    if (!pc_g.on && !pc_g.measuring)
        pc_g.mode = mode;
    if (!pc_counting()) {
        /* fn's first instruction has no predecessor in this thread. */
        pc_t.epoch = 0;
        if (!pc_g.measuring)
            pc_note_start();
        if (pc_seg_mode())
            pc_seg_measure_start(); /* fn starts on an empty stack */
    }
    pc_guard_arm();
    pc_t.measure_depth++;
    pc_g.measuring++;
    pc_seg_measure_set(pc_t.measure_depth);
    if (pc_backend_sync() < 0) {
        pc_t.measure_depth--;
        pc_g.measuring--;
        pc_seg_measure_set(pc_t.measure_depth);
        return -1;
    }
    return 0;
}

void
pc_measure_close(void)
{
    pc_t.measure_depth--;
    pc_g.measuring--;
    pc_seg_measure_set(pc_t.measure_depth); /* fn's quiet returns settled */
    if (pc_backend_sync() < 0)
        PyErr_WriteUnraisable(NULL);
}

void
pc_clear(void)
{
    assert(PyGILState_Check());
    pc_counts_zero();
    pc_seg_zero();
    pc_hot_clear();
    pc_forget_prev();
    pc_g.windows = 0;
    pc_g.started = 0;
    pc_census_clear();
    pc_sites_clear();
    pc_stats_clear();
    pc_guard_clear(pc_backend_displaced());
    pc_seg_desync_report_clear();
    pc_g.census_wanted = pc_g.on && pc_g.mode == PC_MODE_CENSUS;
    /* A clear while counting starts a new dump period now. */
    if (pc_g.on || pc_g.measuring)
        pc_note_start();
}

#if PC_FREE_THREADING
void
pc_fold_shards(void)
{
    pc_shards_fold_opcodes();
    pc_hot_fold_all();
    pc_stats_fold_shards();
}

void
pc_zero_shards(void)
{
    pc_shards_zero_opcodes();
    pc_hot_zero_shards();
    pc_stats_zero_shards();
}

void
pc_gather_shards(void)
{
    pc_world_stop();
    pc_fold_shards();
    pc_world_start();
}
#endif

/* The collector's atexit handler: the last moment every thread's frames
 * can be read (Py_AtExit comes after the other thread states are
 * deleted).  A C function: calling it is no Python call a count window
 * would see. */
static PyObject *
exit_cut_fn(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    hold();
    pc_seg_exit_cut();
    release();
    Py_RETURN_NONE;
}

static PyMethodDef exit_cut_def = {"_exit_cut", exit_cut_fn, METH_NOARGS, NULL};

/* In mode count, once: an atexit handler that makes the last cut of
 * every thread (pc_seg_exit_cut) while their frames can still be read.
 * -1 with exception. */
static int
exit_cut_register(void)
{
    static int done;
    PyObject *modules, *atexit, *fn = NULL, *r = NULL; /* owned: the last 3 */
    int had;
    if (done || !PC_HAVE_MONITORING)
        return 0;
    /* Registered at the first count window, after the census's handler
     * (so it runs before it: atexit is last in, first out) and before the
     * program's later ones.  The atexit module is left as unimported as
     * it was (see _census.py's setup()). */
    modules = PyImport_GetModuleDict(); /* borrowed */
    had = PyDict_GetItemString(modules, "atexit") != NULL;
    atexit = PyImport_ImportModule("atexit");
    if (atexit == NULL)
        return -1;
    fn = PyCFunction_New(&exit_cut_def, NULL);
    if (fn != NULL)
        r = PyObject_CallMethod(atexit, "register", "O", fn);
    Py_XDECREF(fn);
    Py_DECREF(atexit);
    if (!had && PyDict_DelItemString(modules, "atexit") < 0)
        PyErr_Clear();
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    done = 1;
    return 0;
}

int
pc_has_data(void)
{
    return pc_counts_any() || pc_census_has_data() || pc_stats_has_data() || pc_hot_has_data();
}

/* pthread_atfork's child handler (dump.c installs it): the parent's
 * counts are the parent's; this process starts from zero and writes its
 * own file. */
void
pc_after_fork(void)
{
    if (pc_has_data())
        pc_counts_zero();
    pc_stats_clear();
    pc_census_clear();
    pc_sites_clear();
    pc_seg_after_fork();
    pc_hot_clear();
    pc_guard_clear(pc_backend_displaced_here());
    pc_seg_desync_report_clear();
    pc_shards_after_fork();
    pc_zero_shards();
    pc_forget_prev();
    pc_g.forked = 1;
    pc_g.ppid = (long)getppid();
    pc_g.windows = 0;
    pc_g.started = 0;
    pc_g.dumping = 0;
    pc_g.settling = 0;
    pc_g.term_pending = 0;
    if (pc_g.on || pc_g.measuring)
        pc_note_start();
}
