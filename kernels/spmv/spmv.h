/*
 * spmv.h — the SpMV family (y = A·x, double): the operation and its kernels,
 * and the CUDA entry points the descriptors point to.
 */
#ifndef SP_SPMV_H
#define SP_SPMV_H

#include "../kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sp_operation sp_op_spmv;

extern const sp_kernel sp_spmv_csr_serial;
extern const sp_kernel sp_spmv_csr_omp;
extern const sp_kernel sp_spmv_csr_cuda_scalar;
extern const sp_kernel sp_spmv_csr_cusparse;

/* CUDA entry points (spmv_csr_cuda.cu, spmv_csr_cusparse.cu). The device
 * CSR and vectors every GPU SpMV kernel shares live in spmv_gpu.cu. */
int sp_spmv_cuda_scalar_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                sp_phases *ph, sp_err *err);
int sp_spmv_cuda_scalar_run(void *state, double *seconds, sp_err *err);
int sp_spmv_cusparse_prepare(const sp_problem *pb, const sp_params *p, void **state,
                             sp_phases *ph, sp_err *err);
int sp_spmv_cusparse_run(void *state, double *seconds, sp_err *err);
int sp_spmv_gpu_result(void *state, void *out, sp_phases *ph, sp_err *err);
void sp_spmv_gpu_release(void *state);

#ifdef __cplusplus
}
#endif
#endif
