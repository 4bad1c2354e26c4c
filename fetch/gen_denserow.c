/*
 * gen_denserow.c — "denserow?rows=R&cols=C&per_row=K&dense=D&seed=S": a
 * uniform matrix (K random columns per row) whose middle row R/2 holds D
 * distinct columns instead: the one-dense-row case that breaks row-per-
 * thread kernels' load balance.
 */
#include <limits.h>
#include <math.h>

#include "gen.h"

/* Parameters rows, cols, per_row, dense, seed; with A NULL only validates. */
int gen_denserow(const gen_params *p, sp_csr *A, sp_err *err)
{
    int64_t rows, cols, k, dense;
    uint64_t seed;
    if (gen_param_int(p, "rows", GEN_REQUIRED, 1, INT32_MAX, &rows, err) ||
        gen_param_int(p, "cols", rows, 1, INT32_MAX, &cols, err) ||
        gen_param_int(p, "per_row", GEN_REQUIRED, 0, cols, &k, err) ||
        gen_param_int(p, "dense", GEN_REQUIRED, 0, cols, &dense, err) ||
        gen_param_seed(p, "seed", 1, &seed, err))
        return -1;
    int64_t rest = gen_mul(rows - 1, k);
    int64_t nnz = rest == INT64_MAX ? INT64_MAX : rest + dense;
    if (gen_check_size(p, rows, cols, nnz, err))
        return -1;
    gen_note_structure(p, (double)(dense > k ? dense : k),
                       sp_scattered_diagonals(rows, cols, nnz));
    gen_note_slices(p, dense > k && rows > 1 ? 1 : 0, 0);
    if (!A)
        return 0;
    if (sp_csr_alloc(A, (int32_t)rows, (int32_t)cols, (int32_t)nnz, err))
        return gen_fail_oom(p, err);
    int64_t mid = rows / 2;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < rows; i++)
        A->rowptr[i + 1] = (int32_t)(i == mid ? dense : k);
    gen_prefix_sum(A->rowptr, A->rows);
    gen_fill_random_rows(A, seed);
    return 0;
}
