/* doc_md.c: a document (doc.h) as Markdown.  Blocks are separated by a
 * blank line; a section heading followed at once by a sub-heading by two
 * (a group's heading by one), as the reports have always been written;
 * the figures and what only the page prints are left out. */
#include "doc.h"

#include "cli.h"

#include <assert.h>
#include <stdio.h>
#include <unistd.h>

static int md_style = DOC_MD_AUTO;
static int md_terminal; /* this printing writes input text unescaped */

void
doc_md_style(int style)
{
    assert(style == DOC_MD_AUTO || style == DOC_MD_MARKDOWN || style == DOC_MD_TERMINAL);
    md_style = style;
}

/* Text from the inputs: for a terminal, only what a terminal would
 * act on escaped (control characters); in a code span, as the span
 * shows it (cli_fput_md_code); elsewhere escaped for Markdown. */
static void
md_text(FILE *out, const doc_run *r)
{
    if (!r->input)
        fputs(r->text, out);
    else if (md_terminal)
        cli_fput_esc(out, r->text);
    else if (r->style != DOC_CODE || cli_fput_md_code(out, r->text) < 0)
        cli_fput_md(out, r->text);
}

static const doc_markup md_markup = {{"", "**", "`"}, {"", "**", "`"}, md_text};

static void
md_inline(FILE *out, const doc_inline *in)
{
    doc_print_runs(out, in, &md_markup);
}

static void
md_row(FILE *out, const doc_row *r)
{
    size_t k;

    fputc('|', out);
    for (k = 0; k < r->n; k++) {
        if (r->v[k].none) {
            fputs(" |", out);
            continue;
        }
        fputc(' ', out);
        md_inline(out, &r->v[k].in);
        fputs(" |", out);
    }
    fputc('\n', out);
}

static void
md_table(FILE *out, const doc_block *b)
{
    size_t k;

    md_row(out, &b->head);
    fputc('|', out);
    for (k = 0; k < b->ncols; k++)
        fputs(b->align[k] == 'r' ? " ---: |" : " :--- |", out);
    fputc('\n', out);
    for (k = 0; k < b->nrows; k++)
        md_row(out, &b->rows[k]);
}

static void
md_block(FILE *out, const doc_block *b)
{
    size_t k;
    int i;

    switch (b->kind) {
    case DOC_HEADING:
        for (i = 0; i < b->level; i++)
            fputc('#', out);
        fputc(' ', out);
        md_inline(out, &b->in);
        fputc('\n', out);
        break;
    case DOC_PARA:
        md_inline(out, &b->in);
        fputc('\n', out);
        break;
    case DOC_LIST:
        for (k = 0; k < b->nitems; k++) {
            fputs("- ", out);
            md_inline(out, &b->items[k]);
            fputc('\n', out);
        }
        break;
    case DOC_TABLE:
        md_table(out, b);
        break;
    default:
        break;
    }
}

int
doc_print_md_free(FILE *out, doc *d)
{
    const doc_block *prev = NULL;
    size_t i;

    md_terminal = md_style == DOC_MD_TERMINAL || (md_style == DOC_MD_AUTO && isatty(fileno(out)));
    for (i = 0; i < d->n; i++) {
        const doc_block *b = &d->b[i];
        if (b->kind == DOC_FIGURE || b->page)
            continue;
        if (prev) {
            fputc('\n', out);
            if (prev->kind == DOC_HEADING && b->kind == DOC_HEADING && !prev->group)
                fputc('\n', out);
        }
        md_block(out, b);
        prev = b;
    }
    doc_free(d);
    return ferror(out) ? -1 : 0;
}
