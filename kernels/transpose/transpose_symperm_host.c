/*
 * transpose_symperm_host.c — the symmetric fast path's memory statement
 * and descriptor (transpose_cuda_symperm.cu does the work). Whether A is
 * symmetric is found on the device, in the timed launch, so the statement
 * holds the fallback's arrays on every matrix: the memory guard never
 * lets a run start that its fallback could not finish.
 */
#include "../prim/prim.h"
#include "../kernel.h"
#include "transpose_gpu.h"

#define KERNEL "transpose_cuda_symperm"

int sp_symperm_lookup_axis(const char *kernel, const sp_params *p, int *lookup, sp_err *err)
{
    long v = sp_param(p, "lookup", SP_SYMPERM_LOOKUP_DEFAULT);
    if (v < SP_SYMPERM_SEARCH || v > SP_SYMPERM_PAIR_EF)
        return sp_fail(err, "%s: lookup = %ld is not 1 (search), 2 (guess), 3 (guess, "
                       "evict-first stores), 4 (guess, two slots at once) or 5 (4 with "
                       "evict-first stores)", kernel, v);
    *lookup = (int)v;
    return 0;
}

/* The CSR, the CSC, the CUB route's work arrays and buffer (its fallback),
 * and the one-int flag of the check. */
uint64_t sp_trans_gpu_bytes_symperm(const sp_csr *A, uint64_t vb)
{
    return sp_trans_gpu_bytes_cub(A, vb) + sp_gpu_array_bytes(1, 4);
}

static int symperm_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int bs = 0, lookup = 0;
    uint64_t vb;
    if (sp_trans_gpu_blocksize(KERNEL, p, &bs, err) ||
        sp_symperm_lookup_axis(KERNEL, p, &lookup, err) || sp_trans_gpu_vb(KERNEL, p, &vb, err))
        return -1;
    need->device_bytes = sp_trans_gpu_bytes_symperm(pb->A, vb);
    need->host_bytes = sp_trans_gpu_host_bytes(pb->A, vb);
    return 0;
}

const sp_kernel sp_transpose_cuda_symperm = {
    .name = KERNEL,
    .operation = "transpose",
    .format = "csc",
    .backend = "cuda",
    .summary = "structurally symmetric matrices: colptr = rowptr, rowidx = colidx, values "
               "gathered from their mirrors (rank guess, binary search on a miss), one "
               "pass; else CUB sort",
    .needs_gpu = 1,
    .naxes = 3,
    .axes = {{"blocksize", SP_TRANS_BLOCKSIZES, SP_TRANS_VALID_BLOCKSIZE},
             {"lookup", SP_SYMPERM_LOOKUPS},
             {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_trans_symperm_prepare),
    .upload = SP_GPU_FN(sp_trans_symperm_upload),
    .launch = SP_GPU_FN(sp_trans_symperm_launch),
    .result = SP_GPU_FN(sp_trans_gpu_result),
    .release = SP_GPU_FN(sp_trans_gpu_release),
    .need = symperm_need,
};

#ifndef SP_HAVE_CUDA
/* CPU-only build: no state is ever made (prepare is NULL). */
int sp_trans_symperm_route(const void *state)
{
    (void)state;
    return SP_SYMPERM_NONE;
}
#endif
