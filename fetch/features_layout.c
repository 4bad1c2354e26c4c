/*
 * features_layout.c — the features that predict which kernel wins on a
 * matrix (issue 25, `spsweep advise`): what the padded formats would store
 * (DIA's diagonals, ELLPACK's and sliced ELLPACK's fill), how skewed the
 * rows are (the longest 1 % of rows' share), and how local the reads of x
 * are (the gap between consecutive columns of a row, the share of entries
 * that start a new cache line of x). Computed once at load, stored in
 * `matrices` (schema version 9).
 */
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

/* Distinct diagonals (j - i) holding an entry: a byte per possible
 * offset, rows + cols - 1 of them. -1 when the scratch cannot be had. */
static int64_t distinct_diagonals(const sp_csr *A)
{
    int64_t span = (int64_t)A->rows + A->cols;
    unsigned char *seen = calloc((size_t)span, 1);
    if (!seen)
        return -1;
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
#pragma omp atomic write
            seen[(int64_t)A->colidx[k] - i + A->rows] = 1;
        }
    int64_t n = 0;
    for (int64_t d = 0; d < span; d++)
        n += seen[d];
    free(seen);
    return n;
}

/* Stored entries of sliced ELLPACK with slices of h rows: each slice
 * stores its rows times its longest row (the last slice its real rows). */
static double sliced_entries(const sp_csr *A, int32_t h)
{
    double stored = 0;
    int32_t slices = (A->rows + h - 1) / h;
#pragma omp parallel for schedule(static) reduction(+ : stored)
    for (int32_t s = 0; s < slices; s++) {
        int32_t lo = s * h, hi = lo + h < A->rows ? lo + h : A->rows, w = 0;
        for (int32_t i = lo; i < hi; i++) {
            int32_t len = A->rowptr[i + 1] - A->rowptr[i];
            w = len > w ? len : w;
        }
        stored += (double)w * (hi - lo);
    }
    return stored;
}

/* Nonzeros in the longest ceil(rows / 100) rows, by a histogram of the row
 * lengths (0 .. row_max). -1 when the histogram cannot be had. */
static int64_t top_rows_nnz(const sp_csr *A, int32_t row_max)
{
    int64_t *count = calloc((size_t)row_max + 1, sizeof *count);
    if (!count)
        return -1;
    for (int32_t i = 0; i < A->rows; i++)
        count[A->rowptr[i + 1] - A->rowptr[i]]++;
    int64_t want = ((int64_t)A->rows + 99) / 100, got = 0;
    for (int64_t len = row_max; len >= 0 && want > 0; len--) {
        int64_t take = count[len] < want ? count[len] : want;
        got += take * len;
        want -= take;
    }
    free(count);
    return got;
}

/* Column locality: the mean gap between consecutive columns of a row and
 * the share of entries on another 64-byte line of x than the previous
 * entry of their row (a row's first entry always counts as new). */
static void column_locality(const sp_csr *A, sp_features *f)
{
    double gaps = 0, pairs = 0, fresh = 0;
#pragma omp parallel for schedule(static) reduction(+ : gaps, pairs, fresh)
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t b = A->rowptr[i], e = A->rowptr[i + 1];
        fresh += b < e;
        for (int32_t k = b + 1; k < e; k++) {
            int64_t d = (int64_t)A->colidx[k] - A->colidx[k - 1];
            gaps += (double)(d < 0 ? -d : d);
            pairs += 1;
            fresh += (A->colidx[k] >> 3) != (A->colidx[k - 1] >> 3);
        }
    }
    f->col_gap = pairs > 0 ? gaps / pairs : 0.0;
    f->x_line_new = A->nnz ? fresh / (double)A->nnz : 0.0;
}

/* The layout and locality features of A into f (row_max must be set). */
int sp_features_layout(const sp_csr *A, sp_features *f)
{
    f->ndiags = 0;
    f->ell_fill = f->sell_fill_8 = f->sell_fill_32 = 0;
    f->top1_share = f->col_gap = f->x_line_new = 0;
    if (!A || !A->rowptr || A->nnz <= 0 || A->rows <= 0)
        return 0;
    double nnz = (double)A->nnz;
    int64_t nd = distinct_diagonals(A), top = top_rows_nnz(A, f->row_max);
    if (nd < 0 || top < 0)
        return -1;
    f->ndiags = (int32_t)nd;
    f->ell_fill = (double)A->rows * f->row_max / nnz;
    f->sell_fill_8 = sliced_entries(A, 8) / nnz;
    f->sell_fill_32 = sliced_entries(A, 32) / nnz;
    f->top1_share = (double)top / nnz;
    column_locality(A, f);
    return 0;
}
