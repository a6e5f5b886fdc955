/* rare.h: rare events, as far as CPython's watcher APIs (3.12+) can see
 * them: modifications of functions, of the builtins dict, of module
 * globals and of classes.  Partial by nature; see docs/FORMAT.md. */
#ifndef PC_RARE_H
#define PC_RARE_H

#include "collector.h"

/* PSF_RARE (src/format/psf_stats.h). */
typedef struct pc_rare {
    PSF_RARE(PC_STAT_FIELD)
} pc_rare;

extern pc_rare pc_rare_counts;

int pc_rare_install(void); /* -1 with exception */
int pc_rare_remove(void);  /* -1 with exception */
void pc_rare_clear(void);
int pc_rare_has_data(void);
void pc_rare_write(psf_out *o);

#endif
