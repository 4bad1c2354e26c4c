/* test_keys.c — key workloads (fetch/keys.c): parsing and normalising
 * "keys:DIST?n=N&seed=S", determinism (also across thread counts), the
 * properties of every distribution, bad specifications, and how a key
 * workload travels: sources, features, the plan (operations that cannot
 * take keys are left out) and `spsweep info`. */
#include <criterion/criterion.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/kernel.h"
#include "testutil.h"

/* Generate the workload of source text (keys:...) into K. */
static void gen_keys(const char *text, sp_keys *K)
{
    sp_source src;
    sp_keys_spec ks;
    sp_err err;
    cr_assert_eq(sp_source_parse(text, &src, &err), 0, "%s: %s", text, err.msg);
    cr_assert_eq(src.kind, SP_SRC_KEYS);
    cr_assert_eq(sp_keys_spec_parse(src.path, &ks, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_keys_generate(&ks, K, &err), 0, "%s", err.msg);
}

static void stats_of(const sp_keys *K, sp_keys_stats *st)
{
    sp_err err;
    cr_assert_eq(sp_keys_stats_compute(K, st, &err), 0, "%s", err.msg);
}

Test(keys, parse_normalises_text_and_name)
{
    static const struct {
        const char *in, *text, *name;
        int64_t n;
    } cases[] = {
        {"keys:uniform?n=1000003", "keys:uniform?n=1000003&seed=1", "keys_uniform_n1000003",
         1000003},
        {"keys:sorted?n=2^20", "keys:sorted?n=1048576&seed=1", "keys_sorted_n1048576", 1 << 20},
        {"keys:reverse?n=2^20+3&seed=7", "keys:reverse?n=1048579&seed=7",
         "keys_reverse_n1048579_seed7", (1 << 20) + 3},
        {"keys:equal?seed=2&n=3*2^10-1", "keys:equal?n=3071&seed=2", "keys_equal_n3071_seed2",
         3071},
        {"keys:few?n=0", "keys:few?n=0&seed=1", "keys_few_n0", 0},
        {"keys:zipf?n=100&s=1.5", "keys:zipf?n=100&seed=1&s=1.5", "keys_zipf_n100_s1.5", 100},
        {"keys:zipf?n=2^31-1", "keys:zipf?n=2147483647&seed=1&s=1", "keys_zipf_n2147483647",
         2147483647},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sp_source src;
        sp_keys_spec ks;
        sp_err err;
        cr_assert_eq(sp_source_parse(cases[i].in, &src, &err), 0, "%s: %s", cases[i].in,
                     err.msg);
        cr_expect_eq(src.kind, SP_SRC_KEYS);
        cr_expect_str_eq(src.text, cases[i].text);
        cr_expect_str_eq(src.name, cases[i].name);
        cr_expect_eq(sp_source_workload(&src), SP_WL_KEYS);
        cr_assert_eq(sp_keys_spec_parse(src.path, &ks, &err), 0, "%s", err.msg);
        cr_expect_eq(ks.n, cases[i].n, "%s: n = %lld", cases[i].in, (long long)ks.n);
        /* the normalised text parses to the same workload */
        sp_source again;
        cr_assert_eq(sp_source_parse(src.text, &again, &err), 0, "%s", err.msg);
        cr_expect_str_eq(again.text, src.text);
    }
}

Test(keys, bad_specs_name_the_parameter)
{
    static const struct {
        const char *in, *says;
    } cases[] = {
        {"keys:", "unknown distribution ''"},
        {"keys:gauss?n=10", "unknown distribution 'gauss'"},
        {"keys:uniform", "missing required parameter 'n'"},
        {"keys:uniform?seed=3", "missing required parameter 'n'"},
        {"keys:uniform?n=", "parameter 'n=': expected key=value"},
        {"keys:uniform?n=-5", "parameter 'n': '-5'"},
        {"keys:uniform?n=2^31", "parameter 'n': '2^31'"},
        {"keys:uniform?n=2^99", "parameter 'n': '2^99'"},
        {"keys:uniform?n=99999999999999999999", "parameter 'n'"},
        {"keys:uniform?n=1e6", "parameter 'n': '1e6'"},
        {"keys:uniform?n=10x", "parameter 'n': '10x'"},
        {"keys:uniform?n=2^", "parameter 'n': '2^'"},
        {"keys:uniform?n=3-4", "parameter 'n': '3-4'"},
        {"keys:uniform?n=10&n=11", "parameter 'n' given twice"},
        {"keys:uniform?n=10&seed=x", "parameter 'seed': 'x'"},
        {"keys:uniform?n=10&seed=-1", "parameter 'seed': '-1'"},
        {"keys:uniform?n=10&size=3", "unknown parameter 'size'"},
        {"keys:uniform?n=10&&seed=1", "empty parameter"},
        {"keys:uniform?n=10&s=2", "parameter 's' (the Zipf exponent) applies to zipf only"},
        {"keys:zipf?n=10&s=0", "parameter 's': '0'"},
        {"keys:zipf?n=10&s=11", "parameter 's': '11'"},
        {"keys:zipf?n=10&s=nan", "parameter 's': 'nan'"},
        {"keys:uniform?", "empty parameter"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sp_source src;
        sp_err err = {{0}};
        cr_expect_eq(sp_source_parse(cases[i].in, &src, &err), -1, "%s parsed", cases[i].in);
        cr_expect(strstr(err.msg, cases[i].says), "%s: '%s' lacks '%s'", cases[i].in, err.msg,
                  cases[i].says);
        cr_expect(strstr(err.msg, "keys:"), "%s: '%s' names no source", cases[i].in, err.msg);
    }
}

Test(keys, deterministic_and_thread_count_free)
{
    const char *specs[] = {"keys:uniform?n=100003&seed=9", "keys:few?n=100003",
                           "keys:zipf?n=100003&s=0.8", "keys:reverse?n=100003"};
    int threads = omp_get_max_threads();
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        sp_keys a, b, c;
        omp_set_num_threads(1);
        gen_keys(specs[i], &a);
        omp_set_num_threads(3);
        gen_keys(specs[i], &b);
        omp_set_num_threads(threads);
        gen_keys(specs[i], &c);
        cr_assert_eq(a.n, 100003);
        cr_expect_eq(memcmp(a.key, b.key, 4 * (size_t)a.n), 0, "%s: 1 vs 3 threads", specs[i]);
        cr_expect_eq(memcmp(a.key, c.key, 4 * (size_t)a.n), 0, "%s: again", specs[i]);
        cr_expect_eq(sp_keys_checksum(&a), sp_keys_checksum(&b));
        sp_keys_free(&a), sp_keys_free(&b), sp_keys_free(&c);
    }
    /* another seed, another array */
    sp_keys a, b;
    gen_keys("keys:uniform?n=1000&seed=1", &a);
    gen_keys("keys:uniform?n=1000&seed=2", &b);
    cr_expect_neq(memcmp(a.key, b.key, 4000), 0);
    cr_expect_neq(sp_keys_checksum(&a), sp_keys_checksum(&b));
    sp_keys_free(&a), sp_keys_free(&b);
}

Test(keys, uniform_spreads_over_32_bits)
{
    sp_keys K;
    sp_keys_stats st;
    gen_keys("keys:uniform?n=1000003", &K);
    stats_of(&K, &st);
    cr_expect_gt(st.distinct, 999000);      /* ~116 collisions expected */
    cr_expect_lt(st.min, 1u << 17);         /* 30 mean gaps */
    cr_expect_gt(st.max, 0xffffffffu - (1u << 17));
    cr_expect(st.ascending > 0.49 * 1000002 && st.ascending < 0.51 * 1000002);
    int64_t hist[256] = {0};                /* every top byte about n / 256 times */
    for (int64_t i = 0; i < K.n; i++)
        hist[K.key[i] >> 24]++;
    for (int b = 0; b < 256; b++)
        cr_expect(hist[b] > 3300 && hist[b] < 4500, "top byte %d: %lld keys", b,
                  (long long)hist[b]);
    int64_t low[256] = {0};                 /* and every low byte */
    for (int64_t i = 0; i < K.n; i++)
        low[K.key[i] & 255]++;
    for (int b = 0; b < 256; b++)
        cr_expect(low[b] > 3300 && low[b] < 4500, "low byte %d: %lld keys", b,
                  (long long)low[b]);
    sp_keys_free(&K);
}

Test(keys, sorted_and_reverse)
{
    sp_keys S, R;
    gen_keys("keys:sorted?n=100037", &S);
    gen_keys("keys:reverse?n=100037", &R);
    for (int64_t i = 0; i + 1 < S.n; i++)
        cr_assert_lt(S.key[i], S.key[i + 1], "sorted: not strictly ascending at %lld",
                     (long long)i);
    for (int64_t i = 0; i < R.n; i++)
        cr_assert_eq(R.key[i], S.key[S.n - 1 - i], "reverse is not sorted backwards at %lld",
                     (long long)i);
    cr_expect_eq(S.key[0], 0u);
    cr_expect_gt(S.key[S.n - 1], 0xffffffffu - 2 * (0xffffffffu / 100037));
    sp_keys_free(&S), sp_keys_free(&R);
}

Test(keys, equal_is_constant_and_few_has_16_values)
{
    sp_keys E, F;
    sp_keys_stats st;
    gen_keys("keys:equal?n=4099&seed=3", &E);
    stats_of(&E, &st);
    cr_expect_eq(st.distinct, 1);
    for (int64_t i = 0; i < E.n; i++)
        cr_assert_eq(E.key[i], E.key[0]);
    gen_keys("keys:few?n=1000033&seed=3", &F);
    stats_of(&F, &st);
    cr_expect_eq(st.distinct, 16, "few: %lld distinct", (long long)st.distinct);
    cr_expect_lt(st.top_count, 1000033 / 16 + 2000);    /* uniformly mixed */
    sp_keys few_small;
    gen_keys("keys:few?n=5", &few_small);
    stats_of(&few_small, &st);
    cr_expect_leq(st.distinct, 5);
    sp_keys_free(&E), sp_keys_free(&F), sp_keys_free(&few_small);
}

Test(keys, zipf_is_skewed)
{
    sp_keys Z, Z2;
    sp_keys_stats st, st2;
    gen_keys("keys:zipf?n=1000003", &Z);
    stats_of(&Z, &st);
    /* s = 1 over 2^32 values: P(rank 1) = 1 / H(2^32) ~ 4.4 % */
    double top = (double)st.top_count / (double)Z.n;
    cr_expect(top > 0.040 && top < 0.048, "top share %g", top);
    cr_expect_gt(st.distinct, 100000);      /* a long tail too */
    cr_expect_lt(st.distinct, 900000);
    cr_expect_neq(st.top_value, 0u);        /* ranks are scattered over the range */
    gen_keys("keys:zipf?n=1000003&s=2", &Z2);
    stats_of(&Z2, &st2);
    double top2 = (double)st2.top_count / (double)Z2.n;   /* 1 / zeta(2) = 0.608 */
    cr_expect(top2 > 0.59 && top2 < 0.63, "s=2: top share %g", top2);
    cr_expect_lt(st2.distinct, st.distinct);
    sp_keys_free(&Z), sp_keys_free(&Z2);
}

Test(keys, empty_and_odd_sizes_load)
{
    const char *specs[] = {"keys:uniform?n=0", "keys:zipf?n=1", "keys:sorted?n=33",
                           "keys:few?n=31"};
    const int64_t n[] = {0, 1, 33, 31};
    for (size_t i = 0; i < 4; i++) {
        sp_source src;
        sp_matrix M;
        sp_err err;
        cr_assert_eq(sp_source_parse(specs[i], &src, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_matrix_load(&src, NULL, &M, &err), 0, "%s: %s", specs[i], err.msg);
        cr_expect_eq(M.keys.n, n[i]);
        cr_expect_eq(M.feat.rows, n[i]);
        cr_expect_eq(M.feat.nnz, n[i]);
        cr_expect_eq(M.feat.cols, 1);
        cr_expect_eq(M.A.rowptr, NULL, "a key workload has no matrix");
        cr_expect_eq(M.checksum, sp_keys_checksum(&M.keys));
        sp_matrix_free(&M);
    }
}

Test(keys, operations_declare_their_workloads)
{
    cr_expect(sp_operation_accepts(sp_operation_find("spmv"), SP_WL_MATRIX));
    cr_expect_not(sp_operation_accepts(sp_operation_find("spmv"), SP_WL_KEYS));
    cr_expect(sp_operation_accepts(sp_operation_find("transpose"), SP_WL_MATRIX));
    cr_expect_not(sp_operation_accepts(sp_operation_find("transpose"), SP_WL_KEYS));
    /* and refuse a key workload if asked anyway */
    sp_keys K = {0};
    sp_problem pb;
    sp_err err;
    cr_expect_eq(sp_operation_find("spmv")->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), -1);
    cr_expect(strstr(err.msg, "key workloads"), "%s", err.msg);
}

Test(keys, info_prints_the_distribution)
{
    char *out = NULL;
    int rc = tu_run_spsweep("info 'keys:few?n=1000&seed=4'", &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "source: keys:few?n=1000&seed=4\n"), "%s", out);
    cr_expect(strstr(out, "distribution: few\n"), "%s", out);
    cr_expect(strstr(out, "keys: 1000\n"), "%s", out);
    cr_expect(strstr(out, "distinct: 16\n"), "%s", out);
    free(out);
    rc = tu_run_spsweep("info 'keys:few?n=2^40'", &out);
    cr_expect_neq(rc, 0);
    cr_expect(strstr(out, "parameter 'n'"), "%s", out);
    free(out);
}

Test(keys, plan_leaves_out_what_an_operation_cannot_take)
{
    char dir[256], ini[300], *out = NULL, cmd[700];
    tu_tempdir(dir, sizeof dir);
    tu_path(ini, sizeof ini, dir, "k.ini");
    tu_write_file(ini, "[sweep]\nrepetitions = 1\nwarmup = 0\n[matrices]\n"
                       "source = keys:uniform?n=1000\nsource = gen:laplace2d?n=10\n"
                       "[kernel spmv_csr_serial]\n");
    snprintf(cmd, sizeof cmd, "sweep %s --dry-run --db %s/r.db", ini, dir);
    cr_assert_eq(tu_run_spsweep(cmd, &out), 0, "%s", out);
    cr_expect(strstr(out, "1 run left out"), "%s", out);
    cr_expect(strstr(out, "spmv takes no key workloads"), "%s", out);
    cr_expect(strstr(out, "gen:laplace2d?n=10\tspmv_csr_serial"), "%s", out);
    cr_expect_null(strstr(out, "keys:uniform?n=1000&seed=1\tspmv"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "sweep %s --db %s/r.db", ini, dir);
    cr_assert_eq(tu_run_spsweep(cmd, &out), 0, "%s", out);
    cr_expect(strstr(out, "1 run left out"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "sqlite3 %s/r.db 'SELECT count(*) FROM runs'", dir);
    FILE *p = popen(cmd, "r");
    int runs = -1;
    cr_assert(p);
    cr_expect_eq(fscanf(p, "%d", &runs), 1);
    pclose(p);
    cr_expect_eq(runs, 1, "no noise rows for the pair left out");
}
