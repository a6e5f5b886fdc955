/* report.h: the renderers of a summary (summary.h): Markdown, JSON and
 * HTML.  Each reads only the summary.  Each returns 0, or -1 if the
 * stream failed (errno set).
 *
 * report_doc (report_doc.c) builds the report as a document (doc.h):
 * Markdown is that document printed by doc_md.c, the HTML page the same
 * document printed by report_html.c. */
#ifndef REPORT_H
#define REPORT_H

#include "doc.h"
#include "summary.h"

#include <stdio.h>

/* The functions a group's "Source view" shows (the page only: a figure
 * of annotate.h's functions), most instructions first. */
#define REPORT_SOURCE_TOP 5

void report_doc(doc *d, const summary *s);
int report_markdown(FILE *out, const summary *s);
int report_json(FILE *out, const summary *s);
int report_html(FILE *out, const summary *s);

#endif
