/*
 * transpose_wintrans_host.c — the plan of the windowed ScanTrans
 * (transpose_gpu.h): chunks of rows, their column windows, the window
 * count W and the refusals, its `chunk` axis, memory statement and
 * descriptor. Pure arithmetic over the host CSR: need() runs it in the
 * runner's parent, prepare() to size the device arrays; the device
 * computes the same windows again in every launch and checks them.
 */
#include <limits.h>
#include <stdlib.h>

#include "../partition.h"
#include "../prim/prim.h"
#include "../kernel.h"
#include "transpose_gpu.h"

#define KERNEL "transpose_cuda_wintrans"

int32_t sp_wintrans_chunks(int32_t nnz, int64_t chunk)
{
    int64_t c = nnz > 0 ? ((int64_t)nnz + chunk - 1) / chunk : 1;
    return (int32_t)c;
}

int32_t sp_wintrans_row_start(const sp_csr *A, int64_t chunk, int32_t chunks, int32_t c)
{
    if (c <= 0)
        return 0;
    if (c >= chunks)
        return A->rows;
    /* the first r with rowptr[r] >= c * chunk */
    return sp_prefix_find(A->rowptr, A->rows, (int64_t)c * chunk);
}

int sp_wintrans_window(const sp_csr *A, const sp_wintrans_plan *pl, int32_t c, int32_t *lo,
                       int32_t *hi)
{
    int32_t r0 = sp_wintrans_row_start(A, pl->chunk, pl->chunks, c);
    int32_t r1 = sp_wintrans_row_start(A, pl->chunk, pl->chunks, c + 1);
    *lo = INT32_MAX, *hi = -1;
    for (int32_t r = r0; r < r1; r++) {
        int32_t a = A->rowptr[r], b = A->rowptr[r + 1];
        if (a == b)
            continue;
        if (A->colidx[a] < *lo)
            *lo = A->colidx[a];
        if (A->colidx[b - 1] > *hi)
            *hi = A->colidx[b - 1];
    }
    return *hi >= *lo;
}

/* Widen the raw windows of the chunks with entries to monotone ones: lo
 * becomes the least lo from the chunk on, hi the greatest hi up to it
 * (a stencil's first plane of rows reaches column 0 only in the chunk
 * after it). Widths 0 for chunks without entries. */
static void widen(int32_t chunks, int32_t *lo, int32_t *hi)
{
    int32_t run = -1;
    for (int32_t c = 0; c < chunks; c++)
        if (hi[c] >= lo[c])
            hi[c] = run = hi[c] > run ? hi[c] : run;
    run = INT32_MAX;
    for (int32_t c = chunks - 1; c >= 0; c--)
        if (hi[c] >= lo[c])
            lo[c] = run = lo[c] < run ? lo[c] : run;
}

int sp_wintrans_plan_of(const sp_csr *A, int64_t chunk, sp_wintrans_plan *pl, sp_err *err)
{
    if (chunk < 1)
        return sp_fail(err, KERNEL ": chunk = %lld is not positive", (long long)chunk);
    pl->chunk = chunk;
    pl->chunks = sp_wintrans_chunks(A->nnz, chunk);
    pl->width = 0;
    pl->max_width = 0;
    pl->budget = 2 * (int64_t)A->nnz + SP_WINTRANS_SLACK;
    if (pl->budget > INT32_MAX)
        pl->budget = INT32_MAX;
    int32_t *lo = malloc((size_t)pl->chunks * 2 * sizeof *lo), *hi = lo + pl->chunks;
    if (!lo)
        return sp_fail(err, KERNEL ": out of memory for the windows of %d chunks", pl->chunks);
    for (int32_t c = 0; c < pl->chunks; c++)
        sp_wintrans_window(A, pl, c, &lo[c], &hi[c]);
    widen(pl->chunks, lo, hi);
    for (int32_t c = 0; c < pl->chunks; c++)
        if (hi[c] >= lo[c]) {
            pl->width += (int64_t)hi[c] - lo[c] + 1;
            if (hi[c] - lo[c] + 1 > pl->max_width)
                pl->max_width = hi[c] - lo[c] + 1;
        }
    free(lo);
    if (pl->width > pl->budget)
        return sp_fail(err, KERNEL ": the column windows of %d chunks of %lld nonzeros (made "
                       "monotone) sum to W = %lld counts, above the budget min(2 x nnz + %d, "
                       "2^31 - 1) = %lld (rows spread over too many columns)", pl->chunks,
                       (long long)chunk, (long long)pl->width, SP_WINTRANS_SLACK,
                       (long long)pl->budget);
    return 0;
}

int sp_wintrans_chunk(const char *kernel, const sp_params *p, int64_t *chunk, sp_err *err)
{
    long v = sp_param(p, "chunk", 16384);
    if (v < SP_WINTRANS_CHUNK_MIN || v > SP_WINTRANS_CHUNK_MAX)
        return sp_fail(err, "%s: chunk = %ld nonzeros is outside %d..%ld", kernel, v,
                       SP_WINTRANS_CHUNK_MIN, SP_WINTRANS_CHUNK_MAX);
    *chunk = v;
    return 0;
}

/* The CSR and the CSC; per chunk its first row, raw and carried windows,
 * count offset (6 C + 3 ints with the check's flag); W counts; the column
 * totals and their scan's temporaries. */
uint64_t sp_trans_gpu_bytes_wintrans(const sp_csr *A, const sp_wintrans_plan *pl, int bs,
                                     uint64_t vb)
{
    uint64_t nnz = (uint64_t)A->nnz, cols = (uint64_t)A->cols;
    uint64_t csr = sp_gpu_array_bytes((uint64_t)A->rows + 1, 4) + sp_gpu_array_bytes(nnz, 4) +
                   sp_gpu_array_bytes(nnz, vb);
    uint64_t csc = sp_gpu_array_bytes(sp_trans_csc_dev_bytes(A->nnz, A->cols, vb), 1);
    return csr + csc + sp_gpu_array_bytes(6 * (uint64_t)pl->chunks + 3, 4) +
           sp_gpu_array_bytes((uint64_t)pl->width, 4) + sp_gpu_array_bytes(cols, 4) +
           sp_gpu_array_bytes(sp_gpu_scan_temp_bytes((int64_t)cols, bs), 1);
}

static int wintrans_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int bs = 0;
    int64_t chunk = 0;
    uint64_t vb;
    sp_wintrans_plan pl;
    if (sp_trans_gpu_blocksize(KERNEL, p, &bs, err) || sp_wintrans_chunk(KERNEL, p, &chunk, err) ||
        sp_trans_gpu_vb(KERNEL, p, &vb, err) || sp_wintrans_plan_of(pb->A, chunk, &pl, err))
        return -1;
    need->device_bytes = sp_trans_gpu_bytes_wintrans(pb->A, &pl, bs, vb);
    need->host_bytes = sp_trans_gpu_host_bytes(pb->A, vb);
    return 0;
}

const sp_kernel sp_transpose_cuda_wintrans = {
    .name = KERNEL,
    .operation = "transpose",
    .format = "csc",
    .backend = "cuda",
    .summary = "ScanTrans over column windows: per-chunk window counts, column offsets, "
               "ordered scatter (banded/stencil matrices; refuses wide windows)",
    .needs_gpu = 1,
    .naxes = 3,
    .axes = {{"blocksize", "256,512,1024"},
             {"chunk", SP_WINTRANS_CHUNKS},
             {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_trans_wintrans_prepare),
    .upload = SP_GPU_FN(sp_trans_wintrans_upload),
    .analyse = SP_GPU_FN(sp_trans_wintrans_analyse),
    .launch = SP_GPU_FN(sp_trans_wintrans_launch),
    .result = SP_GPU_FN(sp_trans_wintrans_result),
    .release = SP_GPU_FN(sp_trans_gpu_release),
    .need = wintrans_need,
};
