/* doc_chart.h: the page's figures of a document (doc.h): the charts
 * report_html.c draws where a figure stands, as SVG, and the source view
 * (annotate.h). */
#ifndef DOC_CHART_H
#define DOC_CHART_H

#include "doc.h"

#include <stdio.h>

/* The style the figures of d need beyond the page's own: the source
 * view's, if d has one. */
void doc_chart_style(FILE *out, const doc *d);

/* Figure b, in the section whose heading is at level, anchor sec. */
void doc_chart(FILE *out, const doc_block *b, const char *sec, int level);

#endif
