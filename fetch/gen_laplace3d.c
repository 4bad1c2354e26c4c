/*
 * gen_laplace3d.c — "laplace3d?n=N&points=7|27": the 7-point (6 on the
 * diagonal) or 27-point (26 on the diagonal) Laplacian stencil on an
 * N x N x N grid, -1 for each neighbour, built straight into CSR.
 */
#include <limits.h>
#include <math.h>

#include "gen.h"

/* The in-grid offsets of coordinate v along one axis: lo..hi in -1..1. */
static void axis_range(int64_t v, int64_t n, int *lo, int *hi)
{
    *lo = v > 0 ? -1 : 0;
    *hi = v < n - 1 ? 1 : 0;
}

/* Nonzeros of row r: the full box of in-grid offsets (27-point), or the
 * centre plus one neighbour per in-grid axis offset (7-point). */
static int32_t laplace3d_count(int64_t n, int64_t r, int points)
{
    int xl, xh, yl, yh, zl, zh;
    axis_range(r % n, n, &xl, &xh);
    axis_range((r / n) % n, n, &yl, &yh);
    axis_range(r / (n * n), n, &zl, &zh);
    if (points == 27)
        return (xh - xl + 1) * (yh - yl + 1) * (zh - zl + 1);
    return 1 + (xh - xl) + (yh - yl) + (zh - zl);
}

/* Entries of row r = (z*n + y)*n + x in ascending column order (z, then
 * y, then x offsets ascending). */
static void laplace3d_row(int64_t n, int64_t r, int points, int32_t *col, double *val)
{
    int xl, xh, yl, yh, zl, zh, k = 0;
    axis_range(r % n, n, &xl, &xh);
    axis_range((r / n) % n, n, &yl, &yh);
    axis_range(r / (n * n), n, &zl, &zh);
    for (int dz = zl; dz <= zh; dz++) {
        for (int dy = yl; dy <= yh; dy++) {
            for (int dx = xl; dx <= xh; dx++) {
                int off = (dx != 0) + (dy != 0) + (dz != 0);
                if (points == 7 && off > 1)
                    continue;
                col[k] = (int32_t)(r + (dz * n + dy) * n + dx);
                val[k++] = off ? -1.0 : (double)(points - 1);
            }
        }
    }
}

/* Stored entries for an N^3 grid: 7N^3 - 6N^2 (7-point) or (3N-2)^3. */
static int64_t laplace3d_nnz(int64_t n, int points)
{
    if (points == 7)
        return gen_mul(7, gen_mul(n, gen_mul(n, n))) == INT64_MAX
                   ? INT64_MAX
                   : 7 * n * n * n - 6 * n * n;
    return gen_mul(3 * n - 2, gen_mul(3 * n - 2, 3 * n - 2));
}

/* Parameters n, points; with A NULL only validates them. */
int gen_laplace3d(const gen_params *p, sp_csr *A, sp_err *err)
{
    int64_t n, points;
    if (gen_param_int(p, "n", GEN_REQUIRED, 1, INT32_MAX, &n, err) ||
        gen_param_int(p, "points", 7, 7, 27, &points, err))
        return -1;
    if (points != 7 && points != 27)
        return sp_fail(err, "gen:%s: parameter 'points': %lld is not 7 or 27", p->spec,
                       (long long)points);
    int64_t rows = gen_mul(n, gen_mul(n, n));
    if (gen_check_size(p, rows, rows, laplace3d_nnz(n, (int)points), err))
        return -1;
    /* an interior point and its neighbours, each neighbour offset a
     * diagonal of its own (n >= 3; at n = 2 some offsets coincide, and
     * there are at most 2 rows - 1 diagonals) */
    double side = 1 + (double)(n - 1 < 2 ? n - 1 : 2);
    double row_max = points == 7 ? 1 + 3 * (side - 1) : side * side * side;
    gen_note_structure(p, row_max, fmin((double)points, 2 * (double)rows - 1));
    if (!A)
        return 0;
    if (sp_csr_alloc(A, (int32_t)rows, (int32_t)rows, (int32_t)laplace3d_nnz(n, (int)points),
                     err))
        return gen_fail_oom(p, err);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++)
        A->rowptr[r + 1] = laplace3d_count(n, r, (int)points);
    gen_prefix_sum(A->rowptr, A->rows);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++)
        laplace3d_row(n, r, (int)points, A->colidx + A->rowptr[r], A->val + A->rowptr[r]);
    return 0;
}
