/* report_sitefx.h: the report's section of site executions by state
 * (FORMAT.md 1.18 and 3, "Site executions by state"). */
#ifndef REPORT_SITEFX_H
#define REPORT_SITEFX_H

#include "doc.h"
#include "model.h"

/* Adds the section (its heading at level) to d; nothing where g has no
 * site executions. */
void report_sitefx(doc *d, int level, const m_group *g);

#endif
