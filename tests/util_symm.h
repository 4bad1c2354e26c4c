/* util_symm.h — the matrices the symmetric transposition fast path
 * (transpose_cuda_symperm) is checked on, shared by its CPU model test
 * (tests/test_transpose_gpu.c) and its GPU test
 * (tests/gpu/test_gpu_transpose.c): structurally symmetric ones and ones
 * that are almost (one mirror missing), rectangular ones. Every case's
 * values are distinct (1 + position / 8), so a symmetric pattern never
 * has symmetric values: a kernel that moved no value would fail. */
#ifndef SP_UTIL_SYMM_H
#define SP_UTIL_SYMM_H

#include "../kernels/kernel.h"

enum symm_kind {
    SYMM_SYMMETRIC = 0,     /* A(i,j) stored <=> A(j,i) stored */
    SYMM_NOT = 1,           /* square, some mirror missing */
    SYMM_RECTANGULAR = 2,   /* rows != cols */
};

typedef struct symm_case {
    const char *name;
    enum symm_kind kind;    /* what the case was built to be */
    sp_csr A;
} symm_case;

/* Case i (0 <= i < symm_case_count()); `small` halves the generated
 * sizes (the CPU model runs each at five block sizes). */
int symm_case_count(void);
void symm_case_build(int i, int small, symm_case *c);
void symm_case_free(symm_case *c);

/* A's kind by an independent test: the serial transposition's colptr and
 * rowidx equal rowptr and colidx. */
enum symm_kind symm_kind_of(const sp_csr *A);

/* val[k] = 1 + k / 8 for every position k. */
void symm_distinct_values(sp_csr *A);

/* Generated matrices of many tiles (the bench set's shapes, smaller):
 * symm_larger[i] (symm_larger_small[i] in quick mode), all symmetric but
 * the last (R-MAT). */
extern const char *const symm_larger[4], *const symm_larger_small[4];
/* The middle row's last entry, above the diagonal, removed from A in
 * place: one mirror missing near the middle. */
void symm_drop_middle(sp_csr *A);

#endif
