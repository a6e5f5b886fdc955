/* guard.h: other tools that trace, or move execution, while counting.
 *
 * What makes counts inexact without any event the collector counts
 * from: on 3.11 another trace function replacing the collector's in a
 * counting thread (there is one per thread), on 3.12+ a trace function
 * that sets frame.f_lineno while segment counting runs, and events that
 * did not fit segment counting's shadow stack.  All detection is on slow
 * paths (an audit hook, the f_lineno setter, dump and clear); the dump
 * records it (docs/FORMAT.md 1.1, 1.17) so that `pystats check` reports
 * the counts as inexact.
 */
#ifndef PC_GUARD_H
#define PC_GUARD_H

#include "collector.h"

/* Module init: on 3.12+ the f_lineno wrapper.  A failure leaves
 * detection off and says so on stderr; never fatal.  on_settrace: what
 * the backend does at a "sys.settrace" audit event in a counting thread
 * (3.11: pc_trace_settrace_event), or NULL. */
void pc_guard_init(void (*on_settrace)(void));
/* A window or measure() starts in pc_g.mode: the audit hook, added at
 * the first start in a mode that needs it (3.11: count; 3.12+:
 * instructions), so that other programs pay nothing for it (every
 * audited operation costs about 0.1 us more once a C hook exists). */
void pc_guard_arm(void);

/* Another tool displaced the collector in the current thread (3.11);
 * what: the audited operation ("sys.settrace").  Said once on stderr. */
void pc_guard_displaced(const char *what);

/* A new dump period (clear, dump): still_displaced threads go on
 * uncounted in it. */
void pc_guard_clear(int still_displaced);

/* Non-zero while the collector itself registers its callbacks
 * (monitoring.c): those audit events are not another tool's. */
extern int pc_guard_own;

/* Into the dump's header: only what is non-zero. */
void pc_guard_write(psf_out *o);

#endif
