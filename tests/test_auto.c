/* test_auto.c — `repetitions = auto`: stop when the median's 95 % interval
 * is within max_noise of it (never before 10 repetitions), or when
 * max_time runs out; the reason is stored. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../db/store.h"
#include "../kernels/spmv/spmv.h"
#include "../runner/exec/harness.h"
#include "../db/stats.h"
#include "../runner/runner.h"
#include "testutil.h"
#include "util_db.h"

extern const sp_kernel sp_spmv_csr_serial;

/* A made-up clock (the harness reads it instead of CLOCK_MONOTONIC): the
 * kernels below advance it by an exact duration, so the test does not
 * depend on how busy the machine is. */
static double fake_now;
static double fake_clock(void)
{
    return fake_now;
}

/* The same time every launch, 1/512 s (about 2 ms) after the real product
 * (the serial kernel's): the interval collapses, stop at 10 on noise. */
static int steady_launch(void *state, const sp_exec *ex, sp_err *err)
{
    if (sp_spmv_csr_serial.launch(state, ex, err))
        return -1;
    fake_now += 1.0 / 512;  /* a power of two: every difference exact */
    return 0;
}

/* Half the launches 1 ms, half 100 ms: never precise; 100 us of real time
 * each, so max_time ends it. */
static int erratic_launch(void *state, const sp_exec *ex, sp_err *err)
{
    static int flip;
    if (sp_spmv_csr_serial.launch(state, ex, err))
        return -1;
    nanosleep(&(struct timespec){0, 100000}, NULL);
    fake_now += (flip ^= 1) ? 1e-3 : 1e-1;
    return 0;
}

static const sp_kernel steady = {
    .name = "test_steady", .operation = "spmv", .format = "csr", .backend = "test",
    .prepare = sp_spmv_cpu_prepare, .launch = steady_launch, .result = NULL,
    .release = sp_spmv_cpu_release};

Test(auto_reps, stops_on_noise_or_time_never_before_ten, .timeout = 60)
{
    sp_kernel a = steady, b = steady;
    a.result = b.result = sp_spmv_cpu_result;
    b.name = "test_erratic", b.launch = erratic_launch;
    const sp_kernel *const kernels[] = {&a, &b, NULL};
    char dir[256], db[300], text[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "r.db");
    snprintf(text, sizeof text, "[sweep]\nrepetitions = auto\nmax_noise = 0.01\n"
                                "max_time = 0.05\nwarmup = 0\nbatch = 1\ndatabase = %s\n"
                                "[matrices]\nsource = gen:laplace2d?n=5\n"
                                "[kernel test_steady]\n[kernel test_erratic]\n", db);
    sp_config cfg;
    sp_sweep_result res;
    sp_err err;
    cr_assert_eq(sp_config_parse("auto.ini", text, kernels, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(cfg.auto_reps, 1);
    sp_harness_cpu_clock = fake_clock;
    cr_assert_eq(sp_sweep_run(&cfg, &(sp_sweep_opts){0}, &res, &err), 0, "%s", err.msg);
    sp_config_free(&cfg);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    char e[512];
    ud_text(h, "SELECT group_concat(kernel || ': ' || error, '; ') FROM runs"
               " WHERE status <> 'ok'", 0, e, sizeof e);
    cr_assert_eq(res.ok, 2, "%s", e);
    char why[16];
    ud_text(h, "SELECT stop_reason FROM runs WHERE kernel = 'test_steady'", 0, why, sizeof why);
    cr_assert_str_eq(why, "noise");
    cr_assert_eq(ud_int(h, "SELECT repetitions FROM runs WHERE kernel = 'test_steady'", 0), 10);
    ud_text(h, "SELECT stop_reason FROM runs WHERE kernel = 'test_erratic'", 0, why, sizeof why);
    cr_assert_str_eq(why, "time");
    int64_t n = ud_int(h, "SELECT n FROM run_stats WHERE kernel = 'test_erratic'", 0);
    cr_assert(n >= 10 && n <= 600, "erratic: %lld repetitions in 0.05 s", (long long)n);
    cr_assert_eq(ud_int(h, "SELECT repetitions_auto FROM sweeps", 0), 1);
    ud_close(ud_real(h, "SELECT max_noise FROM sweeps", 0), 0.01, "max_noise stored");
    ud_close(ud_real(h, "SELECT max_time_s FROM sweeps", 0), 0.05, "max_time stored");
    /* The view's interval is the one the runner stopped on (half-width 0),
     * and its median the harness's reading of the clock */
    ud_close(ud_real(h, "SELECT (ci_hi - ci_lo) / 2 / median FROM run_stats"
                        " WHERE kernel = 'test_steady'", 0), 0, "steady noise");
    ud_close(ud_real(h, "SELECT median FROM run_stats WHERE kernel = 'test_steady'", 0), 1.0 / 512,
             "steady median");
    sqlite3_close(h);
}

Test(auto_reps, ci_rank_matches_the_view)
{
    /* the worked examples of db/views.sql */
    cr_assert_eq(sp_median_ci_rank(5), 0);
    cr_assert_eq(sp_median_ci_rank(6), 1);
    cr_assert_eq(sp_median_ci_rank(7), 1);
    cr_assert_eq(sp_median_ci_rank(10), 2);
    cr_assert_eq(sp_median_ci_rank(20), 6);
    /* 1..10: ranks 2 and 9 → (9 - 2) / 2 / median 5.5 */
    double s[10], scratch[10];
    for (int i = 0; i < 10; i++)
        s[i] = 10 - i;
    cr_assert_float_eq(sp_median_noise(s, 10, scratch), 3.5 / 5.5, 1e-15);
    cr_assert(isinf(sp_median_noise(s, 5, scratch)));
    /* large n stays finite and sensible: 1000 → l = 470 (normal approx.
     * (1000 − 1.96·sqrt(1000)) / 2 = 469) */
    int l = sp_median_ci_rank(1000);
    cr_assert(l >= 468 && l <= 470, "l(1000) = %d", l);
}

Test(auto_reps, config_keys_checked_with_their_line)
{
    sp_config cfg;
    sp_err err;
    const char *bad[] = {"timeout = 0", "max_noise = -1", "max_time = soon", "repetitions = 0"};
    for (int i = 0; i < 4; i++) {
        char text[256];
        snprintf(text, sizeof text, "[sweep]\n%s\n[matrices]\nsource = gen:laplace2d?n=4\n"
                                    "[kernel spmv_csr_serial]\n", bad[i]);
        cr_assert_eq(sp_config_parse("k.ini", text, NULL, &cfg, &err), -1, "%s", bad[i]);
        cr_assert(strstr(err.msg, "k.ini:2:"), "%s", err.msg);
    }
    const char *good = "[sweep]\nrepetitions = auto\ntimeout = 2.5\nrepetitions = 7\n"
                       "[matrices]\nsource = gen:laplace2d?n=4\n[kernel spmv_csr_serial]\n";
    cr_assert_eq(sp_config_parse("k.ini", good, NULL, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(cfg.auto_reps, 0, "a later count replaces auto");
    cr_assert_eq(cfg.repetitions, 7);
    cr_assert_float_eq(cfg.timeout_s, 2.5, 0);
    cr_assert_float_eq(cfg.max_noise, 0.01, 0);
    cr_assert_float_eq(cfg.max_time_s, 2, 0);
    sp_config_free(&cfg);
}
