/*
 * transpose_symperm.h — the per-position steps of transpose_cuda_symperm,
 * compiled for the device (transpose_cuda_symperm.cu) and for the host
 * (the serial model in tests/test_transpose_gpu.c), so the model runs the
 * kernel's own searches.
 *
 * A structurally symmetric A (A(i,j) stored <=> A(j,i) stored; rows
 * sorted, columns unique) has CSC colptr = rowptr, rowidx = colidx: column
 * j holds the rows i of the entries (j, i) of row j, ascending. Only the
 * values move. CSC slot q (row j of the CSR, colidx[q] = i: the entry
 * A(i, j) of column j) takes val[p], p the position of (i, j) in row i:
 * the mirror of q. The map is an involution on the positions, so the
 * kernel gathers (coalesced writes of cval and rowidx, reads of val near
 * q for banded and stencil matrices) and every slot is written once. A q
 * whose mirror is missing proves A not symmetric: the kernel raises a
 * flag and the run falls back to the CUB sort route.
 *
 * The kernel's work split (the scatter kernel's): tiles of
 * SP_SYMPERM_ITEMS x blocksize consecutive positions, one block each; the
 * rowptr entries of the rows the tile covers staged in shared memory when
 * they number at most the tile + 1 (always so without empty rows), the row of a
 * position found there by binary search, else in rowptr.
 */
#ifndef SP_TRANSPOSE_SYMPERM_H
#define SP_TRANSPOSE_SYMPERM_H

#include <stdint.h>

#ifdef __CUDACC__
#define SP_SYM_FN static __host__ __device__ __forceinline__
#else
#define SP_SYM_FN static inline
#endif

/* Positions per thread of a tile. */
#define SP_SYMPERM_ITEMS 8

/* The largest r < len with ptr[r] <= k (ptr ascending, ptr[0] <= k). */
SP_SYM_FN int32_t sp_symperm_segment(const int32_t *ptr, int32_t len, int64_t k)
{
    int32_t lo = 0, hi = len;
    while (hi - lo > 1) {
        int32_t mid = lo + (hi - lo) / 2;
        if (ptr[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The tile [k0, k1) (k0 < k1 <= nnz): its first row *r0 and the length
 * *len of the slice rowptr[r0 .. r0 + len) that bounds its rows (the
 * rows of k0 .. k1 - 1 and the pointer past the last). */
SP_SYM_FN void sp_symperm_tile_rows(const int32_t *rowptr, int32_t rows, int64_t k0, int64_t k1,
                                    int32_t *r0, int32_t *len)
{
    *r0 = sp_symperm_segment(rowptr, rows + 1, k0);
    *len = sp_symperm_segment(rowptr, rows + 1, k1 - 1) - *r0 + 2;
}

/* The stage of a tile: stage[0 .. len) = rowptr[r0 .. r0 + len), or
 * NULL (not staged: rowptr searched instead). */
typedef struct sp_symperm_stage {
    const int32_t *stage;
    int32_t r0, len;
} sp_symperm_stage;

/* The row of position k of the tile. */
SP_SYM_FN int32_t sp_symperm_row_of(const int32_t *rowptr, int32_t rows, sp_symperm_stage s,
                                    int64_t k)
{
    return s.stage ? s.r0 + sp_symperm_segment(s.stage, s.len, k)
                   : sp_symperm_segment(rowptr, rows + 1, k);
}

/* The position of column j in row i, or -1 (row i's bounds from the
 * stage when it holds them; lower bound over the sorted columns). */
SP_SYM_FN int32_t sp_symperm_find(const int32_t *rowptr, const int32_t *colidx,
                                  sp_symperm_stage s, int32_t i, int32_t j)
{
    int32_t a, b;
    uint32_t d = (uint32_t)(i - s.r0);   /* rows r0 .. r0 + len - 2 are staged */
    if (s.stage && d < (uint32_t)s.len - 1u) {
        a = s.stage[d];
        b = s.stage[d + 1];
    } else {
        a = rowptr[i];
        b = rowptr[i + 1];
    }
    const int32_t end = b;
    while (a < b) {
        int32_t mid = a + (b - a) / 2;
        if (colidx[mid] < j)
            a = mid + 1;
        else
            b = mid;
    }
    return a < end && colidx[a] == j ? a : -1;
}

#endif
