/*
 * prim.h — the primitives of the GPU transposition (issue 7) and of study
 * 000 (its section IV), each also an operation of its own so the report
 * can chart it over `blocksize` (any of 1..1024) and its other axes:
 *
 *   scan          exclusive scan of any length (Blelloch in a block, multi-level)
 *   histogram     counts of indices into bins (privatized in shared memory
 *                 when the bins fit, warp-aggregated atomics otherwise)
 *   idx2ptr       index-to-pointers: sorted indices -> segment pointers
 *   hist_idx2ptr  index-to-pointers of unsorted indices the study's way:
 *                 partial histograms of `segment` indices, a vertical scan
 *                 (a thread down each column, or the partial histograms
 *                 transposed and a scan per bin), the totals' scan
 *   ptr2idx       pointers-to-index: segment pointers -> index of each element
 *   segsort       stable sort of segments of `segment` keys in shared memory
 *   merge         merge rounds from sorted runs of `segment`: pairs merged by
 *                 merge path with splitters every `sp_dist` outputs
 *
 * Each operation derives its input from its workload (prim_op.c): from a
 * matrix the way the transposition uses it (scan over the column counts,
 * histogram of colidx into cols bins, idx2ptr from the column of each CSC
 * entry, ptr2idx from rowptr, segsort and merge over the keys (column << 32
 * | position) whose full sort is the stable order by column); from a key
 * array (keys:, a standalone array of n elements) as sp_prim_shape says.
 * Serial versions in prim_serial.c are the references.
 *
 *   prim_serial.c   serial versions
 *   prim_op.c       the seven operations (input, reference, exact check)
 *   prim_kernels.c  their GPU kernels' descriptors, axes, need
 *   prim_cpu.c      the serial versions as CPU kernels (the baselines)
 *   prim_scan.cu, prim_index.cu, prim_sort.cu, prim_vertical.cu   the CUDA
 *                   primitives
 *   prim_gpu.cu     the GPU kernels' prepare/upload/launch/result/release,
 *                   host wrappers
 *   prim_none.c     the host wrappers of a CPU-only build (refuse)
 */
#ifndef SP_PRIM_H
#define SP_PRIM_H

#include "../kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default segment of the segsort operation (and of the sorted runs the
 * merge operation starts from): the `segment` axis's default. */
#define SP_PRIM_SEG 1024
/* The longest segment segsort takes: two buffers of 64-bit keys in 32 KiB
 * of shared memory (the study: "the whole segment must fit in shared
 * memory"). */
#define SP_PRIM_SEG_MAX 2048
/* The longest run the merge operation starts from (its `segment` axis). */
#define SP_PRIM_RUN_MAX (1L << 24)
/* Outputs each thread of the transposition's big merge produces: splitters
 * every blocksize * SP_PRIM_MERGE_ITEMS outputs (sp_gpu_merge). */
#define SP_PRIM_MERGE_ITEMS 4
/* The largest splitter distance (`sp_dist`: outputs of one independent
 * merge, staged in shared memory: 32 KiB of 64-bit keys). */
#define SP_PRIM_SP_DIST_MAX 4096
/* The default splitter distance of the merge operation. */
#define SP_PRIM_SP_DIST 1024
/* The largest segment of the partial histograms (hist_idx2ptr). */
#define SP_PRIM_HIST_SEG_MAX (1L << 24)
/* Elements each thread of the scan holds: a tile is blocksize * SP_SCAN_ITEMS. */
#define SP_SCAN_ITEMS 8
/* The default block sizes of the primitive kernels (any of 1..1024 is taken:
 * SP_PRIM_BS_MAX). */
#define SP_PRIM_BLOCKSIZES "32,64,128,256,512,1024"
#define SP_PRIM_BS_MAX 1024
/* The same bounds as the axes' valid values (sp_axis.valid, checked when a
 * config is read; tests/test_prim.c keeps each equal to its number). */
#define SP_PRIM_VALID_BS "1..1024"
#define SP_PRIM_VALID_SEG "1..2048"
#define SP_PRIM_VALID_RUN "1..16777216"
#define SP_PRIM_VALID_SP_DIST "1..4096"
#define SP_PRIM_VALID_HIST_SEG "1..16777216"
/* Elements a bin on a key workload without `bins`: the study's default
 * instance (10^7 nonzeros over 5 * 10^5 columns). */
#define SP_PRIM_KEYS_PER_BIN 20

extern const sp_operation sp_op_scan, sp_op_histogram, sp_op_idx2ptr, sp_op_ptr2idx,
    sp_op_segsort, sp_op_merge, sp_op_hist_idx2ptr;

/* The vertical step of hist_idx2ptr (the seed's two ways): a thread per
 * bin walks its column of partial counts, or the partial histograms are
 * transposed and each bin's row scanned by a block. SP_HIST_OWNERS: the
 * partial histograms counted the way the seed's section VIII proposes (a
 * thread per few bins reading its block's whole segment from shared
 * memory, no atomics), then the loop. */
enum { SP_VERTICAL_LOOP = 0, SP_VERTICAL_TRANSPOSE = 1, SP_HIST_OWNERS = 2 };
/* Bins a thread of SP_HIST_OWNERS counts in one pass over its segment. */
#define SP_HIST_OWN_BINS 8
/* SP_HIST_OWNERS reads each index once per pass, by every thread of its
 * block: n x ceil(bins / (blocksize x SP_HIST_OWN_BINS)) x blocksize
 * shared-memory reads, about n x bins / 8 once the bins outnumber a
 * pass's. More than this is refused by its need: study 000's histogram
 * array (10^6 indices in 5 x 10^4 bins, 6.3e9-7.2e9 reads) runs, its
 * 2 x 10^7 one (10^5 bins, 2.5e11) and the transposition instance's
 * columns (10^7 in 5 x 10^5, 6e11) do not. */
#define SP_HIST_OWN_MAX_READS (1LL << 36)
/* Those reads for n indices, bins bins, block size bs. */
double sp_hist_owner_reads(int64_t n, int32_t bins, int bs);

/* ---- serial versions (prim_serial.c) ---------------------------------- */
/* out[0..n]: out[i] = in[0] + ... + in[i-1]; out may equal in (in place). */
void sp_scan_serial(const int32_t *in, int32_t *out, int64_t n);
/* counts[b] = number of i < n with idx[i] == b, for b < bins. */
void sp_histogram_serial(const int32_t *idx, int64_t n, int32_t *counts, int32_t bins);
/* ptr[b] = first i with sorted[i] >= b, for b = 0..bins. */
void sp_idx2ptr_serial(const int32_t *sorted, int64_t n, int32_t *ptr, int32_t bins);
/* idx[k] = s for ptr[s] <= k < ptr[s + 1], s < nseg. */
void sp_ptr2idx_serial(const int32_t *ptr, int32_t nseg, int32_t *idx);
/* Each segment of seg keys (the last one shorter) sorted ascending, in place. */
void sp_segsort_serial(uint64_t *keys, int64_t n, int64_t seg);
/* Index-to-pointers of unsorted indices the study's way: idx cut into
 * segments of `segment` indices; offsets (may be NULL; nparts(n, segment)
 * rows of bins) [s * bins + b] = the indices b in segments before s (the
 * vertical exclusive scan of the partial histograms); ptr[0..bins] = the
 * exclusive scan of the totals. -1 only when out of memory. */
int sp_hist_idx2ptr_serial(const int32_t *idx, int64_t n, int32_t bins, int64_t segment,
                           int32_t *ptr, int32_t *offsets);
/* The same in the caller's workspace run (bins + 1 counts), no allocation. */
void sp_hist_idx2ptr_serial_in(const int32_t *idx, int64_t n, int32_t bins, int64_t segment,
                               int32_t *ptr, int32_t *offsets, int32_t *run);
/* out = the sorted runs of `run` keys of in[0..n) merged pairwise, round
 * after round, into one (a and b: n keys each, a may be out); returns the
 * buffer holding the result (in itself when n <= run). */
const uint64_t *sp_merge_serial(const uint64_t *in, uint64_t *a, uint64_t *b, int64_t n,
                                int64_t run);
/* Partial histograms of n elements in segments of `segment`: at least 1. */
int64_t sp_prim_nparts(int64_t n, int64_t segment);
/* The keys (col << 32 | k) of A's nonzeros, k its position in the CSR, in
 * CSR order (keys[nnz]) and sorted (sorted[nnz], may be NULL). */
int sp_prim_keys(const sp_csr *A, uint64_t **keys, uint64_t **sorted, sp_err *err);

/* ---- the primitives' inputs, from a matrix or a key array (prim_op.c) ---
 * On a matrix A, as the transposition uses them: n = nnz indices
 * (colidx) into bins = cols bins, the pointers of ptr2idx its rowptr
 * (nseg = rows), 64-bit keys colidx << 32 | position. On a key workload
 * of n keys: n indices, key k in bin k * bins / 2^32 (the order and skew
 * of the distribution kept), bins the workload's `bins` (default n /
 * SP_PRIM_KEYS_PER_BIN, at least 1); the pointers of ptr2idx those of the
 * keys' bins (nseg = bins); 64-bit keys key << 32 | position; scan's n
 * values the keys' top 4 bits (0..15, so the sum of 143 million fits). */
typedef struct sp_prim_shape {
    int64_t n;          /* elements: the indices, keys, or values of scan */
    int32_t bins;       /* histogram, idx2ptr, hist_idx2ptr: index range */
    int32_t nseg;       /* ptr2idx: segments (positions = n) */
    int64_t scan_n;     /* scan: values (matrix: cols, the column counts) */
} sp_prim_shape;
int sp_prim_shape_of(const sp_problem *pb, sp_prim_shape *sh, sp_err *err);
/* The bins of key workload K (its `bins`, else the default above). */
int32_t sp_prim_keys_bins(const sp_keys *K);
/* The input of operation `op` on pb in a fresh buffer (free()), *n its
 * elements: segment is the sorted runs merge's input starts from (0:
 * SP_PRIM_SEG; other operations ignore it). */
int sp_prim_input(const char *op, const sp_problem *pb, int64_t segment, void **in, int64_t *n,
                  sp_err *err);

/* The `blocksize` axis of a primitive kernel: 1..1024. */
int sp_prim_blocksize(const char *kernel, const sp_params *p, int *bs, sp_err *err);
/* The `segment` and `sp_dist` axes (defaults SP_PRIM_SEG, SP_PRIM_SP_DIST),
 * checked against [1, max]. */
int sp_prim_axis(const char *kernel, const sp_params *p, const char *axis, long dflt, long max,
                 int64_t *v, sp_err *err);

/* Temporary device bytes sp_gpu_scan needs for n elements (the block sums
 * of every level; prim_kernels.c). */
size_t sp_gpu_scan_temp_bytes(int64_t n, int bs);

/* ---- the primitives on host arrays, through the device (for the GPU tests)
 * Upload, the primitive on the default stream, download; on device arrays
 * they are declared in prim.cuh (CUDA code only: they take a stream). In a
 * CPU-only build they refuse with the reason (prim_none.c). Block sizes
 * 1..1024. */
int sp_gpu_scan_host(const int32_t *in, int32_t *out, int64_t n, int bs, sp_err *err);
int sp_gpu_histogram_host(const int32_t *idx, int64_t n, int32_t *counts, int32_t bins, int bs,
                          sp_err *err);
int sp_gpu_idx2ptr_host(const int32_t *sorted, int64_t n, int32_t *ptr, int32_t bins, int bs,
                        sp_err *err);
int sp_gpu_ptr2idx_host(const int32_t *ptr, int32_t nseg, int32_t *idx, int bs, sp_err *err);
/* Segments of the default SP_PRIM_SEG keys. */
int sp_gpu_segsort_host(const uint64_t *in, uint64_t *out, int64_t n, int bs, sp_err *err);
/* Segments of `segment` keys (1..SP_PRIM_SEG_MAX). */
int sp_gpu_segsort_seg_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t segment,
                            int bs, sp_err *err);
/* Splitters every blocksize * SP_PRIM_MERGE_ITEMS outputs (the transposition's). */
int sp_gpu_merge_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t run, int bs,
                      sp_err *err);
/* Runs of any length `run` >= 1, splitters every sp_dist outputs. */
int sp_gpu_merge_dist_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t run,
                           int64_t sp_dist, int bs, sp_err *err);
/* hist_idx2ptr: ptr[0..bins], and offsets (may be NULL) as the serial
 * version lays them out (nparts rows of bins), whichever the vertical step. */
int sp_gpu_hist_idx2ptr_host(const int32_t *idx, int64_t n, int32_t bins, int64_t segment,
                             int vertical, int bs, int32_t *ptr, int32_t *offsets,
                             sp_err *err);

/* ---- the operations' GPU kernels (prim_gpu.cu) -------------------------
 * The steps of sp_kernel (kernel.h), each timed by the harness, none
 * reading a clock: prepare derives the input from the workload in host
 * memory (no CUDA call; a bad axis value refused there); upload allocates
 * the device arrays and copies the input on ex->stream; launch enqueues
 * the primitive on ex->stream; result copies the output back on it;
 * release frees what was made, from any state (a lone prepare touches no
 * device). No analyse: nothing is set up on the device beyond the upload. */
int sp_prim_gpu_prepare(const char *op, const sp_problem *pb, const sp_params *p,
                        void **state, sp_err *err);
int sp_prim_gpu_upload(void *state, const sp_exec *ex, sp_err *err);
/* One execution of the state's primitive, enqueued on ex->stream. */
int sp_prim_gpu_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_prim_gpu_result(void *state, void *out, const sp_exec *ex, sp_err *err);
void sp_prim_gpu_release(void *state);
/* Device bytes of kernel `kernel` (operation op) on shape sh with axes p
 * (input, output, temporaries; prim_kernels.c). */
uint64_t sp_prim_gpu_bytes(const char *op, const sp_prim_shape *sh, int bs, int64_t segment);
/* prepare of each operation's kernel (prim_gpu.cu). */
int sp_scan_cuda_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err);
int sp_histogram_cuda_prepare(const sp_problem *pb, const sp_params *p, void **state,
                              sp_err *err);
int sp_idx2ptr_cuda_prepare(const sp_problem *pb, const sp_params *p, void **state,
                            sp_err *err);
int sp_ptr2idx_cuda_prepare(const sp_problem *pb, const sp_params *p, void **state,
                            sp_err *err);
int sp_segsort_cuda_prepare(const sp_problem *pb, const sp_params *p, void **state,
                            sp_err *err);
int sp_merge_cuda_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err);
int sp_hist_idx2ptr_cuda_loop_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                      sp_err *err);
int sp_hist_idx2ptr_cuda_transpose_prepare(const sp_problem *pb, const sp_params *p,
                                           void **state, sp_err *err);
int sp_hist_idx2ptr_cuda_owners_prepare(const sp_problem *pb, const sp_params *p,
                                        void **state, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
