/* psf_key.h: the grammar of counter keys, native and own.
 *
 * A key is classified once per distinct spelling (never per line) into a
 * kind with its bracketed parts, e.g. `opcode[93].specialization.
 * failure_kinds[18]` -> PSF_K_OP_FAIL_KIND, a = "93" (a number), b = 18.
 * The canonical spelling used across the program is CPython 3.13's:
 * opcodes by name; psf_key_canon() rewrites numbered opcodes with the
 * tables of the detected version.
 */
#ifndef PSF_KEY_H
#define PSF_KEY_H

#include <stddef.h>

typedef enum psf_key_kind {
    PSF_K_OTHER = 0,        /* kept as is, reported under "other" */
    PSF_K_HEADER,           /* pystats.* / meta.*: text value */
    PSF_K_OP_EXEC,          /* opcode[A].execution_count */
    PSF_K_OP_PAIR,          /* opcode[A].pair_count[B] */
    PSF_K_OP_SPECIALIZABLE, /* opcode[A].specializable: a flag */
    PSF_K_OP_SPEC,          /* opcode[A].specialization.<field> */
    PSF_K_OP_FAIL_KIND,     /* opcode[A].specialization.failure_kinds[B] */
    PSF_K_OP_OTHER,         /* opcode[A].<anything else> */
    PSF_K_UOP_EXEC,         /* uops[A].execution_count */
    PSF_K_UOP_MISS,         /* uops[A].specialization.miss */
    PSF_K_UOP_PAIR,         /* uop[A].pair_count[B] */
    PSF_K_UNSUPPORTED,      /* unsupported_opcode[A].count */
    PSF_K_ERROR_IN_OPCODE,  /* error_in_opcode[A].count */
    PSF_K_CALL,             /* Calls to ..., Frames pushed, Frame objects created */
    PSF_K_EVAL_CALL,        /* Calls via PyEval_EvalFrame[A] */
    PSF_K_OBJECT,           /* Object ... */
    PSF_K_GC,               /* GC[A] <field> */
    PSF_K_OPT,              /* Optimization ..., Optimizer ..., Executors invalidated */
    PSF_K_JIT,              /* JIT ... */
    PSF_K_HIST,             /* <name>[A], a histogram bucket */
    PSF_K_RARE,             /* Rare event (A) */
    PSF_K_FT,               /* free-threaded builds, 3.15+: "Mutex sleeps (mutex_sleeps)",
                             * "QSBR polls (qsbr_polls)", "World stops (world_stops)";
                             * a = the label, b = the field */
    /* The collector's own keys (docs/FORMAT.md 1.10-1.12 and hot code). */
    PSF_K_CENSUS,         /* census.B (a empty) or census.family[A].B */
    PSF_K_CENSUS_FORM,    /* census.family[A].specialized[B] */
    PSF_K_CENSUS_SITE,    /* census.site[A]: a text value, never a count */
    PSF_K_SITE_SEEN,      /* census.sites[A].count: a site row, summed */
    PSF_K_SITE_ATTEMPTS,  /* census.sites[A].attempts: kept at the maximum */
    PSF_K_SITE_FX,        /* census.site_executions[A].B: read back */
    PSF_K_SITE_FX_FORM,   /* census.site_executions[A].form[B]: read back */
    PSF_K_OWN_GC,         /* gc[A].B */
    PSF_K_OWN_OBJECT,     /* objects.B */
    PSF_K_OWN_RARE,       /* rare.B: watcher figures, not "Rare event" */
    PSF_K_OWN_CALL,       /* calls.B: not the native "Calls to ..." */
    PSF_K_CODE,           /* code[A].B, B = instructions or calls; A is
                           * FILE:LINE:QUALNAME, FILE may hold ':' */
    PSF_K_CODE_OP,        /* code[A].opcode[B] */
    PSF_K_CODE_LINE,      /* code[A].line[B], B a line or "none" */
    PSF_K_CODE_SITE,      /* code[A].site[B]: a text value (a row) */
    PSF_K_CODE_SITE_ROW,  /* code[A].site_row[B]: B = "OFFSET | ROW" */
    PSF_K_CODE_SITE_EXEC, /* code[A].site_executions[B]: a site's
                           * executions, B its offset */
    PSF_K_SOURCE,         /* source[A].line[B]: a text value */
    PSF_K_SOURCE_ROW,     /* source[A].text[B]: B = "LINE | TEXT" */
    PSF_K_LINES_OMITTED,  /* code_lines.omitted: hot code without lines */
    PSF_K_BENCH_CALLS,    /* benchmark.calls: benchmark calls counted */
    PSF_K_KIND_COUNT
} psf_key_kind;

/* Fields of CPython's SpecializationStats, in its order. */
typedef enum psf_spec_field {
    PSF_SPEC_SUCCESS = 0,
    PSF_SPEC_FAILURE,
    PSF_SPEC_HIT,
    PSF_SPEC_DEFERRED,
    PSF_SPEC_MISS,
    PSF_SPEC_DEOPT,
    PSF_SPEC_COUNT
} psf_spec_field;

extern const char *const psf_spec_field_name[PSF_SPEC_COUNT];

typedef struct psf_key {
    int kind;      /* psf_key_kind */
    const char *a; /* first bracketed part (or rare event name), borrowed */
    size_t a_len;
    long a_num;    /* a as a number, -1 if not all digits */
    const char *b; /* second bracketed part / GC field / hist name /
                    * field of an own key */
    size_t b_len;
    long b_num;
    int field; /* psf_spec_field for PSF_K_OP_SPEC */
} psf_key;

/* Markers a key contributes to telling native versions apart. */
enum {
    PSF_M_NUMERIC_OP = 1u << 0,   /* opcode[93]: 3.11 or 3.12 */
    PSF_M_NAMED_OP = 1u << 1,     /* opcode[LOAD_ATTR]: 3.13 or later */
    PSF_M_EVAL_CALL = 1u << 2,    /* Calls via PyEval_EvalFrame: 3.12+ */
    PSF_M_METHOD_CACHE = 1u << 3, /* Object method cache ...: 3.12+ */
    PSF_M_JIT_MEMORY = 1u << 4,   /* JIT ... size: 3.14+ */
    PSF_M_MORTAL = 1u << 5,       /* Object ... mortal/immortal ...: 3.14+ */
    PSF_M_GC = 1u << 6,           /* GC[N] ...: 3.13+ */
    PSF_M_RARE = 1u << 7,         /* Rare event: 3.13+ */
    PSF_M_OWN_HEADER = 1u << 8,   /* pystats.* */
    PSF_M_NEW_315 = 1u << 9,      /* an instruction or counter new in 3.15 */
    PSF_M_NEW_316 = 1u << 10      /* an instruction or counter new in 3.16 */
};

/* The PSF_M_NEW_* marker of an instruction name s[0..n) that first
 * appeared in 3.15 or 3.16 (0 for any other name). */
unsigned psf_key_new_name(const char *s, size_t n);

/* Classify key s[0..n).  Always succeeds (unknown keys are PSF_K_OTHER);
 * returns out->kind. */
int psf_key_parse(const char *s, size_t n, psf_key *out);

/* The field of a free-threading line (PSF_K_FT) whose label is s[0..n)
 * ("Mutex sleeps" -> "mutex_sleeps"), or NULL. */
const char *psf_key_ft_field(const char *s, size_t n);

/* Version markers (PSF_M_*) of a parsed key. */
unsigned psf_key_marks(const psf_key *k, const char *s, size_t n);

/* Write the canonical spelling of key s[0..n) into buf (NUL-terminated)
 * for a dump of 3.minor: numbered opcodes become names where the table of
 * that version knows them, "Calls via PyEval_EvalFrame[1]" becomes
 * "Calls via PyEval_EvalFrame[VECTOR]", old "uops[X]" gets its "_".
 * Returns the length, or 0 if buf is too small. */
size_t psf_key_canon(const psf_key *k, const char *s, size_t n, int minor, char *buf, size_t size);

#endif
