/*
 * spmv_dia_cuda.cu — SpMV on the diagonal format (kernels/dia.h; Bell &
 * Garland 2009's DIA kernel): thread t of a block takes rows first + t +
 * r·blockDim (r < RPT), so a warp's loads of one diagonal are contiguous
 * in val and in x. The offsets are staged in shared memory, SP_DIA_CHUNK
 * at a time (any number of diagonals). Values are read once: streaming
 * loads (__ldcs, evict first) so that x, read once per diagonal at
 * neighbouring places, keeps its place in L2; x through __ldg. A slot
 * whose column i + offset lies outside the matrix (the padding) is
 * skipped by predicate: neither its value nor x is loaded. V, the value
 * type of the layout, x, y and the sums: double, or float for
 * `precision = single` (4 bytes per stored entry).
 */
#include "../dia.h"
#include "spmv_gpu.cuh"

#define SP_DIA_CHUNK 256

template <int RPT, typename V>
__global__ void dia_kernel(int32_t rows, int32_t cols, int32_t ndiags,
                           const int32_t *__restrict__ offset, const V *__restrict__ val,
                           const V *__restrict__ x, V *__restrict__ y)
{
    __shared__ int32_t off[SP_DIA_CHUNK];
    const int64_t first = (int64_t)blockIdx.x * blockDim.x * RPT + threadIdx.x;
    V sum[RPT];
#pragma unroll
    for (int r = 0; r < RPT; r++)
        sum[r] = 0;
    for (int32_t d0 = 0; d0 < ndiags; d0 += SP_DIA_CHUNK) {
        int32_t n = min(SP_DIA_CHUNK, ndiags - d0);
        if (d0)
            __syncthreads();            /* the last chunk's offsets are read */
        for (int32_t t = threadIdx.x; t < n; t += blockDim.x)
            off[t] = offset[d0 + t];
        __syncthreads();
        const V *v = val + (int64_t)d0 * rows;
#pragma unroll 4
        for (int32_t d = 0; d < n; d++) {
            const int64_t o = off[d];
            const V *vd = v + (int64_t)d * rows;
#pragma unroll
            for (int r = 0; r < RPT; r++) {
                int64_t i = first + (int64_t)r * blockDim.x, j = i + o;
                if (i < rows && (uint64_t)j < (uint64_t)cols)
                    sum[r] += __ldcs(vd + i) * __ldg(x + j);
            }
        }
    }
#pragma unroll
    for (int r = 0; r < RPT; r++) {
        int64_t i = first + (int64_t)r * blockDim.x;
        if (i < rows)
            y[i] = sum[r];
    }
}

/* Host only: axes checked, the DIA layout built in the state, then x, y,
 * the offsets and the values recorded for the shared upload. */
extern "C" int sp_spmv_cuda_dia_prepare(const sp_problem *pb, const sp_params *p,
                                        void **state, sp_err *err)
{
    const char *name = "spmv_dia_cuda";
    *state = NULL;
    int bs, rpt;
    sp_precision prec;
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", name);
    if (sp_gpu_blocksize(name, p, 0, &bs, err) || sp_gpu_rows_per_thread(name, p, &rpt, err) ||
        sp_precision_param(p, name, &prec, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_new(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    g->rows_per_thread = rpt;
    if (sp_dia_from_csr(&g->dia, pb->A, err)) {
        sp_fail_prefix(err, "%s", name);
        return sp_spmv_gpu_done(g, -1, state);
    }
    const sp_dia *D = &g->dia;
    g->ndiags = D->ndiags;
    int rc = sp_spmv_gpu_add(g, (void **)&g->dia_offset, D->offset,
                             (size_t)D->ndiags * sizeof(int32_t), 0, err) ||
             sp_spmv_gpu_add(g, (void **)&g->dia_val, D->val,
                             (size_t)D->stored * sizeof(double), 0, err) ||
             sp_spmv_gpu_memory(g, name, p, err) || sp_spmv_gpu_precision(g, prec, err);
    return sp_spmv_gpu_done(g, rc, state);
}

template <int RPT, typename V> static void dia_launch(const sp_gpu_spmv *g, cudaStream_t stream)
{
    int64_t per_block = (int64_t)g->blocksize * RPT;
    unsigned blocks = (unsigned)(((int64_t)g->rows + per_block - 1) / per_block);
    sp_gpu_values<V> v = sp_spmv_gpu_values<V>(g);
    dia_kernel<RPT, V><<<blocks, g->blocksize, 0, stream>>>(g->rows, g->cols, g->ndiags,
                                                            g->dia_offset, v.dia_val, v.x, v.y);
}

/* The kernel for g->rows_per_thread in value type V. */
template <typename V> static void dia_dispatch(const sp_gpu_spmv *g, cudaStream_t stream)
{
    if (g->rows_per_thread == 4)
        dia_launch<4, V>(g, stream);
    else if (g->rows_per_thread == 2)
        dia_launch<2, V>(g, stream);
    else
        dia_launch<1, V>(g, stream);
}

extern "C" int sp_spmv_cuda_dia_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_dia_cuda: launch without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->rows > 0) {
        if (g->prec == SP_SINGLE)
            dia_dispatch<float>(g, stream);
        else
            dia_dispatch<double>(g, stream);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}
