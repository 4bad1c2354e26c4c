/*
 * spmv_csr_cuda_vector.cu — CSR SpMV with a group of LANES threads per row
 * (LANES = 32: one warp per row, the "vector" kernel; 2..16: the sub-warp
 * kernel). The group reads its row's nonzeros with stride LANES, so a
 * warp's loads coalesce over 32/LANES rows, then sums with shuffles.
 */
#include "spmv_gpu.cuh"

/* Kernel: group t / LANES owns row t / LANES. Every thread reaches the
 * shuffles (no early return), as __shfl_xor_sync with a full mask needs. */
template <int LANES, typename V>
__global__ void csr_vector_kernel(int32_t rows, const int32_t *__restrict__ rowptr,
                                  const int32_t *__restrict__ colidx,
                                  const V *__restrict__ val, const V *__restrict__ x,
                                  V *__restrict__ y)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = t / LANES;
    int lane = (int)(threadIdx.x % LANES);
    V sum = 0;
    if (row < rows) {
        int32_t end = rowptr[row + 1];
#pragma unroll 4
        for (int32_t k = rowptr[row] + lane; k < end; k += LANES)
            sum += val[k] * x[colidx[k]];
    }
#pragma unroll
    for (int o = LANES / 2; o > 0; o /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, o, LANES);
    if (lane == 0 && row < rows)
        y[row] = sum;
}

/* Dispatch: the launch for g->lanes (a power of two, 2..32) on stream, in
 * value type V. */
template <typename V> static int launch(const sp_gpu_spmv *g, cudaStream_t stream)
{
    long long threads = (long long)g->rows * g->lanes;
    unsigned blocks = (unsigned)((threads + g->blocksize - 1) / g->blocksize);
    if (blocks == 0)
        return 0;
    sp_gpu_values<V> v = sp_spmv_gpu_values<V>(g);
#define SP_VECTOR_CASE(L)                                                                  \
    case L:                                                                                \
        csr_vector_kernel<L, V><<<blocks, g->blocksize, 0, stream>>>(                     \
            g->rows, g->rowptr, g->colidx, v.val, v.x, v.y);                              \
        break;
    switch (g->lanes) {
        SP_VECTOR_CASE(2)
        SP_VECTOR_CASE(4)
        SP_VECTOR_CASE(8)
        SP_VECTOR_CASE(16)
        SP_VECTOR_CASE(32)
    default:
        return -1;
    }
#undef SP_VECTOR_CASE
    return 0;
}

/* Host only: blocksize (whole warps), lanes, memory and precision checked, then
 * A's CSR, x and y recorded for the shared upload (in float for single). */
static int vector_prepare(const char *name, const sp_problem *pb, const sp_params *p,
                          int lanes_axis, void **state, sp_err *err)
{
    *state = NULL;
    int bs, lanes = 32;
    sp_precision prec;
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", name);
    if (sp_gpu_blocksize(name, p, 1, &bs, err) ||
        (lanes_axis && sp_gpu_lanes(pb->A, p, &lanes, err)) ||
        sp_precision_param(p, name, &prec, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_csr(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    g->lanes = lanes;
    return sp_spmv_gpu_done(
        g, sp_spmv_gpu_memory(g, name, p, err) || sp_spmv_gpu_precision(g, prec, err), state);
}

extern "C" int sp_spmv_cuda_vector_prepare(const sp_problem *pb, const sp_params *p,
                                           void **state, sp_err *err)
{
    return vector_prepare("spmv_csr_cuda_vector", pb, p, 0, state, err);
}

extern "C" int sp_spmv_cuda_subwarp_prepare(const sp_problem *pb, const sp_params *p,
                                            void **state, sp_err *err)
{
    return vector_prepare("spmv_csr_cuda_subwarp", pb, p, 1, state, err);
}

extern "C" int sp_spmv_cuda_vector_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_csr_cuda_vector: launch without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->prec == SP_SINGLE ? launch<float>(g, stream) : launch<double>(g, stream))
        return sp_fail(err, "spmv_csr_cuda_vector: lanes = %d unsupported", g->lanes);
    SP_CUDA(cudaGetLastError(), err);
    return 0;
}
