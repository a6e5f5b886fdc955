/* compare.h: two runs side by side (`pystats compare`).
 *
 * Each side is a summary (summary.h) as `summarize` builds it; one group of each
 * side is compared (the largest, or the one that matches the other
 * side).  The comparison is a list of sections; a section is a list of
 * rows of one kind:
 *
 * - count rows (executions, calls, pair counts ...): base and head
 *   counts, and the same per million executed instructions of that side,
 *   so runs of different sizes compare fairly;
 * - share rows (hit ratio, specialized share ...): a fraction on each
 *   side, compared in percentage points.
 *
 * Rows are sorted by their share of the section's total change and
 * marked folded when they change less than --min-change.  Hot code is
 * ranked per call instead: a code object's change is its change in
 * instructions per call times its base calls, as a share of the base's
 * instructions (so a change in pyperf's loop counts, more calls of the
 * same work, is no change), and a code object that is CMP_HOT_KEEP or
 * more of either side's instructions is never folded.  Figures that
 * are undefined (a share of nothing, a relative change from zero) are
 * NaN; an absent row side is has_base/has_head = 0.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include "agg.h"
#include "doc.h"
#include "model.h"
#include "summary.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CMP_MAX_SECTIONS 32

/* Between the two locations of hot code that moved (compare_moves.c). */
#define CMP_MOVE_ARROW " \xe2\x86\x92 " /* " → " */

/* Hot code this share of a side's instructions or more is never folded. */
#define CMP_HOT_KEEP 0.03

enum cmp_kind { CMP_COUNT = 0, CMP_SHARE = 1 };

/* A row that exists in one Python version's instruction set only. */
enum cmp_only { CMP_ONLY_NONE = 0, CMP_ONLY_BASE, CMP_ONLY_HEAD };
extern const char *const cmp_only_name[3];

typedef struct cmp_row {
    char *name;                                      /* owned */
    int only;                                        /* cmp_only */
    int has_base, has_head;                          /* the figure exists on that side */
    uint64_t base_n, head_n;                         /* count rows: the counts */
    uint64_t base_num, base_den, head_num, head_den; /* share rows */
    double base, head;                          /* count, or share in [0, 1]; NaN if undefined */
    double change, rel;                         /* head - base; change / base (NaN if base is 0) */
    double base_pm, head_pm, change_pm, rel_pm; /* count rows: per million instructions */
    double weight;                              /* share of the section's total change, 0..1 */
    int folded;                                 /* changed less than --min-change */
    /* Sections ranked per call (hot code): each side's calls, and its
     * count per call (NaN without calls). */
    uint64_t base_calls, head_calls;
    double base_per_call, head_per_call, rel_per_call;
    /* Hot code that moved between modules (compare_moves.c): the base
     * row's own name (owned), name being "BASE_LOC → HEAD_LOC:QUALNAME";
     * else NULL. */
    char *moved_from;
} cmp_row;

typedef struct cmp_section {
    const char *name;  /* path name: "family", "specialization" */
    const char *title; /* "Execution counts by family" */
    const char *col;   /* first column: "Family" */
    const char *note;  /* a sentence under the title, or NULL */
    int kind;          /* cmp_kind */
    int normalized;    /* count rows with per-million figures */
    int self_share;    /* normalized figure shown as a share of all instructions */
    int per_call;      /* rows ranked by their change per call (cmp_row's calls) */
    cmp_row *rows;     /* owned */
    size_t n, cap;
    size_t nfolded;
    void *index; /* owned: name -> row while building */
} cmp_section;

typedef struct cmp_side {
    const char *label; /* "base" / "head" */
    char **inputs;     /* borrowed */
    size_t ninputs;
    const summary *s;        /* borrowed: the side's summary */
    const summary_group *sg; /* borrowed: the group compared */
    const agg_group *g;      /* borrowed: its metadata (sg->meta), for building */
    const m_group *m;        /* borrowed: its model (&sg->m) */
    uint64_t problems;
    const summary_meta *about; /* borrowed: what the reports say of its
                                * dumps (&sg->info) */
} cmp_side;

typedef struct cmp {
    cmp_side side[2];  /* base, head */
    int by_family;     /* different counting semantics: families only */
    double min_change; /* percent */
    int top;           /* rows shown per section in reports */
    cmp_section *sec;  /* owned */
    size_t nsec;
    char **warn; /* owned sentences, no final period */
    size_t nwarn;
    const char *fail_if; /* --fail-if as given (NULL: none), for the */
    int fail_result;     /* headline: its result, 1 true, 0 false */
    int in_suite;        /* one benchmark of a --by-label comparison */
    /* Renames between adjacent versions (renames.h): the pair's lower
     * minor (0: none apply), the side with the older version, and the
     * renamed instructions each side ran (for the headline). */
    int ren_lo, ren_old;
    struct cmp_rename {
        const struct ren_row *row;
        int side;
        uint64_t n;
    } * ren;
    size_t nren;
} cmp;

/* A suite compared benchmark by benchmark (`compare --by-label`,
 * compare_label.c): each label of one side against the same label of
 * the other, per benchmark call (benchmark.calls, FORMAT.md 1.19). */
typedef struct cmp_label {
    const char *label;  /* borrowed: the groups' label (encoded text) */
    size_t gi[2];       /* its group on each side, SIZE_MAX if absent */
    uint64_t calls[2];  /* benchmark.calls of each side */
    uint64_t instr[2];  /* instructions executed */
    double per_call[2]; /* instructions per call (whole: instructions);
                         * NaN when undefined */
    double rel;         /* per_call[1] / per_call[0] - 1, NaN if undefined */
    int whole;          /* no benchmark.calls on either side: compared whole */
    int built;          /* c holds the label's comparison (both sides) */
    cmp c;
} cmp_label;

typedef struct cmp_suite {
    const summary *s[2]; /* borrowed, read with --by-label */
    char **inputs[2];    /* borrowed: one input a side */
    double min_change;
    int top;
    cmp_label *v; /* owned, by label */
    size_t n;
    double geo_ratio; /* geometric mean of per-call ratios head / base */
    size_t ngeo;      /* labels in it */
    char **warn;      /* owned sentences, no final period */
    size_t nwarn;
} cmp_suite;

void cmp_suite_build(cmp_suite *cs, const summary *base, char **base_in, const summary *head,
                     char **head_in, double min_change, int top);
void cmp_suite_free(cmp_suite *cs);
void cmp_suite_doc(doc *d, const cmp_suite *cs);
int cmp_suite_markdown(FILE *out, const cmp_suite *cs);
int cmp_suite_json(FILE *out, const cmp_suite *cs);

/* Build the comparison of two summaries (each with at least one file);
 * both must outlive c. */
void cmp_build(cmp *c, const summary *base, char **base_in, size_t nbase, const summary *head,
               char **head_in, size_t nhead, double min_change, int top);
/* The same for group gb of base and gh of head; in_suite: one benchmark
 * of a --by-label comparison (the other groups are other benchmarks). */
void cmp_build_groups(cmp *c, const summary *base, size_t gb, char **base_in, size_t nbase,
                      const summary *head, size_t gh, char **head_in, size_t nhead,
                      double min_change, int top, int in_suite);
void cmp_free(cmp *c);
/* A whole-suite comparison's warning when its benchmarks' calls
 * (benchmark.calls) changed in different proportions: lb and lh are the
 * two sides read by label. */
void cmp_warn_calls(cmp *c, const agg *lb, const agg *lh);
/* Whether two groups count the same thing, in the same Python version. */
int cmp_group_matches(const agg_group *a, const agg_group *b);

const cmp_section *cmp_find_section(const cmp *c, const char *name);
const cmp_row *cmp_find_row(const cmp_section *s, const char *name);

/* "CPython 3.13 native dumps" etc. for side i. */
void cmp_side_title(const cmp *c, int i, char *buf, size_t size);

/* The report of a comparison as a document (doc.h), for the Markdown
 * and HTML reports. */
void cmp_report_doc(doc *d, const cmp *c);

/* Markdown and JSON reports of a comparison.  fail_if is the --fail-if
 * expression and its result (-1: none).  Return 0, or -1 if the stream
 * failed. */
int cmp_report_markdown(FILE *out, const cmp *c);
int cmp_report_json(FILE *out, const cmp *c, const char *fail_if, int fail_result);

#endif
