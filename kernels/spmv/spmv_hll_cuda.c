/*
 * spmv_hll_cuda.c — descriptors of the ELL and HLL (sliced ELL) CUDA
 * kernels (spmv_hll_cuda.cu). Their `need` states the padded layout's
 * bytes on the host and the device (the runner skips what does not fit)
 * and refuses, with the reason, a layout past 32-bit offsets (kernels/hll.h:
 * ELL of 20 000 rows with one dense row of 10^6 nonzeros, say).
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_ell_cuda = {
    .name = "spmv_ell_cuda",
    .operation = "spmv",
    .format = "ell",
    .backend = "cuda",
    .summary = "ELL, column-major, one thread per row",
    .needs_gpu = 1,
    .naxes = 3,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_BLOCKSIZE},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_ell_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_ell_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_ell,
};

const sp_kernel sp_spmv_hll_cuda_aligned = {
    .name = "spmv_hll_cuda_aligned",
    .operation = "spmv",
    .format = "hll",
    .backend = "cuda",
    .summary = "HLL, column-major inside each hack, one thread per row (coalesced)",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_BLOCKSIZE}, {"hack", SP_GPU_HACKS, SP_GPU_VALID_HACK},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_hll_aligned_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_hll_aligned_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_hll,
};

const sp_kernel sp_spmv_hll_cuda_block = {
    .name = "spmv_hll_cuda_block",
    .operation = "spmv",
    .format = "hll",
    .backend = "cuda",
    .summary = "HLL, row-major hacks, one block per hack, one warp per row",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_WARPS}, {"hack", SP_GPU_HACKS, SP_GPU_VALID_HACK},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_hll_block_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_hll_block_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_hll,
};

const sp_kernel sp_spmv_hll_cuda_warp = {
    .name = "spmv_hll_cuda_warp",
    .operation = "spmv",
    .format = "hll",
    .backend = "cuda",
    .summary = "HLL, row-major hacks, one warp per hack, one lane per row",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_WARPS}, {"hack", SP_GPU_HACKS, SP_GPU_VALID_HACK},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY}, {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_hll_warp_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_hll_warp_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_hll,
};
