/* test_features.c — matrix features (fetch/features.c) on hand-checked
 * small matrices, and their printed form. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "testutil.h"


static sp_features features_of(int32_t rows, int32_t cols, int32_t nnz,
                               const int32_t (*ij)[2])
{
    sp_csr A;
    sp_features f;
    tu_csr_from_pairs(&A, rows, cols, nnz, ij);
    sp_features_compute(&A, &f);
    sp_csr_free(&A);
    return f;
}

Test(features, empty_rows_and_row_statistics)
{
    /* rows of length 2, 0, 1 */
    static const int32_t ij[][2] = {{0, 0}, {0, 2}, {2, 1}};
    sp_features f = features_of(3, 3, 3, ij);
    cr_assert_eq(f.rows, 3);
    cr_assert_eq(f.cols, 3);
    cr_assert_eq(f.nnz, 3);
    cr_assert_eq(f.row_min, 0);
    cr_assert_eq(f.row_max, 2);
    cr_assert_float_eq(f.row_mean, 1.0, 1e-12);
    cr_assert_float_eq(f.row_std, sqrt(2.0 / 3.0), 1e-12);   /* population std */
    cr_assert_eq(f.empty_rows, 1);
    cr_assert_eq(f.bandwidth, 2);
    cr_assert_float_eq(f.pattern_symmetry, 0.0, 1e-12);      /* (0,2), (2,1): no mirrors */
    cr_assert_str_eq(f.size_class, "small");
}

Test(features, symmetric_pattern)
{
    static const int32_t ij[][2] = {{0, 1}, {1, 0}, {1, 1}, {1, 3}, {2, 2}, {3, 1}};
    sp_features f = features_of(4, 4, 6, ij);
    cr_assert_float_eq(f.pattern_symmetry, 1.0, 1e-12);
    cr_assert_eq(f.bandwidth, 2);
    cr_assert_eq(f.row_min, 1);
    cr_assert_eq(f.row_max, 3);
    cr_assert_eq(f.empty_rows, 0);
}

Test(features, partly_symmetric_pattern)
{
    /* off-diagonal (0,1), (1,0), (0,2), (3,0): two of four mirrored */
    static const int32_t ij[][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {3, 0}};
    sp_features f = features_of(4, 4, 5, ij);
    cr_assert_float_eq(f.pattern_symmetry, 0.5, 1e-12);
    cr_assert_eq(f.bandwidth, 3);
    cr_assert_eq(f.empty_rows, 1);
}

Test(features, values_do_not_matter_for_the_pattern)
{
    static const int32_t ij[][2] = {{0, 1}, {1, 0}};
    sp_csr A;
    sp_features f;
    tu_csr_from_pairs(&A, 2, 2, 2, ij);
    A.val[0] = 3.0;
    A.val[1] = -8.0;
    sp_features_compute(&A, &f);
    cr_assert_float_eq(f.pattern_symmetry, 1.0, 1e-12);
    sp_csr_free(&A);
}

Test(features, rectangular)
{
    static const int32_t ij[][2] = {{0, 0}, {0, 3}, {1, 1}};
    sp_features f = features_of(2, 4, 3, ij);
    cr_assert_eq(f.rows, 2);
    cr_assert_eq(f.cols, 4);
    cr_assert_eq(f.bandwidth, 3);
    cr_assert_float_eq(f.pattern_symmetry, 0.0, 1e-12);
    /* tall: column index below the row index */
    static const int32_t tall[][2] = {{4, 0}};
    f = features_of(5, 2, 1, tall);
    cr_assert_eq(f.bandwidth, 4);
    cr_assert_eq(f.empty_rows, 4);
}

Test(features, no_nonzeros)
{
    sp_features f = features_of(3, 3, 0, NULL);
    cr_assert_eq(f.nnz, 0);
    cr_assert_eq(f.row_min, 0);
    cr_assert_eq(f.row_max, 0);
    cr_assert_float_eq(f.row_mean, 0.0, 1e-12);
    cr_assert_float_eq(f.row_std, 0.0, 1e-12);
    cr_assert_eq(f.empty_rows, 3);
    cr_assert_eq(f.bandwidth, 0);
    cr_assert_float_eq(f.pattern_symmetry, 1.0, 1e-12);
    cr_assert_str_eq(f.size_class, "small");
    f = features_of(0, 0, 0, NULL);
    cr_assert_eq(f.rows, 0);
    cr_assert_eq(f.row_min, 0);
    cr_assert_float_eq(f.row_mean, 0.0, 1e-12);
}

Test(features, diagonal_only_is_symmetric)
{
    static const int32_t ij[][2] = {{0, 0}, {1, 1}, {2, 2}};
    sp_features f = features_of(3, 3, 3, ij);
    cr_assert_float_eq(f.pattern_symmetry, 1.0, 1e-12);
    cr_assert_eq(f.bandwidth, 0);
    cr_assert_float_eq(f.row_std, 0.0, 1e-12);
}

Test(features, generated_laplacian)
{
    sp_csr A;
    sp_features f;
    sp_err err = {{0}};
    cr_assert_eq(sp_generate("laplace2d?n=10", &A, &err), 0);
    sp_features_compute(&A, &f);
    cr_assert_eq(f.rows, 100);
    cr_assert_eq(f.nnz, 460);
    cr_assert_eq(f.row_min, 3);
    cr_assert_eq(f.row_max, 5);
    cr_assert_eq(f.bandwidth, 10);
    cr_assert_float_eq(f.pattern_symmetry, 1.0, 1e-12);
    sp_csr_free(&A);
    cr_assert_eq(sp_generate("rmat?scale=8", &A, &err), 0);
    sp_features_compute(&A, &f);
    cr_assert(f.pattern_symmetry > 0.0 && f.pattern_symmetry < 1.0, "%g", f.pattern_symmetry);
    sp_csr_free(&A);
}

Test(features, size_classes)
{
    cr_assert_str_eq(sp_size_class(0), "small");
    cr_assert_str_eq(sp_size_class(10000), "small");
    cr_assert_str_eq(sp_size_class(10001), "medium");
    cr_assert_str_eq(sp_size_class(1000000), "medium");
    cr_assert_str_eq(sp_size_class(1000001), "large");
    cr_assert_str_eq(sp_size_class(8000000), "large");
    cr_assert_str_eq(sp_size_class(8000001), "xlarge");
    cr_assert_str_eq(sp_size_class(3000000000LL), "xlarge");
}

Test(features, printed_in_order)
{
    static const int32_t ij[][2] = {{0, 0}, {0, 2}, {2, 1}};
    sp_features f = features_of(3, 3, 3, ij);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_not_null(out);
    sp_features_print(&f, out);
    fclose(out);
    cr_assert_str_eq(text, "rows: 3\n"
                           "cols: 3\n"
                           "nnz: 3\n"
                           "nnz_per_row_min: 0\n"
                           "nnz_per_row_max: 2\n"
                           "nnz_per_row_mean: 1\n"
                           "nnz_per_row_std: 0.816497\n"
                           "empty_rows: 1\n"
                           "bandwidth: 2\n"
                           "pattern_symmetry: 0\n"
                           "size_class: small\n"
                           "diagonals: 3\n"
                           "ell_fill: 2\n"
                           "sell_fill_8: 2\n"
                           "sell_fill_32: 2\n"
                           "top1_share: 0.666667\n"
                           "col_gap: 2\n"
                           "x_line_new: 0.666667\n");
    free(text);
}
