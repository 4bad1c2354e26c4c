/*
 * gen_banded.c — "banded?n=N&bw=B": every entry with |i - j| <= B of an
 * N x N matrix; 2B+1 on the diagonal and -1 off it (strictly diagonally
 * dominant), built straight into CSR.
 */
#include <limits.h>
#include <math.h>

#include "gen.h"

/* Parameters n, bw; with A NULL only validates them. */
int gen_banded(const gen_params *p, sp_csr *A, sp_err *err)
{
    int64_t n, bw;
    if (gen_param_int(p, "n", GEN_REQUIRED, 1, INT32_MAX, &n, err) ||
        gen_param_int(p, "bw", GEN_REQUIRED, 0, INT32_MAX, &bw, err))
        return -1;
    int64_t b = bw < n - 1 ? bw : n - 1;   /* a band wider than the matrix is dense */
    int64_t full = gen_mul(n, 2 * b + 1);
    int64_t nnz = full == INT64_MAX ? INT64_MAX : full - b * (b + 1);
    if (gen_check_size(p, n, n, nnz, err))
        return -1;
    /* a middle row holds the band's 2b + 1 diagonals (at most n columns) */
    gen_note_structure(p, (double)(2 * b + 1 < n ? 2 * b + 1 : n), (double)(2 * b + 1));
    if (!A)
        return 0;
    if (sp_csr_alloc(A, (int32_t)n, (int32_t)n, (int32_t)nnz, err))
        return gen_fail_oom(p, err);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int64_t lo = i - b < 0 ? 0 : i - b, hi = i + b > n - 1 ? n - 1 : i + b;
        A->rowptr[i + 1] = (int32_t)(hi - lo + 1);
    }
    gen_prefix_sum(A->rowptr, A->rows);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int64_t lo = i - b < 0 ? 0 : i - b;
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t j = lo + (k - A->rowptr[i]);
            A->colidx[k] = (int32_t)j;
            A->val[k] = j == i ? (double)(2 * b + 1) : -1.0;
        }
    }
    return 0;
}
