/* test_format.c: unit tests of src/format: line splitting, numbers, key
 * grammar, canonical spelling, version detection and the tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "format/psf_detect.h"
#include "format/psf_key.h"
#include "format/psf_line.h"
#include "format/psf_tables.h"

static void
split(const char *s, int want, const char *key, const char *val)
{
    psf_line ln;
    int st = psf_line_split(s, strlen(s), &ln);

    assert_int_equal(st, want);
    if (want == PSF_LINE_OK) {
        assert_int_equal(ln.key_len, strlen(key));
        assert_memory_equal(ln.key, key, ln.key_len);
        assert_int_equal(ln.val_len, strlen(val));
        assert_memory_equal(ln.val, val, ln.val_len);
    }
}

static void
test_line_split(void **state)
{
    (void)state;
    split("opcode[LOAD_ATTR].execution_count : 12", PSF_LINE_OK,
          "opcode[LOAD_ATTR].execution_count", "12");
    split("Calls to PyEval_EvalDefault: 14286", PSF_LINE_OK,
          "Calls to PyEval_EvalDefault", "14286");
    split("    opcode[93].specialization.hit : 5\r", PSF_LINE_OK,
          "opcode[93].specialization.hit", "5");
    split("Rare event (set_class): 0", PSF_LINE_OK, "Rare event (set_class)", "0");
    split("meta.time.start : 2026-11-29T22:19:52.1Z", PSF_LINE_OK,
          "meta.time.start", "2026-11-29T22:19:52.1Z");
    split("meta.label : ", PSF_LINE_OK, "meta.label", "");
    split("   \t ", PSF_LINE_BLANK, NULL, NULL);
    split("", PSF_LINE_BLANK, NULL, NULL);
    split("no separator here", PSF_LINE_NO_COLON, NULL, NULL);
    split(" : 5", PSF_LINE_NO_KEY, NULL, NULL);
}

static void
test_parse_u64(void **state)
{
    uint64_t v = 0;

    (void)state;
    assert_int_equal(psf_parse_u64("0", 1, &v), PSF_NUM_OK);
    assert_int_equal(v, 0);
    assert_int_equal(psf_parse_u64("14286", 5, &v), PSF_NUM_OK);
    assert_int_equal(v, 14286);
    assert_int_equal(psf_parse_u64("18446744073709551615", 20, &v), PSF_NUM_OK);
    assert_true(v == UINT64_MAX);
    assert_int_equal(psf_parse_u64("18446744073709551616", 20, &v), PSF_NUM_OVERFLOW);
    assert_int_equal(psf_parse_u64("99999999999999999999999", 23, &v), PSF_NUM_OVERFLOW);
    assert_int_equal(psf_parse_u64("99999999999999999999x", 21, &v), PSF_NUM_BAD);
    assert_int_equal(psf_parse_u64("-1", 2, &v), PSF_NUM_BAD);
    assert_int_equal(psf_parse_u64("1 2", 3, &v), PSF_NUM_BAD);
    assert_int_equal(psf_parse_u64("", 0, &v), PSF_NUM_EMPTY);
}

/* One grammar for line numbers (FORMAT.md 1.14): digits, at most 2**31-1. */
static void
test_parse_line(void **state)
{
    static const char *const bad[] = {"",           "-1",   "+1", " 5",   "5 ", "1\x1b", "<b>",
                                      "2147483648", "1e3",  "3 | x", "99999999999999999999"};
    long v = -1;
    size_t i;

    (void)state;
    assert_int_equal(psf_parse_line("0", 1, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(psf_parse_line("007", 3, &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(psf_parse_line("1000000000", 10, &v), 0);
    assert_int_equal(v, 1000000000L);
    assert_int_equal(psf_parse_line("2147483647", 10, &v), 0);
    assert_int_equal(v, 2147483647L);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = -1;
        assert_int_equal(psf_parse_line(bad[i], strlen(bad[i]), &v), -1);
        assert_int_equal(v, -1);
    }
}

/* A line past 9 digits is a line of code[...].line[N] (as_num stopped at
 * 9 digits and dropped it); past 2**31-1 it is none. */
static void
test_line_key_numbers(void **state)
{
    psf_key k;

    (void)state;
    assert_int_equal(psf_key_parse("code[f.py:1:g].line[1000000003]", 31, &k), PSF_K_CODE_LINE);
    assert_int_equal(k.b_num, 1000000003L);
    assert_int_equal(psf_key_parse("code[f.py:1:g].line[2147483648]", 31, &k), PSF_K_CODE_LINE);
    assert_int_equal(k.b_num, -1);
}

static int
kind(const char *s, psf_key *k)
{
    return psf_key_parse(s, strlen(s), k);
}

static void
test_key_parse(void **state)
{
    psf_key k;

    (void)state;
    assert_int_equal(kind("opcode[93].specialization.failure_kinds[18]", &k), PSF_K_OP_FAIL_KIND);
    assert_int_equal(k.a_num, 93);
    assert_int_equal(k.b_num, 18);
    assert_int_equal(kind("opcode[LOAD_ATTR].pair_count[LOAD_FAST]", &k), PSF_K_OP_PAIR);
    assert_int_equal(k.a_num, -1);
    assert_memory_equal(k.b, "LOAD_FAST", 9);
    assert_int_equal(kind("opcode[LOAD_ATTR].specialization.deopt", &k), PSF_K_OP_SPEC);
    assert_int_equal(k.field, PSF_SPEC_DEOPT);
    assert_int_equal(kind("opcode[LOAD_ATTR].specializable", &k), PSF_K_OP_SPECIALIZABLE);
    assert_int_equal(kind("opcode[LOAD_ATTR].execution_count", &k), PSF_K_OP_EXEC);
    assert_int_equal(kind("opcode[LOAD_ATTR].hot_code[3]", &k), PSF_K_OP_OTHER);
    assert_int_equal(kind("Calls via PyEval_EvalFrame[4]", &k), PSF_K_EVAL_CALL);
    assert_int_equal(k.a_num, 4);
    assert_int_equal(kind("Frames pushed", &k), PSF_K_CALL);
    assert_int_equal(kind("Object method cache hits", &k), PSF_K_OBJECT);
    assert_int_equal(kind("GC[2] objects collected", &k), PSF_K_GC);
    assert_int_equal(k.a_num, 2);
    assert_int_equal(kind("Rare event (set_bases)", &k), PSF_K_RARE);
    assert_memory_equal(k.a, "set_bases", k.a_len);
    /* 3.15's free-threading lines: CPython's label, then its field. */
    assert_int_equal(kind("QSBR polls (qsbr_polls)", &k), PSF_K_FT);
    assert_int_equal(k.a_len, 10);
    assert_memory_equal(k.a, "QSBR polls", 10);
    assert_int_equal(k.b_len, 10);
    assert_memory_equal(k.b, "qsbr_polls", 10);
    assert_int_equal(kind("World stops (world_stops)", &k), PSF_K_FT);
    assert_int_equal(psf_key_marks(&k, "World stops (world_stops)", 25), PSF_M_NEW_315);
    assert_string_equal(psf_key_ft_field("Mutex sleeps", 12), "mutex_sleeps");
    assert_null(psf_key_ft_field("Mutex sleep", 11));
    assert_int_equal(kind("Mutex sleeps (qsbr_polls)", &k), PSF_K_OTHER);
    assert_int_equal(kind("Mutex sleeps", &k), PSF_K_OTHER);
    assert_int_equal(kind("Trace run length[64]", &k), PSF_K_HIST);
    assert_int_equal(k.a_num, 64);
    assert_memory_equal(k.b, "Trace run length", k.b_len);
    assert_int_equal(kind("uops[_LOAD_FAST].execution_count", &k), PSF_K_UOP_EXEC);
    assert_int_equal(kind("uop[_A].pair_count[_B]", &k), PSF_K_UOP_PAIR);
    assert_int_equal(kind("unsupported_opcode[SEND].count", &k), PSF_K_UNSUPPORTED);
    assert_int_equal(kind("JIT code size", &k), PSF_K_JIT);
    assert_int_equal(kind("Optimization attempts", &k), PSF_K_OPT);
    assert_int_equal(kind("Executors invalidated", &k), PSF_K_OPT);
    assert_int_equal(kind("meta.python.version", &k), PSF_K_HEADER);
    assert_int_equal(kind("census[int].count", &k), PSF_K_OTHER);
    assert_int_equal(kind("opcode[", &k), PSF_K_OTHER);
}

static void
key_is(psf_key *k, const char *a, const char *b)
{
    if (a == NULL) {
        assert_null(k->a);
    } else {
        assert_int_equal(k->a_len, strlen(a));
        assert_memory_equal(k->a, a, k->a_len);
    }
    assert_int_equal(k->b_len, strlen(b));
    assert_memory_equal(k->b, b, k->b_len);
}

static void
test_key_own(void **state)
{
    psf_key k;

    (void)state;
    assert_int_equal(kind("census.code_objects", &k), PSF_K_CENSUS);
    key_is(&k, NULL, "code_objects");
    assert_int_equal(kind("census.family[LOAD_ATTR].backing_off", &k), PSF_K_CENSUS);
    key_is(&k, "LOAD_ATTR", "backing_off");
    assert_int_equal(kind("census.family[LOAD_ATTR].specialized[LOAD_ATTR_MODULE]", &k),
                     PSF_K_CENSUS_FORM);
    key_is(&k, "LOAD_ATTR", "LOAD_ATTR_MODULE");
    assert_int_equal(kind("census.site[12]", &k), PSF_K_CENSUS_SITE);
    assert_int_equal(k.a_num, 12);
    assert_int_equal(kind("census.sites[CALL | a.py | 3 | f | x[0](y)].count", &k), PSF_K_SITE_SEEN);
    key_is(&k, "CALL | a.py | 3 | f | x[0](y)", "");
    assert_int_equal(kind("census.sites[CALL | a.py | 3 | f | x].attempts", &k), PSF_K_SITE_ATTEMPTS);
    assert_int_equal(kind("census.family[X]", &k), PSF_K_OTHER);
    assert_int_equal(kind("census.site_executions[LOAD_ATTR].never_tried", &k), PSF_K_SITE_FX);
    key_is(&k, "LOAD_ATTR", "never_tried");
    assert_int_equal(kind("census.site_executions[CALL].form[CALL_LEN]", &k), PSF_K_SITE_FX_FORM);
    key_is(&k, "CALL", "CALL_LEN");
    assert_int_equal(kind("census.site_executions[CALL].form[]", &k), PSF_K_OTHER);
    assert_int_equal(kind("census.site_executions[].none", &k), PSF_K_SITE_FX);
    key_is(&k, "", "none");
    assert_int_equal(kind("gc[1].time_ns", &k), PSF_K_OWN_GC);
    assert_int_equal(k.a_num, 1);
    key_is(&k, "1", "time_ns");
    assert_int_equal(kind("gc[x].time_ns", &k), PSF_K_OTHER);
    assert_int_equal(kind("objects.reallocs", &k), PSF_K_OWN_OBJECT);
    key_is(&k, NULL, "reallocs");
    assert_int_equal(kind("rare.watched_dicts", &k), PSF_K_OWN_RARE);
    key_is(&k, NULL, "watched_dicts");
    assert_int_equal(kind("calls.python_starts", &k), PSF_K_OWN_CALL);
    key_is(&k, NULL, "python_starts");
    /* FILE may hold ':' and ']': the suffix is found from the end. */
    assert_int_equal(kind("code[C:/a]b.py:10:f].instructions", &k), PSF_K_CODE);
    key_is(&k, "C:/a]b.py:10:f", "instructions");
    assert_int_equal(kind("code[x.py:1:<module>].calls", &k), PSF_K_CODE);
    key_is(&k, "x.py:1:<module>", "calls");
    assert_int_equal(kind("code[a].opcode[x].py:2:g].opcode[LOAD_FAST]", &k), PSF_K_CODE_OP);
    key_is(&k, "a].opcode[x].py:2:g", "LOAD_FAST");
    assert_int_equal(kind("code[x.py:1:f].other", &k), PSF_K_OTHER);
    assert_int_equal(kind("code[].opcode[]", &k), PSF_K_OTHER);
}

static void
canon(const char *s, int minor, const char *want)
{
    psf_key k;
    char buf[256];
    size_t n;

    psf_key_parse(s, strlen(s), &k);
    n = psf_key_canon(&k, s, strlen(s), minor, buf, sizeof buf);
    assert_int_equal(n, strlen(want));
    assert_string_equal(buf, want);
}

static void
test_key_canon(void **state)
{
    (void)state;
    /* 3.11: 106 is LOAD_ATTR, 124 LOAD_FAST, 93 FOR_ITER. */
    canon("opcode[106].specialization.hit", 11, "opcode[LOAD_ATTR].specialization.hit");
    canon("opcode[106].pair_count[124]", 11, "opcode[LOAD_ATTR].pair_count[LOAD_FAST]");
    canon("opcode[93].specialization.failure_kinds[18]", 11,
          "opcode[FOR_ITER].specialization.failure_kinds[18]");
    /* An opcode number no table knows stays a number. */
    canon("opcode[254].execution_count", 11, "opcode[254].execution_count");
    canon("opcode[LOAD_ATTR].execution_count", 13, "opcode[LOAD_ATTR].execution_count");
    canon("Calls via PyEval_EvalFrame[1]", 13, "Calls via PyEval_EvalFrame[VECTOR]");
    canon("uops[LOAD_FAST].execution_count", 13, "uops[_LOAD_FAST].execution_count");
    canon("Frames pushed", 12, "Frames pushed");
}

static void
test_detect(void **state)
{
    const char *how = NULL;

    (void)state;
    assert_int_equal(psf_detect_native(PSF_M_NUMERIC_OP, &how), 11);
    assert_non_null(how);
    assert_int_equal(psf_detect_native(PSF_M_NUMERIC_OP | PSF_M_EVAL_CALL, &how), 12);
    assert_int_equal(psf_detect_native(PSF_M_NUMERIC_OP | PSF_M_METHOD_CACHE, &how), 12);
    assert_int_equal(psf_detect_native(PSF_M_NAMED_OP | PSF_M_GC, &how), 13);
    assert_int_equal(psf_detect_native(PSF_M_NAMED_OP | PSF_M_MORTAL, &how), 14);
    assert_int_equal(psf_detect_native(PSF_M_NAMED_OP | PSF_M_JIT_MEMORY, &how), 14);
    assert_int_equal(psf_detect_native(0, &how), 0);
    assert_int_equal(psf_parse_version("3.12.1", 6), 12);
    assert_int_equal(psf_parse_version("3.13.0rc2", 9), 13);
    assert_int_equal(psf_parse_version("3.9", 3), 9);
    assert_int_equal(psf_parse_version("2.7", 3), 0);
    assert_int_equal(psf_parse_version("3.", 2), 0);
    /* 3.15 and 3.16: their new instructions and counters. */
    assert_int_equal(psf_detect_native(PSF_M_NAMED_OP | PSF_M_MORTAL | PSF_M_NEW_315, &how), 15);
    assert_int_equal(psf_detect_native(PSF_M_NAMED_OP | PSF_M_NEW_315 | PSF_M_NEW_316, &how), 16);
    assert_int_equal(psf_key_new_name("GET_ITER_VIRTUAL", 16), PSF_M_NEW_315);
    assert_int_equal(psf_key_new_name("SEND_VIRTUAL", 12), PSF_M_NEW_316);
    assert_int_equal(psf_key_new_name("SEND_GEN", 8), 0);
    assert_int_equal(psf_version_from_name("r/bm-20260502-unknown-aarch64-python-6b632ce36b950c7753c5-"
                                           "3.15.0a8+-6b632ce-pystats-coroutines.json"),
                     15);
    assert_int_equal(psf_version_from_name("bm-20260821-x-3.16.0a0-999a046-pystats.json"), 16);
    assert_int_equal(psf_version_from_name("/d-3.15.0/summary.json"), 0);
    assert_int_equal(psf_version_from_name("run-3.x.json"), 0);
}

static void
test_marks(void **state)
{
    const char *keys[] = { "Object interpreter mortal increfs", "JIT total memory size",
                           "Calls via PyEval_EvalFrame[0]", "opcode[93].execution_count" };
    unsigned want[] = { PSF_M_MORTAL, PSF_M_JIT_MEMORY, PSF_M_EVAL_CALL, PSF_M_NUMERIC_OP };
    psf_key k;
    size_t i;

    (void)state;
    for (i = 0; i < 4; i++) {
        psf_key_parse(keys[i], strlen(keys[i]), &k);
        assert_int_equal(psf_key_marks(&k, keys[i], strlen(keys[i])), want[i]);
    }
}

/* summarize_stats.py's labels, per version (the names are as the
 * versions' Python/specialize.c define them). */
static void
test_fail_labels(void **state)
{
    static const char *const k13[] = { "ATTR_MUTABLE_CLASS", "BINARY_OP_AND_OTHER",
                                       "CALL_CFUNC_VARARGS", "ITER_LIST" };
    static const char *const k10[] = { "SUPER_SHADOWED", "ATTR_NON_OVERRIDING_DESCRIPTOR" };
    static const char *const other[] = { "OTHER" };
    static const char *const k7[] = { "CALL_COMPLEX_PARAMETERS", "CODE_COMPLEX_PARAMETERS" };
    const char *names[16];
    char buf[64];

    (void)state;
    assert_int_equal(psf_tab_fail_label(13, "STORE_ATTR", 13, k13, 4, buf, sizeof buf, NULL), 1);
    assert_string_equal(buf, "mutable class");
    assert_int_equal(psf_tab_fail_label(13, "FOR_ITER", 13, k13, 4, buf, sizeof buf, NULL), 1);
    assert_string_equal(buf, "list");
    /* GET_ITER takes ITER_ names from 3.14 on only. */
    assert_int_equal(psf_tab_fail_label(13, "GET_ITER", 13, k13, 4, buf, sizeof buf, NULL), 0);
    assert_string_equal(buf, "kind 13");
    assert_int_equal(psf_tab_fail_label(14, "GET_ITER", 13, k13, 4, buf, sizeof buf, NULL), 1);
    assert_string_equal(buf, "list");
    assert_int_equal(psf_tab_fail_label(13, "LOAD_SUPER_ATTR", 10, k10, 2, buf, sizeof buf, NULL), 1);
    assert_string_equal(buf, "shadowed");
    assert_int_equal(psf_tab_fail_label(13, "LOAD_ATTR", 0, other, 1, buf, sizeof buf, NULL), 1);
    assert_string_equal(buf, "other");
    /* 3.11 keeps kinds 0-6 generic: 7 is named by the family (PRECALL -> CALL). */
    assert_int_equal(psf_tab_fail_label(11, "PRECALL", 7, k7, 2, buf, sizeof buf, NULL), 1);
    assert_string_equal(buf, "complex parameters");
    assert_int_equal(psf_tab_fail_label(12, "CALL", 7, k7, 2, buf, sizeof buf, NULL), 1);
    assert_string_equal(buf, "call complex parameters");
    /* The built-in 3.14 table: 60 kinds, BINARY_OP's subscript ones. */
    assert_int_equal(psf_tab_fail_names(14, 48, names, 16), 1);
    assert_string_equal(names[0], "BINARY_OP_SUBSCR_BYTES");
    {
        const char *matched;
        assert_int_equal(psf_tab_fail_label(14, "BINARY_OP", 48, names, 1, buf, sizeof buf,
                                            &matched), 1);
        assert_string_equal(buf, "subscr bytes");
        assert_string_equal(matched, "BINARY_OP_SUBSCR_BYTES");
    }
    assert_int_equal(psf_tab_fail_names(12, 13, names, 16), 0);
}

static void
test_tables(void **state)
{
    char buf[64];

    (void)state;
    assert_string_equal(psf_tab_opname(11, 106), "LOAD_ATTR");
    assert_string_equal(psf_tab_opname(12, 0), "CACHE");
    assert_string_equal(psf_tab_opname(13, 3), "BINARY_OP_INPLACE_ADD_UNICODE");
    /* 3.14's numbers, from its dis._all_opname: 3 kept its name, 132
     * and 175 are forms new in 3.14. */
    assert_string_equal(psf_tab_opname(14, 3), "BINARY_OP_INPLACE_ADD_UNICODE");
    assert_string_equal(psf_tab_opname(14, 132), "BINARY_OP_EXTEND");
    assert_string_equal(psf_tab_family(14, "JUMP_BACKWARD_JIT"), "JUMP_BACKWARD");
    assert_string_equal(psf_tab_family(14, "LOAD_CONST_IMMORTAL"), "LOAD_CONST");
    assert_null(psf_tab_opname(15, 3));
    assert_null(psf_tab_opname(11, 300));
    assert_string_equal(psf_tab_family(13, "LOAD_ATTR_SLOT"), "LOAD_ATTR");
    assert_string_equal(psf_tab_family(13, "LOAD_FAST_LOAD_FAST"), "LOAD_FAST_LOAD_FAST");
    assert_string_equal(psf_tab_family(11, "BINARY_OP_ADAPTIVE"), "BINARY_OP");
    assert_string_equal(psf_tab_family(11, "LOAD_METHOD_NO_DICT"), "LOAD_METHOD");
    /* 3.15 has no table: newest names, then the prefix rule. */
    assert_string_equal(psf_tab_family(15, "LOAD_ATTR_SLOT"), "LOAD_ATTR");
    assert_string_equal(psf_tab_family(15, "CALL_LIST_APPEND_NEW"), "CALL");
    assert_null(psf_tab_family(13, "NO_SUCH_OP"));

    /* The same number names different things in different families. */
    assert_int_equal(psf_tab_fail_kind(13, "LOAD_ATTR", 23, buf, sizeof buf), 1);
    assert_string_equal(buf, "ATTR_CLASS_METHOD_OBJ");
    assert_int_equal(psf_tab_fail_kind(13, "FOR_ITER", 23, buf, sizeof buf), 1);
    assert_string_equal(buf, "ITER_ENUMERATE");
    assert_int_equal(psf_tab_fail_kind(13, "BINARY_SUBSCR", 23, buf, sizeof buf), 1);
    assert_string_equal(buf, "SUBSCR_NOT_HEAP_TYPE");
    assert_int_equal(psf_tab_fail_kind(13, "LOAD_SUPER_ATTR", 9, buf, sizeof buf), 1);
    assert_string_equal(buf, "SUPER_BAD_CLASS");
    assert_int_equal(psf_tab_fail_kind(13, "SEND", 30, buf, sizeof buf), 1);
    assert_string_equal(buf, "ITER_ASYNC_GENERATOR_SEND");
    /* Shared kinds: 0-8 on 3.12+, 0-6 on 3.11. */
    assert_int_equal(psf_tab_fail_kind(13, "CALL", 8, buf, sizeof buf), 1);
    assert_string_equal(buf, "CODE_NOT_OPTIMIZED");
    assert_int_equal(psf_tab_fail_kind(11, "LOAD_ATTR", 0, buf, sizeof buf), 1);
    assert_string_equal(buf, "OTHER");
    assert_int_equal(psf_tab_fail_kind(11, "LOAD_ATTR", 8, buf, sizeof buf), 1);
    assert_string_equal(buf, "ATTR_OVERRIDING_DESCRIPTOR");
    assert_int_equal(psf_tab_fail_kind(11, "FOR_ITER", 18, buf, sizeof buf), 1);
    assert_string_equal(buf, "FOR_ITER_RANGE");
    assert_int_equal(psf_tab_fail_kind(11, "PRECALL", 12, buf, sizeof buf), 1);
    assert_string_equal(buf, "CALL_CMETHOD");
    /* No name: 3.12 has no table; 3.11 has no kind 7. */
    assert_int_equal(psf_tab_fail_kind(12, "LOAD_ATTR", 9, buf, sizeof buf), 0);
    assert_string_equal(buf, "kind 9");
    assert_int_equal(psf_tab_fail_kind(11, "LOAD_ATTR", 7, buf, sizeof buf), 0);
    assert_string_equal(buf, "kind 7");
    assert_string_equal(psf_tab_eval_call_kind(1), "VECTOR");
    assert_null(psf_tab_eval_call_kind(99));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_split),
        cmocka_unit_test(test_parse_u64),
        cmocka_unit_test(test_parse_line),
        cmocka_unit_test(test_line_key_numbers),
        cmocka_unit_test(test_key_parse),
        cmocka_unit_test(test_key_own),
        cmocka_unit_test(test_key_canon),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_marks),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_fail_labels),
    };
    return cmocka_run_group_tests_name("format", tests, NULL, NULL);
}
