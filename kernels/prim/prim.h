/*
 * prim.h — the primitives of the GPU transposition (issue 7), each also an
 * operation of its own so the report can chart it over `blocksize`:
 *
 *   scan       exclusive scan of any length (Blelloch in a block, multi-level)
 *   histogram  counts of indices into bins (privatized in shared memory
 *              when the bins fit, warp-aggregated atomics otherwise)
 *   idx2ptr    index-to-pointers: sorted indices -> segment pointers
 *   ptr2idx    pointers-to-index: segment pointers -> index of each element
 *   segsort    stable sort of segments of SP_PRIM_SEG keys in shared memory
 *   merge      merge rounds of sorted runs: pairs merged by merge path with
 *              splitters every blocksize * SP_PRIM_MERGE_ITEMS_PER_THREAD outputs
 *
 * Each operation derives its input from the matrix the way the
 * transposition uses it (prim_op.c): scan over the column counts,
 * histogram of colidx into cols bins, idx2ptr from the column of each CSC
 * entry, ptr2idx from rowptr, segsort and merge over the keys
 * (column << 32 | position) whose full sort is the stable order by column.
 * Serial versions in prim_serial.c are the references.
 *
 *   prim_serial.c   serial versions
 *   prim_op.c       the six operations (input, reference, exact check)
 *   prim_kernels.c  their GPU kernels' descriptors, need
 *   prim_scan.cu, prim_index.cu, prim_sort.cu   the CUDA primitives
 *   prim_gpu.cu     the kernels' prepare/upload/launch/result/release, host
 *                   wrappers
 *   prim_none.c     the host wrappers of a CPU-only build (refuse)
 */
#ifndef SP_PRIM_H
#define SP_PRIM_H

#include "../kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Keys per segment of the segsort operation (and the sorted runs the merge
 * operation starts from); the segsort kernel's blocksize must divide it. */
#define SP_PRIM_SEG 1024
/* Outputs each thread of the big merge produces: splitters every
 * blocksize * SP_PRIM_MERGE_ITEMS outputs (the sp_dist), at most two runs. */
#define SP_PRIM_MERGE_ITEMS 4
/* Elements each thread of the scan holds: a tile is blocksize * SP_SCAN_ITEMS. */
#define SP_SCAN_ITEMS 8
/* Block sizes of the primitive kernels: powers of two (segsort divides
 * SP_PRIM_SEG by them; the Blelloch scan works on a power-of-two tree). */
#define SP_PRIM_BLOCKSIZES "32,64,128,256,512,1024"

extern const sp_operation sp_op_scan, sp_op_histogram, sp_op_idx2ptr, sp_op_ptr2idx,
    sp_op_segsort, sp_op_merge;

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
/* The keys (col << 32 | k) of A's nonzeros, k its position in the CSR, in
 * CSR order (keys[nnz]) and sorted (sorted[nnz], may be NULL). */
int sp_prim_keys(const sp_csr *A, uint64_t **keys, uint64_t **sorted, sp_err *err);

/* The input of operation `op` (one of the six names) derived from A, in a
 * fresh buffer (free()); *n elements. */
int sp_prim_input(const char *op, const sp_csr *A, void **in, int64_t *n, sp_err *err);

/* The `blocksize` axis of a primitive kernel: a power of two in 32..1024. */
int sp_prim_blocksize(const char *kernel, const sp_params *p, int *bs, sp_err *err);

/* Temporary device bytes sp_gpu_scan needs for n elements (the block sums
 * of every level; prim_kernels.c). */
size_t sp_gpu_scan_temp_bytes(int64_t n, int bs);

/* ---- the primitives on host arrays, through the device (for the GPU tests)
 * Upload, the primitive on the default stream, download; on device arrays
 * they are declared in prim.cuh (CUDA code only: they take a stream). In a
 * CPU-only build they refuse with the reason (prim_none.c). */
int sp_gpu_scan_host(const int32_t *in, int32_t *out, int64_t n, int bs, sp_err *err);
int sp_gpu_histogram_host(const int32_t *idx, int64_t n, int32_t *counts, int32_t bins, int bs,
                          sp_err *err);
int sp_gpu_idx2ptr_host(const int32_t *sorted, int64_t n, int32_t *ptr, int32_t bins, int bs,
                        sp_err *err);
int sp_gpu_ptr2idx_host(const int32_t *ptr, int32_t nseg, int32_t *idx, int bs, sp_err *err);
int sp_gpu_segsort_host(const uint64_t *in, uint64_t *out, int64_t n, int bs, sp_err *err);
int sp_gpu_merge_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t run, int bs,
                      sp_err *err);

/* ---- the operations' GPU kernels (prim_gpu.cu) -------------------------
 * The steps of sp_kernel (kernel.h), each timed by the harness, none
 * reading a clock: prepare derives the input from the matrix in host
 * memory (no CUDA call; a bad block size refused there); upload allocates
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
/* Device bytes of operation op's kernel on A (input, output, temporaries;
 * prim_kernels.c). */
uint64_t sp_prim_gpu_bytes(const char *op, const sp_csr *A, int bs);
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

#ifdef __cplusplus
}
#endif
#endif
