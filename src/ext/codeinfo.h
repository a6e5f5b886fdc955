/* codeinfo.h: what the collector knows about one code object, hung on
 * its co_extra slot: its base opcodes per code unit, and the records the
 * sources attach to it (per code statistics, segment counts).
 *
 * Invariants:
 *  - op[u] is the base opcode of code unit u, read from co_code (no
 *    specialization, no instrumentation); CACHE units included.
 *  - first_resume is the unit of the first RESUME, or n.
 *  - A pc_codeinfo lives exactly as long as its code object: the
 *    co_extra free function (lifecycle.c, handed to pc_codeinfo_init)
 *    folds and frees what the sources attached, then pc_codeinfo_free().
 *  - pc_last_info is the last one looked up, or NULL; never a freed one.
 *    A free-threaded build has none (another thread may free it): it
 *    reads co_extra, which CPython reads atomically there, and builds a
 *    new one under the lock (pc_lock).
 * Asserted in codeinfo.c: first_resume when it is found, pc_last_info
 * when a table is freed, and a table found on co_extra being its
 * code's.  Not asserted: that op[] holds base opcodes (CPython's
 * PyCode_GetCode() gives co_code so; nothing here could tell a base
 * opcode from another), and that a table lives as long as its code
 * (CPython calls the co_extra free function when the code object dies).
 */
#ifndef PC_CODEINFO_H
#define PC_CODEINFO_H

#include "collector.h"
#include "hotcode.h"

typedef struct pc_codeinfo {
    PyObject *code;          /* borrowed: identifies the cache entry */
    Py_ssize_t n;            /* code units */
    void *seg;               /* segment counts (seg_code.c), or NULL */
    struct pc_hot *hot;      /* per code statistics (hotcode.c) */
    Py_ssize_t first_resume; /* unit of the first RESUME, or n */
    uint8_t op[];
} pc_codeinfo;

/* Module init: the co_extra slot requested by the module layer, whose
 * free function ends with pc_codeinfo_free(). */
void pc_codeinfo_init(Py_ssize_t extra_index);

/* Returns the info for code, creating it on first sight; NULL (with
 * error_pending set, no exception) if that fails. */
pc_codeinfo *pc_codeinfo_slow(PyObject *code);

/* The code object died and the sources are done with ci: free it.
 * Plain C (possibly during finalization, after the module is gone). */
void pc_codeinfo_free(pc_codeinfo *ci);

extern pc_codeinfo *pc_last_info;
extern Py_ssize_t pc_code_extra_index;

static inline pc_codeinfo *
pc_codeinfo_get(PyObject *code)
{
#if PC_FREE_THREADING
    void *extra = NULL;
    if (pc_code_get_extra(code, pc_code_extra_index, &extra) == 0 && extra)
        return extra;
#else
    pc_codeinfo *ci = pc_last_info;
    if (ci != NULL && ci->code == code)
        return ci;
#endif
    return pc_codeinfo_slow(code);
}

/* One executed instruction at unit u of ci's code, into its per code
 * statistics. */
static inline void
pc_codeinfo_count_hot(const pc_codeinfo *ci, Py_ssize_t u)
{
    assert(u >= 0 && u < ci->n);
    pc_hot_count(ci->hot, u);
}

#endif
