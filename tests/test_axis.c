/* test_axis.c — axis value syntax: lists, ranges, steps, nproc, bounds. */
#include <criterion/criterion.h>

#include "../runner/runner.h"

static void expect(const char *axis, const char *text, long nproc, int n, const long *v)
{
    sp_axis_values a;
    sp_err err = {{0}};
    cr_assert_eq(sp_axis_parse(axis, text, nproc, &a, &err), 0, "%s: %s", text, err.msg);
    cr_assert_eq(a.n, n, "'%s' gave %d values, expected %d", text, a.n, n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(a.v[i], v[i], "'%s' value %d is %ld, expected %ld", text, i, a.v[i], v[i]);
    sp_axis_values_free(&a);
}

static void reject(const char *axis, const char *text, const char *word)
{
    sp_axis_values a;
    sp_err err = {{0}};
    cr_assert_eq(sp_axis_parse(axis, text, 8, &a, &err), -1, "'%s' accepted", text);
    cr_assert(strstr(err.msg, word), "'%s': message '%s' lacks '%s'", text, err.msg, word);
    cr_assert(strstr(err.msg, axis), "message '%s' does not name axis %s", err.msg, axis);
}

Test(axis, lists_sorted_and_deduplicated)
{
    expect("threads", "4,1,2,2", 8, 3, (long[]){1, 2, 4});
    expect("threads", " 3 ", 8, 1, (long[]){3});
}

Test(axis, ranges)
{
    expect("threads", "1..4", 8, 4, (long[]){1, 2, 3, 4});
    expect("threads", "1..nproc", 3, 3, (long[]){1, 2, 3});
    expect("blocksize", "32..1024:*2", 8, 6, (long[]){32, 64, 128, 256, 512, 1024});
    expect("blocksize", "64..300:+64", 8, 4, (long[]){64, 128, 192, 256});
    expect("blocksize", "64..300:64", 8, 4, (long[]){64, 128, 192, 256});
    expect("threads", "1..nproc:*2,nproc", 6, 4, (long[]){1, 2, 4, 6});
    expect("threads", "nproc", 12, 1, (long[]){12});
}

Test(axis, errors_name_the_axis_and_problem)
{
    reject("threads", "abc", "not an integer");
    reject("threads", "1,,2", "empty");
    reject("threads", "0", "outside");
    reject("blocksize", "2048", "outside");
    reject("threads", "8..1", "empty range");
    reject("threads", "1..8:*1", ">= 2");
    reject("threads", "1..8:0", ">= 1");
    reject("threads", "", "empty");
    reject("threads", "1..1000000000", "outside");
}

/* A word axis takes its words (in the enum's order, whatever the order
 * written) and nothing else; the words read back by value. */
Test(axis, precision_is_a_word_axis)
{
    expect(SP_AXIS_PRECISION, "double", 8, 1, (long[]){SP_DOUBLE});
    expect(SP_AXIS_PRECISION, "single, double", 8, 2, (long[]){SP_DOUBLE, SP_SINGLE});
    reject(SP_AXIS_PRECISION, "half", "not one of double, single");
    reject(SP_AXIS_PRECISION, "1", "not one of double, single");
    reject(SP_AXIS_PRECISION, "Double", "not one of");
    cr_assert_str_eq(sp_axis_word(SP_AXIS_PRECISION, SP_SINGLE), "single");
    cr_assert_str_eq(sp_axis_word(SP_AXIS_PRECISION, SP_DOUBLE), "double");
    cr_assert_null(sp_axis_word(SP_AXIS_PRECISION, 7));
    cr_assert_null(sp_axis_word("threads", 1), "threads takes integers");
    cr_assert_str_eq(sp_precision_name(SP_SINGLE), "single");
}
