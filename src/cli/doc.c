/* doc.c: building a document (doc.h). */
#include "doc.h"

#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runs' texts, copied into chunks that never move (a report has
 * many small ones: one allocation each would cost more than the text). */
#define CHUNK_SIZE 65536

struct doc_chunk {
    struct doc_chunk *next;
    size_t used, size;
    char text[];
};

static char *
text_copy(doc *d, const char *s, size_t n)
{
    struct doc_chunk *c = d->chunks;
    char *t;

    if (c == NULL || c->size - c->used < n + 1) {
        size_t size = n + 1 > CHUNK_SIZE ? n + 1 : CHUNK_SIZE;
        c = cli_xmalloc(sizeof *c + size);
        c->next = d->chunks;
        c->used = 0;
        c->size = size;
        d->chunks = c;
    }
    t = c->text + c->used;
    memcpy(t, s, n);
    t[n] = '\0';
    c->used += n + 1;
    return t;
}

void
doc_init(doc *d)
{
    memset(d, 0, sizeof *d);
}

static void
inline_free(doc_inline *in)
{
    free(in->v);
}

static void
row_free(doc_row *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        inline_free(&r->v[i].in);
    free(r->v);
}

void
doc_free(doc *d)
{
    size_t i, k;

    for (i = 0; i < d->n; i++) {
        doc_block *b = &d->b[i];
        inline_free(&b->in);
        for (k = 0; k < b->nitems; k++)
            inline_free(&b->items[k]);
        free(b->items);
        free(b->align);
        row_free(&b->head);
        for (k = 0; k < b->nrows; k++)
            row_free(&b->rows[k]);
        free(b->rows);
        for (k = 0; k < b->fig.nrow; k++)
            free(b->fig.row[k].part);
        free(b->fig.row);
    }
    free(d->b);
    while (d->chunks) {
        struct doc_chunk *c = d->chunks;
        d->chunks = c->next;
        free(c);
    }
    memset(d, 0, sizeof *d);
}

/* Grow an array of elements of size `size` to hold one more, from
 * `first` elements. */
static void *
grow(void *v, size_t n, size_t *cap, size_t size, size_t first)
{
    if (n < *cap)
        return v;
    *cap = *cap ? *cap * 2 : first;
    return cli_xrealloc(v, *cap * size);
}


static doc_block *
block_new(doc *d, int kind)
{
    doc_block *b;

    d->b = grow(d->b, d->n, &d->cap, sizeof *d->b, 64);
    b = &d->b[d->n++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    d->cur = &b->in;
    d->style = DOC_PLAIN;
    return b;
}

doc_block *
doc_last(doc *d)
{
    return d->n ? &d->b[d->n - 1] : NULL;
}

void
doc_page_only(doc *d)
{
    if (d->n)
        d->b[d->n - 1].page = 1;
}

void
doc_heading(doc *d, int level)
{
    block_new(d, DOC_HEADING)->level = level;
}

void
doc_para(doc *d)
{
    block_new(d, DOC_PARA);
}

void
doc_item(doc *d)
{
    doc_block *b = doc_last(d);

    if (b == NULL || b->kind != DOC_LIST)
        b = block_new(d, DOC_LIST);
    b->items = grow(b->items, b->nitems, &b->capitems, sizeof *b->items, 4);
    memset(&b->items[b->nitems], 0, sizeof b->items[0]);
    d->cur = &b->items[b->nitems++];
    d->style = DOC_PLAIN;
}

void
doc_table_begin(doc *d, const char *align)
{
    doc_block *b = block_new(d, DOC_TABLE);

    b->align = cli_xstrdup(align);
    b->ncols = strlen(align);
    d->cur = NULL;
}

void
doc_table(doc *d, const char *align, ...)
{
    va_list ap;
    size_t k, n = strlen(align);

    doc_table_begin(d, align);
    va_start(ap, align);
    for (k = 0; k < n; k++) {
        const char *h = va_arg(ap, const char *);
        if (h)
            doc_cell_text(d, h);
        else
            doc_cell_none(d);
    }
    va_end(ap);
}

/* The row cells go into: the last body row, else the header. */
static doc_row *
cur_row(doc *d)
{
    doc_block *b = doc_last(d);

    if (b == NULL || b->kind != DOC_TABLE)
        cli_bug("a cell outside a table");
    return b->nrows ? &b->rows[b->nrows - 1] : &b->head;
}

void
doc_row_begin(doc *d)
{
    doc_block *b;

    cur_row(d);
    b = doc_last(d);
    b->rows = grow(b->rows, b->nrows, &b->caprows, sizeof *b->rows, 8);
    memset(&b->rows[b->nrows++], 0, sizeof b->rows[0]);
    d->cur = NULL;
}

void
doc_cell(doc *d)
{
    doc_row *r = cur_row(d);

    r->v = grow(r->v, r->n, &r->cap, sizeof *r->v, 4);
    memset(&r->v[r->n], 0, sizeof r->v[0]);
    d->cur = &r->v[r->n++].in;
    d->style = DOC_PLAIN;
}

void
doc_cell_none(doc *d)
{
    doc_row *r;

    doc_cell(d);
    r = cur_row(d);
    r->v[r->n - 1].none = 1;
}

void
doc_figure(doc *d, int figure, const void *data)
{
    doc_block *b = block_new(d, DOC_FIGURE);

    b->figure = figure;
    b->data = data;
    d->cur = NULL;
}

doc_fig *
doc_figure_series(doc *d, int figure, const char *word)
{
    doc_block *b = block_new(d, DOC_FIGURE);

    b->figure = figure;
    if (word)
        b->fig.word = text_copy(d, word, strlen(word));
    d->cur = NULL;
    return &b->fig;
}

doc_fig_row *
doc_fig_row_add(doc *d, doc_fig *f, const char *name, uint64_t n)
{
    doc_fig_row *r;

    f->row = grow(f->row, f->nrow, &f->caprow, sizeof *f->row, 16);
    r = &f->row[f->nrow++];
    memset(r, 0, sizeof *r);
    r->name = text_copy(d, name, strlen(name));
    r->n = n;
    return r;
}

void
doc_fig_part_add(doc *d, doc_fig_row *r, const char *name, uint64_t n, int flag)
{
    doc_fig_part *p;

    r->part = grow(r->part, r->npart, &r->cappart, sizeof *r->part, 8);
    p = &r->part[r->npart++];
    p->name = text_copy(d, name, strlen(name));
    p->n = n;
    p->flag = flag;
}

void
doc_style(doc *d, int style)
{
    d->style = style;
}

static void
run_add(doc *d, int style, int input, const char *s, size_t n)
{
    doc_inline *in = d->cur;

    if (in == NULL)
        cli_bug("text outside a block");
    in->v = grow(in->v, in->n, &in->cap, sizeof *in->v, 1);
    in->v[in->n].style = style;
    in->v[in->n].input = input;
    in->v[in->n].text = text_copy(d, s, n);
    in->v[in->n].ref = NULL;
    in->n++;
}

void
doc_text(doc *d, const char *s)
{
    run_add(d, d->style, 0, s, strlen(s));
}

/* A run of formatted text. */
static void
run_vformat(doc *d, int style, const char *fmt, va_list ap)
{
    char buf[256], *s = buf;
    va_list ap2;
    int n;

    va_copy(ap2, ap);
    n = vsnprintf(buf, sizeof buf, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf) {
        s = cli_xmalloc((size_t)n + 1);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    }
    run_add(d, style, 0, s, (size_t)n);
    if (s != buf)
        free(s);
}

void
doc_textf(doc *d, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    run_vformat(d, d->style, fmt, ap);
    va_end(ap);
}

void
doc_name(doc *d, const char *s)
{
    run_add(d, d->style, 1, s, strlen(s));
}

void
doc_bold(doc *d, const char *s)
{
    run_add(d, DOC_BOLD, 0, s, strlen(s));
}

void
doc_code(doc *d, const char *s)
{
    run_add(d, DOC_CODE, 0, s, strlen(s));
}

void
doc_link(doc *d, const char *s, const char *heading)
{
    run_add(d, d->style, 0, s, strlen(s));
    d->cur->v[d->cur->n - 1].ref = heading;
}

void
doc_cell_text(doc *d, const char *s)
{
    doc_cell(d);
    doc_text(d, s);
}

void
doc_cell_textf(doc *d, const char *fmt, ...)
{
    va_list ap;

    doc_cell(d);
    va_start(ap, fmt);
    run_vformat(d, DOC_PLAIN, fmt, ap);
    va_end(ap);
}

void
doc_cell_name(doc *d, const char *s)
{
    doc_cell(d);
    doc_name(d, s);
}

void
doc_print_runs(FILE *out, const doc_inline *in, const doc_markup *mk)
{
    int style = DOC_PLAIN;
    size_t i;

    for (i = 0; i < in->n; i++) {
        const doc_run *r = &in->v[i];
        if (r->style != style) {
            fputs(mk->close[style], out);
            fputs(mk->open[r->style], out);
            style = r->style;
        }
        mk->text(out, r);
    }
    fputs(mk->close[style], out);
}
