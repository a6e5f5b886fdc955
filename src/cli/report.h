/* report.h: the renderers of a summary (summary.h): Markdown, JSON and
 * HTML.  Each reads only the summary.  Each returns 0, or -1 if the
 * stream failed (errno set). */
#ifndef REPORT_H
#define REPORT_H

#include "summary.h"

#include <stdio.h>

int report_markdown(FILE *out, const summary *s);
int report_json(FILE *out, const summary *s);
int report_html(FILE *out, const summary *s);

#endif
