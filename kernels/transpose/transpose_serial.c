/*
 * transpose_serial.c — CSR -> CSC by a counting sort over the columns: count
 * each column, prefix-sum the counts into the column pointer, scatter the
 * rows in order (so rows stay ascending in each column). The reference
 * and the baseline of the other transposition kernels; at the `precision`
 * single the same sort moves float values (transpose_cpu.c).
 */
#include <string.h>

#include "transpose.h"

/* The counting sort of A's pattern carrying values of type V: val in
 * CSR order to cval in CSC order (double: the reference and the double
 * kernel; float: the single-precision kernel, 4 bytes a value moved). */
#define COUNT_SORT(NAME, V)                                                                \
    static void NAME(const sp_csr *A, const V *val, int32_t *cp, int32_t *rowidx, V *cval) \
    {                                                                                      \
        memset(cp, 0, ((size_t)A->cols + 1) * sizeof *cp);                                 \
        for (int32_t k = 0; k < A->nnz; k++)                                               \
            cp[A->colidx[k] + 1]++;                                                        \
        for (int32_t j = 0; j < A->cols; j++)                                              \
            cp[j + 1] += cp[j];                                                            \
        for (int32_t i = 0; i < A->rows; i++) /* cp[j]: next free slot of column j */     \
            for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {                    \
                int32_t dst = cp[A->colidx[k]]++;                                          \
                rowidx[dst] = i;                                                           \
                cval[dst] = val[k];                                                        \
            }                                                                              \
        memmove(cp + 1, cp, (size_t)A->cols * sizeof *cp); /* back to column starts */    \
        cp[0] = 0;                                                                         \
    }
COUNT_SORT(count_sort_double, double)
COUNT_SORT(count_sort_float, float)

void sp_transpose_count(const sp_csr *A, sp_csc *C)
{
    count_sort_double(A, A->val, C->colptr, C->rowidx, C->val);
}

static uint64_t serial_work(const sp_csr *A, int threads, size_t vb)
{
    (void)A, (void)threads, (void)vb;
    return 0;
}

static int serial_prepare(const sp_problem *pb, const sp_params *p, void **state,
                          sp_err *err)
{
    return sp_transpose_cpu_prepare("transpose_serial", serial_work, pb, p, state, err);
}

static int serial_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    return sp_transpose_cpu_need("transpose_serial", serial_work, pb, p, need, err);
}

static int serial_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex;
    sp_transpose_cpu *s = state;
    if (!s)
        return sp_fail(err, "transpose_serial: launch without a state");
    if (s->prec == SP_SINGLE)
        count_sort_float(s->A, s->val32, s->C.colptr, s->C.rowidx, s->cval32);
    else
        sp_transpose_count(s->A, &s->C);
    return 0;
}

const sp_kernel sp_transpose_serial = {
    .name = "transpose_serial",
    .operation = "transpose",
    .format = "csc",
    .backend = "serial",
    .summary = "CSR -> CSC, counting sort over columns (the baseline)",
    .naxes = 1,
    .axes = {{SP_AXIS_PRECISION, "double"}},
    .prepare = serial_prepare,
    .launch = serial_launch,
    .result = sp_transpose_cpu_result,
    .release = sp_transpose_cpu_release,
    .need = serial_need,
};
