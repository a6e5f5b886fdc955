/* test_doc.c: the document model (src/cli/doc.c) printed as Markdown
 * (src/cli/doc_md.c), against Markdown written out by hand: blank lines
 * between blocks (two after a section heading followed at once by a
 * sub-heading, one after a group's heading), runs from the inputs
 * escaped and the report's own text as it is, bold and code spans over
 * several runs, cells with nothing ("| |") and cells of empty text
 * ("|  |"), and figures left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/doc.h"

static char *
md_of(doc *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(doc_print_md_free(f, d), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void
test_blocks_and_spacing(void **state)
{
    doc d;
    char *md;
    (void)state;

    doc_init(&d);
    doc_heading(&d, 1);
    doc_text(&d, "Title");
    doc_para(&d);
    doc_text(&d, "One line.");
    doc_heading(&d, 2);
    doc_last(&d)->group = 1;
    doc_text(&d, "Group 1: x");
    doc_heading(&d, 3);
    doc_text(&d, "Section");
    doc_figure(&d, DOC_FIG_EXEC, NULL);
    doc_heading(&d, 4);
    doc_text(&d, "Sub");
    doc_item(&d);
    doc_text(&d, "a");
    doc_item(&d);
    doc_text(&d, "b");
    doc_para(&d);
    doc_text(&d, "After.");
    md = md_of(&d);
    assert_string_equal(md, "# Title\n"
                            "\n"
                            "One line.\n"
                            "\n"
                            "## Group 1: x\n"
                            "\n"
                            "### Section\n"
                            "\n"
                            "\n"
                            "#### Sub\n"
                            "\n"
                            "- a\n"
                            "- b\n"
                            "\n"
                            "After.\n");
    free(md);
}

static void
test_runs(void **state)
{
    doc d;
    char *md;
    (void)state;

    doc_init(&d);
    doc_para(&d);
    doc_bold(&d, "Note:");
    doc_text(&d, " the `own` *text* ");
    doc_name(&d, "a|b *c* <d> __init__ LOAD_FAST__LOAD_FAST");
    doc_text(&d, " and ");
    doc_style(&d, DOC_CODE);
    doc_name(&d, "f");
    doc_text(&d, ".g");
    doc_style(&d, DOC_PLAIN);
    doc_text(&d, ".");
    doc_para(&d);
    doc_style(&d, DOC_BOLD);
    doc_text(&d, "Left out: ");
    doc_name(&d, "X_");
    doc_text(&d, ".");
    md = md_of(&d);
    assert_string_equal(md, "**Note:** the `own` *text* "
                            "a\\|b \\*c\\* \\<d> \\_\\_init\\_\\_ LOAD_FAST__LOAD_FAST"
                            " and `f.g`.\n"
                            "\n"
                            "**Left out: X\\_.**\n");
    free(md);
}

static void
test_table(void **state)
{
    doc d;
    char *md;
    (void)state;

    doc_init(&d);
    doc_table(&d, "lrr", NULL, "Count", "");
    doc_row_begin(&d);
    doc_cell_name(&d, "a|b");
    doc_cell_textf(&d, "%d", 12);
    doc_cell_text(&d, "");
    doc_row_begin(&d);
    doc_cell_none(&d);
    doc_cell_none(&d);
    doc_cell(&d);
    doc_text(&d, "x, ");
    doc_bold(&d, "y");
    md = md_of(&d);
    assert_string_equal(md, "| | Count |  |\n"
                            "| :--- | ---: | ---: |\n"
                            "| a\\|b | 12 |  |\n"
                            "| | | x, **y** |\n");
    free(md);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_and_spacing),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
