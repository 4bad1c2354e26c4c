/*
 * dia.h — the diagonal format (DIA, Bell & Garland's canonical SpMV set:
 * DIA, ELL, CSR, COO, HYB) built from CSR, behind the CPU kernels
 * spmv_dia_serial/spmv_dia_omp and the GPU kernel spmv_dia_cuda.
 *
 * A diagonal is one offset col − row. The layout stores every distinct
 * offset of A once, ascending, and for each of them a full column of
 * `rows` values, diagonal-major:
 *   val[d·rows + i] = A(i, i + offset[d]), or 0 where A has no such entry
 *                     or the diagonal leaves the matrix (i + offset[d]
 *                     outside 0..cols-1: the kernels never read x there).
 * No column indices are stored: a stencil or a band costs 8 bytes per
 * entry instead of CSR's or ELL's 12, and x is read at unit stride.
 * Duplicate (row, col) entries of A are summed into one slot.
 *
 * When is a layout refused? As ELL and HLL (hll.h): only when it cannot be
 * expressed — more than 2^31-1 diagonals (32-bit counts and offsets), or
 * more stored entries than 64-bit byte counts hold. Otherwise the kernels'
 * `need` states the padded bytes (sp_dia_plan: ndiags · rows values) and
 * the runner skips the combination, with both numbers, where they are more
 * than what is free: that is what happens to R-MAT or a random matrix,
 * whose diagonals are nearly all present (stored ≈ rows · (rows + cols)).
 */
#ifndef SP_DIA_H
#define SP_DIA_H

#include "../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_dia {
    int32_t rows, cols, nnz;
    int32_t ndiags;
    int64_t stored;     /* ndiags · rows values */
    int32_t *offset;    /* ndiags, ascending: col − row of diagonal d */
    double *val;        /* stored, 64-byte aligned: val[d·rows + i] */
} sp_dia;

/* Size of A's layout without building it: one serial pass over the
 * columns with a byte per possible offset (rows + cols − 1 bytes, freed
 * before returning; the runner's parent calls it through `need`, so no
 * threads). *ndiags distinct offsets, *stored = ndiags · rows values and
 * *bytes of the layout's host arrays (values and offsets). -1 with the
 * reason past the limits above, or out of memory for the flags. */
int sp_dia_plan(const sp_csr *A, int32_t *ndiags, int64_t *stored, uint64_t *bytes,
                sp_err *err);

/* The refusal rule above for nd diagonals of a matrix of A's shape (only
 * rows, cols and nnz are read), then *ndiags, *stored and *bytes as
 * sp_dia_plan gives them. */
int sp_dia_size(const sp_csr *A, int64_t nd, int32_t *ndiags, int64_t *stored,
                uint64_t *bytes, sp_err *err);

/* Work memory the conversion allocates on top of the layout and frees
 * before it returns: one int32 per possible offset. */
uint64_t sp_dia_work_bytes(const sp_csr *A);

/* Build D from A (OpenMP: the offsets marked over rows, the values zeroed
 * and scattered over rows). -1 with the reason on refusal or out of
 * memory, D then empty. */
int sp_dia_from_csr(sp_dia *D, const sp_csr *A, sp_err *err);
void sp_dia_free(sp_dia *D);

#ifdef __cplusplus
}
#endif
#endif
