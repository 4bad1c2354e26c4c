/*
 * prim_scan.cu — exclusive scan of any length: each block scans a tile of
 * blocksize * SP_SCAN_ITEMS elements (each thread sums its items, a
 * Blelloch up/down sweep over the thread sums in shared memory, then each
 * thread writes its items' prefixes) and leaves the tile's total; the
 * totals are scanned the same way, level by level, and added back.
 */
#include "prim.cuh"

/* Blelloch exclusive scan of s[0..bs) in place (bs a power of two); returns
 * the total to every thread. */
__device__ static int32_t blelloch(int32_t *s, int bs)
{
    int t = threadIdx.x;
    for (int d = 1; d < bs; d *= 2) {
        __syncthreads();
        int i = (t + 1) * 2 * d - 1;
        if (i < bs)
            s[i] += s[i - d];
    }
    __syncthreads();
    int32_t total = s[bs - 1];
    __syncthreads();
    if (t == 0)
        s[bs - 1] = 0;
    for (int d = bs / 2; d >= 1; d /= 2) {
        __syncthreads();
        int i = (t + 1) * 2 * d - 1;
        if (i < bs) {
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
    const int bs = blockDim.x, t = threadIdx.x;
    const int tile = bs * SP_SCAN_ITEMS;
    int32_t *s = smem, *v = smem + bs;
    int64_t base = (int64_t)blockIdx.x * tile;
    int len = (int)(n - base < tile ? n - base : tile);
    for (int i = t; i < tile; i += bs)
        v[i] = i < len ? in[base + i] : 0;
    __syncthreads();
    int32_t sum = 0;
    for (int i = 0; i < SP_SCAN_ITEMS; i++)
        sum += v[t * SP_SCAN_ITEMS + i];
    s[t] = sum;
    int32_t tot = blelloch(s, bs);
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
    size_t smem = ((size_t)bs + (size_t)tile) * sizeof(int32_t);
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
    if (bs < 32 || bs > 1024 || (bs & (bs - 1)))
        return sp_fail(err, "scan: blocksize = %d is not a power of two in 32..1024", bs);
    if (n < 0 || n > INT32_MAX)
        return sp_fail(err, "scan: length %lld outside 0..2^31-1", (long long)n);
    if (sp_gpu_scan_temp_bytes(n, bs) > 0 && !d_temp)
        return sp_fail(err, "scan: no temporary storage for %lld elements", (long long)n);
    return scan_level(d_in, d_out, n, bs, (int32_t *)d_temp, stream, err);
}
