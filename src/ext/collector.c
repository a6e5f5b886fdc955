/* collector.c: the counters behind the hot path, the opcode names, and
 * the state changes (epochs, dump periods) every source shares.  The
 * bottom layer: it calls nothing of the extension's above it. */
#include "collector.h"

#include <string.h>

pc_state pc_g;
__thread pc_thread pc_t __attribute__((tls_model("initial-exec")));

int
pc_collector_init(PyObject *opnames)
{
    Py_ssize_t i, n;

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
    assert(pc_g.epoch != 0); /* 0 is measure()'s "no predecessor" */
}

void
pc_counts_zero(void)
{
    memset(pc_g.exec, 0, sizeof pc_g.exec);
    memset(pc_g.pair, 0, sizeof pc_g.pair);
}

int
pc_counts_any(void)
{
    int i;
    for (i = 0; i < PC_NOPS; i++)
        if (pc_g.exec[i])
            return 1;
    return 0;
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

void (*pc_desync_describe)(char *buf, size_t cap);

__attribute__((noinline, cold)) void
pc_desync_note(const char *file, const char *func, int line)
{
    char num[24];
    const char *base = strrchr(file, '/');
    size_t n;

    pc_g.desync++;
    if (pc_g.desync_where[0])
        return;
    psf_u64_to_str((uint64_t)line, num);
    psf_strlcpy(pc_g.desync_where, "desync in ", sizeof pc_g.desync_where);
    psf_strlcat(pc_g.desync_where, base ? base + 1 : file, sizeof pc_g.desync_where);
    psf_strlcat(pc_g.desync_where, " ", sizeof pc_g.desync_where);
    psf_strlcat(pc_g.desync_where, func, sizeof pc_g.desync_where);
    psf_strlcat(pc_g.desync_where, "() line ", sizeof pc_g.desync_where);
    psf_strlcat(pc_g.desync_where, num, sizeof pc_g.desync_where);
    n = strlen(pc_g.desync_where);
    if (pc_desync_describe != NULL)
        pc_desync_describe(pc_g.desync_where + n, sizeof pc_g.desync_where - n);
}
