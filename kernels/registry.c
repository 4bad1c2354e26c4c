/*
 * registry.c — every kernel and operation spsweep knows. Adding a kernel is
 * one file (its sp_kernel descriptor) plus one line in SP_KERNEL_LIST.
 */
#include <string.h>

#include "kernel.h"

/* One line per kernel: the name of its const sp_kernel descriptor. The list
 * both declares the descriptors and fills sp_kernels[], so the two cannot
 * disagree. */
#define SP_KERNEL_LIST(X)                                                     \
    X(sp_spmv_csr_serial)                                                     \
    X(sp_spmv_csr_omp)                                                        \
    X(sp_spmv_csr_omp_blocks)                                                 \
    X(sp_spmv_csr_omp_simd)                                                   \
    X(sp_spmv_csr_omp_simd_auto)                                              \
    X(sp_spmv_csr_omp_auto)                                                   \
    X(sp_spmv_csr_omp_dynamic)                                                \
    X(sp_spmv_csr_omp_nnz)                                                    \
    X(sp_spmv_csr_omp_nnz_ilp)                                                \
    X(sp_spmv_csr_omp_avx512)                                                 \
    X(sp_spmv_ell_serial)                                                     \
    X(sp_spmv_ell_omp)                                                        \
    X(sp_spmv_hll_serial)                                                     \
    X(sp_spmv_hll_omp_static)                                                 \
    X(sp_spmv_hll_omp_dynamic)                                                \
    X(sp_spmv_hll_omp_nnz)                                                    \
    X(sp_spmv_hll_aligned_serial)                                             \
    X(sp_spmv_hll_aligned_omp)                                                \
    X(sp_spmv_hll_aligned_omp_static)                                         \
    X(sp_spmv_hll_aligned_omp_dynamic)                                        \
    X(sp_spmv_hll_avx512)                                                     \
    X(sp_spmv_librsb)                                                         \
    X(sp_spmv_mkl)                                                            \
    X(sp_spmv_dia_serial)                                                     \
    X(sp_spmv_dia_omp)                                                        \
    X(sp_spmv_bsr_omp)                                                        \
    X(sp_spmv_bsr_avx512)                                                     \
    X(sp_transpose_serial)                                                    \
    X(sp_transpose_scantrans)                                                 \
    X(sp_transpose_mergetrans)                                                \
    X(sp_transpose_mkl)                                                       \
    X(sp_transpose_librsb)                                                    \
    X(sp_spmv_csr_cuda_scalar)                                                \
    X(sp_spmv_csr_cusparse)                                                   \
    X(sp_spmv_csr_cuda_vector)                                                \
    X(sp_spmv_csr_cuda_subwarp)                                               \
    X(sp_spmv_csr_cuda_block)                                                 \
    X(sp_spmv_csr_cuda_merge)                                                 \
    X(sp_spmv_ell_cuda)                                                       \
    X(sp_spmv_hll_cuda_aligned)                                               \
    X(sp_spmv_hll_cuda_block)                                                 \
    X(sp_spmv_hll_cuda_warp)                                                  \
    X(sp_spmv_hll_cuda_hack)                                                  \
    X(sp_spmv_hll_cuda_staged)                                                \
    X(sp_spmv_csr_cuda_hybrid)                                                \
    X(sp_spmv_csr_cuda_adaptive)                                              \
    X(sp_spmv_sell_cuda)                                                      \
    X(sp_spmv_dia_cuda)                                                       \
    X(sp_spmv_csr_cusparse_alg2)                                              \
    X(sp_spmv_coo_cusparse_alg1)                                              \
    X(sp_spmv_coo_cusparse_alg2)                                              \
    X(sp_spmv_sell_cusparse)                                                  \
    X(sp_sort_qsort)                                                          \
    X(sp_sort_radix_omp)                                                      \
    X(sp_sort_cub_radix)                                                      \
    X(sp_sort_qsort_cuda_thread)                                              \
    X(sp_sort_qsort_cuda_block)                                               \
    X(sp_sort_qsort_cuda_queue)                                               \
    X(sp_sort_qsort_study1)                                                   \
    X(sp_sort_qsort_study2)                                                   \
    X(sp_sort_qsort_study3)                                                   \
    X(sp_sort_qsort_study3_r1)                                                \
    X(sp_sort_qsort_study3_r2)                                                \
    X(sp_sort_qsort_study4)                                                   \
    X(sp_sort_qsort_study4_r1)                                                \
    X(sp_sort_qsort_study4_r2)                                                \
    X(sp_sort_qsort_study5)                                                   \
    X(sp_sort_qsort_study5_r1)                                                \
    X(sp_sort_qsort_study6)                                                   \
    X(sp_sort_qsort_study7)                                                   \
    X(sp_sort_qsort_study8)                                                   \
    X(sp_sort_qsort_study9)                                                   \
    X(sp_transpose_cuda_scatter)                                              \
    X(sp_transpose_cuda_scantrans)                                            \
    X(sp_transpose_cuda_mergetrans)                                           \
    X(sp_transpose_cub_sort)                                                  \
    X(sp_transpose_cub_carry)                                                 \
    X(sp_transpose_cusparse)                                                  \
    X(sp_transpose_cuda_wintrans)                                             \
    X(sp_transpose_cuda_symperm)                                              \
    X(sp_transpose_cuda_radix)                                                \
    X(sp_scan_cuda)                                                           \
    X(sp_histogram_cuda)                                                      \
    X(sp_idx2ptr_cuda)                                                        \
    X(sp_ptr2idx_cuda)                                                        \
    X(sp_segsort_cuda)                                                        \
    X(sp_merge_cuda)                                                          \
    X(sp_hist_idx2ptr_cuda_loop)                                              \
    X(sp_hist_idx2ptr_cuda_transpose)                                         \
    X(sp_hist_idx2ptr_cuda_owners)                                            \
    X(sp_prim_serial_scan)                                                    \
    X(sp_prim_serial_histogram)                                               \
    X(sp_prim_serial_idx2ptr)                                                 \
    X(sp_prim_serial_ptr2idx)                                                 \
    X(sp_prim_serial_segsort)                                                 \
    X(sp_prim_serial_merge)                                                   \
    X(sp_prim_serial_hist_idx2ptr)

#define SP_DECLARE_KERNEL(k) extern const sp_kernel k;
#define SP_LIST_KERNEL(k) &k,

SP_KERNEL_LIST(SP_DECLARE_KERNEL)

const sp_kernel *const sp_kernels[] = {SP_KERNEL_LIST(SP_LIST_KERNEL) NULL};

extern const sp_operation sp_op_spmv;
extern const sp_operation sp_op_transpose;
extern const sp_operation sp_op_sort;
extern const sp_operation sp_op_scan, sp_op_histogram, sp_op_idx2ptr, sp_op_ptr2idx,
    sp_op_segsort, sp_op_merge, sp_op_hist_idx2ptr;

static const sp_operation *const operations[] = {
    &sp_op_spmv,
    &sp_op_transpose,
    &sp_op_sort,
    &sp_op_scan,
    &sp_op_histogram,
    &sp_op_idx2ptr,
    &sp_op_ptr2idx,
    &sp_op_segsort,
    &sp_op_merge,
    &sp_op_hist_idx2ptr,
    NULL,
};

/* The registered kernel called `name`, or NULL. */
const sp_kernel *sp_kernel_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; sp_kernels[i]; i++)
        if (!strcmp(sp_kernels[i]->name, name))
            return sp_kernels[i];
    return NULL;
}

/* The operation called `name` ("spmv"), or NULL. */
const sp_operation *sp_operation_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; operations[i]; i++)
        if (!strcmp(operations[i]->name, name))
            return operations[i];
    return NULL;
}

/* 1 when op takes workloads of this kind (no declaration: matrices only). */
int sp_operation_accepts(const sp_operation *op, sp_workload_kind kind)
{
    unsigned set = op && op->workloads ? op->workloads : SP_WL_MATRIX;
    return op && (set & (unsigned)kind) != 0;
}

/* The value of axis `name` in p; dflt when p is NULL or lacks that axis. */
long sp_param(const sp_params *p, const char *name, long dflt)
{
    if (!p || !name)
        return dflt;
    for (int i = 0; i < p->n && i < SP_MAX_PARAMS; i++)
        if (p->name[i] && !strcmp(p->name[i], name))
            return p->value[i];
    return dflt;
}

const char *sp_kernel_device(const sp_kernel *k)
{
    return k && k->needs_gpu ? "gpu" : "cpu";
}

sp_kernel_ident sp_kernel_identity(const sp_kernel *k)
{
    sp_kernel_ident id = {0};
    if (!k)
        return id;
    const sp_operation *op = sp_operation_find(k->operation);
    id.name = k->name, id.operation = k->operation, id.format = k->format;
    id.backend = k->backend, id.device = sp_kernel_device(k);
    id.rate_unit = op ? op->rate_unit : NULL;
    return id;
}
