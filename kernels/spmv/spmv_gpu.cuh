/*
 * spmv_gpu.cuh — the device-side state every GPU SpMV kernel shares: the
 * CSR and the vectors on the device and (for cuSPARSE) the library handle,
 * descriptors and work buffer. A kernel's prepare is
 *   g = sp_spmv_gpu_new(pb, err); sp_spmv_gpu_upload(pb, g, ph, err);
 *   <its own setup>; on any failure sp_spmv_gpu_release(g).
 * Its launch enqueues on the harness's stream (sp_exec) and returns; the
 * harness owns the clock (runner/harness.h).
 */
#ifndef SP_SPMV_GPU_CUH
#define SP_SPMV_GPU_CUH

#include "../cuda_check.h"
#include "../hll.h"
#include "spmv_gpu_host.h"

struct sp_gpu_spmv {
    int32_t rows, cols, nnz;
    int32_t *rowptr, *colidx;   /* device; never NULL once uploaded */
    double *val, *x, *y;        /* device; at least one element each */
    int blocksize;              /* hand-written kernels: the `blocksize` axis */
    int lanes;                  /* sub-warp CSR: threads per row */
    /* a sliced ELL (ELL, HLL, cuSPARSE SELL) on the device, when used */
    int32_t hack, nslices, width;
    int64_t stored;
    int32_t *sell_off, *sell_col;
    int32_t *perm;              /* SELL-C-sigma: y[perm[i]] for stored row i */
    double *sell_val;
    /* merge-path CSR: tile coordinates and one carry per tile */
    int64_t ntiles;
    int32_t *tiles, *carry_row;
    double *carry_val;
    /* DIA: diagonal offsets and values (val[d·rows + i]), rows per thread */
    int32_t ndiags, rows_per_thread;
    int32_t *dia_offset;
    double *dia_val;
    /* cuSPARSE COO: a row index per nonzero */
    int32_t *coo_row;
    int alg;                    /* cuSPARSE: the cusparseSpMVAlg_t */
    cusparseHandle_t handle;    /* cuSPARSE kernels only */
    cusparseSpMatDescr_t matA;
    cusparseDnVecDescr_t vecX, vecY;
    void *buffer;
    /* a kernel's own extra state, freed by aux_free(aux) on release */
    void *aux;
    void (*aux_free)(void *);
};

/* A zeroed state for pb's matrix, or NULL (err filled). */
sp_gpu_spmv *sp_spmv_gpu_new(const sp_problem *pb, sp_err *err);

/* Allocate the device arrays and copy A and x up; the allocations and
 * copies are timed into ph->h2d_s. */
int sp_spmv_gpu_upload(const sp_problem *pb, sp_gpu_spmv *g, sp_phases *ph, sp_err *err);

/* x and y only (kernels that upload a converted format instead of the
 * CSR); timed into ph->h2d_s. */
int sp_spmv_gpu_upload_vectors(const sp_problem *pb, sp_gpu_spmv *g, sp_phases *ph,
                               sp_err *err);

/* cudaMalloc of max(bytes, 1) into *dst and a copy of bytes from src (none
 * when src is NULL or bytes is 0). The caller times it. */
int sp_spmv_gpu_put(void **dst, const void *src, size_t bytes, sp_err *err);

/* Upload S (offsets, columns, values) into g, timed into ph->h2d_s. */
int sp_spmv_gpu_put_sell(sp_gpu_spmv *g, const sp_hll *H, sp_phases *ph, sp_err *err);

#endif
