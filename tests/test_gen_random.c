/* test_gen_random.c — gen:random (fetch/gen_random.c), study 000's inputs:
 * exactly nnz distinct positions over the whole matrix, sorted CSR within
 * bounds, the same matrix for a seed whatever the thread count, positions
 * spread over rows and columns, the size known before generating, and an
 * error naming the parameter for every bad value. */
#include <criterion/criterion.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "../fetch/matrix.h"

/* Generate spec and check what every gen:random matrix must be: the shape
 * and nnz asked for, columns in range, strictly ascending in each row
 * (sp_csr_validate), and no zero value. */
static void random_ok(const char *spec, int32_t rows, int32_t cols, int32_t nnz, sp_csr *A)
{
    sp_err err = {{0}};
    cr_assert_eq(sp_generate(spec, A, &err), 0, "%s: %s", spec, err.msg);
    cr_assert_eq(sp_csr_validate(A, &err), 0, "%s: %s", spec, err.msg);
    cr_assert_eq(A->rows, rows, "%s", spec);
    cr_assert_eq(A->cols, cols, "%s", spec);
    cr_assert_eq(A->nnz, nnz, "%s: %d nonzeros, asked for %d", spec, A->nnz, nnz);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            cr_assert(A->colidx[k] >= 0 && A->colidx[k] < cols, "%s row %d", spec, i);
            cr_assert(k == A->rowptr[i] || A->colidx[k] > A->colidx[k - 1], "%s row %d", spec,
                      i);
            cr_assert(A->val[k] != 0.0, "%s: zero value at %d", spec, k);
        }
}

static int csr_identical(const sp_csr *A, const sp_csr *B)
{
    return A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz &&
           !memcmp(A->rowptr, B->rowptr, ((size_t)A->rows + 1) * sizeof(int32_t)) &&
           !memcmp(A->colidx, B->colidx, (size_t)A->nnz * sizeof(int32_t)) &&
           !memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double));
}

/* Exact nnz on every path: sparse (few repeats), crowded (many repeats to
 * redraw), more than half full (the empty positions drawn instead), full,
 * empty, one column, one row, 1 x 1. */
Test(gen_random, exact_nnz_sorted_and_in_bounds)
{
    static const struct {
        const char *spec;
        int32_t rows, cols, nnz;
    } cases[] = {
        {"random?rows=500&cols=300&nnz=3500&seed=3", 500, 300, 3500},
        {"random?rows=100&cols=100&nnz=4900", 100, 100, 4900},     /* ~1/3 drawn twice */
        {"random?rows=100&cols=100&nnz=5001", 100, 100, 5001},     /* complement */
        {"random?rows=37&cols=53&nnz=1961", 37, 53, 1961},         /* full */
        {"random?rows=10&cols=20&nnz=0", 10, 20, 0},
        {"random?rows=1000&cols=1&nnz=600", 1000, 1, 600},
        {"random?rows=1&cols=1000&nnz=999", 1, 1000, 999},
        {"random?rows=1&nnz=1", 1, 1, 1},
        {"random?rows=33&nnz=100", 33, 33, 100},                   /* cols defaults to rows */
        {"random?rows=7&cols=1000000&nnz=5000", 7, 1000000, 5000}, /* rectangular */
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        sp_csr A;
        random_ok(cases[t].spec, cases[t].rows, cases[t].cols, cases[t].nnz, &A);
        sp_csr_free(&A);
    }
}

Test(gen_random, deterministic_across_thread_counts_and_calls)
{
    const char *specs[] = {"random?rows=3000&cols=2000&nnz=50000&seed=5",
                           "random?rows=60&cols=50&nnz=2900&seed=2"};
    for (int t = 0; t < 2; t++) {
        sp_csr A, B, C;
        omp_set_num_threads(1);
        cr_assert_eq(sp_generate(specs[t], &A, NULL), 0);
        omp_set_num_threads(3);
        cr_assert_eq(sp_generate(specs[t], &B, NULL), 0);
        omp_set_num_threads(2);
        cr_assert_eq(sp_generate(specs[t], &C, NULL), 0);
        cr_assert(csr_identical(&A, &B), "%s differs between 1 and 3 threads", specs[t]);
        cr_assert(csr_identical(&A, &C), "%s differs between 1 and 2 threads", specs[t]);
        sp_csr_free(&A);
        sp_csr_free(&B);
        sp_csr_free(&C);
    }
}

Test(gen_random, seed_changes_the_matrix)
{
    sp_csr A, B;
    cr_assert_eq(sp_generate("random?rows=200&cols=300&nnz=1000", &A, NULL), 0);
    cr_assert_eq(sp_generate("random?rows=200&cols=300&nnz=1000&seed=2", &B, NULL), 0);
    cr_assert_not(csr_identical(&A, &B));
    cr_assert_neq(sp_csr_checksum(&A), sp_csr_checksum(&B));
    sp_csr_free(&A);
    sp_csr_free(&B);
}

/* Positions uniform over the whole matrix: each half of the rows and of
 * the columns holds about half the nonzeros, and (unlike gen:uniform)
 * the rows do not all hold the same count. */
Test(gen_random, positions_spread_over_rows_and_columns)
{
    const char *specs[] = {"random?rows=2000&cols=1000&nnz=20000",
                           "random?rows=200&cols=100&nnz=16000"};   /* complement path */
    for (int t = 0; t < 2; t++) {
        sp_csr A;
        cr_assert_eq(sp_generate(specs[t], &A, NULL), 0);
        int64_t low_col = 0, low_row = A.rowptr[A.rows / 2];
        int32_t shortest = A.cols, longest = 0;
        for (int32_t i = 0; i < A.rows; i++) {
            int32_t n = A.rowptr[i + 1] - A.rowptr[i];
            shortest = n < shortest ? n : shortest;
            longest = n > longest ? n : longest;
        }
        for (int32_t k = 0; k < A.nnz; k++)
            low_col += A.colidx[k] < A.cols / 2;
        double half = A.nnz / 2.0, tol = 0.05 * A.nnz;
        cr_assert(low_col > half - tol && low_col < half + tol, "%s: %lld of %d in the left half",
                  specs[t], (long long)low_col, A.nnz);
        cr_assert(low_row > half - tol && low_row < half + tol, "%s: %lld of %d in the top half",
                  specs[t], (long long)low_row, A.nnz);
        cr_assert_lt(shortest, longest, "%s: every row holds %d", specs[t], longest);
        sp_csr_free(&A);
    }
}

/* The estimate the plan and the memory guard read comes from the
 * parameters alone: the study's default instance is sized without
 * generating it (exact nnz: nothing merges), with its drawing buffers. */
Test(gen_random, size_known_before_generating)
{
    sp_gen_shape g;
    sp_err err = {{0}};
    cr_assert_eq(sp_generate_shape("random?rows=500000&cols=500000&nnz=10000000&seed=1", &g,
                                   &err), 0, "%s", err.msg);
    cr_assert_eq(g.rows, 500000);
    cr_assert_eq(g.cols, 500000);
    cr_assert_eq(g.nnz, 10000000);
    cr_assert_geq(g.scratch_bytes, 3ull * 8 * 10000000, "the three key buffers: %llu",
                  (unsigned long long)g.scratch_bytes);
    /* more than half full: the empty positions are what is drawn */
    cr_assert_eq(sp_generate_shape("random?rows=1000&nnz=999000", &g, &err), 0, "%s", err.msg);
    cr_assert_eq(g.nnz, 999000);
    cr_assert_lt(g.scratch_bytes, 3ull * 8 * 999000 / 10, "%llu bytes for 1000 empty positions",
                 (unsigned long long)g.scratch_bytes);
}

Test(gen_random, bad_parameters_name_the_parameter)
{
    static const char *cases[][2] = {
        {"random?rows=10&cols=10&nnz=101", "gen:random?rows=10&cols=10&nnz=101: parameter "
         "'nnz': 101 exceeds rows x cols = 100 (one nonzero a position at most)"},
        {"random?rows=0&nnz=1",
         "gen:random?rows=0&nnz=1: parameter 'rows': 0 is out of range (must be 1..2147483647)"},
        {"random?rows=5&cols=0&nnz=1", "gen:random?rows=5&cols=0&nnz=1: parameter 'cols': 0 is "
         "out of range (must be 1..2147483647)"},
        {"random?rows=5&nnz=-1",
         "gen:random?rows=5&nnz=-1: parameter 'nnz': -1 is out of range (must be >= 0)"},
        {"random?rows=5", "gen:random?rows=5: missing required parameter 'nnz'"},
        {"random?nnz=5", "gen:random?nnz=5: missing required parameter 'rows'"},
        {"random?rows=5&nnz=x", "gen:random?rows=5&nnz=x: parameter 'nnz': 'x' is not an integer"},
        {"random?rows=100000&nnz=3000000000", "gen:random?rows=100000&nnz=3000000000: "
         "3000000000 nonzeros exceed the 32-bit index limit (2147483647)"},
        {"random?rows=5&nnz=1&per_row=2", "gen:random?rows=5&nnz=1&per_row=2: unknown parameter "
         "'per_row' for random (known: rows, cols, nnz, seed)"},
        {"random?rows=5&nnz=1&seed=-2",
         "gen:random?rows=5&nnz=1&seed=-2: parameter 'seed': '-2' is not a non-negative integer"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        sp_csr A;
        sp_err err = {{0}};
        cr_assert_eq(sp_generate(cases[t][0], &A, &err), -1, "'%s' accepted", cases[t][0]);
        cr_assert_str_eq(err.msg, cases[t][1]);
        cr_assert_null(A.rowptr);
    }
}
