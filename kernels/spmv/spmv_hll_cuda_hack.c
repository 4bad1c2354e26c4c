/*
 * spmv_hll_cuda_hack.c — descriptors of study 002's CUDA HLL solutions 1
 * and 2 (spmv_hll_cuda_hack.cu): one block per hack, one thread per row,
 * row-major hacks; solution 2 stages the row sums in shared memory to
 * write them coalesced. Any block size 1..1024 works (a thread per row, no
 * warp-wide step).
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_hll_cuda_hack = {
    .name = "spmv_hll_cuda_hack",
    .operation = "spmv",
    .format = "hll",
    .backend = "cuda",
    .summary = "HLL, row-major hacks, one block per hack, one thread per row (study 002 sol1)",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_BLOCKSIZE}, {"hack", SP_GPU_HACKS, SP_GPU_VALID_HACK},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_hll_hack_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_hll_hack_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_hll,
};

const sp_kernel sp_spmv_hll_cuda_staged = {
    .name = "spmv_hll_cuda_staged",
    .operation = "spmv",
    .format = "hll",
    .backend = "cuda",
    .summary = "HLL, as spmv_hll_cuda_hack with the row sums staged in shared memory for "
               "coalesced writes (study 002 sol2)",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_BLOCKSIZE}, {"hack", SP_GPU_HACKS, SP_GPU_VALID_HACK},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_hll_staged_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_hll_staged_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_hll_staged,
};
