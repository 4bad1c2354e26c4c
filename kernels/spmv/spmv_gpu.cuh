/*
 * spmv_gpu.cuh — the state every GPU SpMV kernel shares: the format built
 * on the host, the list of device arrays to make from it, the arrays on
 * the device and (for cuSPARSE) the library handle, descriptors and work
 * buffer. The harness times every step (runner/exec/harness.h); no kernel
 * reads a clock or waits for the device. A kernel's
 *   prepare  (host only, no CUDA call) checks its axes, then
 *              g = sp_spmv_gpu_new(pb, err)      (records x and y), or
 *              g = sp_spmv_gpu_csr(pb, err)      (records A's CSR too),
 *            builds its format in host memory the state owns (g->hll,
 *            g->dia, g->h_tiles, ...) and records each array to upload
 *            with sp_spmv_gpu_add / sp_spmv_gpu_add_sell; it ends with
 *              return sp_spmv_gpu_done(g, rc, state);
 *   upload   sp_spmv_gpu_upload: every recorded array allocated on the
 *            device and copied (or zeroed) on the harness's stream, or
 *            with `memory = managed` (sp_spmv_gpu_memory) allocated as
 *            unified memory, filled the same way, x advised;
 *   analyse  (cuSPARSE, merge path) device-side setup after the upload;
 *   launch   the kernels enqueued on the harness's stream, no wait;
 *   result   sp_spmv_gpu_result: y back to the host on that stream;
 *   release  sp_spmv_gpu_release: whatever exists freed, from any state.
 * The host copy of a format stays in the state until release (one owner,
 * one place that frees it, and no wait for the copies to finish).
 */
#ifndef SP_SPMV_GPU_CUH
#define SP_SPMV_GPU_CUH

#include "../cuda_check.h"
#include "../dia.h"
#include "../hll.h"
#include "spmv_adaptive.h"
#include "spmv_gpu_host.h"

/* One device array the shared upload makes: cudaMalloc of bytes (at least
 * 8, so an empty array still gets a valid pointer: cuSPARSE refuses NULL
 * arrays) into *dev, then the bytes copied from host, or zeroed when host
 * is NULL and zero is set, or left as they are (outputs, work buffers). */
typedef struct sp_gpu_array {
    void **dev;
    const void *host;
    size_t bytes;
    int zero;
} sp_gpu_array;

/* Most device arrays one kernel makes (hybrid CSR: 10). */
#define SP_GPU_ARRAYS 12

struct sp_gpu_spmv {
    int32_t rows, cols, nnz;
    int32_t *rowptr, *colidx;   /* device; never NULL once uploaded */
    double *val, *x, *y;        /* device; at least one element each */
    int blocksize;              /* hand-written kernels: the `blocksize` axis */
    int memory;                 /* the `memory` axis: SP_MEMORY_DEVICE or _MANAGED */
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
    /* hybrid CSR: the long-row plan, one partial per chunk, one counter
     * per long row */
    int32_t *long_row, *long_first, *chunk_long;
    double *partial;
    unsigned *count;
    /* DIA: diagonal offsets and values (val[d·rows + i]), rows per thread */
    int32_t ndiags, rows_per_thread;
    int32_t *dia_offset;
    double *dia_val;
    /* adaptive CSR: the blocks (CUDA int4), each long row's first chunk
     * block and chunk count, nonzeros per thread; a partial per block in
     * `partial` (long rows use them), a counter per long row in `count` */
    void *ablock;
    int32_t *along_first, *along_chunks;
    int items;
    int astream;                /* `loads`: 0 cached, 1 stream, 2 auto (0 or 1 after analyse) */
    /* cuSPARSE COO: a row index per nonzero */
    int32_t *coo_row;
    int alg;                    /* cuSPARSE: the cusparseSpMVAlg_t */
    cusparseHandle_t handle;    /* cuSPARSE kernels only, made by analyse */
    cusparseSpMatDescr_t matA;
    cusparseDnVecDescr_t vecX, vecY;
    void *buffer;
    /* The host side, built by prepare and freed by release: the format of
     * the kernels that convert (at most one of these is set) ... */
    sp_hll hll;
    sp_dia dia;
    sp_hybrid_plan plan;
    sp_adaptive_plan aplan;     /* adaptive CSR: its blocks (spmv_adaptive.h) */
    int32_t *h_tiles, *h_coo_row, *h_perm;
    /* ... and what upload makes of it, in order. */
    sp_gpu_array arrays[SP_GPU_ARRAYS];
    int narrays;
    /* The `precision` axis (sp_spmv_gpu_precision, the last step of a
     * prepare): in single the value arrays above (val, x, y, sell_val,
     * carry_val, partial, dia_val) are made in float instead, here, from
     * host copies prepare rounded (h32, one per recorded array, freed by
     * release), and the double pointers stay NULL. */
    sp_precision prec;
    struct {
        float *val, *x, *y, *sell_val, *carry_val, *partial, *dia_val;
    } f32;
    float *h32[SP_GPU_ARRAYS];
};

/* The value arrays of g in the kernels' value type V (double: the double
 * pointers; float: f32), for launches templated on V. */
template <typename V> struct sp_gpu_values {
    V *val, *x, *y, *sell_val, *carry_val, *partial, *dia_val;
};
template <typename V> sp_gpu_values<V> sp_spmv_gpu_values(const sp_gpu_spmv *g);
template <> inline sp_gpu_values<double> sp_spmv_gpu_values<double>(const sp_gpu_spmv *g)
{
    return {g->val, g->x, g->y, g->sell_val, g->carry_val, g->partial, g->dia_val};
}
template <> inline sp_gpu_values<float> sp_spmv_gpu_values<float>(const sp_gpu_spmv *g)
{
    return {g->f32.val,       g->f32.x,       g->f32.y,      g->f32.sell_val,
            g->f32.carry_val, g->f32.partial, g->f32.dia_val};
}

/* The end of a prepare before sp_spmv_gpu_done: the precision recorded
 * in g and, in single, every value array recorded so far switched to its
 * float twin (4 bytes an element), its host data rounded to float into a
 * copy g owns (counted as conversion, host only). Double changes nothing.
 * -1 with the reason (out of memory). */
int sp_spmv_gpu_precision(sp_gpu_spmv *g, sp_precision prec, sp_err *err);

/* The `memory` axis of p (sp_gpu_memory: default device, checked) into
 * g: with managed, the shared upload allocates every recorded array with
 * cudaMallocManaged instead (spmv_gpu.cu says how it advises x). Host
 * only; -1 with the reason, naming `name`. */
int sp_spmv_gpu_memory(sp_gpu_spmv *g, const char *name, const sp_params *p, sp_err *err);

/* A zeroed state for pb's matrix with x (copied from pb->x) and y (left
 * unwritten) recorded for the upload, or NULL (err filled). Host only. */
sp_gpu_spmv *sp_spmv_gpu_new(const sp_problem *pb, sp_err *err);

/* sp_spmv_gpu_new plus A's rowptr, colidx and val recorded (copied from
 * the problem's CSR, which outlives the state). Host only. */
sp_gpu_spmv *sp_spmv_gpu_csr(const sp_problem *pb, sp_err *err);

/* The whole prepare of a kernel that reads A's CSR as it is (one thread,
 * or one block, a row): `blocksize` (whole warps when whole_warps),
 * `precision` and `memory` checked, A's CSR, x and y recorded for the
 * shared upload (in float for single). Host only. */
int sp_spmv_gpu_csr_prepare(const char *name, const sp_problem *pb, const sp_params *p,
                            int whole_warps, void **state, sp_err *err);

/* Record one device array (sp_gpu_array) for the upload. Host only; -1
 * with the reason past SP_GPU_ARRAYS. */
int sp_spmv_gpu_add(sp_gpu_spmv *g, void **dev, const void *host, size_t bytes, int zero,
                    sp_err *err);

/* Record H (offsets, columns, values; built by prepare and owned by the
 * state) for the upload and set g's slice fields. -1 with the reason
 * when H is not in the GPU layout (ld = hack). Host only. */
int sp_spmv_gpu_add_sell(sp_gpu_spmv *g, const sp_hll *H, sp_err *err);

/* cudaMalloc of max(bytes, 8) into *dev (upload, analyse). A failure (out
 * of memory) is cleared from CUDA's last error, which is not sticky, so a
 * later launch in this process does not report it as its own. */
int sp_spmv_gpu_alloc(void **dev, size_t bytes, sp_err *err);

/* The end of every prepare: rc = 0 gives *state = g; otherwise g is
 * released and the prepare fails with *state left NULL. */
int sp_spmv_gpu_done(sp_gpu_spmv *g, int rc, void **state);

#endif
