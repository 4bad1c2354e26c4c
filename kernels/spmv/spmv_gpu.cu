/*
 * spmv_gpu.cu — upload, result and release shared by every GPU SpMV kernel.
 */
#include <stdlib.h>

#include "spmv_gpu.cuh"

/* cudaMalloc that never asks for zero bytes, so nnz = 0 still gives the
 * libraries valid pointers. */
template <typename T> static cudaError_t device_alloc(T **p, size_t n)
{
    return cudaMalloc((void **)p, (n ? n : 1) * sizeof(T));
}

int sp_spmv_gpu_upload(const sp_problem *pb, sp_gpu_spmv **out, sp_phases *ph, sp_err *err)
{
    const sp_csr *A = pb->A;
    sp_gpu_spmv *g = (sp_gpu_spmv *)calloc(1, sizeof *g);
    *out = g;
    if (!g)
        return sp_fail(err, "out of memory");
    g->rows = A->rows;
    g->cols = A->cols;
    g->nnz = A->nnz;
    SP_CUDA(cudaEventCreate(&g->start), err);
    SP_CUDA(cudaEventCreate(&g->stop), err);
    SP_CUDA(cudaDeviceSynchronize(), err);
    double t0 = sp_seconds();
    SP_CUDA(device_alloc(&g->rowptr, (size_t)A->rows + 1), err);
    SP_CUDA(device_alloc(&g->colidx, (size_t)A->nnz), err);
    SP_CUDA(device_alloc(&g->val, (size_t)A->nnz), err);
    SP_CUDA(device_alloc(&g->x, (size_t)A->cols), err);
    SP_CUDA(device_alloc(&g->y, (size_t)A->rows), err);
    SP_CUDA(cudaMemcpy(g->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof(int32_t),
                       cudaMemcpyHostToDevice), err);
    SP_CUDA(cudaMemcpy(g->colidx, A->colidx, (size_t)A->nnz * sizeof(int32_t),
                       cudaMemcpyHostToDevice), err);
    SP_CUDA(cudaMemcpy(g->val, A->val, (size_t)A->nnz * sizeof(double),
                       cudaMemcpyHostToDevice), err);
    SP_CUDA(cudaMemcpy(g->x, pb->x, (size_t)A->cols * sizeof(double),
                       cudaMemcpyHostToDevice), err);
    SP_CUDA(cudaDeviceSynchronize(), err);
    ph->h2d_s = sp_seconds() - t0;
    return 0;
}

int sp_spmv_gpu_elapsed(sp_gpu_spmv *g, double *seconds, sp_err *err)
{
    float ms = 0;
    SP_CUDA(cudaEventSynchronize(g->stop), err);
    SP_CUDA(cudaEventElapsedTime(&ms, g->start, g->stop), err);
    *seconds = 1e-3 * (double)ms;
    return 0;
}

extern "C" int sp_spmv_gpu_result(void *state, void *out, sp_phases *ph, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    SP_CUDA(cudaDeviceSynchronize(), err);
    double t0 = sp_seconds();
    SP_CUDA(cudaMemcpy(out, g->y, (size_t)g->rows * sizeof(double), cudaMemcpyDeviceToHost),
            err);
    ph->d2h_s = sp_seconds() - t0;
    return 0;
}

/* Frees whatever was allocated; safe on a partly prepared state. */
extern "C" void sp_spmv_gpu_release(void *state)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return;
    if (g->matA)
        cusparseDestroySpMat(g->matA);
    if (g->vecX)
        cusparseDestroyDnVec(g->vecX);
    if (g->vecY)
        cusparseDestroyDnVec(g->vecY);
    if (g->handle)
        cusparseDestroy(g->handle);
    cudaFree(g->buffer);
    cudaFree(g->rowptr);
    cudaFree(g->colidx);
    cudaFree(g->val);
    cudaFree(g->x);
    cudaFree(g->y);
    if (g->start)
        cudaEventDestroy(g->start);
    if (g->stop)
        cudaEventDestroy(g->stop);
    free(g);
}
