/* test_cache.c — the binary CSR cache (fetch/csr_cache.c) on its own, and
 * through sp_matrix_load: reuse, and rebuilding after corruption,
 * truncation, a version change or a changed source. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fetch/matrix.h"
#include "testutil.h"

/* A small generated matrix to store. */
static void small_matrix(sp_csr *A)
{
    sp_err err = {{0}};
    cr_assert_eq(sp_generate("uniform?rows=300&cols=200&per_row=5&seed=4", A, &err), 0,
                 "%s", err.msg);
}

/* True when A and B are bit-identical. */
static int csr_identical(const sp_csr *A, const sp_csr *B)
{
    return A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz &&
           !memcmp(A->rowptr, B->rowptr, ((size_t)A->rows + 1) * sizeof(int32_t)) &&
           !memcmp(A->colidx, B->colidx, (size_t)A->nnz * sizeof(int32_t)) &&
           !memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double));
}

/* Write A to dir/name.csr with a fixed source stamp; path receives it. */
static void write_cache(const char *dir, sp_csr *A, char *path, size_t len)
{
    sp_cache_info info = {.src_size = 1234, .src_mtime_ns = 5678, .src_hash = 42};
    sp_err err = {{0}};
    tu_path(path, len, dir, "m.csr");
    cr_assert_eq(sp_cache_write(path, A, &info, &err), 0, "%s", err.msg);
}

/* Overwrite len bytes at offset of a file. */
static void patch_file(const char *path, long offset, const void *bytes, size_t len)
{
    int fd = open(path, O_WRONLY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(pwrite(fd, bytes, len, offset), (ssize_t)len);
    close(fd);
}

/* Read path expecting failure with a message starting with want. */
static void expect_unusable(const char *path, const sp_cache_info *expect, const char *want)
{
    sp_csr B;
    sp_err err = {{0}};
    cr_assert_eq(sp_cache_read(path, expect, &B, NULL, &err), -1, "read accepted");
    cr_assert_eq(strncmp(err.msg, want, strlen(want)), 0, "got '%s', want '%s...'", err.msg,
                 want);
    cr_assert_null(B.rowptr);
}

static long file_size(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    return (long)st.st_size;
}

Test(cache, write_then_read_is_identical)
{
    char dir[512], path[600];
    sp_csr A, B;
    sp_cache_info info;
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    small_matrix(&A);
    write_cache(dir, &A, path, sizeof path);
    cr_assert_eq(file_size(path), 72 + 301 * 4 + A.nnz * 12);
    cr_assert_eq(sp_cache_read(path, NULL, &B, &info, &err), 0, "%s", err.msg);
    cr_assert(csr_identical(&A, &B));
    cr_assert_eq(info.src_size, 1234);
    cr_assert_eq(info.src_mtime_ns, 5678);
    cr_assert_eq(info.src_hash, 42);
    cr_assert_eq(info.data_hash, sp_csr_checksum(&A));
    sp_csr_free(&A);
    sp_csr_free(&B);
}

/* 12 MB of arrays: several 8 MB chunks of the parallel read, and a chunk
 * boundary inside colidx. */
Test(cache, multi_chunk_file_round_trips)
{
    char dir[512], path[600];
    sp_csr A, B;
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    cr_assert_eq(sp_generate("uniform?rows=100000&per_row=10", &A, &err), 0, "%s", err.msg);
    write_cache(dir, &A, path, sizeof path);
    cr_assert_eq(sp_cache_read(path, NULL, &B, NULL, &err), 0, "%s", err.msg);
    cr_assert(csr_identical(&A, &B));
    sp_csr_free(&B);
    unsigned char b = 0x01;
    patch_file(path, 9L << 20, &b, 1);      /* inside the second chunk */
    expect_unusable(path, NULL, "corrupt: data checksum mismatch");
    sp_csr_free(&A);
}

Test(cache, empty_matrices_round_trip)
{
    char dir[512], path[600];
    sp_csr A, B;
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    cr_assert_eq(sp_generate("uniform?rows=7&cols=3&per_row=0", &A, &err), 0);
    write_cache(dir, &A, path, sizeof path);
    cr_assert_eq(sp_cache_read(path, NULL, &B, NULL, &err), 0, "%s", err.msg);
    cr_assert(csr_identical(&A, &B));
    sp_csr_free(&A);
    sp_csr_free(&B);
    cr_assert_eq(sp_csr_alloc(&A, 0, 0, 0, &err), 0);
    write_cache(dir, &A, path, sizeof path);
    cr_assert_eq(sp_cache_read(path, NULL, &B, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(B.rows, 0);
    cr_assert_eq(B.nnz, 0);
    sp_csr_free(&A);
    sp_csr_free(&B);
}

Test(cache, absent_file_returns_1)
{
    char dir[512], path[600];
    sp_csr B;
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "none.csr");
    cr_assert_eq(sp_cache_read(path, NULL, &B, NULL, &err), 1);
    cr_assert_null(B.rowptr);
}

Test(cache, write_creates_directories_and_leaves_no_temp_file)
{
    char dir[512], path[700], pattern[800];
    sp_csr A;
    sp_err err = {{0}};
    glob_t g;
    tu_tempdir(dir, sizeof dir);
    small_matrix(&A);
    snprintf(path, sizeof path, "%s/a/b/c/m.csr", dir);
    cr_assert_eq(sp_cache_write(path, &A, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_cache_write(path, &A, NULL, &err), 0, "overwrite: %s", err.msg);
    snprintf(pattern, sizeof pattern, "%s/a/b/c/*", dir);
    cr_assert_eq(glob(pattern, GLOB_PERIOD, NULL, &g), 0);
    size_t files = 0;
    for (size_t i = 0; i < g.gl_pathc; i++)
        files += strstr(g.gl_pathv[i], "/.") == NULL;
    cr_assert_eq(files, 1, "only m.csr remains, found %zu", files);
    globfree(&g);
    sp_csr_free(&A);
}

Test(cache, unwritable_directory_is_an_error)
{
    char dir[512], file[600], path[700];
    sp_csr A;
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    tu_path(file, sizeof file, dir, "plain");
    tu_write_file(file, "x");
    snprintf(path, sizeof path, "%s/sub/m.csr", file);
    small_matrix(&A);
    cr_assert_eq(sp_cache_write(path, &A, NULL, &err), -1);
    cr_assert(strstr(err.msg, "plain/sub"), "%s", err.msg);
    sp_csr_free(&A);
}

Test(cache, flipped_data_byte_is_corrupt)
{
    char dir[512], path[600];
    sp_csr A;
    tu_tempdir(dir, sizeof dir);
    small_matrix(&A);
    write_cache(dir, &A, path, sizeof path);
    unsigned char b = 0x5a;
    patch_file(path, file_size(path) - 3, &b, 1);
    expect_unusable(path, NULL, "corrupt: data checksum mismatch");
    sp_csr_free(&A);
}

Test(cache, truncated_file)
{
    char dir[512], path[600];
    sp_csr A;
    tu_tempdir(dir, sizeof dir);
    small_matrix(&A);
    write_cache(dir, &A, path, sizeof path);
    cr_assert_eq(truncate(path, file_size(path) - 8), 0);
    expect_unusable(path, NULL, "truncated");
    cr_assert_eq(truncate(path, 40), 0);   /* inside the header */
    expect_unusable(path, NULL, "truncated");
    sp_csr_free(&A);
}

Test(cache, trailing_bytes_are_corrupt)
{
    char dir[512], path[600];
    sp_csr A;
    tu_tempdir(dir, sizeof dir);
    small_matrix(&A);
    write_cache(dir, &A, path, sizeof path);
    FILE *f = fopen(path, "ab");
    fputs("junk", f);
    fclose(f);
    expect_unusable(path, NULL, "corrupt: ");
    sp_csr_free(&A);
}

Test(cache, other_format_version)
{
    char dir[512], path[600];
    sp_csr A;
    tu_tempdir(dir, sizeof dir);
    small_matrix(&A);
    write_cache(dir, &A, path, sizeof path);
    uint32_t v = 1;
    patch_file(path, 8, &v, sizeof v);       /* version follows the 8-byte magic */
    expect_unusable(path, NULL, "format version 1, expected 2");
    sp_csr_free(&A);
}

Test(cache, header_fields_are_checksummed)
{
    char dir[512], path[600];
    sp_csr A;
    tu_tempdir(dir, sizeof dir);
    small_matrix(&A);
    write_cache(dir, &A, path, sizeof path);
    int64_t mtime = 9999;
    patch_file(path, 40, &mtime, sizeof mtime);   /* src_mtime_ns */
    expect_unusable(path, NULL, "corrupt: header checksum mismatch");
    patch_file(path, 0, "NOTACSR", 8);
    expect_unusable(path, NULL, "not a spsweep CSR cache (bad magic)");
    sp_csr_free(&A);
}

Test(cache, stale_when_the_source_stamp_differs)
{
    char dir[512], path[600];
    sp_csr A, B;
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    small_matrix(&A);
    write_cache(dir, &A, path, sizeof path);
    sp_cache_info same = {.src_size = 1234, .src_mtime_ns = 5678};
    sp_cache_info newer = {.src_size = 1234, .src_mtime_ns = 5679};
    sp_cache_info bigger = {.src_size = 1235, .src_mtime_ns = 5678};
    cr_assert_eq(sp_cache_read(path, &same, &B, NULL, &err), 0, "%s", err.msg);
    sp_csr_free(&B);
    expect_unusable(path, &newer, "stale: source changed (size/mtime)");
    expect_unusable(path, &bigger, "stale: source changed (size/mtime)");
    sp_csr_free(&A);
}

/* ---- through sp_matrix_load --------------------------------------------- */

static const char MM_A[] = "%%MatrixMarket matrix coordinate real general\n"
                           "3 4 4\n"
                           "1 1 1.5\n"
                           "2 1 -2\n"
                           "3 4 4\n"
                           "1 3 0.25\n";
/* Same length as MM_A, one value changed. */
static const char MM_B[] = "%%MatrixMarket matrix coordinate real general\n"
                           "3 4 4\n"
                           "1 1 1.5\n"
                           "2 1 -7\n"
                           "3 4 4\n"
                           "1 3 0.25\n";

typedef struct fixture {
    char dir[512], src[600], cache[600];
} fixture;

/* A temp dir with m.mtx (MM_A) and an empty cache dir path. */
static void fixture_init(fixture *fx)
{
    tu_tempdir(fx->dir, sizeof fx->dir);
    tu_path(fx->src, sizeof fx->src, fx->dir, "m.mtx");
    tu_path(fx->cache, sizeof fx->cache, fx->dir, "cache");
    tu_write_file(fx->src, MM_A);
}

/* Load the fixture's source; returns M.from_cache. */
static int load(const fixture *fx, int no_cache, sp_matrix *M)
{
    sp_source src;
    sp_err err = {{0}};
    sp_load_opts opts = {.cache_dir = fx->cache, .no_cache = no_cache, .mm = {.quiet = 1}};
    cr_assert_eq(sp_source_parse(fx->src, &src, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_matrix_load(&src, &opts, M, &err), 0, "%s", err.msg);
    cr_assert_eq(M->checksum, sp_csr_checksum(&M->A));
    return M->from_cache;
}

/* The single cache file of the fixture, "<stem>-<16 hex>.csr". */
static void cache_file(const fixture *fx, char *path, size_t len)
{
    char pattern[700];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/m-*.csr", fx->cache);
    cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no cache file in %s", fx->cache);
    cr_assert_eq(g.gl_pathc, 1);
    const char *base = strrchr(g.gl_pathv[0], '/') + 1;
    cr_assert_eq(strlen(base), strlen("m-") + 16 + strlen(".csr"), "%s", base);
    cr_assert_eq(strspn(base + 2, "0123456789abcdef"), 16, "%s", base);
    snprintf(path, len, "%s", g.gl_pathv[0]);
    globfree(&g);
}

/* M holds MM_A (b = 0) or MM_B (b = 1). */
static void assert_content(const sp_matrix *M, int b)
{
    cr_assert_eq(M->A.rows, 3);
    cr_assert_eq(M->A.cols, 4);
    cr_assert_eq(M->A.nnz, 4);
    double *D = tu_dense(&M->A);
    cr_assert_eq(D[0], 1.5);
    cr_assert_eq(D[2], 0.25);
    cr_assert_eq(D[4], b ? -7.0 : -2.0);
    cr_assert_eq(D[11], 4.0);
    free(D);
    cr_assert_eq(M->feat.nnz, 4);
    cr_assert_eq(M->feat.empty_rows, 0);
}

Test(cache_load, second_load_comes_from_the_cache)
{
    fixture fx;
    sp_matrix M1, M2;
    char cpath[700];
    fixture_init(&fx);
    cr_assert_eq(load(&fx, 0, &M1), 0);
    cache_file(&fx, cpath, sizeof cpath);
    cr_assert_eq(load(&fx, 0, &M2), 1);
    assert_content(&M2, 0);
    cr_assert_eq(M1.checksum, M2.checksum);
    cr_assert_str_eq(M2.src.name, "m");
    cr_assert_eq(M2.feat.bandwidth, M1.feat.bandwidth);
    sp_matrix_free(&M1);
    sp_matrix_free(&M2);
}

Test(cache_load, no_cache_reads_and_writes_nothing)
{
    fixture fx;
    sp_matrix M;
    struct stat st;
    fixture_init(&fx);
    cr_assert_eq(load(&fx, 1, &M), 0);
    assert_content(&M, 0);
    sp_matrix_free(&M);
    cr_assert_eq(load(&fx, 1, &M), 0);
    sp_matrix_free(&M);
    cr_assert_neq(stat(fx.cache, &st), 0, "cache dir created despite no_cache");
}

Test(cache_load, cache_dir_from_the_environment)
{
    fixture fx;
    sp_matrix M;
    sp_source src;
    sp_err err = {{0}};
    fixture_init(&fx);
    setenv("SPSWEEP_CACHE_DIR", fx.cache, 1);   /* each test runs in its own process */
    cr_assert_eq(sp_source_parse(fx.src, &src, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_matrix_load(&src, NULL, &M, &err), 0, "%s", err.msg);
    sp_matrix_free(&M);
    char cpath[700];
    cache_file(&fx, cpath, sizeof cpath);
    cr_assert_eq(sp_matrix_load(&src, NULL, &M, &err), 0, "%s", err.msg);
    cr_assert_eq(M.from_cache, 1);
    sp_matrix_free(&M);
}

/* Damage the cache file one way, then check the next load rebuilds it
 * (right content, not from the cache) and the load after that reuses it. */
static void damage_and_reload(int how)
{
    fixture fx;
    sp_matrix M;
    char cpath[700];
    fixture_init(&fx);
    cr_assert_eq(load(&fx, 0, &M), 0);
    sp_matrix_free(&M);
    cache_file(&fx, cpath, sizeof cpath);
    struct stat st;
    cr_assert_eq(stat(cpath, &st), 0);
    if (how == 0) {
        unsigned char b = 0xff;
        patch_file(cpath, (long)st.st_size - 1, &b, 1);
    } else if (how == 1) {
        cr_assert_eq(truncate(cpath, st.st_size - 20), 0);
    } else {
        uint32_t v = 1;
        patch_file(cpath, 8, &v, sizeof v);
    }
    cr_assert_eq(load(&fx, 0, &M), 0, "damaged cache was used");
    assert_content(&M, 0);
    sp_matrix_free(&M);
    cr_assert_eq(load(&fx, 0, &M), 1, "cache was not rewritten");
    assert_content(&M, 0);
    sp_matrix_free(&M);
}

Test(cache_load, flipped_byte_is_rebuilt, .init = cr_redirect_stderr)
{
    damage_and_reload(0);
}

Test(cache_load, truncated_is_rebuilt, .init = cr_redirect_stderr)
{
    damage_and_reload(1);
}

Test(cache_load, other_version_is_rebuilt, .init = cr_redirect_stderr)
{
    damage_and_reload(2);
}

Test(cache_load, rebuild_prints_one_line, .init = cr_redirect_stderr)
{
    fixture fx;
    sp_matrix M;
    char cpath[700], want[1024];
    fixture_init(&fx);
    cr_assert_eq(load(&fx, 0, &M), 0);
    sp_matrix_free(&M);
    cache_file(&fx, cpath, sizeof cpath);
    uint32_t v = 7;
    patch_file(cpath, 8, &v, sizeof v);
    cr_assert_eq(load(&fx, 0, &M), 0);
    sp_matrix_free(&M);
    fflush(stderr);
    snprintf(want, sizeof want, "spsweep: cache %s: format version 7, expected 2; rebuilding\n",
             cpath);
    cr_assert_stderr_eq_str(want);
}

Test(cache_load, changed_source_is_reloaded, .init = cr_redirect_stderr)
{
    fixture fx;
    sp_matrix M;
    fixture_init(&fx);
    cr_assert_eq(load(&fx, 0, &M), 0);
    sp_matrix_free(&M);
    cr_assert_eq(sizeof MM_A, sizeof MM_B);       /* only the mtime can tell */
    tu_write_file(fx.src, MM_B);
    struct stat st;
    cr_assert_eq(stat(fx.src, &st), 0);
    struct timespec later[2] = {st.st_atim, st.st_mtim};
    later[1].tv_sec += 10;
    cr_assert_eq(utimensat(AT_FDCWD, fx.src, later, 0), 0);
    cr_assert_eq(load(&fx, 0, &M), 0, "stale cache was used");
    assert_content(&M, 1);
    sp_matrix_free(&M);
    cr_assert_eq(load(&fx, 0, &M), 1);
    assert_content(&M, 1);
    sp_matrix_free(&M);
}

Test(cache_load, unwritable_cache_only_warns, .init = cr_redirect_stderr)
{
    fixture fx;
    sp_matrix M;
    sp_source src;
    sp_err err = {{0}};
    char blocker[700];
    fixture_init(&fx);
    tu_path(blocker, sizeof blocker, fx.dir, "blocker");
    tu_write_file(blocker, "a file where the cache dir should be");
    sp_load_opts opts = {.cache_dir = blocker};
    cr_assert_eq(sp_source_parse(fx.src, &src, &err), 0);
    cr_assert_eq(sp_matrix_load(&src, &opts, &M, &err), 0, "%s", err.msg);
    assert_content(&M, 0);
    cr_assert_eq(M.from_cache, 0);
    sp_matrix_free(&M);
}

Test(cache_load, reader_errors_pass_through)
{
    fixture fx;
    sp_matrix M;
    sp_source src;
    sp_err err = {{0}};
    fixture_init(&fx);
    tu_write_file(fx.src, "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n");
    sp_load_opts opts = {.cache_dir = fx.cache, .mm = {.quiet = 1}};
    cr_assert_eq(sp_source_parse(fx.src, &src, &err), 0);
    cr_assert_eq(sp_matrix_load(&src, &opts, &M, &err), -1);
    cr_assert(strstr(err.msg, fx.src) == err.msg, "message should start with the path: %s",
              err.msg);
    cr_assert_null(M.A.rowptr);
    char pattern[700];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/*.csr", fx.cache);
    cr_assert_neq(glob(pattern, 0, NULL, &g), 0, "a cache file was written for a bad source");
    globfree(&g);
}

Test(cache_load, missing_file)
{
    sp_source src;
    sp_matrix M;
    sp_err err = {{0}};
    cr_assert_eq(sp_source_parse("file:/nonexistent/dir/x.mtx", &src, &err), 0);
    cr_assert_eq(sp_matrix_load(&src, NULL, &M, &err), -1);
    cr_assert_str_eq(err.msg, "/nonexistent/dir/x.mtx: No such file or directory");
}
