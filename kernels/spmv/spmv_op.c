/*
 * spmv_op.c — the spmv operation: inputs, the serial double-precision
 * reference, the error measure, the tolerance of each precision and the
 * work model every SpMV kernel shares.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spmv.h"

/* x_j = ±[0.5, 1), from a hash (splitmix64) of j: deterministic across
 * runs and builds, never zero, and with random signs so that rows sum with
 * cancellation, as real data does. */
static double x_value(int32_t j)
{
    uint64_t z = (uint64_t)j * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    double mag = 0.5 + 0.5 * (double)(z >> 11) * 0x1.0p-53;
    return (z & 1) ? -mag : mag;
}

/* The inputs for the matrix A: x with A->cols entries. */
static int spmv_setup(sp_problem *pb, const sp_workload *w, sp_err *err)
{
    if (!pb || !w || !w->A)
        return sp_fail(err, "spmv setup: no problem or no matrix%s",
                       w && w->kind == SP_WL_KEYS ? " (spmv takes no key workloads)" : "");
    memset(pb, 0, sizeof *pb);
    const sp_csr *A = w->A;
    pb->A = A;
    pb->x = malloc(((size_t)A->cols + 1) * sizeof(double));
    if (!pb->x)
        return sp_fail(err, "out of memory for x (%d entries)", A->cols);
    for (int32_t j = 0; j < A->cols; j++)
        pb->x[j] = x_value(j);
    return 0;
}

/* Free what setup made. */
static void spmv_teardown(sp_problem *pb)
{
    if (!pb)
        return;
    free(pb->x);
    pb->x = NULL;
}

/* x: what setup allocates. */
static size_t spmv_setup_bytes(const sp_problem *pb)
{
    return ((size_t)pb->A->cols + 1) * sizeof(double);
}

/* y: one double per row. */
static size_t spmv_output_bytes(const sp_problem *pb)
{
    return (size_t)pb->A->rows * sizeof(double);
}

/* The reference: plain serial CSR in double, row by row. */
static int spmv_reference(const sp_problem *pb, void *out, sp_err *err)
{
    const sp_csr *A = pb->A;
    double *y = out;
    if (!A || !y || (!pb->x && A->cols > 0))
        return sp_fail(err, "spmv reference: problem not set up");
    for (int32_t i = 0; i < A->rows; i++) {
        double s = 0.0;
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += A->val[k] * pb->x[A->colidx[k]];
        y[i] = s;
    }
    return 0;
}

/* max_i |y_i - ref_i| / max_i |ref_i|; +Inf for NaN/Inf in y, or for any
 * nonzero y against an all-zero reference. */
static double spmv_error(const sp_problem *pb, const void *out, const void *ref)
{
    const double *y = out, *r = ref;
    double diff = 0.0, scale = 0.0;
    /* Comparisons, not fmax: the same maxima (a NaN in ref is skipped
     * either way), but a loop gcc vectorises; with fmax's calls the check
     * of a 10^6-row result took 7 ms, more than many runs' launches. */
    for (int32_t i = 0; i < pb->A->rows; i++) {
        double d = fabs(y[i] - r[i]), a = fabs(r[i]);
        if (!isfinite(y[i]))
            return INFINITY;
        diff = d > diff ? d : diff;
        scale = a > scale ? a : scale;
    }
    if (scale == 0.0)
        return diff == 0.0 ? 0.0 : INFINITY;
    return diff / scale;
}

/* The tolerance of a run in a precision below double: a bound on the
 * error of y = A·x computed in that precision from A and x rounded to it.
 *
 * Row i of n_i nonzeros, summed in any order (a library's blocks, SIMD
 * lanes, a tree), puts each term through at most m = n_i + 2 roundings
 * (n_i - 1 additions, the multiplication, a_ik and x_k rounded into the
 * precision). The worst case, |fl(y_i) - y_i| <= m·u/(1 - m·u)·(|A||x|)_i
 * (Higham, Accuracy and Stability of Numerical Algorithms, §3.1), needs
 * every rounding to err the same way. With rounding errors independent
 * and of mean zero — the products carry the random signs of x — Higham
 * and Mary's probabilistic bound for inner products (SIAM J. Sci. Comput.
 * 41(5), 2019) holds instead:
 *     |fl(y_i) - y_i| <= γ(λ, m)·(|A||x|)_i,
 *     γ(λ, m) = exp(λ·√m·u + m·u²/(1 - u)) - 1 ≈ λ·√m·u,
 * failing with probability at most about 2m·exp(-λ²/2). λ = 10 makes that
 * 4·10^-22 a nonzero, so no correct kernel fails in any sweep, and the
 * bound is √m/10 times tighter than the worst case. In spmv_error's
 * measure it is max_i γ(λ, n_i + 2)·(|A||x|)_i / max_i |r_i|: |A||x| over
 * max |r| carries the cancellation in the rows. Measured against it (the
 * awkward and generated matrices, MKL and a serial float loop): errors are
 * 0.02–0.09 of the bound on rows of up to 300 nonzeros, which a dropped
 * or misplaced nonzero exceeds; on a dense row of 10^5–10^6 nonzeros the
 * bound is loose (0.06–0.7), the price of holding for every summation
 * order. The double reference's own error is 2^29 times smaller. Never
 * below the sweep's tolerance; double runs keep that one. */
#define SPMV_TOLERANCE_LAMBDA 10.0
static double spmv_tolerance(const sp_problem *pb, const void *ref, sp_precision prec,
                             double configured)
{
    const sp_csr *A = pb->A;
    const double *r = ref;
    const double u = sp_unit_roundoff(prec), lambda = SPMV_TOLERANCE_LAMBDA;
    if (prec == SP_DOUBLE || !A || !r || (!pb->x && A->cols > 0))
        return configured;
    double worst = 0.0, scale = 0.0;
    for (int32_t i = 0; i < A->rows; i++) {
        double abs_sum = 0.0, m = (double)(A->rowptr[i + 1] - A->rowptr[i] + 2);
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            abs_sum += fabs(A->val[k] * pb->x[A->colidx[k]]);
        worst = fmax(worst, expm1(lambda * sqrt(m) * u + m * u * u / (1 - u)) * abs_sum);
        scale = fmax(scale, fabs(r[i]));
    }
    if (scale == 0.0)           /* spmv_error is 0 or +Inf there */
        return configured;
    return fmax(configured, worst / scale);
}

/* One multiply and one add per nonzero. */
static double spmv_flops(const sp_workload *w)
{
    return w->A ? 2.0 * (double)w->A->nnz : NAN;
}

/* Values and column indices once, the row pointer once, x once, y once;
 * values, x and y of the run's precision. */
static double spmv_bytes(const sp_workload *w, sp_precision prec)
{
    const sp_csr *A = w->A;
    if (!A)
        return NAN;
    double v = prec == SP_SINGLE ? 4 : 8;
    return (double)A->nnz * (v + 4) + ((double)A->rows + 1) * 4 + (double)A->cols * v +
           (double)A->rows * v;
}

const sp_operation sp_op_spmv = {
    .name = "spmv",
    .rate_unit = "GFLOPS",
    .workloads = SP_WL_MATRIX,
    .setup = spmv_setup,
    .teardown = spmv_teardown,
    .setup_bytes = spmv_setup_bytes,
    .output_bytes = spmv_output_bytes,
    .reference = spmv_reference,
    .error = spmv_error,
    .tolerance = spmv_tolerance,
    .flops = spmv_flops,
    .bytes = spmv_bytes,
};
