/* test_sweep.c — a small sweep end to end into SQLite: exact run and
 * sample counts, a deliberately wrong kernel stored as failed (without
 * samples), a kernel whose prepare fails stored as an error, GPU kernels
 * skipped (or run) according to the machine; the commit stored is
 * spsweep's own, whatever the working directory; a file-size limit hit
 * mid-sweep ends it with an error, not a signal, keeping what it stored. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../db/store.h"
#include "../runner/runner.h"
#include "testutil.h"
#include "util_db.h"

/* y = A x, then y[0] off by one: must be caught by the check. */
static int wrong_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    (void)p, (void)err;
    *state = (void *)pb;
    return 0;
}

static int wrong_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)state, (void)ex, (void)err;
    return 0;
}

static int wrong_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const sp_problem *pb = state;
    const sp_csr *A = pb->A;
    double *y = out;
    (void)ex, (void)err;
    for (int32_t i = 0; i < A->rows; i++) {
        double s = 0;
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += A->val[k] * pb->x[A->colidx[k]];
        y[i] = s;
    }
    if (A->rows)
        y[0] += 1.0;
    return 0;
}

static void noop_release(void *state)
{
    (void)state;
}

static int failing_prepare(const sp_problem *pb, const sp_params *p, void **state, sp_err *err)
{
    (void)pb, (void)p;
    *state = NULL;
    return sp_fail(err, "cannot prepare: deliberate");
}

static const sp_kernel wrong_kernel = {
    .name = "test_spmv_wrong", .operation = "spmv", .format = "csr", .backend = "serial",
    .prepare = wrong_prepare, .launch = wrong_launch, .result = wrong_result,
    .release = noop_release,
};
static const sp_kernel failing_kernel = {
    .name = "test_spmv_failing", .operation = "spmv", .format = "csr", .backend = "serial",
    .prepare = failing_prepare, .launch = wrong_launch, .result = wrong_result,
    .release = noop_release,
};
static const sp_kernel *const extra[] = {&wrong_kernel, &failing_kernel, NULL};

static long query_long(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s: no row", sql);
    long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void run_sweep_opts(const char *dbpath, sp_config *cfg, sp_sweep_result *res,
                           const sp_sweep_opts *o)
{
    char text[2048];
    snprintf(text, sizeof text,
             "[sweep]\nrepetitions = 3\nwarmup = 1\ndatabase = %s\n"
             "[matrices]\nsource = gen:laplace2d?n=40\n"
             "source = gen:uniform?rows=333&cols=100&per_row=7&seed=5\n"
             "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1,2\n"
             "[kernel test_spmv_wrong]\n[kernel test_spmv_failing]\n"
             "[kernel spmv_csr_cuda_scalar]\nblocksize = 32,64\n",
             dbpath);
    sp_err err;
    cr_assert_eq(sp_config_parse("sweep.ini", text, extra, cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_sweep_run(cfg, o, res, &err), 0, "%s", err.msg);
}

static void run_sweep(const char *dbpath, sp_config *cfg, sp_sweep_result *res)
{
    run_sweep_opts(dbpath, cfg, res, &(sp_sweep_opts){.log = NULL});
}

Test(sweep, database_holds_exactly_the_plan)
{
    char dir[256], dbpath[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(dbpath, sizeof dbpath, dir, "r.db");
    sp_config cfg;
    sp_sweep_result res;
    run_sweep(dbpath, &cfg, &res);
    sp_gpu_info g;
    char why[256];
    int gpu = sp_gpu_probe(&g, why, sizeof why);
    /* per matrix: serial 1 + omp 2 + wrong 1 + failing 1 + cuda 2 = 7 */
    cr_assert_eq(res.runs, 14);
    cr_assert_eq(res.failed, 2);
    cr_assert_eq(res.errors, 2);
    cr_assert_eq(res.skipped, gpu ? 0 : 4);
    cr_assert_eq(res.ok, gpu ? 10 : 6);

    sqlite3 *db;
    cr_assert_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM sweeps WHERE status = 'done'"), 1);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM matrices"), 2);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM runs"), 14);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM samples"), 3 * res.ok);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM runs WHERE kernel = 'test_spmv_wrong' "
                                "AND status = 'failed' AND error LIKE '%tolerance%'"), 2);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM samples JOIN runs ON runs.id = run_id "
                                "WHERE runs.status <> 'ok'"), 0,
                 "failed runs must store no timings");
    cr_assert_eq(query_long(db, "SELECT count(*) FROM runs WHERE kernel = 'test_spmv_failing'"
                                " AND status = 'error' AND error LIKE '%deliberate%'"), 2);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM runs WHERE kernel = 'spmv_csr_omp' AND "
                                "json_extract(axes, '$.threads') = 2 AND status = 'ok'"), 2);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM run_stats"), res.ok);
    /* a GPU run skipped for want of a device keeps the plain reason and
     * CUDA's raw message: "no NVIDIA GPU or driver found (cudaGetDeviceCount: ...)" */
    if (!gpu)
        cr_assert_eq(query_long(db, "SELECT count(*) FROM runs WHERE status = 'skipped' AND "
                                    "error LIKE '%(%)'"), 4);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM runs WHERE status = 'ok' AND "
                                "rel_error > 1e-12"), 0);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM speedup WHERE kernel = "
                                "'spmv_csr_serial' AND abs(speedup - 1) < 1e-9"), 2);
    /* provenance of the sweep */
    cr_assert_eq(query_long(db, "SELECT length(plan_hash) = 16 AND length(binary_hash) = 16"
                                " AND os IS NOT NULL AND kernel_release LIKE 'Linux %'"
                                " AND cpu_threads >= cpu_cores AND cpu_cores >= cpu_sockets"
                                " AND cpu_sockets >= 1 AND mem_total_gib > 0"
                                " AND host_triad_gbs > 0 AND host_triad_threads = 2"
                                " AND timeout_s = 600 AND repetitions_auto = 0 FROM sweeps"), 1);
    cr_assert_eq(query_long(db, "SELECT (gpu IS NULL) = (device_copy_gbs IS NULL) AND"
                                " (gpu IS NULL) = (gpu_sm_count IS NULL) FROM sweeps"), 1);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM runs WHERE status = 'ok' AND"
                                " (stop_reason <> 'count' OR rate_unit <> 'GFLOPS' OR"
                                " need_host_bytes IS NULL)"), 0);
    sqlite3_close(db);
    sp_config_free(&cfg);
}

Test(sweep, second_sweep_resumes_and_new_starts_over)
{
    char dir[256], dbpath[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(dbpath, sizeof dbpath, dir, "r.db");
    sp_config cfg;
    sp_sweep_result res1, res2, res3;
    run_sweep(dbpath, &cfg, &res1);
    sp_config_free(&cfg);
    run_sweep(dbpath, &cfg, &res2);
    sp_config_free(&cfg);
    cr_assert_eq(res1.sweep_id, res2.sweep_id, "same plan and binary: the same sweep");
    cr_assert_eq(res2.runs, 0, "everything was stored already");
    run_sweep_opts(dbpath, &cfg, &res3, &(sp_sweep_opts){.fresh = 1});
    sp_config_free(&cfg);
    cr_assert_neq(res1.sweep_id, res3.sweep_id);
    cr_assert_eq(res3.runs, 14);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM sweeps"), 2);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM sweeps WHERE status = 'done'"), 2);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM runs"), 28);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM matrices"), 2,
                 "identical matrices are stored once");
    sqlite3_close(db);
}

Test(sweep, unloadable_matrix_is_reported_and_the_rest_runs)
{
    char dir[256], dbpath[300], text[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(dbpath, sizeof dbpath, dir, "r.db");
    snprintf(text, sizeof text,
             "[sweep]\nrepetitions = 2\nwarmup = 0\ndatabase = %s\n"
             "[matrices]\nsource = file:%s/does-not-exist.mtx\n"
             "source = gen:laplace2d?n=8\n[kernel spmv_csr_serial]\n",
             dbpath, dir);
    sp_config cfg;
    sp_sweep_result res;
    sp_err err;
    cr_assert_eq(sp_config_parse("s.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
    tu_stderr_begin(dir);       /* the warning before the sweep: checked, not printed */
    int rc = sp_sweep_run(&cfg, &(sp_sweep_opts){0}, &res, &err);
    char *warned = tu_stderr_end();
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert(strstr(warned, "s.ini:6: file:") && strstr(warned, "does-not-exist.mtx"), "%s",
              warned);
    free(warned);
    cr_assert_eq(res.matrix_errors, 1);
    cr_assert_eq(res.ok, 1);
    sp_config_free(&cfg);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM matrix_failures WHERE status = 'error'"
                                " AND source LIKE 'file:%does-not-exist.mtx'"), 1);
    /* the reason names the config line of the source, as config errors do */
    char reason[1024];
    ud_text(db, "SELECT reason FROM matrix_failures", 0, reason, sizeof reason);
    cr_assert(!strncmp(reason, "s.ini:6: ", 9) && strstr(reason, "does-not-exist.mtx") &&
              strstr(reason, "No such file or directory"), "%s", reason);
    cr_assert_eq(query_long(db, "SELECT count(*) FROM failures WHERE what = 'matrix'"), 1);
    sqlite3_close(db);
}

/* The first line cmd writes on stdout (through the shell), trimmed; "" when
 * it writes nothing. */
static void shell_line(const char *cmd, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    if (!fgets(buf, (int)len, p))
        buf[0] = 0;
    pclose(p);
    buf[strcspn(buf, "\r\n")] = 0;
}

/* sweeps.git_commit is the commit spsweep was built from (baked in at
 * build time, `spsweep --version`), not that of the repository the sweep
 * happens to run in. */
Test(sweep, git_commit_is_spsweeps_own_not_the_working_directorys, .timeout = 60)
{
    char dir[256], bin[PATH_MAX], cmd[PATH_MAX + 1024], other[64], own[64], version[128];
    tu_tempdir(dir, sizeof dir);
    cr_assert_not_null(realpath(tu_spsweep_bin(), bin), "%s", tu_spsweep_bin());
    /* the working directory: a repository of its own, with one commit */
    snprintf(cmd, sizeof cmd, "cd %s && git init -q . && git -c user.name=t "
             "-c user.email=t@example.com -c commit.gpgsign=false commit -q --allow-empty "
             "-m other && git rev-parse --short=12 HEAD", dir);
    shell_line(cmd, other, sizeof other);
    cr_assert_eq(strlen(other), 12, "git init in %s: '%s'", dir, other);
    /* spsweep's source tree (the tests run from it); "unknown" when it is
     * not a git checkout (a tarball) */
    shell_line("git rev-parse --show-toplevel 2>/dev/null | grep -qx \"$(pwd -P)\" && "
               "git rev-parse --short=12 HEAD", own, sizeof own);
    if (!own[0])
        snprintf(own, sizeof own, "unknown");
    char cfg[300];
    tu_path(cfg, sizeof cfg, dir, "s.ini");
    tu_write_file(cfg, "[sweep]\nrepetitions = 1\nwarmup = 0\n[matrices]\n"
                       "source = gen:laplace2d?n=4\n[kernel spmv_csr_serial]\n");
    snprintf(cmd, sizeof cmd, "cd %s && %s sweep s.ini --db s.db --quiet >/dev/null 2>&1",
             dir, bin);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char db_path[300], stored[64];
    tu_path(db_path, sizeof db_path, dir, "s.db");
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ud_text(db, "SELECT git_commit FROM sweeps", 0, stored, sizeof stored);
    int64_t dirty = ud_int(db, "SELECT coalesce(git_dirty, -1) FROM sweeps", 0);
    sqlite3_close(db);
    cr_assert(strncmp(stored, other, 12) != 0, "stored the working directory's commit %s",
              stored);
    /* the line "commit: ..." (the first names the build as git describe does) */
    snprintf(cmd, sizeof cmd, "%s --version | sed -n 's/^commit: //p'", bin);
    shell_line(cmd, version, sizeof version);
    cr_assert(version[0], "--version names no commit");
    const char *baked = version;
    cr_assert(!strncmp(baked, own, strlen(own)), "built from %s, --version says %s", own,
              baked);
    cr_assert_str_eq(stored, baked);
    int says_dirty = strstr(stored, "-dirty") != NULL;
    cr_assert_eq(dirty, !strcmp(own, "unknown") ? -1 : says_dirty, "git_dirty %lld for %s",
                 (long long)dirty, stored);
}

/* Run `spsweep sweep cfg --db db --quiet` in a child whose file-size limit
 * is limit bytes, SIGXFSZ at its default (which kills: spsweep must
 * ignore it itself); output into log. The exit status, 128 + signal when
 * killed. */
static int sweep_with_fsize_limit(const char *cfg, const char *db, rlim_t limit,
                                  const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        struct rlimit rl = {limit, limit};
        signal(SIGXFSZ, SIG_DFL);
        if (fd < 0 || setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(126);
        dup2(fd, 1), dup2(fd, 2);
        execl(tu_spsweep_bin(), "spsweep", "sweep", cfg, "--db", db, "--quiet", (char *)NULL);
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int64_t db_count(const char *path, const char *sql)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    int64_t n = ud_int(db, sql, 0);
    sqlite3_close(db);
    return n;
}

/* A file-size limit (ulimit -f) reached while the sweep writes its
 * database: the write fails (EFBIG) as on a full disk, the sweep ends with
 * that error and exit status 1 — not killed by SIGXFSZ with its row left
 * 'running' — every run stored before stays whole, and the same command
 * without the limit resumes and completes it. */
Test(sweep, file_size_limit_ends_the_sweep_with_an_error_keeping_what_it_stored,
     .timeout = 120)
{
    char dir[256], cfg[300], full[300], db[300], log[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(cfg, sizeof cfg, dir, "f.ini");
    tu_path(full, sizeof full, dir, "full.db");
    tu_path(db, sizeof db, dir, "f.db");
    tu_path(log, sizeof log, dir, "f.log");
    /* 4 matrices x 3 combinations, 1000 samples each: a database of a few
     * hundred KiB, most of it samples, written run by run */
    tu_write_file(cfg, "[sweep]\nrepetitions = 1000\nwarmup = 0\n[matrices]\n"
                       "source = gen:laplace2d?n=6\nsource = gen:laplace2d?n=7\n"
                       "source = gen:laplace2d?n=8\nsource = gen:laplace2d?n=9\n"
                       "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1,2\n");
    /* the size of the whole sweep's database, unlimited */
    cr_assert_eq(sweep_with_fsize_limit(cfg, full, RLIM_INFINITY, log), 0);
    struct stat sb;
    cr_assert_eq(stat(full, &sb), 0);
    cr_assert_gt(sb.st_size, 256 << 10, "a database of %lld bytes is too small for the test",
                 (long long)sb.st_size);
    /* half of it: past the schema and the first runs, short of the end */
    int st = sweep_with_fsize_limit(cfg, db, (rlim_t)sb.st_size / 2, log);
    FILE *f = fopen(log, "r");
    char out[8192] = "";
    cr_assert_not_null(f);
    out[fread(out, 1, sizeof out - 1, f)] = 0;
    fclose(f);
    cr_assert_eq(st, 1, "exit status %d (128 + %d = killed by SIGXFSZ); output:\n%s", st,
                 SIGXFSZ, out);
    cr_assert(strstr(out, "file-size limit") || strstr(out, strerror(EFBIG)),
              "the error should say why:\n%s", out);
    cr_assert(strstr(out, "stopped, marked failed"), "%s", out);
    cr_assert_eq(db_count(db, "SELECT count(*) FROM sweeps WHERE status = 'failed'"), 1,
                 "the sweep must be marked failed, not left running:\n%s", out);
    int64_t runs = db_count(db, "SELECT count(*) FROM runs");
    cr_assert(runs >= 1 && runs < 12, "%lld runs stored before the limit", (long long)runs);
    cr_assert_eq(db_count(db, "SELECT count(*) FROM runs r WHERE status <> 'ok' OR"
                              " repetitions <> (SELECT count(*) FROM samples WHERE run_id = r.id)"),
                 0, "a run stored in part");
    sqlite3 *h;
    char check[256];
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    ud_text(h, "PRAGMA integrity_check", 0, check, sizeof check);
    sqlite3_close(h);
    cr_assert_str_eq(check, "ok");
    /* no limit: the same command resumes the sweep and completes it */
    cr_assert_eq(sweep_with_fsize_limit(cfg, db, RLIM_INFINITY, log), 0);
    cr_assert_eq(db_count(db, "SELECT count(*) FROM sweeps"), 1);
    cr_assert_eq(db_count(db, "SELECT count(*) FROM sweeps WHERE status = 'done'"), 1);
    cr_assert_eq(db_count(db, "SELECT count(*) FROM runs"), 12);
    cr_assert_eq(db_count(db, "SELECT count(*) FROM samples"), 12 * 1000);
}
