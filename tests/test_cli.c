/* test_cli.c — the spsweep binary as a user runs it: list, plan, info,
 * sweep (with a bad config and a good one, --isolate), report, and the
 * --sweep / --base-sweep options of export and report; every command's
 * --help and its agreement with the parser and docs/cli.md, unknown
 * options, --version, list's filters and GPU marks, plan's header and
 * estimate. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../db/store.h"
#include "../kernels/cpu_isa.h"
#include "../kernels/kernel.h"
#include "../fetch/matrix.h"
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
        cr_assert_eq(sp_store_matrix(st, sp_matrix_identity(&M), &mx, &err), 0, "%s", err.msg);
        const double s[3] = {1e-3, 2e-3, 3e-3};
        sp_run_record r = {.sweep_id = sw, .matrix_id = mx, .kernel = sp_kernel_identity(&k), .axes_json = "{}",
                           .status = SP_RUN_OK, .flops = 2e6, .bytes = 1e7, .nsamples = 3,
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

/* ---- the command line explains itself (issue 21) ----------------------- */

/* "bin/spsweep ARGS" with stderr discarded: what a command prints on
 * stdout alone; the exit status. */
static int spsweep_stdout(const char *args, char **out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s 2>/dev/null", args);
    return tu_run_spsweep(cmd, out);
}

/* The commands `spsweep --help` lists ("  NAME   summary" under
 * "commands:"), into names; their count. */
static int command_names(char names[][32], int max)
{
    char *out;
    cr_assert_eq(spsweep_stdout("--help", &out), 0, "%s", out);
    const char *p = strstr(out, "\ncommands:\n");
    cr_assert_not_null(p, "%s", out);
    int n = 0;
    for (p += 11; *p == ' ' && p[1] == ' ' && p[2] != ' ' && n < max; p = strchr(p, '\n') + 1) {
        sscanf(p, "%31s", names[n++]);
        while (p[strcspn(p, "\n") + 1] == ' ' && p[strcspn(p, "\n") + 3] == ' ')
            p = strchr(p, '\n') + 1;        /* a summary's wrapped line */
    }
    free(out);
    cr_assert_geq(n, 12, "spsweep --help lists %d commands", n);
    return n;
}

/* Every command answers --help, -h and `help COMMAND` with the same text
 * on stdout, exit 0: usage, options, exit statuses, examples. */
Test(cli, every_command_has_its_own_help, .timeout = 60)
{
    char names[32][32], args[2048];
    int n = command_names(names, 32);
    for (int i = 0; i < n; i++) {
        char *help, *other;
        snprintf(args, sizeof args, "%s --help", names[i]);
        cr_assert_eq(spsweep_stdout(args, &help), 0, "%s: %s", args, help);
        char want[2048];
        snprintf(want, sizeof want, "usage: spsweep %s", names[i]);
        cr_assert(!strncmp(help, want, strlen(want)), "%s:\n%s", args, help);
        cr_assert(strstr(help, "\noptions:\n") && strstr(help, "\nexit status: 0 ") &&
                  strstr(help, "\nexamples:\n  spsweep ") && strstr(help, "-h, --help"),
                  "%s:\n%s", args, help);
        const char *forms[] = {"%s -h", "help %s"};
        for (int f = 0; f < 2; f++) {
            snprintf(args, sizeof args, forms[f], names[i]);
            cr_assert_eq(spsweep_stdout(args, &other), 0, "%s: %s", args, other);
            cr_assert_str_eq(other, help, "%s differs from %s --help", args, names[i]);
            free(other);
        }
        free(help);
    }
}

/* Every option a command's help names is one its parser takes: given
 * before --help, it is accepted (a value "1" where it takes one) and the
 * help follows, exit 0, where an unknown option would exit 2. */
Test(cli, every_option_in_the_help_is_parsed, .timeout = 120)
{
    char names[32][32], args[2048];
    int n = command_names(names, 32), options = 0;
    for (int i = 0; i < n; i++) {
        char *help;
        snprintf(args, sizeof args, "%s --help", names[i]);
        cr_assert_eq(spsweep_stdout(args, &help), 0, "%s", help);
        const char *p = strstr(help, "\noptions:\n");
        cr_assert_not_null(p);
        for (p += 10; *p && *p != '\n'; p = strchr(p, '\n') + 1) {
            if (strncmp(p, "  --", 4))
                continue;                   /* a wrapped line, or -h */
            char opt[64];
            size_t len = strcspn(p + 2, " \n");
            snprintf(opt, sizeof opt, "%.*s", (int)len, p + 2);
            int valued = p[2 + len] == ' ' && p[3 + len] != ' ';
            snprintf(args, sizeof args, "%s %s%s --help", names[i], opt, valued ? " 1" : "");
            char *out;
            int rc = tu_run_spsweep(args, &out);
            cr_assert_eq(rc, 0, "%s: exit %d\n%s", args, rc, out);
            cr_assert(strstr(out, "usage: spsweep "), "%s:\n%s", args, out);
            free(out);
            options++;
        }
        free(help);
    }
    cr_assert_geq(options, 60, "only %d options found in the helps", options);
}

/* An unknown option is one line on stderr naming it and the command's
 * --help, exit 2, for every command; a near miss gets "did you mean". */
Test(cli, unknown_option_is_one_line_and_exit_2, .timeout = 60)
{
    char names[32][32], args[2048], want[4096];
    int n = command_names(names, 32);
    for (int i = 0; i < n; i++) {
        char *out;
        snprintf(args, sizeof args, "%s --no-such-option", names[i]);
        cr_assert_eq(tu_run_spsweep(args, &out), 2, "%s: %s", args, out);
        snprintf(want, sizeof want, "spsweep %s: unknown option '--no-such-option'; see "
                 "`spsweep %s --help`\n", names[i], names[i]);
        cr_assert_str_eq(out, want, "%s", args);
        free(out);
    }
    char *out;
    cr_assert_eq(tu_run_spsweep("sweep configs/smoke.ini --repetiton 3", &out), 2, "%s", out);
    cr_assert(strstr(out, "unknown option '--repetiton' (did you mean --repetitions?)"), "%s",
              out);
    free(out);
    cr_assert_eq(tu_run_spsweep("plan configs/smoke.ini --axis", &out), 2, "%s", out);
    cr_assert_str_eq(out, "spsweep plan: option '--axis' needs a value (NAME=VALUES); see "
                          "`spsweep plan --help`\n");
    free(out);
    cr_assert_eq(tu_run_spsweep("swep configs/smoke.ini", &out), 2, "%s", out);
    cr_assert_str_eq(out, "spsweep: unknown command 'swep' (did you mean sweep?); see "
                          "`spsweep --help`\n");
    free(out);
    cr_assert_eq(tu_run_spsweep("", &out), 2, "%s", out);
    cr_assert(strstr(out, "commands:"), "%s", out);
    free(out);
}

/* --version: the build's name, the commit, the database schema this build
 * writes, and the build's options. */
Test(cli, version_names_the_build_and_the_schema)
{
    char *out, want[64];
    cr_assert_eq(spsweep_stdout("--version", &out), 0, "%s", out);
    cr_assert(!strncmp(out, "spsweep ", 8) && out[8] != '\n', "%s", out);
    snprintf(want, sizeof want, "\ndatabase schema: %d\n", sp_store_schema_version());
    cr_assert(strstr(out, want), "%s", out);
    cr_assert(strstr(out, "\ncommit: "), "%s", out);
    cr_assert(strstr(out, "\nbuild: CUDA yes, ") || strstr(out, "\nbuild: CUDA no, "), "%s",
              out);
    cr_assert(strstr(out, ", librsb ") && strstr(out, ", MKL "), "%s", out);
    free(out);
}

/* docs/cli.md is the commands' help as generated: `make docs` after
 * changing an option table. */
Test(cli, docs_cli_md_matches_the_help)
{
    char *out;
    cr_assert_eq(spsweep_stdout("help --markdown", &out), 0);
    char *doc = tu_slurp("docs/cli.md", NULL);
    cr_assert(!strcmp(doc, out), "docs/cli.md is stale: run `make docs`");
    free(doc);
    free(out);
}

/* The kernel-name column of every line of a `list` output but the header
 * and the closing notes, each checked by want(line). */
static int list_lines(const char *out, int (*want)(const char *line))
{
    int n = 0;
    for (const char *p = strchr(out, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
        if (*p != '#' && *p != ' ') {
            cr_assert(want(p), "unexpected line: %.*s", (int)strcspn(p, "\n"), p);
            n++;
        }
    }
    return n;
}

/* Is s in the line that starts at l? */
static int in_line(const char *l, const char *s)
{
    const char *at = strstr(l, s);
    return at && at < l + strcspn(l, "\n");
}

static int is_spmv_kernel(const char *l) { return !strncmp(l, "spmv_", 5); }
static int has_transpose(const char *l) { return in_line(l, " transpose "); }
static int on_gpu(const char *l) { return in_line(l, " gpu "); }

/* list FILTER...: globs on name, operation, format, backend or device,
 * all of them to match; no match is exit 1 with a suggestion. */
Test(cli, list_filters_by_glob)
{
    char *out;
    cr_assert_eq(spsweep_stdout("list 'spmv_*'", &out), 0, "%s", out);
    cr_assert(!strncmp(out, "kernel ", 7), "%s", out);
    cr_assert_geq(list_lines(out, is_spmv_kernel), 20, "%s", out);
    cr_assert(strstr(out, "\nspmv_csr_serial "), "%s", out);
    free(out);
    cr_assert_eq(spsweep_stdout("list TRANSPOSE", &out), 0, "%s", out);
    cr_assert_geq(list_lines(out, has_transpose), 4, "%s", out);
    free(out);
    cr_assert_eq(spsweep_stdout("list gpu transpose", &out), 0, "%s", out);
    int gpu_transposes = list_lines(out, on_gpu);
    cr_assert_geq(gpu_transposes, 3, "%s", out);
    cr_assert_null(strstr(out, "transpose_serial"), "%s", out);
    cr_assert_null(strstr(out, "spmv_"), "%s", out);
    free(out);
    cr_assert_eq(tu_run_spsweep("list spvm", &out), 1, "%s", out);
    cr_assert(strstr(out, "no kernel matches 'spvm' (did you mean spmv?)"), "%s", out);
    free(out);
}

/* A GPU kernel is marked as unable to run where there is no GPU (or no
 * CUDA in the build), with one line saying why; the probe that decides
 * runs in a child, as list's own does. */
Test(cli, list_marks_gpu_kernels_that_cannot_run_here, .timeout = 60)
{
    char *out, reason[512];
    sp_gpu_info info;
    int gpu = sp_gpu_probe(&info, reason, sizeof reason) == 1;
    const sp_kernel *k = sp_kernel_find("spmv_csr_cusparse");
    cr_assert_not_null(k);
    cr_assert_eq(spsweep_stdout("list spmv_csr_cusparse spmv_csr_serial", &out), 0, "%s", out);
    const char *line = strstr(out, "\nspmv_csr_cusparse ");
    cr_assert_not_null(line, "%s", out);
    const char *mark = !k->prepare ? " not built " : gpu ? " yes " : " no GPU ";
    cr_assert(in_line(line + 1, mark), "want '%s':\n%s", mark, out);
    cr_assert(strstr(strstr(out, "\nspmv_csr_serial "), " yes "), "%s", out);
    if (!k->prepare)
        cr_assert(strstr(out, "\n# not built: "), "%s", out);
    else if (!gpu)
        cr_assert(strstr(out, "\n# no GPU: 1 GPU kernel cannot run here: ") &&
                  strstr(out, reason), "%s", out);
    else
        cr_assert_null(strstr(out, "\n# "), "%s", out);
    free(out);
}

/* A CPU kernel in one instruction set's intrinsics (sp_kernel.isa) is "no
 * ISA" where the CPU lacks the set, here made to by SPSWEEP_CPU_WITHOUT on
 * any CPU, and a closing line names each with its set; every other CPU
 * kernel stays "yes". Without the override, what this CPU has decides. */
Test(cli, list_marks_kernels_whose_instruction_set_this_cpu_lacks, .timeout = 60)
{
    char *out;
    int with_isa = 0;
    for (int i = 0; sp_kernels[i]; i++)
        with_isa += sp_kernels[i]->isa != NULL;
    cr_assert_geq(with_isa, 2, "the AVX-512 kernels declare their instruction set");
    for (int masked = 0; masked < 2; masked++) {
        if (masked)
            setenv("SPSWEEP_CPU_WITHOUT", "avx512f", 1);
        cr_assert_eq(spsweep_stdout("list cpu", &out), 0, "%s", out);
        int lacks = masked || !sp_cpu_has_isa("avx512f"), no_isa = 0;
        for (int i = 0; sp_kernels[i]; i++) {
            const sp_kernel *k = sp_kernels[i];
            if (k->needs_gpu || !k->prepare)
                continue;
            char head[96];
            snprintf(head, sizeof head, "\n%s ", k->name);
            const char *line = strstr(out, head);
            cr_assert_not_null(line, "%s not listed:\n%s", k->name, out);
            const char *mark = k->isa && lacks ? " no ISA " : " yes ";
            cr_assert(in_line(line + 1, mark), "%s: want '%s':\n%s", k->name, mark, out);
            no_isa += k->isa && lacks;
        }
        const char *closing = strstr(out, "\n# no ISA: ");
        if (no_isa) {
            cr_assert_not_null(closing, "%s", out);
            cr_assert(strstr(closing, "spmv_csr_omp_avx512 (AVX-512F)") &&
                      strstr(closing, "spmv_hll_avx512 (AVX-512F)"), "%s", closing);
        } else {
            cr_assert_null(closing, "%s", out);
        }
        free(out);
    }
}

/* The estimated total of a plan's closing line. */
static double plan_estimate(const char *out)
{
    const char *p = strstr(out, "\n# estimated ");
    double s = -1;
    cr_assert(p && sscanf(p, "\n# estimated %lf s", &s) == 1, "%s", out);
    return s;
}

/* plan: a header naming the columns, and an estimate that counts loading
 * and conversion, so a format that stores far more than nnz (DIA on a
 * power-law graph: every diagonal) shows in it when max_fill lets it run
 * (max_fill = none here; see the next test for the default). */
Test(cli, plan_has_a_header_and_counts_conversion, .timeout = 60)
{
    char dir[256], csr[300], dia[300], args[800];
    tu_tempdir(dir, sizeof dir);
    tu_path(csr, sizeof csr, dir, "csr.ini");
    tu_path(dia, sizeof dia, dir, "dia.ini");
    const char *head = "[sweep]\nrepetitions = 5\nmax_fill = none\n[matrices]\n"
                       "source = gen:rmat?scale=12&ef=8\n[kernel spmv_csr_serial]\n";
    char text[512];
    tu_write_file(csr, head);
    snprintf(text, sizeof text, "%s[kernel spmv_dia_serial]\n", head);
    tu_write_file(dia, text);
    char *a, *b;
    snprintf(args, sizeof args, "plan %s", csr);
    cr_assert_eq(spsweep_stdout(args, &a), 0, "%s", a);
    cr_assert(!strncmp(a, "matrix\tkernel\taxes\tstored_entries\tseconds\n", 41), "%s", a);
    cr_assert(strstr(a, "loading matrices ") && strstr(a, "converting to the kernels' "
              "formats 0 s") && strstr(a, "timed repetitions"), "%s", a);
    snprintf(args, sizeof args, "plan %s", dia);
    cr_assert_eq(spsweep_stdout(args, &b), 0, "%s", b);
    cr_assert_null(strstr(b, "converting to the kernels' formats 0 s"), "%s", b);
    double ta = plan_estimate(a), tb = plan_estimate(b);
    /* 4096 rows, ~8000 of R-MAT's 8191 diagonals: ~250 entries stored per
     * nonzero, converted and swept over in every repetition */
    cr_assert_gt(tb, 20 * ta, "CSR alone %g s, with DIA %g s:\n%s", ta, tb, b);
    double stored_csr = 0, stored_dia = 0;
    cr_assert(sscanf(strstr(b, "\tspmv_csr_serial\t-\t") + 19, "%lf", &stored_csr) == 1, "%s", b);
    cr_assert(sscanf(strstr(b, "\tspmv_dia_serial\t-\t") + 19, "%lf", &stored_dia) == 1, "%s", b);
    cr_assert_gt(stored_dia, 100 * stored_csr, "%s", b);
    free(a);
    free(b);
}

/* Seconds the plan estimates for kernel on the matrix whose line starts
 * with source. */
static double plan_seconds(const char *out, const char *source, const char *kernel)
{
    char head[512];
    snprintf(head, sizeof head, "\n%s\t%s\t-\t", source, kernel);
    const char *l = strstr(out, head);
    double stored = -1, s = -1;
    cr_assert(l && sscanf(l + strlen(head), "%lf\t%lf", &stored, &s) == 2, "%s\n%s", head,
              out);
    return s;
}

/* Under the default max_fill (10) the plan counts as refused what the
 * sweep will refuse before converting: DIA on R-MAT and on uniform rows
 * (every diagonal), ELL on R-MAT (its longest row far past 10x the mean):
 * their process only, said in the closing line. A band (fill ~1) and ELL
 * on uniform rows (fill 1) are counted as run. So is DIA on a matrix read
 * from a file, whose structure is unknown before loading and estimated as
 * scattered (above max_fill), here a diagonal one that DIA stores at fill
 * 1: an estimate of unknown structure refuses nothing. */
Test(cli, plan_counts_a_layout_max_fill_will_refuse_as_refused, .timeout = 60)
{
    char dir[256], ini[300], mtx[300], args[800], text[4096];
    tu_tempdir(dir, sizeof dir);
    tu_path(ini, sizeof ini, dir, "fill.ini");
    tu_path(mtx, sizeof mtx, dir, "diag.mtx");
    int n = snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real general\n"
                     "200 200 200\n");
    for (int i = 1; i <= 200; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%d %d 1\n", i, i);
    tu_write_file(mtx, text);
    snprintf(text, sizeof text,
             "[sweep]\nrepetitions = 5\n[matrices]\nsource = gen:rmat?scale=12&ef=8\n"
             "source = gen:banded?n=4096&bw=3\nsource = gen:uniform?rows=4096&per_row=8\n"
             "source = file:%s\n[kernel spmv_dia_serial]\n[kernel spmv_ell_serial]\n", mtx);
    tu_write_file(ini, text);
    char *out, file_src[400];
    snprintf(args, sizeof args, "plan %s", ini);
    cr_assert_eq(spsweep_stdout(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "; 3 runs of DIA or ELL on generated matrices counted as refused"),
              "%s", out);
    double refused = plan_seconds(out, "gen:rmat?scale=12&ef=8", "spmv_dia_serial");
    cr_assert_eq(plan_seconds(out, "gen:rmat?scale=12&ef=8", "spmv_ell_serial"), refused);
    cr_assert_eq(plan_seconds(out, "gen:uniform?rows=4096&per_row=8", "spmv_dia_serial"),
                 refused);
    cr_assert_gt(plan_seconds(out, "gen:banded?n=4096&bw=3", "spmv_dia_serial"), refused);
    cr_assert_gt(plan_seconds(out, "gen:uniform?rows=4096&per_row=8", "spmv_ell_serial"),
                 refused);
    snprintf(file_src, sizeof file_src, "file:%s", mtx);
    cr_assert_gt(plan_seconds(out, file_src, "spmv_dia_serial"), refused, "%s", out);
    cr_assert(strstr(out, "of padded formats on file: or suitesparse: matrices"), "%s", out);
    cr_assert(strstr(out, "\n# 8 of 8 runs (4 matrices x 2 combinations)"), "%s", out);
    free(out);
    /* two rounds: every run twice, out of as many (it said "16 of 8") */
    snprintf(text, sizeof text, "[sweep]\nrounds = 2\n[matrices]\nsource = file:%s\n"
             "[kernel spmv_dia_serial]\n", mtx);
    tu_write_file(ini, text);
    cr_assert_eq(spsweep_stdout(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "\n# 2 of 2 runs (1 matrices x 1 combinations)"), "%s", out);
    free(out);
}

/* `help --man`: a roff page groff reads without a warning (where groff
 * is installed), naming every command; `help --completion`: a bash script
 * bash accepts, offering every command and every command's options. */
Test(cli, man_page_and_completion_come_from_the_tables, .timeout = 60)
{
    char dir[256], names[32][32], cmd[2048], *out;
    tu_tempdir(dir, sizeof dir);
    int n = command_names(names, 32);
    cr_assert_gt(n, 5);
    snprintf(cmd, sizeof cmd, "help --man > %s/spsweep.1", dir);
    cr_assert_eq(spsweep(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/spsweep.1", dir);
    char *man = tu_slurp(cmd, NULL);
    cr_assert(man && strstr(man, ".TH SPSWEEP 1"), "%s", man ? man : "(none)");
    for (int i = 0; i < n; i++) {
        char want[1100];
        snprintf(want, sizeof want, ".SS spsweep %s\n", names[i]);
        cr_expect_not_null(strstr(man, want), "the man page has no section for %s", names[i]);
    }
    free(man);
    if (system("command -v groff >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd, "groff -man -Tutf8 -ww %s/spsweep.1 2>&1 >/dev/null", dir);
        FILE *p = popen(cmd, "r");
        char line[512] = "";
        cr_assert_not_null(p);
        int warned = fgets(line, sizeof line, p) != NULL;
        pclose(p);
        cr_assert(!warned, "groff: %s", line);
    }
    snprintf(cmd, sizeof cmd, "help --completion > %s/spsweep.bash", dir);
    cr_assert_eq(spsweep(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "bash -n %s/spsweep.bash", dir);
    cr_assert_eq(system(cmd), 0, "bash rejects the completion script");
    /* complete `spsweep <TAB>` and `spsweep sweep --rep<TAB>` in a real bash */
    snprintf(cmd, sizeof cmd, "bash -c 'source %s/spsweep.bash; COMP_WORDS=(spsweep \"\"); "
             "COMP_CWORD=1; _spsweep; echo \"${COMPREPLY[*]}\"; COMP_WORDS=(spsweep sweep --rep); "
             "COMP_CWORD=2; _spsweep; echo \"${COMPREPLY[*]}\"; COMP_WORDS=(spsweep sweep "
             "--only kernel=spmv_csr_se); COMP_CWORD=3; _spsweep; echo \"${COMPREPLY[*]}\"'",
             dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char words[4096] = "", opts[512] = "", kern[512] = "";
    cr_assert_not_null(fgets(words, sizeof words, p));
    cr_assert_not_null(fgets(opts, sizeof opts, p));
    cr_assert_not_null(fgets(kern, sizeof kern, p));
    pclose(p);
    for (int i = 0; i < n; i++)
        cr_expect_not_null(strstr(words, names[i]), "%s not offered: %s", names[i], words);
    cr_assert_str_eq(opts, "--repetitions\n");
    cr_assert_str_eq(kern, "kernel=spmv_csr_serial\n");
}

/* `make install PREFIX=DIR` puts the binary, the man page and the
 * completion under DIR, and the installed binary runs. */
Test(cli, make_install_under_a_prefix, .timeout = 120)
{
    char dir[256], cmd[1024];
    tu_tempdir(dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install "
             "PREFIX=%s/p >/dev/null", dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    const char *files[] = {"bin/spsweep", "share/man/man1/spsweep.1",
                           "share/bash-completion/completions/spsweep"};
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "%s/p/%s", dir, files[i]);
        cr_assert_eq(access(cmd, R_OK), 0, "%s not installed", cmd);
    }
    snprintf(cmd, sizeof cmd, "%s/p/bin/spsweep --version >/dev/null", dir);
    cr_assert_eq(system(cmd), 0);
}
