/* test_source.c — source strings (fetch/source.c): parsing, names, errors,
 * and loading generated and SuiteSparse-cache sources. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fetch/matrix.h"
#include "testutil.h"

typedef struct parse_case {
    const char *in;
    sp_source_kind kind;
    const char *text, *name, *path;
} parse_case;

Test(source, parse_table)
{
    static const parse_case cases[] = {
        {"file:a/b/foo.mtx", SP_SRC_FILE, "file:a/b/foo.mtx", "foo", "a/b/foo.mtx"},
        {"file:/abs/bar.mtx.gz", SP_SRC_FILE, "file:/abs/bar.mtx.gz", "bar", "/abs/bar.mtx.gz"},
        {"data/baz.mtx", SP_SRC_FILE, "file:data/baz.mtx", "baz", "data/baz.mtx"},
        {"plain", SP_SRC_FILE, "file:plain", "plain", "plain"},
        {"file:dir/we ird(1).v2.mtx", SP_SRC_FILE, "file:dir/we ird(1).v2.mtx", "we_ird_1_.v2",
         "dir/we ird(1).v2.mtx"},
        {"file:x/.mtx", SP_SRC_FILE, "file:x/.mtx", ".mtx", "x/.mtx"},
        {"file:dir/", SP_SRC_FILE, "file:dir/", "matrix", "dir/"},
        {"gen:laplace2d?n=100", SP_SRC_GEN, "gen:laplace2d?n=100", "laplace2d_n100",
         "laplace2d?n=100"},
        {"gen:rmat?scale=16&ef=8", SP_SRC_GEN, "gen:rmat?scale=16&ef=8", "rmat_scale16_ef8",
         "rmat?scale=16&ef=8"},
        {"gen:rmat?scale=12&a=0.5&b=0.2&c=0.2", SP_SRC_GEN, "gen:rmat?scale=12&a=0.5&b=0.2&c=0.2",
         "rmat_scale12_a0.5_b0.2_c0.2", "rmat?scale=12&a=0.5&b=0.2&c=0.2"},
        {"gen:banded?n=10&bw=-0", SP_SRC_GEN, "gen:banded?n=10&bw=-0", "banded_n10_bw-0",
         "banded?n=10&bw=-0"},
        {"suitesparse:HB/bcsstk13", SP_SRC_SUITESPARSE, "suitesparse:HB/bcsstk13", "HB/bcsstk13",
         "HB/bcsstk13"},
        {"suitesparse:bcsstk13", SP_SRC_SUITESPARSE, "suitesparse:bcsstk13", "bcsstk13",
         "bcsstk13"},
        {"suitesparse:Janna/Queen_4147", SP_SRC_SUITESPARSE, "suitesparse:Janna/Queen_4147",
         "Janna/Queen_4147", "Janna/Queen_4147"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const parse_case *c = &cases[t];
        sp_source s;
        sp_err err = {{0}};
        cr_assert_eq(sp_source_parse(c->in, &s, &err), 0, "%s: %s", c->in, err.msg);
        cr_assert_eq(s.kind, c->kind, "%s", c->in);
        cr_assert_str_eq(s.text, c->text);
        cr_assert_str_eq(s.name, c->name);
        cr_assert_str_eq(s.path, c->path);
    }
}

Test(source, parse_errors)
{
    static const char *cases[][2] = {
        {"", "empty matrix source (expected file:, gen:, suitesparse:, keys: or a file path)"},
        {"http://example.org/m.mtx", "http://example.org/m.mtx: unknown source prefix 'http:' "
         "(known: file:, gen:, suitesparse:, keys:; a bare path is read as a file)"},
        {"foo:bar", "foo:bar: unknown source prefix 'foo:' (known: file:, gen:, suitesparse:, keys:; "
                    "a bare path is read as a file)"},
        {"file:", "file:: no path given"},
        {"suitesparse:", "suitesparse:: expected suitesparse:Group/Name or suitesparse:Name "
                         "(letters, digits, '_', '-', '.')"},
        {"suitesparse:a/b/c", "suitesparse:a/b/c: expected suitesparse:Group/Name or "
                              "suitesparse:Name (letters, digits, '_', '-', '.')"},
        {"suitesparse:../x", "suitesparse:../x: expected suitesparse:Group/Name or "
                             "suitesparse:Name (letters, digits, '_', '-', '.')"},
        {"suitesparse:HB/", "suitesparse:HB/: expected suitesparse:Group/Name or "
                            "suitesparse:Name (letters, digits, '_', '-', '.')"},
        {"gen:nope?n=1", "gen:nope?n=1: unknown generator 'nope' (known: laplace2d, laplace3d, "
                         "rmat, uniform, banded, denserow, random)"},
        {"gen:laplace2d?n=abc", "gen:laplace2d?n=abc: parameter 'n': 'abc' is not an integer"},
        {"gen:laplace2d?size=3", "gen:laplace2d?size=3: unknown parameter 'size' for laplace2d "
                                 "(known: n)"},
        {"gen:laplace3d?n=2000", "gen:laplace3d?n=2000: 8000000000 rows exceed the 32-bit index "
                                 "limit (2147483647)"},
        {"gen:", "gen:: empty generator spec (expected kind?key=value&...)"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        sp_source s;
        sp_err err = {{0}};
        cr_assert_eq(sp_source_parse(cases[t][0], &s, &err), -1, "'%s' accepted", cases[t][0]);
        cr_assert_str_eq(err.msg, cases[t][1]);
    }
    sp_err err = {{0}};
    sp_source s;
    cr_assert_eq(sp_source_parse(NULL, &s, &err), -1);
}

Test(source, too_long_is_refused)
{
    char text[1500];
    sp_source s;
    sp_err err = {{0}};
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    cr_assert_eq(sp_source_parse(text, &s, &err), -1);
    cr_assert(strstr(err.msg, "source too long"), "%s", err.msg);
}

Test(source, unknown_prefix_that_is_an_existing_file)
{
    char dir[512];
    sp_source s;
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    cr_assert_eq(chdir(dir), 0);       /* each test runs in its own process */
    tu_write_file("odd:name.mtx", "x");
    cr_assert_eq(sp_source_parse("odd:name.mtx", &s, &err), 0, "%s", err.msg);
    cr_assert_eq(s.kind, SP_SRC_FILE);
    cr_assert_str_eq(s.path, "odd:name.mtx");
    cr_assert_str_eq(s.name, "odd_name");
}

/* Load text (parsed) with the given cache dir; returns sp_matrix_load's rc. */
static int load_text(const char *text, const char *cache_dir, sp_matrix *M, sp_err *err)
{
    sp_source s;
    sp_load_opts opts = {.cache_dir = cache_dir, .mm = {.quiet = 1}};
    cr_assert_eq(sp_source_parse(text, &s, err), 0, "%s", err->msg);
    return sp_matrix_load(&s, &opts, M, err);
}

Test(source, load_generated)
{
    sp_matrix M;
    sp_err err = {{0}};
    cr_assert_eq(load_text("gen:laplace2d?n=7", "/nonexistent-cache", &M, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(M.from_cache, 0);
    cr_assert_eq(M.src.kind, SP_SRC_GEN);
    cr_assert_str_eq(M.src.name, "laplace2d_n7");
    cr_assert_eq(M.A.nnz, 5 * 49 - 28);
    cr_assert_eq(M.feat.nnz, M.A.nnz);
    cr_assert_eq(M.feat.bandwidth, 7);
    cr_assert_eq(M.checksum, sp_csr_checksum(&M.A));
    sp_matrix_free(&M);
    cr_assert_null(M.A.rowptr);
}

Test(source, suitesparse_not_cached)
{
    sp_matrix M;
    sp_err err = {{0}};
    cr_assert_eq(load_text("suitesparse:HB/bcsstk13", "/tmp/nocache", &M, &err), -1);
    cr_assert_str_eq(err.msg, "suitesparse:HB/bcsstk13: not in the local cache "
                              "(/tmp/nocache/suitesparse/HB/bcsstk13.mtx); "
                              "`spsweep fetch HB/bcsstk13` brings it in");
    cr_assert_eq(load_text("suitesparse:bcsstk13", "/tmp/nocache", &M, &err), -1);
    cr_assert_str_eq(err.msg, "suitesparse:bcsstk13: not in the local cache "
                              "(/tmp/nocache/suitesparse/*/bcsstk13.mtx); "
                              "`spsweep fetch bcsstk13` brings it in");
}

Test(source, suitesparse_from_the_local_cache)
{
    char dir[512], path[800];
    sp_matrix M;
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/suitesparse", dir);
    cr_assert_eq(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/suitesparse/Grp", dir);
    cr_assert_eq(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/suitesparse/Grp/tiny.mtx", dir);
    tu_write_file(path, "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 3\n2 2 4\n");
    cr_assert_eq(load_text("suitesparse:Grp/tiny", dir, &M, &err), 0, "%s", err.msg);
    cr_assert_eq(M.A.nnz, 2);
    cr_assert_str_eq(M.src.name, "Grp/tiny");
    cr_assert_eq(M.from_cache, 0);
    sp_matrix_free(&M);
    cr_assert_eq(load_text("suitesparse:tiny", dir, &M, &err), 0, "%s", err.msg);
    cr_assert_eq(M.A.nnz, 2);
    cr_assert_eq(M.from_cache, 1, "the binary cache serves SuiteSparse matrices too");
    sp_matrix_free(&M);
}
