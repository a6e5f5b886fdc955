/* compare_label.c: `pystats compare --by-label`: a suite of benchmarks
 * compared benchmark by benchmark (see compare.h, cmp_suite).
 *
 * Each label of one side is compared with the same label of the other
 * (cmp_build_groups()), per benchmark call: pyperf calibrates its loops
 * per interpreter, so the counts of a benchmark are compared divided by
 * the calls they cover (benchmark.calls, FORMAT.md 1.19).  The suite's
 * figure is the geometric mean of the per-label ratios head / base, as
 * pyperf's compare_to computes its own. */
#include "../format/psf_version.h"
#include "compare.h"
#include "doc.h"
#include "renames.h"
#include "text.h"

#include "cli.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUITE_SCHEMA "comparison-by-label/1"
/* Changes per call shown in each benchmark's headline. */
#define LABEL_HEADLINE_ROWS 3

/* ---- building ------------------------------------------------------------ */

static void suite_warn(cmp_suite *cs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
suite_warn(cmp_suite *cs, const char *fmt, ...)
{
    va_list ap;
    char buf[2048];
    size_t i;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (i = 0; i < cs->nwarn; i++)
        if (strcmp(cs->warn[i], buf) == 0)
            return;
    cs->warn = cli_xrealloc(cs->warn, (cs->nwarn + 1) * sizeof *cs->warn);
    cs->warn[cs->nwarn++] = cli_xstrdup(buf);
}

static const char *
group_label(const summary *s, size_t i)
{
    const char *l = s->g[i].meta->label;

    return l ? l : "";
}

/* The group of s labelled `label` that best matches `like` (the same
 * kind of dumps first), or SIZE_MAX. */
static size_t
find_label(const summary *s, const char *label, const agg_group *like)
{
    size_t i, any = SIZE_MAX;

    for (i = 0; i < s->ng; i++) {
        if (strcmp(group_label(s, i), label) != 0)
            continue;
        if (like == NULL || cmp_group_matches(s->g[i].meta, like))
            return i;
        if (any == SIZE_MAX)
            any = i;
    }
    return any;
}

static cmp_label *
label_add(cmp_suite *cs, const char *label)
{
    cmp_label *l;

    cs->v = cli_xrealloc(cs->v, (cs->n + 1) * sizeof *cs->v);
    l = &cs->v[cs->n++];
    memset(l, 0, sizeof *l);
    l->label = label;
    l->gi[0] = l->gi[1] = SIZE_MAX;
    l->per_call[0] = l->per_call[1] = l->rel = NAN;
    return l;
}

/* Each side's calls, instructions and instructions per call.  Without
 * benchmark.calls on either side (dumps not written by the pyperf hook),
 * each label's run is one unit: its instructions are compared whole. */
static void
label_figures(cmp_suite *cs, cmp_label *l)
{
    int k;

    for (k = 0; k < 2; k++) {
        const m_group *m;
        if (l->gi[k] == SIZE_MAX)
            continue;
        m = &cs->s[k]->g[l->gi[k]].m;
        l->calls[k] = m->bench_calls;
        l->instr[k] = m->total_exec;
    }
    if (l->gi[0] == SIZE_MAX || l->gi[1] == SIZE_MAX)
        return;
    if (l->calls[0] && l->calls[1]) {
        l->per_call[0] = (double)l->instr[0] / (double)l->calls[0];
        l->per_call[1] = (double)l->instr[1] / (double)l->calls[1];
    }
    else if (!l->calls[0] && !l->calls[1]) {
        l->whole = 1;
        l->per_call[0] = (double)l->instr[0];
        l->per_call[1] = (double)l->instr[1];
    }
    if (l->per_call[0] > 0 && !isnan(l->per_call[1]))
        l->rel = l->per_call[1] / l->per_call[0] - 1.0;
}

static int
label_cmp(const void *pa, const void *pb)
{
    const cmp_label *a = pa, *b = pb;

    return strcmp(a->label, b->label);
}

/* The labels of both sides, paired. */
static void
pair_labels(cmp_suite *cs)
{
    size_t i;
    cmp_label *l;

    for (i = 0; i < cs->s[0]->ng; i++) {
        const char *name = group_label(cs->s[0], i);
        if (find_label(cs->s[0], name, NULL) != i)
            continue; /* another kind of dumps of a label already paired */
        l = label_add(cs, name);
        l->gi[0] = i;
        l->gi[1] = find_label(cs->s[1], name, cs->s[0]->g[i].meta);
    }
    for (i = 0; i < cs->s[1]->ng; i++) {
        const char *name = group_label(cs->s[1], i);
        if (find_label(cs->s[1], name, NULL) != i || find_label(cs->s[0], name, NULL) != SIZE_MAX)
            continue;
        l = label_add(cs, name);
        l->gi[1] = i;
    }
    if (cs->n > 1)
        qsort(cs->v, cs->n, sizeof *cs->v, label_cmp);
}

/* Labels on one side only, labels with calls on one side only. */
static void
suite_warnings(cmp_suite *cs)
{
    size_t i, k, j;
    int side;

    for (side = 0; side < 2; side++) {
        char names[512];
        size_t used = 0, odd = 0;
        names[0] = '\0';
        for (i = 0; i < cs->n; i++) {
            const cmp_label *l = &cs->v[i];
            if (l->gi[side] == SIZE_MAX || l->gi[!side] != SIZE_MAX)
                continue;
            if (odd++ < 5 && used < sizeof names) {
                char *d = text_display(l->label);
                used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'",
                                         used ? ", " : "", d);
                free(d);
            }
        }
        if (odd)
            suite_warn(cs, "%zu %s only in %s (%s%s): not compared", odd,
                       odd == 1 ? "label is" : "labels are", side ? "head" : "base", names,
                       odd > 5 ? ", ..." : "");
    }
    for (i = 0; i < cs->n; i++) {
        const cmp_label *l = &cs->v[i];
        if (l->gi[0] != SIZE_MAX && l->gi[1] != SIZE_MAX && !l->whole && isnan(l->per_call[0])) {
            char *d = text_display(l->label);
            suite_warn(cs,
                       "'%s' has benchmark calls (benchmark.calls) in %s only: it is not "
                       "compared per call, and left out of the geometric mean",
                       d, l->calls[0] ? "base" : "head");
            free(d);
        }
        /* The benchmarks' own warnings, each said once. */
        for (k = 0; l->built && k < l->c.nwarn; k++) {
            for (j = 0; j < cs->nwarn; j++)
                if (strcmp(cs->warn[j], l->c.warn[k]) == 0)
                    break;
            if (j == cs->nwarn)
                suite_warn(cs, "%s", l->c.warn[k]);
        }
    }
}

void
cmp_suite_build(cmp_suite *cs, const summary *base, char **base_in, const summary *head,
                char **head_in, double min_change, int top)
{
    double logsum = 0;
    size_t i;

    memset(cs, 0, sizeof *cs);
    cs->s[0] = base;
    cs->s[1] = head;
    cs->inputs[0] = base_in;
    cs->inputs[1] = head_in;
    cs->min_change = min_change;
    cs->top = top;
    pair_labels(cs);
    for (i = 0; i < cs->n; i++) {
        cmp_label *l = &cs->v[i];
        label_figures(cs, l);
        if (l->gi[0] != SIZE_MAX && l->gi[1] != SIZE_MAX) {
            cmp_build_groups(&l->c, base, l->gi[0], base_in, 1, head, l->gi[1], head_in, 1,
                             min_change, top, 1);
            l->built = 1;
        }
        if (l->per_call[0] > 0 && l->per_call[1] > 0) {
            logsum += log(l->per_call[1] / l->per_call[0]);
            cs->ngeo++;
        }
    }
    cs->geo_ratio = cs->ngeo ? exp(logsum / (double)cs->ngeo) : NAN;
    suite_warnings(cs);
}

void
cmp_suite_free(cmp_suite *cs)
{
    size_t i;

    for (i = 0; i < cs->n; i++)
        if (cs->v[i].built)
            cmp_free(&cs->v[i].c);
    free(cs->v);
    for (i = 0; i < cs->nwarn; i++)
        free(cs->warn[i]);
    free(cs->warn);
    memset(cs, 0, sizeof *cs);
}

/* The section a benchmark's changes per call are read from: the
 * instructions by meaning across adjacent versions, else the
 * instructions, or their families when the sides count differently. */
static const cmp_section *
label_section(const cmp_label *l)
{
    const cmp_section *s;

    if (!l->built)
        return NULL;
    /* Across adjacent versions, renamed instructions counted as one. */
    s = cmp_find_section(&l->c, "meaning");
    return s ? s : cmp_find_section(&l->c, l->c.by_family ? "family" : "execution");
}

/* Row r's count per call on side k (NaN without calls). */
static double
row_per_call(const cmp_label *l, const cmp_row *r, int k)
{
    uint64_t n = k ? r->head_n : r->base_n;

    if (l->whole)
        return (double)n;
    return l->calls[k] ? (double)n / (double)l->calls[k] : NAN;
}

/* The rows of l's section, most changed per call first (indices into
 * the section; the caller frees). */
static size_t *
rows_by_change(const cmp_label *l, const cmp_section *s)
{
    size_t *ix = cli_xcalloc(s->n ? s->n : 1, sizeof *ix), i, j, t;

    for (i = 0; i < s->n; i++)
        ix[i] = i;
    /* Insertion sort: a few hundred instructions at most. */
    for (i = 1; i < s->n; i++)
        for (j = i; j > 0; j--) {
            const cmp_row *a = &s->rows[ix[j - 1]], *b = &s->rows[ix[j]];
            double da = fabs(row_per_call(l, a, 1) - row_per_call(l, a, 0));
            double db = fabs(row_per_call(l, b, 1) - row_per_call(l, b, 0));
            if (!(db > da))
                break;
            t = ix[j];
            ix[j] = ix[j - 1];
            ix[j - 1] = t;
        }
    return ix;
}

/* ---- the document --------------------------------------------------------- */

static void
fmt_num(char *buf, size_t size, double x)
{
    char tmp[64], *dot;
    size_t len, i, j = 0, intlen;

    if (isnan(x)) {
        snprintf(buf, size, "—");
        return;
    }
    snprintf(tmp, sizeof tmp, "%.1f", fabs(x));
    len = strlen(tmp);
    dot = strchr(tmp, '.');
    intlen = dot ? (size_t)(dot - tmp) : len;
    if (x < 0 && j + 2 < size)
        buf[j++] = '-';
    for (i = 0; i < len && j + 2 < size; i++) {
        if (i > 0 && i < intlen && (intlen - i) % 3 == 0)
            buf[j++] = ',';
        buf[j++] = tmp[i];
    }
    buf[j] = '\0';
}

static void
fmt_pct(char *buf, size_t size, double rel)
{
    if (isnan(rel))
        snprintf(buf, size, "—");
    else if (isinf(rel))
        snprintf(buf, size, "%s", rel > 0 ? "new" : "gone");
    else if (fabs(rel) < 0.0005)
        snprintf(buf, size, "0.0%%");
    else
        snprintf(buf, size, "%+.1f%%", rel * 100.0);
}

static void
fmt_calls(char *buf, size_t size, const cmp_label *l, int k)
{
    if (l->gi[k] == SIZE_MAX || l->whole || !l->calls[k])
        snprintf(buf, size, "—");
    else
        cli_count_str(buf, size, l->calls[k]);
}

static void
suite_row(doc *d, const cmp_label *l)
{
    char t[64];
    int k;

    doc_row_begin(d);
    doc_cell(d);
    {
        char *name = text_display(l->label);
        doc_name(d, *name ? name : "(no label)");
        free(name);
    }
    for (k = 0; k < 2; k++) {
        fmt_calls(t, sizeof t, l, k);
        doc_cell_text(d, t);
    }
    for (k = 0; k < 2; k++) {
        fmt_num(t, sizeof t, l->per_call[k]);
        doc_cell_text(d, l->gi[k] == SIZE_MAX ? "(absent)" : t);
    }
    fmt_pct(t, sizeof t, l->rel);
    doc_cell_text(d, t);
    if (isnan(l->rel))
        doc_cell_text(d, "—");
    else
        doc_cell_textf(d, "%.3fx", l->rel + 1.0);
}

static void
suite_table(doc *d, const cmp_suite *cs)
{
    size_t i;
    char t[64];

    doc_heading(d, 2);
    doc_text(d, "Benchmarks");
    doc_para(d);
    doc_text(d, "Instructions executed per benchmark call (benchmark.calls: the loops pyperf "
                "ran, whatever it calibrated on each side), each benchmark against itself. "
                "Geometric mean: of the ratios head / base, as pyperf's compare_to computes "
                "its own.");
    doc_table(d, "lrrrrrr", "Benchmark", "Base calls", "Head calls", "Base /call", "Head /call",
              "Change /call", "Ratio");
    for (i = 0; i < cs->n; i++)
        suite_row(d, &cs->v[i]);
    doc_row_begin(d);
    doc_cell(d);
    doc_bold(d, "Geometric mean");
    for (i = 0; i < 4; i++)
        doc_cell_none(d);
    fmt_pct(t, sizeof t, cs->geo_ratio - 1.0);
    doc_cell_text(d, t);
    if (isnan(cs->geo_ratio))
        doc_cell_text(d, "—");
    else
        doc_cell_textf(d, "%.3fx", cs->geo_ratio);
}

/* "LOAD_ATTR +12.0 (+3.1%)": the biggest changes per call of a benchmark. */
static void
label_changes(doc *d, const cmp_label *l)
{
    const cmp_section *s = label_section(l);
    size_t *ix, i, shown = 0;
    char a[64], b[64];

    if (s == NULL)
        return;
    ix = rows_by_change(l, s);
    doc_item(d);
    for (i = 0; i < s->n && shown < LABEL_HEADLINE_ROWS; i++) {
        const cmp_row *r = &s->rows[ix[i]];
        double pb = row_per_call(l, r, 0), ph = row_per_call(l, r, 1);
        if (isnan(pb) || isnan(ph) || ph == pb)
            continue;
        doc_text(d, shown ? ", " : l->whole ? "Biggest changes: " : "Biggest changes per call: ");
        doc_name(d, r->name);
        fmt_num(a, sizeof a, ph - pb);
        fmt_pct(b, sizeof b, pb > 0 ? ph / pb - 1.0 : (ph > 0 ? INFINITY : NAN));
        doc_textf(d, " %s%s (%s)", ph > pb ? "+" : "", a, b);
        shown++;
    }
    if (!shown)
        doc_text(d, "No instruction's count per call changed");
    free(ix);
}

/* Number of units a rename counts one execution as ("LOAD_CONST
 * RETURN_VALUE": 2). */
static unsigned
units_of(const char *u)
{
    unsigned n = 1;

    for (; *u; u++)
        n += *u == ' ';
    return n;
}

/* The renames the benchmark ran, per call, and what the splits and merges
 * do to the instruction count: side k's executions of a row counted as n
 * units are n - 1 instructions fewer than the units (head minus base). */
static void
label_renames(doc *d, const cmp_label *l)
{
    double net = 0;
    size_t k;
    char t[64];

    if (!l->built || l->c.nren == 0 || l->whole || !l->calls[0] || !l->calls[1])
        return;
    doc_item(d);
    doc_text(d, "Counted by meaning: ");
    for (k = 0; k < l->c.nren; k++) {
        const struct cmp_rename *r = &l->c.ren[k];
        double pc = (double)r->n / (double)l->calls[r->side];
        unsigned u = units_of(r->row->units);
        net += (r->side ? -1.0 : 1.0) * pc * (double)(u - 1);
        if (k)
            doc_text(d, ", ");
        doc_code(d, r->row->name);
        doc_text(d, " as ");
        doc_code(d, r->row->units);
        fmt_num(t, sizeof t, pc);
        doc_textf(d, " (%s per call)", t);
    }
    fmt_num(t, sizeof t, net);
    doc_textf(d, "; their splits and merges: %s%s instructions per call", net > 0 ? "+" : "", t);
}

static void
label_doc(doc *d, const cmp_label *l)
{
    char a[64], b[64], e[64], *name = text_display(l->label);

    doc_heading(d, 3);
    doc_name(d, *name ? name : "(no label)");
    free(name);
    if (l->gi[0] == SIZE_MAX || l->gi[1] == SIZE_MAX) {
        doc_para(d);
        doc_textf(d, "Only in %s: not compared.", l->gi[0] == SIZE_MAX ? "head" : "base");
        return;
    }
    fmt_num(a, sizeof a, l->per_call[0]);
    fmt_num(b, sizeof b, l->per_call[1]);
    fmt_pct(e, sizeof e, l->rel);
    doc_item(d);
    if (l->whole)
        doc_textf(d,
                  "Instructions executed (no benchmark calls in the dumps): %s (base), %s "
                  "(head), %s",
                  a, b, e);
    else {
        char cb[32], ch[32];
        cli_count_str(cb, sizeof cb, l->calls[0]);
        cli_count_str(ch, sizeof ch, l->calls[1]);
        doc_textf(d, "Instructions per call: %s (base, %s calls), %s (head, %s calls), %s", a, cb,
                  b, ch, e);
    }
    label_changes(d, l);
    label_renames(d, l);
}

void
cmp_suite_doc(doc *d, const cmp_suite *cs)
{
    size_t i, both = 0;
    char t[64];

    doc_heading(d, 1);
    doc_text(d, "pystats comparison by benchmark");
    doc_para(d);
    doc_text(d, "Report by pystats " PSF_VERSION ".");
    for (i = 0; i < cs->n; i++)
        both += cs->v[i].gi[0] != SIZE_MAX && cs->v[i].gi[1] != SIZE_MAX;
    doc_heading(d, 2);
    doc_text(d, "Headline");
    doc_item(d);
    doc_textf(d, "Benchmarks compared: %zu of %zu labels", both, cs->n);
    doc_item(d);
    fmt_pct(t, sizeof t, cs->geo_ratio - 1.0);
    if (cs->ngeo)
        doc_textf(d,
                  "Instructions per benchmark call, geometric mean of head / base over %zu "
                  "benchmarks: %.3fx (%s)",
                  cs->ngeo, cs->geo_ratio, t);
    else
        doc_text(d, "No benchmark has instructions per call on both sides");
    for (i = 0; i < cs->nwarn; i++) {
        doc_para(d);
        doc_bold(d, "Warning:");
        doc_text(d, " ");
        doc_name(d, cs->warn[i]);
        doc_text(d, ".");
    }
    suite_table(d, cs);
    doc_heading(d, 2);
    doc_text(d, "Each benchmark");
    for (i = 0; i < cs->n; i++)
        label_doc(d, &cs->v[i]);
}

int
cmp_suite_markdown(FILE *out, const cmp_suite *cs)
{
    doc d;

    doc_init(&d);
    cmp_suite_doc(&d, cs);
    return doc_print_md_free(out, &d);
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *
jreal(double x)
{
    return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

static void
set(json_t *o, const char *k, json_t *v)
{
    text_json_set_raw(o, k, v);
}

static json_t *
label_side(const cmp_suite *cs, const cmp_label *l, int k)
{
    json_t *o = json_object();
    const agg_group *g;
    char t[16];

    if (l->gi[k] == SIZE_MAX)
        return json_null();
    g = cs->s[k]->g[l->gi[k]].meta;
    set(o, "files", text_json_count(g->files));
    snprintf(t, sizeof t, "3.%d", g->minor);
    set(o, "python_version", g->minor ? json_string(t) : json_null());
    set(o, "calls", text_json_count(l->calls[k]));
    set(o, "instructions", text_json_count(l->instr[k]));
    set(o, "per_call", jreal(l->whole ? NAN : l->per_call[k]));
    return o;
}

static json_t *
label_rows(const cmp_label *l)
{
    const cmp_section *s = label_section(l);
    json_t *a = json_array();
    size_t *ix, i;

    if (s == NULL)
        return a;
    ix = rows_by_change(l, s);
    for (i = 0; i < s->n; i++) {
        const cmp_row *r = &s->rows[ix[i]];
        json_t *o = json_object();
        double pb = row_per_call(l, r, 0), ph = row_per_call(l, r, 1);
        set(o, "name", text_json_str(r->name));
        set(o, "base", text_json_count(r->base_n));
        set(o, "head", text_json_count(r->head_n));
        set(o, "base_per_call", jreal(l->whole ? NAN : pb));
        set(o, "head_per_call", jreal(l->whole ? NAN : ph));
        set(o, "rel", jreal(pb > 0 ? ph / pb - 1.0 : NAN));
        json_array_append_new(a, o);
    }
    free(ix);
    return a;
}

static json_t *
label_obj(const cmp_suite *cs, const cmp_label *l)
{
    json_t *o = json_object();
    const cmp_section *s = label_section(l);

    set(o, "label", text_json(l->label));
    set(o, "base", label_side(cs, l, 0));
    set(o, "head", label_side(cs, l, 1));
    set(o, "per_call", json_boolean(!l->whole));
    set(o, "rel", jreal(l->rel));
    set(o, "section", s ? json_string(s->name) : json_null());
    set(o, "rows", label_rows(l));
    return o;
}

int
cmp_suite_json(FILE *out, const cmp_suite *cs)
{
    json_t *root = json_object(), *w = json_array(), *ls = json_array(), *g = json_object();
    json_t *opt = json_object(), *in;
    size_t i;
    int k, ret = -1;

    set(root, "schema", json_string(SUITE_SCHEMA));
    set(root, "pystats", json_string(PSF_VERSION));
    set(opt, "min_change", json_real(cs->min_change));
    set(opt, "top", json_integer(cs->top));
    set(root, "options", opt);
    for (k = 0; k < 2; k++) {
        in = json_array();
        json_array_append_new(in, text_json_str(cs->inputs[k][0]));
        set(root, k ? "head_inputs" : "base_inputs", in);
    }
    for (i = 0; i < cs->nwarn; i++)
        json_array_append_new(w, json_string(cs->warn[i]));
    set(root, "warnings", w);
    for (i = 0; i < cs->n; i++)
        json_array_append_new(ls, label_obj(cs, &cs->v[i]));
    set(root, "labels", ls);
    set(g, "ratio", jreal(cs->geo_ratio));
    set(g, "rel", jreal(cs->geo_ratio - 1.0));
    set(g, "labels", text_json_count(cs->ngeo));
    set(root, "geometric_mean", g);
    if (text_json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0 &&
        fputc('\n', out) != EOF && !ferror(out))
        ret = 0;
    json_decref(root);
    return ret;
}
