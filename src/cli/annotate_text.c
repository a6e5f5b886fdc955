/* annotate_text.c: the source view on a terminal: each chosen function's
 * lines with their counts, and under a line its sites. */
#include "annotate.h"

#include "cli.h"

#include <stdio.h>

static void
share(char *buf, size_t size, uint64_t n, uint64_t total)
{
    if (total == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.1f%%", 100.0 * (double)n / (double)total);
}

static void
site_line(FILE *out, const a_site *s)
{
    fprintf(out, "%18s%s %s", "", s->family, a_state_words[s->state]);
    if (s->state == A_SPECIALIZED)
        fprintf(out, ": %s", s->detail);
    else if (s->state == A_BACKING_OFF)
        fprintf(out, ": %s failed attempts", s->detail);
    if (s->col >= 0)
        fprintf(out, "  (col %ld-%ld)", s->col, s->end_col);
    if (s->n < s->ndumps)
        fprintf(out, "  [%llu of %llu dumps]", (unsigned long long)s->n,
                (unsigned long long)s->ndumps);
    fputc('\n', out);
}

static void
fn_text(FILE *out, const annotate *a, size_t i)
{
    const a_fn *f = &a->fn[i];
    char n[32], c[32], sh[16];
    size_t j, k;

    cli_count_str(n, sizeof n, f->instructions);
    cli_count_str(c, sizeof c, f->calls);
    share(sh, sizeof sh, f->instructions, a->total);
    fprintf(out, "\n== %zu. %s:%ld %s: %s instructions (%s), %s calls ==\n", i + 1, f->file,
            f->first, f->qual, n, sh, c);
    if (f->changed)
        fputs("   (the file changed since the run: the dump's copy of its lines is shown)\n", out);
    if (f->source == A_SRC_NONE)
        fputs("   (no source: the file is gone and the dump holds no copy of it)\n", out);
    fprintf(out, "%14s %5s  %s\n", "count", "line", "source");
    for (j = 0; j < f->nlines; j++) {
        const a_line *l = &f->lines[j];
        if (l->counted)
            cli_count_str(n, sizeof n, l->count);
        else
            n[0] = '\0';
        fprintf(out, "%14s %5ld  %s\n", n, l->line, l->text ? l->text : "");
        for (k = 0; k < l->nsites; k++)
            site_line(out, &f->sites[l->site0 + k]);
    }
    if (f->no_line) {
        cli_count_str(n, sizeof n, f->no_line);
        fprintf(out, "%14s %5s  (instructions with no line: exception clean-up)\n", n, "-");
    }
    if (f->unplaced)
        fprintf(out, "%20s%zu sites have no position on these lines\n", "", f->unplaced);
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
    if (a->trust)
        fprintf(out, "Trust: %s\n", a->trust);
    fprintf(out,
            "Sites of the functions shown: %llu specialized, %llu backing off, %llu never "
            "tried, %llu not read.\n",
            (unsigned long long)a->site_states[A_SPECIALIZED],
            (unsigned long long)a->site_states[A_BACKING_OFF],
            (unsigned long long)a->site_states[A_NEVER_TRIED],
            (unsigned long long)a->site_states[A_EXCLUDED]);
    for (i = 0; i < a->nfn; i++)
        fn_text(out, a, i);
    return ferror(out) ? -1 : 0;
}
