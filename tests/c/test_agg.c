/* test_agg.c: unit tests of the command's key table and aggregate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agg.h"
#include "cli/ktab.h"
#include "cli/model.h"
#include "format/psf_key.h"

static void
test_ktab(void **state)
{
    ktab t;
    char key[32];
    int is_new;
    size_t i;

    (void)state;
    ktab_init(&t);
    for (i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "opcode[%zu].execution_count", i);
        assert_int_equal(ktab_intern(&t, key, strlen(key), &is_new), i);
        assert_true(is_new);
    }
    for (i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "opcode[%zu].execution_count", i);
        assert_int_equal(ktab_intern(&t, key, strlen(key), &is_new), i);
        assert_false(is_new);
        assert_string_equal(ktab_key(&t, i), key);
    }
    assert_int_equal(t.n, 5000);
    assert_true(ktab_find(&t, "missing", 7) == (size_t)-1);
    /* A prefix of a key is another key. */
    assert_true(ktab_find(&t, "opcode[1].execution_coun", 24) == (size_t)-1);
    ktab_free(&t);
}

static void
test_agg_sum_and_flags(void **state)
{
    agg a;
    agg_group *g, *g2;
    size_t s, f;

    (void)state;
    agg_init(&a);
    a.quiet = 1;
    g = agg_group_get(&a, AGG_NATIVE, 13, "specialized-forms");
    g2 = agg_group_get(&a, AGG_NATIVE, 13, "specialized-forms");
    assert_ptr_equal(g, g2);
    assert_ptr_not_equal(g, agg_group_get(&a, AGG_NATIVE, 11, "specialized-forms"));
    assert_ptr_not_equal(g, agg_group_get(&a, AGG_OWN, 13, "base-instructions"));
    assert_int_equal(a.ng, 3);

    s = agg_slot(g, "opcode[LOAD_ATTR].execution_count", 33);
    assert_int_equal(agg_add(g, s, 5, 0), 0);
    assert_int_equal(agg_add(g, s, 7, 0), 0);
    assert_int_equal(g->val[s], 12);
    /* Overflow saturates and says so. */
    assert_int_equal(agg_add(g, s, UINT64_MAX - 12, 0), 0);
    assert_true(g->val[s] == UINT64_MAX);
    assert_int_equal(agg_add(g, s, 1, 0), 1);
    assert_true(g->val[s] == UINT64_MAX);
    assert_true(g->flag[s] & AGG_F_SATURATED);
    /* Flags are OR-ed, never summed into a count of files. */
    f = agg_slot(g, "opcode[LOAD_ATTR].specializable", 31);
    agg_add(g, f, 1, 1);
    agg_add(g, f, 1, 1);
    agg_add(g, f, 1, 1);
    assert_int_equal(g->val[f], 1);
    agg_free(&a);
}

/* Census site attempts are a state: the largest is kept, in a file, across
 * files and across merged reader threads. */
static void
test_agg_max(void **state)
{
    agg a, b;
    agg_group *g;
    size_t s;
    const char *k = "census.sites[CALL | a.py | 3 | f | g()].attempts";

    (void)state;
    agg_init(&a);
    agg_init(&b);
    a.quiet = b.quiet = 1;
    assert_int_equal(agg_mode_of_kind(PSF_K_SITE_ATTEMPTS), AGG_ADD_MAX);
    assert_int_equal(agg_mode_of_kind(PSF_K_SITE_SEEN), AGG_ADD_SUM);
    assert_int_equal(agg_mode_of_kind(PSF_K_OP_SPECIALIZABLE), AGG_ADD_FLAG);
    g = agg_group_get(&a, AGG_OWN, 13, "base-instructions");
    s = agg_slot(g, k, strlen(k));
    agg_add(g, s, 4, AGG_ADD_MAX);
    agg_add(g, s, 2, AGG_ADD_MAX);
    assert_int_equal(g->val[s], 4);
    g = agg_group_get(&b, AGG_OWN, 13, "base-instructions");
    agg_add(g, agg_slot(g, k, strlen(k)), 6, AGG_ADD_MAX);
    agg_merge(&a, &b);
    agg_merge(&a, &b);
    g = a.g[0];
    s = agg_slot(g, k, strlen(k));
    assert_int_equal(g->val[s], 6);
    assert_true(g->flag[s] & AGG_F_MAX);
    agg_free(&a);
    agg_free(&b);
}

static void
test_agg_merge(void **state)
{
    agg a, b;
    agg_group *g;
    size_t s;

    (void)state;
    agg_init(&a);
    agg_init(&b);
    a.quiet = b.quiet = 1;
    g = agg_group_get(&a, AGG_NATIVE, 13, "specialized-forms");
    agg_add(g, agg_slot(g, "k", 1), 40, 0);
    g->files = 2;
    g = agg_group_get(&b, AGG_NATIVE, 13, "specialized-forms");
    agg_add(g, agg_slot(g, "k", 1), 2, 0);
    agg_add(g, agg_slot(g, "j", 1), 9, 0);
    g->files = 3;
    agg_problem(&b, AGG_P_TRUNCATED, "f.txt", 7, "cut");
    agg_merge(&a, &b);
    g = a.g[0];
    assert_int_equal(a.ng, 1);
    assert_int_equal(g->files, 5);
    s = ktab_find(&g->keys, "k", 1);
    assert_int_equal(g->val[s], 42);
    assert_int_equal(g->val[ktab_find(&g->keys, "j", 1)], 9);
    assert_int_equal(a.problems[AGG_P_TRUNCATED], 1);
    assert_string_equal(a.notes[0].text, "f.txt:7: cut");
    agg_free(&a);
    agg_free(&b);
}

static void
test_strs_bounded(void **state)
{
    agg_strs s = { 0 };
    char v[16];
    size_t i;
    uint64_t total = 0;

    (void)state;
    for (i = 0; i < 100; i++) {
        snprintf(v, sizeof v, "pid%zu", i);
        agg_strs_add(&s, v, strlen(v), 1);
    }
    assert_int_equal(s.n, AGG_STR_MAX);
    for (i = 0; i < s.n; i++)
        total += s.v[i].n;
    assert_int_equal(total, 100);
    assert_string_equal(s.v[s.n - 1].text, "(other)");
    for (i = 0; i < s.n; i++)
        free(s.v[i].text);
    free(s.v);
}

static void
test_model(void **state)
{
    agg a;
    agg_group *g;
    m_group m;
    const m_op *op;
    static const struct { const char *k; uint64_t v; } keys[] = {
        { "opcode[LOAD_ATTR].execution_count", 10 },
        { "opcode[LOAD_ATTR_SLOT].execution_count", 30 },
        { "opcode[LOAD_ATTR].specialization.failure", 4 },
        { "opcode[LOAD_ATTR].specialization.failure_kinds[23]", 3 },
        { "opcode[LOAD_ATTR].specialization.failure_kinds[ATTR_CLASS_METHOD_OBJ]", 1 },
        { "opcode[LOAD_ATTR].pair_count[LOAD_FAST]", 6 },
        { "opcode[LOAD_FAST].execution_count", 60 },
        { "GC[1] collections", 2 },
        { "Rare event (set_class)", 1 },
        { "census[int].count", 8 },
    };
    size_t i;

    (void)state;
    agg_init(&a);
    g = agg_group_get(&a, AGG_NATIVE, 13, "specialized-forms");
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        agg_add(g, agg_slot(g, keys[i].k, strlen(keys[i].k)), keys[i].v, 0);
    model_build(&m, g);
    assert_int_equal(m.total_exec, 100);
    op = model_op(&m, "LOAD_ATTR");
    assert_non_null(op);
    assert_int_equal(op->spec[PSF_SPEC_FAILURE], 4);
    /* The numbered kind and its SPEC_FAIL_ name (an older summary) add up
     * under CPython's label. */
    assert_int_equal(op->fail.n, 1);
    assert_string_equal(op->fail.v[0].name, "class method obj");
    assert_int_equal(op->fail.v[0].n, 4);
    /* The JSON summary keeps the SPEC_FAIL_ name. */
    assert_int_equal(op->fail_names.n, 1);
    assert_string_equal(op->fail_names.v[0].name, "ATTR_CLASS_METHOD_OBJ");
    assert_int_equal(op->fail_names.v[0].n, 4);
    assert_int_equal(m_list_get(&op->succ, "LOAD_FAST"), 6);
    assert_int_equal(m_list_get(&model_op(&m, "LOAD_FAST")->pred, "LOAD_ATTR"), 6);
    assert_true(model_is_specialized(model_op(&m, "LOAD_ATTR_SLOT")));
    assert_false(model_is_specialized(op));
    assert_int_equal(m_list_get(&m.gc, "1 collections"), 2);
    assert_int_equal(m_list_get(&m.rare, "set_class"), 1);
    assert_int_equal(m_list_get(&m.other, "census[int].count"), 8);
    model_free(&m);
    agg_free(&a);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ktab),
        cmocka_unit_test(test_agg_sum_and_flags),
        cmocka_unit_test(test_agg_merge),
        cmocka_unit_test(test_agg_max),
        cmocka_unit_test(test_strs_bounded),
        cmocka_unit_test(test_model),
    };
    return cmocka_run_group_tests_name("agg", tests, NULL, NULL);
}
