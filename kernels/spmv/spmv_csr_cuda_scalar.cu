/*
 * spmv_csr_cuda_scalar.cu — CSR SpMV with one CUDA thread per row (the
 * "scalar" kernel): simple, and its loads coalesce poorly on long rows;
 * the baseline hand-written GPU design. V, the value type of A, x, y and
 * the sum: double, or float for `precision = single`.
 */
#include "spmv_gpu.cuh"

/* Thread i computes y[i]. The index is formed in 64 bits: with rows near
 * INT32_MAX the last block reaches past 2^31. */
template <typename V>
__global__ void csr_scalar_kernel(int32_t rows, const int32_t *__restrict__ rowptr,
                                  const int32_t *__restrict__ colidx,
                                  const V *__restrict__ val, const V *__restrict__ x,
                                  V *__restrict__ y)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    V sum = 0;
    for (int32_t k = rowptr[i]; k < rowptr[i + 1]; k++)
        sum += val[k] * x[colidx[k]];
    y[i] = sum;
}

/* Host only: the `blocksize`, `memory` and `precision` axes checked, A's
 * CSR, x and y recorded for the shared upload (no conversion; in single, A's values
 * and x rounded to float). */
extern "C" int sp_spmv_cuda_scalar_prepare(const sp_problem *pb, const sp_params *p,
                                           void **state, sp_err *err)
{
    return sp_spmv_gpu_csr_prepare("spmv_csr_cuda_scalar", pb, p, 0, state, err);
}

template <typename V> static void scalar_launch(const sp_gpu_spmv *g, unsigned blocks,
                                                cudaStream_t stream)
{
    sp_gpu_values<V> v = sp_spmv_gpu_values<V>(g);
    csr_scalar_kernel<V><<<blocks, g->blocksize, 0, stream>>>(g->rows, g->rowptr, g->colidx,
                                                              v.val, v.x, v.y);
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
        if (g->prec == SP_SINGLE)
            scalar_launch<float>(g, blocks, stream);
        else
            scalar_launch<double>(g, blocks, stream);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}
