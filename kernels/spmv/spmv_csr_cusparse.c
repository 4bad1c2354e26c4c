/*
 * spmv_csr_cusparse.c — descriptor of the vendor baseline, cusparseSpMV on
 * CSR (spmv_csr_cusparse.cu). In a CPU-only build its entry points are
 * NULL and the runner skips it with the reason.
 */
#include "spmv_gpu_host.h"

const sp_kernel sp_spmv_csr_cusparse = {
    .name = "spmv_csr_cusparse",
    .operation = "spmv",
    .format = "csr",
    .backend = "cusparse",
    .summary = "cusparseSpMV, CSR, CUSPARSE_SPMV_CSR_ALG1",
    .needs_gpu = 1,
    .naxes = 1,
    .axes = {{SP_AXIS_PRECISION, "double"}},
    .prepare = SP_GPU_FN(sp_spmv_cusparse_prepare),
    .upload = SP_GPU_FN(sp_spmv_gpu_upload),
    .analyse = SP_GPU_FN(sp_spmv_cusparse_analyse),
    .launch = SP_GPU_FN(sp_spmv_cusparse_launch),
    .result = SP_GPU_FN(sp_spmv_gpu_result),
    .release = SP_GPU_FN(sp_spmv_gpu_release),
    .need = sp_need_cusparse_csr,
};
