/*
 * bsr.h — block sparse rows (BSR, MKL's and cuSPARSE's bsrmv format) built
 * from CSR, behind spmv_bsr_omp and spmv_bsr_avx512.
 *
 * The matrix is cut into b x b tiles on a grid aligned at (0, 0); every
 * tile holding at least one nonzero is stored whole, its b·b values row-
 * major, the tiles of a block row in ascending block column:
 *   block row I = rows I·b .. I·b+b-1, its blocks browptr[I] .. browptr[I+1]-1;
 *   block j: columns bcol[j]·b .., values val[j·b·b + r·b + c] = A(I·b+r, bcol[j]·b+c),
 *   0 where A has no such entry (and past the matrix's last row or column).
 * One column index stands for b·b values and x is read b entries at a
 * time from one place: a matrix made of dense b x b blocks (finite
 * elements with b degrees of freedom a node, e.g. bcsstk16's 3) moves
 * 8 + 4/b² bytes a nonzero instead of CSR's 12, with no gather. Elsewhere
 * the zeros in its blocks are the cost: the fill (stored values / nnz)
 * is the kernel's `need.stored`, which the sweep's max_fill caps.
 * Duplicate (row, col) entries of A are summed into one slot.
 *
 * Refused only when it cannot be expressed: block sizes outside
 * 1..SP_BSR_MAX_BLOCK, more than 2^31-1 blocks (32-bit block pointers), or
 * more values than 64-bit byte counts hold.
 */
#ifndef SP_BSR_H
#define SP_BSR_H

#include "../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_BSR_MAX_BLOCK 16

typedef struct sp_bsr {
    int32_t rows, cols, nnz;
    int32_t b;              /* block size */
    int32_t brows, bcols;   /* ceil(rows / b), ceil(cols / b) */
    int32_t nblocks;
    int64_t stored;         /* nblocks · b · b values */
    int32_t *browptr;       /* brows + 1 */
    int32_t *bcol;          /* nblocks, ascending within a block row */
    double *val;            /* stored */
} sp_bsr;

/* Size of A's layout in blocks of b without building it: one serial pass
 * with one int32 tag per block column (freed before returning; the
 * runner's parent calls it through `need`). *nblocks, *stored values and
 * *bytes of the layout's arrays. -1 with the reason for a bad b, past the
 * limits above, or out of memory for the tags. */
int sp_bsr_plan(const sp_csr *A, int32_t b, int32_t *nblocks, int64_t *stored,
                uint64_t *bytes, sp_err *err);

/* Work memory sp_bsr_from_csr allocates on top of the layout and frees
 * before returning, with `threads` threads: two int32 per block column
 * for each thread. */
uint64_t sp_bsr_work_bytes(const sp_csr *A, int32_t b, int threads);

/* Build B from A with blocks of b, OpenMP over block rows on `threads`
 * threads (each block row's block columns found, sorted, then its values
 * scattered). -1 with the reason on refusal or out of memory, B then empty. */
int sp_bsr_from_csr(sp_bsr *B, const sp_csr *A, int32_t b, int threads, sp_err *err);
void sp_bsr_free(sp_bsr *B);

#ifdef __cplusplus
}
#endif
#endif
