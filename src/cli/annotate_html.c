/* annotate_html.c: the source view as one self-contained page: a sidebar
 * of the functions by instructions, and each function's source, every
 * line with its count and a bar, every site marked in the source by its
 * state (underlined expression and a badge; its form or attempts on
 * hover).  Figures are data-* attributes too, so that they can be read
 * back (tests/html). */
#include "annotate.h"

#include "cli.h"
#include "../format/psf_version.h"

#include <stdio.h>
#include <string.h>

/* The page around the functions. */
static const char page_css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0;display:flex;color:#222}"
    "nav{width:20em;flex:none;height:100vh;overflow:auto;position:sticky;top:0;"
    "background:#f6f6f6;border-right:1px solid #ddd;padding:.5em 1em;box-sizing:border-box}"
    "nav ol{padding-left:1.5em}nav a{text-decoration:none}main{padding:0 1.5em;min-width:0}";

/* A function's section and the legend, rule by rule (selectors, then
 * declarations), each selector put under a scope where another page
 * shows them.  What a host page may set on tables, cells, rows and
 * badges (borders, backgrounds, stickiness, weight) is set here too. */
static const char *const fn_css[][2] = {
    {"table.src", "border-collapse:collapse;font:13px/1.35 ui-monospace,monospace;margin:0"},
    {"table.src td,table.src th", "padding:0 .5em;white-space:pre;vertical-align:top;border:0;"
                                  "background:none;position:static;cursor:auto"},
    {"table.src tr", "background:none"},
    /* A long line wraps in its own cell (a badge as a whole), so that
     * the table keeps to the page and its bar column keeps its width. */
    {"table.src td.code", "white-space:pre-wrap;overflow-wrap:anywhere"},
    {"td.n", "text-align:right;color:#333"},
    {"td.ln", "text-align:right;color:#999"},
    {"td.bar", "width:8em;min-width:8em"},
    {"td.bar span", "display:block;min-width:2px;height:.9em;margin-top:.2em;background:#e8743b"},
    {"tr.cold td.n", "color:#bbb"},
    {"tr.gap td", "color:#999;padding-left:9em"},
    {".site", "border-bottom:2px solid"},
    {".s-specialized", "border-color:#2a9d3f"},
    {".s-backing_off", "border-color:#d62828"},
    {".s-never_tried", "border-color:#999;border-bottom-style:dotted"},
    {".s-excluded", "border-color:#7b61c9;border-bottom-style:dashed"},
    {".badge", "display:inline-block;white-space:nowrap;font:11px/1.35 system-ui,sans-serif;"
               "border-radius:3px;padding:0 .3em;margin-left:.4em;color:#fff"},
    {".badge.s-specialized", "background:#2a9d3f"},
    {".badge.s-backing_off", "background:#d62828"},
    {".badge.s-never_tried", "background:#999"},
    {".badge.s-excluded", "background:#7b61c9"},
    {"td.chg.up", "color:#b00"},
    {"td.chg.down", "color:#070"},
    {"table.src th", "font-weight:normal;color:#777;text-align:right"},
    {".note", "color:#a05a00"},
    {".lg", "border-bottom:2px solid"},
};

void
annotate_html_css(FILE *out, const char *scope)
{
    size_t i, n;
    const char *p;

    for (i = 0; i < sizeof fn_css / sizeof fn_css[0]; i++) {
        for (p = fn_css[i][0]; *p; p += n + (p[n] == ',')) {
            n = strcspn(p, ",");
            fprintf(out, "%s%s%s%.*s", p == fn_css[i][0] ? "" : ",", scope, *scope ? " " : "",
                    (int)n, p);
        }
        fprintf(out, "{%s}", fn_css[i][1]);
    }
}

static void
esc(FILE *out, const char *s, size_t n)
{
    cli_fput_html(out, s, n);
}

static void
esc_s(FILE *out, const char *s)
{
    esc(out, s, strlen(s));
}

/* What hovering over a site says. */
static void
site_title(FILE *out, const a_site *s)
{
    esc_s(out, s->family);
    fprintf(out, ": %s", a_state_words[s->state]);
    if (s->state == A_SPECIALIZED) {
        fputs(" as ", out);
        esc_s(out, s->detail);
    }
    else if (s->state == A_BACKING_OFF) {
        fputs(", ", out);
        esc_s(out, s->detail);
        fputs(" failed attempts", out);
    }
    if (s->has_exec)
        fprintf(out, "; %llu executions", (unsigned long long)s->executions);
    if (s->base_state >= 0 && s->base_state != s->state)
        fprintf(out, "; in the base run: %s", a_state_words[s->base_state]);
    fprintf(out, " (offset %ld", s->offset);
    if (s->n < s->ndumps)
        fprintf(out, "; %llu of %llu dumps", (unsigned long long)s->n,
                (unsigned long long)s->ndumps);
    fputc(')', out);
}

static void
site_attrs(FILE *out, const a_site *s, const char *cls)
{
    fprintf(out, "<span class=\"%s s-%s\" data-family=\"", cls, psf_site_state_name[s->state]);
    esc_s(out, s->family);
    fprintf(out, "\" data-state=\"%s\" data-detail=\"", psf_site_state_name[s->state]);
    esc_s(out, s->detail);
    fprintf(out, "\" data-offset=\"%ld\"", s->offset);
    if (s->has_exec)
        fprintf(out, " data-executions=\"%llu\"", (unsigned long long)s->executions);
    if (s->base_state >= 0)
        fprintf(out, " data-base-state=\"%s\"", psf_site_state_name[s->base_state]);
    fputs(" title=\"", out);
    site_title(out, s);
    fputs("\">", out);
}

/* The line's text with each positioned site's expression in a span;
 * sites are sorted by column, the enclosing one first, so spans nest (a
 * site that would overlap the one it starts in is cut at its end). */
static void
source_cell(FILE *out, const a_fn *f, const a_line *l)
{
    const char *t = l->text ? l->text : "";
    size_t len = strlen(t), p, k = 0, depth = 0;
    size_t ends[64];

    for (p = 0; p <= len; p++) {
        while (depth > 0 && ends[depth - 1] <= p) {
            fputs("</span>", out);
            depth--;
        }
        while (k < l->nsites) {
            const a_site *s = &f->sites[l->site0 + k];
            size_t c = s->col < 0 ? len + 1 : (size_t)s->col, e;
            if (c > p)
                break;
            k++;
            if (c < p || depth == sizeof ends / sizeof ends[0])
                continue;
            e = s->end_line > s->line || s->end_col < 0 ? len : (size_t)s->end_col;
            if (e > len)
                e = len;
            if (depth > 0 && e > ends[depth - 1])
                e = ends[depth - 1];
            site_attrs(out, s, "site");
            if (e <= p) { /* an empty span (RESUME at column 0 to 0) */
                fputs("</span>", out);
                continue;
            }
            ends[depth++] = e;
        }
        if (p < len)
            esc(out, t + p, 1);
    }
    while (depth-- > 0)
        fputs("</span>", out);
    for (k = 0; k < l->nsites; k++) {
        const a_site *s = &f->sites[l->site0 + k];
        site_attrs(out, s, "badge");
        esc_s(out, s->family);
        if (s->state == A_BACKING_OFF)
            fprintf(out, " &times;%s", s->detail);
        fputs("</span>", out);
    }
}

/* With a base: per million here and there, and the change. */
static void
base_cells(FILE *out, const annotate *a, const a_line *l)
{
    double here = annotate_per_million(a, l->count);
    double there = annotate_per_million(a->base, l->base_count);
    int other = a->minor != a->base->minor;

    if (!l->counted && !l->has_base) {
        fputs("<td></td><td></td><td></td>", out);
        return;
    }
    if (l->counted)
        fprintf(out, "<td class=\"n\">%.1f</td>", here);
    else
        fputs("<td></td>", out);
    if (l->has_base)
        fprintf(out, "<td class=\"n\">%.1f</td><td class=\"n chg%s\"%s>%+.1f%s</td>", there,
                here > there   ? " up"
                : here < there ? " down"
                               : "",
                other ? " title=\"another Python version: the bytecode of this line differs\"" : "",
                here - there, other ? "~" : "");
    else
        fputs("<td class=\"n\">-</td><td class=\"n chg up\">new</td>", out);
}

static void
fn_rows(FILE *out, const annotate *a, const a_fn *f)
{
    uint64_t max = 1;
    char n[32];
    size_t j;

    for (j = 0; j < f->nlines; j++)
        if (f->lines[j].count > max)
            max = f->lines[j].count;
    for (j = 0; j < f->nlines; j++) {
        const a_line *l = &f->lines[j];
        if (!a_line_shown(l)) {
            if (j == 0 || a_line_shown(&f->lines[j - 1]))
                fprintf(out, "<tr class=\"gap\"><td colspan=\"%d\">&#8942;</td></tr>\n",
                        a->base ? 7 : 4);
            continue;
        }
        cli_count_str(n, sizeof n, l->count);
        fprintf(out, "<tr data-line=\"%ld\"%s", l->line, l->counted ? "" : " class=\"cold\"");
        if (l->counted)
            fprintf(out, " data-count=\"%llu\"", (unsigned long long)l->count);
        if (l->has_base)
            fprintf(out, " data-base-count=\"%llu\"", (unsigned long long)l->base_count);
        fprintf(out, "><td class=\"n\">%s</td>", l->counted ? n : "");
        if (a->base)
            base_cells(out, a, l);
        fputs("<td class=\"bar\">", out);
        if (l->count)
            fprintf(out, "<span style=\"width:%.1f%%\"></span>",
                    100.0 * (double)l->count / (double)max);
        fprintf(out, "</td><td class=\"ln\">%ld</td><td class=\"code\">", l->line);
        source_cell(out, f, l);
        fputs("</td></tr>\n", out);
    }
    if (f->no_line) {
        cli_count_str(n, sizeof n, f->no_line);
        fprintf(out, "<tr data-line=\"none\" data-count=\"%llu\"><td class=\"n\">%s</td>",
                (unsigned long long)f->no_line, n);
        if (a->base) {
            a_line nl = {.counted = 1, .count = f->no_line};
            nl.has_base = f->base && f->base->no_line;
            nl.base_count = f->base ? f->base->no_line : 0;
            base_cells(out, a, &nl);
        }
        fputs("<td></td><td class=\"ln\">-</td><td class=\"code\"><i>instructions with no "
              "line (exception clean-up)</i></td></tr>\n",
              out);
    }
}

/* The function in the base run. */
static void
base_note(FILE *out, const annotate *a, const a_fn *f)
{
    char says[512];

    annotate_base_says(a, f, says, sizeof says);
    fputs("<p class=\"base\"", out);
    if (f->base)
        fprintf(out, " data-base-instructions=\"%llu\"", (unsigned long long)f->base->instructions);
    fprintf(out, ">%c", says[0] - 'a' + 'A');
    esc_s(out, says + 1);
    fputs(".</p>\n", out);
}

void
annotate_html_fn(FILE *out, const annotate *a, size_t i, int hlevel)
{
    const a_fn *f = &a->fn[i];
    char n[32], c[32];

    cli_count_str(n, sizeof n, f->instructions);
    cli_count_str(c, sizeof c, f->calls);
    fprintf(out,
            "<section class=\"fn\" id=\"%s\" data-instructions=\"%llu\" data-calls=\"%llu\" "
            "data-no-line=\"%llu\" data-first=\"%ld\" data-qual=\"",
            f->anchor, (unsigned long long)f->instructions, (unsigned long long)f->calls,
            (unsigned long long)f->no_line, f->first);
    esc_s(out, f->qual);
    fputs("\" data-file=\"", out);
    esc_s(out, f->file);
    if (hlevel < 2 || hlevel > 6)
        hlevel = 2;
    fprintf(out, "\"><h%d>%zu. ", hlevel, i + 1);
    esc_s(out, f->qual);
    fputs(" <small>", out);
    esc_s(out, f->file);
    fprintf(out, ":%ld</small></h%d>\n<p>%s instructions", f->first, hlevel, n);
    if (a->total)
        fprintf(out, " (%.1f%% of all)", 100.0 * (double)f->instructions / (double)a->total);
    fprintf(out, ", %s calls.", c);
    if (f->unplaced)
        fprintf(out, " %zu sites have no position on these lines.", f->unplaced);
    if (f->beyond)
        fprintf(out,
                " <span class=\"note\" data-beyond=\"%llu\">%llu instructions on lines past "
                "%ld, the view's bound of %ld lines.</span>",
                (unsigned long long)f->beyond, (unsigned long long)f->beyond,
                f->lines[f->nlines - 1].line, A_SPAN_MAX);
    fputs("</p>\n", out);
    if (f->changed)
        fputs("<p class=\"note\">The file changed since the run: the dump's copy of its lines "
              "is shown.</p>\n",
              out);
    if (f->source == A_SRC_NONE) {
        fputs("<p class=\"note\">No source: the file is ", out);
        esc_s(out, f->nosrc);
        fputs("; the dumps hold no copy of it.</p>\n", out);
    }
    else {
        fprintf(out, "<p class=\"from\">Text: %s.</p>\n",
                f->source == A_SRC_DUMP   ? "the dumps' own copy of the source"
                : f->source == A_SRC_FILE ? "read now from the file (the dumps hold no copy of it)"
                                          : "the dumps' own copy of the source, and the lines it "
                                            "lacks read now from the file");
    }
    if (a->base)
        base_note(out, a, f);
    fputs("<table class=\"src\">\n", out);
    if (a->base)
        fputs("<tr><th>count</th><th>per M</th><th>base per M</th><th>change</th><th></th>"
              "<th>line</th><th></th></tr>\n",
              out);
    fn_rows(out, a, f);
    fputs("</table></section>\n", out);
}

void
annotate_html_legend(FILE *out, const annotate *a)
{
    size_t i;

    if (!annotate_has_sites(a)) {
        fputs(a->m->has_census ? "<p class=\"legend\">No site states for the functions shown: "
                                 "the census's rows are of the hottest code, within the "
                                 "dumps' caps.</p>\n"
                               : "<p class=\"legend\">No site states in these dumps: they come "
                                 "with the census, in mode count on 3.12+.</p>\n",
              out);
        return;
    }
    fputs("<p class=\"legend\">Sites of the functions shown: ", out);
    for (i = 0; i < A_STATE_COUNT; i++) {
        fprintf(out, "%llu <span class=\"lg s-%s\">%s</span>%s",
                (unsigned long long)a->site_states[i], psf_site_state_name[i], a_state_words[i],
                i + 1 < A_STATE_COUNT ? ", " : " ");
    }
    fputs("(not read: a family instrumented while counting, whose state says nothing)</p>\n", out);
}

static void
sidebar(FILE *out, const annotate *a)
{
    char n[32];
    size_t i;

    fputs("<nav><h3>Functions by instructions</h3><ol>\n", out);
    for (i = 0; i < a->nfn; i++) {
        cli_count_str(n, sizeof n, a->fn[i].instructions);
        fprintf(out, "<li><a href=\"#%s\">", a->fn[i].anchor);
        esc_s(out, a->fn[i].qual);
        fprintf(out, "</a> <small>%s</small></li>\n", n);
    }
    fputs("</ol></nav>\n", out);
}

int
annotate_html(FILE *out, const annotate *a)
{
    char t[32];
    size_t i;

    cli_count_str(t, sizeof t, a->total);
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>pystats source view</title><style>%s",
            page_css);
    annotate_html_css(out, "");
    fputs("</style></head>\n<body>\n", out);
    sidebar(out, a);
    fprintf(out,
            "<main><h1>Source view</h1>\n<p>Exact instructions executed per source line: "
            "%s in %zu code objects",
            t, a->with_lines);
    if (a->minor)
        fprintf(out, " (Python 3.%d)", a->minor);
    fputs(".", out);
    if (a->m->hot_out) {
        cli_count_str(t, sizeof t, a->m->hot_out);
        fprintf(out, " %s code objects of other code left out (--code, --no-stdlib).", t);
    }
    if (a->m->lines_omitted)
        fprintf(out,
                " <span class=\"note\" data-lines-omitted=\"%llu\">%llu more code objects "
                "ran but have no per-line counts: past the dump's bound on lines.</span>",
                (unsigned long long)a->m->lines_omitted, (unsigned long long)a->m->lines_omitted);
    if (a->trust) {
        fputs(" Trust: <b class=\"verdict\">", out);
        esc_s(out, a->trust);
        fputs("</b>", out);
    }
    fputs("</p>\n", out);
    annotate_html_legend(out, a);
    for (i = 0; i < a->nfn; i++)
        annotate_html_fn(out, a, i, 2);
    fprintf(out, "<p><small>Report by pystats %s.</small></p></main></body></html>\n", PSF_VERSION);
    return ferror(out) ? -1 : 0;
}
