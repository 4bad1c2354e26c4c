/*
 * transpose_gpu.cu — upload, launch, result and release shared by the GPU
 * transposition kernels, and the vendor baseline cusparseCsr2cscEx2
 * (CUSPARSE_CSR2CSC_ALG_DEFAULT, its buffer allocated in prepare).
 */
#include <stdlib.h>

#include "transpose_gpu.cuh"

int sp_trans_gpu_alloc(void **p, size_t n, size_t elem, sp_err *err)
{
    SP_CUDA(cudaMalloc(p, (n ? n : 1) * elem), err);
    return 0;
}

sp_gpu_trans *sp_trans_gpu_new(const char *name, const sp_problem *pb, sp_err *err)
{
    if (!pb || !pb->A) {
        sp_fail(err, "%s: problem without a matrix", name);
        return NULL;
    }
    sp_gpu_trans *g = (sp_gpu_trans *)calloc(1, sizeof *g);
    if (!g) {
        sp_fail(err, "%s: out of memory for the kernel state", name);
        return NULL;
    }
    g->name = name;
    g->rows = pb->A->rows;
    g->cols = pb->A->cols;
    g->nnz = pb->A->nnz;
    /* the first CUDA call creates the context (cudaFree(NULL) frees
     * nothing); keep that out of h2d */
    if (cudaFree(NULL) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        sp_fail(err, "%s: %s", name, cudaGetErrorString(cudaGetLastError()));
        sp_trans_gpu_release(g);
        return NULL;
    }
    return g;
}

/* The CSC as three arrays of their own (cuSPARSE needs its index arrays
 * aligned beyond 4 bytes), or as views into one buffer. */
static int alloc_csc(const sp_csr *A, sp_gpu_trans *g, bool separate, sp_err *err)
{
    if (separate)
        return sp_trans_gpu_alloc((void **)&g->cval, (size_t)A->nnz, 8, err) ||
               sp_trans_gpu_alloc((void **)&g->colptr, (size_t)A->cols + 1, 4, err) ||
               sp_trans_gpu_alloc((void **)&g->rowidx, (size_t)A->nnz, 4, err);
    if (sp_trans_gpu_alloc(&g->out, sp_csc_bytes(A), 1, err))
        return -1;
    sp_csc C;
    sp_csc_view(g->out, A, &C);
    g->cval = C.val;
    g->colptr = C.colptr;
    g->rowidx = C.rowidx;
    return 0;
}

static int upload_arrays(const sp_csr *A, sp_gpu_trans *g, bool separate, sp_err *err)
{
    size_t nz = (size_t)A->nnz;
    if (sp_trans_gpu_alloc((void **)&g->rowptr, (size_t)A->rows + 1, 4, err) ||
        sp_trans_gpu_alloc((void **)&g->colidx, nz, 4, err) ||
        sp_trans_gpu_alloc((void **)&g->val, nz, 8, err) || alloc_csc(A, g, separate, err))
        return -1;
    SP_CUDA(cudaMemcpy(g->rowptr, A->rowptr, ((size_t)A->rows + 1) * 4, cudaMemcpyHostToDevice),
            err);
    if (nz) {
        SP_CUDA(cudaMemcpy(g->colidx, A->colidx, nz * 4, cudaMemcpyHostToDevice), err);
        SP_CUDA(cudaMemcpy(g->val, A->val, nz * 8, cudaMemcpyHostToDevice), err);
    }
    return 0;
}

int sp_trans_gpu_upload(const sp_problem *pb, sp_gpu_trans *g, sp_phases *ph, sp_err *err)
{
    double t0 = sp_seconds();
    if (upload_arrays(pb->A, g, g->separate, err))
        return -1;
    SP_CUDA(cudaDeviceSynchronize(), err);
    ph->h2d_s += sp_seconds() - t0;
    return 0;
}

int sp_trans_gpu_ready(sp_gpu_trans *g, int rc, double t0, void **state, sp_phases *ph,
                       sp_err *err)
{
    if (!rc && cudaDeviceSynchronize() != cudaSuccess)
        rc = sp_fail(err, "%s: work allocation failed", g->name);
    ph->h2d_s += sp_seconds() - t0;
    if (rc) {
        sp_trans_gpu_release(g);
        return -1;
    }
    *state = g;
    return 0;
}

int sp_trans_gpu_launch(void *state, const sp_exec *ex, const char *kernel,
                        sp_trans_enqueue enqueue, sp_err *err)
{
    sp_gpu_trans *g = (sp_gpu_trans *)state;
    if (!g || !ex)
        return sp_fail(err, "%s: launch without a state", kernel);
    return enqueue(g, (cudaStream_t)ex->stream, err);
}

/* The CSC back into out (the operation's layout), timed into d2h. */
extern "C" int sp_trans_gpu_result(void *state, void *out, sp_phases *ph, sp_err *err)
{
    sp_gpu_trans *g = (sp_gpu_trans *)state;
    if (!g || !out)
        return sp_fail(err, "transpose (GPU): result without a state or an output buffer");
    SP_CUDA(cudaDeviceSynchronize(), err);
    double t0 = sp_seconds();
    if (g->out) {
        size_t bytes = (size_t)g->nnz * 12 + ((size_t)g->cols + 1) * 4;
        SP_CUDA(cudaMemcpy(out, g->out, bytes, cudaMemcpyDeviceToHost), err);
    } else {
        sp_csr shape = {g->rows, g->cols, g->nnz, NULL, NULL, NULL};
        sp_csc C;
        sp_csc_view(out, &shape, &C);
        SP_CUDA(cudaMemcpy(C.val, g->cval, (size_t)g->nnz * 8, cudaMemcpyDeviceToHost), err);
        SP_CUDA(cudaMemcpy(C.colptr, g->colptr, ((size_t)g->cols + 1) * 4,
                           cudaMemcpyDeviceToHost), err);
        SP_CUDA(cudaMemcpy(C.rowidx, g->rowidx, (size_t)g->nnz * 4, cudaMemcpyDeviceToHost),
                err);
    }
    ph->d2h_s += sp_seconds() - t0;
    return 0;
}

/* Frees whatever was made; safe on a partly prepared state and on NULL. */
extern "C" void sp_trans_gpu_release(void *state)
{
    sp_gpu_trans *g = (sp_gpu_trans *)state;
    if (!g)
        return;
    if (g->handle)
        cusparseDestroy(g->handle);
    if (!g->out) {  /* separate CSC arrays (or none yet) */
        cudaFree(g->cval);
        cudaFree(g->colptr);
        cudaFree(g->rowidx);
    }
    void *bufs[] = {g->rowptr, g->colidx, g->val, g->out, g->w32a, g->w32b, g->w32c, g->w32d,
                    g->w32e, g->w32f, g->wval2, g->w64a, g->w64b, g->wval, g->count, g->scan_temp, g->lib_temp};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        cudaFree(bufs[i]);
    for (int i = 0; i < g->npass; i++)
        cudaEventDestroy(g->pass[i]);
    free(g);
}

/* ---- cuSPARSE ------------------------------------------------------------ */

/* Whether cuSPARSE gets called at all: it refuses empty dimensions, and an
 * empty matrix's CSC is a zero column pointer. */
static bool cusparse_applies(const sp_gpu_trans *g)
{
    return g->rows > 0 && g->cols > 0 && g->nnz > 0;
}

static size_t cusparse_buffer(sp_gpu_trans *g, sp_err *err)
{
    size_t bytes = 0;
    cusparseStatus_t s = cusparseCsr2cscEx2_bufferSize(
        g->handle, g->rows, g->cols, g->nnz, g->val, g->rowptr, g->colidx, g->cval, g->colptr,
        g->rowidx, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
        CUSPARSE_CSR2CSC_ALG_DEFAULT, &bytes);
    if (s != CUSPARSE_STATUS_SUCCESS) {
        sp_fail(err, "cusparseCsr2cscEx2_bufferSize: %s", cusparseGetErrorString(s));
        return (size_t)-1;
    }
    return bytes;
}

extern "C" int sp_trans_cusparse_prepare(const sp_problem *pb, const sp_params *p,
                                         void **state, sp_phases *ph, sp_err *err)
{
    (void)p;
    *state = NULL;
    sp_gpu_trans *g = sp_trans_gpu_new("transpose_cusparse", pb, err);
    if (!g)
        return -1;
    g->separate = true;
    int rc = sp_trans_gpu_upload(pb, g, ph, err);
    if (!rc && cusparse_applies(g)) {
        double t0 = sp_seconds();
        if (cusparseCreate(&g->handle) != CUSPARSE_STATUS_SUCCESS)
            rc = sp_fail(err, "transpose_cusparse: cusparseCreate failed");
        size_t bytes = rc ? 0 : cusparse_buffer(g, err);
        if (!rc && bytes == (size_t)-1)
            rc = -1;
        if (!rc)
            rc = sp_trans_gpu_alloc(&g->lib_temp, bytes, 1, err);
        if (!rc && cudaDeviceSynchronize() != cudaSuccess)
            rc = sp_fail(err, "transpose_cusparse: buffer allocation failed");
        ph->h2d_s += sp_seconds() - t0;
    }
    if (rc) {
        sp_trans_gpu_release(g);
        return -1;
    }
    *state = g;
    return 0;
}

/* cusparseCsr2cscEx2 on `stream` (nnz = 0: colptr zeroed, cuSPARSE is
 * not asked). */
static int cusparse_csr2csc(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    if (cusparse_applies(g)) {
        SP_CUSPARSE(cusparseSetStream(g->handle, stream), err);
        SP_CUSPARSE(cusparseCsr2cscEx2(g->handle, g->rows, g->cols, g->nnz, g->val, g->rowptr,
                                       g->colidx, g->cval, g->colptr, g->rowidx, CUDA_R_64F,
                                       CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                       CUSPARSE_CSR2CSC_ALG_DEFAULT, g->lib_temp), err);
        SP_CUDA(cudaGetLastError(), err);
    } else {
        SP_CUDA(cudaMemsetAsync(g->colptr, 0, ((size_t)g->cols + 1) * 4, stream), err);
    }
    return 0;
}

extern "C" int sp_trans_cusparse_launch(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_launch(state, ex, "transpose_cusparse", cusparse_csr2csc, err);
}
