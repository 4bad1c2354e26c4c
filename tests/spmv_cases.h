/* spmv_cases.h — the awkward matrices every SpMV kernel is checked on,
 * shared by the CPU and the GPU tests (tests/spmv_cases.c). */
#ifndef SP_SPMV_CASES_H
#define SP_SPMV_CASES_H

#include "../kernels/kernel.h"

typedef struct spmv_case {
    const char *name;
    sp_csr A;
} spmv_case;

/* Build case number i (0 <= i < spmv_case_count()). */
int spmv_case_count(void);
void spmv_case_build(int i, spmv_case *c);
void spmv_case_free(spmv_case *c);

/* Run kernel k with params p on A through the whole life cycle (prepare,
 * two runs, result, release) and return the relative error against the
 * reference; asserts that every step succeeds and times are positive. */
double spmv_check_kernel(const sp_kernel *k, const sp_params *p, const sp_csr *A);

#endif
