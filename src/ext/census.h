/* census.h: the specialization census: the state of every specializable
 * instruction site, read from code objects' adaptive bytecode. */
#ifndef PC_CENSUS_H
#define PC_CENSUS_H

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
    PC_SITE_SEGMENT = 6, /* INSTRUMENTED_X for an event of segment counting
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

typedef struct pc_census {
    uint64_t code_objects;
    uint64_t instrumented_code_objects;
    uint64_t sites[PC_NOPS];       /* by family (base opcode) */
    uint64_t specialized[PC_NOPS]; /* by family */
    uint64_t forms[PC_NOPS];       /* by specialized opcode */
    uint64_t backing_off[PC_NOPS]; /* by family */
    uint64_t failures[PC_NOPS];    /* failed attempts the backoff counters
                                      imply */
    uint64_t never_tried[PC_NOPS]; /* by family: warming up, no attempt yet */
    uint64_t excluded[PC_NOPS];    /* by family: sites left out (scope
                                      count) */
} pc_census;

typedef struct pc_census_tables {
    int ready;
    uint8_t kind[PC_NOPS];
    uint8_t base[PC_NOPS];     /* deopt: opcode -> base opcode;
                                  INSTRUMENTED_X -> X */
    uint8_t caches[PC_NOPS];   /* inline cache entries after the opcode */
    uint8_t excluded[PC_NOPS]; /* families scope count leaves out */
    char name[PC_NOPS][PC_OPNAME_MAX]; /* every opcode, specialized ones too */
} pc_census_tables;

extern pc_census_tables pc_ct;
extern pc_census pc_census_live; /* taken at dump time */
extern pc_census pc_census_dead; /* code objects destroyed meanwhile (3.12+) */

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

/* The state of the instruction at unit i of units[n] (tables ready),
 * read in scope; *fails is set for BACKING_OFF. */
pc_site_state pc_census_site_state(const uint16_t *units, Py_ssize_t n,
                                   Py_ssize_t i, pc_census_scope scope,
                                   unsigned *fails);

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
 * lowest-numbered copy in that state.  One copy: pc_census_site_state
 * of copy 0. */
void pc_census_read_site(PyCodeObject *co, Py_ssize_t n, Py_ssize_t i,
                         pc_census_scope scope, pc_site_read *r);
/* code is hidden by another tool's instrumentation (not read): some
 * copy of its bytecode holds an instrumented opcode the scope does not
 * take (sys.monitoring instruments every copy alike). */
int pc_census_hidden(PyObject *code, pc_census_scope scope);
/* Module init: the co_extra slot of pc_codeinfo (codeinfo.h). */
void pc_census_init(Py_ssize_t extra_index);
/* The per code record of code (it ran while counting), or NULL. */
struct pc_hot *pc_census_hot_of(PyObject *code);
/* Some instruction of code was counted in this period (its record's
 * counts, the segment counts folded in first). */
int pc_census_ran(PyObject *code);
/* A code object with the per code record h dies, its segment counts in
 * h: in scope count it joins the dead census if it ran in this period
 * and the live census, which read it, is not taken yet. */
void pc_census_count_dead(PyObject *code, const struct pc_hot *h);
/* The live census of this period is whole (taken). */
int pc_census_taken(void);

/* Tally one code object into acc, read in the given scope.  If sites is
 * not NULL, append (offset, family, attempts, counter value) tuples for
 * the sites that failed and are backing off.  -1 with exception only
 * when appending fails. */
int pc_census_code(PyObject *code, pc_census *acc, PyObject *sites,
                   pc_census_scope scope);
int pc_census_has_data(void); /* a census was taken since the last clear */
void pc_census_clear(void);
void pc_census_write(psf_out *o);
const char *pc_census_scope_name(void); /* of the census taken, or NULL */
int pc_census_watch(void); /* start recording dying code objects */
int pc_census_setup(void); /* tables, hooks; -1 with exception */
/* A count window opens (after on() succeeded): census says whether it
 * takes the census alongside its counts. */
void pc_census_count_window(int census);
/* The census option of the last count window. */
int pc_census_count_option(void);
pc_census_scope pc_census_period_scope(void);
int pc_census_take(void); /* walk live code now; -1 with exception */
/* Why this period's census could not be taken (free text, FORMAT.md
 * 1.16: meta.census.error), or NULL. */
const char *pc_census_error(void);
extern PyMethodDef pc_census_methods[]; /* private API for _census.py */

#endif
