/* test_resume.c — exact resume: the spsweep binary killed with SIGKILL at
 * several points (after k committed runs, inside a run's transaction, and
 * at whatever instant a poll of the database lands on), then run again:
 * every combination stored exactly once with all its samples, one sweep —
 * with a process per combination and with a worker per matrix (which dies
 * with the sweep). */
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "util_db.h"

/* 2 matrices x (serial + omp x2 + cuda_scalar) = 8 runs; without a GPU
 * the two cuda runs are stored as skipped. */
static const char config[] =
    "[sweep]\nrepetitions = %d\nwarmup = 1\nisolate = %s\n"
    "[matrices]\nsource = gen:laplace2d?n=30\nsource = gen:banded?n=500&bw=3\n"
    "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1,2\n"
    "[kernel spmv_csr_cuda_scalar]\nblocksize = 32\n";

static void write_config(const char *dir, int reps, const char *isolate, char *cfg, size_t len)
{
    char text[1024];
    snprintf(text, sizeof text, config, reps, isolate);
    tu_path(cfg, len, dir, "resume.ini");
    tu_write_file(cfg, text);
}


/* The database holds the whole plan exactly once, with every sample. */
static void assert_complete(const char *db, int reps)
{
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs"), 8);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM (SELECT DISTINCT matrix_id, kernel, axes"
                           " FROM runs)"), 8, "a combination stored twice");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM sweeps"), 1, "resume must not start over");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM sweeps WHERE status = 'done'"), 1);
    int64_t ok = ud_file_int(db, "SELECT count(*) FROM runs WHERE status = 'ok'");
    cr_assert_geq(ok, 6);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM samples"), ok * reps);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs r WHERE status = 'ok' AND"
                           " repetitions <> (SELECT count(*) FROM samples WHERE run_id = r.id)"),
                 0);
}

static void kill_after_commits(const char *isolate)
{
    char dir[256], cfg[300], db[300];
    tu_tempdir(dir, sizeof dir);
    write_config(dir, 3, isolate, cfg, sizeof cfg);
    tu_path(db, sizeof db, dir, "r.db");
    cr_assert_eq(tu_sweep_cli("SPSWEEP_TEST_KILL_AFTER=1", cfg, db), 128 + SIGKILL);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs"), 1);
    cr_assert_eq(tu_sweep_cli("SPSWEEP_TEST_KILL_AFTER=3", cfg, db), 128 + SIGKILL);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs"), 4, "resumed: 3 more");
    /* Killed with the second run's rows written but not committed. */
    cr_assert_eq(tu_sweep_cli("SPSWEEP_TEST_KILL_IN_COMMIT=2", cfg, db), 128 + SIGKILL);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs"), 5, "the uncommitted run is gone");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM sweeps WHERE status = 'running'"), 1);
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    assert_complete(db, 3);
    /* Once more: nothing left to do, nothing added. */
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    assert_complete(db, 3);
}

Test(resume, sigkill_after_commits_and_inside_a_transaction, .timeout = 120)
{
    kill_after_commits("combination");
}

Test(resume, sigkill_after_commits_and_inside_a_transaction_worker, .timeout = 120)
{
    kill_after_commits("matrix");
}

/* Runs committed so far, reading without creating anything; 0 before the
 * schema exists. */
static int64_t runs_so_far(const char *db)
{
    sqlite3 *h;
    if (access(db, F_OK) || sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return 0;
    sqlite3_busy_timeout(h, 5000);
    sqlite3_stmt *s;
    int64_t n = 0;
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM runs", -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_step(s) == SQLITE_ROW)
            n = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    sqlite3_close(h);
    return n;
}

/* Start the binary in the background; its pid. */
static pid_t start_cli(const char *cfg, const char *db)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", 1);
        dup2(null, 1), dup2(null, 2);
        execl(tu_spsweep_bin(), "spsweep", "sweep", cfg, "--db", db, "--quiet", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void kill_at_polled_instants(const char *isolate)
{
    char dir[256], cfg[300], db[300];
    tu_tempdir(dir, sizeof dir);
    write_config(dir, 400, isolate, cfg, sizeof cfg);
    tu_path(db, sizeof db, dir, "r.db");
    int kills = 0;
    for (int round = 0; round < 8; round++) {
        int64_t before = runs_so_far(db);
        if (before == 8)
            break;
        pid_t pid = start_cli(cfg, db);
        /* wait until one more run is committed, then kill at once */
        int status;
        for (int i = 0; i < 20000; i++) {
            if (waitpid(pid, &status, WNOHANG) == pid)
                goto reaped;
            if (runs_so_far(db) > before)
                break;
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
        /* land somewhere in the next combination: 0, 0.7, 1.4, ... ms later */
        nanosleep(&(struct timespec){0, (round * 700000L) % 3000000L}, NULL);
        kill(pid, SIGKILL);
        kills++;
        waitpid(pid, &status, 0);
    reaped:;
    }
    cr_assert_geq(kills, 1, "no kill landed");
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    assert_complete(db, 400);
}

Test(resume, sigkill_at_polled_instants, .timeout = 120)
{
    kill_at_polled_instants("combination");
}

Test(resume, sigkill_at_polled_instants_worker, .timeout = 120)
{
    kill_at_polled_instants("matrix");
}

/* A sweep's exit status comes from every run it holds, not from what this
 * invocation ran: a sweep whose runs timed out exits 2, and so does the
 * same command run again, which resumes it and finds nothing left to run
 * (it used to exit 0). */
Test(resume, exit_status_is_the_whole_sweeps_resumed_or_not, .timeout = 120)
{
    char dir[256], cfg[300], db[300], args[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(cfg, sizeof cfg, dir, "t.ini");
    tu_path(db, sizeof db, dir, "t.db");
    /* 10^5 repetitions of 9·10^4 nonzeros cannot end within 1 ms: both
     * runs time out */
    tu_write_file(cfg, "[sweep]\nrepetitions = 100000\nwarmup = 0\ntimeout = 0.001\n"
                       "[matrices]\nsource = gen:laplace2d?n=134\n"
                       "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1\n");
    snprintf(args, sizeof args, "sweep %s --db %s --quiet", cfg, db);
    char *out;
    cr_assert_eq(tu_run_spsweep(args, &out), 2, "%s", out);
    cr_assert(strstr(out, "2 timed out"), "%s", out);
    free(out);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE status = 'timeout'"), 2);
    cr_assert_eq(tu_run_spsweep(args, &out), 2, "resumed, nothing left to run:\n%s", out);
    cr_assert(strstr(out, "2 timed out"), "%s", out);
    free(out);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM sweeps"), 1, "one sweep, resumed");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs"), 2);
}
