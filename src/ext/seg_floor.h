/* seg_floor.h: the floor of segment counting (seg_floor.c). */
#ifndef PC_SEG_FLOOR_H
#define PC_SEG_FLOOR_H

#include "seg_quiet.h"

#if PC_HAVE_MONITORING

/* The floor's callback for event, as sys.monitoring calls it
 * (pc_seg_callback.vc): one that does nothing, or (quiet) one that also
 * turns off what mode count turns off. */
vectorcallfunc seg_floor_vc(const char *event, int quiet);

#endif /* PC_HAVE_MONITORING */
#endif
