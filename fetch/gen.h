/*
 * gen.h — private to fetch/: the generator spec parser (fetch/gen.c), the
 * generators (fetch/gen_*.c) and the random stream they share.
 *
 * A spec is "kind" or "kind?key=value&key=value". Every error message
 * starts with "gen:<spec>: " so a config line can be found from it.
 */
#ifndef SP_GEN_H
#define SP_GEN_H

#include <stdint.h>
#include "matrix.h"

#define GEN_MAX_PARAMS 16
#define GEN_REQUIRED INT64_MIN  /* default value meaning "must be given" */

typedef struct gen_param {
    char key[32];
    char value[64];
} gen_param;

/* What a generator will allocate, noted while it validates (A == NULL):
 * the result's shape (nnz an upper bound where repeats are merged: R-MAT)
 * and the bytes of its temporaries at the result's allocation, its peak. */
typedef sp_gen_shape gen_size;

/* A spec split into its kind and key=value pairs, in the order written. */
typedef struct gen_params {
    const char *spec;           /* the whole spec, for messages */
    char kind[32];
    int count;
    gen_param item[GEN_MAX_PARAMS];
    gen_size *size;             /* when set, filled by gen_check_size / gen_note_size */
} gen_params;

/* A generator: with A == NULL it only validates the parameters (sizes
 * included), so config errors surface before anything is allocated. */
typedef int (*gen_fn)(const gen_params *p, sp_csr *A, sp_err *err);

/* Split spec into kind and pairs; syntax errors only (no kind lookup). */
int gen_params_parse(const char *spec, gen_params *p, sp_err *err);

/* Parse spec, look up its kind and check its keys; *fn is the generator. */
int gen_resolve(const char *spec, gen_params *p, gen_fn *fn, sp_err *err);

/* Validate spec fully (kind, keys, values, sizes) without generating. */
int gen_check(const char *spec, sp_err *err);

/* Short name for spec: "laplace2d_n100", only [A-Za-z0-9_.-]. */
int gen_name(const char *spec, char *name, size_t len, sp_err *err);

/* ---- fetch/gen_util.c: the helpers every generator shares ---- */

/* The value given for key, or NULL. */
const char *gen_param_find(const gen_params *p, const char *key);

/* Integer parameter `key` in [lo, hi]; dflt (or GEN_REQUIRED) when absent. */
int gen_param_int(const gen_params *p, const char *key, int64_t dflt, int64_t lo,
                  int64_t hi, int64_t *out, sp_err *err);
/* Real parameter `key` in [lo, hi]; dflt when absent (always optional). */
int gen_param_real(const gen_params *p, const char *key, double dflt, double lo,
                   double hi, double *out, sp_err *err);
/* Unsigned 64-bit seed parameter; dflt when absent. */
int gen_param_seed(const gen_params *p, const char *key, uint64_t dflt,
                   uint64_t *out, sp_err *err);

/* a * b saturated at INT64_MAX (inputs >= 0): sizes computed before
 * allocating never wrap. */
int64_t gen_mul(int64_t a, int64_t b);
/* Refuse a result whose rows, cols or nnz do not fit in int32; a size
 * that fits is noted (gen_note_size, no scratch). */
int gen_check_size(const gen_params *p, int64_t rows, int64_t cols, int64_t nnz,
                   sp_err *err);
/* Note the result's shape and the generator's temporaries in p->size, if
 * set: what the memory guard compares with free memory before generating. */
void gen_note_size(const gen_params *p, int64_t rows, int64_t cols, int64_t nnz,
                   uint64_t scratch_bytes);
/* Note the structure the generator gives (longest row, distinct
 * diagonals) in p->size, if set; after gen_check_size / gen_note_size. */
void gen_note_structure(const gen_params *p, double row_max, double ndiags);
/* What a sliced ELLPACK pads beyond that (sp_gen_shape.long_rows,
 * slice_growth). */
void gen_note_slices(const gen_params *p, double long_rows, double slice_growth);

/* Fail with "gen:<spec>: out of memory ...". */
int gen_fail_oom(const gen_params *p, sp_err *err);

/* rowptr[1..rows] holds per-row counts on entry, offsets on return. */
void gen_prefix_sum(int32_t *rowptr, int32_t rows);
/* Sort k column indices ascending. */
void gen_sort_columns(int32_t *col, int32_t k);
/* k distinct columns in [0, cols), sorted, drawn from *state. */
void gen_sample_columns(uint64_t *state, int32_t k, int32_t cols, int32_t *out);
/* Fill rows of A (shape and rowptr set) with per-row sampled columns and
 * random values; deterministic per (seed, row). */
void gen_fill_random_rows(sp_csr *A, uint64_t seed);

/* The generators (one file each). */
int gen_laplace2d(const gen_params *p, sp_csr *A, sp_err *err);
int gen_laplace3d(const gen_params *p, sp_csr *A, sp_err *err);
int gen_rmat(const gen_params *p, sp_csr *A, sp_err *err);
int gen_uniform(const gen_params *p, sp_csr *A, sp_err *err);
int gen_banded(const gen_params *p, sp_csr *A, sp_err *err);
int gen_denserow(const gen_params *p, sp_csr *A, sp_err *err);
int gen_random(const gen_params *p, sp_csr *A, sp_err *err);

/* ---- random stream: splitmix64 (Steele, Lea, Flood 2014) ------------- */

/* Next 64 random bits; *state advances by the golden-ratio increment. */
static inline uint64_t gen_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Independent stream `index` (a row or a block) of a seed: the state does
 * not depend on which thread handles it, so output is thread-count free. */
static inline uint64_t gen_stream(uint64_t seed, uint64_t index)
{
    uint64_t s = seed ^ (index * 0xd1b54a32d192ed03ull);
    return gen_next(&s);
}

/* Uniform integer in [0, bound) by multiply-shift (bound <= 2^32). */
static inline uint32_t gen_below(uint64_t *state, uint64_t bound)
{
    return (uint32_t)(((gen_next(state) >> 32) * bound) >> 32);
}

/* Nonzero value: magnitude in [0.5, 1.5), random sign. */
static inline double gen_value(uint64_t *state)
{
    uint64_t r = gen_next(state);
    double m = 0.5 + (double)(r >> 11) * 0x1.0p-53;
    return (r & 1) ? -m : m;
}

#endif
