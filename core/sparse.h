/*
 * sparse.h — the in-memory sparse formats every stage shares, and the error
 * type every fallible function reports through.
 *
 * CSR with 32-bit indices: rowptr[rows+1], colidx[nnz], val[nnz]; column
 * indices sorted and unique within each row once a matrix leaves fetch/.
 * A matrix whose dimensions or nnz do not fit in int32_t is refused where
 * it is read or generated, never truncated.
 */
#ifndef SP_SPARSE_H
#define SP_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error report: a fallible function returns -1 (or NULL) and fills msg with
 * one line that names the file, line or parameter at fault. */
typedef struct sp_err {
    char msg[1024];
} sp_err;

/* Format msg into err (when err is not NULL); always returns -1. */
int sp_fail(sp_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefix an existing message: "prefix: old message". Returns -1. */
int sp_fail_prefix(sp_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* mkdir -p dir / of the directory holding path (core/fsutil.c). */
int sp_mkdir_p(const char *dir, sp_err *err);
int sp_mkdir_parent(const char *path, sp_err *err);

typedef struct sp_csr {
    int32_t rows, cols, nnz;
    int32_t *rowptr; /* rows + 1 */
    int32_t *colidx; /* nnz */
    double *val;     /* nnz */
} sp_csr;

/* An array of n 32-bit unsigned keys (a key workload, fetch/keys.c); key
 * from sp_alloc_large. n fits in int32 like a matrix's nnz. bins: the
 * source's `bins` (the index range the primitives read the keys into,
 * kernels/prim/prim.h), 0 when it gave none; the keys do not depend on it. */
typedef struct sp_keys {
    int64_t n;
    uint32_t *key;
    int64_t bins;
} sp_keys;

/* Coordinate triplets, 0-based, in any order, duplicates allowed. */
typedef struct sp_coo {
    int32_t rows, cols;
    int64_t nnz, cap;
    int32_t *row, *col;
    double *val;
} sp_coo;

/* Is p a multiple of `bytes` (a power of two)? The runtime form of every
 * alignment claim the kernels make to the compiler (`omp simd aligned`,
 * vector loads through int4 and the like): asserted at the claim, tested
 * as an invariant of the layouts that feed it (tests/test_align.c). */
static inline int sp_is_aligned(const void *p, size_t bytes)
{
    return ((uintptr_t)p & (bytes - 1)) == 0;
}

/* malloc for big arrays: from 4 MiB up, 2 MiB aligned and advised to use
 * transparent huge pages, since first-touch page faults otherwise dominate
 * filling them. Never NULL for n = 0 unless out of memory; free() frees. */
void *sp_alloc_large(size_t n);

/* Allocate a CSR of the given shape (rowptr zeroed), arrays from
 * sp_alloc_large. -1 on failure. */
int sp_csr_alloc(sp_csr *A, int32_t rows, int32_t cols, int32_t nnz, sp_err *err);
void sp_csr_free(sp_csr *A);

/* Check the CSR invariants: rowptr monotone from 0 to nnz, columns in
 * range, sorted and unique per row. -1 with the first violation. */
int sp_csr_validate(const sp_csr *A, sp_err *err);

/* COO buffer management. sp_coo_push grows the arrays as needed. */
int sp_coo_init(sp_coo *T, int32_t rows, int32_t cols, int64_t cap, sp_err *err);
int sp_coo_push(sp_coo *T, int32_t i, int32_t j, double v, sp_err *err);
void sp_coo_free(sp_coo *T);

/* COO -> CSR: counting sort by row, sort columns within each row, sum
 * duplicates. Refuses (with the count) a result with nnz > INT32_MAX.
 * T is left unchanged. */
int sp_csr_from_coo(sp_csr *A, const sp_coo *T, sp_err *err);

/* Stable sort of n (col, val) pairs by column, in place; tc and tv are
 * scratch for at least n/2 + 1 entries. Stable, so duplicates keep their
 * order and are summed in file order by the callers. */
void sp_sort_pairs(int32_t *col, double *val, int64_t n, int32_t *tc, double *tv);

/* 64-bit checksum of the CSR's shape and arrays (XXH3). */
uint64_t sp_csr_checksum(const sp_csr *A);

#ifdef __cplusplus
}
#endif
#endif
