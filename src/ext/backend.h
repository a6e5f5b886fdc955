/* backend.h: the collection backends, one per interpreter generation:
 * monitoring.c (sys.monitoring, 3.12+) and trace.c (the trace
 * function, 3.11).  Exactly one of them is compiled in; each implements
 * every function here.
 */
#ifndef PC_BACKEND_H
#define PC_BACKEND_H

#include "collector.h"

/* pc_backend_sync() makes the instrumentation match the state: events
 * for every thread while pc_g.on, for the measuring threads while
 * measure() runs, none otherwise (so that nothing is perturbed while
 * off).  -1 with an exception if it could not (a slot is taken). */
int pc_backend_sync(void);
/* Count what every counted thread has run up to now, before the counts
 * are read (snapshot(); 3.11's line-counted frames have pending runs,
 * trace_lines.h).  With the GIL. */
void pc_backend_cut(void);
/* May the backend be switched on here?  -1 with exception if not. */
int pc_backend_check(void);
const char *pc_backend_name(void);
/* How many threads another tool displaced still go uncounted in the
 * open window (3.11; 0 on 3.12+).  With the GIL, interpreter alive. */
int pc_backend_displaced(void);
/* The same for this thread only (a fork child's one thread). */
int pc_backend_displaced_here(void);
#if PC_HAVE_MONITORING
PyObject *pc_monitoring_module(void); /* sys.monitoring, a new reference */
#else
/* trace.c: a "sys.settrace" audit event in the current thread. */
void pc_trace_settrace_event(void);
#endif

#endif
