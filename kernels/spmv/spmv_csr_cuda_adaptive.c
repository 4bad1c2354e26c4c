/*
 * spmv_csr_cuda_adaptive.c — descriptor of the adaptive CSR kernel
 * (spmv_csr_cuda_adaptive.cu): rows cut on the host into blocks of at most
 * blocksize · items nonzeros, summed in shared memory by lane groups sized
 * per block; long rows split into chunks; one launch.
 */
#include "spmv_adaptive.h"
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_csr_cuda_adaptive = {
    .name = "spmv_csr_cuda_adaptive",
    .operation = "spmv",
    .format = "csr",
    .backend = "cuda",
    .summary = "CSR, rows cut into blocks of equal nonzeros (CSR-Adaptive), lane groups "
               "sized per block, long rows split; one launch",
    .needs_gpu = 1,
    .naxes = 4,
    .axes = {{"blocksize", "64,128,256", SP_GPU_VALID_WARPS}, {"items", SP_ADAPTIVE_ITEMS}, {SP_AXIS_LOADS, "auto"},
             {SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cuda_adaptive_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .analyse = SP_GPU_FN(sp_spmv_cuda_adaptive_analyse),
    .launch = SP_GPU_FN(sp_spmv_cuda_adaptive_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_gpu_adaptive,
};
