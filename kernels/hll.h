/*
 * hll.h — ELLPACK and sliced ELLPACK (HLL), built from CSR.
 *
 * Rows are grouped in hacks of `hack` consecutive rows; hack h is padded to
 * its own longest row, width[h] entries per row, and starts at off[h]:
 *   row-major     entry k of local row i at off[h] + i·width[h] + k
 *                 (only the hack's real rows are stored);
 *   column-major  entry k of local row i at off[h] + k·ld + i, with
 *                 ld = hack rounded up to 8 rows: every column of every
 *                 hack starts on a 64-byte boundary (val and col are
 *                 64-byte aligned), so a loop down one column is
 *                 contiguous, aligned and vectorizes.
 * ELLPACK is the column-major HLL with a single hack of all rows (one
 * width for the whole matrix).
 *
 * Padding slots repeat the row's last column (column 0 in an empty row)
 * with value 0: the padded products add ±0 to the sum, read x where the
 * row already read it, and never index outside x.
 *
 * A layout is refused (sp_hll_plan returns -1 with the reason) when its
 * stored entries do not fit 32-bit offsets or exceed SP_PAD_RATIO·nnz +
 * SP_PAD_SLACK, e.g. an ELLPACK of a matrix with one dense row.
 */
#ifndef SP_HLL_H
#define SP_HLL_H

#include "sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_PAD_RATIO 8          /* at most 8 stored entries per nonzero ... */
#define SP_PAD_SLACK (1 << 20)  /* ... plus 1 Mi entries (12 MiB) for small matrices */
#define SP_HACK_MAX 4096        /* bound of the `hack` axis */

typedef struct sp_hll {
    int32_t rows, cols;
    int32_t hack, nhacks;   /* rows per hack (>= 1), ceil(rows / hack) */
    int32_t ld;             /* column-major: rows stored per hack column */
    int colmajor;
    int32_t *width;         /* nhacks: entries per row in hack h */
    int32_t *off;           /* nhacks + 1: first entry of hack h; off[nhacks] = stored */
    int32_t *col;           /* stored entries, 64-byte aligned */
    double *val;
} sp_hll;

/* Size of the layout without building it: *stored entries and *bytes of
 * every array. hack = 0 means ELLPACK (one hack of all rows). -1 with the
 * reason when the layout is refused or hack is out of 0..SP_HACK_MAX. */
int sp_hll_plan(const sp_csr *A, int32_t hack, int colmajor, int64_t *stored,
                uint64_t *bytes, sp_err *err);

/* Build H from A (hack = 0: ELLPACK). -1 with the reason on refusal or
 * out of memory, H then empty. Uses OpenMP's default thread count. */
int sp_hll_from_csr(sp_hll *H, const sp_csr *A, int32_t hack, int colmajor, sp_err *err);
void sp_hll_free(sp_hll *H);

/* Rows in hack h (hack, or fewer in the last one). */
static inline int32_t sp_hll_hack_rows(const sp_hll *H, int32_t h)
{
    int64_t left = (int64_t)H->rows - (int64_t)h * H->hack;
    return left < H->hack ? (int32_t)left : H->hack;
}

#ifdef __cplusplus
}
#endif
#endif
