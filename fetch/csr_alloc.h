/*
 * csr_alloc.h — private to fetch/: CSR allocation for the multi-gigabyte
 * matrices that generators and the binary cache fill.
 */
#ifndef SP_CSR_ALLOC_H
#define SP_CSR_ALLOC_H

#include "../kernels/sparse.h"

/* n bytes (at least 1), huge-page advised when n >= 4 MiB; the advice is a
 * hint, so its failure is ignored. NULL when out of memory; free() releases
 * it. */
void *fetch_alloc_large(size_t n);

/* Like sp_csr_alloc (rowptr zeroed, freed by sp_csr_free), but arrays of
 * 4 MiB and more are 2 MiB aligned and advised to use transparent huge
 * pages: first-touch page faults otherwise dominate filling them. */
int fetch_csr_alloc(sp_csr *A, int32_t rows, int32_t cols, int32_t nnz, sp_err *err);

#endif
