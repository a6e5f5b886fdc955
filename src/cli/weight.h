/* weight.h: weighting the labels of a suite (summarize --equal-weight). */
#ifndef WEIGHT_H
#define WEIGHT_H

#include "agg.h"

/* a was read with load_opts.by_label: replace each kind's label groups by
 * one group where every label's counters are scaled to the same total of
 * executions (the largest label's), so that each label weighs the same.
 * The group records how (weight_labels, weight_total).  Returns 0, or -1
 * (a left as it was, the labels named on stderr) if the scaled counters
 * of one kind would add up past 2**64-1: no total is ever capped. */
int weight_equal_labels(agg *a);

#endif
