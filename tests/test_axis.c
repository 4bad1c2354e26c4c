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

/* sp_axis_check_valid: membership in the declared list, its ranges
 * stepped by + or *, nproc in it, a word axis by its word. */
Test(axis, declared_valid_values)
{
    static const sp_kernel k = {.name = "toy", .naxes = 3,
                                .axes = {{"blocksize", "32", "1,32..1024:+32"},
                                         {"hack", "32", "16..nproc:*2"},
                                         {SP_AXIS_PRECISION, "double", "double"}}};
    static const struct {
        int axis;
        long value, ok;
    } cases[] = {{0, 1, 1}, {0, 2, 0}, {0, 64, 1}, {0, 1024, 1}, {0, 1056, 0}, {0, 100, 0},
                 {1, 16, 1}, {1, 32, 1}, {1, 64, 1}, {1, 48, 0}, {1, 128, 0},
                 {2, SP_DOUBLE, 1}, {2, SP_SINGLE, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        long v = cases[i].value;
        sp_axis_values one = {1, &v};
        sp_err err = {{0}};
        int rc = sp_axis_check_valid(&k, cases[i].axis, &one, 64, &err);
        cr_assert_eq(rc, cases[i].ok ? 0 : -1, "%s = %ld", k.axes[cases[i].axis].name, v);
        if (!cases[i].ok)
            cr_assert(strstr(err.msg, "kernel 'toy'") && strstr(err.msg, "not among"), "%s",
                      err.msg);
    }
    long single = SP_SINGLE;
    sp_axis_values w = {1, &single};
    sp_err err = {{0}};
    sp_axis_check_valid(&k, 2, &w, 64, &err);
    cr_assert(strstr(err.msg, "precision = single"), "the word, not its number: %s", err.msg);
}
