/*
 * hll.h — sliced ELLPACK (HLL, cuSPARSE's SELL) built from CSR: the one
 * conversion behind every padded SpMV kernel — the CPU ELLPACK, HLL and
 * HLL-aligned kernels, the GPU ELL and HLL kernels and cuSPARSE SELL.
 *
 * Rows are grouped in hacks (slices) of `hack` consecutive rows; hack h is
 * padded to its own longest row, width[h] entries per row, and stores
 * ld · width[h] entries from off[h], where ld is the hack rounded up to a
 * multiple of `align` rows (rows past the matrix's last one, and the
 * alignment rows, are all padding):
 *   row-major     entry k of local row r at off[h] + r·width[h] + k;
 *   column-major  entry k of local row r at off[h] + k·ld + r: a loop down
 *                 one column is contiguous (coalesced on a GPU, one vector
 *                 on a CPU); with align = SP_HLL_ALIGN_ROWS (16) and val,
 *                 col 64-byte aligned, every column of every hack starts
 *                 on a 64-byte boundary in both arrays.
 * ELLPACK is the column-major layout with a single hack of all rows
 * (hack = 0 in the options). width[h] = (off[h+1] - off[h]) / ld always.
 *
 * Padding has value 0 and only ever follows a row's real entries; its
 * column is, by option, the row's last column (column 0 in an empty or
 * phantom row: the padded products add ±0, read x where the row already
 * read it and never index outside x, so a CPU loop needs no branch) or -1
 * (cuSPARSE's convention; the GPU kernels skip it by predicate).
 *
 * When is a layout refused? Only when it cannot be expressed: more than
 * 2^31-1 stored entries overflow the 32-bit offsets (cuSPARSE takes them
 * as int32). Otherwise whether it fits is the rule every kernel follows:
 * the kernels' `need` functions state the padded bytes (sp_hll_plan) and
 * the runner skips the combination, with both numbers, when they exceed
 * the free host memory (MemAvailable) or the free device memory. So a
 * padded format runs wherever it fits — HLL on R-MAT included — and the
 * ratio of stored entries to nonzeros is reported, not a reason to refuse.
 */
#ifndef SP_HLL_H
#define SP_HLL_H

#include "../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_HACK_MAX 65536       /* bound of the `hack` axis, CPU and GPU */

/* Padding column: the row's last one, or -1. */
enum { SP_HLL_PAD_REPEAT = 0, SP_HLL_PAD_NEG = 1 };

/* The options of one layout. */
typedef struct sp_hll_opts {
    int32_t hack;       /* rows per hack, 1..SP_HACK_MAX; 0: ELLPACK */
    int colmajor;       /* 1: column-major inside each hack */
    int32_t align;      /* ld = hack rounded up to a multiple of align (>= 1) */
    int pad;            /* SP_HLL_PAD_REPEAT or SP_HLL_PAD_NEG */
} sp_hll_opts;

/* The CPU column-major kernels tell the compiler (`omp simd aligned`)
 * that every column of every hack starts on an SP_HLL_ALIGN_BYTES
 * boundary, in val (8-byte entries) and col (4-byte entries) alike. That
 * holds by construction when val and col are so aligned (sp_hll_from_csr
 * allocates them so) and ld is a multiple of SP_HLL_ALIGN_ROWS rows, the
 * rows that fill SP_HLL_ALIGN_BYTES of the narrower array: then off[h] and
 * k·ld are multiples too. (8 rows, the first choice, kept val aligned but
 * put col's odd columns 32 bytes off: aligned 512-bit loads of col faulted
 * on AVX-512 machines.) */
#define SP_HLL_ALIGN_BYTES 64
#define SP_HLL_ALIGN_ROWS ((int32_t)(SP_HLL_ALIGN_BYTES / sizeof(int32_t)))

/* The layouts the kernels use. CPU: padding repeats the last column; the
 * aligned (column-major) ones round hacks to SP_HLL_ALIGN_ROWS rows. GPU
 * and cuSPARSE: column -1, ld = hack. */
static inline sp_hll_opts sp_hll_cpu(int32_t hack, int colmajor)
{
    sp_hll_opts o = {hack, colmajor, colmajor ? SP_HLL_ALIGN_ROWS : 1, SP_HLL_PAD_REPEAT};
    return o;
}
static inline sp_hll_opts sp_hll_gpu(int32_t hack, int colmajor)
{
    sp_hll_opts o = {hack, colmajor, 1, SP_HLL_PAD_NEG};
    return o;
}

typedef struct sp_hll {
    int32_t rows, cols, nnz;
    int32_t hack, nhacks;   /* rows per hack (>= 1), ceil(rows / hack) */
    int32_t ld;             /* rows stored per hack (hack rounded up to align) */
    int colmajor, pad;
    int64_t stored;         /* entries, padding included = off[nhacks] */
    int32_t *width;         /* nhacks: entries per row in hack h */
    int32_t *off;           /* nhacks + 1: first entry of hack h */
    int32_t *col;           /* stored entries, SP_HLL_ALIGN_BYTES aligned */
    double *val;
} sp_hll;

/* Rows stored per hack: the hack rounded up to a multiple of align. */
int64_t sp_hll_ld(int32_t hack, int32_t align);

/* Size of the layout without building it (pure arithmetic, serial: the
 * runner's parent calls it through `need`): *stored entries and *bytes of
 * every host array. -1 with the reason for bad options or a layout past
 * the 32-bit offsets. Messages name the format ("ELLPACK", "HLL"). */
int sp_hll_plan(const sp_csr *A, const sp_hll_opts *o, int64_t *stored, uint64_t *bytes,
                sp_err *err);

/* Build H from A (OpenMP over rows). -1 with the reason on refusal or out
 * of memory, H then empty. */
int sp_hll_from_csr(sp_hll *H, const sp_csr *A, const sp_hll_opts *o, sp_err *err);
void sp_hll_free(sp_hll *H);

/* Does the layout keep the column-major kernels' claim: val and col
 * aligned to `bytes`, and ld a multiple of the rows that make `bytes` in
 * both (so every column of every hack, and every strip of SP_ELL_STRIP rows
 * inside it, starts aligned)? 0 for a row-major layout, which claims
 * nothing. */
static inline int sp_hll_columns_aligned(const sp_hll *H, size_t bytes)
{
    return H->colmajor && sp_is_aligned(H->val, bytes) && sp_is_aligned(H->col, bytes) &&
           ((size_t)H->ld * sizeof(int32_t)) % bytes == 0;
}

/* Real rows in hack h (hack, or fewer in the last one). */
static inline int32_t sp_hll_hack_rows(const sp_hll *H, int32_t h)
{
    int64_t left = (int64_t)H->rows - (int64_t)h * H->hack;
    return left < H->hack ? (int32_t)left : H->hack;
}

#ifdef __cplusplus
}
#endif
#endif
