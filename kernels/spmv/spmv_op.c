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
    for (int32_t i = 0; i < pb->A->rows; i++) {
        if (!isfinite(y[i]))
            return INFINITY;
        diff = fmax(diff, fabs(y[i] - r[i]));
        scale = fmax(scale, fabs(r[i]));
    }
    if (scale == 0.0)
        return diff == 0.0 ? 0.0 : INFINITY;
    return diff / scale;
}

/* The tolerance of a run in a precision below double: the error bound of
 * y = A·x computed in that precision from A and x rounded to it.
 *
 * Row i of n_i nonzeros, summed in any order (a library's blocks, SIMD
 * lanes, a tree), has |fl(y_i) - y_i| <= γ(n_i + 2)·(|A||x|)_i with
 * γ(m) = m·u / (1 - m·u) (Higham, Accuracy and Stability of Numerical
 * Algorithms, 2nd ed., §3.1): no term goes through more than n_i - 1
 * additions, one multiplication and the two roundings of a_ik and x_k
 * into the precision. In spmv_error's measure that is
 *     k · u · max_i (n_i + 2)·(|A||x|)_i / max_i |r_i|,   k = 2:
 * for m·u <= 1/4 (rows of up to 4 million nonzeros in single) γ(m) is at
 * most 4/3·m·u, and k = 2 leaves room for the double reference's own
 * error (2^29 times smaller). |A||x| over max |r| is the cancellation in
 * the rows (x has random signs), which the bound must carry: without it a
 * matrix whose rows nearly cancel fails a correct kernel. It is the worst
 * case; typical errors are about √n_i times smaller, and a kernel that
 * drops or misplaces a nonzero still fails unless its row is very long.
 * Never below the sweep's tolerance; double runs keep that one. */
#define SPMV_TOLERANCE_K 2.0
static double spmv_tolerance(const sp_problem *pb, const void *ref, sp_precision prec,
                             double configured)
{
    const sp_csr *A = pb->A;
    const double *r = ref;
    if (prec == SP_DOUBLE || !A || !r || (!pb->x && A->cols > 0))
        return configured;
    double worst = 0.0, scale = 0.0;
    for (int32_t i = 0; i < A->rows; i++) {
        double abs_sum = 0.0;
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            abs_sum += fabs(A->val[k] * pb->x[A->colidx[k]]);
        worst = fmax(worst, (double)(A->rowptr[i + 1] - A->rowptr[i] + 2) * abs_sum);
        scale = fmax(scale, fabs(r[i]));
    }
    if (scale == 0.0)           /* spmv_error is 0 or +Inf there */
        return configured;
    return fmax(configured, SPMV_TOLERANCE_K * sp_unit_roundoff(prec) * worst / scale);
}

/* One multiply and one add per nonzero. */
static double spmv_flops(const sp_workload *w)
{
    return w->A ? 2.0 * (double)w->A->nnz : NAN;
}

/* Values and column indices once, the row pointer once, x once, y once. */
static double spmv_bytes(const sp_workload *w)
{
    const sp_csr *A = w->A;
    if (!A)
        return NAN;
    return (double)A->nnz * (8 + 4) + ((double)A->rows + 1) * 4 + (double)A->cols * 8 +
           (double)A->rows * 8;
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
