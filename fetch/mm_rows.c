/*
 * mm_rows.c — finish the CSR the fill pass left: each row's entries in
 * file order, to be sorted by column with duplicates summed.
 *
 * Rows of files written in column or row order arrive sorted, so a row
 * is first checked and only sorted when it must be. The sort is stable,
 * so duplicates are summed in the order the file lists them.
 *
 * mm_finish_range does a range of rows, so that the parallel reader's
 * threads (mm_par_csr.c) each finish theirs with the same code.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_read.h"

/* 1 when the columns strictly increase (sorted, no duplicates). */
static int strictly_increasing(const int32_t *col, int64_t n)
{
    for (int64_t k = 1; k < n; k++)
        if (col[k - 1] >= col[k])
            return 0;
    return 1;
}

/* Scratch space for sorting the longest of rows [lo, hi), whose entries
 * start at from (rowptr[i + 1] holds row i's end). */
static int scratch_for(const sp_csr *A, int32_t lo, int32_t hi, int32_t from, int32_t **tc,
                       double **tv)
{
    int64_t longest = 0;
    for (int32_t i = lo, b = from; i < hi; b = A->rowptr[++i])
        if (A->rowptr[i + 1] - b > longest)
            longest = A->rowptr[i + 1] - b;
    *tc = malloc((size_t)(longest / 2 + 1) * sizeof **tc);
    *tv = malloc((size_t)(longest / 2 + 1) * sizeof **tv);
    if (*tc && *tv)
        return 0;
    free(*tc), free(*tv);
    *tc = NULL, *tv = NULL;
    return -1;
}

/* Sort row [b, e), sum duplicates and move it to start at n; the new n. */
static int32_t pack_row(sp_csr *A, int32_t b, int32_t e, int32_t n, int32_t *tc, double *tv)
{
    int32_t *col = A->colidx;
    double *val = A->val;
    sp_sort_pairs(col + b, val + b, e - b, tc, tv);
    int32_t start = n;
    for (int32_t k = b; k < e; k++) {
        if (n > start && col[n - 1] == col[k]) {
            val[n - 1] += val[k];       /* duplicates are summed */
        } else {
            col[n] = col[k];
            val[n++] = val[k];
        }
    }
    return n;
}

int64_t mm_finish_range(sp_csr *A, int32_t lo, int32_t hi, int32_t from)
{
    int32_t *tc = NULL, n = from, b = from;
    double *tv = NULL;
    for (int32_t i = lo; i < hi; i++) {
        int32_t e = A->rowptr[i + 1];
        if (n == b && strictly_increasing(A->colidx + b, e - b)) {
            n = e;                      /* in place and in order already */
        } else {
            if (!tc && scratch_for(A, i, hi, b, &tc, &tv))
                return -1;
            n = pack_row(A, b, e, n, tc, tv);
        }
        A->rowptr[i + 1] = n;
        b = e;
    }
    free(tc);
    free(tv);
    return n;
}

void mm_shrink_entries(sp_csr *A, int32_t n)
{
    if (n < A->nnz) {                   /* shrinking keeps the block on failure */
        int32_t *c = realloc(A->colidx, (size_t)(n ? n : 1) * sizeof *c);
        double *v = realloc(A->val, (size_t)(n ? n : 1) * sizeof *v);
        A->colidx = c ? c : A->colidx;
        A->val = v ? v : A->val;
        A->nnz = n;
    }
}

int mm_finish_rows(sp_csr *A, sp_err *err)
{
    int64_t n = mm_finish_range(A, 0, A->rows, 0);
    if (n < 0) {
        int64_t longest = 0;
        for (int32_t i = 0; i < A->rows; i++)
            if (A->rowptr[i + 1] - A->rowptr[i] > longest)
                longest = A->rowptr[i + 1] - A->rowptr[i];
        return sp_fail(err, "out of memory sorting a row of %lld entries", (long long)longest);
    }
    mm_shrink_entries(A, (int32_t)n);
    return 0;
}
