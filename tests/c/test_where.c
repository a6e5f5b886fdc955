/* test_where.c: the portable names of source files (src/cli/where.c),
 * against layouts whose module names the import system's rules give:
 * a module under a sys.path entry, a package's __init__, site-packages
 * inside the standard library's directory, entries that make no module,
 * the working directory, and names that are free text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cli/where.h"

static void
names(const where *w, const char *file, const char *want, int want_kind)
{
    int kind = -1;
    char *got = where_name(w, file, &kind);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(kind, want_kind);
    free(got);
}

#define LIB "/opt/py/lib/python3.12"
#define SITE "/home/u/venv/lib/python3.12/site-packages"

static void
test_modules(void **state)
{
    where w;
    (void)state;
    assert_int_equal(where_init(&w, "/home/u/proj",
                                "/opt/py/lib/python312.zip|" LIB "|" LIB
                                "/lib-dynload|" SITE "|" LIB "/site-packages"),
                     0);
    names(&w, LIB "/json/decoder.py", "json.decoder", WHERE_MODULE);
    names(&w, LIB "/json/__init__.py", "json", WHERE_MODULE);
    names(&w, LIB "/os.py", "os", WHERE_MODULE);
    names(&w, SITE "/pyperf/_runner.py", "pyperf._runner", WHERE_MODULE);
    /* Inside the standard library's directory: the longer entry wins. */
    names(&w, LIB "/site-packages/six.py", "six", WHERE_MODULE);
    /* Not importable from any entry: relative to the working directory,
     * or as it is. */
    names(&w, "/home/u/proj/tests/test_x.py", "tests/test_x.py", WHERE_RELATIVE);
    names(&w, "/home/u/proj/my-tests/t.py", "my-tests/t.py", WHERE_RELATIVE);
    names(&w, LIB "/lib2to3/tests/data/bom-1.py",
          LIB "/lib2to3/tests/data/bom-1.py", WHERE_AS_IS);
    names(&w, "<frozen importlib._bootstrap>", "<frozen importlib._bootstrap>",
          WHERE_AS_IS);
    names(&w, "<string>", "<string>", WHERE_AS_IS);
    names(&w, "/elsewhere/a.py", "/elsewhere/a.py", WHERE_AS_IS);
    /* A prefix that is not a directory of the path. */
    names(&w, "/home/u/project2/a.py", "/home/u/project2/a.py", WHERE_AS_IS);
    names(&w, LIB "x/a.py", LIB "x/a.py", WHERE_AS_IS);
    where_free(&w);
}

static void
test_not_modules(void **state)
{
    where w;
    (void)state;
    assert_int_equal(where_init(&w, "/w", "/w/src|/w"), 0);
    names(&w, "/w/src/pkg/mod.py", "pkg.mod", WHERE_MODULE);
    /* Not .py, a component that is no identifier, an __init__ right at
     * an entry: no module from that entry; /w's "src.x" then. */
    names(&w, "/w/src/data.txt", "src/data.txt", WHERE_RELATIVE);
    names(&w, "/w/src/2x/a.py", "src/2x/a.py", WHERE_RELATIVE);
    names(&w, "/w/src/x/a.b.py", "src/x/a.b.py", WHERE_RELATIVE);
    names(&w, "/w/src/__init__.py", "src", WHERE_MODULE);
    names(&w, "/w/src//a.py", "src//a.py", WHERE_RELATIVE);
    names(&w, "/w/_p/é.py", "_p.é", WHERE_MODULE);
    where_free(&w);
}

static void
test_free_text(void **state)
{
    where w;
    (void)state;
    /* Names are encoded (psf_text.h): a | in an entry is %7C, so the
     * split at | is exact; a : in a file name stays %3A in the result. */
    assert_int_equal(where_init(&w, "/r%3As%20", "/a%7Cb|/c"), 0);
    names(&w, "/a%7Cb/m.py", "m", WHERE_MODULE);
    names(&w, "/a/b/m.py", "/a/b/m.py", WHERE_AS_IS);
    names(&w, "/r%3As%20/t%3A1.py", "t%3A1.py", WHERE_RELATIVE);
    where_free(&w);
    /* No headers: every name as it is; a bad escape: refused. */
    assert_int_equal(where_init(&w, NULL, NULL), 0);
    names(&w, "/x/y.py", "/x/y.py", WHERE_AS_IS);
    where_free(&w);
    assert_int_equal(where_init(&w, "/ok", "/a|%zz"), -1);
    names(&w, "/a/m.py", "/a/m.py", WHERE_AS_IS);
    where_free(&w);
    /* Trailing slashes and the root. */
    assert_int_equal(where_init(&w, "/", "/lib/"), 0);
    names(&w, "/lib/m.py", "m", WHERE_MODULE);
    names(&w, "/other/m.py", "other/m.py", WHERE_RELATIVE);
    where_free(&w);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modules),
        cmocka_unit_test(test_not_modules),
        cmocka_unit_test(test_free_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
