/* fuzz_expr.c: libFuzzer harness for the --fail-if expression parser
 * and evaluator (src/cli/compare_expr.c).
 *
 * Any input must either parse, or be rejected with a message that names
 * a column (or says it is empty or too long); a parsed expression is
 * evaluated against a lookup that answers numbers, NaN and errors by the
 * name, so every evaluation path runs.  ASan and UBSan catch the rest.
 */
#include "../../src/cli/compare_expr.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
lookup(void *ctx, int fn, const char *path, double *out, char *err, size_t errsize)
{
    size_t h = (size_t)fn, i;

    (void)ctx;
    for (i = 0; path[i]; i++)
        h = h * 31 + (unsigned char)path[i];
    switch (h % 5) {
    case 0:
        snprintf(err, errsize, "'%s': no such figure", path);
        return -1;
    case 1:
        *out = NAN;
        return 0;
    case 2:
        *out = INFINITY;
        return 0;
    default:
        *out = (double)(h % 1000) / 100.0 - 5.0;
        return 0;
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text, err[512];
    cexpr *e;
    int r;

    if (size > CEXPR_MAX_LEN + 16)
        size = CEXPR_MAX_LEN + 16;
    text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    e = cexpr_parse(text, err, sizeof err);
    if (e == NULL) {
        if (strncmp(err, "column ", 7) != 0 && strncmp(err, "the expression is", 17) != 0)
            abort();
    } else {
        r = cexpr_eval(e, lookup, NULL, NULL, err, sizeof err);
        if (r < -1 || r > 1)
            abort();
        cexpr_free(e);
    }
    free(text);
    return 0;
}
