/* test_spmv_single_orders.c — the SpMV single-precision bound
 * (kernels/spmv/spmv_op.c: Higham and Mary's probabilistic bound with
 * m = n_i + 2 roundings a term) against the ways the GPU kernels sum a
 * row in float, emulated on the CPU, so that it is checked without a GPU:
 * one thread in order with fused multiply-adds (scalar, ELL, HLL, SELL,
 * DIA) and without, lanes with a stride and a shuffle tree (vector,
 * sub-warp, HLL block), chunks of 2048 summed by a last warp (hybrid),
 * tiles of 256 merge items with carries (merge path). Every order stays
 * well inside the bound on every awkward and generated matrix, and on
 * rows of ordinary length the bound is no more than 100 times the error
 * (not vacuous there). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "spmv_cases.h"
#include "../fetch/matrix.h"
#include "../kernels/spmv/spmv.h"

/* Row i's products from b to e, one lane every `lanes`, each lane's sum
 * in order with fused multiply-adds, then the lanes summed by a tree. */
static float strided(const sp_csr *A, const float *v, const float *x, int32_t b, int32_t e,
                     int lanes)
{
    float p[32] = {0};
    for (int l = 0; l < lanes; l++)
        for (int32_t k = b + l; k < e; k += lanes)
            p[l] = fmaf(v[k], x[A->colidx[k]], p[l]);
    for (int o = lanes / 2; o > 0; o /= 2)
        for (int l = 0; l < o; l++)
            p[l] += p[l + o];
    return p[0];
}

/* In order, with or without fused multiply-adds. */
static float in_order(const sp_csr *A, const float *v, const float *x, int32_t i, int fma)
{
    float s = 0;
    for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        s = fma ? fmaf(v[k], x[A->colidx[k]], s) : s + v[k] * x[A->colidx[k]];
    return s;
}

/* Hybrid: rows above 32 lanes x 32 in chunks of 2048 (each strided over
 * a warp), the chunks' partials summed by a warp's tree. */
static float hybrid(const sp_csr *A, const float *v, const float *x, int32_t i)
{
    int32_t b = A->rowptr[i], e = A->rowptr[i + 1];
    if (e - b <= 32 * 32)
        return strided(A, v, x, b, e, 32);
    float p[32] = {0};
    for (int32_t c = b, j = 0; c < e; c += 2048, j++)
        p[j % 32] += strided(A, v, x, c, c + 2048 < e ? c + 2048 : e, 32);
    for (int o = 16; o > 0; o /= 2)
        for (int l = 0; l < o; l++)
            p[l] += p[l + o];
    return p[0];
}

/* Merge path: the nonzeros cut where a tile of 256 items (row ends plus
 * nonzeros) ends; each piece summed in order, the pieces added to the
 * row one after the other (the carries). */
static float merge(const sp_csr *A, const float *v, const float *x, int32_t i)
{
    float y = 0;
    int32_t b = A->rowptr[i], e = A->rowptr[i + 1];
    for (int32_t k = b; k < e;) {
        int64_t item = (int64_t)i + k;          /* merge item of nonzero k */
        int32_t stop = (int32_t)((item / 256 + 1) * 256 - i);
        float s = 0;
        for (; k < e && k < stop; k++)
            s += v[k] * x[A->colidx[k]];
        y += s;
    }
    return y;
}

#define ORDERS 6
static const char *order_name[ORDERS] = {"in order, fma", "in order", "32 lanes",
                                         "4 lanes", "hybrid chunks", "merge tiles"};

/* The largest error of any order over the bound, on A. */
static double worst_over_bound(const sp_csr *A, const char *what, double *best)
{
    const sp_operation *op = &sp_op_spmv;
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(A), &err), 0, "%s", err.msg);
    size_t n = (size_t)A->rows;
    double *ref = malloc(n * 8 + 8), *y = malloc(n * 8 + 8);
    float *v = malloc((size_t)A->nnz * 4 + 4), *x = malloc((size_t)A->cols * 4 + 4);
    cr_assert(ref && y && v && x);
    cr_assert_eq(op->reference(&pb, ref, &err), 0);
    const sp_params single = {.n = 1, .name = {SP_AXIS_PRECISION}, .value = {SP_SINGLE}};
    double bound = sp_run_tolerance(op, &pb, ref, &single, 0);
    for (int32_t k = 0; k < A->nnz; k++)
        v[k] = (float)A->val[k];
    for (int32_t j = 0; j < A->cols; j++)
        x[j] = (float)pb.x[j];
    double worst = 0;
    *best = INFINITY;
    for (int o = 0; o < ORDERS && bound > 0; o++) {
        for (int32_t i = 0; i < A->rows; i++) {
            int32_t b = A->rowptr[i], e = A->rowptr[i + 1];
            y[i] = o == 0   ? in_order(A, v, x, i, 1)
                   : o == 1 ? in_order(A, v, x, i, 0)
                   : o == 2 ? strided(A, v, x, b, e, 32)
                   : o == 3 ? strided(A, v, x, b, e, 4)
                   : o == 4 ? hybrid(A, v, x, i)
                            : merge(A, v, x, i);
        }
        double r = op->error(&pb, y, ref) / bound;
        cr_assert_leq(r, 0.25, "%s, %s: error %g of the bound %g", what, order_name[o], r,
                      bound);
        worst = fmax(worst, r), *best = fmin(*best, r);
    }
    free(ref), free(y), free(v), free(x);
    op->teardown(&pb);
    return bound > 0 ? worst : 0;
}

Test(spmv_single_orders, the_bound_holds_for_every_gpu_summation_order, .timeout = 120)
{
    double best;
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        worst_over_bound(&c.A, c.name, &best);
        spmv_case_free(&c);
    }
    static const char *specs[] = {"laplace2d?n=300", "laplace3d?n=30&points=27",
                                  "uniform?rows=50000&cols=5000&per_row=9&seed=2",
                                  "banded?n=5000&bw=7", "rmat?scale=13&ef=8",
                                  "denserow?rows=4000&cols=5000&per_row=4&dense=5000"};
    for (int s = 0; s < 6; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s: %s", specs[s], err.msg);
        worst_over_bound(&A, specs[s], &best);
        /* rows of ordinary length: the bound is within 100x of the error */
        if (s < 4)
            cr_assert_geq(best, 0.01, "%s: the bound is %g times the error", specs[s],
                          1 / best);
        sp_csr_free(&A);
    }
}
