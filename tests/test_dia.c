/* test_dia.c — the diagonal format (kernels/dia.h): the layout against the
 * CSR it came from, the plan and `need` against the built layout, the
 * refusals past 32/64-bit counts, unstructured matrices skipped for their
 * stated size instead of built, and the DIA kernels on stencils and bands.
 * (Every DIA kernel also runs in the generic checks: test_spmv.c on the
 * awkward and real matrices, tests/gpu on the GPU.) */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_cases.h"
#include "../fetch/matrix.h"
#include "../kernels/dia.h"
#include "../kernels/spmv/spmv_gpu_host.h"

/* Every slot of D against A: offsets strictly ascending, every CSR entry
 * in its slot, every other slot zero, and each diagonal used at least once
 * (no offset that A lacks). */
static void check_layout(const sp_dia *D, const sp_csr *A, const char *what)
{
    cr_assert(D->rows == A->rows && D->cols == A->cols && D->nnz == A->nnz, "%s", what);
    cr_assert_eq(D->stored, (int64_t)D->ndiags * A->rows, "%s", what);
    cr_assert_eq((uintptr_t)D->val % 64, 0, "%s: values not 64-byte aligned", what);
    for (int32_t d = 1; d < D->ndiags; d++)
        cr_assert_lt(D->offset[d - 1], D->offset[d], "%s: offsets not ascending at %d", what, d);
    unsigned char *hit = calloc((size_t)D->stored + 1, 1);
    char *used = calloc((size_t)D->ndiags + 1, 1);
    cr_assert(hit && used);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t o = A->colidx[k] - i, lo = 0, hi = D->ndiags;
            while (lo < hi) {                       /* the diagonal of offset o */
                int32_t mid = lo + (hi - lo) / 2;
                if (D->offset[mid] < o)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            cr_assert(lo < D->ndiags && D->offset[lo] == o, "%s: offset %d missing", what, o);
            int64_t q = (int64_t)lo * A->rows + i;
            cr_assert_eq(D->val[q], A->val[k], "%s: row %d col %d", what, i, A->colidx[k]);
            hit[q] = 1;
            used[lo] = 1;
        }
    for (int64_t q = 0; q < D->stored; q++)
        if (!hit[q])
            cr_assert_eq(D->val[q], 0.0, "%s: padding slot %lld not zero", what, (long long)q);
    for (int32_t d = 0; d < D->ndiags; d++)
        cr_assert(used[d], "%s: diagonal %d (offset %d) holds no entry", what, d, D->offset[d]);
    free(hit);
    free(used);
}

/* A 3 x 4 matrix by hand:
 *   [1 0 2 0]
 *   [0 3 0 0]      offsets -2, 0, 1, 2; values per diagonal
 *   [4 0 0 5]      -2: (0 0 4)  0: (1 3 0)  1: (0 0 5)  2: (2 0 0) */
Test(dia, hand_made_layout)
{
    int32_t rowptr[] = {0, 2, 3, 5}, colidx[] = {0, 2, 1, 0, 3};
    double val[] = {1, 2, 3, 4, 5};
    sp_csr A = {.rows = 3, .cols = 4, .nnz = 5, .rowptr = rowptr, .colidx = colidx, .val = val};
    sp_dia D;
    sp_err err;
    cr_assert_eq(sp_dia_from_csr(&D, &A, &err), 0, "%s", err.msg);
    cr_assert_eq(D.ndiags, 4);
    int32_t off[] = {-2, 0, 1, 2};
    double v[] = {0, 0, 4, 1, 3, 0, 0, 0, 5, 2, 0, 0};
    for (int d = 0; d < 4; d++)
        cr_assert_eq(D.offset[d], off[d], "offset %d", d);
    for (int q = 0; q < 12; q++)
        cr_assert_eq(D.val[q], v[q], "slot %d: %g", q, D.val[q]);
    int32_t nd;
    int64_t stored;
    uint64_t bytes;
    cr_assert_eq(sp_dia_plan(&A, &nd, &stored, &bytes, &err), 0, "%s", err.msg);
    cr_assert(nd == 4 && stored == 12 && bytes == 12 * 8 + 4 * 4);
    sp_dia_free(&D);
    cr_assert_null(D.val);
}

/* Every awkward case small enough to build: the layout holds A exactly,
 * the plan counts what the conversion built, and the kernels' `need`
 * states the layout, the conversion's table and y (CPU), the layout, x
 * and y in whole pages (GPU). */
Test(dia, plan_and_need_match_the_built_layout, .timeout = 120)
{
    const sp_operation *op = sp_operation_find("spmv");
    const sp_kernel *cpu = sp_kernel_find("spmv_dia_omp"), *gpu = sp_kernel_find("spmv_dia_cuda");
    cr_assert(op && cpu && gpu && cpu->need && gpu->need);
    int built = 0;
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        sp_err err;
        int32_t nd;
        int64_t stored;
        uint64_t bytes;
        cr_assert_eq(sp_dia_plan(&c.A, &nd, &stored, &bytes, &err), 0, "%s: %s", c.name,
                     err.msg);
        sp_problem pb;
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
        sp_need n = {0}, g = {0};
        cr_assert_eq(cpu->need(&pb, NULL, &n, &err), 0, "%s: %s", c.name, err.msg);
        cr_assert_eq(gpu->need(&pb, NULL, &g, &err), 0, "%s: %s", c.name, err.msg);
        /* the CPU kernels' strip-major copy of the values, strips of 1024 rows
         * (spmv_dia.c), made while the diagonal-major layout exists */
        uint64_t strips = ((uint64_t)c.A.rows + 1023) / 1024;
        uint64_t base = bytes + sp_dia_work_bytes(&c.A) + ((uint64_t)c.A.rows + 1) * 8 +
                        strips * (uint64_t)nd * 1024 * 8;
        cr_assert(n.host_bytes >= base && n.host_bytes < base + 4096, "%s: %llu", c.name,
                  (unsigned long long)n.host_bytes);
        cr_assert_eq(g.device_bytes, sp_gpu_array_bytes((uint64_t)stored, 8) +
                                         sp_gpu_array_bytes((uint64_t)nd, 4) +
                                         sp_gpu_array_bytes((uint64_t)c.A.cols, 8) +
                                         sp_gpu_array_bytes((uint64_t)c.A.rows, 8), "%s", c.name);
        cr_assert_geq(g.host_bytes, bytes + sp_dia_work_bytes(&c.A), "%s", c.name);
        op->teardown(&pb);
        if (bytes <= SPMV_TEST_FREE_BYTES) {
            sp_dia D;
            cr_assert_eq(sp_dia_from_csr(&D, &c.A, &err), 0, "%s: %s", c.name, err.msg);
            cr_assert(D.ndiags == nd && D.stored == stored, "%s: plan %d x %lld, built %d x %lld",
                      c.name, nd, (long long)stored, D.ndiags, (long long)D.stored);
            cr_assert_eq(bytes, (uint64_t)D.stored * 8 + (uint64_t)D.ndiags * 4, "%s", c.name);
            check_layout(&D, &c.A, c.name);
            sp_dia_free(&D);
            built++;
        }
        spmv_case_free(&c);
    }
    cr_assert_geq(built, spmv_case_count() - 1, "only %d cases built", built);
}

/* Layouts that cannot be expressed are refused with the reason: more than
 * 2^31-1 diagonals, or more values than 64-bit byte counts hold. */
Test(dia, refuses_past_32_and_64_bit_counts)
{
    sp_csr A = {.rows = INT32_MAX, .cols = INT32_MAX, .nnz = INT32_MAX};
    int32_t nd;
    int64_t stored;
    uint64_t bytes;
    sp_err err = {{0}};
    cr_assert_eq(sp_dia_size(&A, (int64_t)INT32_MAX + 1, &nd, &stored, &bytes, &err), -1);
    cr_assert_not_null(strstr(err.msg, "2^31-1"), "%s", err.msg);
    cr_assert_eq(sp_dia_size(&A, INT32_MAX, &nd, &stored, &bytes, &err), -1);
    cr_assert_not_null(strstr(err.msg, "64-bit"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "DIA refused"), "%s", err.msg);
    sp_csr B = {.rows = 1000, .cols = 50, .nnz = 7};
    cr_assert_eq(sp_dia_size(&B, 7, &nd, &stored, &bytes, &err), 0, "%s", err.msg);
    cr_assert(nd == 7 && stored == 7000 && bytes == 7000 * 8 + 7 * 4);
    /* 2^28 diagonals of 2^31-1 rows: 4.6e18 bytes, just under the limit: stated, not refused */
    cr_assert_eq(sp_dia_size(&A, 1 << 28, &nd, &stored, &bytes, &err), 0, "%s", err.msg);
    cr_assert_eq(bytes, (uint64_t)(1 << 28) * INT32_MAX * 8 + (uint64_t)(1 << 28) * 4);
    sp_csr bad = {.rows = -1};
    cr_assert_eq(sp_dia_plan(&bad, &nd, &stored, &bytes, &err), -1);
    cr_assert_eq(sp_dia_plan(NULL, &nd, &stored, &bytes, &err), -1);
}

/* R-MAT, random columns and a dense row have nearly every diagonal: need
 * states the padded size (never refuses: whether it fits is the runner's
 * call), and the check, like the runner with 1 GiB free, skips them
 * without building anything. */
Test(dia, unstructured_matrices_are_skipped_for_their_size, .timeout = 60)
{
    static const char *specs[] = {
        "rmat?scale=14&ef=8",
        "uniform?rows=100003&cols=5000&per_row=9&seed=2",
        "denserow?rows=20000&cols=200000&per_row=1&dense=200000",
    };
    const sp_operation *op = sp_operation_find("spmv");
    const char *names[] = {"spmv_dia_serial", "spmv_dia_omp", "spmv_dia_cuda"};
    for (int s = 0; s < 3; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s", err.msg);
        sp_problem pb;
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
        for (int k = 0; k < 3; k++) {
            const sp_kernel *K = sp_kernel_find(names[k]);
            sp_need need = {0};
            cr_assert_eq(K->need(&pb, NULL, &need, &err), 0, "%s %s: %s", names[k], specs[s],
                         err.msg);
            /* at least rows diagonals, of rows values each */
            cr_assert_geq(need.host_bytes, (uint64_t)A.rows * A.rows * 8, "%s %s", names[k],
                          specs[s]);
            if (K->needs_gpu)
                cr_assert_geq(need.device_bytes, (uint64_t)A.rows * A.rows * 8);
            if (K->prepare)
                cr_assert_eq(spmv_check_kernel(K, NULL, &A), -1, "%s on %s was built",
                             names[k], specs[s]);
        }
        op->teardown(&pb);
        sp_csr_free(&A);
    }
}

/* Stencils and a band: the diagonals are exactly the stencil's points,
 * and both CPU kernels match the reference. */
Test(dia, stencils_and_bands, .timeout = 60)
{
    static const struct {
        const char *spec;
        int32_t ndiags;
    } m[] = {
        {"laplace2d?n=100", 5},
        {"laplace3d?n=20&points=27", 27},
        {"laplace3d?n=13&points=7", 7},
        {"banded?n=5000&bw=7", 15},
        {"banded?n=33&bw=40", 65},
    };
    for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(m[i].spec, &A, &err), 0, "%s", err.msg);
        int32_t nd;
        int64_t stored;
        uint64_t bytes;
        cr_assert_eq(sp_dia_plan(&A, &nd, &stored, &bytes, &err), 0, "%s", err.msg);
        cr_assert_eq(nd, m[i].ndiags, "%s: %d diagonals", m[i].spec, nd);
        sp_dia D;
        cr_assert_eq(sp_dia_from_csr(&D, &A, &err), 0, "%s", err.msg);
        check_layout(&D, &A, m[i].spec);
        sp_dia_free(&D);
        long threads[] = {1, 3};
        for (int t = 0; t < 2; t++) {
            sp_params p = {.n = 1, .name = {"threads"}, .value = {threads[t]}};
            double rel = spmv_check_kernel(sp_kernel_find("spmv_dia_omp"), &p, &A);
            cr_assert(rel >= 0 && rel <= 1e-12, "%s threads %ld: %g", m[i].spec, threads[t], rel);
        }
        double rel = spmv_check_kernel(sp_kernel_find("spmv_dia_serial"), NULL, &A);
        cr_assert(rel >= 0 && rel <= 1e-12, "%s serial: %g", m[i].spec, rel);
        sp_csr_free(&A);
    }
}

/* Bad axes are refused naming the axis: threads on the CPU, the GPU
 * kernel's rows_per_thread (checked on the host). */
Test(dia, bad_axes_are_refused)
{
    spmv_case c;
    spmv_case_build(1, &c);
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
    sp_params p = {.n = 1, .name = {"threads"}, .value = {0}};
    void *state = &err;
    cr_assert_eq(sp_kernel_find("spmv_dia_omp")->prepare(&pb, &p, &state, &err), -1);
    cr_assert_null(state);
    cr_assert_not_null(strstr(err.msg, "threads"), "%s", err.msg);
    long rpt[] = {0, 3, 8};
    for (int i = 0; i < 3; i++) {
        sp_params q = {.n = 1, .name = {"rows_per_thread"}, .value = {rpt[i]}};
        int v;
        cr_assert_eq(sp_gpu_rows_per_thread("spmv_dia_cuda", &q, &v, &err), -1);
        cr_assert_not_null(strstr(err.msg, "rows_per_thread"), "%s", err.msg);
    }
    int v = 0;
    cr_assert_eq(sp_gpu_rows_per_thread("spmv_dia_cuda", NULL, &v, &err), 0);
    cr_assert_eq(v, 1);
    op->teardown(&pb);
    spmv_case_free(&c);
}
