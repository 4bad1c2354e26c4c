/*
 * prim_kernels.c — the GPU kernels of the primitive operations (prim.h):
 * their descriptors, the `blocksize` check and the device memory each
 * needs. In a CPU-only build their entry points are NULL and the runner
 * skips them with the reason.
 */
#include <stdio.h>
#include <string.h>

#include "../spmv/spmv_gpu_host.h"
#include "prim.h"

int sp_prim_blocksize(const char *kernel, const sp_params *p, int *bs, sp_err *err)
{
    long v = sp_param(p, "blocksize", 256);
    if (v < 32 || v > 1024 || (v & (v - 1)))
        return sp_fail(err, "%s: blocksize = %ld is not a power of two in 32..1024", kernel, v);
    *bs = (int)v;
    return 0;
}

size_t sp_gpu_scan_temp_bytes(int64_t n, int bs)
{
    int64_t tile = (int64_t)bs * SP_SCAN_ITEMS, total = 0;
    for (int64_t nb = (n + tile - 1) / tile; nb > 1; nb = (nb + tile - 1) / tile)
        total += nb + 1;
    return (size_t)total * sizeof(int32_t);
}

uint64_t sp_prim_gpu_bytes(const char *op, const sp_csr *A, int bs)
{
    uint64_t nnz = (uint64_t)A->nnz, cols = (uint64_t)A->cols;
    if (!strcmp(op, "scan"))
        return sp_gpu_array_bytes(cols, 4) + sp_gpu_array_bytes(cols + 1, 4) +
               sp_gpu_array_bytes(sp_gpu_scan_temp_bytes((int64_t)cols, bs), 1);
    if (!strcmp(op, "histogram"))
        return sp_gpu_array_bytes(nnz, 4) + sp_gpu_array_bytes(cols, 4);
    if (!strcmp(op, "idx2ptr"))
        return sp_gpu_array_bytes(nnz, 4) + sp_gpu_array_bytes(cols + 1, 4);
    if (!strcmp(op, "ptr2idx"))
        return sp_gpu_array_bytes((uint64_t)A->rows + 1, 4) + sp_gpu_array_bytes(nnz, 4);
    if (!strcmp(op, "segsort"))
        return 2 * sp_gpu_array_bytes(nnz, 8);
    return 3 * sp_gpu_array_bytes(nnz, 8);     /* merge: input and two buffers */
}

/* need of each kernel: the derived input on the host, the arrays on the
 * device; a block size outside the axis is refused here already. */
static int prim_need(const char *op, const sp_problem *pb, const sp_params *p, sp_need *need,
                     sp_err *err)
{
    char kname[32];
    snprintf(kname, sizeof kname, "%s_cuda", op);
    int bs = 0;
    if (sp_prim_blocksize(kname, p, &bs, err))
        return -1;
    const sp_csr *A = pb->A;
    int wide = !strcmp(op, "segsort") || !strcmp(op, "merge");
    need->host_bytes = 4096 + ((uint64_t)A->nnz + A->cols + A->rows + 1) * (wide ? 8 : 4);
    need->device_bytes = sp_prim_gpu_bytes(op, A, bs);
    return 0;
}

#define PRIM_KERNEL(NAME, SUMMARY)                                                        \
    static int NAME##_need(const sp_problem *pb, const sp_params *p, sp_need *need,       \
                           sp_err *err)                                                   \
    {                                                                                     \
        return prim_need(#NAME, pb, p, need, err);                                        \
    }                                                                                     \
    const sp_kernel sp_##NAME##_cuda = {                                                  \
        .name = #NAME "_cuda",                                                            \
        .operation = #NAME,                                                               \
        .format = "array",                                                                \
        .backend = "cuda",                                                                \
        .summary = SUMMARY,                                                               \
        .needs_gpu = 1,                                                                   \
        .naxes = 1,                                                                       \
        .axes = {{"blocksize", SP_PRIM_BLOCKSIZES}},                                      \
        .prepare = SP_GPU_FN(sp_##NAME##_cuda_prepare),                                   \
        .upload = SP_GPU_FN(sp_prim_gpu_upload),                                          \
        .launch = SP_GPU_FN(sp_prim_gpu_launch),                                          \
        .result = SP_GPU_FN(sp_prim_gpu_result),                                          \
        .release = SP_GPU_FN(sp_prim_gpu_release),                                        \
        .need = NAME##_need,                                                              \
    };

PRIM_KERNEL(scan, "exclusive scan of the column counts: Blelloch per block, multi-level")
PRIM_KERNEL(histogram, "histogram of colidx into cols bins: shared-memory or warp atomics")
PRIM_KERNEL(idx2ptr, "index-to-pointers: column of each CSC entry -> column pointer")
PRIM_KERNEL(ptr2idx, "pointers-to-index: rowptr -> row of each nonzero")
PRIM_KERNEL(segsort, "sort of (column, position) keys in segments of 1024, shared memory")
PRIM_KERNEL(merge, "merge rounds of sorted runs of 1024 keys: merge path, splitters")
