/*
 * transpose_gpu.h — the GPU transposition kernels (issue 7), plain C so the
 * memory statements and the ScanTrans unit choice build (and are unit-
 * tested) without CUDA. Output in the operation's layout (transpose.h),
 * identical to the serial counting sort.
 *
 *   transpose_cuda_scatter    histogram of the columns (warp-aggregated
 *                             atomics), scan, a scatter through per-column
 *                             atomic cursors that ranks equal columns of a
 *                             warp in position order, then each column's
 *                             rows restored to ascending order: columns
 *                             out of order (or long) sorted by CUB's
 *                             segmented sort. Up to
 *                             SP_TRANS_SMALL_NNZ nonzeros: one launch
 *                             (transpose_small.cu).
 *   transpose_cuda_scantrans  ScanTrans: per-warp column counts
 *                             ((units + 1) x cols), vertical scan, scan,
 *                             write back in position order
 *   transpose_cuda_mergetrans MergeTrans: keys (column, position) sorted in
 *                             segments of 1024, merge rounds, pointers,
 *                             gather
 *   transpose_cub_sort        CUB radix sort of (column, position), gather
 *   transpose_cub_carry       CUB radix sort of keys (column << 32 | row)
 *                             over the column bits with the values as
 *                             payload: nothing gathered; rowidx and colptr
 *                             from the sorted keys
 *   transpose_cuda_wintrans   ScanTrans over column windows: rows split in
 *                             chunks of about `chunk` nonzeros (one block
 *                             each), counts only over each chunk's window
 *                             [min col, max col] (widened to monotone);
 *                             refused when they sum to more than the
 *                             budget (banded and stencil matrices only)
 *   transpose_cuda_symperm    structurally symmetric matrices: colptr =
 *                             rowptr, rowidx = colidx, each value gathered
 *                             from its mirror (rank guess, binary
 *                             search on a miss; `lookup` axis), one
 *                             pass; a missing mirror
 *                             (or rows != cols) falls back to the CUB
 *                             sort route (transpose_symperm.h)
 *   transpose_cuda_radix      an LSD radix sort of the nonzeros by column
 *                             carrying rows and values (digit_bits a pass,
 *                             default 8: three passes for 2^24 columns):
 *                             per pass a count of each tile's digits, a
 *                             scan, a stable scatter staged in shared
 *                             memory in digit order; pointers from the
 *                             sorted columns. Up to `small_nnz` nonzeros
 *                             (default SP_TRANS_SMALL_NNZ): the one-launch
 *                             paths of transpose_small.cu
 *   transpose_cusparse        cusparseCsr2cscEx2, default algorithm (baseline)
 *
 *
 * Every kernel takes the `precision` axis (double, single): in single the
 * device holds and moves float values (each kernel's value path is a
 * template on the value type, picked once by SP_TRANS_BY_VALUE in
 * transpose_gpu.cuh), prepare rounds A's values to float on the host,
 * cuSPARSE is asked for CUDA_R_32F, and result widens the CSC's values
 * to the operation's doubles; the memory statements below take the value
 * size (vb).
 *
 *   transpose_gpu_host.c      need, ScanTrans units, descriptors
 *   transpose_gpu.cu          the state, upload, result, release, cuSPARSE
 *   transpose_cuda_*.cu, transpose_cub_sort.cu   the kernels
 *   transpose_small.cu        one launch for small matrices (scatter and
 *                             radix): a cluster of 8 blocks, or one block
 *   transpose_wintrans_host.c the window plan (chunks, W, refusals)
 *   transpose_symperm_host.c  the symmetric fast path's need, descriptor
 *   transpose_radix_host.c    the radix route's plan (passes, digits), need
 */
#ifndef SP_TRANSPOSE_GPU_H
#define SP_TRANSPOSE_GPU_H

#include "transpose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of one value on the device at a precision: 8 (double) or 4
 * (single: the kernels move float). */
static inline uint64_t sp_trans_val_bytes(sp_precision prec)
{
    return prec == SP_SINGLE ? 4 : 8;
}

/* The device CSC in one buffer, the output's layout with vb-byte values:
 * val[nnz] (padded to 8 bytes), colptr[cols + 1], rowidx[nnz]; in double
 * byte for byte the host's (sp_csc_bytes). */
static inline uint64_t sp_trans_csc_dev_bytes(int32_t nnz, int32_t cols, uint64_t vb)
{
    return ((uint64_t)nnz * vb + 7) / 8 * 8 + ((uint64_t)cols + 1) * 4 + (uint64_t)nnz * 4;
}

/* Host bytes of a GPU transposition state: its few bytes, and in single
 * A's values rounded to float (prepare's conversion). */
static inline uint64_t sp_trans_gpu_host_bytes(const sp_csr *A, uint64_t vb)
{
    return 4096 + (vb == 4 ? (uint64_t)A->nnz * 4 : 0);
}

/* The `precision` of p for a GPU transposition kernel, as a value size
 * (vb: sp_trans_val_bytes); -1 with the reason for no precision. */
int sp_trans_gpu_vb(const char *kernel, const sp_params *p, uint64_t *vb, sp_err *err);

/* The `blocksize` values of the CUDA transposition kernels. */
#define SP_TRANS_BLOCKSIZES "64,128,256,512,1024"
/* what they take at all (sp_axis.valid): powers of two, 64 to 1024 */
#define SP_TRANS_VALID_BLOCKSIZE "64..1024:*2"
/* Up to this many nonzeros (and fewer than 2^20 columns) the scatter and
 * radix kernels transpose in one launch (transpose_small.cu). */
#define SP_TRANS_SMALL_NNZ 8192
#define SP_TRANS_SMALL_NNZ_S "8192"
#define SP_TRANS_SMALL_COLS (1 << 20)
/* Columns up to this long are checked by one thread each (and sorted only
 * when out of order); longer ones are always sorted. */
#define SP_TRANS_SHORT_COL 32
/* Positions each thread of the scatter handles per tile. */
#define SP_TRANS_ITEMS 8
/* ScanTrans: the per-unit column counts may take this many bytes; a unit
 * (one warp) per SP_SCANTRANS_CHUNK nonzeros when they fit. */
#define SP_SCANTRANS_BUDGET (4ull << 30)
#define SP_SCANTRANS_CHUNK 4096

/* Windowed ScanTrans: the `chunk` axis (nonzeros per chunk) and its
 * limits; the window counts W = sum of the chunks' window widths may take
 * up to 2 x nnz + SP_WINTRANS_SLACK ints; a launch keeps the window in
 * shared memory when the widest fits SP_WINTRANS_SMEM bytes. */
#define SP_WINTRANS_CHUNKS "16384,65536"
#define SP_WINTRANS_CHUNK_MIN 256
#define SP_WINTRANS_CHUNK_MAX (1l << 26)
#define SP_WINTRANS_SLACK 65536
#define SP_WINTRANS_SMEM (96 << 10)

/* The chunks of rows and their column windows. Chunk c holds the rows
 * [row_start(c), row_start(c + 1)): row_start(c) is the first row whose
 * first position is >= c x chunk (0 for c = 0, rows for c = chunks), so
 * every chunk holds about `chunk` nonzeros (rows are never split). A
 * chunk's window is [min over its rows of the first column, max of the
 * last] (rows are sorted), then widened to be monotone over the chunks
 * with entries: lo = the least lo from the chunk on, hi = the greatest hi
 * up to it (so the chunks covering a column are consecutive); a chunk
 * without entries has none. */
typedef struct sp_wintrans_plan {
    int64_t chunk;          /* nonzeros per chunk (the axis) */
    int32_t chunks;         /* C = max(1, ceil(nnz / chunk)) */
    int64_t width;          /* W = sum of the window widths */
    int32_t max_width;      /* the widest window */
    int64_t budget;         /* the most W may be */
} sp_wintrans_plan;

int32_t sp_wintrans_chunks(int32_t nnz, int64_t chunk);
int32_t sp_wintrans_row_start(const sp_csr *A, int64_t chunk, int32_t chunks, int32_t c);
/* Chunk c's raw window into lo, hi; returns 0 when it has no entries. */
int sp_wintrans_window(const sp_csr *A, const sp_wintrans_plan *pl, int32_t c, int32_t *lo,
                       int32_t *hi);
/* The plan of A at `chunk` (W and the widest over the widened windows);
 * -1 with the reason when W is above the budget. */
int sp_wintrans_plan_of(const sp_csr *A, int64_t chunk, sp_wintrans_plan *pl, sp_err *err);
/* The `chunk` axis (default 16384), in SP_WINTRANS_CHUNK_MIN..MAX. */
int sp_wintrans_chunk(const char *kernel, const sp_params *p, int64_t *chunk, sp_err *err);
uint64_t sp_trans_gpu_bytes_wintrans(const sp_csr *A, const sp_wintrans_plan *pl, int bs,
                                     uint64_t vb);

/* The radix route: tiles of SP_RADIX_TILE positions (one block of
 * SP_RADIX_WARPS warps, each a run of SP_RADIX_TILE / SP_RADIX_WARPS), the
 * `digit_bits` axis (the most bits a pass sorts) and its limits. */
#ifndef SP_RADIX_WARPS
#define SP_RADIX_WARPS 8
#endif
#define SP_RADIX_TILE 4096
#define SP_RADIX_DIGIT_MIN 1
#define SP_RADIX_DIGIT_MAX 12
#define SP_RADIX_DIGITS "8,10,11"
#define SP_RADIX_DIGIT_DEFAULT 8

/* A's column index bits split into passes: bits = the bits of cols - 1
 * (at least 1), passes = ceil(bits / digit_max), every pass `digit` =
 * ceil(bits / passes) bits but the last (the rest); tiles = ceil(nnz /
 * SP_RADIX_TILE) (at least 1). */
typedef struct sp_radix_plan {
    int bits, passes, digit;
    int32_t tiles;
} sp_radix_plan;

void sp_radix_plan_of(int32_t cols, int32_t nnz, int digit_max, sp_radix_plan *pl);
/* The `digit_bits` axis (default SP_RADIX_DIGIT_DEFAULT), in
 * SP_RADIX_DIGIT_MIN..SP_RADIX_DIGIT_MAX. */
int sp_radix_digit(const char *kernel, const sp_params *p, int *digit, sp_err *err);
/* The `small_nnz` axis: matrices of at most this many nonzeros (and fewer
 * than SP_TRANS_SMALL_COLS columns) take the one-launch path; 1 ..
 * SP_TRANS_SMALL_NNZ, default SP_TRANS_SMALL_NNZ (1: the passes for all
 * but nnz <= 1). */
int sp_radix_small_nnz(const char *kernel, const sp_params *p, int32_t *most, sp_err *err);
uint64_t sp_trans_gpu_bytes_radix(const sp_csr *A, const sp_radix_plan *pl, uint64_t vb);

/* ScanTrans's unit count on A with `budget` bytes for its (units + 1) x
 * cols counts; -1 with the reason when not even one unit fits. */
int sp_scantrans_gpu_units(const sp_csr *A, uint64_t budget, int32_t *units, sp_err *err);

/* transpose_cuda_scantrans's unit count from its `scan_threads` axis
 * (kernel.h) on A, within `budget` bytes of counts; -1 with the reason
 * (naming the value) when it does not fit. auto needs the device's
 * occupancy block size: *units = SP_SCAN_THREADS_AUTO, resolved in upload
 * by sp_scantrans_auto_units, after checking here that the fewest units
 * auto can give (max(rows, cols)) fit. */
int sp_scantrans_gpu_axis_units(const sp_csr *A, const sp_params *p, uint64_t budget,
                                int32_t *units, sp_err *err);
/* auto's units: max(rows, cols) rounded up to whole blocks of `bs`
 * threads (the study's grid from cudaOccupancyMaxPotentialBlockSize);
 * -1 with the reason when they do not fit the budget. */
int sp_scantrans_auto_units(const sp_csr *A, int bs, uint64_t budget, int32_t *units,
                            sp_err *err);

/* The `blocksize` axis of the CUDA transposition kernels (default 256). */
int sp_trans_gpu_blocksize(const char *kernel, const sp_params *p, int *bs, sp_err *err);

/* Device bytes of each kernel (the CSR in, the CSC out, its work arrays)
 * with vb-byte values (sp_trans_val_bytes: 8 in double, 4 in single); the
 * sp_kernel.need functions add the host side. */
uint64_t sp_trans_gpu_bytes_scatter(const sp_csr *A, uint64_t vb);
uint64_t sp_trans_gpu_bytes_scantrans(const sp_csr *A, int32_t units, int bs, uint64_t vb);
uint64_t sp_trans_gpu_bytes_mergetrans(const sp_csr *A, uint64_t vb);
uint64_t sp_trans_gpu_bytes_cub(const sp_csr *A, uint64_t vb);
uint64_t sp_trans_gpu_bytes_carry(const sp_csr *A, uint64_t vb);
uint64_t sp_trans_gpu_bytes_cusparse(const sp_csr *A, uint64_t vb);
/* The symmetric fast path: the CUB route's bytes (its fallback) and the
 * flag. */
uint64_t sp_trans_gpu_bytes_symperm(const sp_csr *A, uint64_t vb);

/* transpose_cuda_symperm's `lookup` axis: how a slot finds its mirror
 * and stores it. */
enum sp_symperm_lookup {
    SP_SYMPERM_SEARCH = 1,     /* binary search over the mirror row */
    SP_SYMPERM_GUESS = 2,      /* the rank guess (transpose_symperm.h), search on a miss */
    SP_SYMPERM_GUESS_EF = 3,   /* 2 with evict-first stores of the CSC */
    SP_SYMPERM_PAIR = 4,       /* 2, two slots a thread in flight, value read with the guess */
    SP_SYMPERM_PAIR_EF = 5     /* 4 with evict-first stores */
};
/* The sweep's default and the parameter's: pair-ef, the fastest lookup at
 * every block size on the band, the 5-point 3000^2 and the 27-point 160^3
 * but one (the 27-point at 128: pair 1.893 ms, pair-ef 1.944); H100,
 * session 5: 1.858 ms on the 27-point against 3.746 for the search
 * (kernels/transpose/transpose_cuda_symperm.cu). */
#define SP_SYMPERM_LOOKUPS "5"
#define SP_SYMPERM_LOOKUP_DEFAULT SP_SYMPERM_PAIR_EF
/* The `lookup` axis (default SP_SYMPERM_LOOKUP_DEFAULT), in 1..5. */
int sp_symperm_lookup_axis(const char *kernel, const sp_params *p, int *lookup, sp_err *err);

/* The route a transpose_cuda_symperm launch took. */
enum sp_symperm_route {
    SP_SYMPERM_NONE = 0,        /* not launched yet */
    SP_SYMPERM_MIRROR = 1,      /* the symmetric pass alone */
    SP_SYMPERM_FALLBACK = 2,    /* a mirror was missing: the pass, then CUB sort */
    SP_SYMPERM_RECTANGULAR = 3  /* rows != cols: CUB sort alone */
};

/* ---- CUDA entry points ---------------------------------------------------
 * The steps of sp_kernel (kernel.h); the harness times each of them, no
 * step reads a clock:
 *   prepare  host only, no CUDA call: the axes checked (a bad one refused
 *            here, before the device is touched), the kernel's host plan
 *            (ScanTrans's units, the window plan, the radix passes), the
 *            state; *state stays NULL on a refusal
 *   upload   the CSR and the CSC allocated on the device and the CSR
 *            copied there on ex->stream, then the kernel's work arrays and
 *            CUB's temporary storage (the window kernel's flag cleared)
 *   analyse  only where there is device-side setup beyond that: cuSPARSE's
 *            handle and buffer; the shared-memory limits of the window,
 *            radix and one-launch kernels and the cluster probe
 *   launch   the whole transposition enqueued on ex->stream, every output
 *            array rewritten
 *   result   the CSC copied back on ex->stream (the window kernel first
 *            reads its device check)
 *   release  whatever was made freed, from any state a step left (a lone
 *            or failed prepare touches no device)
 * result and release are shared (transpose_gpu.cu) but for the window
 * kernel's result. */
int sp_trans_scatter_prepare(const sp_problem *pb, const sp_params *p, void **state,
                             sp_err *err);
int sp_trans_scatter_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_scatter_analyse(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_scatter_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_scantrans_prepare(const sp_problem *pb, const sp_params *p, void **state,
                               sp_err *err);
int sp_trans_scantrans_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_scantrans_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_mergetrans_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                sp_err *err);
int sp_trans_mergetrans_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_mergetrans_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_wintrans_prepare(const sp_problem *pb, const sp_params *p, void **state,
                              sp_err *err);
int sp_trans_wintrans_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_wintrans_analyse(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_wintrans_launch(void *state, const sp_exec *ex, sp_err *err);
/* Fails when the last launch found the device's windows disagreeing with
 * the plan; else sp_trans_gpu_result. */
int sp_trans_wintrans_result(void *state, void *out, const sp_exec *ex, sp_err *err);
int sp_trans_cub_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err);
int sp_trans_cub_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_cub_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_carry_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err);
int sp_trans_carry_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_carry_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_symperm_prepare(const sp_problem *pb, const sp_params *p, void **state,
                             sp_err *err);
int sp_trans_symperm_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_symperm_launch(void *state, const sp_exec *ex, sp_err *err);
/* The route of the state's last launch (enum sp_symperm_route). */
int sp_trans_symperm_route(const void *state);
int sp_trans_radix_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err);
int sp_trans_radix_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_radix_analyse(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_radix_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_cusparse_prepare(const sp_problem *pb, const sp_params *p, void **state,
                              sp_err *err);
int sp_trans_cusparse_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_cusparse_analyse(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_cusparse_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_trans_gpu_result(void *state, void *out, const sp_exec *ex, sp_err *err);
void sp_trans_gpu_release(void *state);

#ifdef __cplusplus
}
#endif
#endif
