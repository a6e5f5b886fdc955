/* fuzz_load.c: libFuzzer harness for every input parser of the pystats
 * command, built once per entry point (FUZZ_ENTRY):
 *
 *   native   a native CPython dump: the text reader as is
 *   own      this project's dump: the text reader after a
 *            "pystats.format : 1" line
 *   summary  a JSON summary written by --json (schema 1)
 *   cpython  a JSON file of CPython's summarize_stats.py --json-output
 *
 * Each input is read the way `pystats summarize` and `pystats check` read
 * a file (load_bytes, or the JSON reader itself for the JSON entries), and
 * then everything downstream runs on it: the check observer, the set
 * checks, --by-label and --equal-weight (picked by the input's length),
 * the report model and both reports. */
#include "../../src/cli/check.h"
#include "../../src/cli/load.h"
#include "../../src/cli/read.h"
#include "../../src/cli/report.h"
#include "../../src/cli/weight.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY_NATIVE 1
#define ENTRY_OWN 2
#define ENTRY_SUMMARY 3
#define ENTRY_CPYTHON 4

#ifndef FUZZ_ENTRY
#error "define FUZZ_ENTRY"
#endif

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char own_head[] = "pystats.format : 1\n";
    /* The input's length picks --by-label (odd) and --equal-weight. */
    const load_opts opt = { .jobs = 1, .quiet = 1, .by_label = (int)(size & 1) };
    static const summary_opts ro = { .top_pairs = 100 };
    summary sum;
    char *buf;
    size_t n = 0;
    ingest_worker w;
    check_set *cs;
    agg a;
    char verdict[512];

    if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
        abort();
    buf = malloc(size + sizeof own_head + 1);
    if (buf == NULL)
        return 0;
    if (FUZZ_ENTRY == ENTRY_OWN) {
        memcpy(buf, own_head, sizeof own_head - 1);
        n = sizeof own_head - 1;
    }
    memcpy(buf + n, data, size);
    n += size;
    buf[n] = '\0';

    cs = check_new();
    ingest_init(&w, &opt, check_observer(cs));
    if (FUZZ_ENTRY == ENTRY_SUMMARY || FUZZ_ENTRY == ENTRY_CPYTHON)
        read_json(&w, "fuzz-input", buf, n);
    else
        load_bytes(&w, "fuzz-input", buf, n);
    agg_init(&a);
    a.quiet = 1;
    agg_merge(&a, &w.a);
    ingest_free(&w);
    check_finish(cs, &a);
    if ((size & 3) == 3)
        weight_equal_labels(&a);
    agg_sort(&a);
    check_verdict(cs, verdict, sizeof verdict);
    check_report_text(cs, devnull, 0);
    check_report_json(cs, devnull);
    summary_build(&sum, &a, &ro);
    report_markdown(devnull, &sum);
    report_json(devnull, &sum);
    summary_free(&sum);
    agg_free(&a);
    check_free(cs);
    free(buf);
    return 0;
}
