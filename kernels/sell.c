/*
 * sell.c — CSR to sliced ELLPACK (see sell.h): widths per slice, their
 * prefix sum, then every row filled independently (OpenMP: ELL is one slice).
 */
#include <stdlib.h>
#include <string.h>

#include "sell.h"

/* The longest row of slice s. */
static int32_t slice_width(const sp_csr *A, int32_t hack, int64_t s)
{
    int64_t lo = s * hack, hi = lo + hack < A->rows ? lo + hack : A->rows;
    int32_t w = 0;
    for (int64_t i = lo; i < hi; i++) {
        int32_t len = A->rowptr[i + 1] - A->rowptr[i];
        w = len > w ? len : w;
    }
    return w;
}

/* hack = 0: one slice of all rows; never less than 1 row per slice. */
static int32_t effective_hack(const sp_csr *A, int32_t hack)
{
    return hack > 0 ? hack : A->rows > 0 ? A->rows : 1;
}

int sp_sell_size(const sp_csr *A, int32_t hack, const char *what, int64_t *stored,
                 sp_err *err)
{
    if (!A || hack < 0)
        return sp_fail(err, "%s: no matrix, or hack = %d below 0", what, hack);
    int32_t h = effective_hack(A, hack);
    int64_t nslices = ((int64_t)A->rows + h - 1) / h, total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (int64_t s = 0; s < nslices; s++)
        total += (int64_t)h * slice_width(A, h, s);
    *stored = total;
    int64_t limit = (int64_t)SP_SELL_MAX_FILL * A->nnz;
    if (limit < SP_SELL_MIN_LIMIT)
        limit = SP_SELL_MIN_LIMIT;
    if (limit > INT32_MAX)
        limit = INT32_MAX;
    if (total > limit)
        return sp_fail(err,
                       "%s with %d rows per slice would store %lld entries (padding included) "
                       "for %d nonzeros, over the limit of %lld (%dx the nonzeros, at most "
                       "2^31-1): refused, the padding would be measured, not the matrix",
                       what, h, (long long)total, A->nnz, (long long)limit, SP_SELL_MAX_FILL);
    return 0;
}

/* Row r of slice s into S (rows past A's end are all padding): real
 * entries first, then -1 / 0 up to the slice's width. */
static void fill_row(sp_sell *S, const sp_csr *A, int64_t s, int32_t r)
{
    int64_t base = S->offset[s], i = s * S->hack + r;
    int32_t h = S->hack, w = (int32_t)((S->offset[s + 1] - base) / h);
    int32_t k0 = i < A->rows ? A->rowptr[i] : 0;
    int32_t len = i < A->rows ? A->rowptr[i + 1] - k0 : 0;
    for (int32_t k = 0; k < w; k++) {
        int64_t at = S->col_major ? base + (int64_t)k * h + r : base + (int64_t)r * w + k;
        S->col[at] = k < len ? A->colidx[k0 + k] : -1;
        S->val[at] = k < len ? A->val[k0 + k] : 0.0;
    }
}

int sp_sell_from_csr(sp_sell *S, const sp_csr *A, int32_t hack, int col_major,
                     const char *what, sp_err *err)
{
    memset(S, 0, sizeof *S);
    int64_t stored;
    if (sp_sell_size(A, hack, what, &stored, err))
        return -1;
    int32_t h = effective_hack(A, hack);
    S->rows = A->rows;
    S->cols = A->cols;
    S->nnz = A->nnz;
    S->hack = h;
    S->nslices = (int32_t)(((int64_t)A->rows + h - 1) / h);
    S->col_major = col_major;
    S->stored = stored;
    S->offset = malloc(((size_t)S->nslices + 1) * sizeof(int32_t));
    S->col = sp_alloc_large((size_t)stored * sizeof(int32_t));
    S->val = sp_alloc_large((size_t)stored * sizeof(double));
    if (!S->offset || !S->col || !S->val) {
        sp_sell_free(S);
        return sp_fail(err, "%s: out of memory for %lld stored entries", what,
                       (long long)stored);
    }
    S->offset[0] = 0;
    for (int64_t s = 0; s < S->nslices; s++)
        S->offset[s + 1] = S->offset[s] + h * slice_width(A, h, s);
    /* over rows, not slices: ELL is a single slice */
    int64_t padded = (int64_t)S->nslices * h;
#pragma omp parallel for schedule(dynamic, 4096)
    for (int64_t i = 0; i < padded; i++)
        fill_row(S, A, i / h, (int32_t)(i % h));
    return 0;
}

void sp_sell_free(sp_sell *S)
{
    if (!S)
        return;
    free(S->offset);
    free(S->col);
    free(S->val);
    memset(S, 0, sizeof *S);
}
