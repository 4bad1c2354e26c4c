/*
 * spmv_sell_cuda.c — descriptor of the SELL-C-σ kernel (spmv_sell_cuda.cu):
 * slices of C = `hack` rows, rows sorted by length inside windows of
 * `sigma` rows (1: unsorted), streaming loads of the matrix.
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_sell_cuda = {
    .name = "spmv_sell_cuda",
    .operation = "spmv",
    .format = "hll",
    .backend = "cuda",
    .summary = "SELL-C-sigma: rows sorted by length in windows of sigma, slices of hack rows, "
               "one thread per row",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", SP_GPU_BLOCKSIZES, SP_GPU_VALID_BLOCKSIZE},
             {"hack", SP_GPU_HACKS, SP_GPU_VALID_HACK},
             {"sigma", "1,256,4096,1048576"},
             {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_sell_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .launch = SP_GPU_FN(sp_spmv_cuda_sell_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_sell_sigma,
};
