/* doc_chart.c: the page's figures of a document (doc.h), as SVG: the
 * verdict badge, the execution counts by family, the pair heatmap, the
 * specialization outcomes (each drawn from its own series, doc_fig), a
 * comparison's largest changes, and the hottest functions' source as
 * annotate's page shows them.  Each chart carries its figures as data-*
 * attributes and <title> tooltips, so the numbers are readable (and
 * testable) without the pictures. */
#include "doc_chart.h"

#include "annotate.h"
#include "cli.h"
#include "compare.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
esc(FILE *out, const char *s)
{
    cli_fput_html_esc(out, s);
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

static void
chart_exec(FILE *out, const doc_fig *f)
{
    size_t i, j, k;
    uint64_t max;
    const double lw = 210, bw = 600, rh = 22;
    char c[32];

    if (f->nrow == 0)
        return;
    max = f->row[0].n;
    fprintf(out,
            "<svg class=\"chart\" data-chart=\"exec\" viewBox=\"0 0 960 %.0f\" "
            "role=\"img\" aria-label=\"Execution counts of the %zu most executed families\">\n",
            f->nrow * rh + 8, f->nrow);
    for (i = 0; i < f->nrow; i++) {
        const doc_fig_row *r = &f->row[i];
        double x = lw;
        fprintf(out, "<g class=\"bar\" data-family=\"");
        esc(out, r->name);
        fprintf(out,
                "\" data-count=\"%llu\" transform=\"translate(0,%.0f)\">"
                "<text x=\"%.0f\" y=\"15\" text-anchor=\"end\">",
                (unsigned long long)r->n, i * rh + 4, lw - 6);
        esc(out, r->name);
        fputs("</text>", out);
        for (j = 0, k = 0; j < r->npart; j++) {
            const doc_fig_part *p = &r->part[j];
            double w = bw * (double)p->n / (double)max;
            cli_count_str(c, sizeof c, p->n);
            fprintf(out,
                    "<rect class=\"seg\" x=\"%.2f\" y=\"3\" width=\"%.2f\" height=\"16\" "
                    "fill=\"%s\" data-name=\"",
                    x, w, p->flag ? palette[k++ % NPAL] : BASE_COLOR);
            esc(out, p->name);
            fprintf(out, "\" data-count=\"%llu\"><title>", (unsigned long long)p->n);
            esc(out, p->name);
            fprintf(out, "%s: %s (%.1f%% of the family)</title></rect>",
                    p->flag ? " (specialized)" : "", c, 100.0 * (double)p->n / (double)r->n);
            x += w;
        }
        cli_count_str(c, sizeof c, r->n);
        fprintf(out, "<text class=\"val\" x=\"%.2f\" y=\"15\">%s (%.1f%%)</text></g>\n", x + 6, c,
                100.0 * (double)r->n / (double)f->total);
    }
    fputs("</svg>\n<p class=\"legend\">The most executed families, each bar its "
          "executions and share of all instructions:<i style=\"background:" BASE_COLOR
          "\"></i>base instruction",
          out);
    if (f->flag)
        fputs("<i style=\"background:#f28e2b\"></i>specialized forms, stacked within their "
              "family (hover a segment for its name and count)",
              out);
    fputs("</p>\n", out);
}

/* A heatmap cell's colour: #deebf7 (few) to #08306b (most), on a log
 * scale up to max; #f6f8fa for none. */
static void
heat_fill(char *fill, size_t size, uint64_t v, uint64_t max)
{
    if (v) {
        double t = log2_approx((double)v + 1) / log2_approx((double)max + 1);
        int r = (int)(0xde + (0x08 - 0xde) * t), gg = (int)(0xeb + (0x30 - 0xeb) * t),
            b = (int)(0xf7 + (0x6b - 0xf7) * t);
        snprintf(fill, size, "#%02x%02x%02x", r & 255, gg & 255, b & 255);
    }
    else {
        snprintf(fill, size, "#f6f8fa");
    }
}

/* Row i of the heatmap: its label, then a cell per column. */
static void
pairs_row(FILE *out, const doc_fig *f, size_t i, uint64_t max)
{
    const doc_fig_row *a = &f->row[i];
    const double cs = 24, left = 230, topm = 160;
    size_t j;
    char c[32], fill[16];

    fprintf(out, "<text class=\"row\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 6,
            topm + i * cs + cs / 2 + 4);
    esc(out, a->name);
    fputs("</text>", out);
    for (j = 0; j < a->npart; j++) {
        uint64_t v = a->part[j].n;
        heat_fill(fill, sizeof fill, v, max);
        cli_count_str(c, sizeof c, v);
        fprintf(out,
                "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" "
                "fill=\"%s\" data-from=\"",
                left + j * cs, topm + i * cs, cs - 1, cs - 1, fill);
        esc(out, a->name);
        fputs("\" data-to=\"", out);
        esc(out, a->part[j].name);
        fprintf(out, "\" data-count=\"%llu\"><title>", (unsigned long long)v);
        esc(out, a->name);
        fputs(" \xe2\x86\x92 ", out);
        esc(out, a->part[j].name);
        fprintf(out, ": %s", c);
        if (a->n) {
            fprintf(out, " (%.1f%% of what follows ", 100.0 * (double)v / (double)a->n);
            esc(out, a->name);
            fputc(')', out);
        }
        fputs("</title></rect>", out);
    }
    fputc('\n', out);
}

static void
chart_pairs(FILE *out, const doc_fig *f)
{
    size_t i, j, n = f->nrow;
    uint64_t max = 0;
    const double cs = 24, left = 230, topm = 160;
    char c[32];

    for (i = 0; i < n; i++)
        for (j = 0; j < f->row[i].npart; j++)
            if (f->row[i].part[j].n > max)
                max = f->row[i].part[j].n;
    if (n == 0 || max == 0)
        return;
    fprintf(out,
            "<svg class=\"chart\" data-chart=\"pairs\" viewBox=\"0 0 %.0f %.0f\" "
            "role=\"img\" aria-label=\"Pair counts among the %zu most executed instructions: "
            "rows are the first instruction, columns the next\">\n",
            left + n * cs + 140, topm + n * cs + 10, n);
    for (j = 0; j < n; j++) {
        fprintf(out, "<text class=\"col\" transform=\"translate(%.1f,%.1f) rotate(-60)\">",
                left + j * cs + cs / 2 + 4, topm - 6);
        esc(out, f->row[j].name);
        fputs("</text>", out);
    }
    fputc('\n', out);
    for (i = 0; i < n; i++)
        pairs_row(out, f, i, max);
    cli_count_str(c, sizeof c, max);
    fprintf(out,
            "</svg>\n<p class=\"legend\">Rows: an instruction; columns: the instruction "
            "that ran next (the %zu most executed). Scale (log): "
            "<i style=\"background:#f6f8fa;border:1px solid #d0d7de\"></i>0"
            "<i style=\"background:#deebf7\"></i>1 to "
            "<i style=\"background:#08306b\"></i><span class=\"scale-max\">%s</span> pairs, "
            "darker is more; hover a cell for its count.</p>\n",
            n, c);
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

/* A family's row of the specialization chart: its outcomes (hit, miss,
 * deferred), then its attempts (success, then the failures by kind). */
static void
spec_row(FILE *out, const doc_fig_row *r, double y)
{
    static const char *const fail_col[] = {"#e15759", "#ff9da7", "#b3363a",
                                           "#f1a07e", "#d37295", "#9c2f2f"};
    const double lw = 210, bw = 480;
    uint64_t hit = r->v[DOC_FIG_V_HIT], miss = r->v[DOC_FIG_V_MISS], def = r->v[DOC_FIG_V_DEFERRED],
             out3 = hit + miss + def;
    uint64_t succ = r->v[DOC_FIG_V_SUCCESS], fail = r->v[DOC_FIG_V_FAILURE], sf = succ + fail,
             named = 0;
    size_t k;
    double x;

    fputs("<g class=\"fam\" data-family=\"", out);
    esc(out, r->name);
    fprintf(out,
            "\" transform=\"translate(0,%.0f)\"><text x=\"%.0f\" y=\"12\" "
            "text-anchor=\"end\">",
            y, lw - 6);
    esc(out, r->name);
    fputs("</text>", out);
    fprintf(out, "<g class=\"outcomes\" transform=\"translate(0,1)\">");
    if (out3) {
        const char *what = "hit + miss + deferred";
        x = lw;
        seg(out, &x, bw * (double)hit / (double)out3, "#59a14f", r->name, "hit", hit, out3, what);
        seg(out, &x, bw * (double)miss / (double)out3, "#e15759", r->name, "miss", miss, out3,
            what);
        seg(out, &x, bw * (double)def / (double)out3, "#edc948", r->name, "deferred", def, out3,
            what);
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
        seg(out, &x, bw * (double)succ / (double)sf, "#4e79a7", r->name, "success", succ, sf, what);
        for (k = 0; k < r->npart; k++) {
            char kind[160];
            snprintf(kind, sizeof kind, "failure: %s", r->part[k].name);
            seg(out, &x, bw * (double)r->part[k].n / (double)sf,
                fail_col[k % (sizeof fail_col / sizeof fail_col[0])], r->name, kind, r->part[k].n,
                sf, what);
            named += r->part[k].n;
        }
        if (fail > named)
            seg(out, &x, bw * (double)(fail - named) / (double)sf, "#e15759", r->name, "failure",
                fail - named, sf, what);
        fprintf(out,
                "<text class=\"val\" x=\"%.0f\" y=\"11\">success %.1f%% of %llu "
                "attempts</text>",
                lw + bw + 6, 100.0 * (double)succ / (double)sf, (unsigned long long)sf);
    }
    fputs("</g></g>\n", out);
}

static void
chart_spec(FILE *out, const doc_fig *f)
{
    const double rh = 40;
    size_t i;

    if (f->nrow == 0)
        return;
    fprintf(out,
            "<svg class=\"chart\" data-chart=\"spec\" viewBox=\"0 0 960 %.0f\" role=\"img\" "
            "aria-label=\"Specialization outcomes per family\">\n",
            f->nrow * rh + 8);
    for (i = 0; i < f->nrow; i++)
        spec_row(out, &f->row[i], i * rh + 4);
    fputs("</svg>\n<p class=\"legend\">Per family, top bar: <i style=\"background:#59a14f\"></i>hit"
          "<i style=\"background:#e15759\"></i>miss<i style=\"background:#edc948\"></i>deferred; "
          "bottom bar: <i style=\"background:#4e79a7\"></i>specialization success, then the "
          "failures by kind (hover for the kind).</p>\n",
          out);
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

/* A source view's functions are styled as annotate's page styles them,
 * under this class, which holds them: neither style reaches the other. */
#define SRCVIEW "srcview"

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


void
doc_chart_style(FILE *out, const doc *d)
{
    size_t i;

    for (i = 0; i < d->n; i++)
        if (d->b[i].kind == DOC_FIGURE && d->b[i].figure == DOC_FIG_SOURCE) {
            annotate_html_css(out, "div." SRCVIEW);
            fputc('\n', out);
            return;
        }
}

void
doc_chart(FILE *out, const doc_block *b, const char *sec, int level)
{
    switch (b->figure) {
    case DOC_FIG_VERDICT:
        fprintf(out, "<p class=\"verdict\">Verdict: <span class=\"badge %s\">%s</span></p>\n",
                b->fig.word, b->fig.word);
        break;
    case DOC_FIG_EXEC:
        chart_exec(out, &b->fig);
        break;
    case DOC_FIG_PAIRS:
        chart_pairs(out, &b->fig);
        break;
    case DOC_FIG_SPEC:
        chart_spec(out, &b->fig);
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
