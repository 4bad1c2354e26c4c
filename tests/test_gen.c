/* test_gen.c — the matrix generators (fetch/gen*.c): exact sizes, values,
 * determinism across thread counts, and every documented parameter error. */
#include <criterion/criterion.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "testutil.h"

/* Generate spec, asserting success and the CSR invariants. */
static void gen_ok(const char *spec, sp_csr *A)
{
    sp_err err = {{0}};
    cr_assert_eq(sp_generate(spec, A, &err), 0, "%s: %s", spec, err.msg);
    cr_assert_eq(sp_csr_validate(A, &err), 0, "%s: %s", spec, err.msg);
}

/* Sum of row i's values. */
static double row_sum(const sp_csr *A, int32_t i)
{
    double s = 0.0;
    for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        s += A->val[k];
    return s;
}

/* Value stored at (i, j), or 0. */
static double entry(const sp_csr *A, int32_t i, int32_t j)
{
    for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colidx[k] == j)
            return A->val[k];
    return 0.0;
}

/* True when A and B are bit-identical. */
static int csr_identical(const sp_csr *A, const sp_csr *B)
{
    return A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz &&
           !memcmp(A->rowptr, B->rowptr, ((size_t)A->rows + 1) * sizeof(int32_t)) &&
           !memcmp(A->colidx, B->colidx, (size_t)A->nnz * sizeof(int32_t)) &&
           !memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double));
}

Test(gen, laplace2d_sizes_and_row_sums)
{
    int sizes[] = {1, 2, 3, 10, 37};
    for (int t = 0; t < 5; t++) {
        int n = sizes[t];
        char spec[64];
        sp_csr A;
        snprintf(spec, sizeof spec, "laplace2d?n=%d", n);
        gen_ok(spec, &A);
        cr_assert_eq(A.rows, n * n);
        cr_assert_eq(A.cols, n * n);
        cr_assert_eq(A.nnz, 5 * n * n - 4 * n, "%s: nnz %d", spec, A.nnz);
        for (int32_t i = 0; i < A.rows; i++) {
            int x = i % n, y = i / n;
            int neighbours = (x > 0) + (x < n - 1) + (y > 0) + (y < n - 1);
            cr_assert_eq(entry(&A, i, i), 4.0);
            cr_assert_eq(row_sum(&A, i), 4.0 - neighbours, "%s row %d", spec, i);
        }
        sp_csr_free(&A);
    }
}

Test(gen, laplace2d_neighbours_are_grid_neighbours)
{
    sp_csr A;
    gen_ok("laplace2d?n=4", &A);
    /* point (1,1) = row 5: neighbours 1, 4, 6, 9 */
    int32_t want[] = {1, 4, 5, 6, 9};
    cr_assert_eq(A.rowptr[6] - A.rowptr[5], 5);
    for (int k = 0; k < 5; k++)
        cr_assert_eq(A.colidx[A.rowptr[5] + k], want[k]);
    cr_assert_eq(entry(&A, 3, 4), 0.0, "row end must not wrap to the next grid row");
    sp_csr_free(&A);
}

Test(gen, laplace3d_7_point)
{
    for (int n = 1; n <= 6; n++) {
        char spec[64];
        sp_csr A;
        snprintf(spec, sizeof spec, "laplace3d?n=%d", n);
        gen_ok(spec, &A);
        cr_assert_eq(A.rows, n * n * n);
        cr_assert_eq(A.nnz, 7 * n * n * n - 6 * n * n, "%s: nnz %d", spec, A.nnz);
        for (int32_t i = 0; i < A.rows; i++) {
            cr_assert_eq(entry(&A, i, i), 6.0);
            int32_t len = A.rowptr[i + 1] - A.rowptr[i];
            cr_assert_eq(row_sum(&A, i), 6.0 - (len - 1), "%s row %d", spec, i);
        }
        sp_csr_free(&A);
    }
    sp_csr B;
    gen_ok("laplace3d?n=3&points=7", &B);
    cr_assert_eq(row_sum(&B, 13), 0.0, "interior point sums to 0");
    cr_assert_eq(B.rowptr[14] - B.rowptr[13], 7);
    sp_csr_free(&B);
}

Test(gen, laplace3d_27_point)
{
    for (int n = 1; n <= 6; n++) {
        char spec[64];
        sp_csr A;
        snprintf(spec, sizeof spec, "laplace3d?n=%d&points=27", n);
        gen_ok(spec, &A);
        int64_t side = 3 * n - 2;
        cr_assert_eq(A.nnz, side * side * side, "%s: nnz %d", spec, A.nnz);
        for (int32_t i = 0; i < A.rows; i++) {
            int32_t len = A.rowptr[i + 1] - A.rowptr[i];
            cr_assert_eq(entry(&A, i, i), 26.0);
            cr_assert_eq(row_sum(&A, i), 26.0 - (len - 1), "%s row %d", spec, i);
        }
        sp_csr_free(&A);
    }
    sp_csr B;
    gen_ok("laplace3d?n=3&points=27", &B);
    cr_assert_eq(B.rowptr[14] - B.rowptr[13], 27, "centre of a 3^3 grid touches all");
    cr_assert_eq(row_sum(&B, 13), 0.0);
    cr_assert_eq(B.rowptr[1] - B.rowptr[0], 8, "a corner has 7 neighbours");
    sp_csr_free(&B);
}

Test(gen, banded_sizes)
{
    int cases[][2] = {{1, 0}, {10, 0}, {10, 3}, {10, 9}, {10, 50}, {100, 7}};
    for (int t = 0; t < 6; t++) {
        int n = cases[t][0], bw = cases[t][1], b = bw < n - 1 ? bw : n - 1;
        char spec[64];
        sp_csr A;
        snprintf(spec, sizeof spec, "banded?n=%d&bw=%d", n, bw);
        gen_ok(spec, &A);
        cr_assert_eq(A.nnz, n * (2 * b + 1) - b * (b + 1), "%s: nnz %d", spec, A.nnz);
        for (int32_t i = 0; i < A.rows; i++)
            for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
                cr_assert_leq(abs(A.colidx[k] - i), b);
        sp_csr_free(&A);
    }
}

Test(gen, uniform_rows_hold_k_distinct_columns)
{
    sp_csr A;
    gen_ok("uniform?rows=500&cols=300&per_row=7&seed=3", &A);
    cr_assert_eq(A.rows, 500);
    cr_assert_eq(A.cols, 300);
    cr_assert_eq(A.nnz, 3500);
    for (int32_t i = 0; i < A.rows; i++)
        cr_assert_eq(A.rowptr[i + 1] - A.rowptr[i], 7);   /* validate: distinct */
    for (int32_t k = 0; k < A.nnz; k++)
        cr_assert(A.val[k] != 0.0);
    sp_csr_free(&A);

    gen_ok("uniform?rows=40&per_row=40", &A);           /* every column */
    cr_assert_eq(A.nnz, 1600);
    sp_csr_free(&A);
    gen_ok("uniform?rows=40&per_row=30", &A);           /* dense selection path */
    cr_assert_eq(A.nnz, 1200);
    sp_csr_free(&A);
    gen_ok("uniform?rows=10&per_row=0", &A);
    cr_assert_eq(A.nnz, 0);
    cr_assert_eq(A.rowptr[10], 0);
    sp_csr_free(&A);
}

Test(gen, uniform_columns_spread_over_the_range)
{
    sp_csr A;
    gen_ok("uniform?rows=2000&cols=1000&per_row=10", &A);
    int low = 0;
    for (int32_t k = 0; k < A.nnz; k++)
        low += A.colidx[k] < 500;
    cr_assert(low > 9000 && low < 11000, "%d of 20000 columns in the lower half", low);
    sp_csr_free(&A);
}

Test(gen, denserow_has_one_dense_row)
{
    sp_csr A;
    gen_ok("denserow?rows=101&cols=5000&per_row=3&dense=4000", &A);
    cr_assert_eq(A.nnz, 100 * 3 + 4000);
    for (int32_t i = 0; i < A.rows; i++)
        cr_assert_eq(A.rowptr[i + 1] - A.rowptr[i], i == 50 ? 4000 : 3, "row %d", i);
    sp_csr_free(&A);
    gen_ok("denserow?rows=9&per_row=2&dense=9", &A);
    cr_assert_eq(A.rowptr[5] - A.rowptr[4], 9);
    sp_csr_free(&A);
}

Test(gen, rmat_shape_and_bounds)
{
    sp_csr A;
    gen_ok("rmat?scale=10&ef=8", &A);
    cr_assert_eq(A.rows, 1024);
    cr_assert_eq(A.cols, 1024);
    cr_assert_leq(A.nnz, 8 * 1024);
    cr_assert_gt(A.nnz, 4 * 1024, "duplicates are rare enough at ef=8: %d", A.nnz);
    for (int32_t k = 0; k < A.nnz; k++)
        cr_assert(A.val[k] != 0.0);
    /* a = 0.57: the first row is far heavier than the average of 8 */
    cr_assert_gt(A.rowptr[1] - A.rowptr[0], 40);
    sp_csr_free(&A);
}

Test(gen, rmat_quadrant_probabilities)
{
    /* A quadrant of probability 1 sends every edge to one corner. */
    const char *spec[] = {"rmat?scale=5&a=1&b=0&c=0", "rmat?scale=5&a=0&b=1&c=0",
                          "rmat?scale=5&a=0&b=0&c=1", "rmat?scale=5&a=0&b=0&c=0"};
    int32_t row[] = {0, 0, 31, 31}, col[] = {0, 31, 0, 31};
    for (int t = 0; t < 4; t++) {
        sp_csr A;
        gen_ok(spec[t], &A);
        cr_assert_eq(A.nnz, 1, "%s: nnz %d", spec[t], A.nnz);
        cr_assert_eq(A.rowptr[row[t] + 1] - A.rowptr[row[t]], 1, "%s", spec[t]);
        cr_assert_eq(A.colidx[0], col[t], "%s", spec[t]);
        sp_csr_free(&A);
    }
}

Test(gen, deterministic_across_thread_counts)
{
    const char *specs[] = {"rmat?scale=12&ef=4", "uniform?rows=3000&per_row=9&seed=5",
                           "denserow?rows=3000&per_row=4&dense=2500",
                           "laplace3d?n=9&points=27", "banded?n=999&bw=4"};
    for (int t = 0; t < 5; t++) {
        sp_csr A, B, C;
        omp_set_num_threads(1);
        gen_ok(specs[t], &A);
        omp_set_num_threads(3);
        gen_ok(specs[t], &B);
        omp_set_num_threads(2);
        gen_ok(specs[t], &C);
        cr_assert(csr_identical(&A, &B), "%s differs between 1 and 3 threads", specs[t]);
        cr_assert(csr_identical(&A, &C), "%s differs between 1 and 2 threads", specs[t]);
        sp_csr_free(&A);
        sp_csr_free(&B);
        sp_csr_free(&C);
    }
}

Test(gen, seed_changes_the_matrix)
{
    const char *pairs[][2] = {{"rmat?scale=10&seed=1", "rmat?scale=10&seed=2"},
                              {"uniform?rows=100&per_row=5", "uniform?rows=100&per_row=5&seed=9"},
                              {"denserow?rows=100&per_row=5&dense=50&seed=1",
                               "denserow?rows=100&per_row=5&dense=50&seed=2"}};
    for (int t = 0; t < 3; t++) {
        sp_csr A, B;
        gen_ok(pairs[t][0], &A);
        gen_ok(pairs[t][1], &B);
        cr_assert_not(csr_identical(&A, &B), "%s vs %s", pairs[t][0], pairs[t][1]);
        cr_assert_neq(sp_csr_checksum(&A), sp_csr_checksum(&B));
        sp_csr_free(&A);
        sp_csr_free(&B);
    }
}

/* Every bad parameter yields exactly its documented message, and leaves A
 * empty. The oversized ones would need terabytes if anything were
 * allocated, so passing quickly shows the size is refused first. */
Test(gen, bad_parameters)
{
    static const char *cases[][2] = {
        {"rmat?scale=x", "gen:rmat?scale=x: parameter 'scale': 'x' is not an integer"},
        {"laplace2d?n=12x", "gen:laplace2d?n=12x: parameter 'n': '12x' is not an integer"},
        {"laplace2d?n= 12", "gen:laplace2d?n= 12: parameter 'n': ' 12' is not an integer"},
        {"laplace2d?n=1.5", "gen:laplace2d?n=1.5: parameter 'n': '1.5' is not an integer"},
        {"foo?n=1", "gen:foo?n=1: unknown generator 'foo' (known: laplace2d, laplace3d, rmat, "
                    "uniform, banded, denserow, random)"},
        {"laplace2d?m=3", "gen:laplace2d?m=3: unknown parameter 'm' for laplace2d (known: n)"},
        {"laplace2d", "gen:laplace2d: missing required parameter 'n'"},
        {"banded?n=4", "gen:banded?n=4: missing required parameter 'bw'"},
        {"laplace2d?n=0",
         "gen:laplace2d?n=0: parameter 'n': 0 is out of range (must be 1..2147483647)"},
        {"laplace2d?n=-3",
         "gen:laplace2d?n=-3: parameter 'n': -3 is out of range (must be 1..2147483647)"},
        {"laplace2d?n=99999999999999999999", "gen:laplace2d?n=99999999999999999999: parameter "
         "'n': 99999999999999999999 is out of range (must be 1..2147483647)"},
        {"rmat?scale=10&a=1.5",
         "gen:rmat?scale=10&a=1.5: parameter 'a': 1.5 is out of range (must be in [0, 1])"},
        {"rmat?scale=10&b=-0.1",
         "gen:rmat?scale=10&b=-0.1: parameter 'b': -0.1 is out of range (must be in [0, 1])"},
        {"rmat?scale=10&c=abc", "gen:rmat?scale=10&c=abc: parameter 'c': 'abc' is not a number"},
        {"rmat?scale=10&a=0.5&b=0.3&c=0.3", "gen:rmat?scale=10&a=0.5&b=0.3&c=0.3: parameters "
         "a+b+c = 1.1 exceed 1 (d = 1-a-b-c must be >= 0)"},
        {"rmat?scale=31", "gen:rmat?scale=31: parameter 'scale': 31 is out of range (must be 0..30)"},
        {"rmat?scale=30&ef=16",
         "gen:rmat?scale=30&ef=16: 17179869184 edges exceed the 32-bit index limit (2147483647)"},
        {"rmat?scale=4&seed=-1",
         "gen:rmat?scale=4&seed=-1: parameter 'seed': '-1' is not a non-negative integer"},
        {"uniform?rows=10&per_row=11",
         "gen:uniform?rows=10&per_row=11: parameter 'per_row': 11 is out of range (must be 0..10)"},
        {"denserow?rows=10&per_row=2&dense=11", "gen:denserow?rows=10&per_row=2&dense=11: "
         "parameter 'dense': 11 is out of range (must be 0..10)"},
        {"banded?n=10&bw=-1",
         "gen:banded?n=10&bw=-1: parameter 'bw': -1 is out of range (must be 0..2147483647)"},
        {"laplace3d?n=5&points=9", "gen:laplace3d?n=5&points=9: parameter 'points': 9 is not 7 or 27"},
        {"laplace2d?n=50000",
         "gen:laplace2d?n=50000: 2500000000 rows exceed the 32-bit index limit (2147483647)"},
        {"laplace3d?n=1000&points=27", "gen:laplace3d?n=1000&points=27: 26946035992 nonzeros "
         "exceed the 32-bit index limit (2147483647)"},
        {"uniform?rows=100000&per_row=100000", "gen:uniform?rows=100000&per_row=100000: "
         "10000000000 nonzeros exceed the 32-bit index limit (2147483647)"},
        {"banded?n=2000000000&bw=2000000000", "gen:banded?n=2000000000&bw=2000000000: "
         "4000000000000000000 nonzeros exceed the 32-bit index limit (2147483647)"},
        {"laplace3d?n=2000000000", "gen:laplace3d?n=2000000000: the number of rows overflows "
         "64 bits; 32-bit indices hold at most 2147483647"},
        {"laplace2d?n=3&n=4", "gen:laplace2d?n=3&n=4: parameter 'n' given twice"},
        {"laplace2d?n", "gen:laplace2d?n: parameter 'n' has no value (expected key=value)"},
        {"laplace2d?n=", "gen:laplace2d?n=: parameter 'n': value missing"},
        {"laplace2d?n=3&", "gen:laplace2d?n=3&: empty parameter (stray '&')"},
        {"laplace2d?", "gen:laplace2d?: no parameters after '?'"},
        {"?n=3", "gen:?n=3: bad generator kind ''"},
        {"", "gen:: empty generator spec (expected kind?key=value&...)"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        sp_csr A;
        sp_err err = {{0}};
        cr_assert_eq(sp_generate(cases[t][0], &A, &err), -1, "'%s' accepted", cases[t][0]);
        cr_assert_str_eq(err.msg, cases[t][1]);
        cr_assert_null(A.rowptr);
    }
}

/* A's longest row and its number of distinct diagonals (j - i). */
static void measured_structure(const sp_csr *A, double *row_max, double *ndiags)
{
    int64_t nd = (int64_t)A->rows + A->cols - 1;
    char *seen = calloc((size_t)nd, 1);
    cr_assert_not_null(seen);
    int32_t longest = 0;
    int64_t distinct = 0;
    for (int32_t i = 0; i < A->rows; i++) {
        if (A->rowptr[i + 1] - A->rowptr[i] > longest)
            longest = A->rowptr[i + 1] - A->rowptr[i];
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t d = (int64_t)A->colidx[k] - i + A->rows - 1;
            distinct += !seen[d];
            seen[d] = 1;
        }
    }
    free(seen);
    *row_max = longest, *ndiags = (double)distinct;
}

/* The structure a generator expects (sp_generate_shape: what the plan's
 * cost and the padded formats' memory estimates use) against the matrix
 * it makes: the longest row exact for the kinds that fix it (the stencils'
 * interior rows, uniform's k, denserow's dense row), within a factor 1.5
 * for the random kinds (R-MAT's first row, random's binomial tail); the
 * diagonals exact for the stencils, within 10 % where entries scatter
 * uniformly, 25 % for R-MAT (its entries cluster and repeats merge). */
Test(gen, expected_structure_matches_the_matrix)
{
    static const struct {
        const char *spec;
        double row_slack, diag_slack;
    } cases[] = {
        {"laplace2d?n=40", 1.0, 1.0},
        {"laplace3d?n=12&points=27", 1.0, 1.0},
        {"banded?n=3000&bw=5", 1.0, 1.0},
        {"uniform?rows=5000&cols=3000&per_row=6&seed=3", 1.0, 1.1},
        {"denserow?rows=3000&cols=4000&per_row=3&dense=2500", 1.0, 1.1},
        {"rmat?scale=12&ef=8", 1.5, 1.25},
        {"random?rows=4000&cols=3000&nnz=50000&seed=2", 1.5, 1.1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sp_gen_shape g;
        sp_err err = {{0}};
        cr_assert_eq(sp_generate_shape(cases[c].spec, &g, &err), 0, "%s", err.msg);
        sp_csr A;
        gen_ok(cases[c].spec, &A);
        double row_max, ndiags;
        measured_structure(&A, &row_max, &ndiags);
        cr_assert(g.row_max <= row_max * cases[c].row_slack &&
                      row_max <= g.row_max * cases[c].row_slack,
                  "%s: longest row %g expected, %g made", cases[c].spec, g.row_max, row_max);
        cr_assert(g.ndiags <= ndiags * cases[c].diag_slack &&
                      ndiags <= g.ndiags * cases[c].diag_slack,
                  "%s: %g diagonals expected, %g made", cases[c].spec, g.ndiags, ndiags);
        sp_csr_free(&A);
    }
}
