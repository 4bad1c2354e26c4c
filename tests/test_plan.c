/* test_plan.c — plan expansion: Cartesian products in config order. */
#include <criterion/criterion.h>
#include <string.h>

#include "../runner/runner.h"

/* A local kernel with two axes, to check the product's order. */
static const sp_kernel two_axes = {
    .name = "test_two_axes", .operation = "spmv", .format = "csr", .backend = "serial",
    .naxes = 2, .axes = {{"threads", "1"}, {"blocksize", "32"}},
};
static const sp_kernel *const extra[] = {&two_axes, NULL};

Test(plan, cartesian_product_last_axis_fastest)
{
    sp_config cfg;
    sp_plan plan;
    sp_err err;
    const char *text = "[matrices]\nsource = gen:laplace2d?n=4\nsource = gen:laplace2d?n=5\n"
                       "[kernel spmv_csr_serial]\n"
                       "[kernel test_two_axes]\nthreads = 1,2,4\nblocksize = 32,64\n"
                       "[kernel spmv_csr_omp]\nthreads = 1..3\n";
    cr_assert_eq(sp_config_parse("p.ini", text, extra, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_plan_expand(&cfg, &plan, &err), 0, "%s", err.msg);
    cr_assert_eq(plan.ncombos, 1 + 3 * 2 + 3);
    cr_assert_str_eq(plan.combos[0].kernel->name, "spmv_csr_serial");
    cr_assert_eq(plan.combos[0].params.n, 0);
    long expect[6][2] = {{1, 32}, {1, 64}, {2, 32}, {2, 64}, {4, 32}, {4, 64}};
    for (int i = 0; i < 6; i++) {
        const sp_params *p = &plan.combos[1 + i].params;
        cr_assert_eq(sp_param(p, "threads", -1), expect[i][0]);
        cr_assert_eq(sp_param(p, "blocksize", -1), expect[i][1]);
    }
    cr_assert_eq(sp_param(&plan.combos[9].params, "threads", -1), 3);
    char json[128], text2[128];
    sp_params_json(&plan.combos[2].params, json, sizeof json);
    cr_assert_str_eq(json, "{\"threads\":1,\"blocksize\":64}");
    sp_params_text(&plan.combos[2].params, text2, sizeof text2);
    cr_assert_str_eq(text2, "threads=1 blocksize=64");
    sp_params_json(&plan.combos[0].params, json, sizeof json);
    cr_assert_str_eq(json, "{}");
    sp_plan_free(&plan);
    sp_config_free(&cfg);
}
