/*
 * spmv_adaptive.h — the row blocks of the adaptive CSR kernel
 * (spmv_csr_cuda_adaptive.cu), planned on the host in plain C so the plan
 * is unit-tested without CUDA.
 *
 * The rows are cut, in order, into blocks of one CUDA block each:
 *   a short block holds consecutive rows whose nonzeros all fit in the
 *     block's shared memory (at most `per_block` = blocksize · items), at
 *     most `blocksize` rows, and rows even enough that the group of lanes
 *     each row gets (lanes = blocksize / rows, a power of two, at most 32)
 *     sums its row in at most SP_ADAPTIVE_STEPS(items) steps;
 *   a row of more than per_block nonzeros is long: it is cut into chunks
 *     of per_block nonzeros, one block each, whose partial sums the block
 *     that finishes last adds in chunk order (no atomics on values: the
 *     same sum whoever is last).
 * One launch covers every block, so a matrix of power-law rows is balanced
 * by nonzeros without a second kernel or a host round trip.
 */
#ifndef SP_SPMV_ADAPTIVE_H
#define SP_SPMV_ADAPTIVE_H

#include "spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The `items` values (nonzeros per thread a block holds). */
#define SP_ADAPTIVE_ITEMS "1,2,4,8,16"
/* The largest blocksize · items: the products of one block in shared
 * memory, 32 KiB in double precision. */
#define SP_ADAPTIVE_MAX_PER_BLOCK 4096
/* The most summing steps a lane takes in a short block: as many as its
 * loads, and never fewer than 16 (rows of a few nonzeros). */
#define SP_ADAPTIVE_STEPS(items) ((items) * 2 > 16 ? (items) * 2 : 16)

/* One block of the plan. A short block: rows `first` .. first + rows - 1,
 * its nonzeros base .. base + n - 1. A chunk of a long row: rows = -(L+1)
 * for long row L, row `first`, nonzeros base .. base + n - 1. The layout
 * is CUDA's int4. */
typedef struct sp_adaptive_block {
    int32_t first, rows, base, n;
} sp_adaptive_block;

typedef struct sp_adaptive_plan {
    int32_t per_block;          /* blocksize · items */
    int64_t nblocks;
    sp_adaptive_block *block;   /* nblocks */
    int32_t nlong;              /* rows longer than per_block */
    int32_t *long_first;        /* nlong: the block of each long row's first chunk */
    int32_t *long_chunks;       /* nlong: its chunks */
} sp_adaptive_plan;

/* The `items` axis (default 8), checked against SP_ADAPTIVE_ITEMS and, with
 * blocksize, against SP_ADAPTIVE_MAX_PER_BLOCK; -1 with the reason. */
int sp_adaptive_items(const char *kernel, const sp_params *p, int blocksize, int *items,
                      sp_err *err);
/* The `loads` axis (SP_AXIS_LOADS, default auto) into *stream: 0 cached
 * (ordinary loads: the matrix stays in L2 for the next product), 1 stream
 * (evict-first: x keeps L2), 2 auto (sp_adaptive_streams on the device's
 * L2 size, in analyse); -1 with the reason. */
int sp_adaptive_stream(const char *kernel, const sp_params *p, int *stream, sp_err *err);
/* Whether the auto choice streams: the CSR, x and y (values of `value`
 * bytes) exceed the L2 of l2 bytes. */
int sp_adaptive_streams(int32_t rows, int32_t cols, int32_t nnz, int value, int64_t l2);
/* The lanes of a short block of `rows` rows: blocksize / rows rounded
 * down to a power of two, at most 32 (rows = 1: the whole block). */
int sp_adaptive_lanes(int blocksize, int32_t rows);
/* Count the blocks and the long rows (no allocation). */
void sp_adaptive_count(const sp_csr *A, int blocksize, int items, int64_t *nblocks,
                       int32_t *nlong);
/* Build the plan; -1 with the reason (out of memory, bad sizes). */
int sp_adaptive_split(const sp_csr *A, int blocksize, int items, sp_adaptive_plan *pl,
                      sp_err *err);
void sp_adaptive_plan_free(sp_adaptive_plan *pl);
/* sp_kernel.need: CSR, x, y, the plan, a partial per block, a counter per
 * long row. */
int sp_need_gpu_adaptive(const sp_problem *pb, const sp_params *p, sp_need *need,
                         sp_err *err);

/* CUDA entry points (spmv_csr_cuda_adaptive.cu): prepare (host only: the
 * plan built and recorded for the shared upload) and launch (one kernel
 * on the harness's stream). */
int sp_spmv_cuda_adaptive_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                  sp_err *err);
int sp_spmv_cuda_adaptive_analyse(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cuda_adaptive_launch(void *state, const sp_exec *ex, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
