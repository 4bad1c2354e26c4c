/*
 * spmv.h — the SpMV family (y = A·x, double): the operation, the state the
 * CPU kernels share, and the CUDA entry points the GPU descriptors point to.
 *
 * A GPU kernel is two files: spmv_<name>.c holds its sp_kernel descriptor
 * (compiled in every build, entry points through SP_GPU_FN) and
 * spmv_<name>.cu defines the entry points declared here.
 */
#ifndef SP_SPMV_H
#define SP_SPMV_H

#include "../kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sp_operation sp_op_spmv;

/* ---- CPU kernels (spmv_cpu.c) ---------------------------------------------
 * They work in place on the problem's CSR and x (no conversion phase) and
 * write into their own y, copied out by result. */
typedef struct sp_spmv_cpu {
    const sp_csr *A;
    const double *x;
    double *y;          /* A->rows entries */
    int threads;        /* the `threads` axis, 1 when absent */
    int chunk;          /* the `chunk` axis (dynamic schedule), 1 when absent */
} sp_spmv_cpu;

/* Row i of A times x: the inner loop every CPU CSR kernel shares. */
static inline double sp_spmv_csr_row(const sp_csr *A, const double *x, int32_t i)
{
    double sum = 0.0;
    for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        sum += A->val[k] * x[A->colidx[k]];
    return sum;
}

/* Row entries [k, end) in four partial sums (k, k+1, k+2, k+3 of each
 * group of four), the remainder into the first, added pairwise at the end:
 * four independent chains instead of one (spmv_csr_omp_split.c says why). */
static inline double sp_spmv_csr_row4(const int32_t *col, const double *val, const double *x,
                                      int32_t k, int32_t end)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (; k + 4 <= end; k += 4) {
        s0 += val[k] * x[col[k]];
        s1 += val[k + 1] * x[col[k + 1]];
        s2 += val[k + 2] * x[col[k + 2]];
        s3 += val[k + 3] * x[col[k + 3]];
    }
    for (; k < end; k++)
        s0 += val[k] * x[col[k]];
    return (s0 + s1) + (s2 + s3);
}

int sp_spmv_cpu_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err);
int sp_spmv_cpu_result(void *state, void *out, const sp_exec *ex, sp_err *err);
void sp_spmv_cpu_release(void *state);
/* need of a CSR kernel working in place: y only (spmv_csr_need.c). */
int sp_spmv_csr_y_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err);

/* ---- GPU kernels (spmv_gpu.cu and one .cu per kernel) ---------------------
 * prepare is host only (axes, the format in host memory), upload makes the
 * device copies, launch enqueues; the harness times each step (kernel.h). */
int sp_spmv_cuda_scalar_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                sp_err *err);
int sp_spmv_cuda_scalar_launch(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cusparse_prepare(const sp_problem *pb, const sp_params *p, void **state,
                             sp_err *err);
/* cuSPARSE's inspector: handle, descriptors, buffer, preprocess. */
int sp_spmv_cusparse_analyse(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_cusparse_launch(void *state, const sp_exec *ex, sp_err *err);
/* Shared by every GPU SpMV kernel: the upload of what prepare recorded,
 * y back to the host, and freeing from any state. */
int sp_spmv_gpu_upload(void *state, const sp_exec *ex, sp_err *err);
int sp_spmv_gpu_result(void *state, void *out, const sp_exec *ex, sp_err *err);
void sp_spmv_gpu_release(void *state);

#ifdef __cplusplus
}
#endif
#endif
