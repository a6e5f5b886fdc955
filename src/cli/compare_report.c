/* compare_report.c: the comparison as a document (doc.h: printed as
 * Markdown by doc_md.c, as the HTML page by report_html.c) and as JSON
 * (schema "comparison/1", documented in docs/FORMAT.md, section 4). */
#include "../format/psf_version.h"
#include "compare.h"
#include "doc.h"
#include "text.h"
#include "../format/psf_keys.h"

#include "cli.h"
#include "renames.h"

#include <inttypes.h>
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

/* head - base of two counts, exactly, with thousands separators and a
 * sign ("+1", "-1,234", "0"). */
static void
fmt_count_change(char *buf, size_t size, uint64_t base, uint64_t head)
{
    char g[32];

    cli_count_str(g, sizeof g, head >= base ? head - base : base - head);
    snprintf(buf, size, "%s%s", head == base ? "" : head > base ? "+" : "-", g);
}

/* The same as JSON: an integer, or a decimal string (with its sign) when
 * it is beyond a JSON integer's range (FORMAT.md 4). */
static json_t *
json_count_change(uint64_t base, uint64_t head)
{
    uint64_t d = head >= base ? head - base : base - head;
    char t[32];

    if (d <= (uint64_t)INT64_MAX)
        return json_integer(head >= base ? (json_int_t)d : -(json_int_t)d);
    snprintf(t, sizeof t, "%s%" PRIu64, head >= base ? "" : "-", d);
    return json_string(t);
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

/* ---- the document ------------------------------------------------------------- */

static void
strs_runs(doc *d, const summary_texts *s)
{
    size_t i;
    char t[512];

    if (s->n == 0)
        doc_text(d, "—");
    for (i = 0; i < s->n; i++) {
        snprintf(t, sizeof t, "%s%s (%llu)", i ? "; " : "", s->v[i].text,
                 (unsigned long long)s->v[i].n);
        doc_name(d, t);
    }
}

/* A header key of a side and its values, or NULL where no file has it. */
static const summary_hdr *
build_hdr(const summary_meta *a, const char *key)
{
    size_t i;

    for (i = 0; i < a->nhdr; i++)
        if (strcmp(a->hdr[i].key, key) == 0)
            return &a->hdr[i];
    return NULL;
}

static void
build_runs(doc *d, const summary_meta *a)
{
    static const char *const keys[] = {PSF_H_PY_SYS_VERSION, PSF_H_PY_CONFIG_ARGS,
                                       PSF_H_PY_PYSTATS_BUILD, PSF_H_PY_JIT,
                                       PSF_H_PY_FREE_THREADING};
    size_t i, k, shown = 0;

    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const summary_hdr *h = build_hdr(a, keys[i]);
        const summary_texts *v = h ? &h->vals : NULL;
        if (v == NULL)
            continue;
        if (shown++)
            doc_text(d, "; ");
        doc_name(d, keys[i] + strlen(PSF_H_PREFIX_PYTHON));
        doc_text(d, ": ");
        for (k = 0; k < v->n; k++) {
            /* free text in the dump's encoding, shown decoded */
            char *t = h->free_text ? text_display(v->v[k].text) : NULL;
            if (k)
                doc_text(d, ", ");
            doc_name(d, t ? t : v->v[k].text);
            free(t);
        }
    }
    if (!shown)
        doc_text(d, strcmp(a->source, "native") == 0
                        ? "CPython --enable-pystats build (native dumps name no build)"
                        : "—");
}

/* The runs of side i's cell of header row `which`. */
static void
header_runs(doc *d, const cmp *c, int i, int which)
{
    const cmp_side *sd = &c->side[i];
    const summary_meta *a = sd->about;
    size_t k;
    char t[256];

    switch (which) {
    case 0:
        for (k = 0; k < sd->ninputs; k++) {
            if (k)
                doc_text(d, ", ");
            doc_name(d, sd->inputs[k]);
        }
        break;
    case 1:
        cmp_side_title(c, i, t, sizeof t);
        doc_name(d, t);
        break;
    case 2:
        cli_count_str(t, sizeof t, a->files);
        doc_text(d, t);
        break;
    case 3:
        if (a->minor)
            doc_textf(d, "3.%d (", a->minor);
        else
            doc_text(d, "unknown (");
        strs_runs(d, &a->how);
        doc_text(d, ")");
        break;
    case 4:
        doc_name(d, a->counts);
        break;
    case 5:
        for (k = 0; k < a->formats.n; k++)
            doc_textf(d, "%s%s (%llu)", k ? ", " : "", a->formats.v[k].text,
                      (unsigned long long)a->formats.v[k].n);
        break;
    case 6:
        strs_runs(d, &a->collectors);
        break;
    case 7:
        build_runs(d, a);
        break;
    case 8:
        doc_text(d, sd->m->has_pairs ? "yes" : "no");
        break;
    case 9:
        cli_count_str(t, sizeof t, sd->m->total_exec);
        doc_text(d, t);
        break;
    case 10:
        cli_count_str(t, sizeof t, sd->problems);
        doc_text(d, t);
        break;
    default:
        if (a->time_start || a->time_end)
            doc_textf(d, "%s to %s", a->time_start ? a->time_start : "?",
                      a->time_end ? a->time_end : "?");
        else
            doc_text(d, "—");
        break;
    }
}

static void
header_row(doc *d, const cmp *c, const char *label, int which)
{
    int i;

    doc_row_begin(d);
    doc_cell_text(d, label);
    for (i = 0; i < 2; i++) {
        doc_cell(d);
        header_runs(d, c, i, which);
    }
}

static void
cells4(doc *d, const char *a, const char *b, const char *x, const char *e)
{
    doc_cell_text(d, a);
    doc_cell_text(d, b);
    doc_cell_text(d, x);
    doc_cell_text(d, e);
}

/* A per-call section's (hot code) instructions per call and its change. */
static void
per_call_cells(doc *d, const cmp_row *r)
{
    char a[80], b[80], e[80];

    if (isnan(r->base_per_call))
        snprintf(a, sizeof a, "—");
    else
        grouped(a, sizeof a, r->base_per_call, 1);
    if (isnan(r->head_per_call))
        snprintf(b, sizeof b, "—");
    else
        grouped(b, sizeof b, r->head_per_call, 1);
    fmt_rel(e, sizeof e, r->rel_per_call);
    doc_cell_text(d, a);
    doc_cell_text(d, b);
    doc_cell_text(d, e);
}

static void
row_cells(doc *d, const cmp_section *s, const cmp_row *r, int bm, int hm)
{
    char a[80], b[80], x[80], e[80];

    doc_row_begin(d);
    doc_cell_name(d, r->name);
    if (s->kind == CMP_SHARE) {
        fmt_share(a, sizeof a, r->base);
        fmt_share(b, sizeof b, r->head);
        fmt_signed(x, sizeof x, r->change * 100.0, 2, " pp");
        fmt_rel(e, sizeof e, r->rel);
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
        fmt_count_change(x, sizeof x, r->base_n, r->head_n);
        fmt_rel(e, sizeof e, r->rel);
    }
    cells4(d, a, b, x, e);
    if (s->kind == CMP_COUNT && s->normalized) {
        if (s->self_share) {
            fmt_share(a, sizeof a, r->base_pm / 1e6);
            fmt_share(b, sizeof b, r->head_pm / 1e6);
            fmt_signed(x, sizeof x, r->change_pm / 1e4, 2, " pp");
        }
        else {
            grouped(a, sizeof a, r->base_pm, 1);
            grouped(b, sizeof b, r->head_pm, 1);
            fmt_signed(x, sizeof x, r->change_pm, 1, "");
        }
        fmt_rel(e, sizeof e, r->rel_pm);
        cells4(d, a, b, x, e);
    }
    if (s->per_call)
        per_call_cells(d, r);
    doc_cell_textf(d, "%.1f%%", r->weight * 100.0);
}

/* "Only in 3.X (base): ...": the rows of one version's instruction set. */
static void
section_only(doc *d, const cmp *c, const cmp_section *s, int k)
{
    int only = k == 0 ? CMP_ONLY_BASE : CMP_ONLY_HEAD;
    size_t i, listed = 0;

    for (i = 0; i < s->n; i++) {
        if (s->rows[i].only != only)
            continue;
        if (listed == 0) {
            doc_para(d);
            doc_textf(d, "Only in 3.%d (%s): ", c->side[k].about->minor, k == 0 ? "base" : "head");
        }
        if (listed < 40) {
            if (listed)
                doc_text(d, ", ");
            doc_name(d, s->rows[i].name);
        }
        listed++;
    }
    if (listed > 40)
        doc_textf(d, " and %zu more", listed - 40);
    if (listed)
        doc_text(d, ".");
}

static void
section_table(doc *d, const cmp *c, const cmp_section *s)
{
    int norm = s->kind == CMP_COUNT && s->normalized;
    size_t i, k, shown = 0, unfolded = 0;

    doc_table_begin(d, s->per_call ? "lrrrrrrrrrrrr" : norm ? "lrrrrrrrrr" : "lrrrrr");
    doc_cell_text(d, s->col);
    cells4(d, "Base", "Head", "Change", "Change %");
    if (norm && s->self_share)
        cells4(d, "Base self", "Head self", "Self change", "Self change %");
    else if (norm)
        cells4(d, "Base /M", "Head /M", "Change /M", "Change /M %");
    if (s->per_call) {
        doc_cell_text(d, "Base /call");
        doc_cell_text(d, "Head /call");
        doc_cell_text(d, "Change /call %");
    }
    doc_cell_text(d, "Share of change");
    for (i = 0; i < s->n; i++) {
        if (s->rows[i].folded)
            continue;
        unfolded++;
        if (shown >= (size_t)c->top)
            continue;
        row_cells(d, s, &s->rows[i], c->side[0].about->minor, c->side[1].about->minor);
        shown++;
    }
    if (shown == 0) {
        doc_row_begin(d);
        doc_cell_text(d, "(no changes)");
        for (k = 1; k < (s->per_call ? 13u : norm ? 10u : 6u); k++)
            doc_cell_none(d);
    }
    if (s->nfolded == 0 && unfolded <= shown)
        return;
    doc_para(d);
    if (s->nfolded)
        doc_textf(d, "%zu %s less than %g%%%s and %s folded away. ", s->nfolded,
                  s->nfolded == 1 ? "row changed" : "rows changed", c->min_change,
                  s->kind == CMP_SHARE ? " (in points)" : "", s->nfolded == 1 ? "is" : "are");
    if (unfolded > shown)
        doc_textf(d, "%zu more %s below the top %d. ", unfolded - shown,
                  unfolded - shown == 1 ? "row is" : "rows are", c->top);
    doc_text(d, "The JSON output (--json) has every row.");
}

static void
section_doc(doc *d, const cmp *c, const cmp_section *s)
{
    doc_heading(d, 2);
    doc_text(d, s->title);
    if (strcmp(s->name, "total") != 0)
        doc_figure(d, DOC_FIG_DIVERGING, s);
    doc_para(d);
    doc_text(d, "Section ");
    doc_code(d, s->name);
    doc_text(d, ".");
    if (s->note)
        doc_textf(d, " %s", s->note);
    if (s->kind == CMP_SHARE)
        doc_text(d, " Changes in percentage points (pp).");
    else if (s->normalized && !s->self_share)
        doc_text(d, " /M: per million instructions executed on that side.");
    section_only(d, c, s, 0);
    section_only(d, c, s, 1);
    section_table(d, c, s);
}

/* The headline: each side's instructions, the biggest changes of the
 * execution counts per million instructions, and --fail-if's result. */
#define HEADLINE_ROWS 3

/* The renamed instructions the sides ran, most executed first (up to
 * HEADLINE_RENAMES): "LOAD_FAST_BORROW (3.14) counted as LOAD_FAST:
 * 1,234 executions". */
#define HEADLINE_RENAMES 5

static void
headline_renames(doc *d, const cmp *c)
{
    size_t i, k, best, shown = 0;
    unsigned char *done;
    char t[32];

    if (c->nren == 0)
        return;
    done = cli_xcalloc(c->nren, 1);
    doc_item(d);
    doc_textf(d, "Renamed, split or merged between 3.%d and 3.%d, counted by meaning: ",
              c->side[c->ren_old].about->minor, c->side[!c->ren_old].about->minor);
    for (i = 0; i < c->nren && i < HEADLINE_RENAMES; i++) {
        best = c->nren;
        for (k = 0; k < c->nren; k++)
            if (!done[k] && (best == c->nren || c->ren[k].n > c->ren[best].n))
                best = k;
        done[best] = 1;
        if (shown++)
            doc_text(d, "; ");
        doc_code(d, c->ren[best].row->name);
        doc_textf(d, " (3.%d, %s) as ", c->side[c->ren[best].side].about->minor,
                  ren_kind_name[c->ren[best].row->kind]);
        doc_code(d, c->ren[best].row->units);
        cli_count_str(t, sizeof t, c->ren[best].n);
        doc_textf(d, ": %s", t);
    }
    if (c->nren > HEADLINE_RENAMES)
        doc_textf(d, "; and %zu more (section meaning)", c->nren - HEADLINE_RENAMES);
    free(done);
}

/* "Hot code moved between modules: 22 code objects (pathlib →
 * pathlib._local: 22)", the first HEADLINE_MOVES pairs of locations in
 * the section's order. */
#define HEADLINE_MOVES 3

static size_t
move_locs(const cmp_row *r)
{
    return (size_t)(strrchr(r->name, ':') - r->name);
}

static void
headline_moves(doc *d, const cmp *c)
{
    const cmp_section *s = cmp_find_section(c, "hot_code");
    size_t i, k, n = 0, shown = 0, first[HEADLINE_MOVES];

    for (i = 0; s && i < s->n; i++)
        n += s->rows[i].moved_from != NULL;
    if (n == 0)
        return;
    doc_item(d);
    doc_textf(d, "Hot code moved between modules: %zu code objects, each one row (", n);
    for (i = 0; i < s->n && shown < HEADLINE_MOVES; i++) {
        const cmp_row *r = &s->rows[i];
        size_t len = move_locs(r), same = 0;
        char *locs;
        if (r->moved_from == NULL)
            continue;
        for (k = 0; k < shown; k++)
            if (move_locs(&s->rows[first[k]]) == len &&
                memcmp(s->rows[first[k]].name, r->name, len) == 0)
                break;
        if (k < shown)
            continue;
        first[shown++] = i;
        for (k = 0; k < s->n; k++)
            same += s->rows[k].moved_from && move_locs(&s->rows[k]) == len &&
                    memcmp(s->rows[k].name, r->name, len) == 0;
        locs = cli_xstrndup(r->name, len);
        doc_text(d, shown > 1 ? "; " : "");
        doc_name(d, locs);
        doc_textf(d, ": %zu", same);
        free(locs);
    }
    doc_text(d, ")");
}

static void
headline(doc *d, const cmp *c)
{
    const cmp_section *ex = cmp_find_section(c, "meaning");
    uint64_t b = c->side[0].m->total_exec, h = c->side[1].m->total_exec;
    char nb[32], nh[32], t[64];
    size_t i, shown = 0;

    doc_heading(d, 2);
    doc_text(d, "Headline");
    cli_count_str(nb, sizeof nb, b);
    cli_count_str(nh, sizeof nh, h);
    fmt_rel(t, sizeof t, b ? (h >= b ? (double)(h - b) : -(double)(b - h)) / (double)b : NAN);
    doc_item(d);
    doc_textf(d, "Instructions executed: %s (base), %s (head)%s%s", nb, nh, *t ? ", " : "", t);
    if (ex == NULL)
        ex = cmp_find_section(c, c->by_family ? "family" : "execution");
    if (ex != NULL && ex->normalized) {
        doc_item(d);
        for (i = 0; i < ex->n && shown < HEADLINE_ROWS; i++) {
            const cmp_row *r = &ex->rows[i];
            if (r->folded || !(r->change_pm == r->change_pm) || r->change_pm == 0)
                continue;
            doc_text(d, shown                              ? ", "
                        : strcmp(ex->name, "meaning") == 0 ? "Biggest changes per million "
                                                             "instructions, by meaning: "
                                                           : "Biggest changes per million "
                                                             "instructions: ");
            doc_name(d, r->name);
            fmt_signed(t, sizeof t, r->change_pm, 0, "");
            doc_textf(d, " %s", t);
            fmt_rel(t, sizeof t, r->rel_pm);
            if (*t)
                doc_textf(d, " (%s)", t);
            shown++;
        }
        if (!shown)
            doc_text(d, "No execution count changed by more than the threshold");
    }
    headline_renames(d, c);
    headline_moves(d, c);
    if (c->fail_if != NULL && c->fail_result >= 0) {
        doc_item(d);
        doc_code(d, "--fail-if");
        doc_text(d, " ");
        doc_name(d, c->fail_if);
        doc_text(d, ": ");
        if (c->fail_result) {
            doc_bold(d, "true");
            doc_text(d, " (the comparison fails)");
        }
        else {
            doc_text(d, "false (held)");
        }
    }
}

void
cmp_report_doc(doc *d, const cmp *c)
{
    static const char *const labels[] = {
        "Inputs",     "Dumps", "Files",       "Python version",        "Counts",         "Formats",
        "Collectors", "Build", "Pair counts", "Instructions executed", "Input problems", "Time",
    };
    size_t i;

    doc_heading(d, 1);
    doc_text(d, "pystats comparison");
    doc_para(d);
    doc_text(d, "Report by pystats " PSF_VERSION ".");
    headline(d, c);
    doc_table(d, "lll", NULL, "Base", "Head");
    for (i = 0; i < sizeof labels / sizeof labels[0]; i++)
        header_row(d, c, labels[i], (int)i);
    for (i = 0; i < c->nwarn; i++) {
        doc_para(d);
        doc_bold(d, "Warning:");
        doc_text(d, " ");
        doc_name(d, c->warn[i]);
        doc_text(d, ".");
    }
    doc_para(d);
    doc_textf(d,
              "Rows are sorted by their share of the section's total change "
              "(counts: change per million instructions; shares: change in points); "
              "rows that changed less than %g%% are folded away%s.",
              c->min_change, c->by_family ? "; compared by family only" : "");
    for (i = 0; i < c->nsec; i++)
        section_doc(d, c, &c->sec[i]);
}

int
cmp_report_markdown(FILE *out, const cmp *c)
{
    doc d;

    doc_init(&d);
    cmp_report_doc(&d, c);
    return doc_print_md_free(out, &d);
}

/* ---- JSON ------------------------------------------------------------------ */

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


/* {text: files}; encoded: the texts are free text in the dump's
 * encoding, written decoded (one that does not decode, as it is). */
static json_t *
strs_obj(const summary_texts *s, int encoded)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; i < s->n; i++)
        if (!encoded || text_json_set(o, s->v[i].text, text_json_count(s->v[i].n)) < 0)
            set(o, s->v[i].text, text_json_count(s->v[i].n));
    return o;
}

static json_t *
side_obj(const cmp *c, int i)
{
    const cmp_side *sd = &c->side[i];
    const summary_meta *a = sd->about;
    json_t *o = json_object(), *in = json_array(), *f = json_object(), *b = json_object();
    char t[256];
    size_t k;

    for (k = 0; k < sd->ninputs; k++)
        json_array_append_new(in, text_json_str(sd->inputs[k]));
    set(o, "inputs", in);
    cmp_side_title(c, i, t, sizeof t);
    set(o, "title", json_string(t));
    set(o, "groups", text_json_count(sd->s->ng));
    set(o, "files", text_json_count(a->files));
    set(o, "source", json_string(a->source));
    if (a->minor) {
        snprintf(t, sizeof t, "3.%d", a->minor);
        set(o, "python_version", json_string(t));
    }
    else {
        set(o, "python_version", json_null());
    }
    set(o, "counts", json_string(a->counts));
    for (k = 0; k < a->formats.n; k++)
        set(f, a->formats.v[k].text, text_json_count(a->formats.v[k].n));
    set(o, "formats", f);
    set(o, "collectors", strs_obj(&a->collectors, 0));
    for (k = 0; k < a->nhdr; k++) /* the python.* keys, in the group's order */
        if (strncmp(a->hdr[k].key, PSF_H_PREFIX_PYTHON, sizeof PSF_H_PREFIX_PYTHON - 1) == 0)
            set(b, a->hdr[k].key, strs_obj(&a->hdr[k].vals, a->hdr[k].free_text));
    set(o, "build", b);
    set(o, "pair_counts", json_boolean(sd->m->has_pairs));
    set(o, "total_execution_count", text_json_count(sd->m->total_exec));
    if (a->leftover_bound)
        set(o, "leftover_bound", text_json_count(a->leftover_bound));
    set(o, "problems", text_json_count(sd->problems));
    return o;
}

static json_t *
row_obj(const cmp_section *s, const cmp_row *r)
{
    json_t *o = json_object();

    set(o, "name", text_json_str(r->name));
    if (r->only)
        set(o, "only", json_string(cmp_only_name[r->only]));
    if (r->moved_from) {
        /* The move's name is the base's location, the arrow, the head's name. */
        size_t at = (size_t)(strrchr(r->moved_from, ':') - r->moved_from);
        set(o, "base_name", text_json_str(r->moved_from));
        set(o, "head_name", text_json_str(r->name + at + strlen(CMP_MOVE_ARROW)));
    }
    if (s->kind == CMP_COUNT) {
        set(o, "base", text_json_count(r->base_n));
        set(o, "head", text_json_count(r->head_n));
        set(o, "change", json_count_change(r->base_n, r->head_n));
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
    if (s->per_call) {
        set(o, "base_calls", text_json_count(r->base_calls));
        set(o, "head_calls", text_json_count(r->head_calls));
        set(o, "base_per_call", jreal(r->base_per_call));
        set(o, "head_per_call", jreal(r->head_per_call));
        set(o, "rel_per_call", jreal(r->rel_per_call));
    }
    set(o, "weight", json_real(r->weight));
    set(o, "folded", json_boolean(r->folded));
    return o;
}

/* The renamed instructions the sides ran (renames.h). */
static json_t *
renames_arr(const cmp *c)
{
    json_t *a = json_array();
    char t[16];
    size_t k;

    for (k = 0; k < c->nren; k++) {
        json_t *o = json_object();
        set(o, "name", json_string(c->ren[k].row->name));
        snprintf(t, sizeof t, "3.%d", c->side[c->ren[k].side].about->minor);
        set(o, "python_version", json_string(t));
        set(o, "side", json_string(c->side[c->ren[k].side].label));
        set(o, "as", json_string(c->ren[k].row->units));
        set(o, "kind", json_string(ren_kind_name[c->ren[k].row->kind]));
        set(o, "executions", text_json_count(c->ren[k].n));
        json_array_append_new(a, o);
    }
    return a;
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
        set(so, "folded", text_json_count(s->nfolded));
        for (k = 0; k < s->n; k++)
            json_array_append_new(rows, row_obj(s, &s->rows[k]));
        set(so, "rows", rows);
        set(secs, s->name, so);
    }
    set(root, "sections", secs);
    set(root, "renames", renames_arr(c));
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
