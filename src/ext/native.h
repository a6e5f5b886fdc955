/* native.h: driving the counters of a CPython built with
 * --enable-pystats (native.c). */
#ifndef PC_NATIVE_H
#define PC_NATIVE_H

#include "collector.h"

int pc_native_available(void);
PyObject *pc_native_call(const char *what); /* sys._stats_<what>() */

#endif
