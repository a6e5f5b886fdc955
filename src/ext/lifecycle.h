/* lifecycle.h: the module layer's operations that touch every source of
 * statistics (the counters, per code tables, segment counting, the
 * census, the cheap statistics, per code statistics, the guard).
 * pc_clear, pc_has_data and pc_after_fork are declared in collector.h,
 * beside the state they change. */
#ifndef PC_LIFECYCLE_H
#define PC_LIFECYCLE_H

#include "collector.h"

/* Module init of the counting sources: the co_extra slot, the opcode
 * names, segment counting (handed the sys.monitoring module on 3.12+).
 * -1 with exception. */
int pc_lifecycle_init(PyObject *opnames);

#endif
