/* test_cli.c — the spsweep binary as a user runs it: list, plan, info,
 * sweep (with a bad config and a good one, --isolate), report, and the
 * --sweep / --base-sweep options of export and report. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../db/store.h"
#include "testutil.h"

/* Run "bin/spsweep ARGS" with stderr merged; returns the exit status and
 * the output in a malloc'd string. */
static int spsweep(const char *args, char **out)
{
    return tu_run_spsweep(args, out);
}

Test(cli, list_shows_every_first_kernel)
{
    char *out;
    cr_assert_eq(spsweep("list", &out), 0, "%s", out);
    const char *names[] = {"spmv_csr_serial", "spmv_csr_omp", "spmv_csr_cuda_scalar",
                           "spmv_csr_cusparse"};
    for (int i = 0; i < 4; i++)
        cr_assert(strstr(out, names[i]), "list lacks %s:\n%s", names[i], out);
    cr_assert(strstr(out, "threads="), "list should show axes:\n%s", out);
    free(out);
}

Test(cli, plan_counts_runs)
{
    char *out;
    cr_assert_eq(spsweep("plan configs/smoke.ini --axis threads=1,2,3", &out), 0, "%s", out);
    /* 2 matrices x (serial + omp x3 + cuda x2 + cusparse) = 14 */
    cr_assert(strstr(out, "# 14 of 14 runs (2 matrices x 7 combinations)"), "%s", out);
    free(out);
}

/* plan takes the sweep's selection: --only and --shard narrow it, the N
 * shards' plans add up to the whole, and nothing is stored. */
Test(cli, plan_takes_the_sweep_selection)
{
    char *out;
    cr_assert_eq(spsweep("plan configs/smoke.ini --axis threads=1,2,3 --db plan-only.db "
                         "--only kernel=spmv_csr_omp", &out), 0, "%s", out);
    cr_assert(strstr(out, "# 6 of 14 runs"), "%s", out);
    cr_assert_null(strstr(out, "spmv_csr_serial"), "%s", out);
    free(out);
    int total = 0;
    for (int i = 1; i <= 3; i++) {
        char args[256];
        snprintf(args, sizeof args, "plan configs/smoke.ini --axis threads=1,2,3 --shard %d/3", i);
        cr_assert_eq(spsweep(args, &out), 0, "%s", out);
        const char *line = strstr(out, "# ");
        int n = 0;
        cr_assert(line && sscanf(line, "# %d of 14 runs", &n) == 1, "%s", out);
        total += n;
        free(out);
    }
    cr_assert_eq(total, 14, "three shards' plans cover the 14 runs once");
    cr_assert_neq(spsweep("plan configs/smoke.ini --shard 4/3", &out), 0, "%s", out);
    cr_assert(strstr(out, "--shard"), "%s", out);
    free(out);
    cr_assert_neq(access("plan-only.db", F_OK), 0, "plan stored something");
}

Test(cli, info_prints_features)
{
    char *out;
    cr_assert_eq(spsweep("info 'gen:laplace2d?n=10'", &out), 0, "%s", out);
    cr_assert(strstr(out, "rows: 100\n"), "%s", out);
    cr_assert(strstr(out, "nnz: 460\n"), "%s", out);
    cr_assert(strstr(out, "size_class: small\n"), "%s", out);
    free(out);
    cr_assert_neq(spsweep("info 'gen:laplace2d?n=-1'", &out), 0);
    cr_assert(strstr(out, "'n'"), "%s", out);
    free(out);
}

Test(cli, bad_config_names_the_line_and_stores_nothing)
{
    char dir[256], cfg[300], db[300], args[800];
    tu_tempdir(dir, sizeof dir);
    tu_path(cfg, sizeof cfg, dir, "bad.ini");
    tu_path(db, sizeof db, dir, "r.db");
    tu_write_file(cfg, "[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_csr_omp]\n"
                       "threads = 1,two\n");
    snprintf(args, sizeof args, "sweep %s --db %s", cfg, db);
    char *out;
    cr_assert_eq(spsweep(args, &out), 1, "%s", out);
    cr_assert(strstr(out, "bad.ini:4:"), "%s", out);
    free(out);
    cr_assert_neq(access(db, F_OK), 0, "a rejected config must not create a database");
}

/* --isolate overrides the config's mode, is recorded, and is checked. */
Test(cli, isolate_option, .timeout = 60)
{
    char dir[256], cfg[300], db[300], args[800];
    tu_tempdir(dir, sizeof dir);
    tu_path(cfg, sizeof cfg, dir, "iso.ini");
    tu_path(db, sizeof db, dir, "r.db");
    tu_write_file(cfg, "[sweep]\nrepetitions = 2\nisolate = combination\n[matrices]\n"
                       "source = gen:laplace2d?n=10\n[kernel spmv_csr_serial]\n");
    char *out;
    snprintf(args, sizeof args, "sweep %s --db %s --isolate sometimes", cfg, db);
    cr_assert_eq(spsweep(args, &out), 1, "%s", out);
    cr_assert(strstr(out, "--isolate: expected 'auto', 'matrix' or 'combination'"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "sweep %s --db %s --isolate matrix", cfg, db);
    cr_assert_eq(spsweep(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "isolate matrix ->"), "%s", out);
    cr_assert(strstr(out, "1 runs in ") && strstr(out, " (1 worker process)"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "export --csv --what sweeps --db %s", db);
    cr_assert_eq(spsweep(args, &out), 0, "%s", out);
    cr_assert(strstr(out, ",matrix"), "%s", out);
    free(out);
}

Test(cli, sweep_then_report, .timeout = 120)
{
    char dir[256], db[300], rep[300], args[800];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "r.db");
    tu_path(rep, sizeof rep, dir, "report");
    snprintf(args, sizeof args, "sweep configs/smoke.ini --db %s --repetitions 2", db);
    char *out;
    cr_assert_eq(spsweep(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "spmv_csr_serial"), "summary missing:\n%s", out);
    free(out);
    snprintf(args, sizeof args, "report --db %s --out %s", db, rep);
    cr_assert_eq(spsweep(args, &out), 0, "%s", out);
    free(out);
    char pdf[400];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", rep);
    FILE *f = fopen(pdf, "rb");
    cr_assert_not_null(f, "no %s", pdf);
    char magic[5] = {0};
    cr_assert_eq(fread(magic, 1, 4, f), 4);
    fclose(f);
    cr_assert_str_eq(magic, "%PDF");
}

/* A database with sweeps 1, 2 and 3, each with one ok run. */
static void three_sweeps(const char *path)
{
    static const sp_kernel k = {.name = "spmv_csr_serial", .operation = "spmv",
                                .format = "csr", .backend = "serial"};
    sp_store *st;
    sp_err err = {{0}};
    cr_assert_eq(sp_store_open(path, &st, &err), 0, "%s", err.msg);
    for (int i = 1; i <= 3; i++) {
        sp_sweep_meta m;
        sp_sweep_meta_init(&m);
        m.config_text = "x";
        int64_t sw, mx;
        cr_assert_eq(sp_store_begin_sweep(st, &m, &sw, &err), 0, "%s", err.msg);
        cr_assert_eq(sw, i);
        sp_matrix M;
        memset(&M, 0, sizeof M);
        snprintf(M.src.text, sizeof M.src.text, "gen:m%d", i);
        snprintf(M.src.name, sizeof M.src.name, "m%d", i);
        M.feat.size_class = "small";
        cr_assert_eq(sp_store_matrix(st, &M, &mx, &err), 0, "%s", err.msg);
        const double s[3] = {1e-3, 2e-3, 3e-3};
        sp_run_record r = {.sweep_id = sw, .matrix_id = mx, .kernel = &k, .axes_json = "{}",
                           .status = "ok", .flops = 2e6, .bytes = 1e7, .nsamples = 3,
                           .samples = s};
        cr_assert_eq(sp_store_run(st, &r, NULL, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_store_end_sweep(st, sw, "done", &err), 0, "%s", err.msg);
    }
    sp_store_close(st);
}

/* The commands that take --sweep (%s: the value), and --base-sweep. */
static const char *const sweep_commands[] = {
    "export --csv --db %1$s --sweep '%3$s'",
    "export --json --db %1$s --sweep '%3$s'",
    "report --db %1$s --out %2$s --sweep '%3$s'",
    "report --db %1$s --out %2$s --base %1$s --base-sweep '%3$s'",
};

/* --sweep 1e3 used to mean 1, abc the latest, 2x 2: anything but a
 * positive integer is refused, naming the option and the value. */
Test(cli, sweep_ids_must_be_positive_integers, .timeout = 60)
{
    char dir[256], db[300], rep[300], args[1200];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "r.db");
    tu_path(rep, sizeof rep, dir, "report");
    three_sweeps(db);
    static const char *const bad[] = {"1e3", "abc", "2x", "0", "-1", "", " 2",
                                      "99999999999999999999"};
    for (size_t c = 0; c < sizeof sweep_commands / sizeof *sweep_commands; c++)
        for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
            snprintf(args, sizeof args, sweep_commands[c], db, rep, bad[b]);
            const char *opt = strstr(sweep_commands[c], "--base-sweep") ? "--base-sweep"
                                                                         : "--sweep";
            char want[128];
            snprintf(want, sizeof want, "%s '%s': expected a positive integer", opt, bad[b]);
            char *out;
            int rc = spsweep(args, &out);
            cr_assert_eq(rc, 1, "%s: exit %d\n%s", args, rc, out);
            cr_assert(strstr(out, want), "%s: want \"%s\" in:\n%s", args, want, out);
            free(out);
        }
    cr_assert_neq(access(rep, F_OK), 0, "a refused report wrote %s", rep);
}

/* --sweep 99 of a database holding sweeps 1-3 used to export nothing and
 * exit 0: an id that is no sweep of the database is refused, naming the
 * option, the value, the file and the sweeps it holds. */
Test(cli, sweep_ids_must_be_sweeps_of_the_database, .timeout = 120)
{
    char dir[256], db[300], rep[300], args[1200];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "r.db");
    tu_path(rep, sizeof rep, dir, "report");
    three_sweeps(db);
    for (size_t c = 0; c < sizeof sweep_commands / sizeof *sweep_commands; c++) {
        snprintf(args, sizeof args, sweep_commands[c], db, rep, "99");
        const char *opt = strstr(sweep_commands[c], "--base-sweep") ? "--base-sweep"
                                                                     : "--sweep";
        char want[600];
        snprintf(want, sizeof want, "%s 99: no such sweep in %s (sweeps 1-3)", opt, db);
        char *out;
        int rc = spsweep(args, &out);
        cr_assert_eq(rc, 1, "%s: exit %d\n%s", args, rc, out);
        cr_assert(strstr(out, want), "%s: want \"%s\" in:\n%s", args, want, out);
        free(out);
    }
    cr_assert_neq(access(rep, F_OK), 0, "a refused report wrote %s", rep);
    /* a sweep that exists is taken */
    char *out;
    snprintf(args, sizeof args, "export --csv --what sweeps --db %s --sweep 2", db);
    cr_assert_eq(spsweep(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "\n2,"), "%s", out);
    cr_assert_null(strstr(out, "\n3,"), "%s", out);
    free(out);
}
