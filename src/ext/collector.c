/* collector.c: the counters and per-code opcode tables behind the hot
 * path; state changes (clear, windows) that every backend shares. */
#include "collector.h"
#include "census.h"
#include "stats.h"
#include "segments.h"
#include "hotcode.h"
#include "guard.h"

#include <string.h>

pc_state pc_g;
__thread pc_thread pc_t __attribute__((tls_model("initial-exec")));
pc_codeinfo *pc_last_info;

static Py_ssize_t code_extra_index = -1;

/* Called by CPython when a code object dies (possibly during
 * finalization, possibly after our module is gone: plain C only). */
static void
codeinfo_free(void *p)
{
    pc_codeinfo *ci = p;
    if (ci == pc_last_info)
        pc_last_info = NULL;
    pc_seg_code_free(ci);   /* its segment counts go into pc_g first */
    pc_hot_code_dead(ci->hot);
    PyMem_RawFree(ci);
}

pc_codeinfo *
pc_codeinfo_slow(PyObject *code)
{
    void *extra = NULL;
    pc_codeinfo *ci = NULL;
    PyObject *bytes = NULL;   /* owned */
    PyObject *exc_type, *exc_value, *exc_tb;
    Py_ssize_t i, n;
    const uint8_t *raw;

    if (pc_code_get_extra(code, code_extra_index, &extra) == 0 && extra) {
        pc_last_info = extra;
        return extra;
    }
    /* Never disturb an exception the interpreter is propagating. */
    PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
    /* co_code: the code without specialization or instrumentation, so
     * each instruction reads as its base opcode. */
    bytes = PyCode_GetCode((PyCodeObject *)code);
    if (bytes == NULL || !PyBytes_Check(bytes))
        goto error;
    n = PyBytes_GET_SIZE(bytes) / 2;
    ci = PyMem_RawMalloc(sizeof(pc_codeinfo) + 2 * (size_t)n + 1);
    if (ci == NULL)
        goto error;
    ci->code = code;
    ci->n = n;
    ci->seg = NULL;
    ci->slot = ci->op + n;
    ci->first_resume = n;
    raw = (const uint8_t *)PyBytes_AS_STRING(bytes);
    for (i = 0; i < n; i++) {
        ci->op[i] = raw[2 * i];
        if (ci->first_resume == n && ci->op[i] == pc_g.resume_op)
            ci->first_resume = i;
    }
    ci->hot = pc_hot_new(code, ci);
    if (ci->hot == NULL) {
        PyMem_RawFree(ci);
        ci = NULL;
        goto error;
    }
    if (pc_code_set_extra(code, code_extra_index, ci) != 0) {
        pc_hot_code_dead(ci->hot);
        PyMem_RawFree(ci);
        ci = NULL;
        goto error;
    }
    pc_last_info = ci;
    Py_DECREF(bytes);
    PyErr_Restore(exc_type, exc_value, exc_tb);
    return ci;

error:
    Py_XDECREF(bytes);
    pc_g.error_pending = 1;
    PyErr_Restore(exc_type, exc_value, exc_tb);
    return NULL;
}

int
pc_collector_init(PyObject *opnames)
{
    Py_ssize_t i, n;

    if (code_extra_index < 0) {
        code_extra_index = pc_request_code_extra_index(codeinfo_free);
        if (code_extra_index < 0) {
            PyErr_SetString(PyExc_RuntimeError,
                            "pystats: no free co_extra slot");
            return -1;
        }
    }
    n = PyList_Size(opnames);
    if (n < 0)
        return -1;
    pc_g.resume_op = pc_g.extended_arg_op = pc_g.yield_value_op = -1;
    for (i = 0; i < PC_NOPS && i < n; i++) {
        const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(opnames, i));
        if (s == NULL)
            return -1;
        psf_strlcpy(pc_g.opname[i], s, PC_OPNAME_MAX);
        if (strcmp(s, "RESUME") == 0)
            pc_g.resume_op = (int)i;
        if (strcmp(s, "EXTENDED_ARG") == 0)
            pc_g.extended_arg_op = (int)i;
        if (strcmp(s, "YIELD_VALUE") == 0)
            pc_g.yield_value_op = (int)i;
    }
    if (pc_g.resume_op < 0) {
        PyErr_SetString(PyExc_RuntimeError, "pystats: no RESUME opcode");
        return -1;
    }
    pc_g.epoch = 1;
    return 0;
}

void
pc_forget_prev(void)
{
    pc_g.epoch++;
    if (pc_g.epoch == 0)
        pc_g.epoch = 1;
}

void
pc_clear(void)
{
    pc_seg_cut();       /* what runs now counts up to here, then goes */
    memset(pc_g.exec, 0, sizeof pc_g.exec);
    memset(pc_g.pair, 0, sizeof pc_g.pair);
    pc_seg_zero();
    pc_hot_clear();
    pc_forget_prev();
    pc_g.windows = 0;
    pc_g.started = 0;
    pc_census_clear();
    pc_stats_clear();
    pc_guard_clear(pc_backend_displaced());
    pc_g.census_wanted = pc_g.on && pc_g.mode == PC_MODE_CENSUS;
    /* A clear while counting starts a new dump period now. */
    if (pc_g.on || pc_g.measuring)
        pc_note_start();
}

int
pc_has_data(void)
{
    int i;
    for (i = 0; i < PC_NOPS; i++)
        if (pc_g.exec[i])
            return 1;
    return pc_census_has_data() || pc_stats_has_data() ||
           pc_hot_has_data();
}

const char *
pc_mode_name(pc_mode mode)
{
    switch (mode) {
    case PC_MODE_NOOP:
        return "noop";
    case PC_MODE_CENSUS:
        return "census";
    case PC_MODE_INSTRUCTIONS:
        return "instructions";
    case PC_MODE_NOOP_SEGMENTS:
        return "noop-segments";
    case PC_MODE_NOOP_QUIET:
        return "noop-quiet";
    default:
        return "count";
    }
}

void
pc_note_start(void)
{
    pc_g.windows++;
    if (!pc_g.started) {
        clock_gettime(CLOCK_REALTIME, &pc_g.start);
        pc_g.started = 1;
    }
}
