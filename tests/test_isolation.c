/* test_isolation.c — one bad kernel never costs the rest of a sweep: test
 * kernels that segfault, abort (after writing a CUDA-like message to
 * stderr), exit, hang (one that even ignores SIGTERM), over-ask memory,
 * compute a wrong result, or interrupt the sweep, each recorded with the
 * right status and message, while the combinations after them still run
 * and store exact samples — with a process per combination and with a
 * worker per matrix (`isolate = matrix`, runner/isolate/worker.c), which must be
 * replaced after each bad combination and shared by the good ones. */
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../db/store.h"
#include "../kernels/spmv/spmv.h"
#include "../runner/runner.h"
#include "testutil.h"
#include "util_db.h"

/* A store to a page that may not be written. Crash for real even under
 * the sanitizers: ASan's SIGSEGV handler would turn it into a report and
 * exit status 1 (and UBSan flags a store through NULL before it happens). */
static int segv_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)state, (void)ex, (void)err;
    int *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    signal(SIGSEGV, SIG_DFL);
    *(volatile int *)page = 1;
    return 0;
}

static int abort_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)state, (void)ex, (void)err;
    fprintf(stderr, "CUDA error: an illegal memory access was encountered\n");
    abort();
}

static int exit_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)state, (void)ex, (void)err;
    _exit(7);
}

static int hang_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)state, (void)ex, (void)err;
    for (;;)
        pause();
    return 0;
}

/* Computes y = 0 instead of A x (x is never all zero): the check must
 * fail. (Leaving y unwritten is no test: in a worker, y's memory may still
 * hold the previous combination's right answer.) */
static int wrong_launch(void *state, const sp_exec *ex, sp_err *err)
{
    sp_spmv_cpu *s = state;
    (void)ex, (void)err;
    for (int32_t i = 0; s && i < s->A->rows; i++)
        s->y[i] = 0;
    return 0;
}

static int stubborn_launch(void *state, const sp_exec *ex, sp_err *err)
{
    signal(SIGTERM, SIG_IGN);           /* only SIGKILL ends this one */
    return hang_launch(state, ex, err);
}

/* 1 PiB of host memory: the guard must refuse it before anything runs. */
static int greedy_need(const sp_problem *pb, const sp_params *p, sp_need *need, sp_err *err)
{
    (void)pb, (void)p, (void)err;
    need->host_bytes = 1ull << 50;
    need->device_bytes = 0;
    return 0;
}

/* 1 PiB of device memory: refused in the child, before prepare. */
static int greedy_device_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                              sp_err *err)
{
    (void)pb, (void)p, (void)err;
    need->host_bytes = 0;
    need->device_bytes = 1ull << 50;
    return 0;
}

static int impossible_need(const sp_problem *pb, const sp_params *p, sp_need *need,
                           sp_err *err)
{
    (void)pb, (void)p, (void)need;
    return sp_fail(err, "padding would overflow");
}

/* Sends SIGINT to the sweep during prepare, then measures normally. */
static int interrupting_prepare(const sp_problem *pb, const sp_params *p, void **state,
                                sp_err *err)
{
    kill(getppid(), SIGINT);
    return sp_spmv_cpu_prepare(pb, p, state, err);
}

extern const sp_kernel sp_spmv_csr_serial;

#define TEST_KERNEL(id, launchfn, needfn, preparefn)                                       \
    static const sp_kernel id = {                                                        \
        .name = #id, .operation = "spmv", .format = "csr", .backend = "test",            \
        .prepare = preparefn, .launch = launchfn, .result = sp_spmv_cpu_result,                \
        .release = sp_spmv_cpu_release, .need = needfn}

TEST_KERNEL(test_segv, segv_launch, NULL, sp_spmv_cpu_prepare);
TEST_KERNEL(test_abort, abort_launch, NULL, sp_spmv_cpu_prepare);
TEST_KERNEL(test_exit, exit_launch, NULL, sp_spmv_cpu_prepare);
TEST_KERNEL(test_hang, hang_launch, NULL, sp_spmv_cpu_prepare);
TEST_KERNEL(test_stubborn, stubborn_launch, NULL, sp_spmv_cpu_prepare);
TEST_KERNEL(test_greedy, segv_launch, greedy_need, sp_spmv_cpu_prepare);
TEST_KERNEL(test_impossible, segv_launch, impossible_need, sp_spmv_cpu_prepare);
TEST_KERNEL(test_wrong, wrong_launch, NULL, sp_spmv_cpu_prepare);

static const sp_kernel test_greedy_gpu = {
    .name = "test_greedy_gpu", .operation = "spmv", .format = "csr", .backend = "test",
    .needs_gpu = 1, .prepare = sp_spmv_cpu_prepare, .launch = segv_launch,
    .result = sp_spmv_cpu_result, .release = sp_spmv_cpu_release,
    .need = greedy_device_need};

static const sp_kernel *const extra[] = {&test_segv, &test_abort, &test_exit, &test_hang,
                                         &test_stubborn, &test_greedy, &test_impossible,
                                         &test_greedy_gpu, &test_wrong, NULL};

/* The stderr of the last sweep() (malloc'd). */
static char *last_stderr;

/* Sweep text into dir/r.db; returns 0 or -1 as sp_sweep_run does. */
static int sweep(const char *dir, const char *body, sp_kernel_list kernels,
                 sp_sweep_result *res, sp_err *err, char *dbpath, size_t dblen)
{
    char text[4096];
    tu_path(dbpath, dblen, dir, "r.db");
    snprintf(text, sizeof text, "[sweep]\nrepetitions = 4\nwarmup = 1\ntimeout = 1\n"
                                "database = %s\n%s", dbpath, body);
    sp_config cfg;
    cr_assert_eq(sp_config_parse("iso.ini", text, kernels, &cfg, err), 0, "%s", err->msg);
    /* The sweep's stderr, the children's forwarded stderr with it, is kept
     * for stderr_holds: test_abort's fake "CUDA error" would otherwise reach
     * the terminal of whoever runs the tests and read as a real failure. */
    tu_stderr_begin(dir);
    int rc = sp_sweep_run(&cfg, &(sp_sweep_opts){0}, res, err);
    free(last_stderr);
    last_stderr = tu_stderr_end();
    sp_config_free(&cfg);
    return rc;
}

/* Does the last sweep's stderr hold text? */
static int stderr_holds(const char *text)
{
    return last_stderr && strstr(last_stderr, text) != NULL;
}

/* The error stored for kernel k, into buf. */
static void error_of(sqlite3 *db, const char *k, char *buf, size_t len)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT status || ': ' || error FROM runs WHERE kernel = '%s'",
             k);
    ud_text(db, sql, 0, buf, len);
}

Test(isolation, crashes_are_recorded_and_the_rest_runs, .timeout = 60)
{
    char dir[256], db[300];
    tu_tempdir(dir, sizeof dir);
    sp_sweep_result res;
    sp_err err;
    int rc = sweep(dir, "[matrices]\nsource = gen:laplace2d?n=20\n"
                        "[kernel test_segv]\n[kernel test_abort]\n[kernel test_exit]\n"
                        "[kernel test_greedy]\n[kernel test_impossible]\n"
                        "[kernel test_greedy_gpu]\n"
                        "[kernel spmv_csr_omp]\nthreads = 1,2\n[kernel spmv_csr_serial]\n",
                   extra, &res, &err, db, sizeof db);
    cr_assert_eq(rc, 0, "%s", err.msg);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    char runs[2048];
    ud_text(h, "SELECT group_concat(kernel || ' ' || axes || ' ' || status || ': ' || "
               "coalesce(error, ''), char(10)) FROM runs", 0, runs, sizeof runs);
    cr_assert(res.crashed == 3 && res.skipped == 3 && res.ok == 3,
              "crashed %d skipped %d ok %d (3 each expected); the runs:\n%s", res.crashed,
              res.skipped, res.ok, runs);
    char e[1024];
    error_of(h, "test_segv", e, sizeof e);
    cr_assert(strstr(e, "crashed: killed by SIGSEGV (Segmentation fault) during warm-up"),
              "%s", e);
    error_of(h, "test_abort", e, sizeof e);
    cr_assert(strstr(e, "crashed: killed by SIGABRT") && strstr(e, "during warm-up") &&
              strstr(e, "stderr: CUDA error: an illegal memory access"), "%s", e);
    cr_assert(stderr_holds("CUDA error: an illegal memory access"),
              "a child's stderr is forwarded to the sweep's");
    error_of(h, "test_exit", e, sizeof e);
    cr_assert(strstr(e, "crashed: exited with status 7 during warm-up"), "%s", e);
    error_of(h, "test_greedy", e, sizeof e);
    cr_assert(strstr(e, "skipped: needs 1048576.00 GiB of host memory, ") &&
              strstr(e, " GiB free"), "%s", e);
    /* With a GPU the child refuses it; without, it is skipped for that. */
    error_of(h, "test_greedy_gpu", e, sizeof e);
    sp_gpu_info g;
    char why[256];
    if (sp_gpu_probe(&g, why, sizeof why))
        cr_assert(strstr(e, "skipped: needs 1048576.00 GiB of device memory, "), "%s", e);
    else
        cr_assert(strstr(e, "skipped: ") && strstr(e, why), "%s", e);
    error_of(h, "test_impossible", e, sizeof e);
    cr_assert_str_eq(e, "skipped: padding would overflow");
    cr_assert_eq(ud_int(h, "SELECT need_host_bytes FROM runs WHERE kernel = 'test_greedy'",
                        0), 1ll << 50);
    /* What came after the crashes is measured and checked as usual. */
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs r JOIN samples s ON s.run_id = r.id"
                           " WHERE r.status = 'ok' AND r.rel_error <= 1e-12", 0), 3 * 4);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM run_stats WHERE kernel = 'spmv_csr_omp'"
                           " AND n = 4", 0), 2);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id"
                           " WHERE r.status <> 'ok'", 0), 0);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM sweeps WHERE status = 'done'", 0), 1);
    sqlite3_close(h);
}

Test(isolation, hangs_time_out_even_when_sigterm_is_ignored, .timeout = 60)
{
    char dir[256], db[300];
    tu_tempdir(dir, sizeof dir);
    sp_sweep_result res;
    sp_err err;
    double t0 = sp_seconds();
    int rc = sweep(dir, "[matrices]\nsource = gen:laplace2d?n=10\n"
                        "[kernel test_hang]\n[kernel test_stubborn]\n[kernel spmv_csr_serial]\n",
                   extra, &res, &err, db, sizeof db);
    double took = sp_seconds() - t0;
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(res.timeouts, 2);
    cr_assert_eq(res.ok, 1);
    /* 1 s each, plus the 1 s grace before SIGKILL for the stubborn one. */
    cr_assert(took >= 2.9 && took < 15, "took %.2f s", took);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    char e[1024];
    error_of(h, "test_hang", e, sizeof e);
    cr_assert(strstr(e, "timeout: no result after 1 s (timeout) during warm-up; killed"),
              "%s", e);
    error_of(h, "test_stubborn", e, sizeof e);
    cr_assert(strstr(e, "timeout:"), "%s", e);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM samples", 0), 4);
    sqlite3_close(h);
}

/* SIGINT during the second combination (the first of the second kernel). */
static void sigint_case(const char *isolate)
{
    static const sp_kernel interrupter = {
        .name = "test_interrupt", .operation = "spmv", .format = "csr", .backend = "test",
        .prepare = interrupting_prepare, .launch = NULL, .result = sp_spmv_cpu_result,
        .release = sp_spmv_cpu_release};
    sp_kernel k = interrupter;
    k.launch = sp_spmv_csr_serial.launch;
    const sp_kernel *const kernels[] = {&k, NULL};
    char dir[256], db[300];
    tu_tempdir(dir, sizeof dir);
    sp_sweep_result res;
    sp_err err;
    char body[512];
    snprintf(body, sizeof body, "isolate = %s\n"
             "[matrices]\nsource = gen:laplace2d?n=10\nsource = gen:laplace2d?n=12\n"
             "[kernel spmv_csr_serial]\n[kernel test_interrupt]\n"
             "[kernel spmv_csr_omp]\nthreads = 1\n", isolate);
    int rc = sweep(dir, body, kernels, &res, &err, db, sizeof db);
    cr_assert_eq(rc, -1);
    cr_assert(strstr(err.msg, "interrupted after 2 runs"), "%s", err.msg);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs WHERE status = 'ok'", 0), 2,
                 "serial and the interrupting kernel itself are stored");
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM samples", 0), 8);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM sweeps WHERE status = 'interrupted'", 0), 1);
    sqlite3_close(h);
}

Test(isolation, sigint_finishes_the_combination_in_flight, .timeout = 60)
{
    sigint_case("combination");
}

Test(isolation, sigint_finishes_the_combination_in_flight_in_a_worker, .timeout = 60)
{
    sigint_case("matrix");
}

/* The status and error of the run of kernel k, "" when it is not stored. */
static void expect_error(sqlite3 *h, const char *k, const char *want)
{
    char e[1024] = "";
    error_of(h, k, e, sizeof e);
    cr_assert(strstr(e, want), "%s: '%s' lacks '%s'", k, e, want);
}

/* A worker per matrix: bad combinations in the middle of a matrix's list,
 * each replaced by a fresh worker, the good ones before and after stored
 * with their samples, a new operation (transpose) in a worker forked after
 * its reference exists. */
Test(isolation, worker_replaced_after_each_bad_combination, .timeout = 60)
{
    char dir[256], db[300];
    tu_tempdir(dir, sizeof dir);
    sp_sweep_result res;
    sp_err err;
    double t0 = sp_seconds();
    int rc = sweep(dir, "isolate = matrix\n[matrices]\nsource = gen:laplace2d?n=20\n"
                        "[kernel spmv_csr_serial]\n[kernel test_segv]\n"
                        "[kernel spmv_csr_omp]\nthreads = 1,2\n"
                        "[kernel test_hang]\n[kernel test_stubborn]\n"
                        "[kernel spmv_csr_omp_simd]\nthreads = 1\n"
                        "[kernel test_greedy]\n[kernel test_impossible]\n"
                        "[kernel test_greedy_gpu]\n"
                        "[kernel spmv_ell_serial]\n[kernel test_wrong]\n"
                        "[kernel spmv_hll_serial]\n[kernel transpose_serial]\n"
                        "[kernel spmv_csr_omp_nnz]\nthreads = 2\n"
                        "[kernel test_abort]\n[kernel test_exit]\n"
                        "[kernel spmv_hll_aligned_serial]\n",
                   extra, &res, &err, db, sizeof db);
    double took = sp_seconds() - t0;
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(res.ok, 9);
    cr_assert_eq(res.crashed, 3);
    cr_assert_eq(res.timeouts, 2);
    cr_assert_eq(res.failed, 1);
    cr_assert_eq(res.skipped, 3);
    /* 1: serial, segv | 2: omp x2, hang | 3: stubborn | 4: simd, (with a GPU:
     * greedy_gpu, skipped in the worker), ell, wrong | 5: hll, then
     * transpose's reference appears | 6: transpose, nnz, abort | 7: exit |
     * 8: hll_aligned. The host-memory and impossible ones never reach a
     * worker. */
    cr_assert_eq(res.workers, 8);
    cr_assert(took >= 2.9 && took < 20, "took %.2f s", took);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    expect_error(h, "test_segv", "crashed: killed by SIGSEGV (Segmentation fault) during warm-up");
    expect_error(h, "test_hang", "timeout: no result after 1 s (timeout) during warm-up; killed");
    expect_error(h, "test_stubborn", "timeout: ");
    expect_error(h, "test_greedy", "skipped: needs 1048576.00 GiB of host memory, ");
    expect_error(h, "test_impossible", "skipped: padding would overflow");
    sp_gpu_info g;
    char why[256];
    expect_error(h, "test_greedy_gpu", sp_gpu_probe(&g, why, sizeof why)
                                           ? "skipped: needs 1048576.00 GiB of device memory, "
                                           : why);
    expect_error(h, "test_wrong", "failed: relative error ");
    expect_error(h, "test_abort", "stderr: CUDA error: an illegal memory access");
    expect_error(h, "test_abort", "crashed: killed by SIGABRT");
    expect_error(h, "test_exit", "crashed: exited with status 7 during warm-up");
    /* Every good run, before and after each bad one, with its 4 samples. */
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs r WHERE r.status = 'ok' AND"
                           " r.rel_error <= 1e-12 AND r.repetitions = 4 AND"
                           " (SELECT count(*) FROM samples s WHERE s.run_id = r.id) = 4", 0), 9);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM runs WHERE status = 'ok' AND kernel IN"
                           " ('spmv_csr_serial', 'spmv_csr_omp', 'spmv_csr_omp_simd',"
                           " 'spmv_ell_serial', 'spmv_hll_serial', 'transpose_serial',"
                           " 'spmv_csr_omp_nnz', 'spmv_hll_aligned_serial')", 0), 9);
    cr_assert_eq(ud_int(h, "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id"
                           " WHERE r.status <> 'ok'", 0), 0);
    char mode[32];
    ud_text(h, "SELECT isolate FROM sweeps", 0, mode, sizeof mode);
    cr_assert_str_eq(mode, "matrix");
    sqlite3_close(h);
}

/* Where the pid kernels were prepared: one line per combination. */
static char pid_log[300];

static int pid_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    FILE *f = fopen(pid_log, "a");
    if (f) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    return sp_spmv_cpu_prepare(pb, p, state, err);
}

/* The pids the pid kernels ran in, in order; how many. */
static int pids_seen(int *pid, int max)
{
    FILE *f = fopen(pid_log, "r");
    int n = 0;
    while (f && n < max && fscanf(f, "%d", &pid[n]) == 1)
        n++;
    if (f)
        fclose(f);
    remove(pid_log);
    return n;
}

/* Which process ran what: with `isolate = matrix` one worker per matrix
 * runs all its combinations; with combination (and auto, for CPU
 * kernels) each runs in a process of its own. The sweep records the mode,
 * and another mode is another sweep (the plan hash holds it). */
Test(isolation, a_worker_per_matrix_runs_its_combinations_in_turn, .timeout = 60)
{
    sp_kernel a = sp_spmv_csr_serial, b = sp_spmv_csr_serial, c = sp_spmv_csr_serial;
    a.name = "test_pid_a", b.name = "test_pid_b", c.name = "test_pid_c";
    a.prepare = b.prepare = c.prepare = pid_prepare;
    const sp_kernel *const kernels[] = {&a, &b, &c, NULL};
    char dir[256], db[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(pid_log, sizeof pid_log, dir, "pids");
    static const char *const modes[] = {"matrix", "combination", "auto"};
    for (int m = 0; m < 3; m++) {
        char body[512];
        snprintf(body, sizeof body, "isolate = %s\n[matrices]\nsource = gen:laplace2d?n=10\n"
                 "source = gen:banded?n=50&bw=2\n[kernel test_pid_a]\n[kernel test_pid_b]\n"
                 "[kernel test_pid_c]\n", modes[m]);
        sp_sweep_result res;
        sp_err err;
        cr_assert_eq(sweep(dir, body, kernels, &res, &err, db, sizeof db), 0, "%s", err.msg);
        cr_assert_eq(res.ok, 6, "%s", modes[m]);
        int pid[8], n = pids_seen(pid, 8);
        cr_assert_eq(n, 6);
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            cr_assert_neq(pid[i], (int)getpid(), "never in the sweep's own process");
            int seen = 0;
            for (int j = 0; j < i; j++)
                seen |= pid[j] == pid[i];
            distinct += !seen;
        }
        if (m == 0) {
            cr_assert_eq(res.workers, 2);
            cr_assert(pid[0] == pid[1] && pid[1] == pid[2] && pid[3] == pid[4] &&
                      pid[4] == pid[5] && pid[0] != pid[3], "one worker per matrix");
        } else {
            cr_assert_eq(res.workers, 0);
            cr_assert_eq(distinct, 6, "%s: a process per combination", modes[m]);
        }
    }
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    char got[128];
    ud_text(h, "SELECT group_concat(isolate, ',') FROM (SELECT isolate FROM sweeps ORDER BY id)",
            0, got, sizeof got);
    cr_assert_str_eq(got, "matrix,combination,auto");
    cr_assert_eq(ud_int(h, "SELECT count(DISTINCT plan_hash) FROM sweeps", 0), 3);
    sqlite3_close(h);
}

Test(isolation, isolate_key_is_checked)
{
    sp_config cfg;
    sp_err err;
    cr_assert_eq(sp_config_parse("x.ini", "[sweep]\nisolate = sometimes\n[matrices]\n"
                                 "source = gen:laplace2d?n=4\n[kernel spmv_csr_serial]\n",
                                 NULL, &cfg, &err), -1);
    cr_assert(strstr(err.msg, "'isolate' must be 'auto', 'matrix' or 'combination', not "
                              "'sometimes'"), "%s", err.msg);
    cr_assert_eq(sp_config_parse("x.ini", "[matrices]\nsource = gen:laplace2d?n=4\n"
                                 "[kernel spmv_csr_serial]\n", NULL, &cfg, &err), 0);
    cr_assert_eq(cfg.isolate, SP_ISOLATE_AUTO, "the default");
    sp_config_free(&cfg);
}
