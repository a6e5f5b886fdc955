/* dump.h: writing the counts out (dump.c): on request, at exit, from
 * os._exit, on SIGTERM. */
#ifndef PC_DUMP_H
#define PC_DUMP_H

#include "collector.h"

typedef enum pc_reason {
    PC_REASON_EXIT,
    PC_REASON_EXPLICIT,
    PC_REASON_OS_EXIT,
    PC_REASON_SIGNAL,
} pc_reason;

enum { PC_DUMP_FAILED = -1, PC_DUMP_NOTHING = 0, PC_DUMP_FILE = 1, PC_DUMP_STDERR = 2 };
int pc_dump(pc_reason reason);
/* The output directory, absolute; is_default: the default directory
 * (base/py_stats), which falls back to the user's private one when it
 * is not theirs.  A name too long for a path is kept for the message:
 * every dump then goes to stderr. */
void pc_dump_set_dir(const char *dir, int is_default);
int pc_dump_install_hooks(PyObject *os_module); /* -1 with exception */
PyObject *pc_snapshot(void);
/* benchmark.calls of the dump period: added to by a benchmark harness
 * (_collector._benchmark_calls()), zeroed with the period's counts. */
void pc_dump_add_calls(uint64_t n);
void pc_dump_calls_clear(void);

#endif
