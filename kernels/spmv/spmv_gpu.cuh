/*
 * spmv_gpu.cuh — device-side state shared by the GPU SpMV kernels: the CSR
 * and vectors on the device, timing events, and (for cuSPARSE) the library
 * handle and descriptors. Upload, result and release live in spmv_gpu.cu.
 */
#ifndef SP_SPMV_GPU_CUH
#define SP_SPMV_GPU_CUH

#include <cusparse.h>
#include "../cuda_check.h"
#include "spmv.h"

struct sp_gpu_spmv {
    int32_t rows, cols, nnz;
    int32_t *rowptr, *colidx;
    double *val, *x, *y;
    cudaEvent_t start, stop;
    int blocksize;
    cusparseHandle_t handle;
    cusparseSpMatDescr_t matA;
    cusparseDnVecDescr_t vecX, vecY;
    void *buffer;
};

/* Allocate the state, upload A and x (timed into ph->h2d_s). On failure
 * *out holds what was allocated, for sp_spmv_gpu_release. */
int sp_spmv_gpu_upload(const sp_problem *pb, sp_gpu_spmv **out, sp_phases *ph, sp_err *err);

/* Time one launch between the state's events. */
int sp_spmv_gpu_elapsed(sp_gpu_spmv *g, double *seconds, sp_err *err);

#endif
