/* test_suggest.c: "did you mean" (src/cli/suggest.c): distances checked
 * against a plain recursive definition of optimal string alignment on
 * every pair of short words over a small alphabet, and the offers made
 * for the command's own names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cli/suggest.h"

/* The definition, by recursion on the two prefixes (exponential: only
 * for short words). */
static size_t
osa(const char *a, size_t i, const char *b, size_t j)
{
    size_t v, t;
    if (i == 0)
        return j;
    if (j == 0)
        return i;
    v = osa(a, i - 1, b, j - 1) + (a[i - 1] != b[j - 1]);
    if ((t = osa(a, i - 1, b, j) + 1) < v)
        v = t;
    if ((t = osa(a, i, b, j - 1) + 1) < v)
        v = t;
    if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
        (t = osa(a, i - 2, b, j - 2) + 1) < v)
        v = t;
    return v;
}

static void
word_of(unsigned k, char *w)
{
    size_t len = k % 5, i;   /* 0-4 letters of "abc" */
    k /= 5;
    for (i = 0; i < len; i++, k /= 3)
        w[i] = (char)('a' + k % 3);
    w[len] = '\0';
}

static void
test_distance(void **state)
{
    char a[8], b[8];
    unsigned x, y;
    (void)state;
    for (x = 0; x < 5 * 81; x++)
        for (y = 0; y < 5 * 81; y += 7) {
            word_of(x, a);
            word_of(y, b);
            assert_int_equal(suggest_distance(a, b), osa(a, strlen(a), b, strlen(b)));
        }
    assert_int_equal(suggest_distance("summarize", "sumarize"), 1);
    assert_int_equal(suggest_distance("compare", "comapre"), 1);
    assert_int_equal(suggest_distance("check", "chekc"), 1);
}

static void
test_offers(void **state)
{
    static const char *const cmds[] = { "summarize", "compare", "check", "run" };
    static const struct option opts[] = {
        { "json", no_argument, NULL, 'j' },
        { "html", required_argument, NULL, 'H' },
        { "version", required_argument, NULL, 'v' },
        { "strict", no_argument, NULL, 's' },
        { NULL, 0, NULL, 0 },
    };
    (void)state;
    assert_string_equal(suggest("sumarize", cmds, 4), "summarize");
    assert_string_equal(suggest("comapre", cmds, 4), "compare");
    assert_string_equal(suggest("chek", cmds, 4), "check");
    assert_string_equal(suggest("rn", cmds, 4), "run");
    assert_string_equal(suggest("summ", cmds, 4), "summarize");   /* prefix */
    assert_null(suggest("c", cmds, 4));          /* prefix of two */
    assert_null(suggest("frobnicate", cmds, 4));
    assert_null(suggest("check", cmds, 4));      /* no mistake */
    assert_null(suggest("", cmds, 4));
    assert_string_equal(suggest_option("--jsn", opts), "json");
    assert_string_equal(suggest_option("--htlm=x.html", opts), "html");
    assert_string_equal(suggest_option("--strcit", opts), "strict");
    assert_null(suggest_option("--output", opts));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_offers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
