/*
 * features.c — the structural features of a matrix stored with its results
 * (row-length statistics, bandwidth, pattern symmetry, size class), so
 * charts can group and explain kernels' behaviour.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

/* Size class of a matrix with nnz nonzeros. */
const char *sp_size_class(int64_t nnz)
{
    if (nnz <= 10000)
        return "small";
    if (nnz <= 1000000)
        return "medium";
    if (nnz <= 8000000)
        return "large";
    return "xlarge";
}

/* Row-length min, max, mean, population std and empty rows. */
static void row_stats(const sp_csr *A, sp_features *f)
{
    int32_t lo = INT32_MAX, hi = 0, empty = 0;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) \
    reduction(+ : empty)
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t len = A->rowptr[i + 1] - A->rowptr[i];
        lo = len < lo ? len : lo;
        hi = len > hi ? len : hi;
        empty += len == 0;
    }
    double mean = A->rows ? (double)A->nnz / A->rows : 0.0, ss = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : ss)
    for (int32_t i = 0; i < A->rows; i++) {
        double d = (double)(A->rowptr[i + 1] - A->rowptr[i]) - mean;
        ss += d * d;
    }
    f->row_min = A->rows ? lo : 0;
    f->row_max = hi;
    f->row_mean = mean;
    f->row_std = A->rows ? sqrt(ss / A->rows) : 0.0;
    f->empty_rows = empty;
}

/* max |i - j| over stored entries (0 when there are none). */
static int32_t bandwidth(const sp_csr *A)
{
    int64_t bw = 0;
#pragma omp parallel for schedule(static) reduction(max : bw)
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t b = A->rowptr[i], e = A->rowptr[i + 1];
        if (b == e)
            continue;                   /* columns are sorted: check the ends */
        int64_t lo = (int64_t)i - A->colidx[b], hi = (int64_t)A->colidx[e - 1] - i;
        int64_t m = lo > hi ? lo : hi;
        bw = m > bw ? m : bw;
    }
    return (int32_t)bw;
}

/* True when row r stores column c. Branch-free binary search (columns are
 * sorted): independent searches overlap in the CPU instead of stalling on
 * mispredicted branches, which matters on large random matrices. */
static int row_has(const sp_csr *A, int32_t r, int32_t c)
{
    const int32_t *base = A->colidx + A->rowptr[r];
    int32_t n = A->rowptr[r + 1] - A->rowptr[r];
    if (n == 0)
        return 0;
    while (n > 1) {                 /* base[0..n) holds the last entry <= c */
        int32_t half = n / 2;
        base = base[half] <= c ? base + half : base;
        n -= half;
    }
    return *base == c;
}

/* Fraction of off-diagonal (i, j) whose mirror (j, i) is stored: 1 with no
 * off-diagonal entries, 0 for a rectangular matrix. Mirrored entries come
 * in pairs, so only entries above the diagonal are searched. */
static double pattern_symmetry(const sp_csr *A)
{
    if (A->rows != A->cols)
        return 0.0;
    int64_t off = 0, pairs = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : off, pairs)
    for (int32_t i = 0; i < A->rows; i++) {
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int32_t j = A->colidx[k];
            off += j != i;
            if (j > i)
                pairs += row_has(A, j, i);
        }
    }
    return off ? (double)(2 * pairs) / (double)off : 1.0;
}

/* All features of A (see sp_features in matrix.h). */
void sp_features_compute(const sp_csr *A, sp_features *f)
{
    memset(f, 0, sizeof *f);
    f->size_class = sp_size_class(0);
    if (!A || !A->rowptr)
        return;
    f->rows = A->rows;
    f->cols = A->cols;
    f->nnz = A->nnz;
    row_stats(A, f);
    f->bandwidth = bandwidth(A);
    f->pattern_symmetry = pattern_symmetry(A);
    f->size_class = sp_size_class(A->nnz);
    sp_features_layout(A, f);   /* out of memory: those features stay 0 */
}

/* Features as "key: value" lines, in a fixed order, to file (stdout if NULL). */
void sp_features_print(const sp_features *f, void *file)
{
    FILE *out = file ? (FILE *)file : stdout;
    fprintf(out, "rows: %d\n", f->rows);
    fprintf(out, "cols: %d\n", f->cols);
    fprintf(out, "nnz: %d\n", f->nnz);
    fprintf(out, "nnz_per_row_min: %d\n", f->row_min);
    fprintf(out, "nnz_per_row_max: %d\n", f->row_max);
    fprintf(out, "nnz_per_row_mean: %.6g\n", f->row_mean);
    fprintf(out, "nnz_per_row_std: %.6g\n", f->row_std);
    fprintf(out, "empty_rows: %d\n", f->empty_rows);
    fprintf(out, "bandwidth: %d\n", f->bandwidth);
    fprintf(out, "pattern_symmetry: %.6g\n", f->pattern_symmetry);
    fprintf(out, "size_class: %s\n", f->size_class ? f->size_class : sp_size_class(f->nnz));
    fprintf(out, "diagonals: %d\n", f->ndiags);
    fprintf(out, "ell_fill: %.6g\n", f->ell_fill);
    fprintf(out, "sell_fill_8: %.6g\n", f->sell_fill_8);
    fprintf(out, "sell_fill_32: %.6g\n", f->sell_fill_32);
    fprintf(out, "top1_share: %.6g\n", f->top1_share);
    fprintf(out, "col_gap: %.6g\n", f->col_gap);
    fprintf(out, "x_line_new: %.6g\n", f->x_line_new);
}
