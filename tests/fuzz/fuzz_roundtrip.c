/* fuzz_roundtrip.c: libFuzzer harness for reading a JSON summary back
 * (docs/FORMAT.md 3.1: "reading a summary back gives the same groups and
 * counters").
 *
 * The input is the body of a collector dump (after a "pystats.format : 2"
 * line, as fuzz_load.c's entry own), so names of any length and any
 * bytes reach the summary: code objects' FILE and QUALNAME, opcodes,
 * counters.  It is read into a summary S1 (JSON, in memory); S1 is read
 * back as `pystats summarize S1.json` would into a summary S2; S1 and S2
 * must be the same document but for meta.formats (which says what was
 * read), compared as JSON values (read as the command reads JSON: a lone
 * surrogate's \udcXX escape is text, FORMAT.md 1.16).  A difference
 * aborts: a finding.
 *
 * Compared only when reading the dump met no problem at all (a file
 * with problems is summarized without its bad lines, and the notes of
 * those problems travel differently) and when its counts leave room to
 * be read again (a summary holds each per-code opcode count twice, and
 * reading one refuses a file whose counts add up past 2^64-1: FORMAT.md
 * "Aggregation"). */
#include "../../src/cli/load.h"
#include "../../src/cli/read.h"
#include "../../src/cli/report.h"
#include "../../src/cli/summary_schema.h"
#include "../../src/cli/text.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
had_problems(const agg *a)
{
    size_t i;

    for (i = 0; i < AGG_P_COUNT; i++)
        if (a->problems[i])
            return 1;
    return 0;
}

/* Read n bytes (text or JSON, NUL-terminated and writable) as one file
 * into a JSON summary, in memory (*out, *outlen); 0, or -1 if nothing was
 * counted or a problem was met. */
static int
summarize(const char *path, char *buf, size_t n, char **out, size_t *outlen)
{
    static const load_opts opt = {.jobs = 1, .quiet = 1};
    static const summary_opts ro = {.top_pairs = 100, .top_sites = 50};
    ingest_worker w;
    summary sum;
    agg a;
    FILE *f;
    int ret = -1;

    ingest_init(&w, &opt, NULL);
    load_bytes(&w, path, buf, n);
    agg_init(&a);
    a.quiet = 1;
    agg_merge(&a, &w.a);
    ingest_free(&w);
    if (!had_problems(&a) && agg_files(&a) > 0) {
        agg_sort(&a);
        summary_build(&sum, &a, &ro);
        if ((f = open_memstream(out, outlen)) == NULL)
            abort();
        report_json(f, &sum);
        if (fclose(f) != 0)
            abort();
        summary_free(&sum);
        ret = 0;
    }
    agg_free(&a);
    return ret;
}

/* Whether a code member's "line" is missing or no line number: its dump
 * key was malformed (a raw ':' in a format 2 field), split where the
 * writer cannot spell it and the reader then splits it again otherwise.
 * Such inputs are not compared (the reader's checks of "line" are their
 * own matter). */
static int
bad_line(const json_t *c)
{
    const char *l = json_string_value(json_object_get(c, "line"));

    if (l == NULL || *l == '\0')
        return 1;
    for (; *l; l++)
        if (*l < '0' || *l > '9')
            return 1;
    return 0;
}

static int
code_without_line(json_t *doc)
{
    json_t *g, *c;
    const char *k;
    size_t i;

    json_object_foreach(json_object_get(doc, "code"), k, c) if (bad_line(c)) return 1;
    json_array_foreach(json_object_get(doc, "groups"), i, g) if (code_without_line(g)) return 1;
    return 0;
}

static void
drop_formats(json_t *doc)
{
    json_t *g;
    size_t i;

    json_object_del(json_object_get(doc, "meta"), "formats");
    json_array_foreach(json_object_get(doc, "groups"), i, g)
        json_object_del(json_object_get(g, "meta"), "formats");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char head[] = "pystats.format : 2\n";
    char *buf, *s1 = NULL, *s2 = NULL;
    size_t n1 = 0, n2 = 0;
    json_t *j1, *j2;
    json_error_t err;

    buf = malloc(size + sizeof head + 1);
    if (buf == NULL)
        return 0;
    memcpy(buf, head, sizeof head - 1);
    memcpy(buf + sizeof head - 1, data, size);
    buf[sizeof head - 1 + size] = '\0';
    if (summarize("fuzz-input", buf, sizeof head - 1 + size, &s1, &n1) == 0) {
        j1 = text_json_loadb(s1, n1, 0, &err);
        if (j1 == NULL) {
            fprintf(stderr, "the summary is no JSON (%s, line %d):\n%s\n", err.text, err.line, s1);
            abort();
        }
        if (code_without_line(j1)) {
            /* not compared: see code_without_line() */
        }
        else if (summarize("fuzz-input.json", s1, n1, &s2, &n2) != 0) {
            /* Refused: only for its size (the limit above). */
            if (summary_count_total(j1) <= UINT64_MAX) {
                fprintf(stderr, "a summary was not read back:\n%s\n", s1);
                abort();
            }
        }
        else {
            j2 = text_json_loadb(s2, n2, 0, &err);
            if (j2 == NULL) {
                fprintf(stderr, "the summary read back is no JSON:\n%s\n", s2);
                abort();
            }
            drop_formats(j1);
            drop_formats(j2);
            if (!json_equal(j1, j2)) {
                fprintf(stderr, "round trip differs:\n--- S1\n%s\n--- S2\n%s\n", s1, s2);
                abort();
            }
            json_decref(j2);
        }
        json_decref(j1);
    }
    free(s1);
    free(s2);
    free(buf);
    return 0;
}
