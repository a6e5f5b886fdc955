/* module.c: the pystats._collector module: its API, and nothing else.
 *
 * Counting lives in collector.c and the backends, writing in dump.c,
 * what touches every source (init, the settle operation, windows and
 * measure() opened and closed, clear, fork, a code object's death) in
 * lifecycle.c.  Every entry point that touches the collector's state
 * does its work under the API lock (API_LOCK), one call at a time.
 */
#include "collector.h"
#include "backend.h"
#include "dump.h"
#include "lifecycle.h"
#include "native.h"
#include "census.h"
#include "census_sites.h"
#include "stats.h"
#include "segments.h"
#include "../format/psf_version.h"
#include "text.h"
#include "guard.h"

#include <string.h>

/* A hot-path failure is reported at the next API call, never from the
 * callback itself. */
static int
check_pending(void)
{
    if (pc_g.error_pending) {
        pc_g.error_pending = 0;
        PyErr_SetString(PyExc_MemoryError, "pystats: some instructions could not be counted "
                                           "(out of memory while reading a code object)");
        return -1;
    }
    return 0;
}

/* The mode of on() without one, of "1", and of a measure() outside any
 * window: count, but instructions where the interpreter runs without
 * the GIL, which count needs (a free-threaded build, PYTHON_GIL=0). */
static pc_mode default_mode = PC_MODE_COUNT;

/* The API's calls one at a time: on a free-threaded build two threads
 * may call at once (shard.h). */
#define API_LOCK() pc_api_lock()
#define API_UNLOCK() pc_api_unlock()

/* Segment counting reads and changes state every thread shares (its
 * tables, the quiet jumps): exact only with the GIL. */
static int
refuse_without_gil(pc_mode mode)
{
    if (!PC_FREE_THREADING ||
        (mode != PC_MODE_COUNT && mode != PC_MODE_NOOP_SEGMENTS && mode != PC_MODE_NOOP_QUIET) ||
        !pc_gil_off())
        return 0;
    PyErr_Format(PyExc_RuntimeError,
                 "pystats: mode %s counts exactly only with the GIL, and this "
                 "free-threaded interpreter runs without it (PYTHON_GIL=0 or "
                 "-X gil=0): use mode instructions, or leave PYTHON_GIL unset",
                 pc_mode_name(mode));
    return -1;
}

static int
parse_mode(PyObject *mode, pc_mode *out)
{
    const char *s;
    if (mode == NULL || mode == Py_None) {
        *out = default_mode;
        return 0;
    }
    s = PyUnicode_AsUTF8(mode);
    if (s == NULL)
        return -1;
    if (!strcmp(s, "") || !strcmp(s, "1")) {
        *out = default_mode;
        return 0;
    }
    if (!strcmp(s, "count")) {
        *out = PC_MODE_COUNT;
        return 0;
    }
    if (!strcmp(s, "noop")) {
        *out = PC_MODE_NOOP;
        return 0;
    }
    if (!strcmp(s, "census")) {
        *out = PC_MODE_CENSUS;
        return 0;
    }
    /* One event per instruction: the reference for "count", which takes
     * fewer events on 3.12+; on 3.11 both are the trace function. */
    if (!strcmp(s, "instructions")) {
        *out = PC_HAVE_MONITORING ? PC_MODE_INSTRUCTIONS : PC_MODE_COUNT;
        return 0;
    }
    if (!strcmp(s, "noop-segments") && PC_HAVE_MONITORING) {
        *out = PC_MODE_NOOP_SEGMENTS;
        return 0;
    }
    if (!strcmp(s, "noop-quiet") && PC_HAVE_MONITORING) {
        *out = PC_MODE_NOOP_QUIET;
        return 0;
    }
    PyErr_Format(PyExc_ValueError,
                 "pystats: unknown collection mode %R (known: 'count', "
                 "'instructions', 'census', 'noop'%s)",
                 mode, PC_HAVE_MONITORING ? ", 'noop-segments', 'noop-quiet'" : "");
    return -1;
}

/* The mode of a measure() outside any window (count; the tests set
 * instructions to compare the two). */
static pc_mode measure_mode = PC_MODE_COUNT;

static PyObject *
native_result(const char *what)
{
    PyObject *r = pc_native_call(what);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(on_doc, "on($module, /, mode=None, census=None)\n--\n\n"
                     "Start counting, in every thread, from the instruction after this call.\n"
                     "mode: 'count' (default, also '1'); 'census' (no per-instruction events:\n"
                     "the specialization state of every code object is taken at dump time);\n"
                     "'instructions'; 'noop' (the events, nothing counted: the cost floor).\n"
                     "census: mode 'count' on 3.12+ also takes the specialization census at\n"
                     "dump time, leaving out the families its events instrument; False\n"
                     "leaves it out (True where it cannot be taken is a ValueError).");

/* Does a window of this mode take the census alongside its counts?
 * Only mode count on 3.12+: its segment events leave most families free
 * to specialize.  3.11's trace function holds specialization back in
 * every traced instruction, mode instructions instruments every
 * instruction: a census there would describe state counting froze. */
static int
census_option(pc_mode mode, PyObject *arg, int *census)
{
    int want = -1; /* -1: not said */
    if (arg != NULL && arg != Py_None) {
        want = PyObject_IsTrue(arg);
        if (want < 0)
            return -1;
    }
    *census = 0;
    if (mode == PC_MODE_CENSUS) {
        if (want == 0) {
            PyErr_SetString(PyExc_ValueError, "pystats: mode 'census' always takes the census");
            return -1;
        }
        return 0;
    }
    if (mode == PC_MODE_COUNT && PC_HAVE_MONITORING) {
        *census = want != 0;
        return 0;
    }
    if (want == 1) {
        PyErr_SetString(PyExc_ValueError, "pystats: a census alongside counting needs mode "
                                          "'count' on Python 3.12+ (3.11's trace function and "
                                          "mode 'instructions' hold specialization back)");
        return -1;
    }
    return 0;
}

static PyObject *on_locked(PyObject *mode_obj, PyObject *census_obj);

static PyObject *
pc_on(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"mode", "census", NULL};
    PyObject *mode_obj = NULL, *census_obj = NULL, *r;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:on", kwlist, &mode_obj, &census_obj))
        return NULL;
    API_LOCK();
    r = on_locked(mode_obj, census_obj);
    API_UNLOCK();
    return r;
}

static PyObject *
on_locked(PyObject *mode_obj, PyObject *census_obj)
{
    pc_mode mode;
    int census;
    if (parse_mode(mode_obj, &mode) < 0 || census_option(mode, census_obj, &census) < 0 ||
        check_pending() < 0 || refuse_without_gil(mode) < 0)
        return NULL;
    if (pc_g.native) {
        pc_set_on(1);
        return native_result("on");
    }
    if (pc_g.on) {
        if (mode != pc_g.mode) {
            PyErr_SetString(PyExc_ValueError, "pystats: already on in another mode; off() first");
            return NULL;
        }
        if (mode == PC_MODE_COUNT && census_obj != NULL && census_obj != Py_None &&
            census != pc_census_count_option()) {
            PyErr_SetString(PyExc_ValueError, "pystats: already on with another census "
                                              "option; off() first");
            return NULL;
        }
        Py_RETURN_NONE;
    }
    if (pc_g.measuring && mode != pc_g.mode) {
        PyErr_SetString(PyExc_ValueError, "pystats: measure() is running in another mode");
        return NULL;
    }
    if (mode == PC_MODE_CENSUS && pc_census_setup() < 0)
        return NULL;
    if (census && pc_census_setup() < 0) {
        if (census_obj != NULL && census_obj != Py_None)
            return NULL;
        /* Asked for by default only: the counts do not need it.  Count
         * without it, and say why. */
        PyErr_WriteUnraisable(NULL);
        census = 0;
    }
    if (pc_window_open(mode, census) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(off_doc, "off($module, /)\n--\n\n"
                      "Stop counting (the call instruction that invoked off() is the last one\n"
                      "counted) and remove the instrumentation.  Counts are kept.");

static PyObject *off_locked(void);

static PyObject *
pc_off(PyObject *self, PyObject *unused)
{
    PyObject *r;
    (void)self;
    (void)unused;
    API_LOCK();
    r = off_locked();
    API_UNLOCK();
    return r;
}

static PyObject *
off_locked(void)
{
    if (pc_g.native) {
        pc_set_on(0);
        return native_result("off");
    }
    if (pc_g.on && pc_window_close() < 0)
        return NULL;
    if (check_pending() < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(clear_doc, "clear($module, /)\n--\n\n"
                        "Forget everything counted since the last dump or clear.");

static PyObject *
clear_locked(void)
{
    if (pc_g.native)
        return native_result("clear");
    pc_settle(PC_SETTLE_API); /* what runs now counts up to here, then goes */
    pc_clear();
    pc_dump_calls_clear();
    pc_settle_end(PC_SETTLE_API);
    Py_RETURN_NONE;
}

static PyObject *
pc_clear_fn(PyObject *self, PyObject *unused)
{
    PyObject *r;
    (void)self;
    (void)unused;
    API_LOCK();
    r = clear_locked();
    API_UNLOCK();
    return r;
}

PyDoc_STRVAR(benchmark_calls_doc, "_benchmark_calls($module, n, /)\n--\n\n"
                                  "Add n to the benchmark calls the next dump covers (its\n"
                                  "benchmark.calls key; the pyperf hook counts them).");

static PyObject *
pc_benchmark_calls_fn(PyObject *self, PyObject *arg)
{
    unsigned long long n;
    (void)self;
    n = PyLong_AsUnsignedLongLong(arg);
    if (n == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    API_LOCK();
    pc_dump_add_calls((uint64_t)n);
    API_UNLOCK();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(dump_doc, "dump($module, /)\n--\n\n"
                       "Write what was counted since the last dump or clear to a new file in\n"
                       "the output directory, then clear.  Returns True if a file was written,\n"
                       "False if there was nothing to write (or the directory failed and the\n"
                       "dump went to stderr, as said there).");

static PyObject *dump_locked(void);

static PyObject *
pc_dump_fn(PyObject *self, PyObject *unused)
{
    PyObject *r;
    (void)self;
    (void)unused;
    API_LOCK();
    r = dump_locked();
    API_UNLOCK();
    return r;
}

static PyObject *
dump_locked(void)
{
    int r;
    if (pc_g.native) {
        PyObject *res = pc_native_call("dump");
        int truth;
        if (res == NULL)
            return NULL;
        /* 3.12 returns None, 3.13 whether it wrote. */
        truth = res == Py_None ? 1 : PyObject_IsTrue(res);
        Py_DECREF(res);
        if (truth < 0)
            return NULL;
        return PyBool_FromLong(truth);
    }
    if (check_pending() < 0 || pc_census_take() < 0)
        return NULL;
    pc_settle(PC_SETTLE_API);
    r = pc_dump(PC_REASON_EXPLICIT);
    if (r == PC_DUMP_FILE || r == PC_DUMP_STDERR) {
        pc_clear();
        pc_dump_calls_clear();
    }
    pc_settle_end(PC_SETTLE_API);
    if (r == PC_DUMP_FAILED) {
        PyErr_SetString(PyExc_OSError, "pystats: the dump could not be written anywhere");
        return NULL;
    }
    return PyBool_FromLong(r == PC_DUMP_FILE);
}

PyDoc_STRVAR(is_on_doc, "is_on($module, /)\n--\n\n"
                        "True between on() and off().");

static PyObject *
pc_is_on(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(pc_g.on);
}

PyDoc_STRVAR(snapshot_doc, "snapshot($module, /)\n--\n\n"
                           "The counts a dump would write now, as a dict:\n"
                           "{'execution_count': {name: n}, 'pair_count': {(first, next): n}}.");

static PyObject *
snapshot_locked(void)
{
    PyObject *r;
    if (pc_g.native) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: the interpreter's own (--enable-pystats) "
                                            "counters cannot be read before they are dumped; "
                                            "use dump(), or set_backend('own')");
        return NULL;
    }
    if (check_pending() < 0)
        return NULL;
    pc_settle(PC_SETTLE_API);
    r = pc_snapshot();
    pc_settle_end(PC_SETTLE_API);
    return r;
}

static PyObject *
pc_snapshot_fn(PyObject *self, PyObject *unused)
{
    PyObject *r;
    (void)self;
    (void)unused;
    API_LOCK();
    r = snapshot_locked();
    API_UNLOCK();
    return r;
}

/* _census_fold(): the segment counts into the hot-code records now, as
 * snapshot() does, so that the census orders code by its instructions
 * (census_sites.c).  Leaves the counts as they are. */
static PyObject *
pc_census_fold_fn(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    API_LOCK();
    if (!pc_g.native) {
        pc_settle(PC_SETTLE_API);
        pc_settle_end(PC_SETTLE_API);
    }
    API_UNLOCK();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(measure_doc,
             "measure($module, fn, /, *args, **kwargs)\n--\n\n"
             "Call fn(*args, **kwargs) and count exactly the instructions it runs in\n"
             "this thread: none of the caller's, none of measure's own.  Returns fn's\n"
             "result; an exception from fn propagates, counted up to the raise.");

/* measure()'s start: the thread counts from here (the interpreter's
 * own counters: every thread, having no per-thread switch).  -1 with
 * exception. */
static int
measure_start(void)
{
    if (check_pending() < 0)
        return -1;
    if (pc_g.native) {
        PyObject *r = pc_native_call("on");
        if (r == NULL)
            return -1;
        Py_DECREF(r);
        return 0;
    }
    if (pc_g.on && pc_g.mode == PC_MODE_CENSUS) {
        PyErr_SetString(PyExc_ValueError, "pystats: measure() counts instructions, which a "
                                          "census window must not disturb; off() first");
        return -1;
    }
    if (!pc_g.on && !pc_g.measuring && refuse_without_gil(measure_mode) < 0)
        return -1;
    return pc_measure_open(measure_mode);
}

/* measure()'s end; a failure is said as unraisable (fn's result or
 * exception is what measure() returns). */
static void
measure_end(void)
{
    if (pc_g.native) {
        if (!pc_g.on) {
            PyObject *r = pc_native_call("off");
            if (r == NULL)
                PyErr_WriteUnraisable(NULL);
            Py_XDECREF(r);
        }
        return;
    }
    pc_measure_close();
}

static PyObject *
pc_measure(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *result; /* owned */
    pc_exc saved;     /* the exception in flight */
    int started;
    (void)self;

    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "measure() missing required argument 'fn'");
        return NULL;
    }
    API_LOCK();
    started = measure_start();
    API_UNLOCK();
    if (started < 0)
        return NULL;
    result = PyObject_Vectorcall(args[0], args + 1, (size_t)(nargs - 1), kwnames);
    saved = pc_exc_save();
    API_LOCK();
    measure_end();
    API_UNLOCK();
    pc_exc_restore(saved);
    return result;
}

PyDoc_STRVAR(configure_doc, "_configure($module, /, meta, directory, label, default=False)\n--\n\n"
                            "Set the output directory, the label and the header facts of later\n"
                            "dumps (called by the pystats package).  default: directory is the\n"
                            "default one, which falls back to DIRECTORY-UID when it is not the\n"
                            "user's.");

/* A free-text header value, in the dump's text encoding (text.h). */
static int
copy_text(PyObject *v, char *dst, size_t size, const char *what)
{
    int cut;
    if (pc_text_encode(v, dst, size, &cut) < 0)
        return -1;
    if (cut)
        PySys_FormatStderr("pystats: %s is longer than %zu bytes encoded; "
                           "dumps carry its first %zu\n",
                           what, size - 1, strlen(dst));
    return 0;
}

static int
copy_str(PyObject *d, const char *key, char *dst, size_t size)
{
    PyObject *v = PyDict_GetItemString(d, key); /* borrowed */
    if (v == NULL) {
        dst[0] = '\0';
        return 0;
    }
    return copy_text(v, dst, size, key);
}

static int
copy_int(PyObject *d, const char *key, int *dst)
{
    PyObject *v = PyDict_GetItemString(d, key); /* borrowed */
    int r;
    if (v == NULL) {
        *dst = 0;
        return 0;
    }
    r = PyObject_IsTrue(v);
    if (r < 0)
        return -1;
    *dst = r;
    return 0;
}

/* The run id (FORMAT.md 1.1, meta.run.id): 1 to PC_RUN_ID_MAX letters,
 * digits and "._:+-", so that it never needs the text encoding; absent:
 * no run id (the dumps then group by process, as older collectors'). */
static int
copy_run_id(PyObject *d, char *dst)
{
    PyObject *v = PyDict_GetItemString(d, "run_id"); /* borrowed */
    const char *s;
    Py_ssize_t n, i;
    dst[0] = '\0';
    if (v == NULL || v == Py_None)
        return 0;
    if (!PyUnicode_Check(v) || (s = PyUnicode_AsUTF8AndSize(v, &n)) == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "run_id must be a str");
        return -1;
    }
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || (s[i] != '\0' && strchr("._:+-", s[i]) != NULL)))
            break;
    if (n == 0 || n > PC_RUN_ID_MAX || i < n) {
        PyErr_Format(PyExc_ValueError,
                     "run_id must be 1 to %d letters, digits or ._:+- "
                     "(got %R)",
                     PC_RUN_ID_MAX, v);
        return -1;
    }
    memcpy(dst, s, (size_t)n + 1);
    return 0;
}

/* A list of str as one header value: each entry in the text encoding
 * (which never leaves a raw |), joined by |.  Entries that do not fit
 * are left out, whole, and said so once. */
static int
copy_text_list(PyObject *d, const char *key, char *dst, size_t size)
{
    PyObject *v = PyDict_GetItemString(d, key); /* borrowed */
    char one[PC_META_MAX * 4];
    size_t used = 0, n;
    Py_ssize_t i;
    int cut;
    dst[0] = '\0';
    if (v == NULL)
        return 0;
    if (!PyList_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s must be a list", key);
        return -1;
    }
    for (i = 0; i < PyList_GET_SIZE(v); i++) {
        PyObject *s = PyList_GET_ITEM(v, i); /* borrowed */
        if (!PyUnicode_Check(s))
            continue;
        if (pc_text_encode(s, one, sizeof one, &cut) < 0)
            return -1;
        n = strlen(one);
        if (cut || used + (used > 0) + n >= size) {
            PySys_FormatStderr("pystats: %s is longer than %zu bytes encoded; "
                               "dumps carry its first %zd entries\n",
                               key, size - 1, i);
            break;
        }
        if (used > 0)
            dst[used++] = '|';
        memcpy(dst + used, one, n + 1);
        used += n;
    }
    return 0;
}

static PyObject *
pc_configure(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"meta", "directory", "label", "default", NULL};
    PyObject *meta, *label, *dir = NULL; /* dir: owned bytes */
    int is_default = 0;
    pc_meta *m = &pc_g.meta;
    (void)self;
    /* The directory as the file system spells it: a name that is not
     * UTF-8 (os.fsdecode's surrogates) is a name like any other. */
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O&U|p:_configure", kwlist, &PyDict_Type,
                                     &meta, PyUnicode_FSConverter, &dir, &label, &is_default))
        return NULL;
    if (copy_str(meta, "python_version", m->python_version, sizeof m->python_version) < 0 ||
        copy_str(meta, "implementation", m->implementation, sizeof m->implementation) < 0 ||
        copy_str(meta, "sys_version", m->sys_version, sizeof m->sys_version) < 0 ||
        copy_str(meta, "git", m->git, sizeof m->git) < 0 ||
        copy_str(meta, "config_args", m->config_args, sizeof m->config_args) < 0 ||
        copy_str(meta, "cwd", m->cwd, sizeof m->cwd) < 0 ||
        copy_text_list(meta, "sys_path", m->sys_path, sizeof m->sys_path) < 0 ||
        copy_int(meta, "pystats_build", &m->pystats_build) < 0 ||
        copy_int(meta, "free_threading", &m->free_threading) < 0 ||
        copy_int(meta, "jit", &m->jit) < 0 || copy_run_id(meta, m->run_id) < 0) {
        Py_DECREF(dir);
        return NULL;
    }
    /* A name too long for a path is not an error here: each dump says
     * so and goes to stderr, as for any directory that cannot be used. */
    pc_dump_set_dir(PyBytes_AS_STRING(dir), is_default);
    Py_DECREF(dir);
    if (copy_text(label, m->label, sizeof m->label, "PYSTATS_LABEL") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
pc_set_native(PyObject *self, PyObject *arg)
{
    int v = PyObject_IsTrue(arg);
    (void)self;
    if (v < 0)
        return NULL;
    if (pc_g.on || pc_g.measuring) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: cannot change backend while collecting");
        return NULL;
    }
    if (v && !pc_native_available()) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: this interpreter was not built with "
                                            "--enable-pystats");
        return NULL;
    }
    pc_g.native = v;
    Py_RETURN_NONE;
}

static PyObject *
pc_state_fn(PyObject *self, PyObject *unused)
{
    static const char *const scopes[] = {
        [PC_CENSUS_NONE] = NULL, [PC_CENSUS_CENSUS] = "census", [PC_CENSUS_COUNT] = "count"};
    (void)self;
    (void)unused;
    return Py_BuildValue("{sisisssNsisKsisisssisz}", "on", pc_g.on, "measuring", pc_g.measuring,
                         "mechanism", pc_backend_name(), "directory",
                         PyUnicode_DecodeFSDefault(pc_g.dir), "installed", pc_g.installed,
                         "windows", (unsigned long long)pc_g.windows, "forked", pc_g.forked,
                         "native", pc_g.native, "mode", pc_mode_name(pc_g.mode), "census_wanted",
                         pc_g.census_wanted, "census_scope", scopes[pc_census_period_scope()]);
}

/* The sys.monitoring events of segment counting, by name (none on
 * 3.11): _census.py derives from them which INSTRUMENTED_* opcodes a
 * count window puts in code. */
static PyObject *
pc_seg_events_fn(PyObject *self, PyObject *unused)
{
#if PC_HAVE_MONITORING
    size_t n, i;
    const pc_seg_callback *cb = pc_seg_callbacks(0, &n);
    PyObject *t = PyTuple_New((Py_ssize_t)n); /* owned */
    (void)self;
    (void)unused;
    if (t == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *s = PyUnicode_FromString(cb[i].event);
        if (s == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
    }
    return t;
#else
    (void)self;
    (void)unused;
    return PyTuple_New(0);
#endif
}

/* Segment counting's own state, for the tests: the method of the current
 * mode, and how many events did not fit the shadow stack (0). */
static PyObject *
pc_seg_state_fn(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return Py_BuildValue("{sssK}", "method", pc_seg_mode() ? "segments" : "instructions", "desync",
                         (unsigned long long)pc_g.desync);
}

static PyObject *
pc_set_measure_mode(PyObject *self, PyObject *arg)
{
    pc_mode mode;
    (void)self;
    if (parse_mode(arg, &mode) < 0)
        return NULL;
    if (mode == PC_MODE_CENSUS) {
        PyErr_SetString(PyExc_ValueError, "pystats: measure() cannot take a census");
        return NULL;
    }
    measure_mode = mode;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"on", (PyCFunction)(void (*)(void))pc_on, METH_VARARGS | METH_KEYWORDS, on_doc},
    {"off", pc_off, METH_NOARGS, off_doc},
    {"clear", pc_clear_fn, METH_NOARGS, clear_doc},
    {"dump", pc_dump_fn, METH_NOARGS, dump_doc},
    {"is_on", pc_is_on, METH_NOARGS, is_on_doc},
    {"snapshot", pc_snapshot_fn, METH_NOARGS, snapshot_doc},
    {"measure", (PyCFunction)(void (*)(void))pc_measure, METH_FASTCALL | METH_KEYWORDS,
     measure_doc},
    {"_configure", (PyCFunction)(void (*)(void))pc_configure, METH_VARARGS | METH_KEYWORDS,
     configure_doc},
    {"_set_native", pc_set_native, METH_O, NULL},
    {"_benchmark_calls", pc_benchmark_calls_fn, METH_O, benchmark_calls_doc},
    {"_state", pc_state_fn, METH_NOARGS, NULL},
    {"_seg_state", pc_seg_state_fn, METH_NOARGS, NULL},
    {"_census_segment_events", pc_seg_events_fn, METH_NOARGS, NULL},
    {"_set_measure_mode", pc_set_measure_mode, METH_O, NULL},
    {"_census_fold", pc_census_fold_fn, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static int
module_exec(PyObject *module)
{
    static int initialized;
    PyObject *opcode = NULL, *opnames = NULL, *os = NULL; /* owned */
    int ret = -1;

    if (PC_FREE_THREADING && pc_gil_off())
        default_mode = measure_mode = PC_MODE_INSTRUCTIONS;
    if (PyModule_AddFunctions(module, pc_census_methods) < 0 ||
        PyModule_AddFunctions(module, pc_census_registry_methods) < 0 ||
        PyModule_AddFunctions(module, pc_census_take_methods) < 0 ||
        PyModule_AddStringConstant(module, "DEFAULT_MODE", pc_mode_name(default_mode)) < 0 ||
        PyModule_AddFunctions(module, pc_sites_methods) < 0 ||
        PyModule_AddStringConstant(module, "__version__", PSF_VERSION) < 0 ||
        PyModule_AddStringConstant(module, "MECHANISM", pc_backend_name()) < 0)
        return -1;
    /* The counters are process-wide (see collector.h): set them up once. */
    if (initialized)
        return 0;
    opcode = PyImport_ImportModule("opcode");
    if (opcode == NULL)
        goto done;
    opnames = PyObject_GetAttrString(opcode, "opname");
    if (opnames == NULL || pc_lifecycle_init(opnames) < 0 || pc_stats_init() < 0)
        goto done;
    os = PyImport_ImportModule("os");
    if (os == NULL || pc_dump_install_hooks(os) < 0)
        goto done;
    pc_dump_set_dir("/tmp/py_stats", 1);
#if PC_HAVE_MONITORING
    pc_guard_init(NULL);
#else
    pc_guard_init(pc_trace_settrace_event);
#endif
    initialized = 1;
    ret = 0;
done:
    Py_XDECREF(opcode);
    Py_XDECREF(opnames);
    Py_XDECREF(os);
    return ret;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    PC_SLOT_ONE_INTERPRETER{0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pystats._collector",
    .m_doc = "Exact execution statistics for stock CPython (the collector).",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = module_slots,
};

PyMODINIT_FUNC
PyInit__collector(void)
{
    return PyModuleDef_Init(&module_def);
}
