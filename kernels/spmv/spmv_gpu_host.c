/*
 * spmv_gpu_host.c — axis checks, the `lanes` choice, the merge-path split
 * and the memory statements of the GPU SpMV kernels (spmv_gpu_host.h).
 */
#include <stdlib.h>
#include <string.h>

#include "../hll.h"
#include "spmv_gpu_host.h"

int sp_gpu_blocksize(const char *kernel, const sp_params *p, int warp_multiple, int *bs,
                     sp_err *err)
{
    long v = sp_param(p, "blocksize", 128);
    if (v < 1 || v > 1024)
        return sp_fail(err, "%s: blocksize = %ld outside 1..1024", kernel, v);
    if (warp_multiple && v % 32)
        return sp_fail(err, "%s: blocksize = %ld is not a multiple of 32 (the kernel works "
                       "in whole warps)", kernel, v);
    *bs = (int)v;
    return 0;
}

int sp_gpu_hack(const char *kernel, const sp_params *p, int *hack, sp_err *err)
{
    long v = sp_param(p, "hack", 32);
    if (v < 1 || v > SP_HACK_MAX)
        return sp_fail(err, "%s: hack = %ld outside 1..%d", kernel, v, SP_HACK_MAX);
    *hack = (int)v;
    return 0;
}

int sp_gpu_staged_hack(const char *kernel, const sp_params *p, int *hack, sp_err *err)
{
    sp_precision prec;
    if (sp_gpu_hack(kernel, p, hack, err) || sp_precision_param(p, kernel, &prec, err))
        return -1;
    long bytes = (long)*hack * (prec == SP_SINGLE ? 4 : 8);
    if (bytes > SP_HLL_STAGED_SHARED)
        return sp_fail(err, "%s: hack = %d keeps %ld bytes of row sums in shared memory, "
                       "more than the %d a block has", kernel, *hack, bytes,
                       SP_HLL_STAGED_SHARED);
    return 0;
}

int sp_gpu_memory(const char *kernel, const sp_params *p, int *memory, sp_err *err)
{
    long v = sp_param(p, SP_AXIS_MEMORY, SP_MEMORY_DEVICE);
    if (v != SP_MEMORY_DEVICE && v != SP_MEMORY_MANAGED)
        return sp_fail(err, "%s: memory = %ld, not device (%d) or managed (%d)", kernel, v,
                       SP_MEMORY_DEVICE, SP_MEMORY_MANAGED);
    *memory = (int)v;
    return 0;
}

int sp_gpu_lanes(const sp_csr *A, const sp_params *p, int *lanes, sp_err *err)
{
    long v = sp_param(p, "lanes", 1);
    if (v == 1) {
        double mean = A->rows > 0 ? (double)A->nnz / A->rows : 0;
        int l = 2;
        while (l < 32 && 2.0 * l <= mean)
            l *= 2;
        *lanes = l;
        return 0;
    }
    if (v != 2 && v != 4 && v != 8 && v != 16 && v != 32)
        return sp_fail(err, "spmv_csr_cuda_subwarp: lanes = %ld is not 1 (auto), 2, 4, 8, "
                       "16 or 32", v);
    *lanes = (int)v;
    return 0;
}

int64_t sp_merge_tile_count(const sp_csr *A, int tile)
{
    int64_t items = (int64_t)A->rows + A->nnz;
    return (items + tile - 1) / tile;
}

/* Where diagonal d of the merge of the row ends (rowptr[1..rows]) with the
 * nonzero indices (0..nnz-1) crosses: the row ends before it in *row, the
 * nonzeros before it in *nz. Ties go to the row end first. */
static void merge_path_search(const sp_csr *A, int64_t d, int32_t *row, int32_t *nz)
{
    int64_t lo = d > A->nnz ? d - A->nnz : 0, hi = d < A->rows ? d : A->rows;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->rowptr[mid + 1] <= d - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    *row = (int32_t)lo;
    *nz = (int32_t)(d - lo);
}

int sp_merge_tiles(const sp_csr *A, int tile, int32_t **coords, int64_t *ntiles, sp_err *err)
{
    if (tile < 1)
        return sp_fail(err, "merge path: tile of %d items", tile);
    int64_t n = sp_merge_tile_count(A, tile), items = (int64_t)A->rows + A->nnz;
    int32_t *c = malloc(((size_t)n + 1) * 2 * sizeof(int32_t));
    if (!c)
        return sp_fail(err, "merge path: out of memory for %lld tiles", (long long)n);
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t <= n; t++) {
        int64_t d = t * tile < items ? t * tile : items;
        merge_path_search(A, d, &c[2 * t], &c[2 * t + 1]);
    }
    *coords = c;
    *ntiles = n;
    return 0;
}

int sp_coo_rows(const sp_csr *A, int32_t **row, sp_err *err)
{
    int32_t *r = sp_alloc_large((size_t)A->nnz * sizeof(int32_t));
    if (!r)
        return sp_fail(err, "COO: out of memory for %d row indices", A->nnz);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            r[k] = i;
    *row = r;
    return 0;
}

static uint64_t device_array(uint64_t n, uint64_t elem)
{
    return sp_gpu_array_bytes(n, elem);
}

/* The bytes of one value (of A, x, y, a carry) at p's precision: 8 in
 * double, 4 in single; -1 with the reason for another precision. */
static int value_bytes(const sp_params *p, uint64_t *vb, sp_err *err)
{
    sp_precision prec;
    if (sp_precision_param(p, "spmv (GPU)", &prec, err))
        return -1;
    *vb = prec == SP_SINGLE ? 4 : 8;
    return 0;
}

/* The host copies a single-precision prepare rounds (sp_spmv_gpu_precision):
 * `values` of the matrix's format and x, 4 bytes each; none in double. */
static uint64_t host_single(uint64_t values, const sp_csr *A, uint64_t vb)
{
    return vb == 4 ? (values + (uint64_t)A->cols) * 4 : 0;
}

/* The device copies every kernel makes: x and y, vb bytes a value. */
static uint64_t vectors(const sp_csr *A, uint64_t vb)
{
    return device_array((uint64_t)A->cols, vb) + device_array((uint64_t)A->rows, vb);
}

/* `memory = managed` (spmv_gpu.cu): a managed array's pages may sit on
 * either side (x's preferred location is the host, and the driver may
 * evict any of them there), so the host counts them too: an upper bound.
 * Device: nothing. */
int sp_need_gpu_managed(const sp_params *p, sp_need *need, sp_err *err)
{
    int memory = SP_MEMORY_DEVICE;
    if (sp_gpu_memory("spmv (GPU)", p, &memory, err))
        return -1;
    if (memory == SP_MEMORY_MANAGED)
        need->host_bytes += need->device_bytes;
    return 0;
}

/* rowptr, colidx and val on the device. */
static uint64_t csr_bytes(const sp_csr *A, uint64_t vb)
{
    return device_array((uint64_t)A->rows + 1, 4) + device_array((uint64_t)A->nnz, 4) +
           device_array((uint64_t)A->nnz, vb);
}

/* The CSR, x and y on the device; on the host only the small state (y
 * comes back into the runner's buffer), in single the rounded copies of
 * A's values and x, and with managed memory the device arrays. Pure arithmetic: the runner calls it in a
 * process that must not touch CUDA. */
int sp_need_gpu_csr(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    uint64_t vb;
    if (value_bytes(p, &vb, err))
        return -1;
    need->host_bytes = 4096 + host_single((uint64_t)pb->A->nnz, pb->A, vb);
    need->device_bytes = csr_bytes(pb->A, vb) + vectors(pb->A, vb);
    return sp_need_gpu_managed(p, need, err);
}

/* What cuSPARSE allocates itself on top of a format: cusparseSpMV_bufferSize
 * can only be asked on a GPU, and need() runs in the parent, which never
 * touches CUDA, so estimate conservatively: 16 bytes per row (ALG1 asks
 * little or nothing, ALG2 O(rows)), rounded, and 64 MiB for the handle's
 * and the library's own workspace. */
static void add_cusparse(const sp_problem *pb, sp_need *need)
{
    need->device_bytes += device_array((uint64_t)pb->A->rows + 1, 16) + (64u << 20);
}

int sp_need_cusparse_csr(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    if (sp_need_gpu_csr(pb, p, need, err))
        return -1;
    add_cusparse(pb, need);
    return 0;
}

int sp_need_cusparse_coo(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    if (sp_need_gpu_coo(pb, p, need, err))
        return -1;
    add_cusparse(pb, need);
    return 0;
}

int sp_need_cusparse_sell(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    if (sp_need_gpu_hll(pb, p, need, err))
        return -1;
    add_cusparse(pb, need);
    return 0;
}

/* CSR plus the tile coordinates (host and device) and one carry (row and
 * value) per tile. */
int sp_need_gpu_merge(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    uint64_t vb;
    if (value_bytes(p, &vb, err))
        return -1;
    uint64_t tiles = (uint64_t)sp_merge_tile_count(pb->A, SP_MERGE_TILE) + 1;
    need->host_bytes = tiles * 8 + host_single((uint64_t)pb->A->nnz, pb->A, vb);
    need->device_bytes = csr_bytes(pb->A, vb) + vectors(pb->A, vb) +
                         device_array(tiles, 8 + 4 + vb);
    return sp_need_gpu_managed(p, need, err);
}

/* CSR plus a row index per nonzero (host and device). */
int sp_need_gpu_coo(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    uint64_t vb;
    if (value_bytes(p, &vb, err))
        return -1;
    need->host_bytes = (uint64_t)pb->A->nnz * 4 + host_single((uint64_t)pb->A->nnz, pb->A, vb);
    need->device_bytes = csr_bytes(pb->A, vb) + vectors(pb->A, vb) +
                         device_array((uint64_t)pb->A->nnz, 4);
    return 0;
}

/* A sliced ELL of `hack` rows per slice (0: ELL) in the GPU layout
 * (kernels/hll.h) on the host and the device: the runner skips the
 * combination when either is more than what is free. */
static int need_sell(const sp_problem *pb, int32_t hack, int colmajor, uint64_t vb,
                     sp_need *need, sp_err *err)
{
    int64_t stored;
    uint64_t bytes;
    sp_hll_opts o = sp_hll_gpu(hack, colmajor);
    if (sp_hll_plan(pb->A, &o, &stored, &bytes, err))
        return -1;
    int32_t h = hack > 0 ? hack : 1;
    uint64_t slices = ((uint64_t)pb->A->rows + h - 1) / h + 1;
    need->host_bytes = bytes + host_single((uint64_t)stored, pb->A, vb);
    need->device_bytes = device_array((uint64_t)stored, vb) + device_array((uint64_t)stored, 4) +
                         device_array(slices, 4) + vectors(pb->A, vb);
    need->stored = (uint64_t)stored;
    return 0;
}

int sp_need_gpu_ell(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    uint64_t vb;
    if (value_bytes(p, &vb, err))
        return -1;
    return need_sell(pb, 0, 1, vb, need, err) || sp_need_gpu_managed(p, need, err) ? -1 : 0;
}

int sp_need_gpu_hll(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int hack = 0;
    uint64_t vb;
    if (sp_gpu_hack("HLL", p, &hack, err) || value_bytes(p, &vb, err))
        return -1;
    return need_sell(pb, hack, 1, vb, need, err) || sp_need_gpu_managed(p, need, err) ? -1 : 0;
}

int sp_need_gpu_hll_staged(const sp_problem *pb, const sp_params *p, sp_need *need,
                           sp_err *err)
{
    int hack = 0;
    if (sp_gpu_staged_hack("spmv_hll_cuda_staged", p, &hack, err))
        return -1;
    return sp_need_gpu_hll(pb, p, need, err);
}

int32_t sp_hybrid_long_min(int lanes)
{
    return 32 * lanes;
}

void sp_hybrid_count(const sp_csr *A, int32_t long_min, int32_t chunk, int32_t *nlong,
                     int64_t *nchunks)
{
    int32_t n = 0;
    int64_t c = 0;
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len > long_min) {
            n++;
            c += (len + (int64_t)chunk - 1) / chunk;
        }
    }
    *nlong = n;
    *nchunks = c;
}

void sp_hybrid_plan_free(sp_hybrid_plan *pl)
{
    if (!pl)
        return;
    free(pl->long_row);
    free(pl->long_first);
    free(pl->chunk_long);
    memset(pl, 0, sizeof *pl);
}

int sp_hybrid_split(const sp_csr *A, int32_t long_min, int32_t chunk, sp_hybrid_plan *pl,
                    sp_err *err)
{
    memset(pl, 0, sizeof *pl);
    if (long_min < 0 || chunk < 1)
        return sp_fail(err, "hybrid CSR: long-row threshold %d or chunk %d out of range",
                       long_min, chunk);
    sp_hybrid_count(A, long_min, chunk, &pl->nlong, &pl->nchunks);
    pl->long_min = long_min;
    pl->long_row = malloc(((size_t)pl->nlong + 1) * sizeof(int32_t));
    pl->long_first = malloc(((size_t)pl->nlong + 1) * sizeof(int32_t));
    pl->chunk_long = malloc(((size_t)pl->nchunks + 1) * sizeof(int32_t));
    if (!pl->long_row || !pl->long_first || !pl->chunk_long) {
        sp_hybrid_plan_free(pl);
        return sp_fail(err, "hybrid CSR: out of memory for the long-row plan");
    }
    int32_t L = 0, c = 0;
    pl->long_first[0] = 0;
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len <= long_min)
            continue;
        int32_t n = (int32_t)((len + (int64_t)chunk - 1) / chunk);
        for (int32_t j = 0; j < n; j++)
            pl->chunk_long[c + j] = L;
        c += n;
        pl->long_row[L] = i;
        pl->long_first[++L] = c;
    }
    return 0;
}

int sp_gpu_sigma(const char *kernel, const sp_params *p, int32_t *sigma, sp_err *err)
{
    long v = sp_param(p, "sigma", 1);
    if (v < 1 || v > (1L << 30))
        return sp_fail(err, "%s: sigma = %ld outside 1..2^30", kernel, v);
    *sigma = (int32_t)v;
    return 0;
}

/* Sort keys of one window: longest row first, ties by row index (so the
 * order is stable), as one 64-bit key per row. */
static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int sp_sell_sigma(const sp_csr *A, int32_t sigma, int32_t **perm, sp_csr *P, sp_err *err)
{
    *perm = NULL;
    memset(P, 0, sizeof *P);
    if (sigma < 1)
        return sp_fail(err, "SELL-C-sigma: sigma = %d, not >= 1", sigma);
    int32_t *pm = malloc(((size_t)A->rows + 1) * sizeof(int32_t));
    if (!pm || sp_csr_alloc(P, A->rows, A->cols, A->nnz, err)) {
        free(pm);
        return sp_fail(err, "SELL-C-sigma: out of memory for the permuted matrix");
    }
    for (int32_t i = 0; i < A->rows; i++)
        pm[i] = i;
    /* Windows are independent: OpenMP over them, each sorting its keys
     * (INT32_MAX - length, row) ascending in its own slice of key[]. */
    if (sigma > 1) {
        uint64_t *key = malloc(((size_t)A->rows + 1) * sizeof(uint64_t));
        if (!key) {
            free(pm);
            sp_csr_free(P);
            return sp_fail(err, "SELL-C-sigma: out of memory for the sort keys");
        }
        int64_t windows = ((int64_t)A->rows + sigma - 1) / sigma;
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t w = 0; w < windows; w++) {
            int64_t first = w * sigma, n = A->rows - first < sigma ? A->rows - first : sigma;
            for (int64_t i = first; i < first + n; i++)
                key[i] = (uint64_t)(INT32_MAX - (A->rowptr[i + 1] - A->rowptr[i])) << 32 |
                         (uint32_t)i;
            qsort(key + first, (size_t)n, sizeof(uint64_t), by_key);
            for (int64_t i = first; i < first + n; i++)
                pm[i] = (int32_t)(key[i] & 0xffffffffu);
        }
        free(key);
    }
    P->rowptr[0] = 0;
    for (int32_t i = 0; i < A->rows; i++)
        P->rowptr[i + 1] = P->rowptr[i] + A->rowptr[pm[i] + 1] - A->rowptr[pm[i]];
#pragma omp parallel for schedule(dynamic, 1024)
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t b = A->rowptr[pm[i]], n = A->rowptr[pm[i] + 1] - b;
        memcpy(P->colidx + P->rowptr[i], A->colidx + b, (size_t)n * sizeof(int32_t));
        memcpy(P->val + P->rowptr[i], A->val + b, (size_t)n * sizeof(double));
    }
    *perm = pm;
    return 0;
}

/* CSR, x, y, and the long-row plan (host and device) plus one partial per
 * chunk and one counter per long row on the device. */
int sp_need_gpu_hybrid(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    int lanes;
    uint64_t vb;
    if (sp_gpu_lanes(pb->A, p, &lanes, err) || value_bytes(p, &vb, err))
        return -1;
    int32_t nlong;
    int64_t nchunks;
    sp_hybrid_count(pb->A, sp_hybrid_long_min(lanes), SP_HYBRID_CHUNK, &nlong, &nchunks);
    uint64_t plan = ((uint64_t)nlong * 2 + 1 + (uint64_t)nchunks + 2) * 4;
    need->host_bytes = 4096 + plan + host_single((uint64_t)pb->A->nnz, pb->A, vb);
    need->device_bytes = csr_bytes(pb->A, vb) + vectors(pb->A, vb) +
                         device_array((uint64_t)nlong + 1, 4) * 3 +
                         device_array((uint64_t)nchunks + 1, 4 + vb);
    return sp_need_gpu_managed(p, need, err);
}

static int by_int_desc(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x < y) - (x > y);
}

int sp_sell_sigma_plan(const sp_csr *A, int32_t sigma, int32_t hack, int64_t *stored,
                       sp_err *err)
{
    if (sigma < 1 || hack < 1)
        return sp_fail(err, "SELL-C-sigma: sigma = %d or hack = %d not >= 1", sigma, hack);
    int32_t *len = malloc(((size_t)A->rows + 1) * sizeof(int32_t));
    if (!len)
        return sp_fail(err, "SELL-C-sigma: out of memory for %d row lengths", A->rows);
    for (int32_t i = 0; i < A->rows; i++)
        len[i] = A->rowptr[i + 1] - A->rowptr[i];
    if (sigma > 1)
        for (int64_t w = 0; w < A->rows; w += sigma) {
            int64_t n = A->rows - w < sigma ? A->rows - w : sigma;
            qsort(len + w, (size_t)n, sizeof(int32_t), by_int_desc);
        }
    int64_t total = 0;
    for (int64_t h = 0; h < A->rows; h += hack) {
        int32_t w = 0;
        for (int64_t i = h; i < h + hack && i < A->rows; i++)
            w = len[i] > w ? len[i] : w;
        total += (int64_t)hack * w;
    }
    free(len);
    if (total > INT32_MAX)
        return sp_fail(err, "SELL-C-sigma refused: %lld stored entries (padding included) "
                       "for %d nonzeros (sigma %d, hack %d), more than the 2^31-1 that "
                       "32-bit offsets address", (long long)total, A->nnz, sigma, hack);
    *stored = total;
    return 0;
}

/* The sorted layout's exact size (sp_sell_sigma_plan) on the host and the
 * device, plus x, y, the permutation (host and device) and the permuted
 * CSR that the conversion builds on the host. */
int sp_need_gpu_sell_sigma(const sp_problem *pb, const sp_params *p, sp_need *need,
                           sp_err *err)
{
    int32_t sigma = 1;
    int hack = 0;
    int64_t stored;
    uint64_t vb;
    const sp_csr *A = pb->A;
    if (sp_gpu_sigma("spmv_sell_cuda", p, &sigma, err) ||
        sp_gpu_hack("spmv_sell_cuda", p, &hack, err) || value_bytes(p, &vb, err) ||
        sp_sell_sigma_plan(A, sigma, hack, &stored, err))
        return -1;
    uint64_t slices = ((uint64_t)A->rows + hack - 1) / hack + 1;
    uint64_t rows = (uint64_t)A->rows + 1;
    need->host_bytes = (uint64_t)stored * 12 + slices * 8 + rows * 4 +
                       (sigma > 1 ? rows * 4 + (uint64_t)A->nnz * 12 : 0) +
                       host_single((uint64_t)stored, A, vb);
    need->device_bytes = device_array((uint64_t)stored, vb) + device_array((uint64_t)stored, 4) +
                         device_array(slices, 4) + device_array(rows, 4) + vectors(A, vb);
    need->stored = (uint64_t)stored;
    return 0;
}
