/*
 * spmv_csr_cuda_block.c — descriptor of the one-block-per-row CUDA CSR
 * kernel (spmv_csr_cuda_block.cu), study 002's third CSR design. Block
 * sizes in whole warps: the reduction shuffles over full warps.
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_csr_cuda_block = {
    .name = "spmv_csr_cuda_block",
    .operation = "spmv",
    .format = "csr",
    .backend = "cuda",
    .summary = "CSR, one CUDA block per row (block-wide reduction)",
    .needs_gpu = 1,
    .naxes = 3,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_WARPS},
             {SP_AXIS_MEMORY, SP_GPU_MEMORY},
             {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_csr_block_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_csr_block_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_csr,
};
