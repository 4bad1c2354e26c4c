/*
 * qstudy_driver.cu — the one host driver of study 004's 14 quicksort
 * variants (qstudy.h): the call tree a level at a time. Each level the
 * host launches the variant's kernels on the subproblem list (Delimiters)
 * and reads the new one back: the children (App, holes and all) with the
 * seed's clean_vector on the host, or for 7 the pivots' places, from
 * which the host makes the children itself. Variants with a Map build it
 * on the host (find_next_gws) and upload it before the wide kernels.
 */
#include <stdlib.h>
#include <string.h>

#include "../cuda_check.h"
#include "qstudy_dev.cuh"

/* Host scratch of one sort. */
typedef struct qst_host {
    sp_qstudy_range *delims, *app;
    int32_t *map_idx, *map_sub, *pivots;
} qst_host;

static void host_free(qst_host *h)
{
    free(h->delims);
    free(h->app);
    free(h->map_idx);
    free(h->map_sub);
    free(h->pivots);
}

static int host_alloc(const sp_qstudy_info *in, int64_t n, int64_t cap, qst_host *h,
                      sp_err *err)
{
    memset(h, 0, sizeof *h);
    h->delims = (sp_qstudy_range *)malloc((size_t)cap * sizeof *h->delims);
    h->app = (sp_qstudy_range *)malloc((size_t)cap * 2 * sizeof *h->app);
    if (in->map) {
        h->map_idx = (int32_t *)malloc((size_t)n * 4);
        h->map_sub = (int32_t *)malloc((size_t)n * 4);
    }
    if (in->counting)
        h->pivots = (int32_t *)malloc((size_t)cap * 4);
    if (!h->delims || !h->app || (in->map && (!h->map_idx || !h->map_sub)) ||
        (in->counting && !h->pivots)) {
        host_free(h);
        return sp_fail(err, "%s: out of host memory for %lld keys", in->kernel, (long long)n);
    }
    return 0;
}

/* The workspace's arrays at the layout's offsets (NULL where empty). */
static qst_arrays device_arrays(const sp_qstudy_layout *L, void *ws, uint32_t *keys,
                                uint32_t *vals)
{
    char *w = (char *)ws;
    sp_qstudy_layout z = *L;
    /* an array is there when the next one starts after it */
    size_t off[] = {z.delims, z.app,    z.pivots,  z.map_idx, z.map_sub,
                    z.sm_key, z.sm_val, z.sm_flag, z.gr_key,  z.gr_val,
                    z.gr_flag, z.tmp_key, z.tmp_val, z.total};
    void *p[13];
    for (int i = 0; i < 13; i++)
        p[i] = off[i + 1] > off[i] ? (void *)(w + off[i]) : NULL;
    qst_arrays A;
    A.keys = keys, A.vals = vals;
    A.delims = (int2 *)p[0], A.app = (int2 *)p[1], A.pivots = (int32_t *)p[2];
    A.map_idx = (int32_t *)p[3], A.map_sub = (int32_t *)p[4];
    A.sm_key = (uint32_t *)p[5], A.sm_val = vals ? (uint32_t *)p[6] : NULL;
    A.sm_flag = (uint8_t *)p[7];
    A.gr_key = (uint32_t *)p[8], A.gr_val = vals ? (uint32_t *)p[9] : NULL;
    A.gr_flag = (uint8_t *)p[10];
    A.tmp_key = (uint32_t *)p[11], A.tmp_val = vals ? (uint32_t *)p[12] : NULL;
    A.nsub = 0;
    return A;
}

/* find_next_gws: the Map of this level's keys, uploaded; its work-items. */
static int upload_map(const qst_arrays &A, qst_host *h, int64_t nsub, cudaStream_t st,
                      int64_t *gws, sp_err *err)
{
    *gws = sp_qstudy_map(h->delims, nsub, h->map_idx, h->map_sub);
    SP_CUDA(cudaMemcpyAsync(A.map_idx, h->map_idx, (size_t)*gws * 4, cudaMemcpyHostToDevice,
                            st), err);
    SP_CUDA(cudaMemcpyAsync(A.map_sub, h->map_sub, (size_t)*gws * 4, cudaMemcpyHostToDevice,
                            st), err);
    return 0;
}

/* One level's kernels for variant `in` on the list A.delims (A.nsub of
 * them, the longest `longest` keys). */
static int launch_level(const sp_qstudy_info *in, const qst_arrays &A, qst_host *h,
                        int64_t n, int64_t longest, const sp_qsort_opts *o, cudaStream_t st,
                        sp_err *err)
{
    int bs = o->blocksize;
    int block_phase = in->block_phase && longest <= o->blocksize;
    int64_t gws = n;
    if (in->map && !block_phase && upload_map(A, h, A.nsub, st, &gws, err))
        return -1;
    if (in->windowed && in->lomuto) {                   /* 8 */
        qst_launch_window_lomuto(A, o->window, st);
    } else if (in->windowed) {                          /* 9 */
        qst_launch_split(A, gws, 1, bs, st);
        qst_launch_compact_window(A, o->window, st);
    } else if (in->lomuto) {                            /* 1 */
        qst_launch_lomuto_thread(A, bs, st);
    } else if (!in->counting) {                         /* 2, 3, 4 */
        if (block_phase) {
            qst_launch_block_split(A, longest, in->items, in->shared, st);
        } else {
            qst_launch_split(A, gws, in->map, bs, st);
            qst_launch_compact_serial(A, bs, st);
        }
    } else {                                            /* 5, 6, 7 */
        if (block_phase) {
            qst_launch_block_count(A, longest, in->shared, in->host_update, st);
        } else {
            qst_launch_count(A, gws, in->map, bs, st);
            if (!in->host_update)
                qst_launch_children(A, bs, st);
        }
        /* out of place: the host copies the result back (the seed's
         * Input_App -> Input), the finished keys included */
        SP_CUDA(cudaMemcpyAsync(A.keys, A.tmp_key, (size_t)n * 4, cudaMemcpyDeviceToDevice,
                                st), err);
        if (A.vals)
            SP_CUDA(cudaMemcpyAsync(A.vals, A.tmp_val, (size_t)n * 4,
                                    cudaMemcpyDeviceToDevice, st), err);
    }
    SP_CUDA(cudaGetLastError(), err);
    return 0;
}

/* The next list into h->delims (and up to the device); returns its length,
 * or -1 with err. */
static int64_t next_level(const sp_qstudy_info *in, const qst_arrays &A, qst_host *h,
                          cudaStream_t st, sp_err *err)
{
    int64_t nsub = A.nsub, next;
    if (in->host_update) {                              /* 7 */
        SP_CUDA(cudaMemcpyAsync(h->pivots, A.pivots, (size_t)nsub * 4, cudaMemcpyDeviceToHost,
                                st), err);
        SP_CUDA(cudaStreamSynchronize(st), err);
        next = sp_qstudy_next_from_pivots(h->delims, nsub, h->pivots, h->app);
        memcpy(h->delims, h->app, (size_t)next * sizeof *h->app);
    } else {
        SP_CUDA(cudaMemcpyAsync(h->app, A.app, (size_t)nsub * 2 * sizeof *h->app,
                                cudaMemcpyDeviceToHost, st), err);
        SP_CUDA(cudaStreamSynchronize(st), err);
        next = sp_qstudy_clean(h->app, nsub, h->delims);
    }
    if (next > 0)
        SP_CUDA(cudaMemcpyAsync(A.delims, h->delims, (size_t)next * sizeof *h->delims,
                                cudaMemcpyHostToDevice, st), err);
    return next;
}

static int run_levels(const sp_qstudy_info *in, qst_arrays &A, qst_host *h, int64_t n,
                      const sp_qsort_opts *o, cudaStream_t st, sp_err *err)
{
    h->delims[0].s = 0, h->delims[0].e = (int32_t)(n - 1);
    SP_CUDA(cudaMemcpyAsync(A.delims, h->delims, sizeof *h->delims, cudaMemcpyHostToDevice,
                            st), err);
    if (in->counting) {         /* Input_App starts as the input */
        SP_CUDA(cudaMemcpyAsync(A.tmp_key, A.keys, (size_t)n * 4, cudaMemcpyDeviceToDevice,
                                st), err);
        if (A.vals)
            SP_CUDA(cudaMemcpyAsync(A.tmp_val, A.vals, (size_t)n * 4,
                                    cudaMemcpyDeviceToDevice, st), err);
    }
    int64_t nsub = 1;
    for (int level = 0; nsub > 0; level++) {
        /* the plan refused deeper trees; this only guards the loop */
        if (level >= SP_QSTUDY_LEVELS_MAX)
            return sp_fail(err,
                           "%s: %lld subproblems left after SP_QSTUDY_LEVELS_MAX = %d levels",
                           in->kernel, (long long)nsub, SP_QSTUDY_LEVELS_MAX);
        A.nsub = (int32_t)nsub;
        if (launch_level(in, A, h, n, sp_qstudy_longest(h->delims, nsub), o, st, err))
            return -1;
        nsub = next_level(in, A, h, st, err);
        if (nsub < 0)
            return -1;
    }
    return 0;
}

extern "C" int sp_qstudy_sort(sp_qstudy_variant v, uint32_t *keys, uint32_t *vals, int64_t n,
                              void *workspace, const sp_qsort_opts *o, cudaStream_t stream,
                              sp_err *err)
{
    const sp_qstudy_info *in = sp_qstudy_info_of(v);
    sp_qstudy_layout L;
    if (sp_qstudy_check_opts(v, o, err) || sp_qstudy_layout_of(v, n, vals != NULL, &L, err))
        return -1;
    if (n < 2)
        return 0;
    if (!keys || !workspace)
        return sp_fail(err, "%s: NULL keys or workspace for %lld keys", in->kernel,
                       (long long)n);
    qst_host h;
    if (host_alloc(in, n, L.sub_cap, &h, err))
        return -1;
    qst_arrays A = device_arrays(&L, workspace, keys, vals);
    int rc = run_levels(in, A, &h, n, o, stream, err);
    host_free(&h);
    return rc;
}

/* The harness's design takes a sort without a variant argument: one entry
 * point per variant (declared in qstudy_registry.c). */
#define QST_SORT_ENTRY(id, V)                                                               \
    extern "C" int sp_qstudy_sort_##id(uint32_t *keys, uint32_t *vals, int64_t n, void *ws,  \
                                       const sp_qsort_opts *o, cudaStream_t stream,         \
                                       sp_err *err)                                         \
    {                                                                                       \
        return sp_qstudy_sort(V, keys, vals, n, ws, o, stream, err);                        \
    }
QST_SORT_ENTRY(study1, SP_QSTUDY_1)
QST_SORT_ENTRY(study2, SP_QSTUDY_2)
QST_SORT_ENTRY(study3, SP_QSTUDY_3)
QST_SORT_ENTRY(study3_r1, SP_QSTUDY_3_R1)
QST_SORT_ENTRY(study3_r2, SP_QSTUDY_3_R2)
QST_SORT_ENTRY(study4, SP_QSTUDY_4)
QST_SORT_ENTRY(study4_r1, SP_QSTUDY_4_R1)
QST_SORT_ENTRY(study4_r2, SP_QSTUDY_4_R2)
QST_SORT_ENTRY(study5, SP_QSTUDY_5)
QST_SORT_ENTRY(study5_r1, SP_QSTUDY_5_R1)
QST_SORT_ENTRY(study6, SP_QSTUDY_6)
QST_SORT_ENTRY(study7, SP_QSTUDY_7)
QST_SORT_ENTRY(study8, SP_QSTUDY_8)
QST_SORT_ENTRY(study9, SP_QSTUDY_9)
