/*
 * spmv_cusparse_algs.c — descriptors of the cuSPARSE baselines beyond CSR
 * ALG1 (spmv_csr_cusparse.c): CSR ALG2, COO ALG1/ALG2, SELL ALG1 on our own
 * sliced ELL (`hack` = slice size). Code in spmv_csr_cusparse.cu.
 */
#include "spmv_gpu_host.h"

#define SP_CUSPARSE_KERNEL(ident, kname, fmt, text, prep, nax, ax, needfn)                \
    const sp_kernel ident = {                                                          \
        .name = kname,                                                                 \
        .operation = "spmv",                                                           \
        .format = fmt,                                                                 \
        .backend = "cusparse",                                                         \
        .summary = text,                                                               \
        .needs_gpu = 1,                                                                \
        .naxes = nax,                                                                  \
        .axes = ax,                                                                    \
        .prepare = SP_GPU_FN(prep),                                                    \
        .upload = SP_GPU_FN(sp_spmv_gpu_upload),                                       \
        .analyse = SP_GPU_FN(sp_spmv_cusparse_analyse),                                \
        .launch = SP_GPU_FN(sp_spmv_cusparse_launch),                                  \
        .result = SP_GPU_FN(sp_spmv_gpu_result),                                       \
        .release = SP_GPU_FN(sp_spmv_gpu_release),                                     \
        .need = needfn,                                                                \
    };

/* every baseline has the precision axis (double unless a section sets it) */
#define SP_NO_AXES {{SP_AXIS_PRECISION, "double"}}
#define SP_HACK_AXIS {{"hack", SP_GPU_HACKS}, {SP_AXIS_PRECISION, "double"}}

SP_CUSPARSE_KERNEL(sp_spmv_csr_cusparse_alg2, "spmv_csr_cusparse_alg2", "csr",
                   "cusparseSpMV, CSR, CUSPARSE_SPMV_CSR_ALG2",
                   sp_spmv_cusparse_csr_alg2_prepare, 1, SP_NO_AXES, sp_need_cusparse_csr)
SP_CUSPARSE_KERNEL(sp_spmv_coo_cusparse_alg1, "spmv_coo_cusparse_alg1", "coo",
                   "cusparseSpMV, COO, CUSPARSE_SPMV_COO_ALG1",
                   sp_spmv_cusparse_coo_alg1_prepare, 1, SP_NO_AXES, sp_need_cusparse_coo)
SP_CUSPARSE_KERNEL(sp_spmv_coo_cusparse_alg2, "spmv_coo_cusparse_alg2", "coo",
                   "cusparseSpMV, COO, CUSPARSE_SPMV_COO_ALG2",
                   sp_spmv_cusparse_coo_alg2_prepare, 1, SP_NO_AXES, sp_need_cusparse_coo)
SP_CUSPARSE_KERNEL(sp_spmv_sell_cusparse, "spmv_sell_cusparse", "hll",
                   "cusparseSpMV, sliced ELL (our HLL-aligned conversion), SELL_ALG1",
                   sp_spmv_cusparse_sell_prepare, 2, SP_HACK_AXIS, sp_need_cusparse_sell)
