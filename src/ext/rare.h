/* rare.h: rare events, as far as CPython's watcher APIs (3.12+) can see
 * them: modifications of functions, of the builtins dict, of module
 * globals and of classes.  Partial by nature; see docs/FORMAT.md. */
#ifndef PC_RARE_H
#define PC_RARE_H

#include "collector.h"

typedef struct pc_rare {
    uint64_t func_modification;
    uint64_t builtins_modification;
    uint64_t globals_modification;
    uint64_t type_modification;
    uint64_t watched_dicts;
    uint64_t watched_types;
} pc_rare;

extern pc_rare pc_rare_counts;

int pc_rare_install(void); /* -1 with exception */
int pc_rare_remove(void);  /* -1 with exception */
void pc_rare_clear(void);
int pc_rare_has_data(void);
void pc_rare_write(psf_out *o);

#endif
