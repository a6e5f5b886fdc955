/* report_html.h: one self-contained HTML page (inline CSS, SVG and
 * script; nothing fetched from the network) for `summarize --html` and
 * `compare --html`.
 *
 * The page prints the same document the Markdown report prints
 * (report_doc, cmp_report_doc: doc.h), so the two never drift apart:
 * every table, sortable by clicking a column, and SVG charts (the
 * document's figures) next to the sections they draw.
 * Charts carry their figures as data-* attributes and <title> tooltips,
 * so the numbers are readable (and testable) without the pictures.
 * Both return 0, or -1 if the stream failed.
 */
#ifndef REPORT_HTML_H
#define REPORT_HTML_H

#include "compare.h"
#include "report.h"

#include <stdio.h>

int cmp_report_html(FILE *out, const cmp *c);
int cmp_suite_report_html(FILE *out, const cmp_suite *cs);

#endif
