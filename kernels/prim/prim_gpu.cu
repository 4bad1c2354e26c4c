/*
 * prim_gpu.cu — the primitive operations' GPU kernels (prepare: the axes
 * checked and the input derived from the workload in host memory, no CUDA
 * call; upload: the device arrays and the input's copy; launch: the
 * primitive enqueued on the harness's stream; result: the output copied
 * back), and the host wrappers the GPU tests call the primitives through.
 * The harness times the steps; nothing here reads a clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prim.cuh"

enum prim { SCAN, HISTOGRAM, IDX2PTR, PTR2IDX, SEGSORT, MERGE, HIST_IDX2PTR, NPRIM };

static const char *const prim_names[NPRIM] = {"scan",    "histogram", "idx2ptr",     "ptr2idx",
                                              "segsort", "merge",     "hist_idx2ptr"};

typedef struct prim_state {
    enum prim which;
    int bs;
    int64_t segment;        /* segsort: its segments; merge: its first runs; hist: its parts */
    int64_t sp_dist;        /* merge: outputs between splitters */
    int vertical;           /* hist_idx2ptr: SP_VERTICAL_* */
    int64_t n;              /* input elements (ptr2idx: segments) */
    int32_t bins;           /* histogram, idx2ptr, hist_idx2ptr: bins; ptr2idx: positions */
    void *host_in;          /* the input derived on the host (prepare) */
    size_t in_bytes;
    void *in, *out, *a, *b, *temp, *parts, *parts_t, *totals;
    const void *result;     /* merge: the buffer holding the last round */
    size_t out_bytes;       /* on the device (segsort's segment length comes after) */
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
        return sp_gpu_segsort_seg((const uint64_t *)s->in, (uint64_t *)s->out, s->n, s->segment,
                                  s->bs, stream, err);
    case MERGE: {
        const uint64_t *r;
        if (sp_gpu_merge_dist((const uint64_t *)s->in, (uint64_t *)s->a, (uint64_t *)s->b, s->n,
                              s->segment, s->sp_dist, s->bs, &r, stream, err))
            return -1;
        s->result = r;
        return 0;
    }
    case HIST_IDX2PTR:
        return sp_gpu_hist_idx2ptr((const int32_t *)s->in, s->n, s->bins, s->segment,
                                   s->vertical, s->bs, (int32_t *)s->parts,
                                   (int32_t *)s->parts_t, (int32_t *)s->totals,
                                   (int32_t *)s->out, s->temp, stream, err);
    default:
        break;
    }
    return sp_fail(err, "prim: unknown primitive %d", (int)s->which);
}

static cudaError_t dalloc(void **p, size_t bytes)
{
    return cudaMalloc(p, bytes ? bytes : 1);
}

/* The partial histograms' bytes of a hist_idx2ptr state. */
static size_t parts_bytes(const prim_state *s)
{
    return (size_t)sp_prim_nparts(s->n, s->segment) * (size_t)s->bins * sizeof(int32_t);
}

/* Device arrays for s: input (copied from s->host_in on `stream`),
 * output, merge buffers, scan temporaries, partial histograms. */
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
    if (s->which == HIST_IDX2PTR) {
        SP_CUDA(dalloc(&s->temp, sp_gpu_scan_temp_bytes(s->bins, s->bs)), err);
        SP_CUDA(dalloc(&s->parts, parts_bytes(s)), err);
        SP_CUDA(dalloc(&s->totals, (size_t)s->bins * sizeof(int32_t)), err);
        if (s->vertical == SP_VERTICAL_TRANSPOSE)
            SP_CUDA(dalloc(&s->parts_t, parts_bytes(s)), err);
    }
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
    free_dev(s->parts);
    free_dev(s->parts_t);
    free_dev(s->totals);
    free(s->host_in);
    free(s);
}

/* Output bytes on the device of primitive w with n inputs and `bins` bins
 * / positions. */
static size_t out_bytes_of(enum prim w, int64_t n, int32_t bins)
{
    switch (w) {
    case SCAN:
        return ((size_t)n + 1) * 4;
    case HISTOGRAM:
        return (size_t)bins * 4;
    case IDX2PTR:
    case HIST_IDX2PTR:
        return ((size_t)bins + 1) * 4;
    case PTR2IDX:
        return (size_t)bins * 4;
    default:
        return (size_t)n * 8;
    }
}

/* The primitive called op, or -1 with the reason. */
static int prim_of(const char *op, sp_err *err)
{
    for (int w = 0; w < NPRIM; w++)
        if (!strcmp(prim_names[w], op))
            return w;
    return sp_fail(err, "prim: unknown primitive '%s'", op);
}

/* The axes of kernel kname (operation w) into s: its block size, and its
 * segment and splitter distance where it has them. */
static int prim_axes(prim_state *s, const char *kname, const sp_params *p, sp_err *err)
{
    s->segment = SP_PRIM_SEG;
    s->sp_dist = SP_PRIM_SP_DIST;
    if (sp_prim_blocksize(kname, p, &s->bs, err))
        return -1;
    if (s->which == SEGSORT)
        return sp_prim_axis(kname, p, "segment", SP_PRIM_SEG, SP_PRIM_SEG_MAX, &s->segment, err);
    if (s->which == MERGE)
        return sp_prim_axis(kname, p, "segment", SP_PRIM_SEG, SP_PRIM_RUN_MAX, &s->segment,
                            err) ||
               sp_prim_axis(kname, p, "sp_dist", SP_PRIM_SP_DIST, SP_PRIM_SP_DIST_MAX,
                            &s->sp_dist, err)
                   ? -1
                   : 0;
    if (s->which == HIST_IDX2PTR)
        return sp_prim_axis(kname, p, "segment", 4096, SP_PRIM_HIST_SEG_MAX, &s->segment, err);
    return 0;
}

/* The input of s's primitive derived from the workload into s->host_in,
 * and the sizes of the device arrays. */
static int prim_input(prim_state *s, const char *op, const sp_problem *pb, sp_err *err)
{
    sp_prim_shape sh = {0, 0, 0, 0};
    if (sp_prim_shape_of(pb, &sh, err))
        return -1;
    s->bins = s->which == PTR2IDX ? (int32_t)sh.n : sh.bins;
    if (sp_prim_input(op, pb, s->segment, &s->host_in, &s->n, err))
        return -1;
    s->out_bytes = out_bytes_of(s->which, s->n, s->bins);
    s->in_bytes =
        s->which == PTR2IDX ? ((size_t)s->n + 1) * 4 : (size_t)s->n * in_elem(s->which);
    return 0;
}

/* Host only: the primitive and its axes checked, its input derived. */
static int prim_prepare(const char *op, const char *kname, int vertical, const sp_problem *pb,
                        const sp_params *p, void **state, sp_err *err)
{
    *state = NULL;
    int w = prim_of(op, err);
    if (w < 0)
        return -1;
    if (!pb || (!pb->A && !pb->key_workload))
        return sp_fail(err, "%s: problem without a matrix or a key array", kname);
    prim_state *s = (prim_state *)calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "%s: out of memory for the kernel state", kname);
    s->which = (enum prim)w;
    s->vertical = vertical;
    if (prim_axes(s, kname, p, err) || prim_input(s, op, pb, err)) {
        prim_free(s);
        return -1;
    }
    *state = s;
    return 0;
}

extern "C" int sp_prim_gpu_prepare(const char *op, const sp_problem *pb, const sp_params *p,
                                   void **state, sp_err *err)
{
    char kname[48];
    snprintf(kname, sizeof kname, "%s_cuda", op);
    return prim_prepare(op, kname, SP_VERTICAL_LOOP, pb, p, state, err);
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
 * waits for the device around it); segsort's segment length after it. */
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
    if (s->which == SEGSORT)
        ((uint64_t *)out)[s->n] = (uint64_t)s->segment;
    return 0;
}

extern "C" void sp_prim_gpu_release(void *state)
{
    prim_free((prim_state *)state);
}

#define PRIM_PREPARE(NAME, OP, VERTICAL)                                                  \
    extern "C" int sp_##NAME##_prepare(const sp_problem *pb, const sp_params *p,          \
                                       void **state, sp_err *err)                         \
    {                                                                                     \
        return prim_prepare(#OP, #NAME, VERTICAL, pb, p, state, err);                     \
    }
PRIM_PREPARE(scan_cuda, scan, 0)
PRIM_PREPARE(histogram_cuda, histogram, 0)
PRIM_PREPARE(idx2ptr_cuda, idx2ptr, 0)
PRIM_PREPARE(ptr2idx_cuda, ptr2idx, 0)
PRIM_PREPARE(segsort_cuda, segsort, 0)
PRIM_PREPARE(merge_cuda, merge, 0)
PRIM_PREPARE(hist_idx2ptr_cuda_loop, hist_idx2ptr, SP_VERTICAL_LOOP)
PRIM_PREPARE(hist_idx2ptr_cuda_transpose, hist_idx2ptr, SP_VERTICAL_TRANSPOSE)
PRIM_PREPARE(hist_idx2ptr_cuda_owners, hist_idx2ptr, SP_HIST_OWNERS)

/* ---- host wrappers for the tests: upload, run, download ---------------- */

/* What a host wrapper runs: the primitive, its input and its settings. */
typedef struct host_job {
    enum prim w;
    const void *in;
    size_t in_bytes;
    int64_t n;
    int32_t bins;
    int bs;
    int64_t segment, sp_dist;
    int vertical;
} host_job;

/* The offsets of a hist_idx2ptr state (nparts x bins), from its loop or
 * transposed layout, into offsets. */
static int copy_offsets(const prim_state *s, int32_t *offsets)
{
    int64_t parts = sp_prim_nparts(s->n, s->segment);
    size_t bytes = parts_bytes(s);
    if (s->vertical != SP_VERTICAL_TRANSPOSE)
        return cudaMemcpy(offsets, s->parts, bytes, cudaMemcpyDeviceToHost) != cudaSuccess;
    int32_t *t = (int32_t *)malloc(bytes ? bytes : 1);
    int rc = !t || cudaMemcpy(t, s->parts_t, bytes, cudaMemcpyDeviceToHost) != cudaSuccess;
    for (int64_t b = 0; !rc && b < s->bins; b++)
        for (int64_t p = 0; p < parts; p++)
            offsets[p * s->bins + b] = t[b * parts + p];
    free(t);
    return rc;
}

/* Job j through a state of its own on the default stream; the output into
 * out, and hist_idx2ptr's offsets into offsets when not NULL. */
static int host_run(const host_job *j, void *out, int32_t *offsets, sp_err *err)
{
    prim_state *s = (prim_state *)calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "primitive: out of memory");
    s->which = j->w;
    s->bs = j->bs;
    s->n = j->n;
    s->bins = j->bins;
    s->segment = j->segment;
    s->sp_dist = j->sp_dist;
    s->vertical = j->vertical;
    s->out_bytes = out_bytes_of(j->w, j->n, j->bins);
    s->in_bytes = j->in_bytes;
    s->host_in = (void *)j->in;
    int rc = prim_alloc(s, 0, err) || prim_exec(s, 0, err);
    if (!rc) {
        cudaError_t e = cudaDeviceSynchronize();   /* the primitive's own errors first */
        const void *src = j->w == MERGE ? (s->result ? s->result : s->in) : s->out;
        if (e == cudaSuccess && s->out_bytes)
            e = cudaMemcpy(out, src, s->out_bytes, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            rc = sp_fail(err, "%s: %s", prim_names[j->w], cudaGetErrorString(e));
        else if (offsets && j->w == HIST_IDX2PTR && copy_offsets(s, offsets))
            rc = sp_fail(err, "%s: copying the offsets back failed", prim_names[j->w]);
    }
    s->host_in = NULL;      /* the caller's */
    prim_free(s);
    return rc ? -1 : 0;
}

extern "C" int sp_gpu_scan_host(const int32_t *in, int32_t *out, int64_t n, int bs, sp_err *err)
{
    host_job j = {SCAN, in, (size_t)n * 4, n, 0, bs, SP_PRIM_SEG, SP_PRIM_SP_DIST, 0};
    return host_run(&j, out, NULL, err);
}

extern "C" int sp_gpu_histogram_host(const int32_t *idx, int64_t n, int32_t *counts,
                                     int32_t bins, int bs, sp_err *err)
{
    host_job j = {HISTOGRAM, idx, (size_t)n * 4, n, bins, bs, SP_PRIM_SEG, SP_PRIM_SP_DIST, 0};
    return host_run(&j, counts, NULL, err);
}

extern "C" int sp_gpu_idx2ptr_host(const int32_t *sorted, int64_t n, int32_t *ptr, int32_t bins,
                                   int bs, sp_err *err)
{
    host_job j = {IDX2PTR, sorted, (size_t)n * 4, n, bins, bs, SP_PRIM_SEG, SP_PRIM_SP_DIST, 0};
    return host_run(&j, ptr, NULL, err);
}

extern "C" int sp_gpu_ptr2idx_host(const int32_t *ptr, int32_t nseg, int32_t *idx, int bs,
                                   sp_err *err)
{
    host_job j = {PTR2IDX,     ptr,  ((size_t)nseg + 1) * 4, nseg, ptr[nseg], bs, SP_PRIM_SEG,
                  SP_PRIM_SP_DIST, 0};
    return host_run(&j, idx, NULL, err);
}

extern "C" int sp_gpu_segsort_seg_host(const uint64_t *in, uint64_t *out, int64_t n,
                                       int64_t segment, int bs, sp_err *err)
{
    host_job j = {SEGSORT, in, (size_t)n * 8, n, 0, bs, segment, SP_PRIM_SP_DIST, 0};
    return host_run(&j, out, NULL, err);
}

extern "C" int sp_gpu_segsort_host(const uint64_t *in, uint64_t *out, int64_t n, int bs,
                                   sp_err *err)
{
    return sp_gpu_segsort_seg_host(in, out, n, SP_PRIM_SEG, bs, err);
}

extern "C" int sp_gpu_merge_dist_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t run,
                                      int64_t sp_dist, int bs, sp_err *err)
{
    host_job j = {MERGE, in, (size_t)n * 8, n, 0, bs, run, sp_dist, 0};
    return host_run(&j, out, NULL, err);
}

extern "C" int sp_gpu_merge_host(const uint64_t *in, uint64_t *out, int64_t n, int64_t run,
                                 int bs, sp_err *err)
{
    return sp_gpu_merge_dist_host(in, out, n, run, (int64_t)bs * SP_PRIM_MERGE_ITEMS, bs, err);
}

extern "C" int sp_gpu_hist_idx2ptr_host(const int32_t *idx, int64_t n, int32_t bins,
                                        int64_t segment, int vertical, int bs, int32_t *ptr,
                                        int32_t *offsets, sp_err *err)
{
    host_job j = {HIST_IDX2PTR, idx, (size_t)n * 4, n, bins, bs, segment, SP_PRIM_SP_DIST,
                  vertical};
    return host_run(&j, ptr, offsets, err);
}
