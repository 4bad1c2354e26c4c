/* test_mm_read.c — the Matrix Market reader.
 *
 * Valid files are compared entry by entry with an independent reader,
 * scipy.io.mmread (tests/mm_scipy_dump.py under /usr/bin/python3): same
 * shape, the same stored entries (coordinate files: the same count too),
 * values bit-identical, no tolerance. Array files differ only in that a
 * skew-symmetric array stores no diagonal while scipy's dense result
 * lists its zeros, so for arrays an entry absent on one side must be a
 * zero on the other. Files scipy refuses but the format (or common
 * practice, as fast_matrix_market accepts it) allows — leading blanks,
 * CR line ends, a "%MatrixMarket" banner — are compared with a twin
 * scipy reads. Malformed files must fail with "FILE:LINE: problem".
 *
 * Field names: the standard's real, double, integer, pattern, complex.
 * The LAGraph files named int8, uint64, bool... carry standard banners
 * ("integer", "pattern") with the GraphBLAS type only in a comment, so
 * they are valid (lagraph_matrix_uint64 fails only because a value does
 * not fit int64, which is how "integer" is read); a banner naming such a
 * type would be an unknown field, as in lagraph_mangled3.
 *
 * Test files come from other parsers' test suites and the SuiteSparse
 * collection: tests/data/mm/SOURCES.tsv.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <ctype.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "../fetch/matrix.h"
#include "../fetch/mm_fast.h"
#include "../fetch/mm_read.h"
#include "../core/hostmem.h"
#include "testutil.h"

static const sp_mm_opts quiet = {.complex = SP_COMPLEX_REAL_PART, .quiet = 1};

static void read_ok(const char *path, sp_csr *A)
{
    sp_err err = {{0}};
    cr_assert_eq(sp_mm_read(path, &quiet, A, NULL, &err), 0, "%s: %s", path, err.msg);
    cr_assert_eq(sp_csr_validate(A, &err), 0, "%s: %s", path, err.msg);
}

/* scipy's reading of path, as a CSR (duplicates summed). */
static void read_scipy(const char *path, sp_csr *A)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/mm_scipy_dump.py '%s'", path);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    int rows, cols;
    long nnz, k = 0;
    cr_assert_eq(fscanf(p, "%d %d %ld", &rows, &cols, &nnz), 3, "scipy could not read %s", path);
    sp_coo T;
    sp_err err;
    cr_assert_eq(sp_coo_init(&T, rows, cols, 64, &err), 0);
    int i, j;
    double v;
    for (; fscanf(p, "%d %d %lf", &i, &j, &v) == 3; k++)
        cr_assert_eq(sp_coo_push(&T, i, j, v, &err), 0);
    cr_assert_eq(pclose(p), 0, "scipy failed on %s", path);
    cr_assert_eq(k, nnz, "%s: scipy listed %ld of %ld entries", path, k, nnz);
    cr_assert_eq(sp_csr_from_coo(A, &T, &err), 0, "%s", err.msg);
    cr_assert_eq(A->nnz, nnz, "%s: scipy's entries are not unique", path);
    sp_coo_free(&T);
}

/* Same shape, and every entry stored by either side equal (absent = 0). */
static void assert_same(const sp_csr *A, const sp_csr *B, const char *what)
{
    cr_assert_eq(A->rows, B->rows, "%s: rows %d vs %d", what, A->rows, B->rows);
    cr_assert_eq(A->cols, B->cols, "%s: cols %d vs %d", what, A->cols, B->cols);
    for (int32_t i = 0; i < A->rows; i++) {
        int32_t a = A->rowptr[i], b = B->rowptr[i];
        while (a < A->rowptr[i + 1] || b < B->rowptr[i + 1]) {
            int32_t ja = a < A->rowptr[i + 1] ? A->colidx[a] : INT32_MAX;
            int32_t jb = b < B->rowptr[i + 1] ? B->colidx[b] : INT32_MAX;
            double va = ja <= jb ? A->val[a] : 0.0, vb = jb <= ja ? B->val[b] : 0.0;
            cr_assert(va == vb, "%s: entry (%d,%d) is %.17g, expected %.17g", what, i + 1,
                      (ja < jb ? ja : jb) + 1, va, vb);
            a += ja <= jb;
            b += jb <= ja;
        }
    }
}

/* The same stored entries, bit-identical values. */
static void assert_identical(const sp_csr *A, const sp_csr *B, const char *what)
{
    cr_assert_eq(A->nnz, B->nnz, "%s: %d stored entries, expected %d", what, A->nnz, B->nnz);
    assert_same(A, B, what);
    for (int32_t k = 0; k < A->nnz; k++)
        cr_assert(A->colidx[k] == B->colidx[k] &&
                  !memcmp(&A->val[k], &B->val[k], sizeof(double)),
                  "%s: entry %d is %a, expected %a", what, k, A->val[k], B->val[k]);
}

/* 1 when the file's banner says "array" (plain text files only). */
static int is_array_file(const char *path)
{
    char line[256] = "";
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    fclose(f);
    for (char *c = line; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return strstr(line, " array") != NULL;
}

static void compare_with_scipy(const char *name)
{
    char path[512];
    tu_path(path, sizeof path, "tests/data/mm", name);
    sp_csr A, B;
    read_ok(path, &A);
    read_scipy(path, &B);
    if (strstr(name, ".gz") || !is_array_file(path))
        assert_identical(&A, &B, name);
    else
        assert_same(&A, &B, name);
    sp_csr_free(&A);
    sp_csr_free(&B);
}

Test(mm_read, valid_files_match_scipy, .timeout = 120)
{
    const char *files[] = {
        "fmm_2col_array.mtx", "fmm_eye3.mtx", "fmm_eye3_array.mtx", "fmm_eye3_complex.mtx",
        "fmm_eye3_pattern.mtx", "fmm_eye3_str.mtx", "fmm_kepner_gilbert_graph.mtx",
        "fmm_nist_ex1.mtx", "fmm_nist_ex1_freeformat.mtx",
        "fmm_overflow__overflow_index_gt_int8.mtx", "fmm_overflow__overflow_value_gt_int32.mtx",
        "fmm_py_matrix_array_complex_general.mtx",
        "fmm_py_matrix_coordinate_complex_hermitian.mtx",
        "fmm_py_matrix_coordinate_real_skew-symmetric.mtx", "fmm_row_3by4.mtx",
        "ginkgo_dense_complex.mtx", "ginkgo_dense_real.mtx", "ginkgo_sparse_complex.mtx",
        "ginkgo_sparse_pattern.mtx", "ginkgo_sparse_real.mtx",
        "ginkgo_sparse_real_skew_symmetric.mtx", "ginkgo_sparse_real_symmetric.mtx",
        "lagraph_LFAT5_hypersparse.mtx", "lagraph_comments_cover.mtx",
        "lagraph_comments_full.mtx", "lagraph_complex.mtx", "lagraph_empty.mtx",
        "lagraph_full.mtx", "lagraph_full_symmetric.mtx", "lagraph_lp_afiro_structure.mtx",
        "lagraph_mangled14.mtx", "lagraph_mangled_bool.mtx", "lagraph_mangled_int8.mtx",
        "lagraph_mangled_uint32.mtx", "lagraph_mangled_skew.mtx", "lagraph_skew_int8.mtx",
        "lagraph_structure.mtx", "lagraph_west0067_jumbled.mtx", "lagraph_matrix_int8.mtx",
        "lagraph_matrix_bool.mtx", "lagraph_skew_int16.mtx",
        /* real SuiteSparse matrices, gzip-compressed: symmetric, general, complex */
        "ss_1138_bus.mtx.gz", "ss_west0479.mtx.gz", "ss_young1c.mtx.gz",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        compare_with_scipy(files[i]);
}

/* Every symmetry kind, in coordinate and array form, with duplicates and
 * explicit zeros: the fast_matrix_market symmetry suite. */
Test(mm_read, symmetry_suite_matches_scipy, .timeout = 120)
{
    const char *kinds[] = {"hermitian_real_row", "hermitian_row", "pattern_symmetric_row",
                           "skew_symmetric_row", "symmetric_row"};
    const char *variants[] = {"", "_general", "_general_dup", "_general_zero"};
    char name[256];
    for (int k = 0; k < 5; k++)
        for (int v = 0; v < 4; v++) {
            snprintf(name, sizeof name, "fmm_symmetry__coordinate_%s%s.mtx", kinds[k],
                     variants[v]);
            compare_with_scipy(name);
        }
    const char *arrays[] = {"hermitian", "skew-symmetric", "symmetric"};
    for (int k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "fmm_symmetry_array__array_%s.mtx", arrays[k]);
        compare_with_scipy(name);
        snprintf(name, sizeof name, "fmm_symmetry_array__array_%s_general.mtx", arrays[k]);
        compare_with_scipy(name);
    }
}

/* Every object/format/field/symmetry combination of the wamuir suite. */
Test(mm_read, type_suite_matches_scipy, .timeout = 120)
{
    char name[64];
    for (int i = 1; i <= 22; i++) {
        snprintf(name, sizeof name, "wamuir_mmtype-%02d.mtx", i);
        compare_with_scipy(name);
    }
}

/* Files scipy refuses although the format (or common practice) allows them
 * must read like their plain twins. */
Test(mm_read, permissive_files_equal_their_twins)
{
    const char *pairs[][2] = {
        {"fmm_nist_ex1_more_freeformat.mtx", "fmm_nist_ex1.mtx"},
        {"fmm_permissive__windows_lineendings_nist_ex1_more_freeformat.mtx", "fmm_nist_ex1.mtx"},
        {"fmm_permissive__permissive_banner_leading_spaces_eye3.mtx", "fmm_eye3.mtx"},
        {"fmm_py_misc__windows_newlines.mtx", "fmm_eye3.mtx"},
        {"fmm_permissive__permissive_banner_one_percent_eye3.mtx", "fmm_eye3.mtx"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        char a[512], b[512];
        tu_path(a, sizeof a, "tests/data/mm", pairs[i][0]);
        tu_path(b, sizeof b, "tests/data/mm", pairs[i][1]);
        sp_csr A, B;
        read_ok(a, &A);
        read_ok(b, &B);
        assert_same(&A, &B, pairs[i][0]);
        cr_assert_eq(A.nnz, B.nnz, "%s", pairs[i][0]);
        sp_csr_free(&A);
        sp_csr_free(&B);
    }
    sp_csr A;
    read_ok("tests/data/mm/fmm_permissive__permissive_lines_indented.mtx", &A);
    cr_assert(A.rows == 1 && A.cols == 1 && A.nnz == 1 && A.val[0] == 1.0);
    sp_csr_free(&A);
}

Test(mm_read, duplicates_summed_and_explicit_zeros_kept)
{
    sp_csr A;
    read_ok("tests/data/mm/lagraph_mangled14.mtx", &A);   /* 2 2 3.4 and 2 2 7.1 */
    cr_assert_eq(A.nnz, 2);
    cr_assert_eq(A.val[1], 3.4 + 7.1);
    sp_csr_free(&A);
    read_ok("tests/data/mm/lagraph_mangled_bool.mtx", &A);    /* "4 1 0" etc. */
    int zeros = 0;
    for (int32_t k = 0; k < A.nnz; k++)
        zeros += A.val[k] == 0.0;
    cr_assert_gt(zeros, 0, "explicit zeros must stay stored entries");
    sp_csr_free(&A);
}

typedef struct bad_file {
    const char *name;
    int line;
    const char *word;
} bad_file;

static const bad_file bad_files[] = {
    {"fmm_invalid__invalid_bad_banner.mtx", 1, "not a Matrix Market file"},
    {"fmm_invalid__invalid_bad_banner_2.mtx", 1, "%%MatrixMarket"},
    {"fmm_invalid__invalid_bad_field.mtx", 1, "unknown field"},
    {"fmm_invalid__invalid_bad_format.mtx", 1, "unknown format"},
    {"fmm_invalid__invalid_bad_object.mtx", 1, "unknown object"},
    {"fmm_invalid__invalid_bad_symmetry.mtx", 1, "unknown symmetry"},
    {"fmm_invalid__invalid_bad_value.mtx", 3, "not a number"},
    {"fmm_invalid__invalid_dimensions_out_of_range_1.mtx", 3, "row count"},
    {"fmm_invalid__invalid_dimensions_out_of_range_2.mtx", 3, "column count"},
    {"fmm_invalid__invalid_dimensions_out_of_range_3.mtx", 3, "entry count"},
    {"fmm_invalid__invalid_indices_out_of_range_1.mtx", 5, "row index 5000 out of range"},
    {"fmm_invalid__invalid_indices_out_of_range_2.mtx", 6, "column index 2000 out of range"},
    {"fmm_invalid__invalid_indices_out_of_range_3.mtx", 5, "row index 0 out of range"},
    {"fmm_invalid__invalid_indices_out_of_range_4.mtx", 6, "column index 0 out of range"},
    {"fmm_invalid__invalid_indices_out_of_range_5.mtx", 5, "row index -1"},
    {"fmm_invalid__invalid_indices_out_of_range_6.mtx", 6, "column index -2"},
    {"fmm_invalid__invalid_matrix_coord_too_long.mtx", 7, "more entries"},
    {"fmm_invalid__invalid_symmetry_vector.mtx", 1, "vector"},
    {"fmm_invalid__invalid_truncated_header_1.mtx", 2, "before the size line"},
    {"fmm_invalid__invalid_truncated_header_2.mtx", 1, "banner ends"},
    {"fmm_invalid__invalid_truncated_line_1.mtx", 5, "before the value"},
    {"fmm_invalid__invalid_truncated_line_2.mtx", 5, "before the column index"},
    {"fmm_invalid__invalid_truncated_lines.mtx", 4, "after 2 of 12 entries"},
    {"fmm_invalid__invalid_vector_coord_too_long.mtx", 1, "vector"},
    {"fmm_overflow__overflow_dim_gt_int64.mtx", 2, "row count 19223372036854775808 out of range"},
    {"fmm_overflow__overflow_index_gt_int64.mtx", 6, "out of range"},
    {"fmm_overflow__overflow_value_gt_float64.mtx", 4, "out of range"},
    {"fmm_overflow__overflow_value_gt_float128.mtx", 4, "out of range"},
    {"fmm_overflow__overflow_value_gt_complex128.mtx", 4, "imaginary part"},
    {"fmm_overflow__overflow_value_gt_int64.mtx", 6, "out of range"},
    {"fmm_py_scipy_crashes__dim_over_32_bit.mtx", 3, "32-bit"},
    {"fmm_vector_coordinate.mtx", 1, "vector"},
    {"fmm_vector_array.mtx", 1, "vector"},
    {"fmm_py_long_double__longdouble_coordinate.mtx", 4, "value '1E310' is out of range"},
    {"fmm_py_long_double__longdouble_array.mtx", 4, "value '1E310' is out of range"},
    {"fmm_py_long_double__longcomplex_coordinate.mtx", 4, "out of range"},
    {"fmm_py_long_double__longcomplex_array.mtx", 4, "out of range"},
    {"lagraph_west0067_noheader.mtx", 1, "not a Matrix Market file"},
    {"ginkgo_dense_integer.mtx", 3, "not an integer"},
    {"ginkgo_sparse_complex_hermitian.mtx", 2, "must be square"},
    {"lagraph_comments_west0067.mtx", 6, "not a finite number"},
    {"lagraph_skew_fp64.mtx", 4, "not a finite number"},
    {"lagraph_matrix_uint64.mtx", 8, "out of range"},
    {"lagraph_full_noheader.mtx", 1, "not a Matrix Market file"},
    {"lagraph_mangled1.mtx", 1, "unknown object"},
    {"lagraph_mangled2.mtx", 1, "unknown format"},
    {"lagraph_mangled3.mtx", 1, "unknown field"},
    {"lagraph_mangled4.mtx", 1, "unknown symmetry"},
    {"lagraph_mangled5.mtx", 1, "'pattern' cannot be hermitian"},
    {"lagraph_mangled6.mtx", 5, "after the entry"},
    {"lagraph_mangled7.mtx", 5, "before the value"},
    {"lagraph_mangled8.mtx", 4, "column count"},
    {"lagraph_mangled9.mtx", 4, "must be square"},
    {"lagraph_mangled10.mtx", 6, "after 2 of 3 entries"},
    {"lagraph_mangled11.mtx", 5, "not an integer"},
    {"lagraph_mangled12.mtx", 5, "before the value"},
    {"lagraph_mangled13.mtx", 7, "column index 9999"},
    {"lagraph_mangled15.mtx", 5, "after the entry"},
    {"lagraph_mangled_format.mtx", 1, "'pattern' cannot be combined with 'array'"},
};

/* Every malformed file: no matrix, and "PATH:LINE: " plus the problem. */
Test(mm_read, malformed_files_name_file_line_and_problem)
{
    for (size_t i = 0; i < sizeof bad_files / sizeof *bad_files; i++) {
        char path[512], prefix[600];
        tu_path(path, sizeof path, "tests/data/mm", bad_files[i].name);
        sp_csr A;
        sp_err err = {{0}};
        cr_assert_eq(sp_mm_read(path, &quiet, &A, NULL, &err), -1, "%s was accepted",
                     bad_files[i].name);
        cr_assert_null(A.rowptr, "%s: a failed read must leave no matrix", bad_files[i].name);
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, bad_files[i].line);
        cr_assert(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' should start with '%s'",
                  err.msg, prefix);
        cr_assert(strstr(err.msg, bad_files[i].word), "'%s' lacks '%s'", err.msg,
                  bad_files[i].word);
    }
}

static void expect_error(const char *text, int line, const char *word)
{
    char dir[256], path[300], prefix[400];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "m.mtx");
    tu_write_file(path, text);
    sp_csr A;
    sp_err err = {{0}};
    cr_assert_eq(sp_mm_read(path, &quiet, &A, NULL, &err), -1, "accepted:\n%s", text);
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    cr_assert(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' should start with '%s'",
              err.msg, prefix);
    cr_assert(strstr(err.msg, word), "'%s' lacks '%s'", err.msg, word);
}

#define BANNER "%%MatrixMarket matrix coordinate real general\n"

Test(mm_read, limits_and_structure_errors)
{
    expect_error(BANNER "3000000000 3 0\n", 2, "32-bit");
    expect_error(BANNER "3 3000000000 0\n", 2, "32-bit");
    expect_error(BANNER "3 3 3000000000\n", 2, "32-bit");
    expect_error("%%MatrixMarket matrix array real general\n70000 70000\n", 2, "32-bit");
    expect_error("%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", 2, "square");
    expect_error(BANNER "3 3\n", 2, "entry count");
    expect_error(BANNER "3 3 1 7\n", 2, "more than 3 numbers");
    expect_error(BANNER "3 3 x\n", 2, "not an integer");
    expect_error(BANNER "% c\n\n2 2 1\n1 2 1.5 9\n", 5, "after the entry");
    expect_error(BANNER "2 2 1\n1 2 1.5e\n", 3, "not a number");
    expect_error(BANNER "2 2 1\n1 2 --1\n", 3, "not a number");
    expect_error(BANNER "2 2 1\n1.5 2 1\n", 3, "row index '1.5' is not an integer");
    expect_error(BANNER "2 2 2\n1 1 1\r\n2 2 1\r\n1 1 1\r\n", 5, "more entries");
    expect_error(BANNER "2 2 2\r1 1 1\r2 2 1\r1 1 x\r", 5, "more entries");
    expect_error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5, "after 3 of 4");
    expect_error("%%MatrixMarket matrix array real general\n1 1\n1\n2\n", 4, "more values");
    expect_error("", 1, "empty file");
    expect_error("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1,
                 "unexpected 'extra'");
    expect_error("%%MatrixMarketmatrix coordinate real general\n1 1 0\n", 1,
                 "not a Matrix Market file");
}

Test(mm_read, banner_is_case_insensitive_and_comments_anywhere)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "m.mtx");
    tu_write_file(path, "%%matrixmarket MATRIX Coordinate REAL Symmetric\n% c\n\n"
                        "  3 3 2  \n% between\n\n2 1 -2.5\n\t3 3 4\n% trailing\n\n");
    sp_csr A;
    read_ok(path, &A);
    cr_assert_eq(A.nnz, 3);
    double *D = tu_dense(&A);
    cr_assert_eq(D[1 * 3 + 0], -2.5);
    cr_assert_eq(D[0 * 3 + 1], -2.5);
    cr_assert_eq(D[2 * 3 + 2], 4.0);
    free(D);
    sp_csr_free(&A);
}

Test(mm_read, complex_policy)
{
    const char *path = "tests/data/mm/fmm_eye3_complex.mtx";
    sp_csr A;
    sp_err err = {{0}};
    sp_mm_opts refuse = {.complex = SP_COMPLEX_REFUSE, .quiet = 1};
    cr_assert_eq(sp_mm_read(path, &refuse, &A, NULL, &err), -1);
    cr_assert(strstr(err.msg, "--complex=refuse"), "%s", err.msg);
    cr_assert(strstr(err.msg, "fmm_eye3_complex.mtx:1:"), "%s", err.msg);
    read_ok(path, &A);
    cr_assert_eq(A.nnz, 3);
    sp_csr_free(&A);
}

/* gzip-compressed files read directly (detected by magic, not by name). */
Test(mm_read, gzip_files)
{
    char dir[256], gz[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(gz, sizeof gz, dir, "nist.mtx");            /* no .gz suffix on purpose */
    FILE *f = fopen("tests/data/mm/fmm_nist_ex1.mtx", "rb");
    cr_assert_not_null(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    gzFile g = gzopen(gz, "wb");
    cr_assert_eq(gzwrite(g, buf, (unsigned)n), (int)n);
    gzclose(g);
    sp_csr A, B;
    uint64_t h1, h2;
    sp_err err;
    cr_assert_eq(sp_mm_read(gz, &quiet, &A, &h1, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_mm_read("tests/data/mm/fmm_nist_ex1.mtx", &quiet, &B, &h2, &err), 0);
    assert_same(&A, &B, "gzip");
    cr_assert_eq(h1, h2, "the source hash covers the inflated text");
    sp_csr_free(&A);
    sp_csr_free(&B);
    read_ok("tests/data/mm/ss_1138_bus.mtx.gz", &A);   /* 2596 stored, 1138 diagonal */
    cr_assert(A.rows == 1138 && A.cols == 1138 && A.nnz == 2 * 2596 - 1138, "nnz %d", A.nnz);
    sp_csr_free(&A);
    /* a gzip stream cut short is an error, not a partial matrix */
    f = fopen("tests/data/mm/ss_west0479.mtx.gz", "rb");
    static char gzbuf[1 << 16];
    n = fread(gzbuf, 1, sizeof gzbuf, f);
    fclose(f);
    tu_path(gz, sizeof gz, dir, "cut.mtx.gz");
    f = fopen(gz, "wb");
    fwrite(gzbuf, 1, n / 2, f);
    fclose(f);
    cr_assert_eq(sp_mm_read(gz, &quiet, &A, NULL, &err), -1);
    cr_assert(strstr(err.msg, "cut.mtx.gz"), "%s", err.msg);
}

Test(mm_read, missing_file_and_directory)
{
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_mm_read("tests/data/mm/no-such-file.mtx", &quiet, &A, NULL, &err), -1);
    cr_assert(strstr(err.msg, "no-such-file.mtx"), "%s", err.msg);
    cr_assert_eq(sp_mm_read("tests/data", &quiet, &A, NULL, &err), -1);
    cr_assert(strstr(err.msg, "not a regular file"), "%s", err.msg);
}

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Both parsers against strtod: the careful one (sp_mm_parse_double) must
 * consume the text and agree bit for bit; the inline fast one of the
 * entry loops (mm_fast_double) may decline (NULL, or stopping short) but
 * never differ. */
static void check_number(const char *text)
{
    double fast = 0, ref = strtod(text, NULL);
    int range;
    const char *end = text + strlen(text);
    const char *q = sp_mm_parse_double(text, end, &fast, &range);
    cr_assert_not_null(q, "'%s' not parsed", text);
    cr_assert_eq(q, end, "'%s' not consumed", text);
    cr_assert(memcmp(&fast, &ref, sizeof ref) == 0, "'%s': %a, strtod %a", text, fast, ref);
    char padded[256] = {0};                 /* the zero padding the fast path relies on */
    size_t n = strlen(text);
    cr_assert_lt(n, sizeof padded - MM_PAD);
    memcpy(padded, text, n);
    double inline_v = 0;
    /* stopping early ("0x1p1" stops at 'x') sends the entry to the careful path */
    if ((q = mm_fast_double(padded, &inline_v)) && q == padded + n)
        cr_assert(memcmp(&inline_v, &ref, sizeof ref) == 0, "'%s': fast %a, strtod %a", text,
                  inline_v, ref);
}

/* The fast parser is bit-identical to strtod on every format writers use. */
Test(mm_read, number_parser_rounds_like_strtod)
{
    const char *fmts[] = {"%.17g", "%.16g", "%.15g", "%.6e", "%.3f", "%.20e", "%g", "%.19g"};
    uint64_t s = 42;
    char buf[128];
    for (int i = 0; i < 300000; i++) {
        uint64_t bits = rng(&s);
        double x;
        switch (i % 4) {
        case 0: memcpy(&x, &bits, sizeof x); break;                   /* any double */
        case 1: x = (double)(bits >> 11) * 0x1.0p-53 * 2 - 1; break;  /* [-1, 1) */
        case 2: x = ldexp((double)(bits >> 11), (int)(bits % 200) - 150); break;
        default: x = (double)(int64_t)(bits >> (bits % 64)); break;   /* integers */
        }
        if (!isfinite(x))
            continue;
        snprintf(buf, sizeof buf, fmts[i % 8], x);
        check_number(buf);
    }
    const char *edge[] = {"0", "-0", "+1", "1.", ".5", "0.000000000000000000000001e24",
                          "9007199254740993", "9007199254740992.5", "4.9406564584124654e-324",
                          "2.2250738585072011e-308", "1.7976931348623157e308", "1e-400",
                          "123456789012345678901234567890", "0x1.8p1", "1e22", "1e23",
                          "8.98846567431158e307"};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        check_number(edge[i]);
}

/* m · 10^e through mm_fast_scale against strtod of "mE" e; 1 when it
 * declined (strtod then decides, which is always right). */
static int check_scale(uint64_t m, int e)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%lluE%d", (unsigned long long)m, e);
    double ref = strtod(buf, NULL), v;
    if (!mm_fast_scale(m, e, &v))
        return 1;
    cr_assert(memcmp(&v, &ref, sizeof ref) == 0, "%s: fast %a, strtod %a", buf, v, ref);
    return 0;
}

/* The 17-digit values files hold go through Eisel-Lemire (mm_fast.h):
 * bit-identical to strtod on random significands of every length and
 * exponents across its table, at exact midpoints between two doubles
 * (round half to even) and one unit either side of them; none of these
 * fixed-seed cases is declined (it may decline a product whose low word
 * is all ones below 5^-27, which strtod then rounds). */
Test(mm_read, eisel_lemire_rounds_like_strtod_at_midpoints)
{
    uint64_t s = 2026;
    int declined = 0;
    for (int i = 0; i < 400000; i++) {
        uint64_t lim = 1;
        for (int d = (int)(rng(&s) % 19); d >= 0; d--)
            lim *= 10;
        uint64_t m = rng(&s) % lim;
        declined += check_scale(m ? m : 1, (int)(rng(&s) % 129) - 64);
    }
    cr_assert_eq(declined, 0, "%d of 400000 in the table's range declined", declined);
    /* midpoints m · 10^e = y · 5^e · 2^e, e >= 0: y odd with y · 5^e of 54 bits */
    int ties = 0;
    for (int e = 0; e <= 23; e++) {
        uint64_t p5 = 1;
        for (int k = 0; k < e; k++)
            p5 *= 5;
        uint64_t lo = ((1ull << 53) + p5 - 1) / p5, hi = ((1ull << 54) - 1) / p5;
        for (int t = 0; t < 2000 && lo <= hi; t++) {
            uint64_t y = (lo + rng(&s) % (hi - lo + 1)) | 1;
            if (y > hi)
                y -= 2;
            if (y < lo)
                continue;
            for (int d = -1; d <= 1; d++)
                declined += check_scale(y + (uint64_t)d, e);
            declined += check_scale(y * 100, e - 2);
            ties++;
        }
    }
    /* midpoints x · 2^-k, x odd of 54 bits: m = x · 5^k, e = -k */
    for (int k = 1; k <= 4; k++) {
        uint64_t p5 = 1;
        for (int j = 0; j < k; j++)
            p5 *= 5;
        for (int t = 0; t < 2000; t++) {
            uint64_t x = (1ull << 53) | (rng(&s) & ((1ull << 53) - 1)) | 1;
            for (int d = -1; d <= 1; d++)
                declined += check_scale(x * p5 + (uint64_t)d, -k);
            ties++;
        }
    }
    cr_assert_gt(ties, 40000);
    cr_assert_eq(declined, 0, "%d midpoint cases declined", declined);
}

Test(mm_read, write_then_read_round_trips)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "rt.mtx");
    sp_coo T;
    sp_err err;
    uint64_t s = 7;
    cr_assert_eq(sp_coo_init(&T, 500, 300, 16, &err), 0);
    for (int k = 0; k < 4000; k++) {
        uint64_t b = rng(&s);
        double v = ldexp((double)(b >> 11) * 0x1.0p-53, (int)(b % 600) - 300);
        v = (b & 1) ? -v : v;
        cr_assert_eq(sp_coo_push(&T, (int32_t)(rng(&s) % 500), (int32_t)(rng(&s) % 300), v,
                                 &err), 0);
    }
    sp_csr A, B;
    cr_assert_eq(sp_csr_from_coo(&A, &T, &err), 0);
    cr_assert_eq(sp_mm_write(path, &A, &err), 0, "%s", err.msg);
    read_ok(path, &B);
    cr_assert_eq(sp_csr_checksum(&A), sp_csr_checksum(&B), "round trip changed the matrix");
    sp_csr_free(&A);
    sp_csr_free(&B);
    sp_coo_free(&T);
}

/* Exponents across the whole range and subnormals, in the formats writers
 * use: bit-identical to strtod (the long double path must defer to strtod
 * near midpoints, and anything outside its range goes there directly). */
Test(mm_read, number_parser_exponents_and_subnormals)
{
    const char *fmts[] = {"%.17g", "%.15g", "%.6e", "%.16e", "%.18e"};
    uint64_t s = 99;
    char buf[128];
    for (int e10 = -300; e10 <= 300; e10++)
        for (int k = 0; k < 40; k++) {
            double m = 1.0 + (double)(rng(&s) >> 11) * 0x1.0p-53 * 8.999;
            snprintf(buf, sizeof buf, fmts[k % 5], m * pow(10.0, e10));
            check_number(buf);
        }
    for (int e2 = -1074; e2 <= -1000; e2++)
        for (int k = 0; k < 40; k++) {
            double x = ldexp((double)(rng(&s) >> 11), e2 - 52);
            snprintf(buf, sizeof buf, fmts[k % 5], x);
            check_number(buf);
        }
    const char *edge[] = {"1e-310", "2.4703282292062327e-324", "2.4703282292062328e-324",
                          "1.0000000000000002", "0.30000000000000004", "123456789012345678e-10",
                          "9999999999999999999", "0.000123456789012345678", "1E+5", "-1e-5"};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        check_number(edge[i]);
}

/* Integers of every width (1 to 19 digits: the last ones beyond the fast
 * path), as values of an integer file. */
Test(mm_read, integer_values_exact)
{
    char dir[256], path[300], text[4096];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "int.mtx");
    int64_t want[19];
    int64_t nines = 0;
    for (int k = 0; k < 18; k++) {
        nines = nines * 10 + 9;                     /* 9, 99, ..., 18 nines */
        want[k] = k % 2 ? -nines : nines;
    }
    want[18] = INT64_MAX;
    int n = snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate integer general\n"
                                        "1 19 19\n");
    for (int k = 0; k < 19; k++)
        n += snprintf(text + n, sizeof text - (size_t)n, "1 %d %lld\n", k + 1,
                      (long long)want[k]);
    tu_write_file(path, text);
    sp_csr A;
    read_ok(path, &A);
    for (int k = 0; k < 19; k++)
        cr_assert_eq(A.val[k], (double)want[k], "column %d", k + 1);
    sp_csr_free(&A);
}

/* Unusual but valid lines ("+2", leading zeros, a hex float, 25 digits)
 * take the careful path; in a symmetric file both passes must agree on
 * them, with \n, \r\n and lone \r line ends alike. */
Test(mm_read, unusual_lines_in_every_line_ending)
{
    const char *lines[] = {"%%MatrixMarket matrix coordinate real symmetric", "% c", "4 4 5",
                           "+2 1 0x1p1", "0000000003 2 1.0000000000000000000000001",
                           "  4\t4 -5e-1  ", "", "% between", "4 1 +.25", "3 3 7"};
    const char *eols[] = {"\n", "\r\n", "\r"};
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "u.mtx");
    for (int e = 0; e < 3; e++) {
        char text[1024] = "";
        for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
            strcat(strcat(text, lines[i]), eols[e]);
        tu_write_file(path, text);
        sp_csr A;
        read_ok(path, &A);
        cr_assert_eq(A.nnz, 8, "line end %d: nnz %d", e, A.nnz);
        double *D = tu_dense(&A);
        cr_assert(D[1 * 4 + 0] == 2.0 && D[0 * 4 + 1] == 2.0, "line end %d", e);
        cr_assert(D[2 * 4 + 1] == 1.0 && D[1 * 4 + 2] == 1.0, "line end %d", e);
        cr_assert(D[3 * 4 + 3] == -0.5 && D[3 * 4 + 0] == 0.25 && D[2 * 4 + 2] == 7.0);
        free(D);
        sp_csr_free(&A);
    }
}

/* A file that ends exactly at a page boundary, without a final newline:
 * the zero bytes the fast loops rely on come from the page after it. */
Test(mm_read, file_ending_on_a_page_boundary)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "page.mtx");
    long page = sysconf(_SC_PAGESIZE);
    char *text = malloc((size_t)page + 1);
    cr_assert_not_null(text);
    int n = snprintf(text, (size_t)page, "%%%%MatrixMarket matrix coordinate real general\n"
                                         "%% pad\n1 1 2\n1 1 1\n");
    memset(text + n, '%', (size_t)(page - n - 10));     /* one long comment line */
    text[page - 10] = '\n';
    memcpy(text + page - 9, "1 1 1.375", 10);           /* 9 bytes, no newline */
    tu_write_file(path, text);
    free(text);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_size, page);
    sp_csr A;
    read_ok(path, &A);
    cr_assert(A.nnz == 1 && A.val[0] == 2.375, "nnz %d", A.nnz);
    sp_csr_free(&A);
}

/* sp_mm_read_coo: the same entries before duplicates are summed. */
Test(mm_read, coo_reader_matches_csr_reader)
{
    const char *files[] = {"tests/data/mm/ss_1138_bus.mtx.gz", "tests/data/mm/lagraph_mangled14.mtx",
                           "tests/data/mm/fmm_symmetry_array__array_skew-symmetric.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        sp_coo T;
        sp_csr A, B;
        sp_err err;
        uint64_t h1, h2;
        cr_assert_eq(sp_mm_read_coo(files[f], &quiet, &T, &h1, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_csr_from_coo(&A, &T, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_mm_read(files[f], &quiet, &B, &h2, &err), 0, "%s", err.msg);
        cr_assert_eq(h1, h2, "%s: the two readers hash the same bytes", files[f]);
        assert_identical(&A, &B, files[f]);
        sp_coo_free(&T);
        sp_csr_free(&A);
        sp_csr_free(&B);
    }
    sp_coo T;
    sp_err err;
    cr_assert_eq(sp_mm_read_coo("tests/data/mm/lagraph_mangled10.mtx", &quiet, &T, NULL, &err), -1);
    cr_assert_null(T.row);
    cr_assert(strstr(err.msg, "lagraph_mangled10.mtx:6:"), "%s", err.msg);
}

/* Complex files warn exactly once on stderr, and not at all when quiet. */
Test(mm_read, complex_warning_is_one_line, .init = cr_redirect_stderr)
{
    sp_mm_opts loud = {.complex = SP_COMPLEX_REAL_PART, .quiet = 0};
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_mm_read("tests/data/mm/ss_young1c.mtx.gz", &quiet, &A, NULL, &err), 0);
    sp_csr_free(&A);
    cr_assert_eq(sp_mm_read("tests/data/mm/ss_young1c.mtx.gz", &loud, &A, NULL, &err), 0);
    sp_csr_free(&A);
    fflush(stderr);
    cr_assert_stderr_eq_str("spsweep: tests/data/mm/ss_young1c.mtx.gz: complex matrix, using the "
                            "real parts (--complex=refuse to refuse such files)\n");
}

/* COO entries outside the matrix are refused by the conversion, naming
 * the entry, never written past the arrays. */
Test(mm_read, coo_entries_outside_the_matrix_are_refused)
{
    static const int32_t bad[][2] = {{5, 0}, {0, 3}, {-1, 0}, {0, -2}};
    for (int b = 0; b < 4; b++) {
        sp_coo T;
        sp_err err;
        cr_assert_eq(sp_coo_init(&T, 5, 3, 4, &err), 0);
        cr_assert_eq(sp_coo_push(&T, 1, 1, 1.0, &err), 0);
        cr_assert_eq(sp_coo_push(&T, bad[b][0], bad[b][1], 2.0, &err), 0);
        sp_csr A;
        cr_assert_eq(sp_csr_from_coo(&A, &T, &err), -1);
        char want[128];
        snprintf(want, sizeof want, "COO entry 1 at (%d, %d) is outside the 5 x 3 matrix",
                 bad[b][0], bad[b][1]);
        cr_assert_str_eq(err.msg, want);
        cr_assert_null(A.rowptr);
        sp_coo_free(&T);
    }
}

/* ---- issue 18: pattern files with values, size lines beyond memory ------- */

/* A file in dir: name, text. */
static void data_file(char *path, size_t len, const char *dir, const char *name,
                      const char *text)
{
    tu_path(path, len, dir, name);
    tu_write_file(path, text);
}

/* "coordinate pattern" entries carrying a value column (as some writers
 * emit and scipy and fast_matrix_market read) give the same matrix as the
 * plain pattern file, through the fast lines ("2 3 1") and the careful
 * ones ("+3 4 1e0", 25 digits), general and symmetric, \n and \r\n, CSR
 * and COO; with one warning per read naming the first such line (line 5:
 * the entry on line 4 has no value). */
Test(mm_read, pattern_entries_with_a_value_column_are_read, .init = cr_redirect_stderr)
{
    static const struct {
        const char *name, *with, *plain;
    } twins[] = {
        {"general",
         "%%MatrixMarket matrix coordinate pattern general\n% c\n3 4 4\n"
         "1 1\n2 3 1\n+3 4 1e0\n3 1   2.0000000000000000000000001  \n",
         "%%MatrixMarket matrix coordinate pattern general\n3 4 4\n1 1\n2 3\n3 4\n3 1\n"},
        {"symmetric",
         "%%MatrixMarket matrix coordinate pattern symmetric\r\n% c\r\n3 3 3\r\n"
         "1 1\r\n2 1 -7\r\n3 2\t1\r\n",
         "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 1\n3 2\n"},
    };
    char dir[256], with[300], plain[300];
    tu_tempdir(dir, sizeof dir);
    sp_mm_opts loud = {.complex = SP_COMPLEX_REAL_PART, .quiet = 0};
    char expect[2048] = "";
    for (size_t k = 0; k < sizeof twins / sizeof *twins; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s-values.mtx", twins[k].name);
        data_file(with, sizeof with, dir, name, twins[k].with);
        snprintf(name, sizeof name, "%s-plain.mtx", twins[k].name);
        data_file(plain, sizeof plain, dir, name, twins[k].plain);
        sp_csr A, B, C;
        sp_coo T;
        sp_err err = {{0}};
        cr_assert_eq(sp_mm_read(with, &loud, &A, NULL, &err), 0, "%s: %s", with, err.msg);
        cr_assert_eq(sp_mm_read_coo(with, &loud, &T, NULL, &err), 0, "%s: %s", with, err.msg);
        for (int twice = 0; twice < 2; twice++)
            snprintf(expect + strlen(expect), sizeof expect - strlen(expect),
                     "spsweep: %s:5: pattern matrix whose entries carry a value column: "
                     "the values are ignored (first on this line)\n", with);
        read_ok(plain, &B);
        cr_assert_eq(sp_csr_from_coo(&C, &T, &err), 0, "%s", err.msg);
        assert_identical(&A, &B, twins[k].name);
        assert_identical(&C, &B, twins[k].name);
        sp_csr_free(&A), sp_csr_free(&B), sp_csr_free(&C), sp_coo_free(&T);
        cr_assert_eq(sp_mm_read(with, &quiet, &A, NULL, &err), 0, "quiet: no warning");
        sp_csr_free(&A);
    }
    fflush(stderr);
    cr_assert_stderr_eq_str(expect);
}

/* A value column, then anything more, is still refused (fast and careful
 * line shapes alike), and so is a column index that is not an integer. */
Test(mm_read, pattern_entries_with_more_than_a_value_are_refused)
{
#define PATTERN "%%MatrixMarket matrix coordinate pattern general\n"
    expect_error(PATTERN "2 2 2\n1 1 1\n2 2 1 junk\n", 4, "unexpected 'junk' after the entry");
    expect_error(PATTERN "2 2 2\n1 1 1\n+2 2 1 junk\n", 4, "unexpected 'junk'");
    expect_error(PATTERN "2 2 1\n1 2 1 2\n", 3, "unexpected '2' after the entry");
    expect_error(PATTERN "2 2 1\n1 2 x\n", 3, "unexpected 'x' after the entry");
    expect_error(PATTERN "2 2 1\n1 2.5\n", 3, "column index '2.5' is not an integer");
    expect_error("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1 1\n2 1 1 1\n",
                 4, "unexpected '1' after the entry");
#undef PATTERN
}

/* Peak resident memory of this process, bytes. */
static uint64_t peak_rss(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)ru.ru_maxrss * 1024;
}

/* Run reads in a child whose address space is limited to what it holds
 * now plus headroom (so the host's free memory, whatever it is, does not
 * decide the outcome); the child writes "rc|message|peak growth" for
 * each read to a pipe. */
static void read_limited(const char *const *paths, const int *coo, int n, uint64_t headroom,
                         char *out, size_t len)
{
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        close(fd[0]);
        FILE *f = fopen("/proc/self/statm", "r");
        unsigned long long pages = 0;
        if (!f || fscanf(f, "%llu", &pages) != 1)
            _exit(3);
        fclose(f);
        struct rlimit rl = {pages * (uint64_t)sysconf(_SC_PAGESIZE) + headroom, RLIM_INFINITY};
        if (setrlimit(RLIMIT_AS, &rl))
            _exit(4);
        FILE *w = fdopen(fd[1], "w");
        for (int k = 0; k < n; k++) {
            uint64_t before = peak_rss();
            sp_err err = {{0}};
            sp_csr A;
            sp_coo T;
            int rc = coo[k] ? sp_mm_read_coo(paths[k], &quiet, &T, NULL, &err)
                            : sp_mm_read(paths[k], &quiet, &A, NULL, &err);
            uint64_t grew = peak_rss() - before;
            fprintf(w, "%d|%s|%llu\n", rc, rc ? err.msg : "", (unsigned long long)grew);
            if (!rc && coo[k])
                sp_coo_free(&T);
            else if (!rc)
                sp_csr_free(&A);
        }
        fclose(w);
        _exit(0);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < len && (r = read(fd[0], out + got, len - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = 0;
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the reading child died (%d): %s", st,
              out);
}

/* Line k (0-based) of the child's report: rc, message, growth. */
static void report_line(const char *out, int k, int *rc, char *msg, size_t len,
                        uint64_t *grew)
{
    const char *p = out;
    for (int i = 0; i < k && p; i++)
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    cr_assert_not_null(p, "no report %d in: %s", k, out);
    const char *bar1 = strchr(p, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
    cr_assert(bar1 && bar2, "bad report: %s", p);
    *rc = atoi(p);
    snprintf(msg, len, "%.*s", (int)(bar2 - bar1 - 1), bar1 + 1);
    *grew = strtoull(bar2 + 1, NULL, 10);
}

/* A 78-byte file declaring 2147483647 rows: its CSR row pointers alone
 * take 8 GiB, which a process limited to 1 GiB more than it holds cannot
 * have. Refused up front, naming the size line and both sizes, with no
 * growth of the process; the COO reader, which needs no row array, reads
 * it; and a short file claiming 2^31 - 1 entries is a truncated file,
 * not a 32 GiB allocation. */
Test(mm_read, a_size_line_beyond_memory_is_refused_before_allocating, .timeout = 60)
{
    char dir[256], huge[300], claims[300];
    tu_tempdir(dir, sizeof dir);
    data_file(huge, sizeof huge, dir, "huge.mtx",
              "%%MatrixMarket matrix coordinate real general\n"
              "2147483647 2147483647 1\n1 1 1.0\n");
    struct stat st;
    cr_assert_eq(stat(huge, &st), 0);
    cr_assert_eq(st.st_size, 78);
    data_file(claims, sizeof claims, dir, "claims.mtx",
              "%%MatrixMarket matrix coordinate real symmetric\n"
              "1000 1000 2147483647\n1 1 1.0\n");
    const char *paths[] = {huge, huge, claims, claims};
    const int coo[] = {0, 1, 0, 1};
    char out[4096], msg[1024], prefix[400];
    read_limited(paths, coo, 4, (uint64_t)1 << 30, out, sizeof out);
    int rc;
    uint64_t grew;
    report_line(out, 0, &rc, msg, sizeof msg, &grew);
    snprintf(prefix, sizeof prefix, "%s:2: ", huge);
    cr_assert_eq(rc, -1, "%s", out);
    cr_assert(!strncmp(msg, prefix, strlen(prefix)), "'%s' should start with '%s'", msg,
              prefix);
    cr_assert(strstr(msg, "2147483647 x 2147483647") && strstr(msg, "needs 8.00 GiB") &&
                  strstr(msg, "GiB free"), "%s", msg);
    cr_assert_lt(grew, (uint64_t)64 << 20, "the refused read grew the process by %llu bytes",
                 (unsigned long long)grew);
    report_line(out, 1, &rc, msg, sizeof msg, &grew);
    cr_assert_eq(rc, 0, "the COO reader needs no row array: %s", msg);
    cr_assert_lt(grew, (uint64_t)64 << 20);
    for (int k = 2; k < 4; k++) {
        report_line(out, k, &rc, msg, sizeof msg, &grew);
        snprintf(prefix, sizeof prefix, "%s:3: ", claims);
        cr_assert(rc == -1 && !strncmp(msg, prefix, strlen(prefix)) &&
                      strstr(msg, "after 1 of 2147483647 entries"),
                  "%s read: '%s'", coo[k] ? "COO" : "CSR", msg);
        cr_assert_lt(grew, (uint64_t)64 << 20);
    }
}

/* 50 million rows with two entries: the row pointers (200 MB) are the
 * only memory that grows with the rows, written once. Nothing clears the
 * rows before the entries are known, and no second array as long as the
 * rows is made (before: 400 MB, a cleared count array and a copy). */
Test(mm_read, memory_grows_with_the_rows_only_once, .timeout = 120)
{
    uint64_t avail;
    if (sp_host_mem_available(&avail) == 0 && avail < ((uint64_t)1 << 30))
        cr_skip_test("less than 1 GiB free");
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    data_file(path, sizeof path, dir, "tall.mtx",
              "%%MatrixMarket matrix coordinate real general\n"
              "50000000 3 2\n50000000 3 2.5\n1 1 1.5\n");
    uint64_t before = peak_rss();
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_mm_read(path, &quiet, &A, NULL, &err), 0, "%s", err.msg);
    uint64_t grew = peak_rss() - before;
    uint64_t rowptr = ((uint64_t)A.rows + 1) * sizeof(int32_t);
    cr_assert(A.rows == 50000000 && A.nnz == 2 && A.rowptr[1] == 1 &&
                  A.rowptr[A.rows - 1] == 1 && A.rowptr[A.rows] == 2, "nnz %d", A.nnz);
    cr_assert(A.colidx[1] == 2 && A.val[1] == 2.5 && A.val[0] == 1.5);
    cr_assert_lt(grew, rowptr + rowptr / 2, "reading grew the process by %llu MB for %llu MB "
                 "of row pointers", (unsigned long long)(grew >> 20),
                 (unsigned long long)(rowptr >> 20));
    sp_csr_free(&A);
}

/* ---- The parallel body parse (fetch/mm_par.c) ----
 * Every read below forces the parallel path on small files (par_min_body
 * 1 byte) and must give what the serial reader gives (SERIAL: one thread,
 * no body large enough to split): the same CSR, bit for bit, the same COO
 * in the same order, or the same error message, file name and line number
 * included. One thread is a parallel read too for a CSR (the chunked path,
 * which reads the text once). */

#define SERIAL 0
static const int par_threads[] = {1, 2, 3, 4, 7};

/* Read path with the given threads (SERIAL: the serial reader); rc, and
 * the message in err. */
static int read_threads(const char *path, int threads, sp_csr *A, sp_err *err)
{
    sp_mm_opts o = {.complex = SP_COMPLEX_REAL_PART, .quiet = 1,
                    .threads = threads == SERIAL ? 1 : threads,
                    .par_min_body = threads == SERIAL ? INT64_MAX : 1};
    memset(err, 0, sizeof *err);
    return sp_mm_read(path, &o, A, NULL, err);
}

static int read_coo_threads(const char *path, int threads, sp_coo *T, sp_err *err)
{
    sp_mm_opts o = {.complex = SP_COMPLEX_REAL_PART, .quiet = 1,
                    .threads = threads == SERIAL ? 1 : threads,
                    .par_min_body = threads == SERIAL ? INT64_MAX : 1};
    memset(err, 0, sizeof *err);
    return sp_mm_read_coo(path, &o, T, NULL, err);
}

/* Same outcome at every thread count as at one: identical matrices
 * (row pointers too) and COO entries in order, or identical errors. */
static void assert_threads_agree(const char *path, const int *threads, int nt)
{
    sp_csr S, P;
    sp_coo Sc, Pc;
    sp_err se, pe;
    int src = read_threads(path, SERIAL, &S, &se);
    int scrc = read_coo_threads(path, SERIAL, &Sc, &pe);
    for (int k = 0; k < nt; k++) {
        char what[600];
        snprintf(what, sizeof what, "%s at %d threads", path, threads[k]);
        int prc = read_threads(path, threads[k], &P, &pe);
        cr_assert_eq(prc, src, "%s: rc %d, serial %d (%s)", what, prc, src, pe.msg);
        if (src) {
            cr_assert_str_eq(pe.msg, se.msg, "%s", what);
            cr_assert_null(P.rowptr, "%s: a failed read must leave no matrix", what);
        } else {
            assert_identical(&P, &S, what);
            cr_assert(!memcmp(P.rowptr, S.rowptr, ((size_t)S.rows + 1) * sizeof(int32_t)),
                      "%s: row pointers differ", what);
            sp_csr_free(&P);
        }
        prc = read_coo_threads(path, threads[k], &Pc, &pe);
        cr_assert_eq(prc, scrc, "%s (coo): rc %d, serial %d (%s)", what, prc, scrc, pe.msg);
        if (!scrc) {
            cr_assert_eq(Pc.nnz, Sc.nnz, "%s (coo)", what);
            cr_assert(!memcmp(Pc.row, Sc.row, (size_t)Sc.nnz * sizeof(int32_t)) &&
                      !memcmp(Pc.col, Sc.col, (size_t)Sc.nnz * sizeof(int32_t)) &&
                      !memcmp(Pc.val, Sc.val, (size_t)Sc.nnz * sizeof(double)),
                      "%s (coo): entries differ", what);
            sp_coo_free(&Pc);
        }
    }
    if (!src)
        sp_csr_free(&S);
    if (!scrc)
        sp_coo_free(&Sc);
}

/* Every file of tests/data/mm, valid or malformed, plain or gzip. */
Test(mm_read, parallel_equals_serial_on_every_test_file, .timeout = 120)
{
    char dir[512];
    tu_path(dir, sizeof dir, tu_datadir(), "mm");
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (!(n > 4 && !strcmp(e->d_name + n - 4, ".mtx")) &&
            !(n > 7 && !strcmp(e->d_name + n - 7, ".mtx.gz")))
            continue;
        char path[1024];
        tu_path(path, sizeof path, dir, e->d_name);
        assert_threads_agree(path, par_threads, 5);
        files++;
    }
    closedir(d);
    cr_assert_gt(files, 100, "only %d test files", files);
}

/* A generated coordinate file: the banner's field and symmetry, n entry
 * lines (lower triangle for the symmetric kinds), with comment lines,
 * blank lines and blanks around entries mixed in, line ends \n, \r\n or
 * \r, the last line with or without its line end. bad_at >= 0 replaces
 * that entry line by `bad`; declared is the size line's count (-1: n). */
static char *gen_text(const char *field, const char *sym, int n, const char *eol, int last_eol,
                      int extras, int bad_at, const char *bad, int declared, uint64_t seed)
{
    size_t cap = 256 + (size_t)n * 128, len = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    int rows = 97;
    len += (size_t)snprintf(s + len, cap - len, "%%%%MatrixMarket matrix coordinate %s %s%s"
                            "%% generated%s%d %d %d%s", field, sym, eol, eol, rows, rows,
                            declared < 0 ? n : declared, eol);
    for (int k = 0; k < n; k++) {
        uint64_t r = rng(&seed);
        int i = (int)(r % (uint64_t)rows) + 1, j = (int)((r >> 20) % (uint64_t)rows) + 1;
        if (strcmp(sym, "general") && j > i) {
            int x = i;
            i = j, j = x;
        }
        if (!strcmp(sym, "skew-symmetric") && i == j)
            i < rows ? i++ : j--;       /* no diagonal */
        if (extras && r % 7 == 0)
            len += (size_t)snprintf(s + len, cap - len, "%% comment %d%s", k, eol);
        if (extras && r % 11 == 0)
            len += (size_t)snprintf(s + len, cap - len, "%s", eol);
        const char *lead = extras && r % 5 == 0 ? "  " : "";
        const char *end = k + 1 == n && !last_eol ? "" : eol;
        double v = (double)(int64_t)(r >> 40) / 1024.0 - 3000.0;
        if (k == bad_at)
            len += (size_t)snprintf(s + len, cap - len, "%s%s", bad, end);
        else if (!strcmp(field, "pattern"))
            len += (size_t)snprintf(s + len, cap - len, "%s%d %d%s", lead, i, j, end);
        else if (!strcmp(field, "integer"))
            len += (size_t)snprintf(s + len, cap - len, "%s%d %d %lld%s", lead, i, j,
                                    (long long)(r >> 44) - 5000, end);
        else if (!strcmp(field, "complex"))
            len += (size_t)snprintf(s + len, cap - len, "%s%d %d %.17g %.6g%s", lead, i, j, v,
                                    -v, end);
        else
            len += (size_t)snprintf(s + len, cap - len, "%s%d %d %.17g%s", lead, i, j, v, end);
        cr_assert_lt(len, cap - 200);
    }
    return s;
}

static void write_gen(const char *path, const char *text)
{
    tu_write_file(path, text);
}

/* The parallel reader itself takes a valid generated body (so the tests
 * above compare the parallel path, not a fallback to the serial one). */
static void assert_parallel_taken(const char *text, int threads)
{
    size_t n = strlen(text);
    char *buf = calloc(1, n + MM_PAD);
    cr_assert_not_null(buf);
    memcpy(buf, text, n);
    mm_text t = {.path = "gen", .buf = buf, .end = buf + n, .has_cr = strchr(text, '\r') != 0};
    mm_header h;
    const char *body;
    sp_err err = {{0}};
    cr_assert_eq(mm_parse_header(&t, &h, &body, &err), 0, "%s", err.msg);
    sp_mm_opts o = {.quiet = 1, .threads = threads, .par_min_body = 1};
    sp_csr A;
    const char *ignored = NULL;
    cr_assert_eq(mm_par_csr(&t, &h, body, &o, &A, &ignored, NULL, &err), 0,
                 "the parallel path was not taken (%s)", err.msg);
    sp_csr_free(&A);
    free(buf);
}

Test(mm_read, parallel_equals_serial_on_generated_files, .timeout = 120)
{
    static const char *fields[] = {"real", "integer", "pattern", "complex"};
    static const char *syms[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
    static const char *eols[] = {"\n", "\r\n", "\r"};
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "gen.mtx");
    uint64_t seed = 7;
    for (int f = 0; f < 4; f++)
        for (int y = 0; y < 4; y++) {
            if (f != 3 && y == 3)
                continue;               /* hermitian: complex only */
            for (int e = 0; e < 3; e++)
                for (int last = 0; last < 2; last++) {
                    char *text = gen_text(fields[f], syms[y], 300, eols[e], last, 1, -1, NULL,
                                          -1, seed++);
                    write_gen(path, text);
                    assert_threads_agree(path, par_threads, 5);
                    free(text);
                }
        }
    /* duplicates, explicit zeros and a pattern file with value columns */
    write_gen(path, "%%MatrixMarket matrix coordinate real general\n3 3 6\n1 1 1.5\n2 2 0\n"
                    "1 1 2.25\n3 1 -0\n1 1 1e-300\n3 3 7\n");
    assert_threads_agree(path, par_threads, 5);
    write_gen(path, "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n2 2 5\n"
                    "3 3 6\n");
    assert_threads_agree(path, par_threads, 5);
    /* duplicates whose sum depends on their order: file order must hold
     * across chunk boundaries */
    char *dup = malloc(1 << 16);
    cr_assert_not_null(dup);
    int len = snprintf(dup, 1 << 16, "%%%%MatrixMarket matrix coordinate real general\n3 2 600\n");
    for (int k = 0; k < 600; k++)
        len += snprintf(dup + len, (size_t)(1 << 16) - (size_t)len, "%d %d %.17g\n", k % 3 + 1,
                        k % 2 + 1, (k % 2 ? -1 : 1) * pow(10.0, k % 17) * (1 + k * 0.1));
    write_gen(path, dup);
    assert_threads_agree(path, par_threads, 5);
    assert_parallel_taken(dup, 4);
    free(dup);
    char *text = gen_text("real", "general", 400, "\r\n", 0, 1, -1, NULL, -1, 99);
    assert_parallel_taken(text, 2);
    assert_parallel_taken(text, 4);
    free(text);
    text = gen_text("complex", "hermitian", 400, "\r", 1, 1, -1, NULL, -1, 98);
    assert_parallel_taken(text, 3);
    free(text);
}

/* A malformed line at every position of a small file, so that at 2, 3
 * and 4 threads some error lies on a chunk's first line, some in the
 * last chunk, some after the announced entries; and files with too few
 * or too many entries. The message (file, line, problem) must be the
 * serial reader's. */
Test(mm_read, parallel_errors_equal_serial_errors, .timeout = 120)
{
    static const char *bads[] = {"1 x 2", "98 1 1", "3 4", "5 5 1 extra", "1 1 nan", "abc"};
    static const int threads[] = {1, 2, 3, 4};
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "bad.mtx");
    int n = 40;
    for (size_t b = 0; b < sizeof bads / sizeof *bads; b++)
        for (int at = 0; at < n; at++)
            for (int crlf = 0; crlf < 2; crlf++) {
                char *text = gen_text("real", b % 2 ? "symmetric" : "general", n,
                                      crlf ? "\r\n" : "\n", at % 2, (int)b % 3 == 0, at,
                                      bads[b], -1, (uint64_t)at + 1);
                write_gen(path, text);
                sp_csr A;
                sp_err err;
                cr_assert_eq(read_threads(path, 1, &A, &err), -1, "accepted:\n%s", text);
                assert_threads_agree(path, threads, 4);
                free(text);
            }
    /* too few entries, too many, and a bad line after the announced ones */
    for (int declared = 30; declared <= 50; declared += 10) {
        char *text = gen_text("integer", "general", n, "\n", 1, 1, -1, NULL, declared, 5);
        write_gen(path, text);
        assert_threads_agree(path, threads, 4);
        free(text);
        text = gen_text("integer", "general", n, "\n", 0, 0, n - 1, "1 1 x", declared, 6);
        write_gen(path, text);
        assert_threads_agree(path, threads, 4);
        free(text);
    }
}
