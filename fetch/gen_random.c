/*
 * gen_random.c — "random?rows=R&cols=C&nnz=N&seed=S": N distinct positions
 * drawn uniformly over the whole R x C matrix, random nonzero values. The
 * inputs of study 000 (shared/seeds/000-transposition-gpu.txt: a matrix
 * given by m, n, nnz, its (row, column) pairs drawn at random), where
 * gen:uniform fixes the count of every row instead.
 *
 * Repeats: a pair drawn twice is kept once, and the missing pairs are drawn
 * again until N distinct remain, so nnz is exact (a user asking for 10^7
 * gets 10^7). The result is a uniformly random N-subset of the positions:
 * every round draws i.i.d. uniform pairs, and nothing depends on which
 * positions were hit before. When N is more than half of R x C the
 * redrawing would crawl (most draws repeat), so the R x C - N positions
 * left empty are drawn instead, the same way, and every other one is kept.
 *
 * Determinism: draws come in fixed blocks, each from its own stream of
 * (seed, round, block), and a value is a hash of (seed, position), so the
 * matrix is the same whichever thread drew what.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define RANDOM_BLOCK 65536      /* draws per random stream */
#define RADIX_BITS 16           /* one pass of the key sort */

typedef struct random_cfg {
    int64_t rows, cols, nnz;
    uint64_t seed;
} random_cfg;

/* Draw keys[from..to) = row * cols + col, uniform over the positions, from
 * round `round`'s streams (a round's blocks are numbered from `from`). */
static void draw_keys(const random_cfg *c, int round, int64_t from, int64_t to,
                      uint64_t *keys)
{
    int64_t blocks = (to - from + RANDOM_BLOCK - 1) / RANDOM_BLOCK;
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < blocks; b++) {
        uint64_t state = gen_stream(c->seed, ((uint64_t)round << 40) | (uint64_t)b);
        int64_t lo = from + b * RANDOM_BLOCK, hi = lo + RANDOM_BLOCK < to ? lo + RANDOM_BLOCK : to;
        for (int64_t k = lo; k < hi; k++) {
            uint64_t r = gen_below(&state, (uint64_t)c->rows);
            uint64_t j = gen_below(&state, (uint64_t)c->cols);
            keys[k] = r * (uint64_t)c->cols + j;
        }
    }
}

/* LSD radix sort of keys[0..n) below `bound`, tmp of n keys; the sorted
 * keys end in keys. */
static void sort_keys(uint64_t *keys, uint64_t *tmp, int64_t n, uint64_t bound,
                      int64_t *count)
{
    const int64_t buckets = (int64_t)1 << RADIX_BITS;
    for (int shift = 0; shift < 64 && (bound - 1) >> shift; shift += RADIX_BITS) {
        memset(count, 0, (size_t)(buckets + 1) * sizeof *count);
        for (int64_t i = 0; i < n; i++)
            count[((keys[i] >> shift) & (uint64_t)(buckets - 1)) + 1]++;
        for (int64_t d = 0; d < buckets; d++)
            count[d + 1] += count[d];
        for (int64_t i = 0; i < n; i++)
            tmp[count[(keys[i] >> shift) & (uint64_t)(buckets - 1)]++] = keys[i];
        memcpy(keys, tmp, (size_t)n * sizeof *keys);
    }
}

/* Merge sorted a[0..na) and sorted b[0..nb) into out without repeats (a
 * is already free of them); returns how many were written. */
static int64_t merge_unique(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb,
                            uint64_t *out)
{
    int64_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        uint64_t v = j >= nb || (i < na && a[i] <= b[j]) ? a[i++] : b[j++];
        if (n == 0 || out[n - 1] != v)
            out[n++] = v;
    }
    return n;
}

/* want distinct sorted keys below rows * cols into keys[0..want), redrawing
 * the repeats; tmp and merged hold want keys each. */
static void distinct_keys(const random_cfg *c, int64_t want, uint64_t *keys, uint64_t *tmp,
                          uint64_t *merged, int64_t *count)
{
    uint64_t bound = (uint64_t)c->rows * (uint64_t)c->cols;
    int64_t have = 0;
    for (int round = 0; have < want; round++) {
        draw_keys(c, round, have, want, keys);
        sort_keys(keys + have, tmp, want - have, bound, count);
        have = merge_unique(keys, have, keys + have, want - have, merged);
        memcpy(keys, merged, (size_t)have * sizeof *keys);
    }
}

/* Value at linear position key: a hash of (seed, key) mapped to a nonzero. */
static double random_value(uint64_t seed, uint64_t key)
{
    uint64_t state = gen_stream(seed ^ 0x2545f4914f6cdd1dull, key);
    return gen_value(&state);
}

/* The CSR of the kept positions: the sorted keys themselves, or (complement)
 * every position but the sorted keys. */
static void fill_csr(const random_cfg *c, const uint64_t *keys, int64_t nkeys, int complement,
                     sp_csr *A)
{
    const uint64_t cols = (uint64_t)c->cols;
    int64_t k = 0;
    memset(A->rowptr, 0, ((size_t)c->rows + 1) * sizeof *A->rowptr);
    if (!complement) {
        for (int64_t t = 0; t < nkeys; t++) {
            A->colidx[t] = (int32_t)(keys[t] % cols);
            A->val[t] = random_value(c->seed, keys[t]);
            A->rowptr[keys[t] / cols + 1]++;
        }
    } else {
        uint64_t total = (uint64_t)c->rows * cols;
        int64_t skip = 0;
        for (uint64_t pos = 0; pos < total; pos++) {
            if (skip < nkeys && keys[skip] == pos) {
                skip++;
                continue;
            }
            A->colidx[k] = (int32_t)(pos % cols);
            A->val[k++] = random_value(c->seed, pos);
            A->rowptr[pos / cols + 1]++;
        }
    }
    gen_prefix_sum(A->rowptr, (int32_t)c->rows);
}

/* Draw, sort, deduplicate, write: the whole build with its buffers. */
static int random_build(const gen_params *p, const random_cfg *c, sp_csr *A, sp_err *err)
{
    uint64_t total = (uint64_t)c->rows * (uint64_t)c->cols;
    int complement = (uint64_t)c->nnz > total / 2;
    int64_t want = complement ? (int64_t)(total - (uint64_t)c->nnz) : c->nnz;
    size_t n = (size_t)want + 1;
    uint64_t *keys = sp_alloc_large(n * sizeof *keys);
    uint64_t *tmp = sp_alloc_large(n * sizeof *tmp);
    uint64_t *merged = sp_alloc_large(n * sizeof *merged);
    int64_t *count = malloc((((size_t)1 << RADIX_BITS) + 1) * sizeof *count);
    int rc = -1;
    if (!keys || !tmp || !merged || !count) {
        gen_fail_oom(p, err);
        goto out;
    }
    distinct_keys(c, want, keys, tmp, merged, count);
    free(tmp), tmp = NULL;
    free(merged), merged = NULL;
    if (sp_csr_alloc(A, (int32_t)c->rows, (int32_t)c->cols, (int32_t)c->nnz, err)) {
        gen_fail_oom(p, err);
        goto out;
    }
    fill_csr(c, keys, want, complement, A);
    rc = 0;
out:
    free(keys);
    free(tmp);
    free(merged);
    free(count);
    return rc;
}

/* Parameters rows, cols, nnz, seed; with A NULL only validates them. */
int gen_random(const gen_params *p, sp_csr *A, sp_err *err)
{
    random_cfg c;
    if (gen_param_int(p, "rows", GEN_REQUIRED, 1, INT32_MAX, &c.rows, err) ||
        gen_param_int(p, "cols", c.rows, 1, INT32_MAX, &c.cols, err) ||
        gen_param_int(p, "nnz", GEN_REQUIRED, 0, INT64_MAX, &c.nnz, err) ||
        gen_param_seed(p, "seed", 1, &c.seed, err))
        return -1;
    int64_t positions = gen_mul(c.rows, c.cols);   /* < 2^62: both fit in int32 */
    if (c.nnz > positions)
        return sp_fail(err, "gen:%s: parameter 'nnz': %lld exceeds rows x cols = %lld "
                       "(one nonzero a position at most)", p->spec, (long long)c.nnz,
                       (long long)positions);
    if (gen_check_size(p, c.rows, c.cols, c.nnz, err))
        return -1;
    /* The peak is the redrawing: keys, tmp and merged, 8 bytes each per
     * drawn position (the nonzeros, or the empty positions when those are
     * fewer); the CSR comes after tmp and merged are freed. */
    int64_t drawn = (uint64_t)c.nnz > (uint64_t)positions / 2 ? positions - c.nnz : c.nnz;
    gen_note_size(p, c.rows, c.cols, c.nnz,
                  (uint64_t)(drawn + 1) * 3 * sizeof(uint64_t) +
                      (((uint64_t)1 << RADIX_BITS) + 1) * sizeof(int64_t));
    /* positions uniform over the matrix: rows are binomial around the
     * mean; the longest of `rows` such draws lies about
     * sqrt(2 mean ln rows) + ln rows above it (a Poisson tail bound) */
    double mean = (double)c.nnz / (double)c.rows, lr = log(fmax((double)c.rows, 2));
    gen_note_structure(p, fmin((double)c.cols, ceil(mean + sqrt(2 * mean * lr) + lr)),
                       sp_scattered_diagonals(c.rows, c.cols, c.nnz));
    if (!A)
        return 0;
    return random_build(p, &c, A, err);
}
