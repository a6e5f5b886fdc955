/* compare_report.c: the comparison as Markdown and as JSON (schema
 * "comparison/1", documented in docs/FORMAT.md, section 4). */
#include "../format/psf_version.h"
#include "compare.h"
#include "text.h"
#include "../format/psf_keys.h"

#include "cli.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPARISON_SCHEMA "comparison/1"

/* ---- number formatting ---------------------------------------------------- */

/* Digits of x (>= 0) with thousands separators and `decimals` decimals. */
static void
grouped(char *buf, size_t size, double x, int decimals)
{
    char tmp[64], *dot;
    size_t len, i, j = 0, intlen;

    snprintf(tmp, sizeof tmp, "%.*f", decimals, x);
    len = strlen(tmp);
    dot = strchr(tmp, '.');
    intlen = dot ? (size_t)(dot - tmp) : len;
    for (i = 0; i < len && j + 2 < size; i++) {
        if (i > 0 && i < intlen && (intlen - i) % 3 == 0)
            buf[j++] = ',';
        buf[j++] = tmp[i];
    }
    buf[j] = '\0';
}

/* A signed figure: "+1,234", "-0.5", "0". */
static void
fmt_signed(char *buf, size_t size, double x, int decimals, const char *suffix)
{
    char g[48];

    if (isnan(x)) {
        buf[0] = '\0';
        return;
    }
    grouped(g, sizeof g, fabs(x), decimals);
    /* A figure that rounds to zero gets no sign. */
    snprintf(buf, size, "%s%s%s",
             strspn(g, "0.,") == strlen(g) ? ""
             : x < 0                       ? "-"
                                           : "+",
             g, suffix);
}

/* A relative change: "+12.3%", "new" from zero, "" when undefined. */
static void
fmt_rel(char *buf, size_t size, double x)
{
    if (isnan(x))
        buf[0] = '\0';
    else if (isinf(x))
        snprintf(buf, size, "%s", x > 0 ? "new" : "gone");
    else
        fmt_signed(buf, size, x * 100.0, 1, "%");
}

static void
fmt_share(char *buf, size_t size, double x)
{
    if (isnan(x))
        snprintf(buf, size, "—");
    else
        snprintf(buf, size, "%.2f%%", x * 100.0);
}

/* Text from the inputs: control characters and Markdown escaped
 * (cli_fput_md). */
static void
cell(FILE *out, const char *s)
{
    cli_fput_md(out, s);
}

/* ---- Markdown ------------------------------------------------------------------ */

static void
strs_cell(FILE *out, const agg_strs *s)
{
    size_t i;
    char t[512];

    if (s->n == 0)
        fputs("—", out);
    for (i = 0; i < s->n; i++) {
        snprintf(t, sizeof t, "%s%s (%llu)", i ? "; " : "", s->v[i].text,
                 (unsigned long long)s->v[i].n);
        cell(out, t);
    }
}

static const agg_strs *
hdr_vals(const agg_group *g, const char *key)
{
    size_t i;

    for (i = 0; i < g->nhdr; i++)
        if (strcmp(g->hdr[i].key, key) == 0)
            return &g->hdr[i].vals;
    return NULL;
}

static void
build_cell(FILE *out, const agg_group *g)
{
    static const char *const keys[] = {PSF_H_PY_SYS_VERSION, PSF_H_PY_CONFIG_ARGS,
                                       PSF_H_PY_PYSTATS_BUILD, PSF_H_PY_JIT,
                                       PSF_H_PY_FREE_THREADING};
    size_t i, k, shown = 0;

    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const agg_strs *v = hdr_vals(g, keys[i]);
        if (v == NULL)
            continue;
        fputs(shown++ ? "; " : "", out);
        cell(out, keys[i] + strlen(PSF_H_PREFIX_PYTHON));
        fputs(": ", out);
        for (k = 0; k < v->n; k++) {
            fputs(k ? ", " : "", out);
            cell(out, v->v[k].text);
        }
    }
    if (!shown)
        fputs(g->source == AGG_NATIVE
                  ? "CPython --enable-pystats build (native dumps name no build)"
                  : "—",
              out);
}

static void
header_row(FILE *out, const cmp *c, const char *label, int which)
{
    int i, shown;
    size_t k;
    char t[256];

    fprintf(out, "| %s |", label);
    for (i = 0; i < 2; i++) {
        const cmp_side *sd = &c->side[i];
        const agg_group *g = sd->g;
        fputc(' ', out);
        switch (which) {
        case 0:
            for (k = 0; k < sd->ninputs; k++) {
                fputs(k ? ", " : "", out);
                cell(out, sd->inputs[k]);
            }
            break;
        case 1:
            cmp_side_title(c, i, t, sizeof t);
            cell(out, t);
            break;
        case 2:
            cli_count_str(t, sizeof t, g->files);
            fputs(t, out);
            break;
        case 3:
            if (g->minor)
                fprintf(out, "3.%d (", g->minor);
            else
                fputs("unknown (", out);
            strs_cell(out, &g->how);
            fputc(')', out);
            break;
        case 4:
            cell(out, g->counts);
            break;
        case 5:
            for (k = 0, shown = 0; k < AGG_FMT_COUNT; k++)
                if (g->fmt[k])
                    fprintf(out, "%s%s (%llu)", shown++ ? ", " : "", agg_format_name[k],
                            (unsigned long long)g->fmt[k]);
            break;
        case 6:
            strs_cell(out, &g->collectors);
            break;
        case 7:
            build_cell(out, g);
            break;
        case 8:
            fputs(sd->m->has_pairs ? "yes" : "no", out);
            break;
        case 9:
            cli_count_str(t, sizeof t, sd->m->total_exec);
            fputs(t, out);
            break;
        case 10:
            cli_count_str(t, sizeof t, sd->problems);
            fputs(t, out);
            break;
        default:
            if (g->time_start || g->time_end)
                fprintf(out, "%s to %s", g->time_start ? g->time_start : "?",
                        g->time_end ? g->time_end : "?");
            else
                fputs("—", out);
            break;
        }
        fputs(" |", out);
    }
    fputc('\n', out);
}

static void
row_cells(FILE *out, const cmp_section *s, const cmp_row *r, int bm, int hm)
{
    char a[80], b[80], d[80], e[80];

    fputs("| ", out);
    cell(out, r->name);
    fputs(" | ", out);
    if (s->kind == CMP_SHARE) {
        fmt_share(a, sizeof a, r->base);
        fmt_share(b, sizeof b, r->head);
        fmt_signed(d, sizeof d, r->change * 100.0, 2, " pp");
        fmt_rel(e, sizeof e, r->rel);
        fprintf(out, "%s | %s | %s | %s |", a, b, d, e);
    }
    else {
        if (r->only == CMP_ONLY_HEAD)
            snprintf(a, sizeof a, "— (not in 3.%d)", bm);
        else
            cli_count_str(a, sizeof a, r->base_n);
        if (r->only == CMP_ONLY_BASE)
            snprintf(b, sizeof b, "— (not in 3.%d)", hm);
        else
            cli_count_str(b, sizeof b, r->head_n);
        fmt_signed(d, sizeof d, r->change, 0, "");
        fmt_rel(e, sizeof e, r->rel);
        fprintf(out, "%s | %s | %s | %s |", a, b, d, e);
        if (s->normalized) {
            if (s->self_share) {
                fmt_share(a, sizeof a, r->base_pm / 1e6);
                fmt_share(b, sizeof b, r->head_pm / 1e6);
                fmt_signed(d, sizeof d, r->change_pm / 1e4, 2, " pp");
            }
            else {
                grouped(a, sizeof a, r->base_pm, 1);
                grouped(b, sizeof b, r->head_pm, 1);
                fmt_signed(d, sizeof d, r->change_pm, 1, "");
            }
            fmt_rel(e, sizeof e, r->rel_pm);
            fprintf(out, " %s | %s | %s | %s |", a, b, d, e);
        }
    }
    snprintf(a, sizeof a, "%.1f%%", r->weight * 100.0);
    fprintf(out, " %s |\n", a);
}

static void
section_md(FILE *out, const cmp *c, const cmp_section *s)
{
    size_t i, shown = 0, unfolded = 0, listed;
    int bm = c->side[0].g->minor, hm = c->side[1].g->minor, k;

    fprintf(out, "\n## %s\n\n", s->title);
    fprintf(out, "Section `%s`.", s->name);
    if (s->note)
        fprintf(out, " %s", s->note);
    if (s->kind == CMP_SHARE)
        fputs(" Changes in percentage points (pp).", out);
    else if (s->normalized && !s->self_share)
        fputs(" /M: per million instructions executed on that side.", out);
    fputs("\n\n", out);
    for (k = 0; k < 2; k++) {
        int only = k == 0 ? CMP_ONLY_BASE : CMP_ONLY_HEAD;
        listed = 0;
        for (i = 0; i < s->n; i++) {
            if (s->rows[i].only != only)
                continue;
            if (listed == 0)
                fprintf(out, "Only in 3.%d (%s): ", k == 0 ? bm : hm, k == 0 ? "base" : "head");
            if (listed < 40) {
                fputs(listed ? ", " : "", out);
                cell(out, s->rows[i].name);
            }
            listed++;
        }
        if (listed > 40)
            fprintf(out, " and %zu more", listed - 40);
        if (listed)
            fputs(".\n\n", out);
    }
    fprintf(out, "| %s | Base | Head | Change | Change %% |", s->col);
    if (s->kind == CMP_COUNT && s->normalized) {
        if (s->self_share)
            fputs(" Base self | Head self | Self change | Self change % |", out);
        else
            fputs(" Base /M | Head /M | Change /M | Change /M % |", out);
    }
    fputs(" Share of change |\n| :--- | ---: | ---: | ---: | ---: |", out);
    if (s->kind == CMP_COUNT && s->normalized)
        fputs(" ---: | ---: | ---: | ---: |", out);
    fputs(" ---: |\n", out);
    for (i = 0; i < s->n; i++) {
        if (s->rows[i].folded)
            continue;
        unfolded++;
        if (shown >= (size_t)c->top)
            continue;
        row_cells(out, s, &s->rows[i], bm, hm);
        shown++;
    }
    if (shown == 0)
        fputs("| (no changes) | | | | |", out),
            fputs(s->kind == CMP_COUNT && s->normalized ? " | | | | |\n" : " |\n", out);
    if (s->nfolded || unfolded > shown) {
        fputc('\n', out);
        if (s->nfolded)
            fprintf(out, "%zu %s less than %g%%%s and %s folded away. ", s->nfolded,
                    s->nfolded == 1 ? "row changed" : "rows changed", c->min_change,
                    s->kind == CMP_SHARE ? " (in points)" : "", s->nfolded == 1 ? "is" : "are");
        if (unfolded > shown)
            fprintf(out, "%zu more %s below the top %d. ", unfolded - shown,
                    unfolded - shown == 1 ? "row is" : "rows are", c->top);
        fputs("The JSON output (--json) has every row.\n", out);
    }
}

/* The headline: each side's instructions, the biggest changes of the
 * execution counts per million instructions, and --fail-if's result. */
#define HEADLINE_ROWS 3

static void
headline_md(FILE *out, const cmp *c)
{
    const cmp_section *ex = cmp_find_section(c, c->by_family ? "family" : "execution");
    uint64_t b = c->side[0].m->total_exec, h = c->side[1].m->total_exec;
    char nb[32], nh[32], t[64];
    size_t i, shown = 0;

    fputs("## Headline\n\n", out);
    cli_count_str(nb, sizeof nb, b);
    cli_count_str(nh, sizeof nh, h);
    fmt_rel(t, sizeof t, b ? ((double)h - (double)b) / (double)b : NAN);
    fprintf(out, "- Instructions executed: %s (base), %s (head)%s%s\n", nb, nh, *t ? ", " : "", t);
    if (ex != NULL && ex->normalized) {
        for (i = 0; i < ex->n && shown < HEADLINE_ROWS; i++) {
            const cmp_row *r = &ex->rows[i];
            if (r->folded || !(r->change_pm == r->change_pm) || r->change_pm == 0)
                continue;
            fputs(shown ? ", " : "- Biggest changes per million instructions: ", out);
            cell(out, r->name);
            fmt_signed(t, sizeof t, r->change_pm, 0, "");
            fprintf(out, " %s", t);
            fmt_rel(t, sizeof t, r->rel_pm);
            if (*t)
                fprintf(out, " (%s)", t);
            shown++;
        }
        fputs(shown ? "\n" : "- No execution count changed by more than the threshold\n", out);
    }
    if (c->fail_if != NULL && c->fail_result >= 0) {
        fputs("- `--fail-if` ", out);
        cell(out, c->fail_if);
        fprintf(out, ": %s\n", c->fail_result ? "**true** (the comparison fails)" : "false (held)");
    }
    fputc('\n', out);
}

int
cmp_report_markdown(FILE *out, const cmp *c)
{
    static const char *const labels[] = {
        "Inputs",     "Dumps", "Files",       "Python version",        "Counts",         "Formats",
        "Collectors", "Build", "Pair counts", "Instructions executed", "Input problems", "Time",
    };
    size_t i;

    fputs("# pystats comparison\n\nReport by pystats " PSF_VERSION ".\n\n", out);
    headline_md(out, c);
    fputs("| | Base | Head |\n| :--- | :--- | :--- |\n", out);
    for (i = 0; i < sizeof labels / sizeof labels[0]; i++)
        header_row(out, c, labels[i], (int)i);
    for (i = 0; i < c->nwarn; i++) {
        fputs(i ? "\n" : "\n", out);
        fputs("**Warning:** ", out);
        cell(out, c->warn[i]);
        fputs(".\n", out);
    }
    fprintf(out,
            "\nRows are sorted by their share of the section's total change "
            "(counts: change per million instructions; shares: change in points); "
            "rows that changed less than %g%% are folded away%s.\n",
            c->min_change, c->by_family ? "; compared by family only" : "");
    for (i = 0; i < c->nsec; i++)
        section_md(out, c, &c->sec[i]);
    return ferror(out) ? -1 : 0;
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *
jcount(uint64_t n)
{
    char buf[32];

    if (n <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)n);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)n);
    return json_string(buf);
}

static json_t *
jreal(double x)
{
    if (isnan(x) || isinf(x))
        return json_null();
    return json_real(x);
}

static void
set(json_t *o, const char *k, json_t *v)
{
    text_json_set_raw(o, k, v);
}


static json_t *
strs_obj(const agg_strs *s)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; i < s->n; i++)
        set(o, s->v[i].text, jcount(s->v[i].n));
    return o;
}

static json_t *
side_obj(const cmp *c, int i)
{
    const cmp_side *sd = &c->side[i];
    const agg_group *g = sd->g;
    json_t *o = json_object(), *in = json_array(), *f = json_object(), *b = json_object();
    char t[256];
    size_t k;

    for (k = 0; k < sd->ninputs; k++)
        json_array_append_new(in, text_json_str(sd->inputs[k]));
    set(o, "inputs", in);
    cmp_side_title(c, i, t, sizeof t);
    set(o, "title", json_string(t));
    set(o, "groups", jcount(sd->s->ng));
    set(o, "files", jcount(g->files));
    set(o, "source", json_string(agg_source_name[g->source]));
    if (g->minor) {
        snprintf(t, sizeof t, "3.%d", g->minor);
        set(o, "python_version", json_string(t));
    }
    else {
        set(o, "python_version", json_null());
    }
    set(o, "counts", json_string(g->counts));
    for (k = 0; k < AGG_FMT_COUNT; k++)
        if (g->fmt[k])
            set(f, agg_format_name[k], jcount(g->fmt[k]));
    set(o, "formats", f);
    set(o, "collectors", strs_obj(&g->collectors));
    for (k = 0; k < g->nhdr; k++)
        if (strncmp(g->hdr[k].key, PSF_H_PREFIX_PYTHON, sizeof PSF_H_PREFIX_PYTHON - 1) == 0)
            set(b, g->hdr[k].key, strs_obj(&g->hdr[k].vals));
    set(o, "build", b);
    set(o, "pair_counts", json_boolean(sd->m->has_pairs));
    set(o, "total_execution_count", jcount(sd->m->total_exec));
    set(o, "problems", jcount(sd->problems));
    return o;
}

static json_t *
row_obj(const cmp_section *s, const cmp_row *r)
{
    json_t *o = json_object();

    set(o, "name", text_json_str(r->name));
    if (r->only)
        set(o, "only", json_string(cmp_only_name[r->only]));
    if (s->kind == CMP_COUNT) {
        set(o, "base", jcount(r->base_n));
        set(o, "head", jcount(r->head_n));
        if (r->base_n <= (uint64_t)INT64_MAX && r->head_n <= (uint64_t)INT64_MAX)
            set(o, "change", json_integer((json_int_t)r->head_n - (json_int_t)r->base_n));
        else
            set(o, "change", jreal(r->change));
    }
    else {
        set(o, "base", jreal(r->base));
        set(o, "head", jreal(r->head));
        set(o, "change", jreal(r->change));
    }
    set(o, "rel", jreal(r->rel));
    if (s->kind == CMP_COUNT && s->normalized) {
        set(o, "base_pm", jreal(r->base_pm));
        set(o, "head_pm", jreal(r->head_pm));
        set(o, "change_pm", jreal(r->change_pm));
        set(o, "rel_pm", jreal(r->rel_pm));
    }
    set(o, "weight", json_real(r->weight));
    set(o, "folded", json_boolean(r->folded));
    return o;
}

int
cmp_report_json(FILE *out, const cmp *c, const char *fail_if, int fail_result)
{
    json_t *root = json_object(), *w = json_array(), *secs = json_object(), *opt = json_object();
    size_t i, k;
    int ret = -1;

    set(root, "schema", json_string(COMPARISON_SCHEMA));
    set(root, "pystats", json_string(PSF_VERSION));
    set(opt, "min_change", json_real(c->min_change));
    set(opt, "top", json_integer(c->top));
    set(root, "options", opt);
    set(root, "base", side_obj(c, 0));
    set(root, "head", side_obj(c, 1));
    set(root, "by_family_only", json_boolean(c->by_family));
    for (i = 0; i < c->nwarn; i++)
        json_array_append_new(w, json_string(c->warn[i]));
    set(root, "warnings", w);
    for (i = 0; i < c->nsec; i++) {
        const cmp_section *s = &c->sec[i];
        json_t *so = json_object(), *rows = json_array();
        set(so, "title", json_string(s->title));
        set(so, "kind", json_string(s->kind == CMP_COUNT ? "count" : "share"));
        set(so, "normalized", json_boolean(s->normalized));
        set(so, "folded", jcount(s->nfolded));
        for (k = 0; k < s->n; k++)
            json_array_append_new(rows, row_obj(s, &s->rows[k]));
        set(so, "rows", rows);
        set(secs, s->name, so);
    }
    set(root, "sections", secs);
    if (fail_if) {
        json_t *f = json_object();
        set(f, "expression", json_string(fail_if));
        set(f, "result", fail_result < 0 ? json_null() : json_boolean(fail_result));
        set(root, "fail_if", f);
    }
    if (text_json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0 &&
        fputc('\n', out) != EOF && !ferror(out))
        ret = 0;
    json_decref(root);
    return ret;
}
