/* test_transpose_librsb.c — librsb's transposition (transpose_librsb):
 * what its info says it ran, the launch/reset protocol, the one-row shape
 * librsb 1.3.0 cannot clone transposed refused with the reason, and a
 * thread count OpenMP would cap refused through the runner. Its results on
 * the awkward, generated and real matrices are checked with every other
 * transposition kernel's (test_transpose.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_cases.h"
#include "testutil.h"
#include "util_db.h"
#include "../fetch/matrix.h"
#include "../kernels/transpose/transpose.h"

static const sp_kernel *rsb_kernel(void)
{
    const sp_kernel *k = sp_kernel_find("transpose_librsb");
    cr_assert_not_null(k, "transpose_librsb not registered");
    cr_assert(k->prepare && k->launch && k->reset && k->info && k->need);
    return k;
}

/* 1 x cols with n nonzeros at columns 0, 2, 4, ... valued 1, 2, 3, ... */
static void one_row(int32_t cols, int32_t n, sp_csr *A)
{
    sp_coo T;
    sp_err err;
    cr_assert_eq(sp_coo_init(&T, 1, cols, n, &err), 0, "%s", err.msg);
    for (int32_t j = 0; j < n; j++)
        cr_assert_eq(sp_coo_push(&T, 0, 2 * j, j + 1.0, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_csr_from_coo(A, &T, &err), 0, "%s", err.msg);
    sp_coo_free(&T);
}

/* info after prepare and after a launch: the threads librsb runs (from the
 * axis), the calls timed, A's blocks and, once launched, the clone's; a
 * second launch without reset refused; an empty shape said to be empty. */
Test(librsb_transpose, info_states_threads_calls_and_blocks, .timeout = 60)
{
    const sp_kernel *k = rsb_kernel();
    const sp_operation *op = sp_operation_find("transpose");
    static const char *names[] = {"rows not a multiple of 32 (1001)", "no rows 0x100"};
    for (int n = 0; n < 2; n++) {
        spmv_case c;
        for (int i = 0; i < spmv_case_count(); i++) {
            spmv_case_build(i, &c);
            if (!strcmp(c.name, names[n]))
                break;
            spmv_case_free(&c);
        }
        cr_assert_str_eq(c.name, names[n]);
        sp_problem pb;
        sp_err err = {{0}};
        sp_exec ex = {NULL};
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
        sp_params p = {.n = 1, .name = {"threads"}, .value = {2}};
        void *state = NULL;
        char json[1024];
        cr_assert_eq(k->prepare(&pb, &p, &state, &err), 0, "%s", err.msg);
        cr_assert_eq(k->info(state, json, sizeof json), 0);
        cr_assert(strstr(json, "\"threads\":2,") && strstr(json, "rsb_mtx_clone") &&
                      strstr(json, "rsb_mtx_get_csr") && strstr(json, "\"librsb\":\"1."),
                  "%s", json);
        cr_assert(strstr(json, n ? "\"empty\":1" : "\"empty\":0"), "%s: %s", c.name, json);
        cr_assert(strstr(json, "\"clone_leaves\":0,"), "no clone before a launch: %s", json);
        void *out = malloc(sp_csc_bytes(&c.A) + 8);
        if (!n)
            cr_assert_eq(k->result(state, out, &ex, &err), -1, "a result before any launch");
        cr_assert_eq(k->launch(state, &ex, &err), 0, "%s", err.msg);
        if (!n) {
            cr_assert_eq(k->info(state, json, sizeof json), 0);
            cr_assert(!strstr(json, "\"clone_leaves\":0,") && !strstr(json, "\"leaves\":0,"),
                      "%s", json);
            cr_assert_eq(k->launch(state, &ex, &err), -1, "a launch over an earlier clone");
            cr_assert(strstr(err.msg, "reset"), "%s", err.msg);
        }
        cr_assert_eq(k->reset(state, &ex, &err), 0, "%s", err.msg);
        cr_assert_eq(k->launch(state, &ex, &err), 0, "%s", err.msg);
        cr_assert_eq(k->result(state, out, &ex, &err), 0, "%s", err.msg);
        void *ref = malloc(sp_csc_bytes(&c.A) + 8);
        cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
        cr_assert_eq(op->error(&pb, out, ref), 0, "%s: librsb's A^T differs", c.name);
        free(ref);
        free(out);
        k->release(state);
        op->teardown(&pb);
        spmv_case_free(&c);
    }
}

/* librsb 1.3.0 fails to clone a one-row matrix of 4 or more nonzeros
 * transposed: need and prepare refuse it, naming the shape, while 3
 * nonzeros in one row, and the same 4 in two rows' worth, are transposed. */
Test(librsb_transpose, refuses_one_row_with_the_reason, .timeout = 60)
{
    const sp_kernel *k = rsb_kernel();
    const sp_operation *op = sp_operation_find("transpose");
    sp_params p = {.n = 1, .name = {"threads"}, .value = {1}};
    sp_csr A;
    one_row(100, 4, &A);
    sp_problem pb;
    sp_err err = {{0}};
    sp_need need;
    void *state = NULL;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    cr_assert_eq(k->need(&pb, &p, &need, &err), -1);
    cr_assert(strstr(err.msg, "one row") && strstr(err.msg, "1 x 100, 4"), "%s", err.msg);
    cr_assert_eq(k->prepare(&pb, &p, &state, &err), -1, "prepare agrees with need");
    cr_assert_null(state);
    op->teardown(&pb);
    sp_csr_free(&A);
    one_row(100, 3, &A);
    cr_assert_eq(spmv_check_kernel(k, &p, &A), 0, "1 x 100 with 3 nonzeros is transposed");
    sp_csr_free(&A);
}

/* Threads OpenMP would cap are refused, not run on fewer: through the
 * runner (libgomp reads OMP_THREAD_LIMIT when it loads), at a limit of 2
 * the runs at 1 and 2 threads are ok and state their threads, the one at 3
 * is an error naming the limit; at a limit of 1, under which librsb 1.3.0
 * loses nonzeros, the run is refused with that reason. */
Test(librsb_transpose, threads_over_the_openmp_limit_refused, .timeout = 120)
{
    char dir[256], cfg[300], db[300], db1[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(cfg, sizeof cfg, dir, "t.ini");
    tu_path(db, sizeof db, dir, "t.db");
    tu_path(db1, sizeof db1, dir, "t1.db");
    tu_write_file(cfg, "[sweep]\nrepetitions = 2\nwarmup = 0\n"
                       "[matrices]\nsource = gen:laplace2d?n=40\n"
                       "[kernel transpose_librsb]\nthreads = 1,2,3\n");
    cr_assert_eq(tu_sweep_cli("OMP_THREAD_LIMIT=2", cfg, db), 2, "the refused run fails the sweep");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE kernel = 'transpose_librsb' "
                                 "AND status = 'ok' AND json_extract(axes, '$.threads') = "
                                 "json_extract(kernel_info, '$.threads')"), 2);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE kernel = 'transpose_librsb' "
                                 "AND status = 'error' AND json_extract(axes, '$.threads') = 3 "
                                 "AND error LIKE '%threads = 3 asked, OMP_THREAD_LIMIT allows 2%'"),
                 1);
    cr_assert_eq(tu_sweep_cli("OMP_THREAD_LIMIT=1", cfg, db1), 2);
    cr_assert_eq(ud_file_int(db1, "SELECT count(*) FROM runs WHERE kernel = 'transpose_librsb' "
                                  "AND status = 'error' AND json_extract(axes, '$.threads') = 1 "
                                  "AND error LIKE '%wrong under OMP_THREAD_LIMIT=1%'"), 1);
}
