/*
 * transpose_gpu.cu — the steps the GPU transposition kernels share (a
 * state made in host memory, the upload, a step on the harness's stream,
 * the result and the release), and the vendor baseline cusparseCsr2cscEx2
 * (CUSPARSE_CSR2CSC_ALG_DEFAULT: its handle and buffer made in analyse).
 * The harness times each step (kernel.h); none reads a clock here.
 */
#include <stdlib.h>
#include <string.h>

#include "transpose_gpu.cuh"

int sp_trans_gpu_alloc(void **p, size_t n, size_t elem, sp_err *err)
{
    SP_CUDA(cudaMalloc(p, (n ? n : 1) * elem), err);
    return 0;
}

/* A's values rounded to float for a single-precision state (host). */
static int round_values(sp_gpu_trans *g, sp_err *err)
{
    const sp_csr *A = g->A;
    g->val32 = sp_float_copy(A->val, (size_t)A->nnz);
    if (!g->val32)
        return sp_fail(err, "%s: out of memory for %d float values", g->name, A->nnz);
    return 0;
}

sp_gpu_trans *sp_trans_gpu_new(const char *name, const sp_problem *pb, const sp_params *p,
                               sp_err *err)
{
    sp_precision prec;
    if (!pb || !pb->A) {
        sp_fail(err, "%s: problem without a matrix", name);
        return NULL;
    }
    if (sp_precision_param(p, name, &prec, err))
        return NULL;
    sp_gpu_trans *g = (sp_gpu_trans *)calloc(1, sizeof *g);
    if (!g) {
        sp_fail(err, "%s: out of memory for the kernel state", name);
        return NULL;
    }
    g->name = name;
    g->A = pb->A;
    g->rows = pb->A->rows;
    g->cols = pb->A->cols;
    g->nnz = pb->A->nnz;
    g->prec = prec;
    g->vb = (size_t)sp_trans_val_bytes(prec);
    if (prec == SP_SINGLE && round_values(g, err)) {
        free(g);
        return NULL;
    }
    return g;
}

/* The CSC as three arrays of their own (cuSPARSE needs its index arrays
 * aligned beyond 4 bytes), or as views into one buffer. */
static int alloc_csc(const sp_csr *A, sp_gpu_trans *g, sp_err *err)
{
    if (g->separate)
        return sp_trans_gpu_alloc(&g->cval, (size_t)A->nnz, g->vb, err) ||
               sp_trans_gpu_alloc((void **)&g->colptr, (size_t)A->cols + 1, 4, err) ||
               sp_trans_gpu_alloc((void **)&g->rowidx, (size_t)A->nnz, 4, err);
    if (sp_trans_gpu_alloc(&g->out, sp_trans_csc_dev_bytes(A->nnz, A->cols, g->vb), 1, err))
        return -1;
    g->cval = g->out;
    g->colptr = (int32_t *)((char *)g->out + ((size_t)A->nnz * g->vb + 7) / 8 * 8);
    g->rowidx = g->colptr + (size_t)A->cols + 1;
    return 0;
}

/* The CSR and the CSC allocated, the CSR copied on `stream`. */
static int upload_arrays(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    const sp_csr *A = g->A;
    size_t nz = (size_t)A->nnz;
    if (sp_trans_gpu_alloc((void **)&g->rowptr, (size_t)A->rows + 1, 4, err) ||
        sp_trans_gpu_alloc((void **)&g->colidx, nz, 4, err) ||
        sp_trans_gpu_alloc(&g->val, nz, g->vb, err) || alloc_csc(A, g, err))
        return -1;
    SP_CUDA(cudaMemcpyAsync(g->rowptr, A->rowptr, ((size_t)A->rows + 1) * 4,
                            cudaMemcpyHostToDevice, stream),
            err);
    if (nz) {
        SP_CUDA(cudaMemcpyAsync(g->colidx, A->colidx, nz * 4, cudaMemcpyHostToDevice, stream),
                err);
        const void *v = g->prec == SP_SINGLE ? (const void *)g->val32 : (const void *)A->val;
        SP_CUDA(cudaMemcpyAsync(g->val, v, nz * g->vb, cudaMemcpyHostToDevice, stream), err);
    }
    return 0;
}

int sp_trans_gpu_step(void *state, const sp_exec *ex, const char *kernel, sp_trans_step fn,
                      sp_err *err)
{
    sp_gpu_trans *g = (sp_gpu_trans *)state;
    if (!g)
        return sp_fail(err, "%s: no state", kernel);
    return fn(g, sp_trans_stream(ex), err);
}

int sp_trans_gpu_upload(void *state, const sp_exec *ex, sp_trans_step work, sp_err *err)
{
    sp_gpu_trans *g = (sp_gpu_trans *)state;
    if (!g)
        return sp_fail(err, "transpose (GPU): upload without a state");
    cudaStream_t stream = sp_trans_stream(ex);
    if (upload_arrays(g, stream, err))
        return -1;
    return work ? work(g, stream, err) : 0;
}

/* The CSC of three arrays into out's layout, on `stream` (float values
 * into the front of C.val, widened by the caller). */
static int result_separate(const sp_gpu_trans *g, const sp_csc *C, cudaStream_t stream,
                           sp_err *err)
{
    SP_CUDA(cudaMemcpyAsync(C->val, g->cval, (size_t)g->nnz * g->vb, cudaMemcpyDeviceToHost,
                            stream),
            err);
    SP_CUDA(cudaMemcpyAsync(C->colptr, g->colptr, ((size_t)g->cols + 1) * 4,
                            cudaMemcpyDeviceToHost, stream),
            err);
    SP_CUDA(cudaMemcpyAsync(C->rowidx, g->rowidx, (size_t)g->nnz * 4, cudaMemcpyDeviceToHost,
                            stream),
            err);
    return 0;
}

/* Single: the nnz floats at the front of C.val widened to double in
 * place, from the last (double k covers floats 2k and 2k + 1, both read
 * before it is written when going down); through memcpy, as the same
 * bytes are read as float and written as double. */
static void widen(const sp_gpu_trans *g, const sp_csc *C)
{
    char *b = (char *)C->val;
    for (int32_t k = g->nnz - 1; k >= 0; k--) {
        float f;
        memcpy(&f, b + (size_t)k * sizeof f, sizeof f);
        const double d = f;
        memcpy(b + (size_t)k * sizeof d, &d, sizeof d);
    }
}

/* out's CSC views for g's shape. */
static sp_csc C_of(const sp_gpu_trans *g, void *out)
{
    sp_csr shape = {g->rows, g->cols, g->nnz, NULL, NULL, NULL};
    sp_csc C;
    sp_csc_view(out, &shape, &C);
    return C;
}

/* The CSC back into out (the operation's layout), copied on ex->stream
 * after the launches (the harness waits for the device around it). */
extern "C" int sp_trans_gpu_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    sp_gpu_trans *g = (sp_gpu_trans *)state;
    if (!g || !out)
        return sp_fail(err, "transpose (GPU): result without a state or an output buffer");
    cudaStream_t stream = sp_trans_stream(ex);
    if (g->out && g->prec == SP_DOUBLE) {   /* the output's layout: one copy */
        size_t bytes = (size_t)g->nnz * 12 + ((size_t)g->cols + 1) * 4;
        SP_CUDA(cudaMemcpyAsync(out, g->out, bytes, cudaMemcpyDeviceToHost, stream), err);
        return 0;
    }
    sp_csc C = C_of(g, out);
    if (!g->out) {
        if (result_separate(g, &C, stream, err))
            return -1;
    } else {    /* single: floats to the front of C.val, colptr | rowidx in one */
        SP_CUDA(cudaMemcpyAsync(C.val, g->cval, (size_t)g->nnz * 4, cudaMemcpyDeviceToHost,
                                stream),
                err);
        SP_CUDA(cudaMemcpyAsync(C.colptr, g->colptr, ((size_t)g->cols + 1 + g->nnz) * 4,
                                cudaMemcpyDeviceToHost, stream),
                err);
    }
    if (g->prec == SP_DOUBLE)
        return 0;
    /* the copies done, the floats widened: part of d2h_s */
    SP_CUDA(cudaStreamSynchronize(stream), err);
    widen(g, &C);
    return 0;
}

/* cudaFree of what was allocated: nothing is asked of the device for a
 * state that never reached it (a failed or a lone prepare). */
static void free_dev(void *p)
{
    if (p)
        cudaFree(p);
}

/* Frees whatever was made; safe on NULL and on a state any step left,
 * failed or not. */
extern "C" void sp_trans_gpu_release(void *state)
{
    sp_gpu_trans *g = (sp_gpu_trans *)state;
    if (!g)
        return;
    if (g->handle)
        cusparseDestroy(g->handle);
    if (!g->out) {  /* separate CSC arrays (or none yet) */
        free_dev(g->cval);
        free_dev(g->colptr);
        free_dev(g->rowidx);
    }
    void *bufs[] = {g->rowptr, g->colidx, g->val, g->out, g->w32a, g->w32b, g->w32c, g->w32d,
                    g->w32e, g->w32f, g->wval2, g->w64a, g->w64b, g->wval, g->count, g->scan_temp, g->lib_temp};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        free_dev(bufs[i]);
    free(g->val32);
    free(g);
}

/* ---- cuSPARSE ------------------------------------------------------------ */

/* Whether cuSPARSE gets called at all: it refuses empty dimensions, and an
 * empty matrix's CSC is a zero column pointer. */
static bool cusparse_applies(const sp_gpu_trans *g)
{
    return g->rows > 0 && g->cols > 0 && g->nnz > 0;
}

/* cuSPARSE's name of g's value type: CUDA_R_32F moves 4-byte values. */
static cudaDataType value_type(const sp_gpu_trans *g)
{
    return g->prec == SP_SINGLE ? CUDA_R_32F : CUDA_R_64F;
}

/* cusparseCsr2cscEx2's buffer, its size asked for g's arrays. */
static int cusparse_buffer(sp_gpu_trans *g, sp_err *err)
{
    size_t bytes = 0;
    SP_CUSPARSE(cusparseCsr2cscEx2_bufferSize(
                    g->handle, g->rows, g->cols, g->nnz, g->val, g->rowptr, g->colidx, g->cval,
                    g->colptr, g->rowidx, value_type(g), CUSPARSE_ACTION_NUMERIC,
                    CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG_DEFAULT, &bytes),
                err);
    g->lib_bytes = bytes;
    return sp_trans_gpu_alloc(&g->lib_temp, bytes, 1, err);
}

/* Host only: the state, the CSC to be three arrays of its own. */
extern "C" int sp_trans_cusparse_prepare(const sp_problem *pb, const sp_params *p,
                                         void **state, sp_err *err)
{
    *state = NULL;
    sp_gpu_trans *g = sp_trans_gpu_new("transpose_cusparse", pb, p, err);
    if (!g)
        return -1;
    g->separate = true;
    *state = g;
    return 0;
}

extern "C" int sp_trans_cusparse_upload(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_upload(state, ex, NULL, err);
}

/* The library's setup on the uploaded arrays: its handle (on `stream`)
 * and the buffer it asks for (nothing when cuSPARSE is not called). */
static int cusparse_setup(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    if (!cusparse_applies(g))
        return 0;
    SP_CUSPARSE(cusparseCreate(&g->handle), err);
    SP_CUSPARSE(cusparseSetStream(g->handle, stream), err);
    return cusparse_buffer(g, err);
}

extern "C" int sp_trans_cusparse_analyse(void *state, const sp_exec *ex, sp_err *err)
{
    return sp_trans_gpu_step(state, ex, "transpose_cusparse", cusparse_setup, err);
}

/* cusparseCsr2cscEx2 on `stream` (nnz = 0: colptr zeroed, cuSPARSE is
 * not asked). */
static int cusparse_csr2csc(sp_gpu_trans *g, cudaStream_t stream, sp_err *err)
{
    if (cusparse_applies(g)) {
        SP_CUSPARSE(cusparseSetStream(g->handle, stream), err);
        SP_CUSPARSE(cusparseCsr2cscEx2(g->handle, g->rows, g->cols, g->nnz, g->val, g->rowptr,
                                       g->colidx, g->cval, g->colptr, g->rowidx, value_type(g),
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
    return sp_trans_gpu_step(state, ex, "transpose_cusparse", cusparse_csr2csc, err);
}
