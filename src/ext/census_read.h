/* census_read.h: what the census reads of a code object: the kinds of
 * opcode, the tables that tell them, a site's state, and one code
 * object's tally (census_read.c). */
#ifndef PC_CENSUS_READ_H
#define PC_CENSUS_READ_H

#include "collector.h"

/* What an opcode found in adaptive bytecode is. */
typedef enum pc_site_kind {
    PC_SITE_NONE = 0,         /* not a specializable site */
    PC_SITE_BASE = 1,         /* base form of an adaptive family: counter
                                 in cache[0] */
    PC_SITE_SPECIALIZED = 2,  /* a specialized form */
    PC_SITE_ADAPTIVE = 3,     /* 3.11's *_ADAPTIVE form: counter in cache[0] */
    PC_SITE_PLAIN = 4,        /* base form of a family with no counter
                                 (superinstructions) */
    PC_SITE_INSTRUMENTED = 5, /* instrumented by sys.monitoring: the site
                                 is hidden */
    PC_SITE_SEGMENT = 6,      /* INSTRUMENTED_X for an event of segment counting
                                 (FOR_ITER, RESUME, jumps, returns...): X's
                                 caches follow, X's state is hidden */
} pc_site_kind;

/* Which census a dump period takes (docs/FORMAT.md 1.10):
 *   CENSUS - mode census: nothing instrumented, every family read;
 *   COUNT  - alongside segment counting (mode count, 3.12+): the sites
 *            of the families its events instrument (FOR_ITER; RESUME on
 *            3.13) are left out, counted as census.excluded_family. */
typedef enum pc_census_scope {
    PC_CENSUS_NONE = 0,
    PC_CENSUS_CENSUS = 1,
    PC_CENSUS_COUNT = 2,
} pc_census_scope;

/* By family (base opcode), the figures of PSF_CENSUS_FAMILY
 * (src/format/psf_stats.h): an array each. */
#define PC_CENSUS_FIELD(f, key, label, den) uint64_t f[PC_NOPS];

typedef struct pc_census {
    uint64_t code_objects;
    uint64_t instrumented_code_objects;
    PSF_CENSUS_FAMILY(PC_CENSUS_FIELD)
    uint64_t forms[PC_NOPS];    /* by specialized opcode */
    uint64_t excluded[PC_NOPS]; /* by family: sites left out (scope
                                   count) */
} pc_census;

typedef struct pc_census_tables {
    int ready;
    uint8_t kind[PC_NOPS];
    uint8_t base[PC_NOPS];             /* deopt: opcode -> base opcode;
                                          INSTRUMENTED_X -> X */
    uint8_t caches[PC_NOPS];           /* inline cache entries after the opcode */
    uint8_t excluded[PC_NOPS];         /* families scope count leaves out */
    char name[PC_NOPS][PC_OPNAME_MAX]; /* every opcode, specialized ones too */
} pc_census_tables;

/* The tables, filled once from the interpreter's opcode module
 * (_census_tables); ready is set last. */
extern pc_census_tables pc_ct;

/* The state of one site (docs/FORMAT.md 1.10).  PLAIN: a site whose
 * form holds no counter (neither tried nor failed). */
typedef enum pc_site_state {
    PC_STATE_NONE = 0, /* not a site */
    PC_STATE_EXCLUDED,
    PC_STATE_SPECIALIZED,
    PC_STATE_PLAIN,
    PC_STATE_NEVER_TRIED,
    PC_STATE_BACKING_OFF,
} pc_site_state;

/* What the census reads of the site at unit i of code (n units): its
 * state over every copy (pc_code_copy), and the copy that gives it. */
typedef struct pc_site_read {
    pc_site_state state;
    int op;           /* the opcode in that copy: the specialized form */
    unsigned fails;   /* BACKING_OFF: that copy's failed attempts */
    unsigned counter; /* BACKING_OFF: that copy's counter unit */
} pc_site_read;

/* The site at unit i (a unit where an instruction starts in copy 0),
 * read in every copy and merged (docs/FORMAT.md 1.10, "On 3.14t"): the
 * site counts once; copy 0 says whether it is a site and whether it is
 * excluded; its state is the most advanced of those the copies have,
 * specialized > backing off > never tried > plain (a form without
 * counter), taken with its form, failed attempts and counter from the
 * lowest-numbered copy in that state.  One copy: copy 0's state. */
void pc_census_read_site(PyCodeObject *co, Py_ssize_t n, Py_ssize_t i, pc_census_scope scope,
                         pc_site_read *r);
/* code is hidden by another tool's instrumentation (not read): some
 * copy of its bytecode holds an instrumented opcode the scope does not
 * take (sys.monitoring instruments every copy alike). */
int pc_census_hidden(PyObject *code, pc_census_scope scope);
/* Tally one code object into acc, read in the given scope.  If sites is
 * not NULL, append (offset, family, attempts, counter value) tuples for
 * the sites that failed and are backing off.  -1 with exception only
 * when appending fails. */
int pc_census_code(PyObject *code, pc_census *acc, PyObject *sites, pc_census_scope scope);

#endif
