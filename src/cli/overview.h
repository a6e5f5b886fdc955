/* overview.h: where to look first, from one group's model: the first
 * section of every summary and the headline of `pystats run`.
 *
 *   - the hottest code: the code objects that executed the most
 *     instructions (collector dumps with hot code);
 *   - the sites that run unspecialized, by their executions while not
 *     specialized (backing off or never tried: collector dumps with
 *     site executions, FORMAT.md 1.18), else the sites that fail to
 *     specialize by consecutive failed attempts (dumps with a census
 *     only: that figure stops at CPython's backoff ceiling);
 *   - the families that run unspecialized the most: executions of the
 *     family's generic forms (its base and adaptive instructions) plus
 *     misses (a specialized form that deoptimized and ran the generic
 *     path), for inputs that count specialized forms (CPython's native
 *     dumps and published summaries).  Collector dumps count base
 *     instructions only, so they have no such figure.
 *
 * Every figure is a count from the input; nothing is estimated.
 */
#ifndef OVERVIEW_H
#define OVERVIEW_H

#include "model.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OVERVIEW_TOP 3

typedef struct ov_family {
    const char *family; /* borrowed from the model */
    uint64_t generic;   /* executions of generic forms, misses included */
    uint64_t exec;      /* all executions of the family */
} ov_family;

typedef struct overview {
    const m_code *code[OVERVIEW_TOP]; /* borrowed, hottest first */
    size_t ncode;
    const m_csite *site[OVERVIEW_TOP]; /* borrowed, most attempts first */
    size_t nsite;
    const m_fsite *fsite[OVERVIEW_TOP]; /* borrowed, most executions
                                         * first; when set, site is not */
    size_t nfsite;
    ov_family fam[OVERVIEW_TOP];
    size_t nfam;
} overview;

void overview_build(overview *o, const m_group *g);
/* A ranked site as one line of `pystats run`'s headline, after prefix:
 * "fails to specialize: F at FILE:LINE in FUNC: N executions not
 * specialized (P% of F), backing off after A failed attempts"; with
 * ", column C `SPAN`" or ", offset N" after LINE when another ranked site
 * of g of its family is on that line (model_fsite_apart). */
void overview_put_fsite(FILE *out, const char *prefix, const m_group *g, const m_fsite *f);

#endif
