/* test_escape.c: unit tests of the escaping of text for people (cli_esc,
 * cli_fput_esc, cli_fput_md in src/cli/util.c) and of the check set's
 * findings (a finding held while others are added). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/check.h"
#include "cli/cli.h"

/* What fn writes for s, as a string (owned). */
static char *
written(void (*fn)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);

    assert_non_null(m);
    fn(m, s);
    assert_int_equal(fclose(m), 0);
    return buf;
}

static void
test_esc_controls(void **state)
{
    /* Expected strings spelled out by hand from the rule in cli.h. */
    static const struct { const char *in, *out; } cases[] = {
        { "plain/name.txt", "plain/name.txt" },
        { "a\x1b]0;title\x07z", "a\\x1b]0;title\\x07z" },
        { "line\nfake error: x", "line\\x0afake error: x" },
        { "tab\tcr\r del\x7f", "tab\\x09cr\\x0d del\\x7f" },
        { "\xc2\x9b" "31m", "\\u009b31m" },                 /* C1 CSI, as UTF-8 */
        { "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },  /* UTF-8 kept */
        { "bad\xff\xc3(", "bad\\xff\\xc3(" },               /* not UTF-8 */
        { "\xed\xa0\x80", "\\xed\\xa0\\x80" },              /* a surrogate */
        { "\xc0\xaf", "\\xc0\\xaf" },                       /* overlong */
        { "back\\slash", "back\\slash" },
    };
    size_t i;
    char buf[128];

    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *d = cli_esc_dup(cases[i].in), *f = written(cli_fput_esc, cases[i].in);
        assert_string_equal(d, cases[i].out);
        assert_string_equal(f, cases[i].out);
        assert_int_equal(cli_esc(buf, sizeof buf, cases[i].in), strlen(cases[i].out));
        assert_string_equal(buf, cases[i].out);
        free(d);
        free(f);
    }
    /* Cut to fit, never in the middle of a character. */
    assert_int_equal(cli_esc(buf, 6, "ab\xc3\xa9\xc3\xa9"), 6);
    assert_string_equal(buf, "ab\xc3\xa9");
    assert_int_equal(cli_esc(buf, 4, "\x1b\x1b"), 8);
    assert_string_equal(buf, "\\x1");
    assert_int_equal(cli_esc(NULL, 0, "x\n"), 5);
}

static void
test_md(void **state)
{
    static const struct { const char *in, *out; } cases[] = {
        { "LOAD_ATTR", "LOAD_ATTR" },
        { "LOAD_FAST__LOAD_FAST", "LOAD_FAST__LOAD_FAST" },
        { "__init__", "\\_\\_init\\_\\_" },
        { "os._exit", "os.\\_exit" },
        { "y = **x** + `z`", "y = \\*\\*x\\*\\* + \\`z\\`" },
        { "<script>alert(1)</script>", "\\<script>alert(1)\\</script>" },
        { "a | b & c ~~d~~", "a \\| b \\& c \\~\\~d\\~\\~" },
        { "[click](http://x) [a][b] EvalFrame[TOTAL]",
          "[click\\](http://x) [a\\][b] EvalFrame[TOTAL]" },
        { "C:\\dir", "C:\\\\dir" },
        { "esc\x1b[2J", "esc\\\\x1b[2J" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *f = written(cli_fput_md, cases[i].in);
        assert_string_equal(f, cases[i].out);
        free(f);
    }
}

/* More findings than the set first makes room for, each held while the
 * next are made (pystats check on a directory of many bad files). */
static void
test_many_findings(void **state)
{
    char dir[] = "/tmp/pystats-test-text.XXXXXX", path[128], *inputs[1] = { dir };
    static const char *const files[] = {
        "junk", "opcode[NOP].execution_count : 1\nopcode[NOP].exec",
        "opcode[NOP].execution_count : 18446744073709551616\n",
        "{\"schema\": 1}", "{\"bad\": ", "pystats.format : 2\n", "",
        "pystats.format : 1\nmeta.python.version : 3.12.1\nmeta.process.pid : 5\n"
        "meta.process.ppid : 4\nmeta.process.forked : 1\nmeta.dump.reason : os._exit\n"
        "meta.collection.windows : 0\nmeta.collection.on_at_dump : 1\n"
        "meta.time.start : 2026-11-29T22:19:54Z\nmeta.time.end : 2026-11-29T22:19:50Z\n"
        "opcode[IMPORT_NAME].execution_count : 5\nopcode[NOP].execution_count : 5\n",
        "pystats.format : 1\nmeta.python.version : 3.12.1\nmeta.process.pid : 6\n"
        "meta.dump.reason : signal\nmeta.collection.windows : 3\n"
        "meta.collection.on_at_dump : 1\nopcode[IMPORT_NAME].execution_count : 5\n"
        "opcode[IMPORT_NAME].pair_count[IMPORT_NAME] : 2\nopcode[NOP].execution_count : 0\n",
        "opcode[NOP].execution_count : 5\nopcode[CACHE].pair_count[NOP] : 3\n"
        "opcode[IMPORT_NAME].execution_count : 5\n",
    };
    const load_opts lo = { .jobs = 1, .quiet = 1 };
    check_set *cs;
    char *text;
    size_t i, len = 0;
    FILE *f;
    agg a;

    (void)state;
    assert_non_null(mkdtemp(dir));
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/f%02zu.txt", dir, i);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(files[i], f);
        fclose(f);
    }
    cs = check_load(inputs, 1, &lo, &a);
    /* The findings: errors, warnings and notes of each kind above. */
    assert_true(check_count(cs, CHECK_ERROR) + check_count(cs, CHECK_WARNING)
                + check_count(cs, CHECK_NOTE) > 16);
    text = NULL;
    f = open_memstream(&text, &len);
    assert_int_equal(check_report_text(cs, f, 1), 0);
    fclose(f);
    assert_non_null(strstr(text, "killed: dumps written on SIGTERM"));
    assert_non_null(strstr(text, "time-order:"));
    free(text);
    check_free(cs);
    agg_free(&a);
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/f%02zu.txt", dir, i);
        remove(path);
    }
    rmdir(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_esc_controls),
        cmocka_unit_test(test_md),
        cmocka_unit_test(test_many_findings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
