/*
 * spmv_csr_cuda_scalar.cu — CSR SpMV with one CUDA thread per row (the
 * "scalar" kernel): simple, and its loads coalesce poorly on long rows;
 * the baseline hand-written GPU design.
 */
#include "spmv_gpu.cuh"

/* Thread i computes y[i]. The index is formed in 64 bits: with rows near
 * INT32_MAX the last block reaches past 2^31. */
__global__ void csr_scalar_kernel(int32_t rows, const int32_t *__restrict__ rowptr,
                                  const int32_t *__restrict__ colidx,
                                  const double *__restrict__ val,
                                  const double *__restrict__ x, double *__restrict__ y)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    double sum = 0.0;
    for (int32_t k = rowptr[i]; k < rowptr[i + 1]; k++)
        sum += val[k] * x[colidx[k]];
    y[i] = sum;
}

/* Host only: the `blocksize` axis checked, A's CSR, x and y recorded for
 * the shared upload (no conversion). */
extern "C" int sp_spmv_cuda_scalar_prepare(const sp_problem *pb, const sp_params *p,
                                           void **state, sp_err *err)
{
    *state = NULL;
    int bs;
    if (sp_gpu_blocksize("spmv_csr_cuda_scalar", p, 0, &bs, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_csr(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    *state = g;
    return 0;
}

/* One kernel on the harness's stream; rows = 0 launches nothing. */
extern "C" int sp_spmv_cuda_scalar_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_csr_cuda_scalar: launch without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    unsigned blocks = (unsigned)(((long long)g->rows + g->blocksize - 1) / g->blocksize);
    if (blocks > 0) {
        csr_scalar_kernel<<<blocks, g->blocksize, 0, stream>>>(g->rows, g->rowptr, g->colidx,
                                                               g->val, g->x, g->y);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}
