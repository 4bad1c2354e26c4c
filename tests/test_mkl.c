/* test_mkl.c — the optional Intel MKL kernels (spmv_mkl, transpose_mkl):
 * against the serial double reference on the awkward and generated
 * matrices in double and single precision, MKL's threads in effect and on
 * the GNU layer, the axes refused with a reason, a sweep that stores
 * MKL's version and threading layer. In a build without MKL (no `make
 * deps-mkl`) one test says so and skips. */
#include <criterion/criterion.h>

#ifndef SP_HAVE_MKL
#include <stdio.h>

/* Criterion shows a skip only with --verbose: the line goes to stderr too. */
Test(mkl, not_built_in)
{
    static const char why[] = "MKL is not built in (make deps-mkl, then make): spmv_mkl and "
                              "transpose_mkl untested";
    fprintf(stderr, "[SKIP] mkl: %s\n", why);
    cr_skip_test("%s", why);
}
#else
#include <link.h>
#include <mkl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_cases.h"
#include "testutil.h"
#include "util_db.h"
#include "../fetch/matrix.h"
#include "../kernels/mkl_lib.h"
#include "../kernels/transpose/transpose.h"
#include "../runner/runner.h"

static const long threads[] = {1, 2, 3, 7};
static const long precisions[] = {SP_DOUBLE, SP_SINGLE};

static const sp_kernel *find(const char *name)
{
    const sp_kernel *k = sp_kernel_find(name);
    cr_assert(k && k->prepare, "%s not registered or not built", name);
    return k;
}

/* k at every thread count and both precisions on A, each within its
 * run's tolerance (spmv_cases.h), refused nowhere. */
static void check_both_precisions(const sp_kernel *k, const long *t, int nt, const sp_csr *A,
                                  const char *what)
{
    spmv_axis_override o[] = {{"threads", t, nt}, {SP_AXIS_PRECISION, precisions, 2}};
    cr_assert_eq(spmv_check_kernel_with(k, o, 2, A, what), 0, "%s refused %s", k->name, what);
}

Test(mkl, both_kernels_on_awkward_matrices, .timeout = 120)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_both_precisions(find("spmv_mkl"), threads, 4, &c.A, c.name);
        check_both_precisions(find("transpose_mkl"), threads, 4, &c.A, c.name);
        spmv_case_free(&c);
    }
}

Test(mkl, both_kernels_on_generated_matrices, .timeout = 120)
{
    static const char *specs[] = {"rmat?scale=12&ef=8", "laplace3d?n=12&points=27",
                                  "denserow?rows=2000&cols=3000&per_row=3&dense=3000",
                                  "uniform?rows=500&cols=70000&per_row=9",
                                  "banded?n=3001&bw=5"};
    for (int s = 0; s < 5; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s: %s", specs[s], err.msg);
        check_both_precisions(find("spmv_mkl"), threads + 1, 1, &A, specs[s]);
        check_both_precisions(find("transpose_mkl"), threads + 1, 1, &A, specs[s]);
        sp_csr_free(&A);
    }
}

/* In single, MKL's transposition holds each value rounded once to float,
 * exactly, with the structure of the serial transposition. */
Test(mkl, single_transposition_rounds_each_value_once)
{
    const sp_kernel *k = find("transpose_mkl");
    const sp_operation *op = sp_operation_find("transpose");
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("rmat?scale=11&ef=8", &A, &err), 0, "%s", err.msg);
    sp_problem pb;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0);
    size_t bytes = sp_csc_bytes(&A);
    void *ref = malloc(bytes), *out = malloc(bytes);
    cr_assert(ref && out);
    cr_assert_eq(op->reference(&pb, ref, &err), 0);
    sp_params p = {.n = 2, .name = {"threads", SP_AXIS_PRECISION}, .value = {2, SP_SINGLE}};
    tu_run r;
    double s;
    cr_assert_eq(tu_run_prepare(&r, k, &pb, &p, &err), 0, "%s", err.msg);
    cr_assert_eq(tu_run_launch(&r, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(tu_run_result(&r, out, &err), 0, "%s", err.msg);
    tu_run_end(&r);
    sp_csc R, O;
    sp_csc_view(ref, &A, &R);
    sp_csc_view(out, &A, &O);
    cr_assert_eq(memcmp(R.colptr, O.colptr, ((size_t)A.cols + 1) * 4), 0);
    cr_assert_eq(memcmp(R.rowidx, O.rowidx, (size_t)A.nnz * 4), 0);
    for (int32_t i = 0; i < A.nnz; i++)
        cr_assert_eq(O.val[i], (double)(float)R.val[i], "value %d", i);
    free(ref);
    free(out);
    op->teardown(&pb);
    sp_csr_free(&A);
}

/* dl_iterate_phdr: is a library whose name holds `data` loaded? */
static int has_lib(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    return info->dlpi_name && strstr(info->dlpi_name, data) != NULL;
}

/* The axis's count is the one MKL runs, on the GNU layer (libgomp, no
 * libiomp5 in the process), stated in the run's info; release hands the
 * thread back to MKL's global count. */
Test(mkl, threads_in_effect_on_the_gnu_layer)
{
    static const char *names[] = {"spmv_mkl", "transpose_mkl"};
    int global = mkl_get_max_threads();
    spmv_case c;
    spmv_case_build(0, &c);
    for (int n = 0; n < 2; n++) {
        const sp_kernel *k = find(names[n]);
        const sp_operation *op = sp_operation_find(k->operation);
        sp_problem pb;
        sp_err err;
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0);
        for (int t = 1; t <= 3; t++) {
            sp_params p = {.n = 2, .name = {"threads", SP_AXIS_PRECISION},
                           .value = {t, t == 2 ? SP_SINGLE : SP_DOUBLE}};
            void *state = NULL;
            cr_assert_eq(k->prepare(&pb, &p, &state, &err), 0, "%s: %s", k->name, err.msg);
            cr_assert_eq(mkl_get_max_threads(), t, "%s: threads = %d", k->name, t);
            cr_assert_eq(mkl_get_dynamic(), 0, "%s: MKL may not pick fewer", k->name);
            char json[1024], want[64];
            cr_assert_eq(k->info(state, json, sizeof json), 0, "%s", k->name);
            snprintf(want, sizeof want, "\"threads\":%d,\"precision\":\"%s\"", t,
                     t == 2 ? "single" : "double");
            cr_assert(strstr(json, want) && strstr(json, "\"threading\":\"gnu\"") &&
                          strstr(json, "\"mkl\":\"20") && strstr(json, "\"empty\":0"),
                      "%s: %s", k->name, json);
            k->release(state);
            cr_assert_eq(mkl_get_max_threads(), global, "%s: release restores", k->name);
        }
        op->teardown(&pb);
    }
    cr_assert_str_eq(sp_mkl_threading(), "gnu");
    cr_assert_eq(dl_iterate_phdr(has_lib, "libiomp5"), 0, "Intel's OpenMP runtime is loaded");
    char d[256];
    sp_mkl_describe(d, sizeof d);
    cr_assert(!strncmp(d, "MKL 20", 6) && strstr(d, ", threading gnu"), "%s", d);
    spmv_case_free(&c);
}

/* Bad axis values are refused by need and prepare alike, with a reason,
 * before MKL is asked anything; a transposition launch over a result no
 * reset freed is an error, not a leak. */
Test(mkl, axes_refused_and_launch_needs_reset)
{
    static const char *names[] = {"spmv_mkl", "transpose_mkl"};
    spmv_case c;
    spmv_case_build(1, &c);
    for (int n = 0; n < 2; n++) {
        const sp_kernel *k = find(names[n]);
        const sp_operation *op = sp_operation_find(k->operation);
        sp_problem pb;
        sp_err err;
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0);
        sp_params bad[] = {{.n = 2, .name = {"threads", SP_AXIS_PRECISION}, .value = {2, 2}},
                           {.n = 1, .name = {"threads"}, .value = {0}}};
        const char *why[] = {"precision = 2", "threads = 0"};
        for (int b = 0; b < 2; b++) {
            sp_need need;
            void *state = NULL;
            err.msg[0] = 0;
            cr_assert_eq(k->need(&pb, &bad[b], &need, &err), -1);
            cr_assert(strstr(err.msg, why[b]) && strstr(err.msg, k->name), "%s", err.msg);
            err.msg[0] = 0;
            cr_assert_eq(k->prepare(&pb, &bad[b], &state, &err), -1);
            cr_assert(strstr(err.msg, why[b]), "%s", err.msg);
            cr_assert_null(state);
        }
        op->teardown(&pb);
    }
    const sp_kernel *k = find("transpose_mkl");
    const sp_operation *op = sp_operation_find("transpose");
    sp_problem pb;
    sp_err err;
    void *state = NULL;
    sp_exec ex = {NULL};
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0);
    cr_assert_eq(k->prepare(&pb, NULL, &state, &err), 0, "%s", err.msg);
    cr_assert_eq(k->launch(state, &ex, &err), 0, "%s", err.msg);
    cr_assert_eq(k->launch(state, &ex, &err), -1);
    cr_assert(strstr(err.msg, "reset"), "%s", err.msg);
    cr_assert_eq(k->reset(state, &ex, &err), 0);
    cr_assert_eq(k->launch(state, &ex, &err), 0, "%s", err.msg);
    k->release(state);
    op->teardown(&pb);
    spmv_case_free(&c);
}

/* Through the runner (a process per run): both kernels in both
 * precisions ok, the info stored with every run. */
Test(mkl, a_sweep_stores_both_precisions_and_the_info, .timeout = 120)
{
    char dir[256], db[300], text[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "m.db");
    snprintf(text, sizeof text, "[sweep]\nrepetitions = 3\nwarmup = 1\ndatabase = %s\n"
             "[matrices]\nsource = gen:laplace2d?n=60\nsource = gen:rmat?scale=10&ef=8\n"
             "[kernel spmv_mkl]\nthreads = 1,2\nprecision = double,single\n"
             "[kernel transpose_mkl]\nthreads = 2\nprecision = single,double\n", db);
    sp_config cfg;
    sp_sweep_result res;
    sp_err err;
    cr_assert_eq(sp_config_parse("m.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_sweep_run(&cfg, &(sp_sweep_opts){.no_summary = 1}, &res, &err), 0, "%s",
                 err.msg);
    sp_config_free(&cfg);
    cr_assert_eq(res.runs, 12);
    cr_assert_eq(res.ok, 12, "%d ok of 12", res.ok);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs WHERE json_extract(kernel_info, "
                           "'$.threading') = 'gnu' AND json_extract(kernel_info, '$.threads') "
                           "= json_extract(axes, '$.threads') AND json_extract(kernel_info, "
                           "'$.precision') = json_extract(axes, '$.precision')", 0), 12);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs WHERE kernel = 'spmv_mkl' AND "
                           "json_extract(axes, '$.precision') = 'single' AND rel_error > 0", 0),
                 4, "single precision differs from the double reference");
    sqlite3_close(h);
}
#endif
