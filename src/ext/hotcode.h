/* hotcode.h: per code object statistics (instructions, calls, opcodes)
 * and process-wide call statistics, in the exact modes (count,
 * instructions).
 *
 * Invariants:
 *  - A pc_hot record is allocated with its code object's pc_codeinfo
 *    (first sight, slow path) and captures the code's key
 *    "FILE:LINE:QUALNAME" as a C string then, so that dumps (Py_AtExit,
 *    SIGTERM) read only C data.
 *  - counts[] has one slot per distinct base opcode of the code;
 *    pc_codeinfo.slot[u] (codeinfo.h) is the slot of unit u.  The hot
 *    paths only increment counts[] and calls.
 *  - Every record is in the process-wide table until the next clear,
 *    also after its code object died (then it is no longer live); dead
 *    records with nothing counted are freed at once.
 *  - The table and the dump's scratch space grow on the slow path only:
 *    the dump allocates nothing.
 */
#ifndef PC_HOTCODE_H
#define PC_HOTCODE_H

#include "collector.h"

#define PC_HOT_CAP 2000  /* code objects a dump writes, by instructions */
#define PC_HOT_TOP_OPS 5 /* opcodes written per code object */

typedef struct pc_hot {
    uint64_t calls;     /* starts (PY_START / 'call' at the first RESUME) */
    uint64_t total;     /* scratch: instructions, computed at dump time */
    uint64_t *counts;   /* per slot */
    const uint8_t *ops; /* slot -> base opcode */
    char *key;          /* FILE:LINE:QUALNAME, FILE and QUALNAME in the
                         * dump's text encoding (psf_text.h) */
    size_t idx;         /* its place in the table */
    int nops;
    int live; /* its code object is alive */
} pc_hot;

typedef struct pc_calls {
    uint64_t python_starts, resumptions, throws, returns, yields, unwinds,
        raises, handled;
} pc_calls;

extern pc_calls pc_calls_g __attribute__((visibility("hidden")));

/* Slow path: the record of code, whose n units have the base opcodes
 * op[], filling slot[] (each unit's slot in counts); NULL on failure (no
 * exception set, none pending). */
pc_hot *pc_hot_new(PyObject *code, const uint8_t *op, Py_ssize_t n,
                   uint8_t *slot);
/* The code object died (ci's counts are folded in already). */
void pc_hot_code_dead(pc_hot *h);
/* Zero every record and the call counters; free the dead records. */
void pc_hot_clear(void);
int pc_hot_has_data(void);
void pc_hot_write(psf_out *o);
int pc_hot_snapshot(PyObject *dict); /* adds "code", "calls"; -1 on error */

/* One executed instruction, of the opcode in slot (pc_codeinfo.slot). */
static inline void
pc_hot_count(pc_hot *h, uint8_t slot)
{
    assert(slot < h->nops);
    h->counts[slot]++;
}

#endif
