/*
 * gen_laplace2d.c — "laplace2d?n=N": the 5-point finite-difference
 * Laplacian on an N x N grid (N^2 rows; 4 on the diagonal, -1 for each
 * grid neighbour), built straight into CSR, rows in parallel.
 */
#include <limits.h>
#include <math.h>

#include "gen.h"

/* Entries of row r = y*n + x, written in ascending column order. */
static int32_t laplace2d_row(int64_t n, int64_t r, int32_t *col, double *val)
{
    int64_t x = r % n, y = r / n;
    int32_t k = 0;
    if (y > 0)
        col[k] = (int32_t)(r - n), val[k++] = -1.0;
    if (x > 0)
        col[k] = (int32_t)(r - 1), val[k++] = -1.0;
    col[k] = (int32_t)r, val[k++] = 4.0;
    if (x < n - 1)
        col[k] = (int32_t)(r + 1), val[k++] = -1.0;
    if (y < n - 1)
        col[k] = (int32_t)(r + n), val[k++] = -1.0;
    return k;
}

/* Nonzeros of row r: itself plus its in-grid neighbours. */
static int32_t laplace2d_count(int64_t n, int64_t r)
{
    int64_t x = r % n, y = r / n;
    return 1 + (x > 0) + (x < n - 1) + (y > 0) + (y < n - 1);
}

/* Parameter n; with A NULL only validates it. */
int gen_laplace2d(const gen_params *p, sp_csr *A, sp_err *err)
{
    int64_t n;
    if (gen_param_int(p, "n", GEN_REQUIRED, 1, INT32_MAX, &n, err))
        return -1;
    int64_t rows = gen_mul(n, n);
    int64_t nnz = rows == INT64_MAX ? INT64_MAX : 5 * rows - 4 * n;
    if (gen_check_size(p, rows, rows, nnz, err))
        return -1;
    /* an interior point and its neighbours, on the diagonals 0, +-1, +-n
     * (n = 2: two neighbours a point; n = 1: the point alone) */
    gen_note_structure(p, 1 + 2 * (double)(n - 1 < 2 ? n - 1 : 2), n > 1 ? 5 : 1);
    if (!A)
        return 0;
    if (sp_csr_alloc(A, (int32_t)rows, (int32_t)rows, (int32_t)nnz, err))
        return gen_fail_oom(p, err);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++)
        A->rowptr[r + 1] = laplace2d_count(n, r);
    gen_prefix_sum(A->rowptr, A->rows);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++)
        laplace2d_row(n, r, A->colidx + A->rowptr[r], A->val + A->rowptr[r]);
    return 0;
}
