/* check.h: every reason to distrust a set of dumps (`pystats check`, and
 * the one-line trust verdict of the other commands' reports).
 *
 * A check set observes the readers while they read (load_observer: each
 * file's counters and header, each problem), so the checks cost no second
 * pass over the files; check_finish() then runs the checks that need the
 * whole set (mixes, duplicates).  Each finding has a stable check name, a
 * severity, the files involved and a sentence saying why the condition is
 * impossible or suspicious.  Use:
 *
 *     check_set *cs = check_new();
 *     load_inputs_observed(inputs, n, &lo, check_observer(cs), &a);
 *     check_finish(cs, &a);
 *     check_verdict(cs, line, sizeof line);     (or check_load())
 *     check_free(cs);
 */
#ifndef CHECK_H
#define CHECK_H

#include "agg.h"
#include "load.h"

#include <stddef.h>
#include <stdio.h>

enum check_severity {
    CHECK_NOTE = 0, /* worth knowing, nothing wrong */
    CHECK_WARNING,  /* suspicious, or wrong unless explained */
    CHECK_ERROR,    /* the numbers are wrong or incomplete */
    CHECK_SEVERITY_COUNT
};
extern const char *const check_severity_name[CHECK_SEVERITY_COUNT];

typedef struct check_set check_set;

check_set *check_new(void);
void check_free(check_set *c);

/* The observer to hand to load_inputs_observed(); valid while c lives.
 * One check set observes one load. */
const load_observer *check_observer(check_set *c);

/* Run the set checks once everything is read; a is what was read. */
void check_finish(check_set *c, const agg *a);

/* Read inputs into *out (as load_inputs does) and check them: a finished
 * check set.  The caller frees both. */
check_set *check_load(char **inputs, size_t ninputs, const load_opts *opt, agg *out);

/* Findings of a severity. */
size_t check_count(const check_set *c, int severity);

/* The verdict's word: "untrusted" (errors), "caution" (warnings) or
 * "ok". */
const char *check_verdict_word(const check_set *c);

/* One line: "untrusted: 2 errors, 1 warning, 0 notes; first: ...",
 * "caution: ...", or "ok: no errors or warnings in 7 files (2 notes)".
 * Returns buf. */
const char *check_verdict(const check_set *c, char *buf, size_t size);

/* A finding as a report shows it, borrowed from its check set. */
typedef struct check_item {
    const char *check;    /* its stable name ("inexact-counts") */
    const char *severity; /* check_severity_name[] */
    int level;            /* enum check_severity */
    const char *title, *summary, *why;
    char *const *files; /* as check_report_text lists them */
    size_t nfiles;
    char *const *details;
    size_t ndetails;
} check_item;

/* What a report shows of a finding (check_report_text without
 * --all-files): its first files and detail lines. */
#define CHECK_SHOWN_FILES 5
#define CHECK_SHOWN_DETAILS 10

/* The findings of a finished check set, most severe first, in the order
 * check_report_text prints them: a new array (*n items; the caller frees
 * it) of views into c, which must outlive them. */
check_item *check_items(const check_set *c, size_t *n);

/* The verdict with its reason and its magnitude, one line for the
 * reports: "untrusted: inexact-counts in 1 of 3 files (2 segment events
 * ...); 1 error, 2 warnings, 4 notes", the first finding being the most
 * severe; or check_verdict()'s line when there is neither error nor
 * warning.  Returns buf. */
const char *check_verdict_reason(const check_set *c, char *buf, size_t size);

/* Every finding, for people (files listed up to a few per finding unless
 * all_files) or as JSON (schema 1, docs/CLI.md).  0, or -1 if the
 * stream failed. */
int check_report_text(const check_set *c, FILE *out, int all_files);
int check_report_json(const check_set *c, FILE *out);

#endif
