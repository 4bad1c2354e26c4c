/*
 * transpose_symperm.h — the per-position steps of transpose_cuda_symperm,
 * compiled for the device (transpose_cuda_symperm.cu) and for the host
 * (the serial model in tests/test_transpose_gpu.c), so the model runs the
 * kernel's own guesses and searches (the pair lookups of the kernel
 * combine the same steps, sp_symperm_bounds, _guess and _search, in an
 * order of their own, checked on the GPU only).
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
 * flag and the launch falls back to the CUB sort route.
 *
 * The kernel's work split (the scatter kernel's): tiles of
 * SP_SYMPERM_ITEMS x blocksize consecutive positions, one block each; the
 * rowptr entries of the rows the tile covers staged in shared memory when
 * they number at most the tile + 1 (always so without empty rows), the
 * row of a position found there by binary search, else in rowptr.
 */
#ifndef SP_TRANSPOSE_SYMPERM_H
#define SP_TRANSPOSE_SYMPERM_H

#include <stdint.h>

#include "../prim/segment.h"

#ifdef __CUDACC__
#define SP_SYM_FN static __host__ __device__ __forceinline__
#else
#define SP_SYM_FN static inline
#endif

/* Positions per thread of a tile. */
#define SP_SYMPERM_ITEMS 8

/* The tile [k0, k1) (k0 < k1 <= nnz): its first row *r0 and the length
 * *len of the slice rowptr[r0 .. r0 + len) that bounds its rows (the
 * rows of k0 .. k1 - 1 and the pointer past the last). The kernel finds
 * the same two rows by the warp search (sp_tile_row_range,
 * transpose_gpu.cuh); the CPU model uses this. */
SP_SYM_FN void sp_symperm_tile_rows(const int32_t *rowptr, int32_t rows, int64_t k0, int64_t k1,
                                    int32_t *r0, int32_t *len)
{
    *r0 = sp_segment_of(rowptr, rows + 1, k0);
    *len = sp_segment_of(rowptr, rows + 1, k1 - 1) - *r0 + 2;
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
    return s.stage ? s.r0 + sp_segment_of(s.stage, s.len, k)
                   : sp_segment_of(rowptr, rows + 1, k);
}

/* Row i's bounds [*a, *b): from the stage when it holds them, else from
 * rowptr (on the device one 16-byte load of the aligned quad holding
 * rowptr[i] and, but for i = 3 mod 4, rowptr[i + 1], when the quad lies
 * inside rowptr[0 .. rows]). */
SP_SYM_FN void sp_symperm_bounds(const int32_t *rowptr, int32_t rows, sp_symperm_stage s,
                                 int32_t i, int32_t *a, int32_t *b)
{
    uint32_t d = (uint32_t)(i - s.r0);   /* rows r0 .. r0 + len - 2 are staged */
    if (s.stage && d < (uint32_t)s.len - 1u) {
        *a = s.stage[d];
        *b = s.stage[d + 1];
        return;
    }
#ifdef __CUDA_ARCH__
    int32_t i4 = i & ~3;
    if (i4 <= rows - 3) {
        int4 w = __ldg((const int4 *)(rowptr + i4));
        switch (i & 3) {
        case 0: *a = w.x, *b = w.y; return;
        case 1: *a = w.y, *b = w.z; return;
        case 2: *a = w.z, *b = w.w; return;
        default: *a = w.w, *b = __ldg(rowptr + i + 1); return;
        }
    }
#else
    (void)rows;
#endif
    *a = rowptr[i];
    *b = rowptr[i + 1];
}

/* The position of column j in [a, b) (lower bound over the sorted
 * columns), or -1. */
SP_SYM_FN int32_t sp_symperm_search(const int32_t *colidx, int32_t a, int32_t b, int32_t j)
{
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

/* The position of column j in row i, or -1 (row i's bounds from the
 * stage when it holds them, else rowptr[i], rowptr[i + 1]). */
SP_SYM_FN int32_t sp_symperm_find(const int32_t *rowptr, const int32_t *colidx,
                                  sp_symperm_stage s, int32_t i, int32_t j)
{
    int32_t a, b;
    sp_symperm_bounds(rowptr, -1, s, i, &a, &b);   /* rows -1: no quad load */
    return sp_symperm_search(colidx, a, b, j);
}

/* The row *r of position q of the tile and its bounds [*a, *b) (from
 * the stage, or rowptr when the tile is not staged). */
SP_SYM_FN void sp_symperm_row_bounds(const int32_t *rowptr, int32_t rows, sp_symperm_stage s,
                                     int64_t q, int32_t *r, int32_t *a, int32_t *b)
{
    if (s.stage) {
        int32_t d = sp_segment_of(s.stage, s.len, q);
        *r = s.r0 + d, *a = s.stage[d], *b = s.stage[d + 1];
    } else {
        *r = sp_segment_of(rowptr, rows + 1, q);
        *a = rowptr[*r], *b = rowptr[*r + 1];
    }
}

/* The guess at the mirror of slot q (row r = [ar, br), column c, row c =
 * [ac, bc)): q itself on the diagonal; for an upper entry (c > r) the
 * position of row c with as many entries before it as row r holds after
 * q; for a lower one (c < r) the position with as many entries after it
 * as row r holds before q. The point reflection through the midpoint of
 * r and c maps the entries counted in row r onto those counted in row c
 * while it stays inside the grid, so the guess is exact on every interior
 * row of a symmetric stencil or band, and each side counts away from the
 * boundary nearer to it, which keeps most boundary rows exact too. -1
 * when the count falls outside row c. */
SP_SYM_FN int64_t sp_symperm_guess(int64_t q, int32_t r, int32_t ar, int32_t br, int32_t c,
                                   int32_t ac, int32_t bc)
{
    if (c == r)
        return q;
    int64_t g = c > r ? (int64_t)ac + (br - 1 - q) : (int64_t)bc - 1 - (q - ar);
    return ac <= g && g < bc ? g : -1;
}

/* The mirror of slot q (column c) of the tile: q's row r and its bounds
 * from the stage (or rowptr), then with `guess` q itself on the diagonal,
 * else row c's bounds and the guess, taken when colidx there is r (*hit =
 * 1 in both cases); else (or without `guess`) the binary search over row
 * c (*hit = 0). Returns the position, or -1 when row c lacks column r. */
SP_SYM_FN int32_t sp_symperm_mirror(const int32_t *rowptr, const int32_t *colidx, int32_t rows,
                                    sp_symperm_stage s, int64_t q, int32_t c, int guess,
                                    int *hit)
{
    int32_t r, ar, br, ac, bc;
    sp_symperm_row_bounds(rowptr, rows, s, q, &r, &ar, &br);
    *hit = 0;
    if (guess && c == r) {
        *hit = 1;
        return (int32_t)q;
    }
    sp_symperm_bounds(rowptr, guess ? rows : -1, s, c, &ac, &bc);
    if (guess) {
        int64_t g = sp_symperm_guess(q, r, ar, br, c, ac, bc);
        if (g >= 0 && colidx[g] == r) {
            *hit = 1;
            return (int32_t)g;
        }
    }
    return sp_symperm_search(colidx, ac, bc, r);
}

#endif
