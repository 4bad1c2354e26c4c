/*
 * spmv_sell_cuda.cu — SELL-C-σ (Kreutzer et al., 2014): inside each window
 * of σ consecutive rows the rows are sorted by length, longest first, then
 * cut into slices of C = `hack` rows, column-major and padded to the
 * slice's longest row (kernels/hll.h, GPU layout). Sorting puts rows of
 * like length in one slice, so the padding shrinks on irregular matrices;
 * σ = 1 keeps the row order (HLL aligned). One thread per stored row; it
 * writes y[perm[i]] (perm on the device; none when σ = 1).
 * Against spmv_hll_cuda_aligned: the matrix's loads are marked streaming
 * (__ldcs: evict first, they are read once) so that x keeps its place in
 * L2, and each entry's value is loaded with its column (padding values are
 * stored zeros), so only x's load waits on the column. V: double, or float
 * for `precision = single`.
 */
#include "spmv_gpu.cuh"

template <typename V>
__global__ void sell_sigma_kernel(int32_t rows, int32_t hack, const int32_t *__restrict__ off,
                                  const int32_t *__restrict__ col, const V *__restrict__ val,
                                  const int32_t *__restrict__ perm, const V *__restrict__ x,
                                  V *__restrict__ y)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= rows)
        return;
    int32_t i = (int32_t)t, s = i / hack, r = i - s * hack;
    int32_t base = off[s], width = (off[s + 1] - base) / hack;
    V sum = 0;
    const int32_t *c = col + base + r;
    const V *v = val + base + r;
#pragma unroll 4
    for (int32_t k = 0; k < width; k++) {
        int32_t ck = __ldcs(c + (int64_t)k * hack);
        V vk = __ldcs(v + (int64_t)k * hack);
        if (ck >= 0)
            sum += vk * __ldg(x + ck);
    }
    y[perm ? perm[i] : i] = sum;
}

/* The layout into g->hll and, for sigma > 1, the permutation into
 * g->h_perm: rows sorted in windows (a permuted copy of A, freed here),
 * then cut into slices of `hack` rows. */
static int sell_sigma_layout(const sp_csr *A, int32_t sigma, int hack, sp_gpu_spmv *g,
                             sp_err *err)
{
    sp_csr P;
    if (sigma > 1 && sp_sell_sigma(A, sigma, &g->h_perm, &P, err))
        return -1;
    sp_hll_opts o = sp_hll_gpu(hack, 1);
    int rc = sp_hll_from_csr(&g->hll, sigma > 1 ? &P : A, &o, err);
    if (sigma > 1)
        sp_csr_free(&P);
    return rc;
}

/* Host only: axes checked, the sorted layout built in the state, then x,
 * y, the slices and perm (sigma > 1) recorded for the shared upload. */
extern "C" int sp_spmv_cuda_sell_prepare(const sp_problem *pb, const sp_params *p,
                                         void **state, sp_err *err)
{
    const char *name = "spmv_sell_cuda";
    *state = NULL;
    int bs, hack;
    int32_t sigma;
    sp_precision prec;
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", name);
    if (sp_gpu_blocksize(name, p, 0, &bs, err) || sp_gpu_hack(name, p, &hack, err) ||
        sp_gpu_sigma(name, p, &sigma, err) || sp_precision_param(p, name, &prec, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_new(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    if (sell_sigma_layout(pb->A, sigma, hack, g, err)) {
        sp_fail_prefix(err, "%s", name);
        return sp_spmv_gpu_done(g, -1, state);
    }
    int rc = sp_spmv_gpu_add_sell(g, &g->hll, err) ||
             (g->h_perm && sp_spmv_gpu_add(g, (void **)&g->perm, g->h_perm,
                                           (size_t)g->rows * sizeof(int32_t), 0, err)) ||
             sp_spmv_gpu_precision(g, prec, err);
    return sp_spmv_gpu_done(g, rc, state);
}

template <typename V>
static void sell_launch(const sp_gpu_spmv *g, unsigned blocks, cudaStream_t stream)
{
    sp_gpu_values<V> v = sp_spmv_gpu_values<V>(g);
    sell_sigma_kernel<V><<<blocks, g->blocksize, 0, stream>>>(
        g->rows, g->hack, g->sell_off, g->sell_col, v.sell_val, g->perm, v.x, v.y);
}

extern "C" int sp_spmv_cuda_sell_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv_sell_cuda: launch without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->rows > 0) {
        unsigned blocks = (unsigned)(((int64_t)g->rows + g->blocksize - 1) / g->blocksize);
        if (g->prec == SP_SINGLE)
            sell_launch<float>(g, blocks, stream);
        else
            sell_launch<double>(g, blocks, stream);
        SP_CUDA(cudaGetLastError(), err);
    }
    return 0;
}
