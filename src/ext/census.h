/* census.h: the specialization census: the state of every specializable
 * instruction site, read from code objects' adaptive bytecode. */
#ifndef PC_CENSUS_H
#define PC_CENSUS_H

#include "collector.h"

/* What an opcode found in adaptive bytecode is. */
typedef enum pc_site_kind {
    PC_SITE_NONE = 0,        /* not a specializable site */
    PC_SITE_BASE = 1,        /* base form of an adaptive family: counter in cache[0] */
    PC_SITE_SPECIALIZED = 2, /* a specialized form */
    PC_SITE_ADAPTIVE = 3,    /* 3.11's *_ADAPTIVE form: counter in cache[0] */
    PC_SITE_PLAIN = 4,       /* base form of a family with no counter (superinstructions) */
    PC_SITE_INSTRUMENTED = 5,/* instrumented by sys.monitoring: the site is hidden */
} pc_site_kind;

typedef struct pc_census {
    uint64_t code_objects;
    uint64_t instrumented_code_objects;
    uint64_t sites[PC_NOPS];        /* by family (base opcode) */
    uint64_t specialized[PC_NOPS];  /* by family */
    uint64_t forms[PC_NOPS];        /* by specialized opcode */
    uint64_t backing_off[PC_NOPS];  /* by family */
    uint64_t failures[PC_NOPS];     /* failed attempts the backoff counters imply */
    uint64_t never_tried[PC_NOPS];  /* by family: warming up, no attempt yet */
} pc_census;

typedef struct pc_census_tables {
    int ready;
    uint8_t kind[PC_NOPS];
    uint8_t base[PC_NOPS];          /* deopt: opcode -> base opcode */
    uint8_t caches[PC_NOPS];        /* inline cache entries after the opcode */
    char name[PC_NOPS][PC_OPNAME_MAX];  /* every opcode, specialized ones too */
} pc_census_tables;

extern pc_census_tables pc_ct;
extern pc_census pc_census_live;   /* taken at dump time */
extern pc_census pc_census_dead;   /* code objects destroyed meanwhile (3.12+) */

/* Tally one code object into acc.  If sites is not NULL, append
 * (offset, family, forms_or_state, attempts, counter value) tuples for
 * the sites that failed and are backing off.  -1 with exception only
 * when appending fails. */
int pc_census_code(PyObject *code, pc_census *acc, PyObject *sites);
int pc_census_has_data(void);
void pc_census_clear(void);
void pc_census_write(psf_out *o);
int pc_census_watch(void);          /* start recording dying code objects */
int pc_census_setup(void);          /* tables, hooks; -1 with exception */
int pc_census_take(void);
extern PyMethodDef pc_census_methods[];   /* private API for _census.py */           /* walk live code now; -1 with exception */

#endif
