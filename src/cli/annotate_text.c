/* annotate_text.c: the source view on a terminal: each chosen function's
 * lines with their counts, and under a line its sites. */
#include "annotate.h"

#include "cli.h"

#include <stdio.h>
#include <string.h>

static void
share(char *buf, size_t size, uint64_t n, uint64_t total)
{
    if (total == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.1f%%", 100.0 * (double)n / (double)total);
}

/* The function's figures in the base run. */
static void
base_head(FILE *out, const annotate *a, const a_fn *f)
{
    char says[512];

    annotate_base_says(a, f, says, sizeof says);
    fprintf(out, "   (%s)\n", says);
}

/* Per million here, there, and the change, for one line. */
static void
base_cols(FILE *out, const annotate *a, const a_line *l)
{
    double here = annotate_per_million(a, l->count);
    double there = annotate_per_million(a->base, l->base_count);

    if (!l->counted && !l->has_base) {
        fprintf(out, "%10s %10s %10s ", "", "", "");
        return;
    }
    if (l->counted)
        fprintf(out, "%10.1f ", here);
    else
        fprintf(out, "%10s ", "");
    if (l->has_base)
        fprintf(out, "%10.1f %+10.1f%s", there, here - there,
                a->minor != a->base->minor ? "~" : " ");
    else
        fprintf(out, "%10s %10s ", "-", "new");
}

/* The name a site of line l is listed by (its form, or its family). */
static const char *
site_name(const a_site *s)
{
    return s->state == A_SPECIALIZED ? s->detail : s->family;
}

/* When another site of l reads as s does (same name, same state), what
 * tells s apart: the source it spans, from its position on l's text
 * (plain ASCII up to its end, so that byte columns are characters), or
 * its offset. */
static void
site_apart(FILE *out, const a_fn *f, const a_line *l, const a_site *s)
{
    size_t k;

    for (k = 0; k < l->nsites; k++) {
        const a_site *o = &f->sites[l->site0 + k];
        if (o != s && o->state == s->state && strcmp(site_name(o), site_name(s)) == 0)
            break;
    }
    if (k == l->nsites)
        return;
    if (l->text != NULL && s->line == l->line && s->end_line == l->line && s->col >= 0 &&
        s->end_col > s->col && (size_t)s->end_col <= strlen(l->text)) {
        long i;
        for (i = 0; i < s->end_col && l->text[i] >= 0x20 && l->text[i] < 0x7f; i++)
            ;
        if (i == s->end_col) {
            fprintf(out, " `%.*s`", (int)(s->end_col - s->col), l->text + s->col);
            return;
        }
    }
    fprintf(out, " (offset %ld)", s->offset);
}

/* A line's sites on one line, by state: "specialized: BINARY_OP_ADD_INT;
 * backing off: LOAD_ATTR (3 attempts); never tried: CALL".  A site the
 * dumps disagree on, or whose state the base run differs in, says so;
 * two that read alike are told apart by the source they span. */
static void
sites_line(FILE *out, const a_fn *f, const a_line *l)
{
    const char *sep = "";
    size_t k;
    int st;

    fprintf(out, "%20s", "");
    for (st = 0; st < A_STATE_COUNT; st++) {
        const char *item = "";
        for (k = 0; k < l->nsites; k++) {
            const a_site *s = &f->sites[l->site0 + k];
            if (s->state != st)
                continue;
            if (*item == '\0')
                fprintf(out, "%s%s: ", sep, a_state_words[st]);
            fprintf(out, "%s%s", item, site_name(s));
            if (st == A_BACKING_OFF)
                fprintf(out, " (%s attempts)", s->detail);
            site_apart(out, f, l, s);
            if (s->n < s->ndumps)
                fprintf(out, " [%llu of %llu dumps]", (unsigned long long)s->n,
                        (unsigned long long)s->ndumps);
            if (s->base_state >= 0 && s->base_state != s->state)
                fprintf(out, " [base: %s]", a_state_words[s->base_state]);
            item = ", ";
            sep = "; ";
        }
    }
    fputc('\n', out);
}

static void
fn_text(FILE *out, const annotate *a, size_t i)
{
    const a_fn *f = &a->fn[i];
    char n[32], c[32], sh[16];
    size_t j;

    cli_count_str(n, sizeof n, f->instructions);
    cli_count_str(c, sizeof c, f->calls);
    share(sh, sizeof sh, f->instructions, a->total);
    fprintf(out, "\n== %zu. %s:%ld %s: %s instructions (%s), %s calls ==\n", i + 1, f->file,
            f->first, f->qual, n, sh, c);
    if (f->changed)
        fputs("   (the file changed since the run: the dump's copy of its lines is shown)\n", out);
    if (f->source == A_SRC_NONE)
        fprintf(out, "   (no source: the file is %s; the dumps hold no copy of it)\n", f->nosrc);
    if (a->base)
        base_head(out, a, f);
    fprintf(out, "%14s ", "count");
    if (a->base)
        fprintf(out, "%10s %10s %10s ", "per M", "base per M", "change");
    fprintf(out, "%5s  %s\n", "line", "source");
    for (j = 0; j < f->nlines; j++) {
        const a_line *l = &f->lines[j];
        if (!a_line_shown(l)) {
            if (j == 0 || a_line_shown(&f->lines[j - 1]))
                fprintf(out, "%14s %5s\n", "", "...");
            continue;
        }
        if (l->counted)
            cli_count_str(n, sizeof n, l->count);
        else
            n[0] = '\0';
        fprintf(out, "%14s ", n);
        if (a->base)
            base_cols(out, a, l);
        fprintf(out, "%5ld  %s\n", l->line, l->text ? l->text : "");
        if (l->nsites)
            sites_line(out, f, l);
    }
    if (f->no_line || (f->base && f->base->no_line)) {
        a_line nl = {.counted = f->no_line != 0, .count = f->no_line};
        nl.has_base = f->base && f->base->no_line;
        nl.base_count = f->base ? f->base->no_line : 0;
        cli_count_str(n, sizeof n, f->no_line);
        fprintf(out, "%14s ", n);
        if (a->base)
            base_cols(out, a, &nl);
        fprintf(out, "%5s  (instructions with no line: exception clean-up)\n", "-");
    }
    if (f->unplaced)
        fprintf(out, "%20s%zu sites have no position on these lines\n", "", f->unplaced);
    if (f->beyond)
        fprintf(out, "%20s%llu instructions on lines past %ld, the view's bound of %ld lines\n", "",
                (unsigned long long)f->beyond, f->lines[f->nlines - 1].line, A_SPAN_MAX);
}

int
annotate_text(FILE *out, const annotate *a)
{
    char t[32];
    size_t i;

    cli_count_str(t, sizeof t, a->total);
    fprintf(out, "Source view: exact instructions per line, %s in %zu code objects", t,
            a->with_lines);
    if (a->minor)
        fprintf(out, " (Python 3.%d)", a->minor);
    fputs(".\n", out);
    if (a->m->hot_out) {
        cli_count_str(t, sizeof t, a->m->hot_out);
        fprintf(out, "%s code objects of other code left out (--code, --no-stdlib).\n", t);
    }
    if (a->m->lines_omitted)
        fprintf(out,
                "%llu more code objects ran but have no per-line counts: past the dump's "
                "bound on lines (FORMAT.md 1.18).\n",
                (unsigned long long)a->m->lines_omitted);
    if (a->trust)
        fprintf(out, "Trust: %s\n", a->trust);
    if (a->base) {
        cli_count_str(t, sizeof t, a->base->total);
        fprintf(out, "Against a base run: %s instructions in %zu code objects (Python 3.%d)", t,
                a->base->with_lines, a->base->minor);
        if (a->base->trust)
            fprintf(out, "; its trust: %s", a->base->trust);
        fputs(".\nChanges are per million instructions of each run.\n", out);
    }
    if (!annotate_has_sites(a))
        fputs(a->m->has_census ? "No site states for the functions shown: the census's rows "
                                 "are of the hottest code, within the dumps' caps.\n"
                               : "No site states in these dumps: they come with the census, in "
                                 "mode count on 3.12+.\n",
              out);
    else
        fprintf(out,
                "Sites of the functions shown: %llu specialized, %llu backing off, %llu never "
                "tried, %llu not read (instrumented while counting).\n",
                (unsigned long long)a->site_states[A_SPECIALIZED],
                (unsigned long long)a->site_states[A_BACKING_OFF],
                (unsigned long long)a->site_states[A_NEVER_TRIED],
                (unsigned long long)a->site_states[A_EXCLUDED]);
    for (i = 0; i < a->nfn; i++)
        fn_text(out, a, i);
    return ferror(out) ? -1 : 0;
}
