/*
 * spmv_csr_cuda_block.cu — CSR SpMV with one CUDA block per row, study
 * 002's third CUDA CSR design (its section VI.B: "each row of the matrix
 * was assigned to a block, the block's threads sharing out the row's
 * nonzeros for the dot product"). The block's threads stride over the
 * row, then reduce: shuffles inside each warp, the warps' sums through
 * shared memory, the first warp's shuffles over those. Every block size
 * that is a multiple of 32 (the study's 12, 96 and 768 included) works:
 * nothing assumes a power of two. V, the value type of A, x, y and the
 * sums: double, or float for `precision = single`.
 */
#include "spmv_gpu.cuh"

/* The sum of v over the 32 lanes of a full warp, in every lane. */
template <typename V> __device__ __forceinline__ V warp_sum(V v)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* Block b owns row b. blockDim.x is a multiple of 32 (prepare checks it),
 * so every warp is full and every thread reaches the shuffles and the
 * barrier: no early return. */
template <typename V>
__global__ void csr_block_kernel(const int32_t *__restrict__ rowptr,
                                 const int32_t *__restrict__ colidx,
                                 const V *__restrict__ val, const V *__restrict__ x,
                                 V *__restrict__ y)
{
    __shared__ V warp_sums[32];             /* 1024 threads: 32 warps at most */
    int32_t row = blockIdx.x, end = rowptr[row + 1];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    V sum = 0;
    for (int32_t k = rowptr[row] + threadIdx.x; k < end; k += blockDim.x)
        sum += val[k] * x[colidx[k]];
    sum = warp_sum(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < warps ? warp_sums[lane] : V(0);
        sum = warp_sum(sum);
        if (lane == 0)
            y[row] = sum;
    }
}

/* Host only: blocksize (whole warps), memory and precision checked, then
 * A's CSR, x and y recorded for the shared upload (in float for single). */
extern "C" int sp_spmv_cuda_csr_block_prepare(const sp_problem *pb, const sp_params *p,
                                              void **state, sp_err *err)
{
    return sp_spmv_gpu_csr_prepare("spmv_csr_cuda_block", pb, p, 1, state, err);
}

template <typename V> static void block_launch(const sp_gpu_spmv *g, cudaStream_t stream)
{
    sp_gpu_values<V> v = sp_spmv_gpu_values<V>(g);
    csr_block_kernel<V><<<(unsigned)g->rows, g->blocksize, 0, stream>>>(g->rowptr, g->colidx,
                                                                        v.val, v.x, v.y);
}

/* One block per row on the harness's stream (rows < 2^31: within the
 * grid's x limit); rows = 0 launches nothing. */
extern "C" int sp_spmv_cuda_csr_block_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_csr_cuda_block: launch without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->rows > 0) {
        if (g->prec == SP_SINGLE)
            block_launch<float>(g, stream);
        else
            block_launch<double>(g, stream);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}
