/* test_studies.c — the configs that reproduce the seed studies
 * (configs/studies/, docs/studies.md). Each one loads and plans; holds the
 * kernels that stand for its study's variants (a kernel renamed or dropped
 * from the registry or the config fails here, naming the study); keeps the
 * study's axis values, and every combination of its plan is accepted by its
 * kernel's prepare (host only, so GPU axes are checked without a GPU); a
 * sweep of it without network records the SuiteSparse matrices it cannot
 * fetch as skipped, with the cause, and runs the rest; and every SQL
 * example of docs/studies.md runs against a real sweep's database. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <netinet/in.h>
#include <omp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../fetch/matrix.h"
#include "../runner/plan/charts.h"
#include "../runner/runner.h"
#include "testutil.h"
#include "util_db.h"
#include "util_archive.h"
#include "util_sort.h"

#define STUDIES "configs/studies"

/* One study config: its file, where its matrices come from, and every
 * kernel it must hold (exactly these: a kernel added to the config is
 * added here too, with the study variant it stands for in the header). */
typedef struct study {
    const char *file;
    const char *baseline;       /* the serial kernel its speedups divide */
    const char *database;
    int nsources;
    sp_source_kind kind;        /* of every source, but the last nkeys */
    int nkeys;                  /* key arrays (keys:) after the other sources */
    const char *kernels[28];    /* NULL-terminated */
} study;

static const study STUDY_LIST[] = {
    {"000-transpose-primitives.ini", "transpose_serial", "results/study-000.db", 3, SP_SRC_GEN,
     2,
     {"transpose_serial", "transpose_cuda_scantrans", "transpose_cuda_mergetrans",
      "transpose_cusparse", "transpose_cub_carry", "transpose_cuda_radix", "scan_cuda",
      "segsort_cuda", "merge_cuda", "hist_idx2ptr_cuda_loop", "hist_idx2ptr_cuda_transpose",
      "hist_idx2ptr_cuda_owners", "histogram_cuda", "idx2ptr_cuda", "ptr2idx_cuda", "scan_serial", "histogram_serial",
      "idx2ptr_serial", "ptr2idx_serial", "segsort_serial", "merge_serial",
      "hist_idx2ptr_serial", NULL}},
    {"001-scantrans.ini", "transpose_serial", "results/study-001.db", 24, SP_SRC_SUITESPARSE, 0,
     {"transpose_serial", "transpose_cuda_scantrans", "transpose_cusparse",
      "transpose_scantrans", "transpose_mergetrans", "transpose_cuda_mergetrans",
      "transpose_cub_sort", "transpose_cub_carry", "transpose_cuda_radix",
      "transpose_cuda_symperm", "transpose_cuda_wintrans", "transpose_cuda_scatter", NULL}},
    {"002-spmv-csr-hll.ini", "spmv_csr_serial", "results/study-002.db", 30, SP_SRC_SUITESPARSE, 0,
     {"spmv_csr_serial", "spmv_csr_omp_blocks", "spmv_csr_omp", "spmv_csr_omp_simd",
      "spmv_csr_omp_simd_auto", "spmv_csr_omp_nnz", "spmv_hll_omp_static",
      "spmv_hll_omp_dynamic", "spmv_hll_omp_nnz", "spmv_hll_aligned_omp_static",
      "spmv_hll_aligned_omp_dynamic", "spmv_hll_aligned_omp", "spmv_csr_cuda_scalar",
      "spmv_csr_cuda_vector", "spmv_csr_cuda_block", "spmv_hll_cuda_hack",
      "spmv_hll_cuda_staged", "spmv_hll_cuda_warp", "spmv_hll_cuda_block",
      "spmv_hll_cuda_aligned", "spmv_csr_cusparse", "spmv_csr_cuda_merge",
      "spmv_csr_cuda_hybrid", "spmv_sell_cuda", NULL}},
    {"004-quicksort.ini", "sort_qsort", "results/study-004.db", 2, SP_SRC_KEYS, 0,
     {"sort_qsort", "sort_qsort_study1", "sort_qsort_study2", "sort_qsort_study3",
      "sort_qsort_study3_r1", "sort_qsort_study3_r2", "sort_qsort_study4", "sort_qsort_study4_r1",
      "sort_qsort_study4_r2", "sort_qsort_study5", "sort_qsort_study5_r1", "sort_qsort_study6",
      "sort_qsort_study7", "sort_qsort_study8", "sort_qsort_study9", "sort_qsort_cuda_block",
      "sort_qsort_cuda_queue", "sort_cub_radix", "sort_radix_omp", NULL}},
};
#define NSTUDIES (int)(sizeof STUDY_LIST / sizeof STUDY_LIST[0])

static void study_path(char *buf, size_t len, const study *s)
{
    snprintf(buf, len, "%s/%s", STUDIES, s->file);
}

static void load(const study *s, sp_config *cfg)
{
    char path[256];
    sp_err err;
    study_path(path, sizeof path, s);
    cr_assert_eq(sp_config_load(path, NULL, cfg, &err), 0, "%s", err.msg);
}

static const sp_kernel_spec *spec_of(const sp_config *cfg, const char *kernel)
{
    for (int i = 0; i < cfg->nkernels; i++)
        if (!strcmp(cfg->kernels[i].kernel->name, kernel))
            return &cfg->kernels[i];
    return NULL;
}

/* The values of axis `axis` of kernel's section. */
static const sp_axis_values *axis_of(const sp_config *cfg, const char *kernel, const char *axis)
{
    const sp_kernel_spec *ks = spec_of(cfg, kernel);
    cr_assert_not_null(ks, "no [kernel %s]", kernel);
    for (int a = 0; a < ks->kernel->naxes; a++)
        if (!strcmp(ks->kernel->axes[a].name, axis))
            return &ks->axes[a];
    cr_assert_fail("kernel %s has no axis %s", kernel, axis);
    return NULL;
}

static void assert_values(const sp_config *cfg, const char *kernel, const char *axis,
                          const long *want, int n)
{
    const sp_axis_values *v = axis_of(cfg, kernel, axis);
    cr_assert_eq(v->n, n, "%s %s: %d values, want %d", kernel, axis, v->n, n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(v->v[i], want[i], "%s %s[%d] = %ld, want %ld", kernel, axis, i, v->v[i],
                     want[i]);
}

Test(studies, every_config_is_listed_and_every_listed_config_exists)
{
    DIR *d = opendir(STUDIES);
    cr_assert_not_null(d, "no %s (run from the repository root)", STUDIES);
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".ini"))
            continue;
        int listed = 0;
        for (int i = 0; i < NSTUDIES; i++)
            listed |= !strcmp(STUDY_LIST[i].file, e->d_name);
        cr_assert(listed, "%s/%s is not in this test's list of studies", STUDIES, e->d_name);
        found++;
    }
    closedir(d);
    cr_assert_eq(found, NSTUDIES, "%d study configs, %d listed", found, NSTUDIES);
}

/* The header comment names the file and the study, says what it
 * reproduces, what differs and what to expect, and how to run it. */
Test(studies, each_header_names_the_study_and_says_what_it_reproduces_differs_and_expects)
{
    for (int i = 0; i < NSTUDIES; i++) {
        const study *s = &STUDY_LIST[i];
        char path[256], first[256], seed[64];
        study_path(path, sizeof path, s);
        char *text = tu_slurp(path, NULL);
        snprintf(first, sizeof first, "; %s — reproduces study %.3s", s->file, s->file);
        cr_assert(!strncmp(text, first, strlen(first)), "%s should open with '%s'", path, first);
        snprintf(seed, sizeof seed, "shared/seeds/%.3s-", s->file);
        cr_assert(strstr(text, seed), "%s: its header names the seed %s...", path, seed);
        const char *parts[] = {"WHAT IT REPRODUCES", "WHAT DIFFERS", "WHAT TO EXPECT", "RUN",
                               "docs/studies.md"};
        for (size_t p = 0; p < sizeof parts / sizeof *parts; p++)
            cr_assert(strstr(text, parts[p]), "%s: no '%s' in its header", path, parts[p]);
        free(text);
    }
}

Test(studies, each_config_loads_plans_and_holds_its_study_kernels)
{
    for (int i = 0; i < NSTUDIES; i++) {
        const study *s = &STUDY_LIST[i];
        sp_config cfg;
        load(s, &cfg);
        cr_assert_str_eq(cfg.database, s->database, "%s", s->file);
        cr_assert_eq(cfg.nmatrices, s->nsources, "%s: %d sources", s->file, cfg.nmatrices);
        for (int m = 0; m < cfg.nmatrices; m++)
            cr_assert_eq(cfg.matrices[m].kind,
                         m >= cfg.nmatrices - s->nkeys ? SP_SRC_KEYS : s->kind,
                         "%s: source %s", s->file, cfg.matrices[m].text);
        int nwant = 0;
        for (const char *const *k = s->kernels; *k; k++, nwant++) {
            cr_assert_not_null(sp_kernel_find(*k), "%s: kernel %s is not registered", s->file,
                               *k);
            cr_assert_not_null(spec_of(&cfg, *k), "%s: no [kernel %s]", s->file, *k);
        }
        cr_assert_eq(cfg.nkernels, nwant, "%s: %d kernels, this test lists %d", s->file,
                     cfg.nkernels, nwant);
        cr_assert_str_eq(sp_kernel_find(s->baseline)->backend, "serial",
                         "%s: the speedup view divides the serial kernel's time", s->file);
        sp_plan plan;
        sp_err err;
        cr_assert_eq(sp_plan_expand(&cfg, &plan, &err), 0, "%s: %s", s->file, err.msg);
        for (const char *const *k = s->kernels; *k; k++) {
            int n = 0;
            for (int c = 0; c < plan.ncombos; c++)
                n += !strcmp(plan.combos[c].kernel->name, *k);
            cr_assert_gt(n, 0, "%s: no combination of %s in the plan", s->file, *k);
        }
        sp_plan_free(&plan);
        sp_config_free(&cfg);
    }
}

/* The study's own axis values, where our axes take them (an axis's values
 * are kept sorted and without repeats). */
Test(studies, the_study_axis_values_are_kept)
{
    static const long bs12[] = {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 768, 1024};
    sp_config cfg;
    load(&STUDY_LIST[2], &cfg);                     /* 002: 12 block sizes, 1..nproc */
    static const long memories[] = {SP_MEMORY_DEVICE, SP_MEMORY_MANAGED};
    const char *cuda[] = {"spmv_csr_cuda_scalar", "spmv_csr_cuda_vector", "spmv_csr_cuda_block",
                          "spmv_hll_cuda_hack",   "spmv_hll_cuda_staged", "spmv_hll_cuda_warp",
                          "spmv_hll_cuda_block",  "spmv_hll_cuda_aligned"};
    for (int i = 0; i < 8; i++) {   /* the study's block sizes, its unified memory beside ours */
        assert_values(&cfg, cuda[i], "blocksize", bs12, 12);
        assert_values(&cfg, cuda[i], SP_AXIS_MEMORY, memories, 2);
    }
    long nproc = omp_get_num_procs(), *seq = malloc((size_t)nproc * sizeof *seq);
    for (long t = 0; t < nproc; t++)
        seq[t] = t + 1;
    for (int i = 0; i < cfg.nkernels; i++)
        if (!strcmp(cfg.kernels[i].kernel->backend, "openmp"))
            assert_values(&cfg, cfg.kernels[i].kernel->name, "threads", seq, (int)nproc);
    free(seq);
    cr_assert_eq(cfg.repetitions, 10, "the study's 10 runs");
    cr_assert_eq(cfg.batch, 1, "each run timed alone");
    sp_config_free(&cfg);

    load(&STUDY_LIST[1], &cfg);                     /* 001: three timing modes */
    cr_assert_eq(cfg.batch, 1);
    cr_assert_eq(cfg.rounds, 3, "the phases once a round: three values for modes 1 and 2");
    for (int i = 0; i < cfg.nkernels; i++) {
        const sp_kernel_spec *ks = &cfg.kernels[i];
        if (!ks->kernel->needs_gpu)
            continue;
        cr_assert_eq(ks->cache.n, 2, "%s: cache = warm,cold", ks->kernel->name);
    }
    static const long bs_trans[] = {64, 128, 256, 512, 1024};
    assert_values(&cfg, "transpose_cuda_scantrans", "blocksize", bs_trans, 5);
    /* the study's thread count (the occupancy API) beside ours, and its
     * four steps timed */
    static const long scan_threads[] = {SP_SCAN_THREADS_AUTO, SP_SCAN_THREADS_CHUNKS};
    assert_values(&cfg, "transpose_cuda_scantrans", SP_AXIS_SCAN_THREADS, scan_threads, 2);
    cr_assert_eq(cfg.steps, 1, "ScanTrans's steps as sub-phases");
    sp_config_free(&cfg);

    load(&STUDY_LIST[0], &cfg);                     /* 000: the primitives' figures */
    /* every primitive over 1..1024, the study's block sizes among them
     * (Figures 7, 9, 11, 13: 1, 16, 32, 64, 128, 256, 512, 1024) */
    static const long bs_prim[] = {1, 16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
    const char *prims[] = {"scan_cuda",      "segsort_cuda", "merge_cuda",
                           "histogram_cuda", "idx2ptr_cuda", "ptr2idx_cuda",
                           "hist_idx2ptr_cuda_loop", "hist_idx2ptr_cuda_transpose",
                           "hist_idx2ptr_cuda_owners"};
    for (int i = 0; i < 9; i++)
        assert_values(&cfg, prims[i], "blocksize", bs_prim, 12);
    static const long seg[] = {128, 256, 512, 1024, 2048}, runs[] = {256, 1024},
                      dist[] = {32, 128, 512, 2048}, parts[] = {4096, 16384, 65536};
    assert_values(&cfg, "segsort_cuda", "segment", seg, 5);    /* the study's 128 best */
    assert_values(&cfg, "merge_cuda", "segment", runs, 2);     /* its 256 best */
    assert_values(&cfg, "merge_cuda", "sp_dist", dist, 4);     /* its SP_DIST = 128 best */
    assert_values(&cfg, "hist_idx2ptr_cuda_loop", "segment", parts, 3);
    assert_values(&cfg, "hist_idx2ptr_cuda_transpose", "segment", parts, 3);
    assert_values(&cfg, "hist_idx2ptr_cuda_owners", "segment", parts, 3);
    cr_assert(strstr(cfg.matrices[0].text, "gen:random?") &&
                  strstr(cfg.matrices[0].text, "rows=500000") &&
                  strstr(cfg.matrices[0].text, "nnz=10000000"),
              "the study's default instance: 500000 x 500000, 10^7 nonzeros");
    cr_assert(strstr(cfg.matrices[1].text, "keys:uniform?n=20000000"), "%s: Figures 7, 9, 13",
              cfg.matrices[1].text);
    cr_assert(strstr(cfg.matrices[2].text, "keys:uniform?n=1000000"), "%s: Figure 11",
              cfg.matrices[2].text);
    /* its charts: each primitive against the block size, the segment and
     * the splitter distance */
    const char *xs[] = {"blocksize", "segment", "sp_dist"};
    for (int i = 0; i < 3; i++) {
        int found = 0;
        for (int c = 0; c < cfg.ncharts; c++)
            found |= !strcmp(cfg.charts[c].x, xs[i]);
        cr_assert(found, "000: a [chart] with x = %s", xs[i]);
    }
    sp_config_free(&cfg);

    load(&STUDY_LIST[3], &cfg);                     /* 004: 2^19, 2^20, seed 20, window */
    static const long win[] = {256, 512, 1024, 2048, 4096, 8192},
                      study_win[] = {32, 64, 128, 256, 512, 1024};
    assert_values(&cfg, "sort_qsort_cuda_block", "window", win, 6);
    assert_values(&cfg, "sort_qsort_study8", "window", study_win, 6);
    assert_values(&cfg, "sort_qsort_study9", "window", study_win, 6);
    /* every one of the study's 14 variants, each in its own section */
    int variants = 0;
    for (int i = 0; i < cfg.nkernels; i++)
        variants += !strncmp(cfg.kernels[i].kernel->name, "sort_qsort_study", 16);
    cr_assert_eq(variants, 14, "%d of the study's 14 variants", variants);
    cr_assert(strstr(cfg.matrices[0].text, "n=524288") && strstr(cfg.matrices[0].text, "seed=20"),
              "%s", cfg.matrices[0].text);
    cr_assert(strstr(cfg.matrices[1].text, "n=1048576") && strstr(cfg.matrices[1].text, "seed=20"),
              "%s", cfg.matrices[1].text);
    sp_config_free(&cfg);
}

/* Every combination of every study plan passes its kernel's prepare (host
 * only: the axes are checked there, GPU kernels' too, without a GPU) on a
 * small workload of its operation. A value the kernel refuses would be an
 * error run in the sweep; the headers name the study's values left out. */
Test(studies, every_combination_is_accepted_by_its_kernel, .timeout = 120)
{
    sp_csr A;
    sp_keys K;
    sp_err err;
    cr_assert_eq(sp_generate("laplace2d?n=12", &A, &err), 0, "%s", err.msg);
    us_keys("keys:uniform?n=5000&seed=20", &K);
    int checked = 0;
    for (int i = 0; i < NSTUDIES; i++) {
        sp_config cfg;
        sp_plan plan;
        load(&STUDY_LIST[i], &cfg);
        cr_assert_eq(sp_plan_expand(&cfg, &plan, &err), 0, "%s", err.msg);
        for (int c = 0; c < plan.ncombos; c++) {
            const sp_kernel *k = plan.combos[c].kernel;
            if (!k->prepare)
                continue;               /* a GPU kernel in a CPU-only build */
            const sp_operation *op = sp_operation_find(k->operation);
            cr_assert_not_null(op, "%s: operation %s", k->name, k->operation);
            const sp_workload *w = sp_operation_accepts(op, SP_WL_MATRIX)
                                       ? SP_MATRIX_WORKLOAD(&A)
                                       : SP_KEYS_WORKLOAD(&K);
            sp_problem pb;
            cr_assert_eq(op->setup(&pb, w, &err), 0, "%s", err.msg);
            void *state = NULL;
            char axes[256];
            sp_params_text(&plan.combos[c].params, axes, sizeof axes);
            cr_assert_eq(k->prepare(&pb, &plan.combos[c].params, &state, &err), 0,
                         "%s: %s %s refused: %s", STUDY_LIST[i].file, k->name, axes, err.msg);
            k->release(state);
            if (op->teardown)
                op->teardown(&pb);
            checked++;
        }
        sp_plan_free(&plan);
        sp_config_free(&cfg);
    }
    cr_assert_gt(checked, 0);
    sp_csr_free(&A);
    sp_keys_free(&K);
}

/* ---- sweeps without network ------------------------------------------------ */

/* A loopback port nothing listens on (bound, then closed). */
static int dead_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    cr_assert_geq(s, 0);
    cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    close(s);
    return ntohs(a.sin_port);
}

/* Study 001 with the collection unreachable (a loopback port nothing
 * listens on, as a machine without network refuses): each of its 24
 * matrices is recorded as skipped, with the fetch's cause, and the sweep
 * ends with exit status 2 (matrices it could not have), not an error. The
 * first refused connection stops the fetch (one line says what to do), so
 * this takes a second, not the 15-40 s of four retries per matrix. */
Test(studies, a_sweep_without_network_records_every_matrix_as_skipped, .timeout = 60)
{
    char dir[256], db[300], cache[300], url[64], args[1200];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "s.db");
    tu_path(cache, sizeof cache, dir, "cache");
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    setenv("SPSWEEP_SUITESPARSE_URL", url, 1);
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    snprintf(args, sizeof args,
             "sweep " STUDIES "/001-scantrans.ini --db %s --cache-dir %s --only "
             "kernel=transpose_serial --repetitions 1 --rounds 1 --quiet",
             db, cache);
    char *out;
    double t0 = omp_get_wtime();
    int rc = tu_run_spsweep(args, &out);
    double took = omp_get_wtime() - t0;
    cr_assert_eq(rc, 2, "matrices it could not fetch: exit 2, got %d:\n%s", rc, out);
    cr_assert(strstr(out, "24 matrices could not be loaded"), "%s", out);
    cr_assert_lt(took, 10.0, "no retries offline: %.1f s\n%s", took, out);
    cr_assert(strstr(out, "cannot reach the SuiteSparse collection") &&
                  strstr(out, "24 matrices not fetched") && strstr(out, "--base-url"),
              "one line says what to do: %s", out);
    free(out);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM matrix_failures WHERE status = 'skipped' "
                               "AND source LIKE 'suitesparse:%' AND reason LIKE "
                               "'%could not be fetched%cannot connect%'", 0),
                 24);
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM matrix_failures WHERE reason LIKE "
                               "'%001-scantrans.ini:%suitesparse:HB/psmigr_2%'", 0),
                 1, "each reason names its config line and matrix");
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM runs", 0), 0);
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM failures WHERE what = 'matrix'", 0), 24);
    sqlite3_close(h);
}

/* Study 002 against a mirror that holds one of its 30 matrices (olm1000,
 * from tests/data, as the collection serves it): that one is fetched and
 * measured, the 29 others are recorded as skipped, not in the collection. */
Test(studies, a_sweep_with_a_partial_mirror_runs_what_it_has_and_skips_the_rest, .timeout = 120)
{
    char dir[256], db[300], cache[300], mirror[300], path[700], url[400], gz[700], args[1200];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "s.db");
    tu_path(cache, sizeof cache, dir, "cache");
    tu_path(mirror, sizeof mirror, dir, "mirror");
    snprintf(path, sizeof path, "%s/MM/Bai", mirror);
    sp_err err;
    cr_assert_eq(sp_mkdir_p(path, &err), 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/MM/Bai/olm1000.tar.gz", mirror);
    snprintf(gz, sizeof gz, "%s/ss/olm1000.mtx.gz", tu_datadir());
    ua_suitesparse(path, "olm1000", gz);
    snprintf(url, sizeof url, "file://%s", mirror);
    setenv("SPSWEEP_SUITESPARSE_URL", url, 1);
    snprintf(args, sizeof args,
             "sweep " STUDIES "/002-spmv-csr-hll.ini --db %s --cache-dir %s --only "
             "kernel=spmv_csr_serial --repetitions 2 --quiet",
             db, cache);
    char *out;
    int rc = tu_run_spsweep(args, &out);
    cr_assert_eq(rc, 2, "got %d:\n%s", rc, out);
    free(out);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM runs r JOIN matrices m ON m.id = "
                               "r.matrix_id WHERE r.status = 'ok' AND m.source = "
                               "'suitesparse:Bai/olm1000' AND r.kernel = 'spmv_csr_serial'", 0),
                 1, "the mirror's matrix is fetched and measured");
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM matrix_failures WHERE status = 'skipped' "
                               "AND reason LIKE '%could not be fetched%not in the collection%'", 0),
                 29);
    sqlite3_close(h);
}

/* Study 004's generated keys need no network: the config runs as it
 * stands (GPU sorts recorded as skipped without a GPU) and exits 0. */
Test(studies, a_generated_workload_study_runs_offline_as_it_stands, .timeout = 180)
{
    char dir[256], db[300], args[1200];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "s.db");
    snprintf(args, sizeof args,
             "sweep " STUDIES "/004-quicksort.ini --db %s --repetitions 2 --quiet", db);
    char *out;
    int rc = tu_run_spsweep(args, &out);
    cr_assert_eq(rc, 0, "got %d:\n%s", rc, out);
    free(out);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM runs WHERE status = 'ok' AND kernel = "
                               "'sort_qsort'", 0),
                 2, "the serial baseline on 2^19 and 2^20 keys");
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM runs WHERE status NOT IN ('ok', "
                               "'skipped')", 0),
                 0);
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM matrix_failures", 0), 0);
    sqlite3_close(h);
}

/* Study 000's primitives on the standalone array of 10^6 elements, offline
 * and without a GPU: every serial primitive runs and passes its check,
 * every GPU kernel is recorded as skipped, none fails, and the sweep exits
 * 0. */
Test(studies, the_primitives_study_runs_its_serial_part_offline, .timeout = 180)
{
    char dir[256], db[300], args[1200];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "s.db");
    snprintf(args, sizeof args,
             "sweep " STUDIES "/000-transpose-primitives.ini --db %s --only "
             "matrix=keys_uniform_n1000000 --repetitions 2 --rounds 1 --quiet",
             db);
    char *out;
    int rc = tu_run_spsweep(args, &out);
    cr_assert_eq(rc, 0, "got %d:\n%s", rc, out);
    free(out);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM runs WHERE status = 'ok' AND kernel LIKE "
                               "'%\\_serial' ESCAPE '\\'", 0),
                 7, "the 7 serial primitives, each at its default segment");
    cr_assert_eq((int)ud_int(h, "SELECT count(*) FROM runs WHERE status NOT IN ('ok', "
                               "'skipped')", 0),
                 0);
    cr_assert_eq((int)ud_int(h, "SELECT count(DISTINCT operation) FROM run_stats", 0), 7);
    sqlite3_close(h);
}

/* ---- docs/studies.md -------------------------------------------------------- */

/* Every ```sql block of docs/studies.md prepares and runs to its end
 * against a database of a real sweep (CPU kernels of the three operations;
 * the GPU-only queries return no rows here, but must still run). */
Test(studies, every_sql_example_of_the_studies_page_runs, .timeout = 120)
{
    char dir[256], db[300], text[2048];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "r.db");
    snprintf(text, sizeof text,
             "[sweep]\nrepetitions = 6\nwarmup = 1\nbatch = 1\ndatabase = %s\n"
             "[matrices]\nsource = gen:laplace2d?n=40\nsource = keys:uniform?n=2^12&seed=20\n"
             "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1,2\n"
             "[kernel transpose_serial]\n[kernel transpose_scantrans]\nthreads = 1,2\n"
             "[kernel sort_qsort]\nvalues = 0\n",
             db);
    sp_config cfg;
    sp_sweep_result res;
    sp_err err;
    cr_assert_eq(sp_config_parse("studies.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
    tu_stderr_begin(dir);
    int rc = sp_sweep_run(&cfg, &(sp_sweep_opts){0}, &res, &err);
    free(tu_stderr_end());
    cr_assert_eq(rc, 0, "%s", err.msg);
    sp_config_free(&cfg);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    char *page = tu_slurp("docs/studies.md", NULL);
    int blocks = 0;
    for (char *p = strstr(page, "```sql\n"); p; p = strstr(p, "```sql\n")) {
        p += 7;
        char *end = strstr(p, "```");
        cr_assert_not_null(end, "an unterminated ```sql block");
        *end = 0;
        sqlite3_stmt *s;
        cr_assert_eq(sqlite3_prepare_v2(h, p, -1, &s, NULL), SQLITE_OK, "%s\n%s",
                     sqlite3_errmsg(h), p);
        int step;
        while ((step = sqlite3_step(s)) == SQLITE_ROW)
            ;
        cr_assert_eq(step, SQLITE_DONE, "%s\n%s", sqlite3_errmsg(h), p);
        sqlite3_finalize(s);
        blocks++;
        p = end + 3;
    }
    cr_assert_geq(blocks, 5, "docs/studies.md has %d ```sql blocks", blocks);
    free(page);
    sqlite3_close(h);
}
