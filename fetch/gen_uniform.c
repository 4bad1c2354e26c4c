/*
 * gen_uniform.c — "uniform?rows=R&cols=C&per_row=K&seed=S": K distinct
 * uniformly random columns in every row, random nonzero values. Also the
 * row sampler that gen_denserow.c shares. Each row draws from its own
 * stream of the seed, so the result does not depend on the thread count.
 */
#include <limits.h>
#include <math.h>

#include "gen.h"

/* Knuth's selection sampling (Algorithm S): scan the columns once and take
 * each with probability needed/remaining; exact k, already sorted. For
 * rows that hold a large share of the columns. */
static void sample_by_selection(uint64_t *state, int32_t k, int32_t cols, int32_t *out)
{
    int32_t chosen = 0;
    for (int64_t j = 0; j < cols && chosen < k; j++)
        if (gen_below(state, (uint64_t)(cols - j)) < (uint32_t)(k - chosen))
            out[chosen++] = (int32_t)j;
}

/* Sort out[0..k) and drop repeats; returns how many distinct remain. */
static int32_t sort_unique(int32_t *out, int32_t k)
{
    gen_sort_columns(out, k);
    int32_t u = 0;
    for (int32_t i = 0; i < k; i++)
        if (u == 0 || out[i] != out[u - 1])
            out[u++] = out[i];
    return u;
}

/* k distinct sorted columns of [0, cols): selection sampling when the row
 * is dense, else draw-and-redraw. */
void gen_sample_columns(uint64_t *state, int32_t k, int32_t cols, int32_t *out)
{
    if (k <= 0)
        return;
    if ((int64_t)k * 16 > cols) {
        sample_by_selection(state, k, cols, out);
        return;
    }
    /* Sparse rows: draw, drop repeats, redraw the missing ones (rare). */
    int32_t have = 0;
    while (have < k) {
        for (int32_t i = have; i < k; i++)
            out[i] = (int32_t)gen_below(state, (uint64_t)cols);
        have = sort_unique(out, k);
    }
}

/* Columns and values of every row from that row's own stream. */
void gen_fill_random_rows(sp_csr *A, uint64_t seed)
{
#pragma omp parallel for schedule(dynamic, 1024)
    for (int32_t i = 0; i < A->rows; i++) {
        uint64_t state = gen_stream(seed, (uint64_t)i);
        int32_t b = A->rowptr[i], k = A->rowptr[i + 1] - b;
        gen_sample_columns(&state, k, A->cols, A->colidx + b);
        for (int32_t t = 0; t < k; t++)
            A->val[b + t] = gen_value(&state);
    }
}

/* Parameters rows, cols, per_row, seed; with A NULL only validates them. */
int gen_uniform(const gen_params *p, sp_csr *A, sp_err *err)
{
    int64_t rows, cols, k;
    uint64_t seed;
    if (gen_param_int(p, "rows", GEN_REQUIRED, 1, INT32_MAX, &rows, err) ||
        gen_param_int(p, "cols", rows, 1, INT32_MAX, &cols, err) ||
        gen_param_int(p, "per_row", GEN_REQUIRED, 0, cols, &k, err) ||
        gen_param_seed(p, "seed", 1, &seed, err))
        return -1;
    int64_t nnz = gen_mul(rows, k);
    if (gen_check_size(p, rows, cols, nnz, err))
        return -1;
    gen_note_structure(p, (double)k, sp_scattered_diagonals(rows, cols, nnz));
    if (!A)
        return 0;
    if (sp_csr_alloc(A, (int32_t)rows, (int32_t)cols, (int32_t)nnz, err))
        return gen_fail_oom(p, err);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < rows; i++)
        A->rowptr[i + 1] = (int32_t)((i + 1) * k);
    gen_fill_random_rows(A, seed);
    return 0;
}
