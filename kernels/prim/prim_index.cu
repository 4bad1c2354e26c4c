/*
 * prim_index.cu — histogram, index-to-pointers and pointers-to-index.
 *
 * histogram: with few bins each block counts into its own copy in shared
 * memory and adds it to the result (one atomic per bin and block); with
 * many, warp-aggregated atomics into the result (one per distinct bin in
 * a warp). idx2ptr: each position writes the pointers of the bins that
 * start there. ptr2idx: each block takes a tile of positions, finds the
 * segments it spans and fills their positions in shared memory.
 */
#include "prim.cuh"

/* Bins a block keeps in shared memory (48 KiB). */
#define HIST_SMEM_BINS 12288
/* Positions per block of ptr2idx: 8 per thread (32 KiB at 1024 threads). */
#define P2I_ITEMS 8

__global__ static void hist_smem(const int32_t *idx, int64_t n, int32_t *counts, int32_t bins)
{
    extern __shared__ int32_t c[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        c[b] = 0;
    __syncthreads();
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        atomicAdd(&c[idx[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        if (c[b])
            atomicAdd(&counts[b], c[b]);
}

__global__ static void hist_global(const int32_t *idx, int64_t n, int32_t *counts)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    /* warp-uniform trip count, so every lane reaches the warp's vote */
    for (int64_t w = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); w < n; w += stride) {
        int64_t i = w + (threadIdx.x & 31);
        unsigned active = __ballot_sync(__activemask(), i < n);
        if (i < n)
            sp_warp_atomic_inc(counts, idx[i], active);
    }
}

extern "C" int sp_gpu_histogram(const int32_t *d_idx, int64_t n, int32_t *d_counts,
                                int32_t bins, int bs, cudaStream_t stream, sp_err *err)
{
    if (bins < 0 || n < 0)
        return sp_fail(err, "histogram: %d bins, %lld indices", bins, (long long)n);
    if (bins == 0)
        return 0;
    SP_CUDA(cudaMemsetAsync(d_counts, 0, (size_t)bins * sizeof *d_counts, stream), err);
    if (n == 0)
        return 0;
    unsigned grid = sp_grid(n, (int64_t)bs * 16);
    if (bins <= HIST_SMEM_BINS) {
        grid = grid < 1024 ? grid : 1024;
        hist_smem<<<grid, bs, (size_t)bins * sizeof(int32_t), stream>>>(d_idx, n, d_counts,
                                                                        bins);
    } else {
        hist_global<<<grid, bs, 0, stream>>>(d_idx, n, d_counts);
    }
    SP_LAUNCHED("histogram", err);
    return 0;
}

/* Position p = 0..n starts bins (sorted[p-1], sorted[p]]. */
__global__ static void idx2ptr(const int32_t *sorted, int64_t n, int32_t *ptr, int32_t bins)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p <= n;
         p += (int64_t)gridDim.x * blockDim.x) {
        int32_t prev = p > 0 ? sorted[p - 1] : -1, cur = p < n ? sorted[p] : bins;
        for (int32_t b = prev + 1; b <= cur; b++)
            ptr[b] = (int32_t)p;
    }
}

extern "C" int sp_gpu_idx2ptr(const int32_t *d_sorted, int64_t n, int32_t *d_ptr, int32_t bins,
                              int bs, cudaStream_t stream, sp_err *err)
{
    if (bins < 0 || n < 0)
        return sp_fail(err, "idx2ptr: %d bins, %lld indices", bins, (long long)n);
    idx2ptr<<<sp_grid(n + 1, bs), bs, 0, stream>>>(d_sorted, n, d_ptr, bins);
    SP_LAUNCHED("idx2ptr", err);
    return 0;
}

/* Tile of bs * P2I_ITEMS positions per block: the block finds the segments
 * the tile spans, each thread fills its segments' positions in shared
 * memory (segment by segment, so no search per position), then the tile
 * is written out coalesced. */
__global__ static void ptr2idx(const int32_t *ptr, int32_t nseg, int32_t *idx, int64_t n)
{
    extern __shared__ int32_t fill[];
    __shared__ int32_t first, last;
    const int64_t tile = (int64_t)blockDim.x * P2I_ITEMS;
    int64_t k0 = (int64_t)blockIdx.x * tile, k1 = k0 + tile < n ? k0 + tile : n;
    if (threadIdx.x == 0) {
        first = sp_segment_of(ptr, nseg + 1, k0);
        last = sp_segment_of(ptr, nseg + 1, k1 - 1);
    }
    __syncthreads();
    for (int64_t r = (int64_t)first + threadIdx.x; r <= last; r += blockDim.x) {
        int64_t a = ptr[r] > k0 ? ptr[r] : k0, b = ptr[r + 1] < k1 ? ptr[r + 1] : k1;
        for (int64_t k = a; k < b; k++)
            fill[k - k0] = (int32_t)r;
    }
    __syncthreads();
    for (int64_t i = threadIdx.x; i < k1 - k0; i += blockDim.x)
        idx[k0 + i] = fill[i];
}

extern "C" int sp_gpu_ptr2idx(const int32_t *d_ptr, int32_t nseg, int32_t *d_idx, int64_t n,
                              int bs, cudaStream_t stream, sp_err *err)
{
    if (nseg < 0 || n < 0)
        return sp_fail(err, "ptr2idx: %d segments, %lld positions", nseg, (long long)n);
    if (n == 0)
        return 0;
    ptr2idx<<<sp_grid(n, (int64_t)bs * P2I_ITEMS), bs, (size_t)bs * P2I_ITEMS * sizeof(int32_t),
              stream>>>(d_ptr, nseg, d_idx, n);
    SP_LAUNCHED("ptr2idx", err);
    return 0;
}
