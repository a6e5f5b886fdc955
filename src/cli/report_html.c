/* report_html.c: the HTML reports (see report_html.h): a document
 * (doc.h) printed as one page, its contents, its sortable tables, and
 * its figures where they stand (drawn by doc_chart.c). */
#include "report_html.h"

#include "cli.h"
#include "doc.h"
#include "doc_chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---------------------------------------------------------------- */

static void
esc_n(FILE *out, const char *s, size_t n)
{
    cli_fput_html(out, s, n);
}

/* Text from the inputs (chart labels, data-* values): control
 * characters escaped as in every text output (cli_esc), then HTML's. */
static void
esc(FILE *out, const char *s)
{
    char *t = cli_esc_dup(s);

    esc_n(out, t, strlen(t));
    free(t);
}

/* ---- the page -------------------------------------------------------------- */

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1b1f24;"
    "background:#fff}\n"
    "main{max-width:1200px;margin:0 auto;padding:16px 24px 64px}\n"
    "h1{font-size:1.7em;margin:.4em 0}h2{font-size:1.35em;margin:1.6em 0 .5em;"
    "border-bottom:1px solid #d0d7de;padding-bottom:.2em}h3{font-size:1.15em;margin:1.2em 0 .4em}"
    "h4{font-size:1em;margin:1em 0 .3em}\n"
    "code{background:#f3f4f6;padding:0 3px;border-radius:3px}\n"
    ".tw{overflow-x:auto;margin:.4em 0 1em}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}\n"
    "th,td{border:1px solid #d8dee4;padding:2px 8px;text-align:left}\n"
    "td.n{white-space:nowrap}td{overflow-wrap:anywhere}\n"
    "th{background:#f6f8fa;cursor:pointer;user-select:none;position:sticky;top:0}\n"
    "th.n,td.n{text-align:right}tbody tr:nth-child(even){background:#fafbfc}\n"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' "
    "\\25BC'}\n"
    "svg.chart{display:block;max-width:100%;height:auto;margin:.5em 0 1em;font-size:12px}\n"
    "svg.chart text{fill:#1b1f24}svg.chart .axis{stroke:#8c959f}\n"
    "svg.chart rect.seg:hover,svg.chart rect.cell:hover,svg.chart rect.div:hover{stroke:#000;"
    "stroke-width:1}\n"
    ".legend{font-size:12px;color:#57606a;margin:-.6em 0 1em}\n"
    ".legend i{display:inline-block;width:10px;height:10px;margin:0 4px 0 "
    "10px;vertical-align:middle}\n"
    "nav.toc{position:fixed;top:0;left:0;width:230px;height:100vh;overflow:auto;"
    "padding:12px 10px;box-sizing:border-box;border-right:1px solid #d0d7de;"
    "background:#f6f8fa;font-size:13px}\n"
    "nav.toc ul{list-style:none;margin:.2em 0;padding-left:.8em}nav.toc a{color:#0969da;"
    "text-decoration:none}\n"
    "@media(min-width:1100px){main{margin-left:240px}}@media(max-width:1099px){nav.toc{"
    "position:static;width:auto;height:auto;border:1px solid #d0d7de}}\n"
    "span.short{border-bottom:1px dotted #8c959f}table.rows td:first-child{white-space:nowrap}\n"
    "details>summary{cursor:pointer;color:#0969da;margin:.3em 0}\n"
    ".badge{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;"
    "color:#fff}.badge.ok{background:#1a7f37}.badge.caution{background:#bf8700}"
    ".badge.untrusted{background:#cf222e}\n";

/* Sorting: one delegated listener; keys computed once per sort; rows are
 * reordered in a detached tbody, so thousands of rows sort quickly. */
static const char js[] =
    "(function(){'use strict';\n"
    "function num(t){t=t.trim();if(t===''||t.charAt(0)==='\\u2014')return null;"
    "if(t==='new')return Infinity;if(t==='gone')return -Infinity;"
    "var s=t.replace(/,/g,'').replace(/ pp$/,'').replace(/%$/,'');"
    "return /^[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?$/.test(s)?parseFloat(s):undefined;}\n"
    "function sortBy(th){var table=th.closest('table'),tb=table.tBodies[0],col=th.cellIndex;"
    "var rows=Array.prototype.slice.call(tb.rows),numeric=true,keys=new Array(rows.length),i;"
    "for(i=0;i<rows.length;i++){var c=rows[i].cells[col],t=c?c.textContent:'',v=num(t);"
    "if(v===undefined)numeric=false;keys[i]={r:rows[i],i:i,t:t.trim(),v:v};}"
    "var cur=th.getAttribute('aria-sort'),dir;"
    "if(cur)dir=cur==='ascending'?-1:1;else dir=numeric?-1:1;"
    "keys.sort(function(a,b){var x,y;if(numeric){x=a.v;y=b.v;"
    "if(x===null||y===null){if(x===y)return a.i-b.i;return x===null?1:-1;}"
    "if(x!==y)return x<y?-dir:dir;return a.i-b.i;}"
    "x=a.t;y=b.t;if(x===''||y===''){if(x===y)return a.i-b.i;return x===''?1:-1;}"
    "if(x!==y)return x<y?-dir:dir;return a.i-b.i;});"
    "var next=tb.nextSibling;table.removeChild(tb);"
    "for(i=0;i<keys.length;i++)tb.appendChild(keys[i].r);"
    "table.insertBefore(tb,next);var ths=th.parentNode.cells;for(i=0;i<ths.length;i++)"
    "ths[i].removeAttribute('aria-sort');"
    "th.setAttribute('aria-sort',dir<0?'descending':'ascending');}\n"
    "document.addEventListener('click',function(ev){var th=ev.target.closest?"
    "ev.target.closest('table.sortable th'):null;if(th)sortBy(th);});\n"
    "document.documentElement.setAttribute('data-ready','1');\n"
    "})();\n";

static void
page_begin(FILE *out, const char *title, const doc *d)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    esc(out, title);
    fprintf(out, "</title>\n<style>\n%s", css);
    doc_chart_style(out, d);
    fputs("</style>\n</head><body><main>\n", out);
}

static void
page_end(FILE *out)
{
    fprintf(out, "</main>\n<script>\n%s</script>\n</body></html>\n", js);
}

/* ---- the document ----------------------------------------------------------- */

/* The page being printed, for the links of runs (doc_link()): its
 * document, the headings' anchors and the block being printed. */
typedef struct anchors anchors;
static struct {
    const doc *d;
    const anchors *an;
    size_t at;
} page;

static const char *link_target(const char *heading);

static void
html_text(FILE *out, const doc_run *r)
{
    const char *id = r->ref ? link_target(r->ref) : NULL;

    if (id)
        fprintf(out, "<a href=\"#%s\">", id);
    esc(out, r->text);
    if (id)
        fputs("</a>", out);
}

static const doc_markup html_markup = {
    {"", "<strong>", "<code>"}, {"", "</strong>", "</code>"}, html_text};

static void
html_inline(FILE *out, const doc_inline *in)
{
    doc_print_runs(out, in, &html_markup);
}

/* The text of runs as shown (cli_esc), in one new string; NULL if a run
 * is bold or code and only_plain is set. */
static char *
runs_text(const doc_inline *in, int only_plain)
{
    char *s = cli_xstrdup(""), *t;
    size_t i, n = 0, k;

    for (i = 0; i < in->n; i++) {
        if (only_plain && in->v[i].style != DOC_PLAIN) {
            free(s);
            return NULL;
        }
        t = cli_esc_dup(in->v[i].text);
        k = strlen(t);
        s = cli_xrealloc(s, n + k + 1);
        memcpy(s + n, t, k + 1);
        n += k;
        free(t);
    }
    return s;
}

/* A cell; a long path (over CELL_MAX bytes, with a '/') is shortened to
 * its last CELL_MAX bytes from a '/', the whole on hover, so that wide
 * tables keep their figures on screen; other long text (a sys.version,
 * configure arguments) to its start.  Bold or code is shown whole (no
 * markup goes into a title attribute). */
#define CELL_MAX 48

/* Cell text as shown: a long word (a qualified name, a module) may
 * break after each '.' and ':' (<wbr>), so that a narrow column wraps
 * it there rather than inside a name. */
#define WBR_MIN 16

static void
cell_text(FILE *out, const char *s, size_t n)
{
    size_t i, from = 0, word = 0, end;

    for (i = 0; i < n; i++) {
        if (s[i] == ' ') {
            word = i + 1;
            continue;
        }
        if ((s[i] != '.' && s[i] != ':') || i + 1 == n || s[i + 1] == ' ')
            continue;
        for (end = i; end < n && s[end] != ' '; end++)
            ;
        if (end - word < WBR_MIN)
            continue;
        esc_n(out, s + from, i + 1 - from);
        fputs("<wbr>", out);
        from = i + 1;
    }
    esc_n(out, s + from, n - from);
}

/* Text over 2 * CELL_MAX bytes cut to its start, at a space if one is
 * near, the whole on hover. */
static void
short_start(FILE *out, const char *s, size_t n)
{
    size_t cut;

    if (n <= 2 * CELL_MAX) {
        cell_text(out, s, n);
        return;
    }
    for (cut = 2 * CELL_MAX; cut > CELL_MAX && s[cut] != ' '; cut--)
        ;
    fputs("<span class=\"short\" title=\"", out);
    esc_n(out, s, n);
    fputs("\">", out);
    esc_n(out, s, cut);
    fputs("\u2026</span>", out);
}

static void
short_cell(FILE *out, const char *s, size_t n)
{
    size_t cut;

    if (n <= CELL_MAX) {
        cell_text(out, s, n);
        return;
    }
    if (memchr(s, '/', n) == NULL) {
        short_start(out, s, n);
        return;
    }
    for (cut = n - CELL_MAX; cut < n && s[cut] != '/'; cut++)
        ;
    if (cut >= n) {
        cell_text(out, s, n);
        return;
    }
    fputs("<span class=\"short\" title=\"", out);
    esc_n(out, s, n);
    fputs("\">\u2026", out);
    cell_text(out, s + cut, n - cut);
    fputs("</span>", out);
}

static void
cell_html(FILE *out, const doc_tcell *c)
{
    char *s = runs_text(&c->in, 1);

    if (s == NULL) {
        html_inline(out, &c->in);
        return;
    }
    short_cell(out, s, strlen(s));
    free(s);
}

/* A run of a cell of a table of labelled rows: text from the inputs
 * shortened run by run (a build's configure arguments among its other
 * keys), free text to its start, a path to its end. */
static void
label_row_text(FILE *out, const doc_run *r)
{
    char *t;
    size_t n;

    if (!r->input || r->ref) {
        html_text(out, r);
        return;
    }
    t = cli_esc_dup(r->text);
    n = strlen(t);
    if (memchr(t, ' ', n))
        short_start(out, t, n);
    else
        short_cell(out, t, n);
    free(t);
}

static const doc_markup label_row_markup = {
    {"", "<strong>", "<code>"}, {"", "</strong>", "</code>"}, label_row_text};

/* A table of labelled rows: an empty first header cell over the labels,
 * the other columns headed (compare's Base and Head).  Its labels stay
 * on one line and its long values are shortened, so that every column
 * stays in the window. */
static int
label_rows(const doc_block *b)
{
    size_t k;

    if (b->head.n < 2 || b->head.v[0].in.n > 0)
        return 0;
    for (k = 1; k < b->head.n; k++)
        if (b->head.v[k].in.n == 0)
            return 0;
    return 1;
}

static void
html_table(FILE *out, const doc_block *b)
{
    size_t i, k, ncols = b->head.n;
    int labels = label_rows(b);

#define RIGHT(k) ((k) < b->ncols && b->align[k] == 'r')
    fputs(labels ? "<div class=\"tw\"><table class=\"sortable rows\"><thead><tr>"
                 : "<div class=\"tw\"><table class=\"sortable\"><thead><tr>",
          out);
    for (k = 0; k < ncols; k++) {
        fputs(RIGHT(k) ? "<th class=\"n\" title=\"sort\">" : "<th title=\"sort\">", out);
        html_inline(out, &b->head.v[k].in);
        fputs("</th>", out);
    }
    fputs("</tr></thead><tbody>\n", out);
    for (i = 0; i < b->nrows; i++) {
        const doc_row *r = &b->rows[i];
        fputs("<tr>", out);
        for (k = 0; k < r->n && k < ncols; k++) {
            fputs(RIGHT(k) ? "<td class=\"n\">" : "<td>", out);
            if (labels && k > 0)
                doc_print_runs(out, &r->v[k].in, &label_row_markup);
            else
                cell_html(out, &r->v[k]);
            fputs("</td>", out);
        }
        for (; k < ncols; k++)
            fputs("<td></td>", out);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div>\n", out);
#undef RIGHT
}

/* Section anchors: the heading's words ("pair-counts"), under a group
 * its number first ("g2-pair-counts"), made unique with -2, -3 ... */
struct anchors {
    char (*id)[96]; /* per block of the document (headings only) */
    size_t n;
    int group;
};

static void
anchor_make(anchors *a, size_t at, const doc_block *h)
{
    char base[80], *text = runs_text(&h->in, 0), *p, *out = a->id[at];
    size_t k = 0, i, dup = 0, size = sizeof a->id[0];
    int dash = 0;

    if (h->level == 2)
        a->group = h->group;
    if (a->group && h->level > 2)
        k = (size_t)snprintf(base, sizeof base, "g%d-", a->group);
    for (p = text; *p && k + 1 < sizeof base; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            base[k++] = (char)c;
            dash = 0;
        }
        else if (c >= 'A' && c <= 'Z') {
            base[k++] = (char)(c - 'A' + 'a');
            dash = 0;
        }
        else if (!dash && k > 0 && base[k - 1] != '-') {
            base[k++] = '-';
            dash = 1;
        }
    }
    free(text);
    while (k > 0 && base[k - 1] == '-')
        k--;
    base[k] = '\0';
    if (k == 0)
        snprintf(base, sizeof base, "section");
    snprintf(out, size, "%s", base);
    for (i = 0; i < at; i++)
        if (a->id[i][0] && strcmp(a->id[i], out) == 0) {
            snprintf(out, size, "%s-%zu", base, ++dup + 1);
            i = (size_t)-1; /* again from the start */
        }
}

/* The anchor of the first heading reading `heading` after the block
 * being printed, before the next group's heading; NULL if none (the
 * run is then plain text). */
static const char *
link_target(const char *heading)
{
    size_t j;

    for (j = page.at + 1; page.d && j < page.d->n; j++) {
        const doc_block *b = &page.d->b[j];
        char *text;
        int same;
        if (b->kind != DOC_HEADING)
            continue;
        if (b->level == 2 && b->group)
            return NULL;
        text = runs_text(&b->in, 0);
        same = strcmp(text, heading) == 0;
        free(text);
        if (same)
            return page.an->id[j];
    }
    return NULL;
}

/* Every heading's anchor, once: the headings and the contents use it. */
static void
anchors_make(anchors *a, const doc *d)
{
    size_t i;

    a->id = cli_xcalloc(d->n ? d->n : 1, sizeof *a->id);
    a->n = d->n;
    a->group = 0;
    for (i = 0; i < d->n; i++)
        if (d->b[i].kind == DOC_HEADING)
            anchor_make(a, i, &d->b[i]);
}

/* A table of contents of the h2 and h3 headings, linked to their
 * anchors; what a folded section holds is not listed. */
static void
toc(FILE *out, const doc *d, const anchors *a)
{
    size_t i;
    int open3 = 0, hidden = 0;

    fputs("<nav class=\"toc\"><b>Contents</b>\n<ul>\n", out);
    for (i = 0; i < d->n; i++) {
        const doc_block *h = &d->b[i];
        if (h->kind != DOC_HEADING)
            continue;
        if (hidden && h->level <= hidden)
            hidden = 0;
        if (h->level < 2 || h->level > 3 || hidden)
            continue;
        if (h->fold)
            hidden = h->level;
        if (h->level == 2 && open3) {
            fputs("</ul></li>\n", out);
            open3 = 0;
        }
        if (h->level == 3 && !open3) {
            fputs("<li><ul>\n", out);
            open3 = 1;
        }
        fprintf(out, "<li><a href=\"#%s\">", a->id[i]);
        html_inline(out, &h->in);
        fputs("</a></li>\n", out);
    }
    if (open3)
        fputs("</ul></li>\n", out);
    fputs("</ul></nav>\n", out);
}

static void
html_block(FILE *out, const doc_block *b, const char *sec, int level)
{
    size_t k;

    switch (b->kind) {
    case DOC_PARA:
        fputs("<p>", out);
        html_inline(out, &b->in);
        fputs("</p>\n", out);
        break;
    case DOC_LIST:
        fputs("<ul>\n", out);
        for (k = 0; k < b->nitems; k++) {
            fputs("<li>", out);
            html_inline(out, &b->items[k]);
            fputs("</li>\n", out);
        }
        fputs("</ul>\n", out);
        break;
    case DOC_TABLE:
        html_table(out, b);
        break;
    case DOC_FIGURE:
        doc_chart(out, b, sec, level);
        break;
    default:
        break;
    }
}

/* The document as the page's body: headings with anchors, the contents
 * after the title, folded sections in <details>. */
static void
html_doc(FILE *out, const doc *d)
{
    anchors an;
    size_t i, sec = 0;    /* the heading of the section */
    int open_details = 0; /* level of the open <details>, 0: none */

    anchors_make(&an, d);
    page.d = d;
    page.an = &an;
    for (i = 0; i < d->n; i++) {
        const doc_block *b = &d->b[i];
        page.at = i;
        if (b->kind != DOC_HEADING) {
            html_block(out, b, an.id[sec], d->b[sec].kind == DOC_HEADING ? d->b[sec].level : 1);
            continue;
        }
        sec = i;
        if (open_details && b->level <= open_details) {
            fputs("</details>\n", out);
            open_details = 0;
        }
        fprintf(out, "<h%d id=\"%s\">", b->level, an.id[i]);
        html_inline(out, &b->in);
        fprintf(out, "</h%d>\n", b->level);
        if (b->level == 1)
            toc(out, d, &an);
        if (b->fold) {
            fputs("<details><summary>Show the tables</summary>\n", out);
            open_details = b->level;
        }
    }
    if (open_details)
        fputs("</details>\n", out);
    page.d = NULL;
    free(an.id);
}

/* ---- summarize --html and compare --html ------------------------------------- */

/* The page of document d, which is freed. */
static int
html_page_free(FILE *out, const char *title, doc *d)
{
    page_begin(out, title, d);
    html_doc(out, d);
    page_end(out);
    doc_free(d);
    return ferror(out) ? -1 : 0;
}

int
report_html(FILE *out, const summary *s)
{
    doc d;

    doc_init(&d);
    report_doc(&d, s);
    return html_page_free(out, "pystats summary", &d);
}

int
cmp_report_html(FILE *out, const cmp *c)
{
    doc d;

    doc_init(&d);
    cmp_report_doc(&d, c);
    return html_page_free(out, "pystats comparison", &d);
}

int
cmp_suite_report_html(FILE *out, const cmp_suite *cs)
{
    doc d;

    doc_init(&d);
    cmp_suite_doc(&d, cs);
    return html_page_free(out, "pystats comparison by benchmark", &d);
}
