/*
 * spmv_gpu.cu — upload, result and release shared by every GPU SpMV
 * kernel.
 */
#include <stdlib.h>

#include "spmv_gpu.cuh"

/* cudaMalloc of n elements that never asks for zero bytes, so nnz = 0 or
 * rows = 0 still give valid pointers (cuSPARSE refuses NULL arrays). */
template <typename T> static cudaError_t device_alloc(T **p, size_t n)
{
    return cudaMalloc((void **)p, (n ? n : 1) * sizeof(T));
}

sp_gpu_spmv *sp_spmv_gpu_new(const sp_problem *pb, sp_err *err)
{
    if (!pb || !pb->A || (!pb->x && pb->A->cols > 0)) {
        sp_fail(err, "spmv (GPU): problem without a matrix or x");
        return NULL;
    }
    sp_gpu_spmv *g = (sp_gpu_spmv *)calloc(1, sizeof *g);
    if (!g) {
        sp_fail(err, "spmv (GPU): out of memory for the kernel state");
        return NULL;
    }
    g->rows = pb->A->rows;
    g->cols = pb->A->cols;
    g->nnz = pb->A->nnz;
    return g;
}

/* The timed part of the upload: allocations, then the four copies. */
static int upload_arrays(const sp_problem *pb, sp_gpu_spmv *g, sp_err *err)
{
    const sp_csr *A = pb->A;
    size_t rp = ((size_t)A->rows + 1) * sizeof(int32_t);
    size_t nz = (size_t)A->nnz;
    SP_CUDA(device_alloc(&g->rowptr, (size_t)A->rows + 1), err);
    SP_CUDA(device_alloc(&g->colidx, nz), err);
    SP_CUDA(device_alloc(&g->val, nz), err);
    SP_CUDA(device_alloc(&g->x, (size_t)A->cols), err);
    SP_CUDA(device_alloc(&g->y, (size_t)A->rows), err);
    SP_CUDA(cudaMemcpy(g->rowptr, A->rowptr, rp, cudaMemcpyHostToDevice), err);
    if (nz) {
        SP_CUDA(cudaMemcpy(g->colidx, A->colidx, nz * sizeof(int32_t),
                           cudaMemcpyHostToDevice), err);
        SP_CUDA(cudaMemcpy(g->val, A->val, nz * sizeof(double), cudaMemcpyHostToDevice),
                err);
    }
    if (A->cols)
        SP_CUDA(cudaMemcpy(g->x, pb->x, (size_t)A->cols * sizeof(double),
                           cudaMemcpyHostToDevice), err);
    return 0;
}

int sp_spmv_gpu_upload(const sp_problem *pb, sp_gpu_spmv *g, sp_phases *ph, sp_err *err)
{
    /* The first CUDA call creates the context; keep that out of h2d. */
    SP_CUDA(cudaDeviceSynchronize(), err);
    double t0 = sp_seconds();
    if (upload_arrays(pb, g, err))
        return -1;
    SP_CUDA(cudaDeviceSynchronize(), err);
    ph->h2d_s += sp_seconds() - t0;
    return 0;
}

int sp_spmv_gpu_upload_vectors(const sp_problem *pb, sp_gpu_spmv *g, sp_phases *ph,
                               sp_err *err)
{
    const sp_csr *A = pb->A;
    SP_CUDA(cudaDeviceSynchronize(), err);      /* the context, out of h2d */
    double t0 = sp_seconds();
    SP_CUDA(device_alloc(&g->x, (size_t)A->cols), err);
    SP_CUDA(device_alloc(&g->y, (size_t)A->rows), err);
    if (A->cols)
        SP_CUDA(cudaMemcpy(g->x, pb->x, (size_t)A->cols * sizeof(double),
                           cudaMemcpyHostToDevice), err);
    SP_CUDA(cudaDeviceSynchronize(), err);
    ph->h2d_s += sp_seconds() - t0;
    return 0;
}

int sp_spmv_gpu_put(void **dst, const void *src, size_t bytes, sp_err *err)
{
    SP_CUDA(cudaMalloc(dst, bytes ? bytes : 1), err);
    if (src && bytes)
        SP_CUDA(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice), err);
    return 0;
}

int sp_spmv_gpu_put_sell(sp_gpu_spmv *g, const sp_hll *H, sp_phases *ph, sp_err *err)
{
    if (H->ld != H->hack)       /* the GPU kernels and cuSPARSE step by hack */
        return sp_fail(err, "sliced ELL upload: %d rows stored per hack of %d (align must "
                       "be 1 for the GPU layout)", H->ld, H->hack);
    double t0 = sp_seconds();
    size_t n = (size_t)H->stored;
    if (sp_spmv_gpu_put((void **)&g->sell_off, H->off,
                        ((size_t)H->nhacks + 1) * sizeof(int32_t), err) ||
        sp_spmv_gpu_put((void **)&g->sell_col, H->col, n * sizeof(int32_t), err) ||
        sp_spmv_gpu_put((void **)&g->sell_val, H->val, n * sizeof(double), err))
        return -1;
    SP_CUDA(cudaDeviceSynchronize(), err);
    ph->h2d_s += sp_seconds() - t0;
    g->hack = H->hack;
    g->nslices = H->nhacks;
    g->stored = H->stored;
    g->width = H->nhacks == 1 ? H->width[0] : 0;
    return 0;
}

/* y back into out, timed into ph->d2h_s (after the last launch has ended). */
extern "C" int sp_spmv_gpu_result(void *state, void *out, sp_phases *ph, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g || !out)
        return sp_fail(err, "spmv (GPU): result without a state or an output buffer");
    SP_CUDA(cudaDeviceSynchronize(), err);
    double t0 = sp_seconds();
    if (g->rows)
        SP_CUDA(cudaMemcpy(out, g->y, (size_t)g->rows * sizeof(double),
                           cudaMemcpyDeviceToHost), err);
    ph->d2h_s += sp_seconds() - t0;
    return 0;
}

/* Frees whatever was made; safe on a partly prepared state and on NULL.
 * Errors are ignored: there is nothing left to report them to. */
extern "C" void sp_spmv_gpu_release(void *state)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return;
    if (g->matA)
        cusparseDestroySpMat(g->matA);
    if (g->vecX)
        cusparseDestroyDnVec(g->vecX);
    if (g->vecY)
        cusparseDestroyDnVec(g->vecY);
    /* The handle still names the harness's stream of the last launch,
     * which the harness may have destroyed already (the tests close it
     * after each sample): back to the default stream before the destroy. */
    if (g->handle) {
        cusparseSetStream(g->handle, 0);
        cusparseDestroy(g->handle);
    }
    cudaFree(g->buffer);
    cudaFree(g->rowptr);
    cudaFree(g->colidx);
    cudaFree(g->val);
    cudaFree(g->x);
    cudaFree(g->y);
    cudaFree(g->sell_off);
    cudaFree(g->sell_col);
    cudaFree(g->sell_val);
    cudaFree(g->perm);
    cudaFree(g->tiles);
    cudaFree(g->carry_row);
    cudaFree(g->carry_val);
    cudaFree(g->coo_row);
    cudaFree(g->dia_offset);
    cudaFree(g->dia_val);
    if (g->aux && g->aux_free)
        g->aux_free(g->aux);
    free(g);
}
