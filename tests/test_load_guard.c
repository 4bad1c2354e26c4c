/* test_load_guard.c — the memory guard at a matrix's load (issue 18): the
 * estimate of what loading a source takes (fetch/load_size.c) against the
 * bytes the loaded matrix really holds, and a sweep, its resume and
 * `spsweep info` on sources larger than the memory SPSWEEP_MEM_AVAILABLE
 * claims: a recorded skip naming both numbers, never an OOM kill. The big
 * sources are never loaded: with the guard gone these tests would try. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../fetch/matrix.h"
#include "../runner/plan/load_guard.h"
#include "testutil.h"
#include "util_db.h"

/* 2.14e9 nonzeros inside the 32-bit limits: ~24 GiB of CSR. */
#define BIG_GEN "gen:uniform?rows=20000000&cols=20000000&per_row=107"

static uint64_t csr_bytes(const sp_csr *A)
{
    return ((uint64_t)A->rows + 1) * 4 + (uint64_t)A->nnz * 12;
}

/* The estimate of text (loaded through a cache under dir) next to the
 * matrix it loads; returns the loaded CSR's bytes. */
static uint64_t estimate_and_load(const char *text, const char *dir, sp_load_size *sz)
{
    sp_source src;
    sp_matrix M;
    sp_err err;
    sp_load_opts lo = {.cache_dir = dir, .mm = {.quiet = 1}};
    cr_assert_eq(sp_source_parse(text, &src, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_load_size_of(&src, &lo, sz), 0, "%s: no estimate", text);
    cr_assert_eq(sp_matrix_load(&src, &lo, &M, &err), 0, "%s", err.msg);
    uint64_t real = src.kind == SP_SRC_KEYS ? (uint64_t)M.keys.n * 4 : csr_bytes(&M.A);
    cr_assert_eq(sz->rows, src.kind == SP_SRC_KEYS ? M.keys.n : M.A.rows, "%s: rows", text);
    sp_matrix_free(&M);
    return real;
}

Test(load_guard, generator_estimates_match_the_loaded_csr)
{
    char dir[256];
    tu_tempdir(dir, sizeof dir);
    /* exact: these generators know their nnz from the parameters */
    const char *exact[] = {"gen:laplace2d?n=50", "gen:laplace3d?n=12&points=27",
                           "gen:uniform?rows=1000&cols=800&per_row=9",
                           "gen:banded?n=500&bw=4",
                           "gen:denserow?rows=400&per_row=3&dense=300",
                           "keys:zipf?n=10007"};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++) {
        sp_load_size sz;
        uint64_t real = estimate_and_load(exact[i], dir, &sz);
        cr_assert_eq(sz.result_bytes, real, "%s: %llu estimated, %llu held", exact[i],
                     (unsigned long long)sz.result_bytes, (unsigned long long)real);
        cr_assert_eq(sz.peak_bytes, real, "%s: built in place, no temporaries", exact[i]);
    }
    /* R-MAT merges repeated edges: the estimate takes every edge as
     * distinct and adds its buckets, within 2x of what stays */
    sp_load_size sz;
    uint64_t real = estimate_and_load("gen:rmat?scale=12&ef=8", dir, &sz);
    cr_assert_geq(sz.result_bytes, real);
    cr_assert_leq(sz.result_bytes, real * 5 / 4, "%llu vs %llu",
                  (unsigned long long)sz.result_bytes, (unsigned long long)real);
    cr_assert_gt(sz.peak_bytes, sz.result_bytes, "the edge buckets are temporaries");
    cr_assert_leq(sz.peak_bytes, 2 * real);
}

/* A symmetric .mtx.gz: first from its size line (entries doubled, the
 * inflated text and the reader's row cursors), once the load has written
 * the binary cache from the cache's header, exactly. */
Test(load_guard, matrix_market_estimate_from_size_line_then_cache_header)
{
    char dir[256], gz[300], text[400];
    tu_tempdir(dir, sizeof dir);
    snprintf(gz, sizeof gz, "%s/mm/ss_1138_bus.mtx.gz", tu_datadir());
    snprintf(text, sizeof text, "file:%s", gz);
    sp_load_size sz;
    uint64_t real = estimate_and_load(text, dir, &sz);
    cr_assert_str_eq(sz.basis, "Matrix Market size line");
    cr_assert_eq(sz.nnz, 2 * 2596, "1138_bus lists 2596 entries of a symmetric matrix");
    cr_assert_geq(sz.result_bytes, real);
    cr_assert_leq(sz.result_bytes, real * 3 / 2);
    cr_assert_geq(sz.peak_bytes, sz.result_bytes + 1139 * 4 + 40000, "cursors + the text");
    cr_assert_leq(sz.peak_bytes, 3 * real);
    real = estimate_and_load(text, dir, &sz);
    cr_assert_str_eq(sz.basis, "binary cache header");
    cr_assert_eq(sz.result_bytes, real);
    cr_assert_eq(sz.peak_bytes, real);
}

/* The size line behind 100 KB of comments (more than one read), through
 * gzip, and at the very end of a file without a final newline. */
Test(load_guard, matrix_market_peek_reads_the_size_line_only)
{
    char dir[256], path[300], gzpath[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "long.mtx");
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%%%%MatrixMarket matrix coordinate pattern symmetric\n");
    for (int i = 0; i < 2000; i++)
        fprintf(f, "%% comment line %04d, long enough to add up to 100 KB of them\n", i);
    fprintf(f, "7 7 3\n1 1\n2 1\n7 3\n");
    cr_assert_eq(fclose(f), 0);
    tu_path(gzpath, sizeof gzpath, dir, "long.mtx.gz");
    char cmd[700];
    snprintf(cmd, sizeof cmd, "gzip -c %s > %s", path, gzpath);
    cr_assert_eq(system(cmd), 0);
    sp_mm_size sz;
    sp_err err;
    cr_assert_eq(sp_mm_peek(path, &sz, &err), 0, "%s", err.msg);
    cr_assert(sz.rows == 7 && sz.cols == 7 && sz.max_nnz == 6 && sz.heap_text == 0);
    cr_assert_eq(sp_mm_peek(gzpath, &sz, &err), 0, "%s", err.msg);
    cr_assert(sz.rows == 7 && sz.max_nnz == 6);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_gt(st.st_size, 100000);
    cr_assert_eq(sz.heap_text, (uint64_t)st.st_size, "the inflated bytes (gzip's ISIZE)");
    tu_write_file(path, "%%MatrixMarket matrix coordinate real general\n3 4 0");
    cr_assert_eq(sp_mm_peek(path, &sz, &err), 0, "%s", err.msg);
    cr_assert(sz.rows == 3 && sz.cols == 4 && sz.max_nnz == 0);
    tu_write_file(path, "%%MatrixMarket matrix coordinate real general\n% only comments\n");
    cr_assert_eq(sp_mm_peek(path, &sz, &err), -1);
    cr_assert(strstr(err.msg, "size line"), "%s", err.msg);
}

Test(load_guard, available_memory_override)
{
    uint64_t b = 0;
    cr_assert_eq(setenv("SPSWEEP_MEM_AVAILABLE", "8G", 1), 0);
    cr_assert_eq(sp_host_mem_available(&b), 0);
    cr_assert_eq(b, 8ull << 30);
    setenv("SPSWEEP_MEM_AVAILABLE", "123", 1);
    cr_assert_eq(sp_host_mem_available(&b), 0);
    cr_assert_eq(b, 123);
    setenv("SPSWEEP_MEM_AVAILABLE", "3k", 1);
    cr_assert_eq(sp_host_mem_available(&b), 0);
    cr_assert_eq(b, 3072);
    /* not a size: /proc/meminfo as before */
    setenv("SPSWEEP_MEM_AVAILABLE", "12x", 1);
    b = 12;
    if (sp_host_mem_available(&b) == 0)
        cr_assert_gt(b, 3072);
}

/* 1 when the guard refuses text for an spmv sweep; msg gets the reason. */
static int refused(const char *text, char *msg, size_t len)
{
    sp_source src;
    sp_err err;
    const sp_operation *spmv = sp_operation_find("spmv");
    cr_assert_eq(sp_source_parse(text, &src, &err), 0, "%s", err.msg);
    msg[0] = '\0';
    return sp_load_mem_short(&src, NULL, 0, &spmv, 1, "its references", msg, len);
}

/* The guard must not refuse what fits: a normal generator passes with
 * the machine's real MemAvailable and with 64 MiB; a tiny budget refuses
 * even it, with the size of its x and references counted. */
Test(load_guard, normal_matrices_pass)
{
    char msg[1024];
    unsetenv("SPSWEEP_MEM_AVAILABLE");
    cr_assert_eq(refused("gen:laplace2d?n=300", msg, sizeof msg), 0, "%s", msg);
    setenv("SPSWEEP_MEM_AVAILABLE", "64M", 1);
    cr_assert_eq(refused("gen:laplace2d?n=300", msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(refused("keys:uniform?n=1000000", msg, sizeof msg), 0, "%s", msg);
    /* 90000 rows: CSR 360004 + 448800 x 12 bytes (5.5 MiB), x 720008,
     * y and its reference 2 x 720000: 7.5 MiB */
    setenv("SPSWEEP_MEM_AVAILABLE", "7M", 1);
    cr_assert_eq(refused("gen:laplace2d?n=300", msg, sizeof msg), 1);
    cr_assert(strstr(msg, "needs 7.5 MiB of host memory to load, 7.0 MiB available"), "%s",
              msg);
    cr_assert(strstr(msg, "5.5 MiB at the load's peak, 7.5 MiB with its references"), "%s",
              msg);
}

/* ---- the sweep, its resume, info: through the binary ------------------ */

static void write_config(const char *dir, const char *second, char *cfg, size_t len)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[sweep]\nrepetitions = 2\nwarmup = 0\n[matrices]\nsource = %s\n"
             "source = gen:laplace2d?n=20\n[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\n"
             "threads = 1\n",
             second);
    tu_path(cfg, len, dir, "big.ini");
    tu_write_file(cfg, text);
}

/* Run the sweep with 8 GiB "available"; its exit status. */
static int sweep(const char *cfg, const char *db, const char *cache)
{
    char args[1200], *out;
    cr_assert_eq(setenv("SPSWEEP_MEM_AVAILABLE", "8G", 1), 0);
    snprintf(args, sizeof args, "sweep %s --db %s --cache-dir %s", cfg, db, cache);
    int rc = tu_run_spsweep(args, &out);
    cr_log_info("%s", out);
    free(out);
    return rc;
}

/* The big source a skip with its reason, the small matrix's runs ok, the
 * sweep finished: what every run and resume of the sweep leaves. */
static void assert_outcome(const char *db, const char *source, const char *reason)
{
    sqlite3 *h;
    char text[1024];
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM sweeps", 0), 1, "one sweep, resumed");
    ud_text(h, "SELECT status FROM sweeps", 0, text, sizeof text);
    cr_assert_str_eq(text, "done", "the sweep must not stay running");
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM failures WHERE what = 'matrix'", 0), 1);
    ud_text(h, "SELECT matrix || ' | ' || status || ' | ' || reason FROM failures"
               " WHERE what = 'matrix'", 0, text, sizeof text);
    cr_assert(strstr(text, source) == text, "%s", text);
    cr_assert(strstr(text, " | skipped | "), "%s", text);
    cr_assert(strstr(text, reason), "reason lacks '%s': %s", reason, text);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs", 0), 2, "only the small matrix ran");
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id"
                           " WHERE r.status = 'ok' AND m.source = 'gen:laplace2d?n=20'", 0), 2);
    sqlite3_close(h);
}

/* (a) and (b): 2.14e9 nonzeros = 23.99 GiB of CSR, + x, y and y's
 * reference (3 x 160 MB) = 24.44 GiB, against 8 GiB. Exit status 2: a
 * matrix could not be loaded (main.c). */
Test(load_guard, sweep_skips_a_generator_too_big_to_load_and_resumes_alike, .timeout = 120)
{
    char dir[256], cfg[300], db[300];
    tu_tempdir(dir, sizeof dir);
    write_config(dir, BIG_GEN, cfg, sizeof cfg);
    tu_path(db, sizeof db, dir, "r.db");
    const char *why = "needs 24.44 GiB of host memory to load, 8.00 GiB available "
                      "(20000000 x 20000000 with 2140000000 nonzeros, from the generator "
                      "parameters; 23.99 GiB at the load's peak";
    cr_assert_eq(sweep(cfg, db, dir), 2);
    assert_outcome(db, BIG_GEN, why);
    cr_assert_eq(sweep(cfg, db, dir), 2, "the resume must not die either");
    assert_outcome(db, BIG_GEN, why);
}

/* (c) */
Test(load_guard, info_refuses_a_generator_too_big_to_load)
{
    char *out;
    cr_assert_eq(setenv("SPSWEEP_MEM_AVAILABLE", "8G", 1), 0);
    cr_assert_eq(tu_run_spsweep("info '" BIG_GEN "'", &out), 1, "%s", out);
    cr_assert(strstr(out, "spsweep: " BIG_GEN ": needs 23.99 GiB of host memory to load, "
                          "8.00 GiB available"), "%s", out);
    free(out);
}

/* (d): a size line declaring 2e9 x 2e9 with 2e9 entries (a 70-byte file):
 * refused from the size line, before the reader maps anything. */
Test(load_guard, sweep_skips_a_matrix_market_file_too_big_to_load, .timeout = 120)
{
    char dir[256], cfg[300], db[300], mtx[300], source[320];
    tu_tempdir(dir, sizeof dir);
    tu_path(mtx, sizeof mtx, dir, "huge.mtx");
    tu_write_file(mtx, "%%MatrixMarket matrix coordinate real general\n"
                       "2000000000 2000000000 2000000000\n1 1 1.0\n");
    snprintf(source, sizeof source, "file:%s", mtx);
    write_config(dir, source, cfg, sizeof cfg);
    tu_path(db, sizeof db, dir, "r.db");
    /* CSR (2e9 + 1) x 4 + 2e9 x 12 bytes + the reader's cursors (2e9 + 1)
     * x 4 = 37.25 GiB at the peak; the CSR + x, y, y's reference 3 x 16e9
     * = 74.51 GiB held */
    cr_assert_eq(sweep(cfg, db, dir), 2);
    assert_outcome(db, source, "needs 74.51 GiB of host memory to load, 8.00 GiB available "
                               "(2000000000 x 2000000000 with 2000000000 nonzeros, from the "
                               "Matrix Market size line; 37.25 GiB at the load's peak");
}
