/* check_report.c: writing a check set's findings, as text for people and
 * as JSON (schema 1) for tools. */
#include "check_int.h"
#include "text.h"

#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_FILES CHECK_SHOWN_FILES     /* files shown per finding without all_files */
#define TEXT_DETAILS CHECK_SHOWN_DETAILS /* detail lines shown per finding */

/* Words of s, wrapped at 78 columns, each line after `indent` blanks. */
static void
wrap(FILE *out, const char *s, int indent)
{
    int col = indent;

    fprintf(out, "%*s", indent, "");
    while (*s) {
        size_t n = strcspn(s, " ");
        if (col > indent && col + 1 + (int)n > 78) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        }
        else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fwrite(s, 1, n, out);
        col += (int)n;
        s += n;
        while (*s == ' ')
            s++;
    }
    fputc('\n', out);
}

int
check_report_text(const check_set *c, FILE *out, int all_files)
{
    char verdict[1024];
    size_t i, j;

    for (i = 0; i < c->nfd; i++) {
        const ck_finding *d = c->fd[i];
        size_t nf = all_files ? d->nfiles : (d->nfiles > TEXT_FILES ? TEXT_FILES : d->nfiles);
        size_t nd =
            all_files ? d->ndetails : (d->ndetails > TEXT_DETAILS ? TEXT_DETAILS : d->ndetails);

        fprintf(out, "%-7s %s: %s\n", check_severity_name[d->severity], check_info[d->id].name,
                check_info[d->id].title);
        /* Summaries, details and files name files and values of the
         * inputs: escaped (cli_esc). */
        if (*d->summary) {
            char *t = cli_esc_dup(d->summary);
            wrap(out, t, 8);
            free(t);
        }
        for (j = 0; j < nd; j++) {
            fputs("        - ", out);
            cli_fput_esc(out, d->details[j]);
            fputc('\n', out);
        }
        if (nd < d->ndetails)
            fprintf(out, "        - ... and %zu more\n", d->ndetails - nd);
        /* Files are named in the details where there are details. */
        if (d->ndetails == 0 && d->nfiles) {
            for (j = 0; j < nf; j++) {
                fputs(j ? "               " : "        files: ", out);
                cli_fput_esc(out, d->files[j]);
                fputc('\n', out);
            }
            if (nf < d->nfiles)
                fprintf(out, "               ... and %zu more (--all-files)\n", d->nfiles - nf);
        }
        wrap(out, check_info[d->id].why, 8);
        fputc('\n', out);
    }
    fprintf(out, "verdict: %s\n", check_verdict(c, verdict, sizeof verdict));
    return ferror(out) ? -1 : 0;
}

int
check_report_json(const check_set *c, FILE *out)
{
    json_t *root = json_object(), *fs = json_array(), *counts = json_object();
    char verdict[1024];
    size_t i;
    int ret;

    check_verdict(c, verdict, sizeof verdict);
    json_object_set_new(root, "schema", json_integer(1));
    json_object_set_new(root, "verdict", json_string(check_verdict_word(c)));
    json_object_set_new(root, "verdict_line", text_json_str(verdict));
    json_object_set_new(root, "files", json_integer((json_int_t)c->nfiles));
    for (i = CHECK_SEVERITY_COUNT; i-- > 0;)
        json_object_set_new(counts, check_severity_name[i], json_integer((json_int_t)c->count[i]));
    json_object_set_new(root, "counts", counts);
    for (i = 0; i < c->nfd; i++) {
        const ck_finding *d = c->fd[i];
        json_t *o = json_object();
        json_object_set_new(o, "check", json_string(check_info[d->id].name));
        json_object_set_new(o, "severity", json_string(check_severity_name[d->severity]));
        json_object_set_new(o, "title", json_string(check_info[d->id].title));
        json_object_set_new(o, "summary", text_json_str(d->summary));
        json_object_set_new(o, "why", json_string(check_info[d->id].why));
        json_object_set_new(o, "files", text_json_strs(d->files, d->nfiles));
        json_object_set_new(o, "details", text_json_strs(d->details, d->ndetails));
        json_array_append_new(fs, o);
    }
    json_object_set_new(root, "findings", fs);
    ret = text_json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (ret != 0 || fputc('\n', out) == EOF)
        return -1;
    return ferror(out) ? -1 : 0;
}
