/*
 * hll.c — ELLPACK and sliced ELLPACK (HLL) from CSR (layout in hll.h).
 */
#include <stdlib.h>
#include <string.h>

#include "hll.h"

/* Rows per hack: hack, or all rows (at least 1) for ELLPACK (hack = 0). */
static int32_t hack_rows_of(const sp_csr *A, int32_t hack)
{
    return hack ? hack : (A->rows > 0 ? A->rows : 1);
}

/* Rows stored per hack column: the hack rounded up to 8 doubles = 64 bytes. */
static int32_t ld_of(int32_t hack, int colmajor)
{
    return colmajor ? (int32_t)(((int64_t)hack + 7) / 8 * 8) : hack;
}

/* Longest row among rows [first, first + n). */
static int32_t longest_row(const sp_csr *A, int64_t first, int64_t n)
{
    int32_t w = 0;
    for (int64_t i = first; i < first + n; i++) {
        int32_t len = A->rowptr[i + 1] - A->rowptr[i];
        w = len > w ? len : w;
    }
    return w;
}

/* Entries hack h stores: ld·w column-major (phantom rows included),
 * rows·w row-major. */
static int64_t hack_entries(int64_t rows, int32_t ld, int32_t w, int colmajor)
{
    return (colmajor ? (int64_t)ld : rows) * w;
}

int sp_hll_plan(const sp_csr *A, int32_t hack, int colmajor, int64_t *stored,
                uint64_t *bytes, sp_err *err)
{
    const char *what = hack ? "HLL" : "ELLPACK";
    if (!A || A->rows < 0 || hack < 0 || hack > SP_HACK_MAX)
        return sp_fail(err, "%s: hack = %d outside 1..%d", what, hack, SP_HACK_MAX);
    int32_t hr = hack_rows_of(A, hack), ld = ld_of(hr, colmajor), longest = 0;
    int64_t nh = ((int64_t)A->rows + hr - 1) / hr, total = 0;
    for (int64_t h = 0; h < nh; h++) {
        int64_t n = (int64_t)A->rows - h * hr < hr ? (int64_t)A->rows - h * hr : hr;
        int32_t w = longest_row(A, h * hr, n);
        longest = w > longest ? w : longest;
        total += hack_entries(n, ld, w, colmajor);
    }
    if (total > INT32_MAX || total > (int64_t)SP_PAD_RATIO * A->nnz + SP_PAD_SLACK)
        return sp_fail(err, "%s refused: %lld stored entries for %d nonzeros (longest row "
                       "%d of %d rows), more than %dx nnz + %d or 32-bit offsets allow",
                       what, (long long)total, A->nnz, longest, A->rows, SP_PAD_RATIO,
                       SP_PAD_SLACK);
    *stored = total;
    *bytes = (uint64_t)total * 12 + 128 + ((uint64_t)nh * 2 + 1) * 4;
    return 0;
}

/* n bytes, 64-byte aligned (2 MiB from 4 MiB up, by sp_alloc_large). */
static void *alloc64(size_t n)
{
    void *p = NULL;
    if (n >= ((size_t)4 << 20))
        return sp_alloc_large(n);
    return posix_memalign(&p, 64, n ? n : 64) ? NULL : p;
}

/* width[] and off[] from A. */
static void hll_layout(sp_hll *H, const sp_csr *A)
{
    H->off[0] = 0;
    for (int32_t h = 0; h < H->nhacks; h++) {
        int32_t n = sp_hll_hack_rows(H, h);
        H->width[h] = longest_row(A, (int64_t)h * H->hack, n);
        H->off[h + 1] = H->off[h] + (int32_t)hack_entries(n, H->ld, H->width[h], H->colmajor);
    }
}

/* Position of entry k of local row r in hack h. */
static int64_t hll_pos(const sp_hll *H, int32_t h, int64_t r, int64_t k)
{
    return H->off[h] + (H->colmajor ? k * H->ld + r : r * H->width[h] + k);
}

/* Row i's entries, then its padding (last column, value 0). */
static void fill_row(sp_hll *H, const sp_csr *A, int32_t i)
{
    int32_t h = i / H->hack, r = i - h * H->hack, b = A->rowptr[i];
    int32_t len = A->rowptr[i + 1] - b, pad = len ? A->colidx[b + len - 1] : 0;
    for (int32_t k = 0; k < H->width[h]; k++) {
        int64_t p = hll_pos(H, h, r, k);
        H->col[p] = k < len ? A->colidx[b + k] : pad;
        H->val[p] = k < len ? A->val[b + k] : 0.0;
    }
}

/* Column-major phantom rows (beyond the hack's real rows, up to ld): column
 * 0 (a hack with width > 0 has a nonzero, so cols > 0), value 0. */
static void fill_phantoms(sp_hll *H, int32_t h)
{
    for (int32_t r = sp_hll_hack_rows(H, h); r < H->ld; r++)
        for (int32_t k = 0; k < H->width[h]; k++) {
            int64_t p = hll_pos(H, h, r, k);
            H->col[p] = 0;
            H->val[p] = 0.0;
        }
}

int sp_hll_from_csr(sp_hll *H, const sp_csr *A, int32_t hack, int colmajor, sp_err *err)
{
    int64_t stored;
    uint64_t bytes;
    memset(H, 0, sizeof *H);
    if (sp_hll_plan(A, hack, colmajor, &stored, &bytes, err))
        return -1;
    H->rows = A->rows, H->cols = A->cols, H->colmajor = colmajor;
    H->hack = hack_rows_of(A, hack);
    H->ld = ld_of(H->hack, colmajor);
    H->nhacks = (int32_t)(((int64_t)A->rows + H->hack - 1) / H->hack);
    H->width = malloc(((size_t)H->nhacks + 1) * sizeof *H->width);
    H->off = malloc(((size_t)H->nhacks + 1) * sizeof *H->off);
    H->col = alloc64((size_t)stored * sizeof *H->col);
    H->val = alloc64((size_t)stored * sizeof *H->val);
    if (!H->width || !H->off || !H->col || !H->val) {
        sp_hll_free(H);
        return sp_fail(err, "out of memory for a %s of %lld entries", hack ? "HLL" : "ELLPACK",
                       (long long)stored);
    }
    hll_layout(H, A);
#pragma omp parallel for schedule(static)
    for (int32_t i = 0; i < A->rows; i++)
        fill_row(H, A, i);
    if (colmajor) {
#pragma omp parallel for schedule(static)
        for (int32_t h = 0; h < H->nhacks; h++)
            fill_phantoms(H, h);
    }
    return 0;
}

void sp_hll_free(sp_hll *H)
{
    if (!H)
        return;
    free(H->width);
    free(H->off);
    free(H->col);
    free(H->val);
    memset(H, 0, sizeof *H);
}
