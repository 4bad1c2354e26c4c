/*
 * transpose_count.c — CSR -> CSC by a counting sort over the columns: count
 * each column, prefix-sum the counts into the column pointer, scatter the
 * rows in order (so rows stay ascending in each column). The operation's
 * reference (transpose_op.c) and the kernel transpose_serial
 * (transpose_serial.c) both run it; it calls nothing else of the folder.
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

void sp_transpose_count_float(const sp_csr *A, const float *val, int32_t *colptr,
                              int32_t *rowidx, float *cval)
{
    count_sort_float(A, val, colptr, rowidx, cval);
}
