/*
 * transpose_op.c — the transpose operation: CSR -> CSC with values and row
 * indices, checked entry for entry against the serial counting sort.
 *
 * error: 0 when the output is identical to the reference (column pointer,
 * row indices, and values bit for bit); +Inf when the structure differs
 * or a value is not finite; otherwise the largest relative difference of
 * one value. The tolerance is 0 in double, whatever the sweep's — a
 * transposition moves values and computes none, so it is exact or wrong —
 * and the unit roundoff in a lower precision, which rounds each value once
 * to nearest (a value below that precision's normal range loses more, and
 * fails: the precision cannot carry it).
 * Work: flops = nnz, so the stored rate is Gnnz/s (reported as Mnnz/s);
 * bytes = reading the CSR once and writing the CSC once.
 */
#include <math.h>
#include <string.h>

#include "transpose.h"

size_t sp_csc_bytes(const sp_csr *A)
{
    return (size_t)A->nnz * (sizeof(double) + sizeof(int32_t)) +
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
        double d = fabs(o.val[k] - r.val[k]);
        if (!isfinite(o.val[k]) || (d > 0 && r.val[k] == 0.0))
            return INFINITY;
        double rel = d > 0 ? d / fabs(r.val[k]) : 0.0;
        worst = rel > worst ? rel : worst;     /* not fmax: a call per nonzero */
    }
    return worst;
}

/* Exact in double; one rounding to nearest per value below it. */
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
static double transpose_bytes(const sp_workload *w)
{
    const sp_csr *A = w->A;
    if (!A)
        return NAN;
    return (double)A->nnz * 2 * (8 + 4) + ((double)A->rows + 1) * 4 + ((double)A->cols + 1) * 4;
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
