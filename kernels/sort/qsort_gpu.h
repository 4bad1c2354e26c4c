/*
 * qsort_gpu.h — three GPU quicksort designs for 32-bit unsigned keys with
 * optional 32-bit values, sorted in place in device memory (issue 8):
 *
 *   thread  one thread per subproblem, levels launched from the host;
 *   block   one block per tile of a subproblem sliding a window over it,
 *           levels launched from the host, buckets up to `cutoff` finished
 *           by a block-local sort in shared memory;
 *   queue   no host round trips: a device-side work queue of subproblems
 *           served by a persistent grid.
 *
 * All three partition a subproblem into up to 511 buckets per pass with
 * sampled pivots (up to 255 splitters, 16 samples per bucket): a bucket
 * between two splitters, and a bucket of the keys EQUAL to each splitter,
 * which is finished at once (three-way partitioning generalised), so sorted,
 * reverse, all-equal and few-unique inputs never go quadratic. A binary
 * partition level moves every key and value once; at 2^28 pairs that is
 * 4 GiB of traffic, so log2(n) binary levels could not keep up with a radix
 * sort, and few wide levels can. None of the designs is stable.
 *
 * The option checks and the workspace arithmetic are plain C
 * (qsort_opts.c) and build without CUDA; the sorts need SP_HAVE_CUDA.
 */
#ifndef SP_QSORT_GPU_H
#define SP_QSORT_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "../../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stream type without the CUDA headers (the same typedef as theirs),
 * so C files that do not see CUDA can include this header. */
struct CUstream_st;
typedef struct CUstream_st *cudaStream_t;

/* blocksize: threads per block (a multiple of 32, 32..1024);
 * window: keys a block stages in shared memory per step of its slide
 * (blocksize..SP_QSORT_WINDOW_MAX); cutoff: block, queue: the largest
 * bucket finished by the block-local sort (16..8192, at most 16 per
 * thread as a power of two times blocksize, and it must fit shared
 * memory); thread: the largest subproblem handed to one thread
 * (16..SP_QSORT_THREAD_CUTOFF_MAX; longer ones are split by wide passes
 * first). Wide passes aim at buckets of cutoff / 2. */
typedef struct sp_qsort_opts {
    int blocksize, window, cutoff;
} sp_qsort_opts;

typedef enum sp_qsort_design { SP_QSORT_THREAD, SP_QSORT_BLOCK, SP_QSORT_QUEUE } sp_qsort_design;

/* ---- tuning constants (the policy, kept apart from the kernels) ------- */
#define SP_QSORT_SPLITTERS 255        /* at most, per partition pass */
#define SP_QSORT_BUCKETS 511          /* 2 * splitters + 1 */
#define SP_QSORT_SAMPLES_MAX 4096     /* sorted in shared memory per subproblem */
#define SP_QSORT_TILE_WINDOWS 8       /* a tile of a level is 8 windows */
#define SP_QSORT_COPY_CHUNK 65536     /* keys one block copies */
#define SP_QSORT_THREAD_INSERTION 16  /* thread: insertion sort up to this many keys */
#define SP_QSORT_THREAD_CUTOFF_MAX (1 << 20)
#define SP_QSORT_THREAD_DEPTH 64      /* thread: deeper subproblems are heap-sorted */
#define SP_QSORT_MAX_LEVELS 32        /* wide passes before giving up (never seen) */
#define SP_QSORT_WINDOW_MAX 8192
#define SP_QSORT_LEAF_ITEMS_MAX 16    /* keys per thread of the block-local sort, */
#define SP_QSORT_LEAF_CAP 8192        /* and keys per block (registers: 16 x 512) */
#define SP_QSORT_SMEM_MAX (227 * 1024) /* dynamic shared memory of one sm_90 block */
#define SP_QSORT_N_MAX 2147483647LL   /* keys addressed with 32-bit bucket offsets */

/* Names "thread", "block", "queue"; NULL for others. */
const char *sp_qsort_design_name(sp_qsort_design d);
int sp_qsort_design_find(const char *name, sp_qsort_design *d);

/* The default options of a design. */
sp_qsort_opts sp_qsort_defaults(sp_qsort_design d);

/* 0 when o suits design d; else -1 with a message naming the parameter. */
int sp_qsort_check_opts(sp_qsort_design d, const sp_qsort_opts *o, sp_err *err);

/* Shared memory (bytes) of the partition block, the block-local sort and
 * the queue's persistent block at these options. */
size_t sp_qsort_smem_scatter(int window);
/* ... of the partition block when its window (8 keys per thread) is held
 * in registers (qsort_dev.cuh: QS_SCATTER_ITEMS). */
size_t sp_qsort_smem_scatter_regs(int window);
size_t sp_qsort_smem_leaf(int blocksize, int cutoff);
size_t sp_qsort_smem_queue(int blocksize, int window, int cutoff);
/* Keys per thread of the block-local sort: the power of two >= cutoff/blocksize. */
int sp_qsort_leaf_items(int blocksize, int cutoff);

/* Where each array lies in the workspace, and its capacity (entries). */
typedef struct sp_qsort_layout {
    size_t tmp_keys, tmp_vals, segs[2], info, splitters, cnt, part, leaf, ctr, tl[2], queue;
    int64_t seg_cap, tile, tile_cap, cnt_cap, part_cap, leaf_cap, tl_cap, queue_cap;
    int64_t target; /* the bucket size a wide pass aims at twice over */
    size_t total;
} sp_qsort_layout;

/* The layout of design d's workspace for n keys (with values when
 * with_vals); -1 with a message for bad options or n. */
int sp_qsort_plan(sp_qsort_design d, int64_t n, int with_vals, const sp_qsort_opts *o,
                  sp_qsort_layout *L, sp_err *err);

/* Device bytes of workspace; 0 for bad options or n (see sp_qsort_plan). */
size_t sp_qsort_thread_workspace(int64_t n, int with_vals, const sp_qsort_opts *o);
size_t sp_qsort_block_workspace(int64_t n, int with_vals, const sp_qsort_opts *o);
size_t sp_qsort_queue_workspace(int64_t n, int with_vals, const sp_qsort_opts *o);

/* Sort keys[0..n) (and vals alongside, unless NULL) in place; all device
 * pointers; workspace of the size above. Asynchronous on `stream` except
 * for the host-driven designs' (thread, block) small reads of counters
 * between levels, each a cudaStreamSynchronize of `stream`.
 * -1 with a message on bad options or a CUDA failure. */
int sp_qsort_thread(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                    const sp_qsort_opts *o, cudaStream_t stream, sp_err *err);
int sp_qsort_block(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                   const sp_qsort_opts *o, cudaStream_t stream, sp_err *err);
int sp_qsort_queue(uint32_t *keys, uint32_t *vals, int64_t n, void *workspace,
                   const sp_qsort_opts *o, cudaStream_t stream, sp_err *err);

/* Host arrays in, host arrays out: allocate, upload, sort with design d,
 * download, free (the GPU tests use it). Fails without CUDA. */
int sp_qsort_host(sp_qsort_design d, uint32_t *keys, uint32_t *vals, int64_t n,
                  const sp_qsort_opts *o, sp_err *err);

#ifdef __cplusplus
}
#endif

#endif
