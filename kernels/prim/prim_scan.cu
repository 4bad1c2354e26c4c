/*
 * prim_scan.cu — exclusive scan of any length: each block scans a tile of
 * blocksize * SP_SCAN_ITEMS elements (each thread sums its items, a
 * Blelloch up/down sweep over the thread sums in shared memory, then each
 * thread writes its items' prefixes) and leaves the tile's total; the
 * totals are scanned the same way, level by level, and added back. Any
 * block size from 1 to 1024: the Blelloch tree runs over the thread sums
 * padded with zeros to the next power of two (at most twice the threads,
 * so every level has a thread for each of its pairs).
 */
#include "prim.cuh"

/* The smallest power of two >= x (x >= 1). */
__host__ __device__ static inline int pow2_ceil(int x)
{
    int p = 1;
    while (p < x)
        p *= 2;
    return p;
}

/* Blelloch exclusive scan of s[0..p) in place (p a power of two, at most
 * twice the block's threads); returns the total to every thread. */
__device__ static int32_t blelloch(int32_t *s, int p)
{
    int t = threadIdx.x;
    for (int d = 1; d < p; d *= 2) {
        __syncthreads();
        int i = (t + 1) * 2 * d - 1;
        if (i < p)
            s[i] += s[i - d];
    }
    __syncthreads();
    int32_t total = s[p - 1];
    __syncthreads();
    if (t == 0)
        s[p - 1] = 0;
    for (int d = p / 2; d >= 1; d /= 2) {
        __syncthreads();
        int i = (t + 1) * 2 * d - 1;
        if (i < p) {
            int32_t left = s[i - d];
            s[i - d] = s[i];
            s[i] += left;
        }
    }
    __syncthreads();
    return total;
}

/* One tile per block: out[tile] = exclusive prefixes within the tile;
 * sums[block] = the tile's total (when sums), *total = it (single tile). */
__global__ static void scan_tiles(const int32_t *in, int32_t *out, int64_t n, int32_t *sums,
                                  int32_t *total)
{
    extern __shared__ int32_t smem[];
    const int bs = blockDim.x, t = threadIdx.x, p = pow2_ceil(bs);
    const int tile = bs * SP_SCAN_ITEMS;
    int32_t *s = smem, *v = smem + p;
    int64_t base = (int64_t)blockIdx.x * tile;
    int len = (int)(n - base < tile ? n - base : tile);
    for (int i = t; i < tile; i += bs)
        v[i] = i < len ? in[base + i] : 0;
    __syncthreads();
    int32_t sum = 0;
    for (int i = 0; i < SP_SCAN_ITEMS; i++)
        sum += v[t * SP_SCAN_ITEMS + i];
    s[t] = sum;
    if (t + bs < p)             /* the padding: p - bs <= bs slots */
        s[t + bs] = 0;
    int32_t tot = blelloch(s, p);
    int32_t run = s[t];
    for (int i = 0; i < SP_SCAN_ITEMS; i++) {
        int32_t x = v[t * SP_SCAN_ITEMS + i];
        v[t * SP_SCAN_ITEMS + i] = run;
        run += x;
    }
    __syncthreads();
    for (int i = t; i < len; i += bs)
        out[base + i] = v[i];
    if (t == 0) {
        if (sums)
            sums[blockIdx.x] = tot;
        if (total)
            *total = tot;
    }
}

/* out[tile b] += sums[b] (the scanned totals); out[n] = sums[nb]. */
__global__ static void add_sums(int32_t *out, int64_t n, const int32_t *sums, int64_t nb)
{
    const int tile = blockDim.x * SP_SCAN_ITEMS;
    int64_t base = (int64_t)blockIdx.x * tile;
    int32_t add = sums[blockIdx.x];
    for (int i = threadIdx.x; i < tile && base + i < n; i += blockDim.x)
        out[base + i] += add;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[n] = sums[nb];
}

static int scan_level(const int32_t *in, int32_t *out, int64_t n, int bs, int32_t *temp,
                      cudaStream_t stream, sp_err *err)
{
    int64_t tile = (int64_t)bs * SP_SCAN_ITEMS;
    int64_t nb = (n + tile - 1) / tile;
    size_t smem = ((size_t)pow2_ceil(bs) + (size_t)tile) * sizeof(int32_t);
    if (n == 0) {
        SP_CUDA(cudaMemsetAsync(out, 0, sizeof *out, stream), err);
        return 0;
    }
    if (nb == 1) {
        scan_tiles<<<1, bs, smem, stream>>>(in, out, n, NULL, out + n);
        SP_LAUNCHED("scan_tiles", err);
        return 0;
    }
    int32_t *sums = temp;
    scan_tiles<<<(unsigned)nb, bs, smem, stream>>>(in, out, n, sums, NULL);
    SP_LAUNCHED("scan_tiles", err);
    if (scan_level(sums, sums, nb, bs, temp + nb + 1, stream, err))
        return -1;
    add_sums<<<(unsigned)nb, bs, 0, stream>>>(out, n, sums, nb);
    SP_LAUNCHED("add_sums", err);
    return 0;
}

extern "C" int sp_gpu_scan(const int32_t *d_in, int32_t *d_out, int64_t n, int bs,
                           void *d_temp, cudaStream_t stream, sp_err *err)
{
    if (bs < 1 || bs > SP_PRIM_BS_MAX)
        return sp_fail(err, "scan: blocksize = %d is outside 1..%d", bs, SP_PRIM_BS_MAX);
    if (n < 0 || n > INT32_MAX)
        return sp_fail(err, "scan: length %lld outside 0..2^31-1", (long long)n);
    if (sp_gpu_scan_temp_bytes(n, bs) > 0 && !d_temp)
        return sp_fail(err, "scan: no temporary storage for %lld elements", (long long)n);
    return scan_level(d_in, d_out, n, bs, (int32_t *)d_temp, stream, err);
}
