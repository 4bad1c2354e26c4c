/* spmv_cases.c — awkward SpMV test matrices and the kernel life cycle. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_cases.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_value(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

/* rows x cols with per_row random entries per row; row `dense` (if >= 0)
 * full; rows with i % empty_every == 0 left empty (if empty_every > 0). */
static void random_case(sp_csr *A, int32_t rows, int32_t cols, int per_row, int32_t dense,
                        int empty_every, uint64_t seed)
{
    sp_coo T;
    sp_err err;
    cr_assert_eq(sp_coo_init(&T, rows, cols, 1024, &err), 0, "%s", err.msg);
    for (int32_t i = 0; i < rows; i++) {
        if (empty_every > 0 && i % empty_every == 0)
            continue;
        int n = i == dense ? cols : per_row;
        for (int k = 0; k < n && cols > 0; k++) {
            int32_t j = i == dense ? k : (int32_t)(rng_next(&seed) % (uint64_t)cols);
            cr_assert_eq(sp_coo_push(&T, i, j, rng_value(&seed), &err), 0);
        }
    }
    cr_assert_eq(sp_csr_from_coo(A, &T, &err), 0, "%s", err.msg);
    sp_coo_free(&T);
}

static const struct {
    const char *name;
    int32_t rows, cols;
    int per_row;
    int32_t dense;
    int empty_every;
} cases[] = {
    {"random 5000x5000, 10 per row", 5000, 5000, 10, -1, 0},
    {"rows not a multiple of 32 (1001)", 1001, 1001, 7, -1, 0},
    {"every third row empty", 999, 999, 5, -1, 3},
    {"one dense row of 200000", 3000, 200000, 3, 1500, 0},
    {"one column", 4097, 1, 1, -1, 0},
    {"one row", 1, 50000, 0, 0, 0},
    {"wide 37x1000", 37, 1000, 20, -1, 0},
    {"tall 1000x37", 1000, 37, 4, -1, 0},
    {"nnz = 0", 300, 200, 0, -1, 0},
    {"0 x 0", 0, 0, 0, -1, 0},
};

int spmv_case_count(void)
{
    return (int)(sizeof cases / sizeof *cases);
}

void spmv_case_build(int i, spmv_case *c)
{
    c->name = cases[i].name;
    random_case(&c->A, cases[i].rows, cases[i].cols, cases[i].per_row, cases[i].dense,
                cases[i].empty_every, 1000 + (uint64_t)i);
}

void spmv_case_free(spmv_case *c)
{
    sp_csr_free(&c->A);
}

double spmv_check_kernel(const sp_kernel *k, const sp_params *p, const sp_csr *A)
{
    const sp_operation *op = sp_operation_find(k->operation);
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, A, &err), 0, "%s", err.msg);
    size_t bytes = op->output_bytes(&pb);
    double *ref = malloc(bytes + 8), *y = malloc(bytes + 8);
    cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
    void *state = NULL;
    sp_phases ph = {0, 0, 0};
    cr_assert_eq(k->prepare(&pb, p, &state, &ph, &err), 0, "%s prepare: %s", k->name, err.msg);
    for (int r = 0; r < 2; r++) {
        double s = -1;
        cr_assert_eq(k->run(state, &s, &err), 0, "%s run: %s", k->name, err.msg);
        cr_assert(s > 0 && isfinite(s), "%s: time %g", k->name, s);
    }
    memset(y, 0xff, bytes);     /* NaN: an unwritten entry fails the check */
    cr_assert_eq(k->result(state, y, &ph, &err), 0, "%s result: %s", k->name, err.msg);
    k->release(state);
    double rel = op->error(&pb, y, ref);
    free(ref);
    free(y);
    op->teardown(&pb);
    return rel;
}
