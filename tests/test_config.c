/* test_config.c — sweep configs: defaults, sections, axes, and errors that
 * name the config line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner/runner.h"
#include "testutil.h"

static void parse_ok(const char *text, sp_config *cfg)
{
    sp_err err = {{0}};
    cr_assert_eq(sp_config_parse("t.ini", text, NULL, cfg, &err), 0, "%s", err.msg);
}

/* The error must start with "t.ini:LINE:" and contain word. */
static void parse_err(const char *text, int line, const char *word)
{
    sp_config cfg;
    sp_err err = {{0}};
    cr_assert_eq(sp_config_parse("t.ini", text, NULL, &cfg, &err), -1, "accepted:\n%s", text);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t.ini:%d:", line);
    cr_assert(!strncmp(err.msg, prefix, strlen(prefix)), "'%s' should start with '%s'",
              err.msg, prefix);
    cr_assert(strstr(err.msg, word), "'%s' lacks '%s'", err.msg, word);
}

#define MIN_OK "[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_csr_serial]\n"

Test(config, defaults)
{
    sp_config cfg;
    parse_ok(MIN_OK, &cfg);
    cr_assert_eq(cfg.repetitions, 10);
    cr_assert_eq(cfg.warmup, 2);
    cr_assert_float_eq(cfg.tolerance, 1e-12, 1e-20);
    cr_assert_str_eq(cfg.database, "results/results.db");
    cr_assert_eq(cfg.nmatrices, 1);
    cr_assert_eq(cfg.nkernels, 1);
    cr_assert_str_eq(cfg.kernels[0].kernel->name, "spmv_csr_serial");
    cr_assert_eq(cfg.kernels[0].line, 3);
    cr_assert_str_eq(cfg.text, MIN_OK);
    sp_config_free(&cfg);
}

Test(config, full)
{
    sp_config cfg;
    parse_ok("; comment\n[sweep]\nrepetitions = 7\nwarmup = 0\ntolerance = 1e-9\n"
             "database = /tmp/x.db\ncache = /tmp/c\ncomplex = refuse\n"
             "[matrices]\nsource = gen:laplace2d?n=10\nsource = gen:banded?n=50&bw=2\n"
             "source =\n  gen:uniform?rows=10&per_row=2\n  file:tests/data/x.mtx\n"
             "[kernel spmv_csr_omp]\nthreads = 1..3\n"
             "[ kernel   spmv_csr_cuda_scalar ]\nblocksize = 32,64\n",
             &cfg);
    cr_assert_eq(cfg.repetitions, 7);
    cr_assert_eq(cfg.warmup, 0);
    cr_assert_str_eq(cfg.database, "/tmp/x.db");
    cr_assert_str_eq(cfg.cache_dir, "/tmp/c");
    cr_assert_eq(cfg.complex, SP_COMPLEX_REFUSE);
    cr_assert_eq(cfg.nmatrices, 4);
    cr_assert_eq(cfg.matrices[2].kind, SP_SRC_GEN);
    cr_assert_eq(cfg.matrices[3].kind, SP_SRC_FILE);
    cr_assert_eq(cfg.nkernels, 2);
    cr_assert_eq(cfg.kernels[0].axes[0].n, 3);
    cr_assert_eq(cfg.kernels[1].axes[0].n, 2);
    cr_assert_eq(cfg.kernels[1].axes[0].v[1], 64);
    sp_config_free(&cfg);
}

Test(config, absent_axes_take_kernel_defaults)
{
    sp_config cfg;
    parse_ok("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_csr_cuda_scalar]\n", &cfg);
    const sp_axis_values *a = &cfg.kernels[0].axes[0];
    cr_assert_gt(a->n, 1, "blocksize default should list several values");
    cr_assert_null(cfg.kernels[0].axis_text[0]);
    sp_config_free(&cfg);
}

Test(config, errors_name_the_line)
{
    parse_err("[sweep]\nrepetitions = 10\nfoo = 1\n" MIN_OK, 3, "unknown key 'foo'");
    parse_err("[sweep]\nrepetitions = ten\n" MIN_OK, 2, "repetitions");
    parse_err("[sweep]\nrepetitions = 0\n" MIN_OK, 2, "repetitions");
    parse_err("[sweep]\nwarmup = -1\n" MIN_OK, 2, "warmup");
    parse_err("[sweep]\ntolerance = -3\n" MIN_OK, 2, "tolerance");
    parse_err("[sweep]\ncomplex = maybe\n" MIN_OK, 2, "complex");
    parse_err(MIN_OK "[kernel no_such_kernel]\n", 4, "unknown kernel 'no_such_kernel'");
    parse_err(MIN_OK "[kernel spmv_csr_omp]\nthreads = 1,x\n", 5, "not an integer");
    parse_err(MIN_OK "[kernel spmv_csr_omp]\nthreads = 0\n", 5, "outside");
    parse_err(MIN_OK "[kernel spmv_csr_omp]\nblocksize = 32\n", 5, "no axis 'blocksize'");
    parse_err(MIN_OK "[kernel spmv_csr_omp]\nthreads = 1\nthreads = 2\n", 6, "twice");
    parse_err(MIN_OK "[kernel spmv_csr_serial]\n", 4, "twice");
    parse_err(MIN_OK "[weird]\n", 4, "unknown section");
    parse_err(MIN_OK "[broken\n", 4, "without ']'");
    parse_err("[matrices]\nmatrix = gen:laplace2d?n=10\n", 2, "unknown key 'matrix'");
    parse_err("[matrices]\nsource = gen:nosuchgen?n=1\n[kernel spmv_csr_serial]\n", 2,
              "nosuchgen");
    parse_err(MIN_OK "this line has no equals sign\n", 4, "syntax");
    parse_err("key = 1\n" MIN_OK, 1, "outside any section");
}

/* n copies of item, then tail, into a malloc'd string. */
static char *repeat(const char *head, const char *item, int n, const char *tail)
{
    size_t len = strlen(head) + (size_t)n * strlen(item) + strlen(tail) + 1;
    char *s = malloc(len), *p = s;
    cr_assert_not_null(s);
    p += sprintf(p, "%s", head);
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s", item);
    sprintf(p, "%s", tail);
    return s;
}

/* Lines longer than libinih's 198 characters (selection expressions,
 * value lists, comments) are read whole up to 16384 characters; past that
 * the error says how long the line is and what the limit is. */
Test(config, long_lines_are_read_whole_and_past_the_limit_refused_with_the_reason)
{
    char *comment = repeat("; ", "a long comment ", 40, "\n");
    char *threads = repeat("threads = ", "1,", 147, "2\n");      /* 305 characters */
    char *desc = repeat("description = ", "x", 5000, "\n");
    char *source = repeat("source = file:/nonexistent/", "deeper/", 45, "m.mtx\n");
    cr_assert_eq(strlen(threads), 306);
    size_t len = strlen(comment) + strlen(threads) + strlen(desc) + strlen(source) + 256;
    char *text = malloc(len);
    snprintf(text, len, "%s[sweep]\n%s[matrices]\n%ssource = gen:laplace2d?n=10\n"
             "[kernel spmv_csr_omp]\n%s", comment, desc, source, threads);
    sp_config cfg;
    parse_ok(text, &cfg);
    cr_assert_eq(cfg.nmatrices, 2);
    cr_assert_eq(cfg.matrices[0].kind, SP_SRC_FILE);
    cr_assert_eq(strlen(cfg.matrices[0].path), strlen(source) - 15, "%s", cfg.matrices[0].path);
    cr_assert_eq(cfg.kernels[0].axes[0].n, 2, "threads = 1,1,...,2 is {1, 2}");
    cr_assert_eq(cfg.kernels[0].axes[0].v[1], 2);
    /* the sources' lines are known after the long lines too */
    cr_assert_eq(sp_config_source_line(&cfg, 0), 5);
    cr_assert_eq(sp_config_source_line(&cfg, 1), 6);
    sp_config_free(&cfg);
    free(text);
    /* past the limit: its length and the limit */
    char *huge = repeat(MIN_OK "[sweep]\ndescription = ", "y", 20000, "\n");
    parse_err(huge, 5, "line is 20014 characters; the limit is 16384");
    free(huge);
    free(comment), free(threads), free(desc), free(source);
}

/* Every source keeps the line it came from (errors about it name it),
 * multi-line lists and comments included. */
Test(config, sources_keep_their_config_lines)
{
    sp_config cfg;
    parse_ok("; comment\n[sweep]\nrepetitions = 3\n\n[matrices]\n"
             "source = gen:laplace2d?n=10   ; inline comment\n"
             "# another comment\n"
             "source =\n  gen:banded?n=50&bw=2\n\n  gen:laplace2d?n=12\n"
             "source : gen:laplace2d?n=14\n"
             "[kernel spmv_csr_serial]\n", &cfg);
    cr_assert_eq(cfg.nmatrices, 4);
    const int want[] = {6, 9, 11, 12};
    for (int m = 0; m < 4; m++)
        cr_assert_eq(sp_config_source_line(&cfg, m), want[m], "source %d (%s): line %d", m,
                     cfg.matrices[m].text, sp_config_source_line(&cfg, m));
    cr_assert_eq(sp_config_source_line(&cfg, 4), 0, "past the config's sources: none");
    sp_config_free(&cfg);
}

Test(config, needs_matrices_and_kernels)
{
    sp_config cfg;
    sp_err err;
    cr_assert_eq(sp_config_parse("t.ini", "[kernel spmv_csr_serial]\n", NULL, &cfg, &err), -1);
    cr_assert(strstr(err.msg, "no matrices"), "%s", err.msg);
    cr_assert_eq(sp_config_parse("t.ini", "[matrices]\nsource = gen:laplace2d?n=3\n", NULL,
                                 &cfg, &err), -1);
    cr_assert(strstr(err.msg, "no kernels"), "%s", err.msg);
}

Test(config, load_from_file_and_missing_file)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "c.ini");
    tu_write_file(path, MIN_OK);
    sp_config cfg;
    sp_err err;
    cr_assert_eq(sp_config_load(path, NULL, &cfg, &err), 0, "%s", err.msg);
    cr_assert_str_eq(cfg.path, path);
    sp_config_free(&cfg);
    tu_path(path, sizeof path, dir, "absent.ini");
    cr_assert_eq(sp_config_load(path, NULL, &cfg, &err), -1);
    cr_assert(strstr(err.msg, "absent.ini"), "%s", err.msg);
}

Test(config, axis_override)
{
    sp_config cfg;
    sp_err err;
    parse_ok("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_csr_omp]\nthreads = 1\n",
             &cfg);
    cr_assert_eq(sp_config_override_axis(&cfg, "threads", "2,4", &err), 0, "%s", err.msg);
    cr_assert_eq(cfg.kernels[0].axes[0].n, 2);
    cr_assert_eq(cfg.kernels[0].axes[0].v[1], 4);
    cr_assert_eq(sp_config_override_axis(&cfg, "blocksize", "32", &err), -1);
    cr_assert(strstr(err.msg, "blocksize"), "%s", err.msg);
    cr_assert_eq(sp_config_override_axis(&cfg, "threads", "zero", &err), -1);
    cr_assert_eq(cfg.kernels[0].axes[0].n, 2, "a rejected override must leave values intact");
    sp_config_free(&cfg);
}

Test(config, shipped_configs_parse)
{
    const char *files[] = {"configs/default.ini", "configs/smoke.ini", "configs/spmv.ini",
                           "configs/gpu.ini"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        sp_config cfg;
        sp_err err;
        cr_assert_eq(sp_config_load(files[i], NULL, &cfg, &err), 0, "%s", err.msg);
        sp_config_free(&cfg);
    }
}

/* A misspelt kernel, [sweep] key or axis gets the nearest name as a
 * suggestion; a word far from every name gets none. */
Test(config, misspellings_get_a_suggestion)
{
    parse_err("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_csr_seral]\n", 3,
              "unknown kernel 'spmv_csr_seral'; did you mean spmv_csr_serial?");
    parse_err("[sweep]\nrepetitons = 3\n" MIN_OK, 2,
              "unknown key 'repetitons' in [sweep]; did you mean repetitions?");
    parse_err("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_csr_omp]\nthread = 2\n", 4,
              "has no axis 'thread'; did you mean threads?");
    parse_err("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_csr_omp]\nmax_fil = 2\n", 4,
              "did you mean max_fill?");
    sp_config cfg;
    sp_err err = {{0}};
    cr_assert_eq(sp_config_parse("t.ini", "[matrices]\nsource = gen:laplace2d?n=10\n"
                                 "[kernel quux]\n", NULL, &cfg, &err), -1);
    cr_assert_null(strstr(err.msg, "did you mean"), "%s", err.msg);
}

/* A kernel's declared valid values (sp_axis.valid) are checked when the
 * config is read, so `spsweep plan` refuses with the line what the kernel
 * would refuse at every combination: whole warps for the warp kernels,
 * powers of two for the transposition's, any block of 1..1024 threads for
 * the thread-per-row one; the same through --axis, and not on a kernel
 * whose axis takes them. */
Test(config, values_a_kernel_does_not_take_are_refused_with_the_line)
{
    parse_err("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_csr_cuda_vector]\n"
              "blocksize = 32,100\n", 4,
              "kernel 'spmv_csr_cuda_vector': blocksize = 100 is not among the values it "
              "takes, 32..1024:+32");
    parse_err("[matrices]\nsource = gen:laplace2d?n=10\n[kernel transpose_cuda_scatter]\n"
              "blocksize = 96\n", 4, "64..1024:*2");
    parse_err("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_hll_cuda_block]\n"
              "hack = 65537\n", 4, "hack = 65537 is not among the values it takes, 1..65536");
    parse_err("[matrices]\nsource = keys:uniform?n=100\n[kernel sort_qsort_study8]\n"
              "window = 1025\n", 4, "window = 1025");
    parse_err("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_bsr_omp]\n"
              "block = 3,17\n", 4, "block = 17 is not among the values it takes, 1..16");
    parse_err("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_hll_avx512]\n"
              "hack = 16\nsigma = 0\n", 5, "sigma");
    sp_config cfg;
    parse_ok("[matrices]\nsource = gen:laplace2d?n=10\n[kernel spmv_csr_cuda_scalar]\n"
             "blocksize = 1,7,100,1024\n[kernel spmv_csr_cuda_vector]\n", &cfg);
    sp_err err = {{0}};
    /* --axis: the scalar kernel takes 100, the vector kernel does not */
    cr_assert_eq(sp_config_override_axis(&cfg, "blocksize", "100", &err), -1);
    cr_assert(strstr(err.msg, "--axis blocksize=100") &&
                  strstr(err.msg, "spmv_csr_cuda_vector"), "%s", err.msg);
    cr_assert_eq(sp_config_override_axis(&cfg, "blocksize", "64,96", &err), 0, "%s", err.msg);
    sp_config_free(&cfg);
}

/* Every kernel's defaults are values it declares valid, and every valid
 * list parses (a descriptor defect would refuse every config naming it). */
Test(config, every_kernels_defaults_are_valid)
{
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        for (int a = 0; a < k->naxes; a++) {
            sp_axis_values v;
            sp_err err = {{0}};
            cr_assert_eq(sp_axis_parse(k->axes[a].name, k->axes[a].defaults, 64, &v, &err), 0,
                         "%s: %s", k->name, err.msg);
            cr_assert_eq(sp_axis_check_valid(k, a, &v, 64, &err), 0, "%s", err.msg);
            sp_axis_values_free(&v);
        }
    }
}
