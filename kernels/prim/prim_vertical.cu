/*
 * prim_vertical.cu — index-to-pointers of unsorted indices the way study
 * 000 describes it (its section IV.F, Figure 10), at any block size:
 *
 *   1. the n indices cut into segments of `segment`, each counted by a
 *      block into its own row of the partial histograms (parts: nparts
 *      rows of bins; in shared memory when the bins fit, then the row
 *      written whole, else atomics into the zeroed row);
 *   2. the partial histograms scanned "vertically", each bin's column
 *      exclusively, its total left in totals[bin], in one of the seed's
 *      two ways:
 *        loop       a thread per bin walks its column down (the seed's "N
 *                   blocks of threads that traverse the column vector
 *                   sequentially"; ScanTrans's vertical scan);
 *        transpose  the partial histograms transposed (bins rows of
 *                   nparts, 32 x 32 tiles through shared memory), then a
 *                   block per bin scans its row (the seed's "transposing
 *                   the matrix of partial histograms and applying prefix
 *                   sum N times"; the variant its code did not have);
 *   3. ptr = the exclusive scan of the totals (sp_gpu_scan).
 *
 * owners (SP_HIST_OWNERS) counts step 1 as the seed's section VIII
 * proposes instead: a thread per few bins reads the block's whole segment,
 * staged in shared memory a chunk at a time, and counts only its own bins,
 * without atomics; then the loop.
 *
 * The scanned partial histograms are each segment's offset per bin, what
 * ScanTrans's write back reads; the operation checks ptr, the GPU tests
 * every offset too.
 */
#include "prim.cuh"

/* Bins a block counts in shared memory (48 KiB). */
#define PART_SMEM_BINS 12288
/* The transpose's tile side. */
#define TT 32

__global__ static void part_hist_smem(const int32_t *idx, int64_t n, int64_t seg, int32_t *parts,
                                      int32_t bins)
{
    extern __shared__ int32_t c[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        c[b] = 0;
    __syncthreads();
    int64_t lo = (int64_t)blockIdx.x * seg, hi = lo + seg < n ? lo + seg : n;
    for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
        atomicAdd(&c[idx[i]], 1);
    __syncthreads();
    int32_t *row = parts + (int64_t)blockIdx.x * bins;
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        row[b] = c[b];
}

/* Indices of a segment staged in shared memory at a time (16 KiB). */
#define OWN_CHUNK 4096

/* owners: in each pass every thread owns SP_HIST_OWN_BINS consecutive bins
 * and reads every staged index of the block's segment (the same address
 * across the block: a broadcast), counting its own bins' in registers; the
 * passes cover the bins blockDim.x * SP_HIST_OWN_BINS at a time, and the
 * row is written whole. Every thread runs every pass and every chunk, so
 * the barriers are reached by all. */
__global__ static void part_hist_owners(const int32_t *idx, int64_t n, int64_t seg,
                                        int32_t *parts, int32_t bins)
{
    __shared__ int32_t chunk[OWN_CHUNK];
    int64_t lo = (int64_t)blockIdx.x * seg, hi = lo + seg < n ? lo + seg : n;
    int32_t *row = parts + (int64_t)blockIdx.x * bins;
    const int64_t span = (int64_t)blockDim.x * SP_HIST_OWN_BINS;
    for (int64_t pass = 0; pass < bins; pass += span) {
        int64_t first = pass + (int64_t)threadIdx.x * SP_HIST_OWN_BINS;
        int32_t cnt[SP_HIST_OWN_BINS];
#pragma unroll
        for (int r = 0; r < SP_HIST_OWN_BINS; r++)
            cnt[r] = 0;
        for (int64_t c0 = lo; c0 < hi; c0 += OWN_CHUNK) {
            int len = (int)(hi - c0 < OWN_CHUNK ? hi - c0 : OWN_CHUNK);
            __syncthreads();            /* the chunk before read by every thread */
            for (int i = threadIdx.x; i < len; i += blockDim.x)
                chunk[i] = idx[c0 + i];
            __syncthreads();
            for (int i = 0; i < len; i++) {
                int64_t d = (int64_t)chunk[i] - first;
#pragma unroll
                for (int r = 0; r < SP_HIST_OWN_BINS; r++)
                    cnt[r] += d == r;
            }
        }
#pragma unroll
        for (int r = 0; r < SP_HIST_OWN_BINS; r++)
            if (first + r < bins)
                row[first + r] = cnt[r];
    }
}

/* Into rows zeroed beforehand. */
__global__ static void part_hist_global(const int32_t *idx, int64_t n, int64_t seg,
                                        int32_t *parts, int32_t bins)
{
    int64_t lo = (int64_t)blockIdx.x * seg, hi = lo + seg < n ? lo + seg : n;
    int32_t *row = parts + (int64_t)blockIdx.x * bins;
    for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
        atomicAdd(&row[idx[i]], 1);
}

/* loop: a thread per bin, down its column (coalesced across the bins). */
__global__ static void vertical_loop(int32_t *parts, int64_t nparts, int32_t bins,
                                     int32_t *totals)
{
    int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= bins)
        return;
    int32_t run = 0;
    for (int64_t s = 0; s < nparts; s++) {
        int32_t c = parts[s * bins + b];
        parts[s * bins + b] = run;
        run += c;
    }
    totals[b] = run;
}

/* out (cols x rows) = in (rows x cols) transposed, a 32 x 32 tile a block
 * (tiles_c tiles across a row of tiles), any number of threads. */
__global__ static void transpose_parts(const int32_t *in, int32_t *out, int64_t rows,
                                       int64_t cols, int64_t tiles_c)
{
    __shared__ int32_t tile[TT][TT + 1];
    int64_t tr = (int64_t)blockIdx.x / tiles_c, tc = (int64_t)blockIdx.x % tiles_c;
    for (int i = threadIdx.x; i < TT * TT; i += blockDim.x) {
        int r = i / TT, c = i % TT;
        int64_t gr = tr * TT + r, gc = tc * TT + c;
        if (gr < rows && gc < cols)
            tile[r][c] = in[gr * cols + gc];
    }
    __syncthreads();
    for (int i = threadIdx.x; i < TT * TT; i += blockDim.x) {
        int r = i / TT, c = i % TT;
        int64_t gr = tc * TT + r, gc = tr * TT + c;     /* out's row: a column of in */
        if (gr < cols && gc < rows)
            out[gr * rows + gc] = tile[c][r];
    }
}

/* transpose: a block per bin scans its row of len counts exclusively in
 * place, blockDim.x at a time (Hillis-Steele in shared memory, any block
 * size), its total into totals[bin]. */
__global__ static void row_scan(int32_t *rows, int64_t len, int32_t *totals)
{
    extern __shared__ int32_t sh[];
    const int t = threadIdx.x, bs = blockDim.x;
    int32_t *row = rows + (int64_t)blockIdx.x * len;
    int32_t carry = 0;
    for (int64_t base = 0; base < len; base += bs) {
        int64_t i = base + t;
        int32_t v = i < len ? row[i] : 0;
        sh[t] = v;
        __syncthreads();
        for (int d = 1; d < bs; d *= 2) {
            int32_t x = t >= d ? sh[t - d] : 0;
            __syncthreads();
            sh[t] += x;
            __syncthreads();
        }
        int32_t incl = sh[t], total = sh[bs - 1];
        if (i < len)
            row[i] = carry + incl - v;
        carry += total;
        __syncthreads();        /* before the next chunk overwrites sh */
    }
    if (t == 0)
        totals[blockIdx.x] = carry;
}

extern "C" int sp_gpu_hist_idx2ptr(const int32_t *d_idx, int64_t n, int32_t bins,
                                   int64_t segment, int vertical, int bs, int32_t *d_parts,
                                   int32_t *d_parts_t, int32_t *d_totals, int32_t *d_ptr,
                                   void *d_temp, cudaStream_t stream, sp_err *err)
{
    if (bs < 1 || bs > SP_PRIM_BS_MAX)
        return sp_fail(err, "hist_idx2ptr: blocksize = %d is outside 1..%d", bs,
                       SP_PRIM_BS_MAX);
    if (segment < 1 || n < 0 || bins < 0)
        return sp_fail(err, "hist_idx2ptr: segment %lld, %lld indices, %d bins",
                       (long long)segment, (long long)n, bins);
    if (vertical == SP_VERTICAL_TRANSPOSE && !d_parts_t)
        return sp_fail(err, "hist_idx2ptr: no buffer for the transposed partial histograms");
    if (bins == 0) {
        SP_CUDA(cudaMemsetAsync(d_ptr, 0, sizeof *d_ptr, stream), err);
        return 0;
    }
    int64_t parts = sp_prim_nparts(n, segment);
    if (parts > INT32_MAX)
        return sp_fail(err, "hist_idx2ptr: %lld segments (at most 2^31-1 blocks)",
                       (long long)parts);
    if (vertical == SP_HIST_OWNERS) {
        if (sp_hist_owner_reads(n, bins, bs) > (double)SP_HIST_OWN_MAX_READS)
            return sp_fail(err, "hist_idx2ptr: %.3g shared-memory reads for %d bins at "
                                "blocksize = %d (at most %.3g)",
                           sp_hist_owner_reads(n, bins, bs), bins, bs,
                           (double)SP_HIST_OWN_MAX_READS);
        part_hist_owners<<<(unsigned)parts, bs, 0, stream>>>(d_idx, n, segment, d_parts, bins);
    } else if (bins <= PART_SMEM_BINS) {
        part_hist_smem<<<(unsigned)parts, bs, (size_t)bins * sizeof(int32_t), stream>>>(
            d_idx, n, segment, d_parts, bins);
    } else {
        SP_CUDA(cudaMemsetAsync(d_parts, 0, (size_t)parts * bins * sizeof(int32_t), stream),
                err);
        part_hist_global<<<(unsigned)parts, bs, 0, stream>>>(d_idx, n, segment, d_parts, bins);
    }
    SP_LAUNCHED("part_hist", err);
    if (vertical != SP_VERTICAL_TRANSPOSE) {
        vertical_loop<<<sp_grid(bins, bs), bs, 0, stream>>>(d_parts, parts, bins, d_totals);
        SP_LAUNCHED("vertical_loop", err);
    } else {
        int64_t tiles_r = (parts + TT - 1) / TT, tiles_c = ((int64_t)bins + TT - 1) / TT;
        if (tiles_r * tiles_c > INT32_MAX)
            return sp_fail(err, "hist_idx2ptr: %lld tiles to transpose",
                           (long long)(tiles_r * tiles_c));
        transpose_parts<<<(unsigned)(tiles_r * tiles_c), bs, 0, stream>>>(d_parts, d_parts_t,
                                                                          parts, bins, tiles_c);
        SP_LAUNCHED("transpose_parts", err);
        row_scan<<<(unsigned)bins, bs, (size_t)bs * sizeof(int32_t), stream>>>(d_parts_t, parts,
                                                                               d_totals);
        SP_LAUNCHED("row_scan", err);
    }
    return sp_gpu_scan(d_totals, d_ptr, bins, bs, d_temp, stream, err);
}
