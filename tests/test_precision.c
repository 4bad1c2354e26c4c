/* test_precision.c — the `precision` axis end to end, without MKL: the
 * SpMV operation's bound for single precision (its formula, a rounded
 * answer passing, a wrong one failing, double keeping the sweep's
 * tolerance) and a sweep whose kernel rounds y to float, checked against
 * that bound where its axis says single and failed where it says double. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_cases.h"
#include "testutil.h"
#include "util_db.h"
#include "../kernels/spmv/spmv.h"
#include "../runner/runner.h"

static const sp_params single_p = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {SP_SINGLE}};
static const sp_params double_p = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {SP_DOUBLE}};

/* γ(10, m) of spmv_op.c: Higham and Mary's probabilistic bound. */
static double gamma10(double m)
{
    const double u = 0x1p-24;
    return expm1(10 * sqrt(m) * u + m * u * u / (1 - u));
}

/* One row of two nonzeros: the bound is γ(10, 4)·(|x0| + |x1|) / |x0 + x1|. */
Test(precision, spmv_single_bound_is_the_stated_formula)
{
    const sp_operation *op = sp_operation_find("spmv");
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_csr_alloc(&A, 1, 2, 2, &err), 0, "%s", err.msg);
    A.rowptr[0] = 0, A.rowptr[1] = 2, A.colidx[0] = 0, A.colidx[1] = 1;
    A.val[0] = 1.0, A.val[1] = 1.0;
    sp_problem pb;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    double ref[1];
    cr_assert_eq(op->reference(&pb, ref, &err), 0);
    double want = gamma10(4) * (fabs(pb.x[0]) + fabs(pb.x[1])) / fabs(pb.x[0] + pb.x[1]);
    cr_assert_float_eq(sp_run_tolerance(op, &pb, ref, &single_p, 1e-12), want, want * 1e-12);
    cr_assert_eq(sp_run_tolerance(op, &pb, ref, &double_p, 1e-12), 1e-12);
    cr_assert_eq(sp_run_tolerance(op, &pb, ref, NULL, 1e-12), 1e-12, "no axis: double");
    cr_assert_eq(sp_run_tolerance(op, &pb, ref, &single_p, 0.5), 0.5,
                 "never below the sweep's tolerance");
    op->teardown(&pb);
    sp_csr_free(&A);
}

/* On the awkward matrices: y rounded to float passes single's bound and
 * fails double's tolerance; on rows of ordinary length (up to 1000
 * nonzeros) the bound is below 10^-3, so one entry off by 10^-3 of the
 * largest fails; an all-zero reference keeps the sweep's tolerance. */
Test(precision, spmv_single_bound_passes_rounding_and_catches_errors)
{
    const sp_operation *op = sp_operation_find("spmv");
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        sp_problem pb;
        sp_err err;
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
        size_t n = (size_t)c.A.rows;
        double *ref = malloc(n * 8 + 8), *y = malloc(n * 8 + 8), big = 0;
        cr_assert(ref && y);
        cr_assert_eq(op->reference(&pb, ref, &err), 0);
        double tol = sp_run_tolerance(op, &pb, ref, &single_p, 1e-12);
        int32_t longest = 0;
        for (int32_t r = 0; r < c.A.rows; r++)
            if (c.A.rowptr[r + 1] - c.A.rowptr[r] > longest)
                longest = c.A.rowptr[r + 1] - c.A.rowptr[r];
        for (size_t r = 0; r < n; r++)
            y[r] = (double)(float)ref[r], big = fmax(big, fabs(ref[r]));
        if (big == 0) {
            cr_assert_eq(tol, 1e-12, "%s: all-zero reference", c.name);
        } else {
            cr_assert(tol >= gamma10(3) && tol < (longest <= 1000 ? 1e-3 : 0.1),
                      "%s: tolerance %g", c.name, tol);
            cr_assert_leq(op->error(&pb, y, ref), tol, "%s: y rounded to float", c.name);
            cr_assert_gt(op->error(&pb, y, ref), 1e-12, "%s: double's tolerance", c.name);
            y[n / 2] += fmax(1e-3, 2 * tol) * big;
            cr_assert_gt(op->error(&pb, y, ref), tol, "%s: a wrong entry passed", c.name);
        }
        free(ref);
        free(y);
        op->teardown(&pb);
        spmv_case_free(&c);
    }
}

extern const sp_kernel sp_spmv_csr_serial;

/* Serial CSR, then y rounded to float: what a single-precision kernel
 * delivers at best. */
static int float_launch(void *state, const sp_exec *ex, sp_err *err)
{
    if (sp_spmv_csr_serial.launch(state, ex, err))
        return -1;
    sp_spmv_cpu *s = state;
    for (int32_t i = 0; i < s->A->rows; i++)
        s->y[i] = (double)(float)s->y[i];
    return 0;
}

/* The harness checks a run at its precision (runner/exec/measure.c). */
Test(precision, a_sweep_checks_each_run_at_its_precision, .timeout = 60)
{
    static sp_kernel rounding;
    rounding = sp_spmv_csr_serial;
    rounding.name = "test_spmv_float", rounding.backend = "test";
    rounding.launch = float_launch, rounding.naxes = 1;
    rounding.axes[0] = (sp_axis){SP_AXIS_PRECISION, "single", NULL};
    const sp_kernel *const extra[] = {&rounding, NULL};
    char dir[256], db[300], text[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "p.db");
    snprintf(text, sizeof text, "[sweep]\nrepetitions = 3\nwarmup = 0\ntolerance = 1e-12\n"
             "database = %s\n[matrices]\nsource = gen:laplace2d?n=40\n"
             "[kernel test_spmv_float]\nprecision = double,single\n", db);
    sp_config cfg;
    sp_sweep_result res;
    sp_err err;
    cr_assert_eq(sp_config_parse("p.ini", text, extra, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_sweep_run(&cfg, &(sp_sweep_opts){.no_summary = 1}, &res, &err), 0, "%s",
                 err.msg);
    sp_config_free(&cfg);
    cr_assert_eq(res.ok, 1);
    cr_assert_eq(res.failed, 1);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs WHERE status = 'ok' AND "
                           "json_extract(axes, '$.precision') = 'single' AND rel_error > 1e-12",
                        0), 1);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs WHERE status = 'failed' AND "
                           "json_extract(axes, '$.precision') = 'double' AND "
                           "error LIKE '%exceeds tolerance 1e-12%'", 0), 1);
    char libs[256];
    ud_text(h, "SELECT libraries FROM sweeps", 0, libs, sizeof libs);
    cr_assert(!strncmp(libs, "librsb ", 7), "the sweep names its libraries: '%s'", libs);
#ifdef SP_HAVE_MKL
    cr_assert(strstr(libs, "; MKL 20") && strstr(libs, ", threading gnu"), "%s", libs);
#else
    cr_assert_null(strstr(libs, "MKL"), "%s", libs);
#endif
    sqlite3_close(h);
}
