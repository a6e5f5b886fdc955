/* annotate.h: the source view (`pystats annotate`): hot functions' source
 * lines with their exact instruction counts and the state of each
 * specializable site, built once from a model (model.h) and printed by
 * annotate_text.c (the terminal) and annotate_html.c (one page).
 *
 * A function's lines run from its first line (co_firstlineno) to the
 * last line anything of it is on, A_SPAN_MAX lines at the most (a bound
 * on memory whatever line numbers a dump holds): the instructions of
 * lines past it are counted together (a_fn.beyond).  Each line's text comes from the
 * dump's own copy of the source (source[FILE].line[N], written with a
 * census), else from the file as it is now, read only where every dump
 * of the view is the reader's own (FORMAT.md 1.5's rule: a dump another
 * user could have written may name any file, and the reader's rights
 * would read it) and not for a page unless asked; a file that differs
 * from the dump's copy is flagged, and the dump's copy is shown.  A line with no
 * text anywhere is shown empty, so counts are never dropped.
 */
#ifndef ANNOTATE_H
#define ANNOTATE_H

#include "model.h"
#include "../format/psf_line.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define A_SPAN_MAX 100000L /* lines of one function's view */
#define A_WHY_MAX 160      /* a_fn.nosrc */

/* Why no file was read (a_fn.nosrc): a sentence's end
 * after "the file is". */
#define A_NOT_READ_PAGE                                                                        \
    "not read: a page shows only the dumps' own copies of the source (--read-files reads the " \
    "files)"
#define A_NOT_READ_FOREIGN                                                                      \
    "not read: a dump that names it is not yours, or is in a directory others can write into, " \
    "or is a JSON summary (FORMAT.md 1.5)"


enum a_state { A_SPECIALIZED = 0, A_BACKING_OFF, A_NEVER_TRIED, A_EXCLUDED, A_STATE_COUNT };
/* As in dumps: psf_site_state_name[] (psf_line.h), in this order. */
_Static_assert(A_STATE_COUNT == PSF_SITE_STATES, "a_state follows psf_site_state_name");
extern const char *const a_state_words[A_STATE_COUNT]; /* for people */

/* One site, as most dumps had it (n of ndumps). */
typedef struct a_site {
    long offset;
    const char *family, *detail;       /* point into fields */
    char *fields;                      /* owned */
    int state;                         /* a_state */
    long line, col, end_line, end_col; /* -1: no position */
    uint64_t n, ndumps;                /* dumps with this row, with any row */
    int base_state;                    /* with a base: its state there, -1 none */
    int has_exec;                      /* the dumps have site executions */
    uint64_t executions;               /* code[K].site_executions, summed */
} a_site;

typedef struct a_line {
    long line;   /* 0: code before the first line (RESUME) */
    int counted; /* it has a line[N] entry */
    uint64_t count;
    char *text;           /* owned, decoded for display; NULL: no text */
    size_t site0, nsites; /* its sites: fn->sites[site0 ..) */
    int has_base;         /* with a base: the line executed there */
    uint64_t base_count;
} a_line;

enum { A_SRC_NONE = 0, A_SRC_DUMP, A_SRC_FILE, A_SRC_MIXED };

typedef struct a_fn {
    const m_code *c;   /* borrowed from the model */
    char *file, *qual; /* owned, decoded for display */
    char *anchor;      /* owned: a unique id for links */
    long first;
    uint64_t instructions, calls, no_line;
    uint64_t beyond; /* instructions of lines past A_SPAN_MAX lines */
    a_line *lines;   /* owned, first .. last */
    size_t nlines;
    a_site *sites;           /* owned, by line then column */
    size_t nsites, unplaced; /* unplaced: sites with no line among lines */
    int source;              /* A_SRC_*: where the texts came from */
    char nosrc[A_WHY_MAX];   /* A_SRC_NONE: what the file is ("gone", "a
                              * FIFO", "too big (...)", A_NOT_READ_*) */
    int changed;             /* the file differs from the dump's copy */
    /* With a base (annotate_against): the same function there (FILE and
     * QUALNAME alike), its lines taken first line to first line. */
    const struct a_fn *base;
    long shift;            /* base line = line + shift */
    size_t states_changed; /* sites whose state differs */
} a_fn;

typedef struct annotate {
    const m_group *m; /* borrowed */
    a_fn *fn;         /* owned, most instructions first */
    size_t nfn;
    size_t with_lines; /* code entries with per-line counts */
    uint64_t total;    /* instructions of all code with lines */
    uint64_t site_states[A_STATE_COUNT];
    const char *verdict, *trust; /* borrowed, may be NULL */
    int minor;
    const struct annotate *base; /* borrowed, NULL: no comparison */
} annotate;

typedef struct annotate_opts {
    int top;              /* functions to show; 0: all */
    int no_text;          /* leave the texts out (a base's view) */
    int dump_text_only;   /* texts from the dumps' copies only, never read
                           * a file the dumps name (a report to share).
                           * Without it a file is still read only if
                           * every dump of the group is the reader's
                           * (agg_group_vouched). */
    const char *function; /* only those whose QUALNAME is this, or whose
                           * FILE:LINE:QUALNAME ends with it; NULL: any */
    const char *anchor;   /* the functions' ids: ANCHOR-fn-N; NULL: fn-N */
} annotate_opts;

/* Build the view of m's hot code.  Returns the number of functions
 * chosen (0: nothing to show). */
size_t annotate_build(annotate *a, const m_group *m, const annotate_opts *o);
/* Compare a with base (annotate_build of every function, no texts):
 * each function of a with its counterpart, each line's count there, each
 * site's state there.  Across Python versions sites are compared by
 * family and line only (their offsets differ).  base must outlive a. */
void annotate_against(annotate *a, const annotate *base);
/* What f's base counterpart says, one sentence without its full stop,
 * into buf: its instructions, per million on each side, its shift, the
 * sites that changed state, the versions when they differ. */
void annotate_base_says(const annotate *a, const a_fn *f, char *buf, size_t size);
/* A count per million instructions of its view. */
double annotate_per_million(const annotate *a, uint64_t n);
void annotate_free(annotate *a);

/* Whether a line is worth a row: it has a text, a count or a site (a
 * run of lines with none, where no source is known, is one gap). */
static inline int
a_line_shown(const a_line *l)
{
    return l->text != NULL || l->counted || l->nsites > 0 || l->has_base;
}

/* Whether any function shown has a site row. */
static inline int
annotate_has_sites(const annotate *a)
{
    int st;

    for (st = 0; st < A_STATE_COUNT; st++)
        if (a->site_states[st])
            return 1;
    return 0;
}

/* Renderers: 0, or -1 if the stream failed. */
int annotate_text(FILE *out, const annotate *a);
int annotate_html(FILE *out, const annotate *a);

/* The pieces of annotate_html that another page shows too (the summary's
 * "Source view", doc_chart.c), so that both print a function alike:
 * the style of a function's section, each selector under scope (a
 * selector, or "" for none), so that it holds whatever page it is on
 * and touches nothing else of it; the legend of the sites' states (of
 * the functions shown); function i's section, its heading at level
 * hlevel (2-6). */
void annotate_html_css(FILE *out, const char *scope);
void annotate_html_legend(FILE *out, const annotate *a);
void annotate_html_fn(FILE *out, const annotate *a, size_t i, int hlevel);

#endif
