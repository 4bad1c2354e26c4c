/* test_example_kernel.c — docs/adding-a-kernel.md stays true: the kernel
 * it walks through (tests/example/spmv_csr_rows4.c, compiled here as part
 * of this file) is shown on the page exactly as it is, passes the checks
 * every SpMV kernel passes (the awkward matrices, each thread count), and
 * runs in a real sweep next to the serial baseline, with its rows in the
 * views the page queries. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner/runner.h"
#include "example/spmv_csr_rows4.c"
#include "spmv_cases.h"
#include "testutil.h"
#include "util_db.h"

/* The page's ```c block is the file, byte for byte. */
Test(example_kernel, the_page_shows_the_file_as_it_is)
{
    char *page = tu_slurp("docs/adding-a-kernel.md", NULL);
    char *file = tu_slurp("tests/example/spmv_csr_rows4.c", NULL);
    cr_assert(page && file);
    const char *open = strstr(page, "\n```c\n");
    cr_assert_not_null(open, "no ```c block in docs/adding-a-kernel.md");
    open += 6;
    const char *close = strstr(open, "\n```\n");
    cr_assert_not_null(close);
    size_t n = (size_t)(close - open) + 1;
    cr_assert_eq(n, strlen(file), "the page's code block and the file differ in length");
    cr_assert(!strncmp(open, file, n), "the page's code block is not the file: copy "
              "tests/example/spmv_csr_rows4.c into docs/adding-a-kernel.md");
    free(page);
    free(file);
}

/* The same checks as every registered SpMV kernel (tests/test_spmv.c). */
Test(example_kernel, passes_the_awkward_matrices, .timeout = 60)
{
    const long threads[] = {1, 2, 3};
    sp_params *ps;
    int np = spmv_kernel_params(&sp_spmv_csr_rows4, threads, 3, &ps);
    cr_assert_eq(np, 3);
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int j = 0; j < np; j++) {
            double e = spmv_check_kernel(&sp_spmv_csr_rows4, &ps[j], &c.A);
            cr_assert(e >= 0 && e <= SPMV_TEST_TOLERANCE, "%s, threads %ld: error %g", c.name,
                      ps[j].value[0], e);
        }
        spmv_case_free(&c);
    }
    free(ps);
}

/* Step 4 of the page: a config section, a sweep, and its runs in
 * run_stats and speedup. */
Test(example_kernel, sweeps_beside_the_baseline, .timeout = 120)
{
    char dir[256], db[300], text[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "ex.db");
    snprintf(text, sizeof text, "[sweep]\nrepetitions = 5\nwarmup = 1\ndatabase = %s\n"
             "[matrices]\nsource = gen:laplace2d?n=60\n[kernel spmv_csr_serial]\n"
             "[kernel spmv_csr_rows4]\nthreads = 1,2\n", db);
    const sp_kernel *const extra[] = {&sp_spmv_csr_rows4, NULL};
    sp_config cfg;
    sp_sweep_result res;
    sp_err err;
    cr_assert_eq(sp_config_parse("example.ini", text, extra, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_sweep_run(&cfg, &(sp_sweep_opts){0}, &res, &err), 0, "%s", err.msg);
    sp_config_free(&cfg);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_stats WHERE kernel = "
                                 "'spmv_csr_rows4'"), 2);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM speedup WHERE kernel = 'spmv_csr_rows4' "
                                 "AND baseline_kernel = 'spmv_csr_serial' AND speedup > 0"), 2);
}
