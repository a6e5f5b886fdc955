/* compare_expr.h: the --fail-if expression language of `pystats compare`.
 *
 *   expr       := and { ("||" | "or") and }
 *   and        := unary { ("&&" | "and") unary }
 *   unary      := ("!" | "not") unary | "(" expr ")" | comparison
 *   comparison := value op value
 *   op         := "<" | "<=" | ">" | ">=" | "==" | "!="
 *   value      := number | figure
 *   number     := ["-" | "+"] digits ["." digits] [("e" | "E") ["-" | "+"] digits] ["%"]
 *   figure     := path | func "(" path ")"
 *   func       := base | head | change | rel | base_pm | head_pm | change_pm | rel_pm
 *   path       := SECTION "." ROW, bare ([A-Za-z_][A-Za-z0-9_.[\]]*) or quoted ("...")
 *
 * "N%" is N / 100.  A bare path is the row's change as the report shows
 * it: for share rows head - base (a fraction: -2% is two points down);
 * for count rows the relative change per million instructions (or the
 * relative change, for figures that are not normalized).
 *
 * The parser does not know the comparison: names are resolved when the
 * expression is evaluated, through a callback.  Parsing is bounded
 * (length, nesting) and allocation failures exit like the rest of the
 * command.
 */
#ifndef COMPARE_EXPR_H
#define COMPARE_EXPR_H

#include <stddef.h>
#include <stdio.h>

#define CEXPR_MAX_LEN 4096
#define CEXPR_MAX_DEPTH 64

enum cexpr_fn {
    CX_DEFAULT = 0,
    CX_BASE,
    CX_HEAD,
    CX_CHANGE,
    CX_REL,
    CX_BASE_PM,
    CX_HEAD_PM,
    CX_CHANGE_PM,
    CX_REL_PM,
    CX_FN_COUNT
};
extern const char *const cexpr_fn_name[CX_FN_COUNT];

typedef struct cexpr cexpr;

/* Parse text.  Returns the expression, or NULL with a one-line message
 * naming the column in err. */
cexpr *cexpr_parse(const char *text, char *err, size_t errsize);
void cexpr_free(cexpr *e);

/* Resolve a figure: fn applied to path.  Returns 0 with *out set (NaN for
 * a figure that is undefined, e.g. a share of nothing), or -1 with a
 * message in err (the name does not exist). */
typedef int (*cexpr_lookup)(void *ctx, int fn, const char *path, double *out, char *err,
                            size_t errsize);

/* Evaluate: 1 true, 0 false, -1 an error (message in err).  A comparison
 * with an undefined figure is false.  If trace is not NULL, each
 * comparison is printed there with its values and result. */
int cexpr_eval(const cexpr *e, cexpr_lookup lookup, void *ctx, FILE *trace, char *err,
               size_t errsize);

#endif
