/*
 * spmv_gpu_host.h — the host side of the GPU SpMV kernels, plain C so it
 * builds (and is unit-tested) without CUDA: the memory each combination
 * needs (sp_kernel.need), axis checks, the sub-warp `lanes` choice and the
 * merge-path split of the load-balanced CSR kernel.
 */
#ifndef SP_SPMV_GPU_HOST_H
#define SP_SPMV_GPU_HOST_H

#include "spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The `blocksize` values every hand-written GPU kernel declares. */
#define SP_GPU_BLOCKSIZES "32,64,96,128,160,192,256,320,384,512,768,1024"
/* The `hack` (rows per slice) values of the HLL kernels and cuSPARSE SELL. */
#define SP_GPU_HACKS "32,64,128,256"
/* The values the kernels take at all (sp_axis.valid, checked when a
 * config is read): a block of 1 to 1024 threads, or whole warps for the
 * kernels that reduce a row over a warp; a hack of 1 to SP_HACK_MAX rows
 * (kernels/hll.h). The checks in prepare (sp_gpu_blocksize, sp_gpu_hack)
 * stay for callers outside a config (the tests). */
#define SP_GPU_VALID_BLOCKSIZE "1..1024"
#define SP_GPU_VALID_WARPS "32..1024:+32"
#define SP_GPU_VALID_HACK "1..65536"
/* Merge-path CSR: each warp takes a tile of 32 × SP_MERGE_ITEMS merge items
 * (row ends plus nonzeros). The tuning policy, kept apart from the kernel. */
#define SP_MERGE_ITEMS 8
#define SP_MERGE_TILE (32 * SP_MERGE_ITEMS)

/* The `blocksize` axis of p (default 128), checked against 1..1024, and a
 * multiple of 32 when warp_multiple (kernels that work in whole warps). */
int sp_gpu_blocksize(const char *kernel, const sp_params *p, int warp_multiple, int *bs,
                     sp_err *err);
/* The `hack` axis of p (default 32), checked against 1..65536. */
int sp_gpu_hack(const char *kernel, const sp_params *p, int *hack, sp_err *err);
/* HLL solution 2 (spmv_hll_cuda_staged) keeps one sum per row of its hack
 * in shared memory: hack values of the run's precision, at most the 48 KiB
 * a block gets without opting in to more. The hack of p checked
 * (sp_gpu_hack) and against that bound; -1 with the reason. */
#define SP_HLL_STAGED_SHARED (48 * 1024)
int sp_gpu_staged_hack(const char *kernel, const sp_params *p, int *hack, sp_err *err);
/* The `memory` axis of p (kernel.h, default device) into *memory:
 * SP_MEMORY_DEVICE or SP_MEMORY_MANAGED; -1 with the reason, naming the
 * kernel, for another value. */
int sp_gpu_memory(const char *kernel, const sp_params *p, int *memory, sp_err *err);
/* The `memory` values the kernels on the shared SpMV upload declare. */
#define SP_GPU_MEMORY "device"

/* The `lanes` axis (threads per row of the sub-warp kernel): 2, 4, 8, 16 or
 * 32, or 1 = auto (axis values are integers >= 1, and one lane per row is
 * spmv_csr_cuda_scalar): the largest power of two not above the mean row
 * length, kept within 2..32. Absent: auto. */
int sp_gpu_lanes(const sp_csr *A, const sp_params *p, int *lanes, sp_err *err);

/* Merge-path split of A into tiles of `tile` merge items: coords[2t] and
 * coords[2t+1] are the row and the nonzero where tile t starts, for
 * t = 0..*ntiles (the last pair is (rows, nnz)). free(*coords). */
int sp_merge_tiles(const sp_csr *A, int tile, int32_t **coords, int64_t *ntiles, sp_err *err);
int64_t sp_merge_tile_count(const sp_csr *A, int tile);

/* Hybrid CSR (spmv_csr_cuda_hybrid): rows of more than 32·lanes nonzeros
 * are "long" and cut into chunks of SP_HYBRID_CHUNK nonzeros, one warp
 * each; the others take a group of `lanes` threads. long_row[L] is the
 * row of long row L, its chunks are long_first[L] .. long_first[L+1]-1,
 * chunk_long[c] is the long row of chunk c. */
#define SP_HYBRID_CHUNK 2048
typedef struct sp_hybrid_plan {
    int32_t nlong, long_min;    /* long rows; a row is long above long_min */
    int64_t nchunks;
    int32_t *long_row;          /* nlong */
    int32_t *long_first;        /* nlong + 1 */
    int32_t *chunk_long;        /* nchunks */
} sp_hybrid_plan;
/* The long-row threshold for `lanes` threads per short row: 32·lanes. */
int32_t sp_hybrid_long_min(int lanes);
/* Count (no allocation) or build the plan; -1 with the reason. */
void sp_hybrid_count(const sp_csr *A, int32_t long_min, int32_t chunk, int32_t *nlong,
                     int64_t *nchunks);
int sp_hybrid_split(const sp_csr *A, int32_t long_min, int32_t chunk, sp_hybrid_plan *pl,
                    sp_err *err);
void sp_hybrid_plan_free(sp_hybrid_plan *pl);

/* SELL-C-σ (spmv_sell_cuda): perm[new] = old row, rows sorted by length,
 * longest first (ties in row order), inside each window of `sigma`
 * consecutive rows (sigma = 1: the identity). Then *P = A's rows in that
 * order (same columns). -1 with the reason (bad sigma, out of memory). */
int sp_sell_sigma(const sp_csr *A, int32_t sigma, int32_t **perm, sp_csr *P, sp_err *err);
/* Stored entries of the SELL-C-sigma layout (padding included) without
 * building it: row lengths sorted in windows, hacks of `hack` rows padded
 * to their longest. -1 with the reason past 2^31-1 entries. */
int sp_sell_sigma_plan(const sp_csr *A, int32_t sigma, int32_t hack, int64_t *stored,
                       sp_err *err);
/* The `sigma` axis of p (default 1), checked against 1..2^30. */
int sp_gpu_sigma(const char *kernel, const sp_params *p, int32_t *sigma, sp_err *err);

/* The row index of every nonzero of A (COO rows), OpenMP over rows.
 * free(*row). */
int sp_coo_rows(const sp_csr *A, int32_t **row, sp_err *err);

/* sp_gpu_array_bytes: kernels/kernel.h (every GPU family's need counts by it). */


/* sp_kernel.need of each family: device arrays (format, x, y, work) and the
 * host copy of a converted format. */
int sp_need_gpu_csr(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
int sp_need_gpu_merge(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
int sp_need_gpu_coo(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
int sp_need_gpu_ell(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
int sp_need_gpu_hll(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
/* The end of the need of a kernel with the `memory` axis: under managed
 * memory its device bytes counted on the host too (an upper bound: a
 * managed page may sit on either side); nothing under device. -1 with
 * the reason for a value of neither kind. */
int sp_need_gpu_managed(const sp_params *p, sp_need *need, sp_err *err);
/* sp_need_gpu_hll after sp_gpu_staged_hack's check. */
int sp_need_gpu_hll_staged(const sp_problem *pb, const sp_params *p, sp_need *need,
                           sp_err *err);
int sp_need_gpu_hybrid(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
int sp_need_gpu_sell_sigma(const sp_problem *pb, const sp_params *p, sp_need *need,
                           sp_err *err);
/* DIA (kernels/dia.h, spmv_dia.c): the layout's exact size by sp_dia_plan. */
int sp_need_gpu_dia(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);
/* The `rows_per_thread` axis of spmv_dia_cuda (default 1): 1, 2 or 4. */
int sp_gpu_rows_per_thread(const char *kernel, const sp_params *p, int *rpt, sp_err *err);
/* The cuSPARSE kernels: their format as above plus the library's buffer. */
int sp_need_cusparse_csr(const sp_problem *pb, const sp_params *p, sp_need *need,
                         sp_err *err);
int sp_need_cusparse_coo(const sp_problem *pb, const sp_params *p, sp_need *need,
                         sp_err *err);
int sp_need_cusparse_sell(const sp_problem *pb, const sp_params *p, sp_need *need,
                          sp_err *err);

/* ---- CUDA entry points (one .cu per kernel family) ------------------------
 * prepare: host only, no CUDA call: axes checked, the kernel's format built
 * in host memory the state owns and its device arrays recorded (the
 * harness times it as convert_s); upload: sp_spmv_gpu_upload (spmv.h),
 * every recorded array allocated (managed under `memory = managed`) and
 * copied on the harness's stream (h2d_s); analyse, where a kernel has device-side setup (convert_s);
 * launch: the kernels enqueued on the harness's stream (sp_exec), no clock
 * and no wait. result and release: spmv_gpu.cu. */
int sp_spmv_cuda_vector_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                sp_err *err);
int sp_spmv_cuda_subwarp_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                 sp_err *err);
int sp_spmv_cuda_vector_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_merge_prepare(const sp_problem *pb, const sp_params *p, void **state,
                               sp_err *err);
/* The tile kernel's shared memory for the `blocksize` axis (a setting of
 * the device's, so after the upload rather than in prepare). */
int sp_spmv_cuda_merge_analyse(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_merge_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_ell_prepare(const sp_problem *pb, const sp_params *p, void **state,
                             sp_err *err);
int sp_spmv_cuda_ell_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_hll_block_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                   sp_err *err);
int sp_spmv_cuda_hll_block_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_hll_warp_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                  sp_err *err);
int sp_spmv_cuda_hll_warp_launch(void *state, const sp_exec *ex, sp_err *err);
/* Study 002's one block per row (spmv_csr_cuda_block.cu) and its HLL
 * solutions 1 and 2 (spmv_hll_cuda_hack.cu). */
int sp_spmv_cuda_csr_block_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                   sp_err *err);
int sp_spmv_cuda_csr_block_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_hll_hack_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                  sp_err *err);
int sp_spmv_cuda_hll_hack_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_hll_staged_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                    sp_err *err);
int sp_spmv_cuda_hll_staged_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_hll_aligned_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                     sp_err *err);
int sp_spmv_cuda_hll_aligned_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_hybrid_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                sp_err *err);
int sp_spmv_cuda_hybrid_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_sell_prepare(const sp_problem *pb, const sp_params *p, void **state,
                              sp_err *err);
int sp_spmv_cuda_sell_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_dia_prepare(const sp_problem *pb, const sp_params *p, void **state,
                             sp_err *err);
int sp_spmv_cuda_dia_launch(void *state, const sp_exec *ex, sp_err *err);
/* cuSPARSE baselines; all analyse through sp_spmv_cusparse_analyse and
 * launch through sp_spmv_cusparse_launch (spmv.h). */
int sp_spmv_cusparse_csr_alg2_prepare(const sp_problem *pb, const sp_params *p,
                                      void **state, sp_err *err);
int sp_spmv_cusparse_coo_alg1_prepare(const sp_problem *pb, const sp_params *p,
                                      void **state, sp_err *err);
int sp_spmv_cusparse_coo_alg2_prepare(const sp_problem *pb, const sp_params *p,
                                      void **state, sp_err *err);
int sp_spmv_cusparse_sell_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                  sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
