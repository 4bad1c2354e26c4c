/*
 * hll.c — CSR to sliced ELLPACK (layout, options and refusal rule in
 * hll.h): widths per hack and their offsets, then every stored row —
 * real, past the end, or alignment — filled independently (OpenMP over
 * rows, since ELLPACK is a single hack).
 */
#include <stdlib.h>
#include <string.h>

#include "hll.h"

/* Rows per hack: hack, or all rows (at least 1) for ELLPACK (hack = 0). */
static int32_t hack_rows_of(const sp_csr *A, int32_t hack)
{
    return hack ? hack : (A->rows > 0 ? A->rows : 1);
}

int64_t sp_hll_ld(int32_t hack, int32_t align)
{
    return ((int64_t)hack + align - 1) / align * align;
}

/* Longest row among rows [first, first + n) of A (n clipped to A). */
static int32_t longest_row(const sp_csr *A, int64_t first, int64_t n)
{
    int32_t w = 0;
    int64_t end = first + n < A->rows ? first + n : A->rows;
    for (int64_t i = first; i < end; i++) {
        int32_t len = A->rowptr[i + 1] - A->rowptr[i];
        w = len > w ? len : w;
    }
    return w;
}

static const char *format_name(const sp_hll_opts *o)
{
    return o->hack ? "HLL" : "ELLPACK";
}

static int check_opts(const sp_csr *A, const sp_hll_opts *o, sp_err *err)
{
    const char *what = o ? format_name(o) : "HLL";
    if (!A || A->rows < 0 || !o)
        return sp_fail(err, "%s: no matrix or no layout options", what);
    if (o->hack < 0 || o->hack > SP_HACK_MAX)
        return sp_fail(err, "%s: hack = %d outside 1..%d", what, o->hack, SP_HACK_MAX);
    if (o->align < 1 || o->align > 64 || (o->pad != SP_HLL_PAD_REPEAT && o->pad != SP_HLL_PAD_NEG))
        return sp_fail(err, "%s: align = %d outside 1..64 or unknown padding %d", what,
                       o->align, o->pad);
    return 0;
}

int sp_hll_plan(const sp_csr *A, const sp_hll_opts *o, int64_t *stored, uint64_t *bytes,
                sp_err *err)
{
    if (check_opts(A, o, err))
        return -1;
    int32_t hr = hack_rows_of(A, o->hack), longest = 0;
    int64_t ld = sp_hll_ld(hr, o->align), nh = ((int64_t)A->rows + hr - 1) / hr, total = 0;
    for (int64_t h = 0; h < nh; h++) {
        int32_t w = longest_row(A, h * hr, hr);
        longest = w > longest ? w : longest;
        total += ld * w;
    }
    if (total > INT32_MAX)
        return sp_fail(err, "%s refused: %lld stored entries (padding included) for %d "
                       "nonzeros (longest row %d of %d rows, %lld rows per hack), more than "
                       "the 2^31-1 that 32-bit offsets address",
                       format_name(o), (long long)total, A->nnz, longest, A->rows,
                       (long long)ld);
    *stored = total;
    *bytes = (uint64_t)total * (sizeof(int32_t) + sizeof(double)) +
             ((uint64_t)nh * 2 + 1) * sizeof(int32_t);
    return 0;
}

/* n bytes, SP_HLL_ALIGN_BYTES aligned (2 MiB from 4 MiB up, by
 * sp_alloc_large): the base of the column-major kernels' claim (hll.h). */
static void *alloc_aligned(size_t n)
{
    void *p = NULL;
    if (n >= ((size_t)4 << 20))
        return sp_alloc_large(n);
    return posix_memalign(&p, SP_HLL_ALIGN_BYTES, n ? n : SP_HLL_ALIGN_BYTES) ? NULL : p;
}

/* width[] and off[] from A. */
static void hll_layout(sp_hll *H, const sp_csr *A)
{
    H->off[0] = 0;
    for (int32_t h = 0; h < H->nhacks; h++) {
        H->width[h] = longest_row(A, (int64_t)h * H->hack, H->hack);
        H->off[h + 1] = H->off[h] + H->ld * H->width[h];
    }
}

/* Stored row r of hack h: A's row (when r is a real row) first, then
 * padding up to the hack's width. */
static void fill_row(sp_hll *H, const sp_csr *A, int32_t h, int32_t r)
{
    int64_t i = (int64_t)h * H->hack + r, base = H->off[h];
    int real = r < H->hack && i < A->rows;
    int32_t b = real ? A->rowptr[i] : 0, len = real ? A->rowptr[i + 1] - b : 0;
    int32_t pad = H->pad == SP_HLL_PAD_NEG ? -1 : len ? A->colidx[b + len - 1] : 0;
    int32_t w = H->width[h];
    for (int32_t k = 0; k < w; k++) {
        int64_t p = H->colmajor ? base + (int64_t)k * H->ld + r : base + (int64_t)r * w + k;
        H->col[p] = k < len ? A->colidx[b + k] : pad;
        H->val[p] = k < len ? A->val[b + k] : 0.0;
    }
}

int sp_hll_from_csr(sp_hll *H, const sp_csr *A, const sp_hll_opts *o, sp_err *err)
{
    int64_t stored;
    uint64_t bytes;
    if (H)
        memset(H, 0, sizeof *H);
    if (!H)
        return sp_fail(err, "HLL: no output layout");
    if (sp_hll_plan(A, o, &stored, &bytes, err))
        return -1;
    H->rows = A->rows, H->cols = A->cols, H->nnz = A->nnz;
    H->colmajor = o->colmajor, H->pad = o->pad, H->stored = stored;
    H->hack = hack_rows_of(A, o->hack);
    H->ld = (int32_t)sp_hll_ld(H->hack, o->align);
    H->nhacks = (int32_t)(((int64_t)A->rows + H->hack - 1) / H->hack);
    H->width = malloc(((size_t)H->nhacks + 1) * sizeof *H->width);
    H->off = malloc(((size_t)H->nhacks + 1) * sizeof *H->off);
    H->col = alloc_aligned((size_t)stored * sizeof *H->col);
    H->val = alloc_aligned((size_t)stored * sizeof *H->val);
    if (!H->width || !H->off || !H->col || !H->val) {
        sp_hll_free(H);
        return sp_fail(err, "out of memory for a %s of %lld entries (%llu bytes)",
                       format_name(o), (long long)stored, (unsigned long long)bytes);
    }
    hll_layout(H, A);
    int64_t slots = (int64_t)H->nhacks * H->ld;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t q = 0; q < slots; q++)
        fill_row(H, A, (int32_t)(q / H->ld), (int32_t)(q % H->ld));
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
