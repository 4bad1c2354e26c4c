/* test_merge.c — shards of one sweep merged back: the merged database holds
 * exactly what one unsharded sweep holds (same runs, same sample counts,
 * matrices once), merging twice adds nothing, and sweeps of different
 * configs are refused unless forced. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/store.h"
#include "../runner/runner.h"
#include "testutil.h"
#include "util_db.h"

static const char body[] =
    "[matrices]\nsource = gen:laplace2d?n=30\nsource = gen:banded?n=400&bw=2\n"
    "source = gen:uniform?rows=300&cols=300&per_row=6\n"
    "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1,2\n";

/* Sweep (shard i of n; n = 0: all) of `reps` repetitions into dir/name. */
static void shard_sweep(const char *dir, const char *name, int reps, int i, int n, char *db,
                        size_t len)
{
    char text[2048];
    tu_path(db, len, dir, name);
    snprintf(text, sizeof text, "[sweep]\nrepetitions = %d\nwarmup = 0\n%s", reps, body);
    sp_config cfg;
    sp_sweep_result res;
    sp_err err;
    cr_assert_eq(sp_config_parse("m.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
    free(cfg.database);     /* as --db does: the same config text for every shard */
    cfg.database = strdup(db);
    sp_sweep_opts o = {.shard_index = i, .shard_count = n};
    cr_assert_eq(sp_sweep_run(&cfg, &o, &res, &err), 0, "%s", err.msg);
    sp_config_free(&cfg);
}

static int64_t q(const char *db, const char *sql)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    int64_t v = ud_int(h, sql, 0);
    sqlite3_close(h);
    return v;
}

/* The set of (source, kernel, axes, sample count) as one text. */
static void fingerprint(const char *db, char *buf, size_t len)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    ud_text(h, "SELECT group_concat(k, ';') FROM (SELECT m.source || ' ' || r.kernel || ' '"
               " || r.axes || ' ' || r.status || ' ' || (SELECT count(*) FROM samples"
               " WHERE run_id = r.id) AS k FROM runs r JOIN matrices m ON m.id ="
               " r.matrix_id ORDER BY k)", 0, buf, len);
    sqlite3_close(h);
}

Test(merge, three_shards_equal_one_sweep, .timeout = 60)
{
    char dir[256], whole[300], s[3][300], out[300];
    tu_tempdir(dir, sizeof dir);
    shard_sweep(dir, "whole.db", 3, 0, 0, whole, sizeof whole);
    const char *names[] = {"s1.db", "s2.db", "s3.db"};
    for (int i = 0; i < 3; i++)
        shard_sweep(dir, names[i], 3, i + 1, 3, s[i], sizeof s[i]);
    tu_path(out, sizeof out, dir, "out.db");
    const char *in[] = {s[0], s[1], s[2]};
    sp_merge_result res;
    sp_err err;
    cr_assert_eq(sp_store_merge(out, in, 3, 0, &res, &err), 0, "%s", err.msg);
    cr_assert_eq(res.runs, 9);
    cr_assert_eq(res.duplicates, 0);
    cr_assert_eq(res.sweeps, 1);
    cr_assert_eq(res.matrices, 3);
    char a[8192], b[8192];
    fingerprint(whole, a, sizeof a);
    fingerprint(out, b, sizeof b);
    cr_assert_str_eq(a, b);
    cr_assert_eq(q(out, "SELECT count(*) FROM sweeps WHERE status = 'done' AND"
                        " shard_count IS NULL"), 1);
    cr_assert_eq(q(out, "SELECT count(*) FROM matrices"), 3);
    cr_assert_eq(q(out, "SELECT count(*) FROM run_stats"), 9);
    /* each shard loaded only its own matrices, yet every matrix is stored
     * once; merging all again adds nothing */
    cr_assert_eq(sp_store_merge(out, in, 3, 0, &res, &err), 0, "%s", err.msg);
    cr_assert_eq(res.runs, 0);
    cr_assert_eq(res.duplicates, 9);
    cr_assert_eq(q(out, "SELECT count(*) FROM runs"), 9);
    cr_assert_eq(q(out, "SELECT count(*) FROM samples"), 27);
}

Test(merge, different_configs_refused_unless_forced, .timeout = 60)
{
    char dir[256], a[300], b[300], out[300];
    tu_tempdir(dir, sizeof dir);
    shard_sweep(dir, "a.db", 2, 1, 2, a, sizeof a);
    shard_sweep(dir, "b.db", 3, 2, 2, b, sizeof b);     /* other repetitions */
    tu_path(out, sizeof out, dir, "out.db");
    const char *in[] = {a, b};
    sp_merge_result res;
    sp_err err;
    cr_assert_eq(sp_store_merge(out, in, 2, 0, &res, &err), -1);
    cr_assert(strstr(err.msg, "b.db") && strstr(err.msg, "--force"), "%s", err.msg);
    cr_assert_eq(q(out, "SELECT count(*) FROM sweeps"), 1, "a.db went in before b.db");
    cr_assert_eq(sp_store_merge(out, in, 2, 1, &res, &err), 0, "%s", err.msg);
    cr_assert_eq(q(out, "SELECT count(*) FROM sweeps"), 2, "forced: each keeps its sweep");
    char missing[300];
    tu_path(missing, sizeof missing, dir, "missing.db");
    const char *none[] = {missing};
    cr_assert_eq(sp_store_merge(out, none, 1, 0, &res, &err), -1);
    cr_assert(strstr(err.msg, "missing.db: cannot read"), "%s", err.msg);
}
