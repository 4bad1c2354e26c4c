/* test_gpu_spmv_single.c — every GPU SpMV kernel, ours and cuSPARSE's, at
 * `precision = single`: against the serial double reference with the
 * operation's single-precision bound (sp_run_tolerance: Higham and Mary's
 * probabilistic bound, kernels/spmv/spmv_op.c) on the awkward, generated
 * and real matrices; each one's error above double's tolerance (it really
 * computes in float) and below the bound; a matrix changed by four times
 * the bound in one value failing it (the bound is not vacuous); batches
 * of launches; and a GPU sweep that stores both precisions per run while
 * a section without the axis stores what it stored before. With
 * SPSWEEP_GPU_TEST_QUICK set (the sanitizer passes of tests/gpu/run.sh)
 * two block sizes and a dense row of 10^5 instead of 10^6. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../runner/exec/harness.h"
#include "../../runner/runner.h"
#include "../spmv_cases.h"
#include "../testutil.h"
#include "../util_db.h"

static const long single_only[] = {SP_SINGLE};
static const sp_params single_p = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {SP_SINGLE}};

/* Whether k is a GPU SpMV kernel (asserting it is built: these tests run
 * only where a device is). */
static int gpu_spmv_kernel(const sp_kernel *k)
{
    if (!k->needs_gpu || strcmp(k->operation, "spmv"))
        return 0;
    cr_assert(k->prepare && k->upload && k->launch && k->result && k->release,
              "%s is not built into this binary", k->name);
    return 1;
}

/* Every GPU SpMV kernel in single on A, each combination of a few block
 * sizes, one hack, lanes auto and 32, sigma 1 and 4096 (every other axis
 * at its defaults), checked by spmv_check_kernel_with against the run's
 * tolerance, the single bound. */
static void check_single(const sp_csr *A, const char *what)
{
    static const long blocksizes[] = {32, 96, 256, 1024}, quick_blocksizes[] = {96, 1024},
                      hacks[] = {64}, lanes[] = {1, 32}, sigmas[] = {1, 4096};
    int quick = getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
    spmv_axis_override o[5] = {{SP_AXIS_PRECISION, single_only, 1},
                               {"blocksize", quick ? quick_blocksizes : blocksizes,
                                quick ? 2 : 4},
                               {"hack", hacks, 1},
                               {"lanes", lanes, 2},
                               {"sigma", sigmas, 2}};
    int kernels = 0;
    for (int i = 0; sp_kernels[i]; i++)
        if (gpu_spmv_kernel(sp_kernels[i])) {
            spmv_check_kernel_with(sp_kernels[i], o, 5, A, what);
            kernels++;
        }
    cr_assert_geq(kernels, 15, "the 15 GPU SpMV kernels at least");
}

ParameterizedTestParameters(gpu_spmv_single, awkward_matrices)
{
    return tu_index_params(spmv_case_count());
}

/* a test per awkward matrix (tests/spmv_cases.h) */
ParameterizedTest(int *pi, gpu_spmv_single, awkward_matrices, .timeout = 600)
{
    spmv_case c;
    spmv_case_build(*pi, &c);
    check_single(&c.A, c.name);
    spmv_case_free(&c);
}

Test(gpu_spmv_single, generated_and_real_matrices, .timeout = 600)
{
    int quick = getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
    for (int i = 0; i < SPMV_GENERATED_COUNT; i++) {
        const char *spec = spmv_generated_spec(i, quick);
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(spec, &A, &err), 0, "%s: %s", spec, err.msg);
        check_single(&A, spec);
        sp_csr_free(&A);
    }
    static const char *files[] = {"tests/data/ss/bcsstk06.mtx.gz",
                                  "tests/data/ss/olm1000.mtx.gz"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        sp_csr A;
        sp_err err;
        sp_mm_opts mo = {.quiet = 1};
        cr_assert_eq(sp_mm_read(files[i], &mo, &A, NULL, &err), 0, "%s", err.msg);
        check_single(&A, files[i]);
        sp_csr_free(&A);
    }
}

/* k with p on the problem pb through the harness as the runner drives it
 * (tu_run): prepare, upload, analyse, a warm-up, one sample of `batch`
 * launches, the result into a NaN-poisoned y, release. */
static void run_into(const sp_kernel *k, const sp_params *p, const sp_problem *pb, double *y,
                     size_t bytes, int batch)
{
    sp_need need = {0};
    sp_err err = {{0}};
    cr_assert_eq(k->need(pb, p, &need, &err), 0, "%s need: %s", k->name, err.msg);
    cr_assert(need.device_bytes <= SPMV_TEST_FREE_BYTES, "%s: needs %llu bytes", k->name,
              (unsigned long long)need.device_bytes);
    tu_run r;
    double s = -1;
    cr_assert_eq(tu_run_prepare(&r, k, pb, p, &err), 0, "%s prepare: %s", k->name, err.msg);
    cr_assert_eq(sp_harness_launch(&r.h, r.state, &err), 0, "%s warm-up: %s", k->name,
                 err.msg);
    cr_assert_eq(sp_harness_sample(&r.h, r.state, batch, &s, &err), 0, "%s batch: %s",
                 k->name, err.msg);
    cr_assert(isfinite(s) && s > 0, "%s: %g s per launch", k->name, s);
    memset(y, 0xff, bytes);
    cr_assert_eq(tu_run_result(&r, y, &err), 0, "%s result: %s", k->name, err.msg);
    tu_run_end(&r);
    cr_assert(r.ph.h2d_s > 0 && r.ph.d2h_s > 0, "%s: h2d %g s, d2h %g s", k->name, r.ph.h2d_s,
              r.ph.d2h_s);
}

/* The problem on a generated matrix, its reference and an output buffer. */
typedef struct single_case {
    sp_csr A;
    sp_problem pb;
    double *ref, *y, tol;
    size_t bytes;
} single_case;

static void single_case_open(single_case *c, const char *spec)
{
    const sp_operation *op = sp_operation_find("spmv");
    sp_err err;
    cr_assert_eq(sp_generate(spec, &c->A, &err), 0, "%s: %s", spec, err.msg);
    cr_assert_eq(op->setup(&c->pb, SP_MATRIX_WORKLOAD(&c->A), &err), 0, "%s", err.msg);
    c->bytes = op->output_bytes(&c->pb);
    c->ref = malloc(c->bytes + 8);
    c->y = malloc(c->bytes + 8);
    cr_assert(c->ref && c->y);
    cr_assert_eq(op->reference(&c->pb, c->ref, &err), 0, "%s", err.msg);
    c->tol = sp_run_tolerance(op, &c->pb, c->ref, &single_p, SPMV_TEST_TOLERANCE);
}

static void single_case_close(single_case *c)
{
    sp_operation_find("spmv")->teardown(&c->pb);
    sp_csr_free(&c->A);
    free(c->ref);
    free(c->y);
}

/* A single-precision run is float: its error is above double's tolerance
 * (A's values and x are rounded, so an exact double computation would
 * miss that by far) and within the bound, also after a batch of 7
 * launches back to back (the hybrid kernel's counters, the merge path's
 * carries in float), on a matrix with a dense row of 5000 (three hybrid
 * chunks, a row across merge tiles) and on the 5-point Laplacian. */
Test(gpu_spmv_single, every_kernel_computes_in_float, .timeout = 300)
{
    static const char *specs[] = {"denserow?rows=4000&cols=5000&per_row=4&dense=5000",
                                  "laplace2d?n=300"};
    const sp_operation *op = sp_operation_find("spmv");
    for (int m = 0; m < 2; m++) {
        single_case c;
        single_case_open(&c, specs[m]);
        cr_assert(c.tol > SPMV_TEST_TOLERANCE && c.tol < 1e-2, "%s: bound %g", specs[m],
                  c.tol);
        int kernels = 0;
        for (int i = 0; sp_kernels[i]; i++) {
            const sp_kernel *k = sp_kernels[i];
            if (!gpu_spmv_kernel(k))
                continue;
            run_into(k, &single_p, &c.pb, c.y, c.bytes, 7);
            double rel = op->error(&c.pb, c.y, c.ref);
            cr_assert(rel > SPMV_TEST_TOLERANCE && rel <= c.tol,
                      "%s on %s in single: error %g, expected in (%g, %g]", k->name, specs[m],
                      rel, SPMV_TEST_TOLERANCE, c.tol);
            kernels++;
        }
        cr_assert_geq(kernels, 15);
        single_case_close(&c);
    }
}

/* The bound is not vacuous: on the Laplacian every kernel in single is run
 * on a copy of A whose middle row's diagonal is changed so that the exact
 * y moves by 4 times the bound (a change of about 10^-5 of the value,
 * far above float's rounding of it), and checked against A's reference:
 * the error must exceed the bound, and stay near those 4 bounds (the
 * kernel's own rounding adds at most one). The unchanged A passes. */
Test(gpu_spmv_single, a_result_four_bounds_off_fails_the_check, .timeout = 300)
{
    const sp_operation *op = sp_operation_find("spmv");
    single_case c;
    single_case_open(&c, "laplace2d?n=300");
    double big = 0;
    for (int32_t i = 0; i < c.A.rows; i++)
        big = fmax(big, fabs(c.ref[i]));
    int32_t row = c.A.rows / 2, k = -1;
    for (int32_t j = c.A.rowptr[row]; j < c.A.rowptr[row + 1]; j++)
        if (c.A.colidx[j] == row)
            k = j;
    cr_assert_geq(k, 0, "the Laplacian's diagonal");
    double xr = c.pb.x[row], delta = 4 * c.tol * big / fabs(xr);
    cr_assert(delta / fabs(c.A.val[k]) > 0x1p-20 && delta / fabs(c.A.val[k]) < 1e-3,
              "the change %g of %g is representable in float and small", delta, c.A.val[k]);
    sp_csr W = c.A;
    W.val = malloc((size_t)c.A.nnz * sizeof(double));
    cr_assert_not_null(W.val);
    memcpy(W.val, c.A.val, (size_t)c.A.nnz * sizeof(double));
    W.val[k] += delta;
    sp_problem wrong = c.pb;        /* the same x: it depends on the columns alone */
    wrong.A = &W;
    int kernels = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *kn = sp_kernels[i];
        if (!gpu_spmv_kernel(kn))
            continue;
        run_into(kn, &single_p, &c.pb, c.y, c.bytes, 1);
        double rel = op->error(&c.pb, c.y, c.ref);
        cr_assert_leq(rel, c.tol, "%s: the right matrix fails, error %g > %g", kn->name, rel,
                      c.tol);
        run_into(kn, &single_p, &wrong, c.y, c.bytes, 1);
        rel = op->error(&c.pb, c.y, c.ref);
        cr_assert(rel > c.tol && rel < 6 * c.tol,
                  "%s: a result 4 bounds off gave error %g against the bound %g", kn->name,
                  rel, c.tol);
        kernels++;
    }
    cr_assert_geq(kernels, 15);
    free(W.val);
    single_case_close(&c);
}

/* A GPU sweep stores each run with its precision: a kernel asked for both
 * runs twice, the single run ok with an error above double's tolerance
 * (checked against the single bound), the double run below it; a
 * cuSPARSE baseline too; a section that does not set the axis stores its
 * axes without a precision, as before the kernels had it. */
Test(gpu_spmv_single, a_sweep_stores_each_precision, .timeout = 300)
{
    char dir[256], db[300], text[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "single.db");
    snprintf(text, sizeof text,
             "[sweep]\nrepetitions = 3\nwarmup = 1\ntolerance = 1e-12\ndatabase = %s\n"
             "[matrices]\nsource = gen:laplace2d?n=200\n"
             "[kernel spmv_csr_cuda_vector]\nblocksize = 128\nprecision = double,single\n"
             "[kernel spmv_csr_cusparse]\nprecision = single\n"
             "[kernel spmv_sell_cuda]\nblocksize = 128\nhack = 32\nsigma = 1\n",
             db);
    sp_config cfg;
    sp_sweep_result res;
    sp_err err;
    cr_assert_eq(sp_config_parse("single.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_sweep_run(&cfg, &(sp_sweep_opts){.no_summary = 1}, &res, &err), 0, "%s",
                 err.msg);
    sp_config_free(&cfg);
    cr_assert_eq(res.ok, 4, "%d ok, %d failed", res.ok, res.failed);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs WHERE status = 'ok' AND "
                           "json_extract(axes, '$.precision') = 'single' AND "
                           "rel_error > 1e-12 AND rel_error < 1e-4", 0), 2);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs WHERE status = 'ok' AND "
                           "json_extract(axes, '$.precision') = 'double' AND "
                           "rel_error <= 1e-12", 0), 1);
    char axes[256];
    ud_text(h, "SELECT axes FROM runs WHERE kernel = 'spmv_sell_cuda'", 0, axes, sizeof axes);
    cr_assert_str_eq(axes, "{\"blocksize\":128,\"hack\":32,\"sigma\":1}");
    sqlite3_close(h);
}
