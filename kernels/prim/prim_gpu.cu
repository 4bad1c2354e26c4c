/*
 * prim_gpu.cu — the primitive operations' GPU kernels (prepare: the input
 * derived from the matrix in host memory, no CUDA call; upload: the
 * device arrays and the input's copy; launch: the primitive enqueued on
 * the harness's stream; result: the output copied back), and the host
 * wrappers the GPU tests call the primitives through. The harness times
 * the steps; nothing here reads a clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prim.cuh"

enum prim { SCAN, HISTOGRAM, IDX2PTR, PTR2IDX, SEGSORT, MERGE };

typedef struct prim_state {
    enum prim which;
    int bs = 0;
    int64_t n;              /* input elements */
    int32_t bins;           /* histogram, idx2ptr: cols; ptr2idx: positions */
    void *host_in;          /* the input derived on the host (prepare) */
    size_t in_bytes;
    void *in, *out, *a, *b, *temp;
    const void *result;     /* merge: the buffer holding the last round */
    size_t out_bytes;
} prim_state;

static size_t in_elem(enum prim w)
{
    return w == SEGSORT || w == MERGE ? 8 : 4;
}

/* The primitive on the state's device arrays, enqueued on `stream`. */
static int prim_exec(prim_state *s, cudaStream_t stream, sp_err *err)
{
    switch (s->which) {
    case SCAN:
        return sp_gpu_scan((const int32_t *)s->in, (int32_t *)s->out, s->n, s->bs, s->temp,
                           stream, err);
    case HISTOGRAM:
        return sp_gpu_histogram((const int32_t *)s->in, s->n, (int32_t *)s->out, s->bins, s->bs,
                                stream, err);
    case IDX2PTR:
        return sp_gpu_idx2ptr((const int32_t *)s->in, s->n, (int32_t *)s->out, s->bins, s->bs,
                              stream, err);
    case PTR2IDX:
        return sp_gpu_ptr2idx((const int32_t *)s->in, (int32_t)s->n, (int32_t *)s->out, s->bins,
                              s->bs, stream, err);
    case SEGSORT:
        return sp_gpu_segsort((const uint64_t *)s->in, (uint64_t *)s->out, s->n, s->bs, stream,
                              err);
    case MERGE: {
        const uint64_t *r;
        if (sp_gpu_merge((const uint64_t *)s->in, (uint64_t *)s->a, (uint64_t *)s->b, s->n,
                         SP_PRIM_SEG, s->bs, &r, stream, err))
            return -1;
        s->result = r;
        return 0;
    }
    }
    return sp_fail(err, "prim: unknown primitive %d", (int)s->which);
}

static cudaError_t dalloc(void **p, size_t bytes)
{
    return cudaMalloc(p, bytes ? bytes : 1);
}

/* Device arrays for s: input (copied from s->host_in on `stream`),
 * output, merge buffers, scan temporaries. */
static int prim_alloc(prim_state *s, cudaStream_t stream, sp_err *err)
{
    SP_CUDA(dalloc(&s->in, s->in_bytes), err);
    if (s->in_bytes)
        SP_CUDA(cudaMemcpyAsync(s->in, s->host_in, s->in_bytes, cudaMemcpyHostToDevice, stream),
                err);
    if (s->which == MERGE) {
        SP_CUDA(dalloc(&s->a, s->out_bytes), err);
        SP_CUDA(dalloc(&s->b, s->out_bytes), err);
    } else {
        SP_CUDA(dalloc(&s->out, s->out_bytes), err);
    }
    if (s->which == SCAN)
        SP_CUDA(dalloc(&s->temp, sp_gpu_scan_temp_bytes(s->n, s->bs)), err);
    return 0;
}

/* cudaFree of what was allocated: a state that never reached the device
 * asks nothing of it. */
static void free_dev(void *p)
{
    if (p)
        cudaFree(p);
}

static void prim_free(prim_state *s)
{
    if (!s)
        return;
    free_dev(s->in);
    free_dev(s->out);
    free_dev(s->a);
    free_dev(s->b);
    free_dev(s->temp);
    free(s->host_in);
    free(s);
}

/* Output bytes of primitive w with n inputs and `bins` bins / positions. */
static size_t out_bytes_of(enum prim w, int64_t n, int32_t bins)
{
    switch (w) {
    case SCAN:
        return ((size_t)n + 1) * 4;
    case HISTOGRAM:
        return (size_t)bins * 4;
    case IDX2PTR:
        return ((size_t)bins + 1) * 4;
    case PTR2IDX:
        return (size_t)bins * 4;
    default:
        return (size_t)n * 8;
    }
}

static const char *const prim_names[] = {"scan", "histogram", "idx2ptr",
                                         "ptr2idx", "segsort", "merge"};

/* The primitive called op, or -1 with the reason. */
static int prim_of(const char *op, sp_err *err)
{
    for (int w = 0; w < 6; w++)
        if (!strcmp(prim_names[w], op))
            return w;
    return sp_fail(err, "prim: unknown primitive '%s'", op);
}

/* The input of s's primitive derived from A into s->host_in, and the
 * sizes of the device arrays. */
static int prim_input(prim_state *s, const char *op, const sp_csr *A, sp_err *err)
{
    s->bins = s->which == PTR2IDX ? A->nnz : A->cols;
    if (sp_prim_input(op, A, &s->host_in, &s->n, err))
        return -1;
    s->out_bytes = out_bytes_of(s->which, s->n, s->bins);
    s->in_bytes =
        s->which == PTR2IDX ? ((size_t)s->n + 1) * 4 : (size_t)s->n * in_elem(s->which);
    return 0;
}

/* Host only: the primitive and its block size checked, its input derived. */
extern "C" int sp_prim_gpu_prepare(const char *op, const sp_problem *pb, const sp_params *p,
                                   void **state, sp_err *err)
{
    *state = NULL;
    int w = prim_of(op, err), bs = 0;
    if (w < 0)
        return -1;
    char kname[32];
    snprintf(kname, sizeof kname, "%s_cuda", op);
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", kname);
    if (sp_prim_blocksize(kname, p, &bs, err))
        return -1;
    prim_state *s = (prim_state *)calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "%s: out of memory for the kernel state", kname);
    s->which = (enum prim)w;
    s->bs = bs;
    if (prim_input(s, op, pb->A, err)) {
        prim_free(s);
        return -1;
    }
    *state = s;
    return 0;
}

/* The device arrays and the input's copy, on ex->stream. */
extern "C" int sp_prim_gpu_upload(void *state, const sp_exec *ex, sp_err *err)
{
    prim_state *s = (prim_state *)state;
    if (!s)
        return sp_fail(err, "primitive: upload without a state");
    return prim_alloc(s, ex ? (cudaStream_t)ex->stream : 0, err);
}

/* Every launch rewrites the whole output from the untouched input (merge
 * lands in the same buffer each time), so launches repeat as they are. */
extern "C" int sp_prim_gpu_launch(void *state, const sp_exec *ex, sp_err *err)
{
    prim_state *s = (prim_state *)state;
    if (!s || !ex)
        return sp_fail(err, "primitive: launch without a state");
    return prim_exec(s, (cudaStream_t)ex->stream, err);
}

/* The output copied back on ex->stream after the launches (the harness
 * waits for the device around it). */
extern "C" int sp_prim_gpu_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    prim_state *s = (prim_state *)state;
    if (!s || !out)
        return sp_fail(err, "primitive: result without a state or an output buffer");
    const void *src = s->which == MERGE ? (s->result ? s->result : s->in) : s->out;
    if (s->out_bytes)
        SP_CUDA(cudaMemcpyAsync(out, src, s->out_bytes, cudaMemcpyDeviceToHost,
                                ex ? (cudaStream_t)ex->stream : 0),
                err);
    return 0;
}

extern "C" void sp_prim_gpu_release(void *state)
{
    prim_free((prim_state *)state);
}

#define PRIM_PREPARE(NAME)                                                                \
    extern "C" int sp_##NAME##_cuda_prepare(const sp_problem *pb, const sp_params *p,     \
                                            void **state, sp_err *err)                    \
    {                                                                                     \
        return sp_prim_gpu_prepare(#NAME, pb, p, state, err);                             \
    }
PRIM_PREPARE(scan)
PRIM_PREPARE(histogram)
PRIM_PREPARE(idx2ptr)
PRIM_PREPARE(ptr2idx)
PRIM_PREPARE(segsort)
PRIM_PREPARE(merge)

/* ---- host wrappers for the tests: upload, run, download ---------------- */

/* Primitive w on a host input of in_bytes bytes, through a state of its
 * own on the default stream; the output into out. */
static int host_run(enum prim w, const void *in, size_t in_bytes, int64_t n, int32_t bins,
                    int bs, void *out, sp_err *err)
{
    prim_state *s = (prim_state *)calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "primitive: out of memory");
    s->which = w;
    s->bs = bs;
    s->n = n;
    s->bins = bins;
    s->out_bytes = out_bytes_of(w, n, bins);
    s->in_bytes = in_bytes;
    s->host_in = (void *)in;
    int rc = prim_alloc(s, 0, err) || prim_exec(s, 0, err);
    if (!rc) {
        cudaError_t e = cudaDeviceSynchronize();   /* the primitive's own errors first */
        const void *src = w == MERGE ? (s->result ? s->result : s->in) : s->out;
        if (e == cudaSuccess && s->out_bytes)
            e = cudaMemcpy(out, src, s->out_bytes, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            rc = sp_fail(err, "%s: %s", prim_names[w], cudaGetErrorString(e));
    }
    s->host_in = NULL;      /* the caller's */
    prim_free(s);
    return rc ? -1 : 0;
}

extern "C" int sp_gpu_scan_host(const int32_t *in, int32_t *out, int64_t n, int bs, sp_err *err)
{
    return host_run(SCAN, in, (size_t)n * 4, n, 0, bs, out, err);
}

extern "C" int sp_gpu_histogram_host(const int32_t *idx, int64_t n, int32_t *counts,
                                     int32_t bins, int bs, sp_err *err)
{
    return host_run(HISTOGRAM, idx, (size_t)n * 4, n, bins, bs, counts, err);
}

extern "C" int sp_gpu_idx2ptr_host(const int32_t *sorted, int64_t n, int32_t *ptr, int32_t bins,
                                   int bs, sp_err *err)
{
    return host_run(IDX2PTR, sorted, (size_t)n * 4, n, bins, bs, ptr, err);
}

extern "C" int sp_gpu_ptr2idx_host(const int32_t *ptr, int32_t nseg, int32_t *idx, int bs,
                                   sp_err *err)
{
    return host_run(PTR2IDX, ptr, ((size_t)nseg + 1) * 4, nseg, ptr[nseg], bs, idx, err);
}

extern "C" int sp_gpu_segsort_host(const uint64_t *in, uint64_t *out, int64_t n, int bs,
                                   sp_err *err)
{
    return host_run(SEGSORT, in, (size_t)n * 8, n, 0, bs, out, err);
}

extern "C" int sp_gpu_merge_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t run,
                                 int bs, sp_err *err)
{
    if (run != SP_PRIM_SEG) {   /* the state runs from SP_PRIM_SEG; other runs directly */
        uint64_t *d_in = NULL, *d_a = NULL, *d_b = NULL;
        const uint64_t *r = NULL;
        size_t bytes = (size_t)(n ? n : 1) * 8;
        int rc = 0;
        if (cudaMalloc(&d_in, bytes) || cudaMalloc(&d_a, bytes) || cudaMalloc(&d_b, bytes) ||
            cudaMemcpy(d_in, in, (size_t)n * 8, cudaMemcpyHostToDevice))
            rc = sp_fail(err, "merge: device allocation or upload failed");
        if (!rc)
            rc = sp_gpu_merge(d_in, d_a, d_b, n, run, bs, &r, 0, err);
        if (!rc && (cudaDeviceSynchronize() ||
                    cudaMemcpy(out, r, (size_t)n * 8, cudaMemcpyDeviceToHost)))
            rc = sp_fail(err, "merge: %s", cudaGetErrorString(cudaGetLastError()));
        cudaFree(d_in);
        cudaFree(d_a);
        cudaFree(d_b);
        return rc ? -1 : 0;
    }
    return host_run(MERGE, in, (size_t)n * 8, n, 0, bs, out, err);
}
