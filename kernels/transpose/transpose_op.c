/*
 * transpose_op.c — the transpose operation: CSR -> CSC with values and row
 * indices, checked entry for entry against the serial counting sort.
 *
 * error: 0 when the output is identical to the reference (column pointer,
 * row indices, and values bit for bit); +Inf when the structure differs,
 * a value is not finite, or a value is neither the reference's nor the
 * reference's rounded to float (to nearest); otherwise the largest
 * relative difference of one value (then each differing value is the
 * float rounding). The tolerance is 0 in double, whatever the sweep's — a
 * transposition moves values and computes none, so it is exact or wrong,
 * and a float-rounded value fails it — and the unit roundoff 2^-24 in
 * single: a single-precision transposition rounds each value to float
 * once (in prepare) and moves it, so every value must be exactly the
 * reference rounded to float (any other value is +Inf above), and that
 * rounding moves a value by at most 2^-24 of itself in float's normal
 * range. A value below it loses more and fails, one above it (past
 * FLT_MAX) becomes +Inf and fails: the precision cannot carry them.
 * Work: flops = nnz, so the stored rate is Gnnz/s (reported as Mnnz/s);
 * bytes = reading the CSR once and writing the CSC once.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "transpose.h"

size_t sp_csc_bytes(const sp_csr *A)
{
    return (size_t)A->nnz * (sizeof(double) + sizeof(int32_t)) +
           ((size_t)A->cols + 1) * sizeof(int32_t);
}

size_t sp_csc_bytes_vb(const sp_csr *A, size_t vb)
{
    return ((size_t)A->nnz * vb + 7) / 8 * 8 + (size_t)A->nnz * sizeof(int32_t) +
           ((size_t)A->cols + 1) * sizeof(int32_t);
}

void sp_csc_view(void *buf, const sp_csr *A, sp_csc *C)
{
    C->rows = A->rows, C->cols = A->cols, C->nnz = A->nnz;
    C->val = buf;
    C->colptr = (int32_t *)(C->val + A->nnz);
    C->rowidx = C->colptr + (size_t)A->cols + 1;
}

static int transpose_setup(sp_problem *pb, const sp_workload *w, sp_err *err)
{
    if (!pb || !w || !w->A)
        return sp_fail(err, "transpose setup: no problem or no matrix%s",
                       w && w->kind == SP_WL_KEYS ? " (transpose takes no key workloads)" : "");
    memset(pb, 0, sizeof *pb);
    pb->A = w->A;
    return 0;
}

static void transpose_teardown(sp_problem *pb)
{
    (void)pb;
}

static size_t transpose_output_bytes(const sp_problem *pb)
{
    return sp_csc_bytes(pb->A);
}

static int transpose_reference(const sp_problem *pb, void *out, sp_err *err)
{
    if (!pb || !pb->A || !out)
        return sp_fail(err, "transpose reference: problem not set up");
    sp_csc C;
    sp_csc_view(out, pb->A, &C);
    sp_transpose_count(pb->A, &C);
    return 0;
}

static double transpose_error(const sp_problem *pb, const void *out, const void *ref)
{
    const sp_csr *A = pb->A;
    if (!memcmp(out, ref, sp_csc_bytes(A)))
        return 0.0;
    sp_csc o, r;
    sp_csc_view((void *)out, A, &o);
    sp_csc_view((void *)ref, A, &r);
    if (memcmp(o.colptr, r.colptr, ((size_t)A->cols + 1) * sizeof(int32_t)) ||
        memcmp(o.rowidx, r.rowidx, (size_t)A->nnz * sizeof(int32_t)))
        return INFINITY;
    double worst = 0.0;
    for (int32_t k = 0; k < A->nnz; k++) {
        double v = o.val[k], want = r.val[k];
        if (v == want)
            continue;
        /* else only the reference rounded to float passes (a lower
         * precision's one rounding); the range test first, as a double
         * past FLT_MAX has no float */
        if (!isfinite(v) || !(fabs(want) <= FLT_MAX) || v != (double)(float)want)
            return INFINITY;
        double rel = fabs(v - want) / fabs(want);  /* want != 0: (float)0 == 0 */
        worst = rel > worst ? rel : worst;     /* not fmax: a call per nonzero */
    }
    return worst;
}

/* Exact in double. In single each value must be the reference's rounded
 * to float (the error is +Inf for any other), which is within the unit
 * roundoff 2^-24 of it wherever float holds it as a normal number: the
 * bound of one rounding to nearest, and nothing a correct kernel can
 * exceed, as it computes nothing after that rounding. */
static double transpose_tolerance(const sp_problem *pb, const void *ref, sp_precision prec,
                                  double configured)
{
    (void)pb, (void)ref, (void)configured;
    return prec == SP_DOUBLE ? 0.0 : sp_unit_roundoff(prec);
}

static double transpose_flops(const sp_workload *w)
{
    return w->A ? (double)w->A->nnz : NAN;
}

/* Read rowptr, colidx, val; write colptr, rowidx, val. */
static double transpose_bytes(const sp_workload *w, sp_precision prec)
{
    const sp_csr *A = w->A;
    if (!A)
        return NAN;
    double v = prec == SP_SINGLE ? 4 : 8;
    return (double)A->nnz * 2 * (v + 4) + ((double)A->rows + 1) * 4 + ((double)A->cols + 1) * 4;
}

const sp_operation sp_op_transpose = {
    .name = "transpose",
    .rate_unit = "Gnnz/s",
    .workloads = SP_WL_MATRIX,
    .setup = transpose_setup,
    .teardown = transpose_teardown,
    .output_bytes = transpose_output_bytes,
    .reference = transpose_reference,
    .error = transpose_error,
    .tolerance = transpose_tolerance,
    .flops = transpose_flops,
    .bytes = transpose_bytes,
};
