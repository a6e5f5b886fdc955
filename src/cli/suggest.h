/* suggest.h: "did you mean" for a mistyped command or option.
 *
 * The candidate closest to what was typed by optimal string alignment
 * distance (Levenshtein with adjacent transpositions, as git's
 * help.autocorrect), offered only when it is close: at most a third of
 * the longer word's length, and at least one edit; a word that is a
 * prefix of exactly one candidate is offered too (getopt_long takes
 * unambiguous prefixes of options itself).  Ties go to the first
 * candidate. */
#ifndef CLI_SUGGEST_H
#define CLI_SUGGEST_H

#include <getopt.h>
#include <stddef.h>

/* The candidate to offer for word, or NULL. */
const char *suggest(const char *word, const char *const *cand, size_t n);

/* The same over getopt_long's table, names without "--"; word may
 * start with "--" and hold "=value". */
const char *suggest_option(const char *word, const struct option *opts);

/* After getopt_long returned '?' (it said what was wrong): the line
 * "pystats CMD: did you mean '--NAME'?" on stderr when the word it
 * stopped at, argv[optind - 1], is a mistyped long option.  Returns
 * whether it said so. */
int suggest_after_getopt(const char *cmd, char **argv, int optind_now, const struct option *opts);

/* Edit distance of a and b (exposed for the tests). */
size_t suggest_distance(const char *a, const char *b);

#endif
