/* doc.h: a report as a document, neutral to what prints it: a sequence of
 * blocks (headings, paragraphs, lists, tables, figures) whose text is runs
 * of plain, bold or code text.  The reports build one (report_doc.c from
 * a summary, compare_report.c from a comparison) and two printers print
 * it: doc_md.c as Markdown, report_html.c as an HTML page (its figures
 * drawn by doc_chart.c).
 *
 * A run's text is the text itself, never markup: a run from the inputs
 * (file names, keys, source lines) is marked so, and a printer escapes it
 * for its language (Markdown: cli_fput_md; HTML: cli_esc, then HTML's
 * entities); the report's own text is written as it is.
 *
 * A figure is what only a drawing printer shows (the HTML page's charts
 * and verdict badge), placed after the heading of the section it belongs
 * to, with the data to draw it from: its own series (doc_fig), copied
 * into the document; the Markdown printer skips it.  A
 * section that only the page has (the source view) is a heading and
 * paragraphs marked page-only (doc_page_only), then its figure.
 *
 * Building: a block is opened (doc_heading, doc_para, doc_item,
 * doc_table) and the runs that follow go into it; in a table, doc_row
 * opens a row and doc_cell a cell of it (the cells before the first row
 * are the header).  Out of memory exits (cli.h). */
#ifndef DOC_H
#define DOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum doc_style { DOC_PLAIN = 0, DOC_BOLD, DOC_CODE };

enum doc_block_kind { DOC_HEADING, DOC_PARA, DOC_LIST, DOC_TABLE, DOC_FIGURE };

/* What a figure draws, and from what: its series (doc_fig), or for
 * the last two the data doc_figure was given. */
enum doc_figure_kind {
    DOC_FIG_VERDICT,   /* word: the trust verdict's word */
    DOC_FIG_EXEC,      /* execution counts by family */
    DOC_FIG_PAIRS,     /* the pair counts' heatmap */
    DOC_FIG_SPEC,      /* specialization outcomes */
    DOC_FIG_DIVERGING, /* const cmp_section *: a comparison's largest changes */
    DOC_FIG_SOURCE,    /* const m_group *: the hottest functions' source (annotate.h) */
};

/* A figure's series: rows of named counts, each with its parts, in the
 * order drawn; the names owned by the document.
 *   DOC_FIG_EXEC: a row per family, n its executions; its parts the
 *     forms that ran (flag: a specialized form), stacked in that order;
 *     total: every instruction executed; flag: some form that ran is
 *     specialized.
 *   DOC_FIG_PAIRS: a row per instruction, n every pair it starts; its
 *     parts a count per column, the columns being the rows.
 *   DOC_FIG_SPEC: a row per family, v[] its DOC_FIG_V_* outcomes; its
 *     parts its failures by kind. */
enum {
    DOC_FIG_V_HIT,
    DOC_FIG_V_MISS,
    DOC_FIG_V_DEFERRED,
    DOC_FIG_V_SUCCESS,
    DOC_FIG_V_FAILURE,
    DOC_FIG_V_COUNT
};

typedef struct doc_fig_part {
    const char *name;
    uint64_t n;
    int flag;
} doc_fig_part;

typedef struct doc_fig_row {
    const char *name;
    uint64_t n;
    uint64_t v[DOC_FIG_V_COUNT];
    doc_fig_part *part; /* owned */
    size_t npart, cappart;
} doc_fig_row;

typedef struct doc_fig {
    const char *word;
    doc_fig_row *row; /* owned */
    size_t nrow, caprow;
    uint64_t total;
    int flag;
} doc_fig;

typedef struct doc_run {
    int style;        /* doc_style */
    int input;        /* text from the inputs: escaped by the printers */
    const char *text; /* owned by the document */
    const char *ref;  /* NULL, or the text of the heading this run links
                       * to: the next with that text in the same group
                       * (a static string; the page links, Markdown not) */
} doc_run;

typedef struct doc_inline {
    doc_run *v;
    size_t n, cap;
} doc_inline;

/* A table cell; none: a cell with nothing in it at all (Markdown "| |"),
 * as against one holding empty text ("|  |"). */
typedef struct doc_tcell {
    doc_inline in;
    int none;
} doc_tcell;

typedef struct doc_row {
    doc_tcell *v;
    size_t n, cap;
} doc_row;

typedef struct doc_block {
    int kind; /* doc_block_kind */
    /* heading */
    int level;     /* 1-6 */
    int group;     /* the heading of group N of a summary (1-based), else 0 */
    int fold;      /* its section is long lists of small tables: shown folded */
    int page;      /* only the page prints it (a section of figures) */
    doc_inline in; /* heading, paragraph */
    /* list */
    doc_inline *items;
    size_t nitems, capitems;
    /* table: align[k] 'l' or 'r' for each of its ncols columns */
    char *align;
    size_t ncols;
    doc_row head;
    doc_row *rows;
    size_t nrows, caprows;
    /* figure */
    int figure;       /* doc_figure_kind */
    doc_fig fig;      /* its series */
    const void *data; /* DOC_FIG_DIVERGING, DOC_FIG_SOURCE: borrowed */
} doc_block;

typedef struct doc {
    doc_block *b;
    size_t n, cap;
    int style;                /* the style of the runs that follow */
    doc_inline *cur;          /* where runs go */
    struct doc_chunk *chunks; /* the runs' texts */
} doc;

void doc_init(doc *d);
void doc_free(doc *d);

/* Blocks. */
void doc_heading(doc *d, int level);
void doc_para(doc *d);
void doc_item(doc *d); /* an item of a list; items in a row make one list */
/* A table of strlen(align) columns ('l' left, 'r' right); each of the
 * ncols header texts that follow is the report's own text, or NULL for a
 * header cell with nothing in it. */
void doc_table(doc *d, const char *align, ...);
void doc_table_begin(doc *d, const char *align); /* header cells follow */
void doc_row_begin(doc *d);
void doc_cell(doc *d);
void doc_cell_none(doc *d);
/* A figure drawn from data, borrowed (DOC_FIG_DIVERGING, DOC_FIG_SOURCE). */
void doc_figure(doc *d, int figure, const void *data);
/* A figure drawn from its series, empty (word: a copy of it, or NULL);
 * then rows added to it, and parts to its last row. */
doc_fig *doc_figure_series(doc *d, int figure, const char *word);
doc_fig_row *doc_fig_row_add(doc *d, doc_fig *f, const char *name, uint64_t n);
void doc_fig_part_add(doc *d, doc_fig_row *r, const char *name, uint64_t n, int flag);
/* The last block (NULL if none). */
doc_block *doc_last(doc *d);
/* The last block is printed by the page only: Markdown leaves it out. */
void doc_page_only(doc *d);

/* Runs, in the current style (doc_style). */
void doc_style(doc *d, int style);
void doc_text(doc *d, const char *s);
void doc_textf(doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void doc_name(doc *d, const char *s); /* text from the inputs */
void doc_bold(doc *d, const char *s); /* one bold run of the report's own text */
void doc_code(doc *d, const char *s); /* one code run of the report's own text */
/* One run of the report's own text that the page links to the section
 * headed heading (a static string) after it, in the same group. */
void doc_link(doc *d, const char *s, const char *heading);

/* Cells: a new cell holding one run. */
void doc_cell_text(doc *d, const char *s);
void doc_cell_textf(doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void doc_cell_name(doc *d, const char *s);

/* Print runs: each style's opening and closing markup where the style
 * changes, each run's text with text(). */
typedef struct doc_markup {
    const char *open[3], *close[3]; /* by doc_style */
    void (*text)(FILE *out, const doc_run *r);
} doc_markup;
void doc_print_runs(FILE *out, const doc_inline *in, const doc_markup *mk);

/* doc_md.c: the document as Markdown (the figures left out), then freed.
 * Returns 0, or -1 if the stream failed. */
int doc_print_md_free(FILE *out, doc *d);

/* How doc_print_md_free() writes text from the inputs (file names,
 * qualified names, keys): DOC_MD_MARKDOWN escapes what Markdown would
 * read as markup (`Vec.\_\_init\_\_`), DOC_MD_TERMINAL writes it as it
 * is, for a reader of the terminal; DOC_MD_AUTO (the default) chooses
 * terminal when the output is a terminal, so that pipes, files and
 * goldens get Markdown.  One setting for the process (--md-style). */
enum { DOC_MD_AUTO, DOC_MD_MARKDOWN, DOC_MD_TERMINAL };
void doc_md_style(int style);

#endif
