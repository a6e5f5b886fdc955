/* model.h: one group's counters as the report sees them: instructions
 * with their specialization figures and pairs, and the other sections.
 *
 * Built from an agg_group's canonical keys (model_build); both the
 * Markdown and the JSON report read only this.  All names are owned by
 * the model.  Lists are sorted by count, largest first, ties by name.
 */
#ifndef MODEL_H
#define MODEL_H

#include "agg.h"
#include "cli.h"
#include "where.h"
#include "../format/psf_key.h"
#include "../format/psf_stats.h"

#include <stddef.h>
#include <stdint.h>

typedef struct m_kv {
    char *name; /* owned */
    uint64_t n;
    uint64_t seq; /* order in the input: creation order, or what
                   * the list says (m_list_sort_input) */
} m_kv;

typedef struct m_list {
    m_kv *v; /* owned */
    size_t n, cap;
} m_list;

typedef struct m_op {
    char *name;         /* owned */
    const char *family; /* borrowed: a table string or name */
    size_t order;       /* first seen as an instruction's own key in the
                         * group's key order (SIZE_MAX: only as another's
                         * predecessor or successor) */
    int has_exec;
    uint64_t exec;
    int specializable;
    int spec_form; /* 1/0: in/not in the input's own list of
                    * specialized instructions; -1: no list */
    int has_spec;
    uint64_t spec[PSF_SPEC_COUNT];
    m_list fail;       /* failure kinds by CPython's label ("mutable class") */
    m_list fail_names; /* the same by SPEC_FAIL_ name without the prefix
                        * ("ATTR_MUTABLE_CLASS", or "kind N"): the JSON
                        * summary's keys */
    m_list succ;       /* pair_count: successors */
    m_list pred;       /* predecessors (derived from pairs) */
} m_op;

/* CPython's total for a family's kind table: hit + miss + executions of
 * the base instruction (saturating). */
static inline uint64_t
m_spec_total(const m_op *op)
{
    return cli_sat_add(cli_sat_add(op->spec[PSF_SPEC_HIT], op->spec[PSF_SPEC_MISS]), op->exec);
}

typedef struct m_ops {
    m_op *v; /* owned, sorted by name */
    size_t n, cap;
} m_ops;

typedef struct m_hist {
    char *name;     /* owned */
    m_list buckets; /* by bucket value, ascending */
} m_hist;

/* Census figures of a family (census.family[F].*), summed over dumps:
 * f[PSF_CF_sites], ..., the rows of psf_stats.h's PSF_CENSUS_FAMILY. */
typedef struct m_cfam {
    char *name; /* owned */
    uint64_t f[PSF_NCF];
    m_list forms; /* specialized[FORM], largest first */
    m_list extra; /* other fields, kept */
} m_cfam;

/* A row of sites that fail to specialize: same family, file, line and
 * function, merged. */
typedef struct m_csite {
    char *row; /* owned: "F | FILE | LINE | QUALNAME | SOURCE" */
    const char *family, *file, *line, *func, *source; /* in fields */
    char *fields;                                     /* owned: the row split at its separators */
    char *path;        /* owned: FILE as the dump wrote it where file is
                        * named portably (see m_code), else NULL */
    uint64_t attempts; /* the most consecutive failed attempts */
    uint64_t count;    /* sites, over all dumps */
} m_csite;

/* A hot code object: code[FILE:LINE:QUALNAME].*, FILE named portably
 * (where.h: by module, or relative to the working directory) with the
 * sys.path and working directory most of the group's dumps had; code
 * that FILE names alike is one entry. */
/* The source view (FORMAT.md 1.18): a line's instructions (line -1:
 * the no-line bucket), a site's rows as the dumps had them (row:
 * "FAMILY | STATE | DETAIL | LINE | COL | END_LINE | END_COL", n the
 * dumps with that row), a source file's lines (n: the dumps with that
 * text).  Sorted by line / offset, then most dumps first. */
typedef struct m_line {
    long line;
    uint64_t n;
} m_line;
typedef struct m_vsite {
    long offset; /* bytes, as dis gives it */
    char *row;   /* owned */
    uint64_t n;
} m_vsite;
typedef struct m_srcline {
    long line;
    char *text; /* owned, canonical text form (text.h) */
    uint64_t n;
} m_srcline;
typedef struct m_src {
    char *file; /* owned: FILE named portably, as m_code names it */
    char *path; /* owned: FILE as the dump wrote it, or NULL if the same */
    m_srcline *v;
    size_t n, cap;
} m_src;

typedef struct m_code {
    char *name; /* owned: FILE:LINE:QUALNAME, FILE portable */
    char *path; /* owned: FILE as the dump wrote it (the first
                 * in key order if several), or NULL if the same */
    /* name split once (FILE and QUALNAME hold no raw ':'): FILE is its
     * first file_len bytes, LINE line[0..line_len), QUALNAME qual (to the
     * end); qual and line NULL if name has not both ':'. */
    size_t file_len, line_len;
    const char *line, *qual;
    /* The site key of generated code (FORMAT.md 1.18),
     * FILE:LINE:QUALNAME:MODULE:FUNCQUAL: qual is FUNCQUAL (what the
     * program calls the function), co_qual[0..co_qual_len) QUALNAME,
     * module[0..module_len) MODULE; module NULL for any other key. */
    const char *module, *co_qual;
    size_t module_len, co_qual_len;
    uint64_t instructions, calls;
    m_list ops;    /* opcode[NAME], largest first */
    m_line *lines; /* owned: line[N], by line, the no-line bucket last */
    size_t nlines, lines_cap;
    m_vsite *vsites; /* owned: site[OFFSET] rows, by offset */
    size_t nvsites, vsites_cap;
    /* owned: site_executions[OFFSET], line = the offset, n = the
     * executions summed over the dumps; by offset */
    m_line *sexec;
    size_t nsexec, sexec_cap;
    int out; /* hot code the reports leave out (model_filter_code) */
} m_code;

/* A site that ran without being specialized (FORMAT.md 1.18: a
 * code[K].site row backing off or never tried, with executions), ranked
 * by its executions. */
typedef struct m_fsite {
    const m_code *code; /* borrowed */
    long offset;
    char *fields;                               /* owned: the row split at its separators */
    const char *family, *state, *detail, *line; /* in fields */
    const char *col, *end_line, *end_col;       /* in fields: the rest of its
                                                 * position ("-": none) */
    uint64_t executions;
    uint64_t family_exec; /* the family's executions (opcode[F]), 0 if
                           * the input has none */
} m_fsite;

/* Executions at the sites of a family by the state each site held when
 * the census read it (FORMAT.md 1.18: code[K].site rows with their
 * code[K].site_executions, summed over the dumps), model_sitefx.c.
 * Uncertain: executions (of any state) of sites whose attribution the
 * dumps show to be in doubt (docs/FORMAT.md, "Site executions by
 * state"); sites: the sites with a row. */
enum {
    M_SX_SPECIALIZED = 0,
    M_SX_BACKING_OFF,
    M_SX_NEVER_TRIED,
    M_SX_EXCLUDED,
    M_SX_UNCERTAIN,
    M_SX_SITES,
    M_SX_COUNT
};
#define M_SX_STATES                                     \
    4 /* f[0..M_SX_STATES): the states, which add up to \
       * the rows' executions */
extern const char *const m_sx_name[M_SX_COUNT];

typedef struct m_sxfam {
    char *name; /* owned */
    uint64_t f[M_SX_COUNT];
    uint64_t rows_exec;   /* f[0..M_SX_STATES) summed */
    uint64_t family_exec; /* the family's executions (its opcode[]
                           * execution counts, every form), 0 if none */
    m_list forms;         /* executions at sites specialized in FORM,
                           * largest first */
} m_sxfam;

typedef struct m_group {
    const agg_group *src; /* borrowed */
    int own;              /* counted by this project's collector (base
                           * instructions), not by CPython's own counters */
    int minor;            /* 3.minor of the dumps; 0 if unknown */
    m_ops ops;
    uint64_t total_exec;
    int has_pairs;
    m_list calls; /* in CPython's order */
    m_list objects;
    m_list gc;  /* "0 collections" ... */
    m_list opt; /* Optimization counters */
    m_list jit;
    m_hist *hist; /* owned */
    size_t nhist;
    m_ops uops;
    m_list unsupported;
    m_list errors;
    m_list rare;
    m_list ft; /* free-threading lines (3.15+), by CPython's label */
    m_list other;
    /* The collector's own sections. */
    int has_census;
    m_list census;          /* census.B: code_objects, ... (B as the name) */
    m_list census_excluded; /* census.excluded_family[F]: sites of family F
                             * a census taken alongside counting left out */
    m_cfam *cfam;           /* owned, most sites first */
    size_t ncfam;
    m_csite *sites; /* owned, most attempts first */
    size_t nsites;
    m_code *code; /* owned, most instructions first, then the site
                   * records of generated functions (m_code.module) */
    size_t ncode;
    size_t nhot;                /* code[0..nhot): hot code, the rest site records */
    uint64_t code_instructions; /* sum over code */
    where wh;                   /* owned: the group's cwd and sys.path */
    m_list own_calls;           /* calls.B, B as the name, in the format's order */
    m_list own_rare;            /* rare.B, B as the name */
    uint64_t bench_calls;       /* benchmark.calls, summed: the benchmark
                                 * calls the counts cover (pyperf hook) */
    uint64_t lines_omitted;     /* code_lines.omitted, summed: hot code
                                 * left without lines by the bound */
    m_src *srcs;                /* owned: source[FILE] texts, by file */
    size_t nsrcs;
    m_fsite *fsites; /* owned: sites run unspecialized, most executions
                      * first (ties: code, offset); only with
                      * site_executions */
    size_t nfsites;
    m_sxfam *sxfam; /* owned: site executions by state, most executions
                     * first (ties: name); from rows, or read back */
    size_t nsxfam;
    int sx_read; /* the figures came back from a JSON summary (its
                  * census.site_executions): rows are not added again */
    /* What the site list shows (model_filter_code): the sites of the
     * standard library among them (or left out by no_stdlib), and the
     * sites left out by the code prefixes. */
    uint64_t fs_stdlib, fs_stdlib_out, fs_prefix_out;
    /* The hot code the report's options left out (m_code.out): how many
     * code objects, and their instructions. */
    size_t hot_out;
    uint64_t hot_out_instructions;
    /* Ties (equal counts) keep the input's order, as CPython's report
     * does, where that order is the file's own: a group read from one
     * CPython summary. Otherwise ties go by name (several files are read
     * on several threads, in no fixed order). */
    int input_order;
} m_group;

void model_build(m_group *m, const agg_group *g);
/* The source view's part of the model (model_view.c), for model.c:
 * model_view_add() takes a key of the view's kinds (1, else 0), with the
 * entry of its code key found through code_of; model_view_finish()
 * sorts; model_view_free() frees. */
int model_view_add(m_group *m, const psf_key *k, uint64_t v,
                   m_code *(*code_of)(m_group *, void *, const char *, size_t), void *ctx);
void model_view_finish(m_group *m);
void model_view_free(m_group *m);
/* The executions of c's site at offset (code[K].site_executions, summed
 * over the dumps; 0 if none was written). */
uint64_t model_site_executions(const m_code *c, long offset);
/* The code entry called name (FILE:LINE:QUALNAME, FILE portable), or NULL. */
const m_code *model_code(const m_group *m, const char *name);
/* Which code the reports show, an option (--code, --no-stdlib): the hot
 * code, the source view, "where to look" and the site list, never the
 * counts of the run (opcodes, pairs, families: they are the whole run's).
 * The filter:
 * prefix[0..nprefix), each a module (the code's file named by module,
 * or a generated function's module, is it or lies under it: "pkg"
 * takes "pkg.sub") or, holding a '/', a path prefix (of the file as
 * named or as the dump wrote it); no_stdlib leaves out the standard
 * library (a file under lib/pythonX.Y that is not in site-packages or
 * dist-packages, lib-dynload, "<frozen ...>"). */
typedef struct m_code_filter {
    const char *const *prefix;
    size_t nprefix;
    int no_stdlib;
} m_code_filter;
void model_filter_code(m_group *m, const m_code_filter *f);
/* Whether f keeps c (model_filter_code's rule). */
int model_code_kept(const m_code *c, const m_code_filter *f);

/* Site executions by state (model_sitefx.c): model_sitefx_add() takes
 * a key read back from a JSON summary (1 if it is one, else 0);
 * model_sitefx_build() adds up the rows (unless figures were read back)
 * and sorts, after the ops and the source view's part are built (ft:
 * some dumps are of a free-threaded build, whose sites have a counter
 * per thread's copy of the bytecode, so that executions bound no
 * state);
 * model_sitefx_free() frees. */
int model_sitefx_add(m_group *m, const psf_key *k, uint64_t v);
void model_sitefx_build(m_group *m, int ft);
void model_sitefx_free(m_group *m);

/* The source line of a ranked site (its code's file, the row's line),
 * canonical text, or NULL where the dumps had none. */
const char *model_fsite_source(const m_group *m, const m_fsite *f);
/* What tells ranked site f from the other ranked sites of its family on
 * its line, file and line being all they share: nothing when it is
 * alone there (M_APART_NONE); its column (a 0-based UTF-8 byte offset, as
 * co_positions() gives it) and, when that is on the line and the dumps
 * hold the line's text, the source it spans (span, owned, decoded; NULL
 * otherwise); its byte offset in the code (as dis gives it) when it has
 * no column or another site has the same position. */
typedef struct m_apart {
    enum { M_APART_NONE, M_APART_COLUMN, M_APART_OFFSET } kind;
    long col;
    char *span;
} m_apart;
void model_fsite_apart(const m_group *g, const m_fsite *f, m_apart *a);
/* The source text of file (portable name), or NULL. */
const m_src *model_src(const m_group *m, const char *file, size_t len);

/* The value most files of g had for header key (NULL if none). */
const char *model_hdr_top(const agg_group *g, const char *key);
void model_free(m_group *m);

/* How many files of the group had header key with value val. */
uint64_t model_hdr_files(const m_group *m, const char *key, const char *val);

/* The op called name, or NULL. */
const m_op *model_op(const m_group *m, const char *name);

/* A label's count in a list, 0 if absent. */
uint64_t m_list_get(const m_list *l, const char *name);
void m_list_add(m_list *l, const char *name, size_t len, uint64_t n);
/* Free the names and the list; l is left empty. */
void m_list_free(m_list *l);
/* Sort by count descending, then name. */
void m_list_sort(m_list *l);
/* Sort by count descending, then seq if by_input (else name). */
void m_list_sort_input(m_list *l, int by_input);

/* Whether name is a specialized form: named in the input's own list of
 * specialized instructions (a CPython summary's _specialized_instructions)
 * where there is one; else not the base of its family, and not a 3.11
 * *_ADAPTIVE placeholder. */
int model_is_specialized(const m_op *op);

#endif
