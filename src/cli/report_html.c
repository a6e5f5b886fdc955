/* report_html.c: the HTML reports (see report_html.h). */
#include "report_html.h"

#include "annotate.h"
#include "cli.h"
#include "doc.h"
#include "model.h"
#include "../format/psf_key.h"

#include <math.h>
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
    "th,td{border:1px solid #d8dee4;padding:2px 8px;text-align:left;white-space:nowrap}\n"
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
    "span.short{border-bottom:1px dotted #8c959f}\n"
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

/* A source view's functions are styled as annotate's page styles them,
 * under this class, which holds them: neither style reaches the other. */
#define SRCVIEW "srcview"

static int
has_figure(const doc *d, int figure)
{
    size_t i;

    for (i = 0; i < d->n; i++)
        if (d->b[i].kind == DOC_FIGURE && d->b[i].figure == figure)
            return 1;
    return 0;
}

static void
page_begin(FILE *out, const char *title, const doc *d)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    esc(out, title);
    fprintf(out, "</title>\n<style>\n%s", css);
    if (has_figure(d, DOC_FIG_SOURCE)) {
        annotate_html_css(out, "div." SRCVIEW);
        fputc('\n', out);
    }
    fputs("</style>\n</head><body><main>\n", out);
}

static void
page_end(FILE *out)
{
    fprintf(out, "</main>\n<script>\n%s</script>\n</body></html>\n", js);
}

/* ---- charts -------------------------------------------------------------- */

static const char *const palette[] = {
    "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d4a6c8", "#8cd17d",
};
#define NPAL (sizeof palette / sizeof palette[0])
#define BASE_COLOR "#4e79a7"

/* log2(x) for x >= 1, close enough for a colour scale (no libm). */
static double
log2_approx(double x)
{
    double e = 0;

    if (x < 1)
        return 0;
    while (x >= 2) {
        x /= 2;
        e += 1;
    }
    x -= 1;
    return e + x * (1.3465735903 - 0.3465735903 * x);
}

typedef struct form {
    const m_op *op;
} form;

static int
form_cmp(const void *pa, const void *pb)
{
    const m_op *a = *(const m_op *const *)pa, *b = *(const m_op *const *)pb;
    int sa = model_is_specialized(a), sb = model_is_specialized(b);

    if (sa != sb)
        return sa - sb;
    if (a->exec != b->exec)
        return a->exec > b->exec ? -1 : 1;
    return strcmp(a->name, b->name);
}

#define EXEC_TOP 25

static void
chart_exec(FILE *out, const m_group *g)
{
    m_list fam = {0};
    const m_op **forms;
    size_t i, j, nf, nfam, k;
    uint64_t max;
    const double lw = 210, bw = 600, rh = 22;
    char c[32];

    for (i = 0; i < g->ops.n; i++)
        if (g->ops.v[i].has_exec && g->ops.v[i].exec)
            m_list_add(&fam, g->ops.v[i].family, strlen(g->ops.v[i].family), g->ops.v[i].exec);
    if (fam.n == 0 || g->total_exec == 0) {
        free(fam.v);
        return;
    }
    m_list_sort(&fam);
    nfam = fam.n < EXEC_TOP ? fam.n : EXEC_TOP;
    max = fam.v[0].n;
    forms = cli_xcalloc(g->ops.n, sizeof *forms);
    fprintf(out,
            "<svg class=\"chart\" data-chart=\"exec\" viewBox=\"0 0 960 %.0f\" "
            "role=\"img\" aria-label=\"Execution counts of the %zu most executed families\">\n",
            nfam * rh + 8, nfam);
    for (i = 0; i < nfam; i++) {
        double x = lw;
        nf = 0;
        for (j = 0; j < g->ops.n; j++)
            if (g->ops.v[j].has_exec && g->ops.v[j].exec &&
                strcmp(g->ops.v[j].family, fam.v[i].name) == 0)
                forms[nf++] = &g->ops.v[j];
        qsort(forms, nf, sizeof *forms, form_cmp);
        fprintf(out, "<g class=\"bar\" data-family=\"");
        esc(out, fam.v[i].name);
        fprintf(out,
                "\" data-count=\"%llu\" transform=\"translate(0,%.0f)\">"
                "<text x=\"%.0f\" y=\"15\" text-anchor=\"end\">",
                (unsigned long long)fam.v[i].n, i * rh + 4, lw - 6);
        esc(out, fam.v[i].name);
        fputs("</text>", out);
        for (j = 0, k = 0; j < nf; j++) {
            double w = bw * (double)forms[j]->exec / (double)max;
            int spec = model_is_specialized(forms[j]);
            cli_count_str(c, sizeof c, forms[j]->exec);
            fprintf(out,
                    "<rect class=\"seg\" x=\"%.2f\" y=\"3\" width=\"%.2f\" height=\"16\" "
                    "fill=\"%s\" data-name=\"",
                    x, w, spec ? palette[k++ % NPAL] : BASE_COLOR);
            esc(out, forms[j]->name);
            fprintf(out, "\" data-count=\"%llu\"><title>", (unsigned long long)forms[j]->exec);
            esc(out, forms[j]->name);
            fprintf(out, "%s: %s (%.1f%% of the family)</title></rect>",
                    spec ? " (specialized)" : "", c,
                    100.0 * (double)forms[j]->exec / (double)fam.v[i].n);
            x += w;
        }
        cli_count_str(c, sizeof c, fam.v[i].n);
        fprintf(out, "<text class=\"val\" x=\"%.2f\" y=\"15\">%s (%.1f%%)</text></g>\n", x + 6, c,
                100.0 * (double)fam.v[i].n / (double)g->total_exec);
    }
    /* The legend names only what the chart shows: collector dumps count
     * base instructions, with no specialized forms to stack. */
    for (i = 0, k = 0; i < g->ops.n && !k; i++)
        k = g->ops.v[i].exec && model_is_specialized(&g->ops.v[i]);
    fputs("</svg>\n<p class=\"legend\">The most executed families, each bar its "
          "executions and share of all instructions:<i style=\"background:" BASE_COLOR
          "\"></i>base instruction",
          out);
    if (k)
        fputs("<i style=\"background:#f28e2b\"></i>specialized forms, stacked within their "
              "family (hover a segment for its name and count)",
              out);
    fputs("</p>\n", out);
    free(forms);
    for (i = 0; i < fam.n; i++)
        free(fam.v[i].name);
    free(fam.v);
}

#define HEAT_TOP 20

static void
chart_pairs(FILE *out, const m_group *g)
{
    m_list top = {0};
    size_t i, j, n;
    uint64_t max = 0;
    const double cs = 24, left = 230, topm = 160;
    char c[32];

    if (!g->has_pairs)
        return;
    for (i = 0; i < g->ops.n; i++)
        if (g->ops.v[i].has_exec && g->ops.v[i].exec)
            m_list_add(&top, g->ops.v[i].name, strlen(g->ops.v[i].name), g->ops.v[i].exec);
    m_list_sort(&top);
    n = top.n < HEAT_TOP ? top.n : HEAT_TOP;
    for (i = 0; i < n; i++) {
        const m_op *a = model_op(g, top.v[i].name);
        for (j = 0; j < n; j++) {
            uint64_t v = m_list_get(&a->succ, top.v[j].name);
            if (v > max)
                max = v;
        }
    }
    if (n == 0 || max == 0)
        goto done;
    fprintf(out,
            "<svg class=\"chart\" data-chart=\"pairs\" viewBox=\"0 0 %.0f %.0f\" "
            "role=\"img\" aria-label=\"Pair counts among the %zu most executed instructions: "
            "rows are the first instruction, columns the next\">\n",
            left + n * cs + 140, topm + n * cs + 10, n);
    for (j = 0; j < n; j++) {
        fprintf(out, "<text class=\"col\" transform=\"translate(%.1f,%.1f) rotate(-60)\">",
                left + j * cs + cs / 2 + 4, topm - 6);
        esc(out, top.v[j].name);
        fputs("</text>", out);
    }
    fputc('\n', out);
    for (i = 0; i < n; i++) {
        const m_op *a = model_op(g, top.v[i].name);
        uint64_t st = 0;
        for (j = 0; j < a->succ.n; j++)
            st += a->succ.v[j].n;
        fprintf(out, "<text class=\"row\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 6,
                topm + i * cs + cs / 2 + 4);
        esc(out, top.v[i].name);
        fputs("</text>", out);
        for (j = 0; j < n; j++) {
            uint64_t v = m_list_get(&a->succ, top.v[j].name);
            char fill[16];
            if (v) {
                double t = log2_approx((double)v + 1) / log2_approx((double)max + 1);
                /* #deebf7 (few) to #08306b (most) */
                int r = (int)(0xde + (0x08 - 0xde) * t), gg = (int)(0xeb + (0x30 - 0xeb) * t),
                    b = (int)(0xf7 + (0x6b - 0xf7) * t);
                snprintf(fill, sizeof fill, "#%02x%02x%02x", r & 255, gg & 255, b & 255);
            }
            else {
                snprintf(fill, sizeof fill, "#f6f8fa");
            }
            cli_count_str(c, sizeof c, v);
            fprintf(out,
                    "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" "
                    "fill=\"%s\" data-from=\"",
                    left + j * cs, topm + i * cs, cs - 1, cs - 1, fill);
            esc(out, top.v[i].name);
            fputs("\" data-to=\"", out);
            esc(out, top.v[j].name);
            fprintf(out, "\" data-count=\"%llu\"><title>", (unsigned long long)v);
            esc(out, top.v[i].name);
            fputs(" \xe2\x86\x92 ", out);
            esc(out, top.v[j].name);
            fprintf(out, ": %s", c);
            if (st)
                fprintf(out, " (%.1f%% of what follows ", 100.0 * (double)v / (double)st);
            if (st) {
                esc(out, top.v[i].name);
                fputc(')', out);
            }
            fputs("</title></rect>", out);
        }
        fputc('\n', out);
    }
    cli_count_str(c, sizeof c, max);
    fprintf(out,
            "</svg>\n<p class=\"legend\">Rows: an instruction; columns: the instruction "
            "that ran next (the %zu most executed). Scale (log): "
            "<i style=\"background:#f6f8fa;border:1px solid #d0d7de\"></i>0"
            "<i style=\"background:#deebf7\"></i>1 to "
            "<i style=\"background:#08306b\"></i><span class=\"scale-max\">%s</span> pairs, "
            "darker is more; hover a cell for its count.</p>\n",
            n, c);
done:
    for (i = 0; i < top.n; i++)
        free(top.v[i].name);
    free(top.v);
}

static int
spec_op_cmp(const void *pa, const void *pb)
{
    const m_op *a = *(const m_op *const *)pa, *b = *(const m_op *const *)pb;
    uint64_t x = a->spec[PSF_SPEC_HIT] + a->spec[PSF_SPEC_MISS] + a->exec;
    uint64_t y = b->spec[PSF_SPEC_HIT] + b->spec[PSF_SPEC_MISS] + b->exec;

    if (x != y)
        return x > y ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void
seg(FILE *out, double *x, double w, const char *fill, const char *fam, const char *kind, uint64_t n,
    uint64_t total, const char *what)
{
    char c[32];

    cli_count_str(c, sizeof c, n);
    fprintf(out,
            "<rect class=\"seg\" x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"14\" fill=\"%s\" "
            "data-family=\"",
            *x, w, fill);
    esc(out, fam);
    fputs("\" data-kind=\"", out);
    esc(out, kind);
    fprintf(out, "\" data-count=\"%llu\"><title>", (unsigned long long)n);
    esc(out, fam);
    fputs(" ", out);
    esc(out, kind);
    fprintf(out, ": %s (%.1f%% of %s)</title></rect>", c, 100.0 * (double)n / (double)total, what);
    *x += w;
}

#define SPEC_TOP 30

static void
chart_spec(FILE *out, const m_group *g)
{
    const m_op **ops = cli_xcalloc(g->ops.n ? g->ops.n : 1, sizeof *ops);
    size_t n = 0, i, k;
    const double lw = 210, bw = 480, rh = 40;
    static const char *const fail_col[] = {"#e15759", "#ff9da7", "#b3363a",
                                           "#f1a07e", "#d37295", "#9c2f2f"};

    for (i = 0; i < g->ops.n; i++) {
        const m_op *op = &g->ops.v[i];
        if (op->specializable && op->has_spec &&
            op->spec[PSF_SPEC_HIT] + op->spec[PSF_SPEC_MISS] + op->spec[PSF_SPEC_DEFERRED] +
                    op->spec[PSF_SPEC_SUCCESS] + op->spec[PSF_SPEC_FAILURE] >
                0)
            ops[n++] = op;
    }
    if (n == 0) {
        free(ops);
        return;
    }
    qsort(ops, n, sizeof *ops, spec_op_cmp);
    if (n > SPEC_TOP)
        n = SPEC_TOP;
    fprintf(out,
            "<svg class=\"chart\" data-chart=\"spec\" viewBox=\"0 0 960 %.0f\" role=\"img\" "
            "aria-label=\"Specialization outcomes per family\">\n",
            n * rh + 8);
    for (i = 0; i < n; i++) {
        const m_op *op = ops[i];
        uint64_t hit = op->spec[PSF_SPEC_HIT], miss = op->spec[PSF_SPEC_MISS],
                 def = op->spec[PSF_SPEC_DEFERRED], out3 = hit + miss + def;
        uint64_t succ = op->spec[PSF_SPEC_SUCCESS], fail = op->spec[PSF_SPEC_FAILURE], sf,
                 named = 0;
        double x;

        /* CPython may count more failure kinds than failures (a kind per
         * attempt of a nested specialization): the bar covers both. */
        for (k = 0; k < op->fail.n; k++)
            named += op->fail.v[k].n;
        if (named > fail)
            fail = named;
        sf = succ + fail;
        named = 0;
        fputs("<g class=\"fam\" data-family=\"", out);
        esc(out, op->name);
        fprintf(out,
                "\" transform=\"translate(0,%.0f)\"><text x=\"%.0f\" y=\"12\" "
                "text-anchor=\"end\">",
                i * rh + 4, lw - 6);
        esc(out, op->name);
        fputs("</text>", out);
        fprintf(out, "<g class=\"outcomes\" transform=\"translate(0,1)\">");
        if (out3) {
            x = lw;
            seg(out, &x, bw * (double)hit / (double)out3, "#59a14f", op->name, "hit", hit, out3,
                "hit + miss + deferred");
            seg(out, &x, bw * (double)miss / (double)out3, "#e15759", op->name, "miss", miss, out3,
                "hit + miss + deferred");
            seg(out, &x, bw * (double)def / (double)out3, "#edc948", op->name, "deferred", def,
                out3, "hit + miss + deferred");
            fprintf(out,
                    "<text class=\"val\" x=\"%.0f\" y=\"11\">hit %.1f%%, miss %.1f%%, "
                    "deferred %.1f%%</text>",
                    lw + bw + 6, 100.0 * (double)hit / (double)out3,
                    100.0 * (double)miss / (double)out3, 100.0 * (double)def / (double)out3);
        }
        fputs("</g><g class=\"attempts\" transform=\"translate(0,18)\">", out);
        if (sf) {
            char what[] = "specialization attempts";
            x = lw;
            seg(out, &x, bw * (double)succ / (double)sf, "#4e79a7", op->name, "success", succ, sf,
                what);
            for (k = 0; k < op->fail.n; k++) {
                char kind[160];
                snprintf(kind, sizeof kind, "failure: %s", op->fail.v[k].name);
                seg(out, &x, bw * (double)op->fail.v[k].n / (double)sf,
                    fail_col[k % (sizeof fail_col / sizeof fail_col[0])], op->name, kind,
                    op->fail.v[k].n, sf, what);
                named += op->fail.v[k].n;
            }
            if (fail > named)
                seg(out, &x, bw * (double)(fail - named) / (double)sf, "#e15759", op->name,
                    "failure", fail - named, sf, what);
            fprintf(out,
                    "<text class=\"val\" x=\"%.0f\" y=\"11\">success %.1f%% of %llu "
                    "attempts</text>",
                    lw + bw + 6, 100.0 * (double)succ / (double)sf, (unsigned long long)sf);
        }
        fputs("</g></g>\n", out);
    }
    fputs("</svg>\n<p class=\"legend\">Per family, top bar: <i style=\"background:#59a14f\"></i>hit"
          "<i style=\"background:#e15759\"></i>miss<i style=\"background:#edc948\"></i>deferred; "
          "bottom bar: <i style=\"background:#4e79a7\"></i>specialization success, then the "
          "failures by kind (hover for the kind).</p>\n",
          out);
    free(ops);
}

/* ---- compare --html --------------------------------------------------------- */

#define DIV_TOP 20

/* The change a section's chart shows, in the unit of its table. */
static double
div_value(const cmp_section *s, const cmp_row *r, const char **unit)
{
    if (s->kind == CMP_SHARE) {
        *unit = " pp";
        return r->change * 100.0;
    }
    if (s->normalized) {
        /* Counts per million instructions; a count that did not change
         * has no bar, whatever its share did. */
        if (r->has_base && r->has_head && r->base_n == r->head_n) {
            *unit = " /M";
            return 0;
        }
        *unit = " /M";
        return r->change_pm;
    }
    *unit = "";
    return r->change;
}

/* Room for the values right of the longest bar, in SVG units. */
#define DIV_VALUE_WIDTH 130

/* The width of the label column of a diverging chart: room for its
 * longest name at the chart's 12px font (7.2 units a character covers
 * the widest common glyphs of system-ui; a multi-byte character counts
 * once), at least 240, so that no label is clipped on the left. */
static double
chart_label_width(const cmp_row *const *rows, size_t n)
{
    size_t i, longest = 0;

    for (i = 0; i < n; i++) {
        size_t chars = 0;
        const unsigned char *p;
        for (p = (const unsigned char *)rows[i]->name; *p; p++)
            chars += (*p & 0xC0) != 0x80;
        if (chars > longest)
            longest = chars;
    }
    return longest * 7.2 + 12 > 240 ? longest * 7.2 + 12 : 240;
}

static void
chart_diverging(FILE *out, const cmp_section *s)
{
    const cmp_row *rows[DIV_TOP];
    size_t n = 0, i;
    double max = 0, v;
    const char *unit = "";
    const double half = 300, rh = 20;
    double lw, mid;
    /* Counts change by whole numbers, shares in points to 2 decimals,
     * figures per million instructions to 1. */
    int decimals = s->kind == CMP_SHARE ? 2 : s->normalized ? 1 : 0;

    for (i = 0; i < s->n && n < DIV_TOP; i++) {
        v = div_value(s, &s->rows[i], &unit);
        if (s->rows[i].folded || isnan(v) || isinf(v) || v == 0)
            continue;
        rows[n++] = &s->rows[i];
        if (fabs(v) > max)
            max = fabs(v);
    }
    if (n == 0 || max == 0)
        return;
    lw = chart_label_width(rows, n);
    mid = lw + half + 10;
    fprintf(out,
            "<svg class=\"chart\" data-chart=\"diverging\" data-section=\"%s\" "
            "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"Largest changes: %s\">\n",
            s->name, mid + half + DIV_VALUE_WIDTH, n * rh + 14, s->title);
    fprintf(out, "<line class=\"axis\" x1=\"%.0f\" x2=\"%.0f\" y1=\"0\" y2=\"%.0f\"/>\n", mid, mid,
            n * rh + 10);
    for (i = 0; i < n; i++) {
        double w, x;
        char val[64];
        v = div_value(s, rows[i], &unit);
        w = half * fabs(v) / max;
        x = v < 0 ? mid - w : mid;
        snprintf(val, sizeof val, "%+.*f%s", decimals, v, unit);
        fprintf(out,
                "<g transform=\"translate(0,%.0f)\"><text x=\"%.0f\" y=\"13\" "
                "text-anchor=\"end\">",
                i * rh + 4, lw - 6);
        esc(out, rows[i]->name);
        fprintf(out,
                "</text><rect class=\"div\" x=\"%.2f\" y=\"2\" width=\"%.2f\" height=\"14\" "
                "fill=\"%s\" data-name=\"",
                x, w, v < 0 ? "#e15759" : "#4e79a7");
        esc(out, rows[i]->name);
        fprintf(out, "\" data-change=\"%.6g\"><title>", v);
        esc(out, rows[i]->name);
        fprintf(out, ": %s (%.1f%% of the section's change)</title></rect>", val,
                rows[i]->weight * 100.0);
        fprintf(out, "<text class=\"val\" x=\"%.0f\" y=\"13\"%s>%s</text></g>\n",
                v < 0 ? mid + 6 : mid + w + 6, "", val);
    }
    fputs("</svg>\n", out);
    fprintf(out,
            "<p class=\"legend\">The %zu largest changes%s: "
            "<i style=\"background:#4e79a7\"></i>up<i style=\"background:#e15759\"></i>down.</p>\n",
            n,
            s->kind == CMP_SHARE ? ", in percentage points"
            : s->normalized      ? " per million instructions executed on each side (a count that "
                                   "did not change has no bar)"
                                 : ", in counts");
}

/* ---- the source view --------------------------------------------------------- */

/* The REPORT_SOURCE_TOP hottest functions of g with per-line counts, each
 * as annotate's page prints it (annotate.h), a level under the section's
 * heading (at level, anchor sec), their ids under sec. */
static void
source_view(FILE *out, const m_group *g, const char *sec, int level)
{
    /* A report is made to be shared: its texts are the dumps' own copies
     * of the source, never a file the dumps name (a crafted dump could
     * name any file the reader can read). */
    annotate_opts o = {.top = REPORT_SOURCE_TOP, .anchor = *sec ? sec : NULL, .dump_text_only = 1};
    annotate a;
    size_t i;

    annotate_build(&a, g, &o);
    fputs("<div class=\"" SRCVIEW "\">\n", out);
    annotate_html_legend(out, &a);
    for (i = 0; i < a.nfn; i++)
        annotate_html_fn(out, &a, i, level < 6 ? level + 1 : 6);
    fputs("</div>\n", out);
    annotate_free(&a);
}

/* ---- the document ----------------------------------------------------------- */

static void
html_text(FILE *out, const doc_run *r)
{
    esc(out, r->text);
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

static void
short_cell(FILE *out, const char *s, size_t n)
{
    size_t cut;

    if (n <= CELL_MAX) {
        esc_n(out, s, n);
        return;
    }
    if (memchr(s, '/', n) == NULL) {
        if (n <= 2 * CELL_MAX) {
            esc_n(out, s, n);
            return;
        }
        for (cut = 2 * CELL_MAX; cut > CELL_MAX && s[cut] != ' '; cut--)
            ;
        fputs("<span class=\"short\" title=\"", out);
        esc_n(out, s, n);
        fputs("\">", out);
        esc_n(out, s, cut);
        fputs("\u2026</span>", out);
        return;
    }
    for (cut = n - CELL_MAX; cut < n && s[cut] != '/'; cut++)
        ;
    if (cut >= n) {
        esc_n(out, s, n);
        return;
    }
    fputs("<span class=\"short\" title=\"", out);
    esc_n(out, s, n);
    fputs("\">\u2026", out);
    esc_n(out, s + cut, n - cut);
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

static void
html_table(FILE *out, const doc_block *b)
{
    size_t i, k, ncols = b->head.n;

#define RIGHT(k) ((k) < b->ncols && b->align[k] == 'r')
    fputs("<div class=\"tw\"><table class=\"sortable\"><thead><tr>", out);
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
typedef struct anchors {
    char (*id)[96]; /* per block of the document (headings only) */
    size_t n;
    int group;
} anchors;

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

/* Figure b of the section whose heading is at level, anchor sec. */
static void
html_figure(FILE *out, const doc_block *b, const char *sec, int level)
{
    switch (b->figure) {
    case DOC_FIG_VERDICT:
        fprintf(out, "<p class=\"verdict\">Verdict: <span class=\"badge %s\">%s</span></p>\n",
                (const char *)b->data, (const char *)b->data);
        break;
    case DOC_FIG_EXEC:
        chart_exec(out, b->data);
        break;
    case DOC_FIG_PAIRS:
        chart_pairs(out, b->data);
        break;
    case DOC_FIG_SPEC:
        chart_spec(out, b->data);
        break;
    case DOC_FIG_DIVERGING:
        chart_diverging(out, b->data);
        break;
    case DOC_FIG_SOURCE:
        source_view(out, b->data, sec, level);
        break;
    default:
        break;
    }
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
        html_figure(out, b, sec, level);
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
    for (i = 0; i < d->n; i++) {
        const doc_block *b = &d->b[i];
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
