/*
 * spmv_gpu.cu — the state every GPU SpMV kernel shares (spmv_gpu.cuh):
 * its making and the arrays recorded for the upload (host only), the one
 * upload that allocates and copies them, the result and the release.
 * Nothing here reads a clock or waits for the device: the harness times
 * each step between two waits of its own (runner/exec/harness.c).
 */
#include <stdlib.h>
#include <string.h>

#include "spmv_gpu.cuh"

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
    const sp_csr *A = pb->A;
    g->rows = A->rows, g->cols = A->cols, g->nnz = A->nnz;
    /* two entries in an empty list: these cannot fail */
    sp_spmv_gpu_add(g, (void **)&g->x, pb->x, (size_t)A->cols * sizeof(double), 0, err);
    sp_spmv_gpu_add(g, (void **)&g->y, NULL, (size_t)A->rows * sizeof(double), 0, err);
    return g;
}

sp_gpu_spmv *sp_spmv_gpu_csr(const sp_problem *pb, sp_err *err)
{
    sp_gpu_spmv *g = sp_spmv_gpu_new(pb, err);
    if (!g)
        return NULL;
    const sp_csr *A = pb->A;
    size_t nz = (size_t)A->nnz;
    if (sp_spmv_gpu_add(g, (void **)&g->rowptr, A->rowptr,
                        ((size_t)A->rows + 1) * sizeof(int32_t), 0, err) ||
        sp_spmv_gpu_add(g, (void **)&g->colidx, A->colidx, nz * sizeof(int32_t), 0, err) ||
        sp_spmv_gpu_add(g, (void **)&g->val, A->val, nz * sizeof(double), 0, err)) {
        sp_spmv_gpu_release(g);
        return NULL;
    }
    return g;
}

int sp_spmv_gpu_add(sp_gpu_spmv *g, void **dev, const void *host, size_t bytes, int zero,
                    sp_err *err)
{
    if (g->narrays == SP_GPU_ARRAYS)
        return sp_fail(err, "spmv (GPU): more than %d device arrays", SP_GPU_ARRAYS);
    g->arrays[g->narrays++] = (sp_gpu_array){dev, host, bytes, zero};
    return 0;
}

int sp_spmv_gpu_add_sell(sp_gpu_spmv *g, const sp_hll *H, sp_err *err)
{
    if (H->ld != H->hack)       /* the GPU kernels and cuSPARSE step by hack */
        return sp_fail(err, "sliced ELL on the GPU: %d rows stored per hack of %d (align must "
                       "be 1 for the GPU layout)", H->ld, H->hack);
    size_t n = (size_t)H->stored;
    g->hack = H->hack;
    g->nslices = H->nhacks;
    g->stored = H->stored;
    g->width = H->nhacks == 1 ? H->width[0] : 0;
    if (sp_spmv_gpu_add(g, (void **)&g->sell_off, H->off,
                        ((size_t)H->nhacks + 1) * sizeof(int32_t), 0, err) ||
        sp_spmv_gpu_add(g, (void **)&g->sell_col, H->col, n * sizeof(int32_t), 0, err) ||
        sp_spmv_gpu_add(g, (void **)&g->sell_val, H->val, n * sizeof(double), 0, err))
        return -1;
    return 0;
}

/* Recorded array i as its float twin f: n values rounded from its host
 * data (if any) into a copy g owns. */
static int to_float(sp_gpu_spmv *g, int i, float **f, sp_err *err)
{
    sp_gpu_array *a = &g->arrays[i];
    size_t n = a->bytes / sizeof(double);
    a->dev = (void **)f;
    a->bytes = n * sizeof(float);
    if (!a->host)
        return 0;
    float *h = sp_float_copy((const double *)a->host, n);
    if (!h)
        return sp_fail(err, "spmv (GPU): out of memory rounding %zu values to single", n);
    g->h32[i] = h;
    a->host = h;
    return 0;
}

int sp_spmv_gpu_precision(sp_gpu_spmv *g, sp_precision prec, sp_err *err)
{
    g->prec = prec;
    if (prec == SP_DOUBLE)
        return 0;
    if (prec != SP_SINGLE)
        return sp_fail(err, "spmv (GPU): precision %d is neither double nor single", (int)prec);
    double **d[] = {&g->val, &g->x, &g->y, &g->sell_val, &g->carry_val, &g->partial,
                    &g->dia_val};
    float **f[] = {&g->f32.val, &g->f32.x, &g->f32.y, &g->f32.sell_val, &g->f32.carry_val,
                   &g->f32.partial, &g->f32.dia_val};
    for (int i = 0; i < g->narrays; i++)
        for (size_t v = 0; v < sizeof d / sizeof *d; v++)
            if (g->arrays[i].dev == (void **)d[v] && to_float(g, i, f[v], err))
                return -1;
    return 0;
}

int sp_spmv_gpu_memory(sp_gpu_spmv *g, const char *name, const sp_params *p, sp_err *err)
{
    return sp_gpu_memory(name, p, &g->memory, err);
}

int sp_spmv_gpu_csr_prepare(const char *name, const sp_problem *pb, const sp_params *p,
                            int whole_warps, void **state, sp_err *err)
{
    *state = NULL;
    int bs;
    sp_precision prec;
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", name);
    if (sp_gpu_blocksize(name, p, whole_warps, &bs, err) ||
        sp_precision_param(p, name, &prec, err))
        return -1;
    sp_gpu_spmv *g = sp_spmv_gpu_csr(pb, err);
    if (!g)
        return -1;
    g->blocksize = bs;
    return sp_spmv_gpu_done(g,
                            sp_spmv_gpu_memory(g, name, p, err) ||
                                sp_spmv_gpu_precision(g, prec, err),
                            state);
}

int sp_spmv_gpu_done(sp_gpu_spmv *g, int rc, void **state)
{
    if (rc) {
        sp_spmv_gpu_release(g);
        return -1;
    }
    *state = g;
    return 0;
}

int sp_spmv_gpu_alloc(void **dev, size_t bytes, sp_err *err)
{
    cudaError_t e = cudaMalloc(dev, bytes ? bytes : 8);
    if (e == cudaSuccess)
        return 0;
    cudaGetLastError();     /* not sticky: cleared, or the next launch's check reports it */
    return sp_fail(err, "cudaMalloc of %zu bytes: %s", bytes, cudaGetErrorString(e));
}

/* One recorded array: allocated, then filled on stream. The host copy
 * stays in the state until release, so the copies need no wait here. */
static int upload_array(const sp_gpu_array *a, cudaStream_t stream, sp_err *err)
{
    if (sp_spmv_gpu_alloc(a->dev, a->bytes, err))
        return -1;
    if (a->host && a->bytes)
        SP_CUDA(cudaMemcpyAsync(*a->dev, a->host, a->bytes, cudaMemcpyHostToDevice, stream),
                err);
    else if (!a->host && a->zero)
        SP_CUDA(cudaMemsetAsync(*a->dev, 0, a->bytes ? a->bytes : 8, stream), err);
    return 0;
}

/* x, in either precision: the one array study 002 advised. */
static int is_x(const sp_gpu_spmv *g, const sp_gpu_array *a)
{
    return a->dev == (void **)&g->x || a->dev == (void **)&g->f32.x;
}

/* `memory = managed`, as study 002 set up its GPU runs (its section V.A.1:
 * "cudaMemAdvise to tell the GPU the access is read-only and to optimize
 * the placement"; the authors' published code: x from cudaMallocManaged,
 * copied in with cudaMemcpy, then advised read-mostly with the host as its
 * preferred location, no prefetch). Here every array is managed, filled on
 * the harness's stream as device arrays are, and x advised as theirs was.
 * Read-mostly lets the device keep a read-only copy of x's pages once a
 * launch reads them; no prefetch, so that happens in the first launch (a
 * warm-up run unless warmup = 0). */
static int upload_managed(const sp_gpu_spmv *g, const sp_gpu_array *a, cudaStream_t stream,
                          sp_err *err)
{
    size_t bytes = a->bytes ? a->bytes : 8;
    cudaError_t e = cudaMallocManaged(a->dev, bytes, cudaMemAttachGlobal);
    if (e != cudaSuccess) {
        cudaGetLastError();     /* not sticky: cleared, as sp_spmv_gpu_alloc does */
        return sp_fail(err, "cudaMallocManaged of %zu bytes: %s", bytes,
                       cudaGetErrorString(e));
    }
    if (a->host && a->bytes)
        SP_CUDA(cudaMemcpyAsync(*a->dev, a->host, a->bytes, cudaMemcpyDefault, stream), err);
    else if (!a->host && a->zero)
        SP_CUDA(cudaMemsetAsync(*a->dev, 0, bytes, stream), err);
    if (is_x(g, a)) {
        cudaMemLocation host = {cudaMemLocationTypeHost, 0};
        SP_CUDA(cudaMemAdvise(*a->dev, bytes, cudaMemAdviseSetReadMostly, host), err);
        SP_CUDA(cudaMemAdvise(*a->dev, bytes, cudaMemAdviseSetPreferredLocation, host), err);
    }
    return 0;
}

/* Managed memory needs a device that has it. */
static int managed_device(sp_err *err)
{
    int device = 0, managed = 0;
    SP_CUDA(cudaGetDevice(&device), err);
    SP_CUDA(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, device), err);
    if (!managed)
        return sp_fail(err, "memory = managed: device %d has no managed memory", device);
    return 0;
}

/* Every recorded array on the device (the harness waits for the copies):
 * the harness's h2d phase. With memory = managed that phase holds the
 * managed allocations, the copies into them and x's advice; x's read-only
 * copy on the device is made by the first launch, outside it. */
extern "C" int sp_spmv_gpu_upload(void *state, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return sp_fail(err, "spmv (GPU): upload without a state");
    cudaStream_t stream = (cudaStream_t)ex->stream;
    if (g->memory == SP_MEMORY_MANAGED && managed_device(err))
        return -1;
    for (int i = 0; i < g->narrays; i++)
        if (g->memory == SP_MEMORY_MANAGED ? upload_managed(g, &g->arrays[i], stream, err)
                                           : upload_array(&g->arrays[i], stream, err))
            return -1;
    return 0;
}

/* The copy of y back: managed y is copied by its unified address (the
 * driver finds where its pages are). */
static cudaMemcpyKind y_kind(const sp_gpu_spmv *g)
{
    return g->memory == SP_MEMORY_MANAGED ? cudaMemcpyDefault : cudaMemcpyDeviceToHost;
}

/* Single: the rows floats of y (4 bytes each: what the run moves) into
 * the first half of out, a wait for them, then widened to double in place
 * from the last: double i covers floats 2i and 2i + 1, both read already
 * (i >= 1), or float 0 itself, read first. memcpy: out is read as floats
 * and written as doubles, which plain pointers may not do. */
static int single_result(const sp_gpu_spmv *g, unsigned char *out, cudaStream_t stream,
                         sp_err *err)
{
    size_t n = (size_t)g->rows;
    SP_CUDA(cudaMemcpyAsync(out, g->f32.y, n * sizeof(float), y_kind(g), stream), err);
    SP_CUDA(cudaStreamSynchronize(stream), err);
    for (size_t i = n; i-- > 0;) {
        float f;
        memcpy(&f, out + i * sizeof f, sizeof f);
        double d = f;
        memcpy(out + i * sizeof d, &d, sizeof d);
    }
    return 0;
}

/* y back into out on the harness's stream (the harness has waited for the
 * last launch and waits for this copy). */
extern "C" int sp_spmv_gpu_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g || !out)
        return sp_fail(err, "spmv (GPU): result without a state or an output buffer");
    if (g->rows && g->prec == SP_SINGLE)
        return single_result(g, (unsigned char *)out, (cudaStream_t)ex->stream, err);
    if (g->rows)
        SP_CUDA(cudaMemcpyAsync(out, g->y, (size_t)g->rows * sizeof(double), y_kind(g),
                                (cudaStream_t)ex->stream), err);
    return 0;
}

/* cuSPARSE's objects (made by analyse), if any. */
static void release_cusparse(sp_gpu_spmv *g)
{
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
    if (g->buffer)
        cudaFree(g->buffer);
}

/* Frees whatever was made, from any state prepare, upload or analyse left
 * (NULL included); after a prepare alone it makes no CUDA call. Errors are
 * ignored: there is nothing left to report them to. */
extern "C" void sp_spmv_gpu_release(void *state)
{
    sp_gpu_spmv *g = (sp_gpu_spmv *)state;
    if (!g)
        return;
    release_cusparse(g);
    for (int i = 0; i < g->narrays; i++)
        if (*g->arrays[i].dev)
            cudaFree(*g->arrays[i].dev);
    sp_hll_free(&g->hll);
    sp_dia_free(&g->dia);
    sp_hybrid_plan_free(&g->plan);
    sp_adaptive_plan_free(&g->aplan);
    free(g->h_tiles);
    free(g->h_coo_row);
    free(g->h_perm);
    for (int i = 0; i < SP_GPU_ARRAYS; i++)
        free(g->h32[i]);
    free(g);
}
