/*
 * test_rounds.c — `rounds = R`: the plan executed R times, each round in a
 * fresh order that depends only on the seed; every sample stored once with
 * its round, also across a SIGKILL and a resume; the run's interval then
 * covers the spread between rounds.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../runner/plan/select.h"
#include "testutil.h"
#include "util_db.h"

/* A list of 3 matrices x 4 combinations in plan order. */
static void plan_list(sp_worklist *wl)
{
    memset(wl, 0, sizeof *wl);
    wl->n = 12;
    wl->w = malloc(12 * sizeof *wl->w);
    wl->total_cost = 12;
    for (int i = 0; i < 12; i++)
        wl->w[i] = (sp_work){i / 4, i % 4, i, 1.0, 0};
}

static int same_order(const sp_worklist *a, const sp_worklist *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (a->w[i].matrix != b->w[i].matrix || a->w[i].combo != b->w[i].combo ||
            a->w[i].round != b->w[i].round)
            return 0;
    return 1;
}

Test(rounds, every_pair_once_a_round_in_a_seeded_order)
{
    sp_worklist a, b, c, one;
    sp_err err;
    plan_list(&a), plan_list(&b), plan_list(&c), plan_list(&one);
    cr_assert_eq(sp_worklist_rounds(&a, 4, 7, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_worklist_rounds(&b, 4, 7, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_worklist_rounds(&c, 4, 8, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_worklist_rounds(&one, 1, 7, &err), 0, "%s", err.msg);
    cr_assert_eq(a.n, 48);
    cr_assert_float_eq(a.total_cost, 48, 0);
    cr_assert(same_order(&a, &b), "the same seed gives the same order");
    cr_assert_not(same_order(&a, &c), "another seed another order");
    for (int i = 0; i < 12; i++)
        cr_assert(one.w[i].order == i && one.w[i].round == 0, "one round keeps plan order");
    int rounds_differ = 0;
    for (int r = 0; r < 4; r++) {
        int seen[12] = {0};
        const sp_work *w = a.w + 12 * r;
        for (int i = 0; i < 12; i++) {
            cr_assert_eq(w[i].round, r);
            seen[w[i].order]++;
            /* a matrix's pairs stay together: loaded once a round */
            if (i > 0 && w[i].matrix != w[i - 1].matrix)
                for (int j = i + 1; j < 12; j++)
                    cr_assert_neq(w[j].matrix, w[i - 1].matrix, "matrix %d split in round %d",
                                  w[i - 1].matrix, r);
        }
        for (int i = 0; i < 12; i++)
            cr_assert_eq(seen[i], 1, "pair %d %d times in round %d", i, seen[i], r);
        if (r > 0)
            for (int i = 0; i < 12; i++)
                rounds_differ += w[i].order != a.w[i].order;
    }
    cr_assert_gt(rounds_differ, 0, "rounds are shuffled afresh");
    cr_assert_eq(sp_worklist_rounds(&one, 0, 1, &err), -1);
    sp_worklist_free(&a), sp_worklist_free(&b), sp_worklist_free(&c), sp_worklist_free(&one);
}

static const char config[] = "[sweep]\nrepetitions = 6\nwarmup = 1\nrounds = 3\nseed = 5\n"
                             "batch = 1\n"
                             "[matrices]\nsource = gen:laplace2d?n=30\n"
                             "source = gen:banded?n=500&bw=3\n"
                             "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1,2\n";


/* 2 matrices x 3 combinations x 3 rounds, killed twice on the way. */
Test(rounds, every_sample_stored_once_with_its_round_across_a_kill, .timeout = 120)
{
    char dir[256], cfg[300], db[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(cfg, sizeof cfg, dir, "rounds.ini");
    tu_write_file(cfg, config);
    tu_path(db, sizeof db, dir, "r.db");
    cr_assert_eq(tu_sweep_cli("SPSWEEP_TEST_KILL_AFTER=4", cfg, db), 128 + SIGKILL);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_rounds"), 4);
    cr_assert_eq(tu_sweep_cli("SPSWEEP_TEST_KILL_AFTER=9", cfg, db), 128 + SIGKILL);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_rounds"), 13);
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM sweeps"), 1, "resume must not start over");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs"), 6, "one run per combination");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_rounds"), 18, "three rounds each");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM samples"), 6 * 3 * 6);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM (SELECT run_id, round, count(*) AS k FROM"
                           " samples GROUP BY run_id, round) WHERE k <> 6"), 0,
                 "every round holds its 6 samples, once");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_stats WHERE rounds = 3 AND n = 18 AND"
                           " ci_method = 'rounds'"), 6);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE rounds = 3 AND repetitions = 18"), 6);
    cr_assert_eq(ud_file_int(db, "SELECT rounds FROM sweeps"), 3);
    cr_assert_eq(ud_file_int(db, "SELECT seed FROM sweeps"), 5);
    /* nothing left: nothing added */
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM samples"), 6 * 3 * 6);
}

/* Cache and batch swept per kernel: each run stores the setting it was
 * measured with (cold: one launch a sample), its phases and the free
 * phase the harness took, and a resume finds every combination done. */
/* A config of this text in a new folder (cfg and db its files), swept once. */
static void sweep_text(const char *text, char *cfg, char *db, size_t len)
{
    char dir[256];
    tu_tempdir(dir, sizeof dir);
    tu_path(cfg, len, dir, "c.ini");
    tu_write_file(cfg, text);
    tu_path(db, len, dir, "c.db");
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
}

Test(rounds, harness_axes_are_stored_per_run, .timeout = 120)
{
    char cfg[300], db[300];
    sweep_text("[sweep]\nrepetitions = 3\nwarmup = 1\nmin_sample_time = 0.2ms\n"
               "[matrices]\nsource = gen:laplace2d?n=30\n"
               "[kernel spmv_csr_serial]\ncache = warm,cold\nbatch = auto,4\n"
               "[kernel spmv_dia_serial]\n", cfg, db, sizeof cfg);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE status = 'ok'"), 5);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE cache = 'cold' AND batch = 1"
                           " AND json_extract(axes, '$.cache') = 'cold'"), 2,
                 "a cold run is one launch a sample, whatever batch says");
    cr_assert_eq(ud_file_int(db, "SELECT batch FROM runs WHERE axes ="
                           " '{\"cache\":\"warm\",\"batch\":4}'"), 4);
    cr_assert_gt(ud_file_int(db, "SELECT batch FROM runs WHERE axes ="
                           " '{\"cache\":\"warm\",\"batch\":\"auto\"}'"), 1,
                 "a 30x30 Laplacian takes a few us: auto batches it");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE axes = '{}'"
                           " AND cache = 'warm'"), 1, "the sweep's default for the others");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_stats WHERE convert_s > 0"
                           " AND free_s >= 0 AND h2d_s = 0 AND d2h_s = 0"), 5,
                 "CPU runs: a timed prepare and release, no transfers");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_rounds WHERE convert_s IS NULL"), 0);
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs"), 5, "resume adds nothing");
}

/* `blocking` is stored with every run and round: a CPU kernel's samples
 * are never behind the GPU's blocking kernel, so they say 'off' whatever
 * the section asked; the axis keeps the two combinations apart. */
Test(rounds, blocking_is_stored_per_run_and_round, .timeout = 120)
{
    char cfg[300], db[300];
    sweep_text("[sweep]\nrepetitions = 3\nwarmup = 1\nrounds = 2\n"
               "[matrices]\nsource = gen:laplace2d?n=20\n"
               "[kernel spmv_csr_serial]\nblocking = off,on\n", cfg, db, sizeof cfg);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE status = 'ok'"
                             " AND blocking = 'off'"), 2);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_rounds WHERE blocking = 'off'"), 4);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_stats WHERE blocking = 'off'"
                             " AND json_extract(axes, '$.blocking') IN ('off', 'on')"), 2);
}

/* A kernel's facts about what it built reach the database with its run
 * and with each round (librsb: tuned or not, its threads and blocks). */
Test(rounds, kernel_info_is_stored_with_each_round, .timeout = 120)
{
    char cfg[300], db[300];
    sweep_text("[sweep]\nrepetitions = 3\nwarmup = 1\nrounds = 2\n"
               "[matrices]\nsource = gen:laplace2d?n=60\n"
               "[kernel spmv_librsb]\nthreads = 1\ntune = 0,1\n", cfg, db, sizeof cfg);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_stats WHERE"
                           " json_extract(kernel_info, '$.tuned') = json_extract(axes, '$.tune')"
                           " AND json_extract(kernel_info, '$.threads') = 1"
                           " AND json_extract(kernel_info, '$.leaves') >= 1"), 2);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM run_rounds WHERE"
                           " json_valid(kernel_info)"), 4, "every round keeps its own");
}
