/* test_read_threads.c — the Matrix Market reader's threads from a config
 * (`[sweep] read_threads`) and the command line (`--read-threads` on
 * sweep, fetch and info): bad values refused naming the key or option,
 * the count reaching the parser (sp_mm_last_parse_threads), and the same
 * matrix, checksum for checksum, at 1 and 2 threads. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "../fetch/gen.h"
#include "../fetch/matrix.h"
#include "../runner/runner.h"

/* A Matrix Market file whose body is over the parallel parse's 1 MiB. */
static void big_mtx(const char *dir, char *path, size_t len)
{
    sp_csr A;
    sp_err err;
    tu_path(path, len, dir, "big.mtx");
    cr_assert_eq(sp_generate("uniform?rows=30000&cols=20000&per_row=5", &A, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(sp_mm_write(path, &A, &err), 0, "%s", err.msg);
    sp_csr_free(&A);
}

Test(read_threads, config_key_checked_and_passed_to_the_loader)
{
    static const char *bad[] = {"-1", "x", "4097", "2.5", ""};
    for (int b = 0; b < 5; b++) {
        char text[256];
        sp_config cfg;
        sp_err err = {{0}};
        snprintf(text, sizeof text, "[sweep]\nread_threads = %s\n[matrices]\n"
                 "source = gen:laplace2d?n=10\n[kernel spmv_csr_serial]\n", bad[b]);
        cr_assert_eq(sp_config_parse("r.ini", text, NULL, &cfg, &err), -1, "'%s' taken", bad[b]);
        cr_assert(strstr(err.msg, "r.ini:2") && strstr(err.msg, "read_threads"), "%s",
                  err.msg);
    }
    static const int good[] = {0, 1, 3, 4096};
    for (int g = 0; g < 4; g++) {
        char text[256];
        sp_config cfg;
        sp_err err;
        sp_load_opts lo;
        snprintf(text, sizeof text, "[sweep]\nread_threads = %d\ncache_dir = /nowhere\n"
                 "complex = refuse\n[matrices]\nsource = gen:laplace2d?n=10\n"
                 "[kernel spmv_csr_serial]\n", good[g]);
        cr_assert_eq(sp_config_parse("r.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
        cr_assert_eq(cfg.read_threads, good[g]);
        sp_config_load_opts(&cfg, &lo);
        cr_assert_eq(lo.mm.threads, good[g]);
        cr_assert_eq(lo.mm.complex, SP_COMPLEX_REFUSE);
        cr_assert_str_eq(lo.cache_dir, "/nowhere");
        sp_config_free(&cfg);
    }
}

/* The sweep's load options, from a config, drive the parse: 3 threads
 * asked, 3 chunks parsed; 1 asked, the serial path; the matrices equal. */
Test(read_threads, the_parse_runs_on_the_threads_asked, .timeout = 60)
{
    char dir[256], mtx[300];
    tu_tempdir(dir, sizeof dir);
    big_mtx(dir, mtx, sizeof mtx);
    static const int asked[] = {3, 1, 2};
    uint64_t sum[3];
    for (int i = 0; i < 3; i++) {
        char text[1024], cache[300], name[32];
        sp_config cfg;
        sp_err err;
        sp_load_opts lo;
        sp_matrix M;
        snprintf(name, sizeof name, "cache%d", i);  /* a fresh cache: the file is parsed */
        tu_path(cache, sizeof cache, dir, name);
        snprintf(text, sizeof text, "[sweep]\nread_threads = %d\ncache_dir = %s\n[matrices]\n"
                 "source = file:%s\n[kernel spmv_csr_serial]\n", asked[i], cache, mtx);
        cr_assert_eq(sp_config_parse("r.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
        sp_config_load_opts(&cfg, &lo);
        cr_assert_eq(sp_matrix_load(&cfg.matrices[0], &lo, &M, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_mm_last_parse_threads(), asked[i], "read_threads = %d", asked[i]);
        sum[i] = M.checksum;
        sp_matrix_free(&M);
        sp_config_free(&cfg);
    }
    cr_assert(sum[0] == sum[1] && sum[1] == sum[2], "the same matrix at 3, 1 and 2 threads");
}

/* The last line of out starting with key, copied into buf. */
static void line_of(const char *out, const char *key, char *buf, size_t len)
{
    const char *p = strstr(out, key);
    cr_assert_not_null(p, "no '%s' in: %s", key, out);
    snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
}

/* --read-threads on info, sweep and fetch: bad values refused naming the
 * option; info of the same file at 1 and 2 threads gives one checksum. */
Test(read_threads, command_line_option, .timeout = 120)
{
    char dir[256], mtx[300], args[1024], sums[2][128];
    char *out;
    tu_tempdir(dir, sizeof dir);
    big_mtx(dir, mtx, sizeof mtx);
    static const char *bad[] = {"-1", "two", "4097"};
    for (int b = 0; b < 3; b++) {
        snprintf(args, sizeof args, "info %s --read-threads %s", mtx, bad[b]);
        cr_assert_eq(tu_run_spsweep(args, &out), 1, "%s", out);
        cr_assert(strstr(out, "--read-threads") && strstr(out, bad[b]), "%s", out);
        free(out);
        snprintf(args, sizeof args, "sweep configs/smoke.ini --dry-run --read-threads %s",
                 bad[b]);
        cr_assert_eq(tu_run_spsweep(args, &out), 1, "%s", out);
        cr_assert(strstr(out, "--read-threads"), "%s", out);
        free(out);
        snprintf(args, sizeof args, "fetch HB/bcsstk13 --list --read-threads %s", bad[b]);
        cr_assert_eq(tu_run_spsweep(args, &out), 2, "%s", out);
        cr_assert(strstr(out, "--read-threads"), "%s", out);
        free(out);
    }
    for (int t = 0; t < 2; t++) {
        snprintf(args, sizeof args, "info %s --read-threads %d --cache-dir %s/c%d", mtx, t + 1,
                 dir, t);
        cr_assert_eq(tu_run_spsweep(args, &out), 0, "%s", out);
        cr_assert(strstr(out, "from_cache: no"), "parsed, not read from a cache: %s", out);
        line_of(out, "checksum: ", sums[t], sizeof sums[t]);
        free(out);
    }
    cr_assert_str_eq(sums[0], sums[1]);
}
