/*
 * gen_rmat.c — "rmat?scale=S&ef=E&a=&b=&c=&seed=": the R-MAT recursive
 * graph model (Chakrabarti, Zhan, Faloutsos 2004). 2^S vertices, E * 2^S
 * directed edges; each edge descends S levels of the adjacency matrix,
 * picking a quadrant with probabilities a, b, c, d = 1-a-b-c. Repeated
 * edges are summed.
 *
 * Determinism: edges are drawn in fixed blocks, each from its own stream
 * of the seed, and an edge's value is a hash of (seed, row, column), so
 * the summed matrix is the same whichever thread drew or bucketed what.
 */
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define RMAT_BLOCK 65536                /* edges per random stream */

typedef struct rmat_cfg {
    int scale;
    int64_t edges;
    uint64_t ta, tab, tabc;             /* cumulative quadrant thresholds * 2^32 */
    uint64_t seed;
} rmat_cfg;

/* Draw the edges of block blk into src/dst. The quadrant tests are
 * branch-free: with random u, branches mispredict and cost 2-3x. */
static void rmat_block(const rmat_cfg *c, int64_t blk, int32_t *src, int32_t *dst)
{
    const uint64_t ta = c->ta, tab = c->tab, tabc = c->tabc;
    const int scale = c->scale;
    uint64_t state = gen_stream(c->seed, (uint64_t)blk);
    int64_t end = (blk + 1) * RMAT_BLOCK < c->edges ? (blk + 1) * RMAT_BLOCK : c->edges;
    for (int64_t e = blk * RMAT_BLOCK; e < end; e++) {
        uint32_t r = 0, col = 0;
        uint64_t bits = 0;
        for (int l = 0; l < scale; l++) {
            if ((l & 1) == 0)
                bits = gen_next(&state);    /* two 32-bit draws per call */
            uint64_t u = bits & 0xffffffffu;
            bits >>= 32;
            uint32_t down = u >= tab;                               /* c, d */
            uint32_t right = (uint32_t)(u >= ta) ^ down ^ (uint32_t)(u >= tabc); /* b, d */
            r = (r << 1) | down;
            col = (col << 1) | right;
        }
        src[e] = (int32_t)r;
        dst[e] = (int32_t)col;
    }
}

/* Bucket the edges by row: ptr[0..rows] offsets (ptr zeroed on entry),
 * bucket[] the destination columns. Each thread owns a range of rows and
 * scans every edge, taking its own: no atomics, and each row keeps its
 * edges in drawing order whatever the thread count. */
static void rmat_bucket(const rmat_cfg *c, const int32_t *src, const int32_t *dst,
                        int32_t *ptr, int32_t *next, int32_t *bucket)
{
    int32_t rows = (int32_t)1 << c->scale;
#pragma omp parallel
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        int32_t lo = (int32_t)(rows * t / nt), hi = (int32_t)(rows * (t + 1) / nt);
        for (int64_t e = 0; e < c->edges; e++)
            if (src[e] >= lo && src[e] < hi)
                ptr[src[e] + 1]++;
#pragma omp barrier
#pragma omp single
        {
            gen_prefix_sum(ptr, rows);
            memcpy(next, ptr, (size_t)rows * sizeof *next);
        }
        for (int64_t e = 0; e < c->edges; e++)
            if (src[e] >= lo && src[e] < hi)
                bucket[next[src[e]]++] = dst[e];
    }
}

/* Sort each row's columns; uniq[i] = distinct columns of row i. */
static void rmat_sort_rows(int32_t rows, const int32_t *ptr, int32_t *bucket, int32_t *uniq)
{
#pragma omp parallel for schedule(dynamic, 256)
    for (int32_t i = 0; i < rows; i++) {
        int32_t *row = bucket + ptr[i], k = ptr[i + 1] - ptr[i], u = 0;
        gen_sort_columns(row, k);
        for (int32_t t = 0; t < k; t++)
            u += t == 0 || row[t] != row[t - 1];
        uniq[i] = u;
    }
}

/* Value of edge (i, j): a hash of (seed, i, j) mapped to a nonzero. */
static double rmat_value(uint64_t seed, int32_t i, int32_t j)
{
    uint64_t state = gen_stream(seed ^ 0x5851f42d4c957f2dull,
                                ((uint64_t)(uint32_t)i << 32) | (uint32_t)j);
    return gen_value(&state);
}

/* Write the deduplicated rows into A (rowptr already set); repeats sum. */
static void rmat_fill(const rmat_cfg *c, const int32_t *ptr, const int32_t *bucket,
                      sp_csr *A)
{
#pragma omp parallel for schedule(dynamic, 256)
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t k = A->rowptr[i] - 1;
        for (int32_t t = ptr[i]; t < ptr[i + 1]; t++) {
            if (t == ptr[i] || bucket[t] != bucket[t - 1]) {
                A->colidx[++k] = bucket[t];
                A->val[k] = 0.0;
            }
            A->val[k] += rmat_value(c->seed, i, bucket[t]);
        }
    }
}

/* Draw, bucket, sort, deduplicate: the whole build with its buffers. */
static int rmat_build(const gen_params *p, const rmat_cfg *c, sp_csr *A, sp_err *err)
{
    int32_t rows = (int32_t)1 << c->scale;
    size_t ne = (size_t)c->edges + 1;
    int32_t *src = sp_alloc_large(ne * sizeof *src);
    int32_t *dst = sp_alloc_large(ne * sizeof *dst);
    int32_t *ptr = calloc((size_t)rows + 1, sizeof *ptr);
    int32_t *next = sp_alloc_large((size_t)rows * sizeof *next);
    int32_t *bucket = sp_alloc_large(ne * sizeof *bucket);
    int rc = -1;
    if (!src || !dst || !ptr || !next || !bucket) {
        gen_fail_oom(p, err);
        goto out;
    }
    int64_t blocks = (c->edges + RMAT_BLOCK - 1) / RMAT_BLOCK;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < blocks; b++)
        rmat_block(c, b, src, dst);
    rmat_bucket(c, src, dst, ptr, next, bucket);
    free(src), src = NULL;
    free(dst), dst = NULL;
    rmat_sort_rows(rows, ptr, bucket, next);
    int64_t nnz = 0;
    for (int32_t i = 0; i < rows; i++)
        nnz += next[i];
    if (sp_csr_alloc(A, rows, rows, (int32_t)nnz, err)) {
        gen_fail_oom(p, err);
        goto out;
    }
    memcpy(A->rowptr + 1, next, (size_t)rows * sizeof *next);
    gen_prefix_sum(A->rowptr, rows);
    rmat_fill(c, ptr, bucket, A);
    rc = 0;
out:
    free(src);
    free(dst);
    free(ptr);
    free(next);
    free(bucket);
    return rc;
}

/* The expected length of row 0, the longest: it draws E1 = edges (a + b)^scale
 * of the edges, each a column whose k one-bits (of scale) have probability
 * (a / (a + b))^(scale - k) (b / (a + b))^k; repeats merge, so its length is
 * the expected number of distinct columns,
 * sum over k of C(scale, k) (1 - (1 - p_k)^E1). */
static double rmat_first_row(int64_t scale, int64_t edges, double a, double b)
{
    if (a + b <= 0)
        return 0;
    double e1 = (double)edges * pow(a + b, (double)scale), sum = 0;
    for (int64_t k = 0; k <= scale; k++) {
        double pk = pow(a / (a + b), (double)(scale - k)) * pow(b / (a + b), (double)k);
        double choose = exp(lgamma((double)scale + 1) - lgamma((double)k + 1) -
                            lgamma((double)(scale - k) + 1));
        sum += choose * (pk >= 1 ? 1 : -expm1(e1 * log1p(-pk)));
    }
    return sum;
}

/* Parameters scale, ef, a, b, c, seed; with A NULL only validates them. */
int gen_rmat(const gen_params *p, sp_csr *A, sp_err *err)
{
    int64_t scale, ef;
    double a, b, c;
    rmat_cfg cfg;
    if (gen_param_int(p, "scale", GEN_REQUIRED, 0, 30, &scale, err) ||
        gen_param_int(p, "ef", 16, 1, INT32_MAX, &ef, err) ||
        gen_param_real(p, "a", 0.57, 0.0, 1.0, &a, err) ||
        gen_param_real(p, "b", 0.19, 0.0, 1.0, &b, err) ||
        gen_param_real(p, "c", 0.19, 0.0, 1.0, &c, err) ||
        gen_param_seed(p, "seed", 1, &cfg.seed, err))
        return -1;
    if (a + b + c > 1.0 + 1e-12)
        return sp_fail(err, "gen:%s: parameters a+b+c = %g exceed 1 (d = 1-a-b-c must be >= 0)",
                       p->spec, a + b + c);
    cfg.scale = (int)scale;
    cfg.edges = gen_mul(ef, (int64_t)1 << scale);
    if (cfg.edges > INT32_MAX)
        return sp_fail(err, "gen:%s: %lld edges exceed the 32-bit index limit (%d)", p->spec,
                       (long long)cfg.edges, INT32_MAX);
    /* At the CSR's allocation rmat_build still holds bucket, ptr and next;
     * with nnz at its bound (every edge distinct) that is also more than
     * the drawing phase's src + dst + bucket. */
    int64_t rows = (int64_t)1 << scale;
    gen_note_size(p, rows, rows, cfg.edges,
                  (uint64_t)(cfg.edges + 1) * 4 + (uint64_t)(2 * rows + 1) * 4);
    gen_note_structure(p, fmax((double)ef, rmat_first_row(scale, cfg.edges, a, b)),
                       sp_scattered_diagonals(rows, rows, cfg.edges));
    /* A row's expected length is edges (a + b)^zeros (c + d)^ones over the
     * bits of its index: in each aligned slice of 2^s rows the longest is
     * the one whose low s bits are all the likelier bit, and the slices'
     * longest rows sum to edges max(a + b, c + d)^s, each stored 2^s times:
     * edges (2 max(a + b, c + d))^s in all. */
    gen_note_slices(p, 0, 2 * fmax(a + b, 1 - a - b));
    if (!A)
        return 0;
    cfg.ta = (uint64_t)(a * 4294967296.0);
    cfg.tab = (uint64_t)((a + b) * 4294967296.0);
    cfg.tabc = a + b + c >= 1.0 ? UINT64_MAX : (uint64_t)((a + b + c) * 4294967296.0);
    return rmat_build(p, &cfg, A, err);
}
