/* test_sort.c — the sort operation (inputs from keys and matrices, the
 * check that catches every kind of wrong output, the work model), the CPU
 * sort kernels on every distribution and awkward size, sorting a matrix's
 * columns as a transposition, axis refusals, the GPU harness's plain-C
 * half, and a sweep of sort kernels stored and reported in Mkeys/s. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/sort/sort_gpu.h"
#include "../kernels/transpose/transpose.h"
#include "spmv_cases.h"
#include "testutil.h"
#include "util_sort.h"

static const sp_operation *sort_op(void)
{
    const sp_operation *op = sp_operation_find("sort");
    cr_assert_not_null(op, "operation sort not registered");
    return op;
}

Test(sort, operation_declares_keys_and_matrices)
{
    const sp_operation *op = sort_op();
    cr_expect_str_eq(op->rate_unit, "Mkeys/s");
    cr_expect(sp_operation_accepts(op, SP_WL_KEYS));
    cr_expect(sp_operation_accepts(op, SP_WL_MATRIX));
    sp_keys K;
    us_keys("keys:uniform?n=1000", &K);
    cr_expect_float_eq(op->flops(SP_KEYS_WORKLOAD(&K)), 1000.0, 0);
    cr_expect_float_eq(op->bytes(SP_KEYS_WORKLOAD(&K), SP_DOUBLE), 8000.0, 0);
    sp_csr A;
    sp_err err;
    cr_assert_eq(sp_generate("laplace2d?n=10", &A, &err), 0, "%s", err.msg);
    cr_expect_float_eq(op->flops(SP_MATRIX_WORKLOAD(&A)), (double)A.nnz, 0);
    /* a matrix's keys are its column indices, in place */
    sp_problem pb;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    cr_expect_eq(pb.nkeys, A.nnz);
    cr_expect_eq((const void *)pb.keys, (const void *)A.colidx);
    cr_assert_eq(op->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0, "%s", err.msg);
    cr_expect_eq(pb.nkeys, 1000);
    cr_expect_eq(pb.keys, K.key);
    cr_expect_eq(pb.key_workload, &K);
    cr_expect_eq(op->setup(&pb, NULL, &err), -1);
    sp_csr_free(&A);
    sp_keys_free(&K);
}

/* Build a correct output of K (stable, with values) into a fresh buffer. */
static void *correct_output(const sp_keys *K, int stable_claim)
{
    void *o = malloc(sp_sort_output_bytes(K->n) + 64);
    sp_sort_out v;
    sp_sort_view(o, K->n, &v);
    us_stable_sort(K->key, K->n, v.key, v.val);
    v.h->n = (uint64_t)K->n, v.h->values = 1, v.h->stable = (uint32_t)stable_claim;
    return o;
}

Test(sort, check_catches_every_wrong_output)
{
    const sp_operation *op = sort_op();
    sp_keys K;
    us_keys("keys:few?n=1000", &K);         /* many equal keys: stability matters */
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0);
    void *ref = malloc(op->output_bytes(&pb));
    cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
    sp_sort_out v;
    void *o = correct_output(&K, 1);
    sp_sort_view(o, K.n, &v);
    cr_expect_eq(op->error(&pb, o, ref), 0.0, "the stable sort itself");
    v.h->values = 0;
    cr_expect_eq(op->error(&pb, o, ref), 0.0, "keys only");
    v.h->values = 1;
    /* a wrong count */
    v.h->n = 999;
    cr_expect(isinf(op->error(&pb, o, ref)), "n");
    v.h->n = 1000;
    /* unsorted: swap two different neighbours */
    int64_t i = 0;
    while (v.key[i] == v.key[i + 1])
        i++;
    uint32_t t = v.key[i];
    v.key[i] = v.key[i + 1], v.key[i + 1] = t;
    t = v.val[i], v.val[i] = v.val[i + 1], v.val[i + 1] = t;
    cr_expect(isinf(op->error(&pb, o, ref)), "unsorted");
    v.h->values = 0;
    cr_expect(isinf(op->error(&pb, o, ref)), "unsorted, keys only");
    free(o);
    /* sorted but another multiset (keys only, so only the hash can tell):
     * the first key of the second run replaced by the first run's key */
    o = correct_output(&K, 1);
    sp_sort_view(o, K.n, &v);
    v.h->values = 0;
    i = 0;
    while (v.key[i] == v.key[i + 1])
        i++;
    v.key[i + 1] = v.key[i];
    cr_expect(isinf(op->error(&pb, o, ref)), "wrong multiset");
    free(o);
    /* values that do not follow their keys: two equal-key values swapped is
     * fine unstable, wrong stable; a value pointing at another key is wrong */
    o = correct_output(&K, 1);
    sp_sort_view(o, K.n, &v);
    i = 0;
    while (v.key[i] != v.key[i + 1])
        i++;
    t = v.val[i], v.val[i] = v.val[i + 1], v.val[i + 1] = t;
    cr_expect(isinf(op->error(&pb, o, ref)), "unstable though claimed stable");
    v.h->stable = 0;
    cr_expect_eq(op->error(&pb, o, ref), 0.0, "unstable, not claimed");
    i = 0;
    while (v.key[i] == v.key[i + 1])
        i++;
    t = v.val[i], v.val[i] = v.val[i + 1], v.val[i + 1] = t;
    cr_expect(isinf(op->error(&pb, o, ref)), "values swapped across keys");
    free(o);
    /* a value twice, another missing, with the keys still matching */
    o = correct_output(&K, 0);
    sp_sort_view(o, K.n, &v);
    i = 0;
    while (v.key[i] != v.key[i + 1])
        i++;
    v.val[i + 1] = v.val[i];
    cr_expect(isinf(op->error(&pb, o, ref)), "a position twice");
    v.val[i + 1] = 1000;
    cr_expect(isinf(op->error(&pb, o, ref)), "a position out of range");
    free(o);
    free(ref);
    sp_keys_free(&K);
}

/* Every CPU sort kernel on every distribution and size, keys and pairs,
 * at a few thread counts: error 0; the stable ones identical to the
 * stable reference. */
Test(sort, cpu_kernels_on_every_distribution, .timeout = 240)
{
    static const long threads[] = {1, 2, 3, 7};
    const char *tname[] = {"threads"};
    int kernels = 0;
    for (int k = 0; sp_kernels[k]; k++) {
        const sp_kernel *kn = sp_kernels[k];
        if (strcmp(kn->operation, "sort") || kn->needs_gpu)
            continue;
        kernels++;
        int threaded = kn->naxes > 1;
        for (int d = 0; d < 6; d++)
            for (int s = 0; s < us_nsizes; s++) {
                char src[128];
                snprintf(src, sizeof src, "keys:%s?n=%lld&seed=%d", us_dists[d],
                         (long long)us_sizes[s], s + 3);
                sp_keys K;
                us_keys(src, &K);
                uint32_t *rk = malloc((size_t)(K.n + 1) * 4), *rv = malloc((size_t)(K.n + 1) * 4);
                us_stable_sort(K.key, K.n, rk, rv);
                for (int values = 0; values < 2; values++)
                    for (int t = 0; t < (threaded ? 4 : 1); t++) {
                        sp_params p = us_params(values, threaded, tname, &threads[t]);
                        void *out;
                        double e = us_run_kernel(kn, &p, SP_KEYS_WORKLOAD(&K), &out);
                        cr_assert_eq(e, 0.0, "%s on %s, values=%d, threads=%ld", kn->name, src,
                                     values, threads[t]);
                        sp_sort_out v;
                        sp_sort_view(out, K.n, &v);
                        cr_assert_eq(v.h->values, (uint32_t)values);
                        cr_assert_eq(memcmp(v.key, rk, (size_t)K.n * 4), 0);
                        if (values && v.h->stable)
                            cr_assert_eq(memcmp(v.val, rv, (size_t)K.n * 4), 0,
                                         "%s on %s: not the stable order", kn->name, src);
                        free(out);
                    }
                free(rk), free(rv);
                sp_keys_free(&K);
            }
    }
    cr_assert_geq(kernels, 2, "sort_qsort and sort_radix_omp at least");
}

/* Sorting a matrix's column indices with positions as values, stably, is
 * a transposition: the rows behind the sorted positions are the CSC's row
 * indices, and the keys its column of each entry. */
static void check_transposition(const sp_csr *A, const char *what)
{
    const sp_kernel *k = sp_kernel_find("sort_radix_omp");
    cr_assert_not_null(k);
    static const long two[] = {2};
    const char *tname[] = {"threads"};
    sp_params p = us_params(1, 1, tname, two);
    void *out;
    cr_assert_eq(us_run_kernel(k, &p, SP_MATRIX_WORKLOAD(A), &out), 0.0, "%s", what);
    sp_sort_out v;
    sp_sort_view(out, A->nnz, &v);
    void *cbuf = malloc(sp_csc_bytes(A) + 8);
    sp_csc C;
    sp_csc_view(cbuf, A, &C);
    sp_transpose_count(A, &C);
    int32_t *row = malloc(((size_t)A->nnz + 1) * 4);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            row[q] = i;
    for (int32_t j = 0; j < A->cols; j++)
        for (int32_t q = C.colptr[j]; q < C.colptr[j + 1]; q++) {
            cr_assert_eq(v.key[q], (uint32_t)j, "%s: entry %d", what, q);
            cr_assert_eq(row[v.val[q]], C.rowidx[q], "%s: entry %d", what, q);
        }
    free(row);
    free(cbuf);
    free(out);
}

Test(sort, matrix_columns_sort_as_a_transposition, .timeout = 120)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        check_transposition(&c.A, c.name);
        spmv_case_free(&c);
    }
    static const char *specs[] = {"rmat?scale=12&ef=8", "uniform?rows=300&cols=5000000&per_row=4"};
    for (int s = 0; s < 2; s++) {
        sp_csr A;
        sp_err err;
        cr_assert_eq(sp_generate(specs[s], &A, &err), 0, "%s", err.msg);
        check_transposition(&A, specs[s]);
        sp_csr_free(&A);
    }
    sp_csr A;
    sp_err err;
    sp_mm_opts o = {.quiet = 1};
    cr_assert_eq(sp_mm_read("tests/data/ss/bcsstk06.mtx.gz", &o, &A, NULL, &err), 0, "%s",
                 err.msg);
    check_transposition(&A, "bcsstk06");
    sp_csr_free(&A);
}

Test(sort, bad_axes_are_refused_by_name)
{
    sp_keys K;
    us_keys("keys:uniform?n=100", &K);
    sp_problem pb;
    sp_err err;
    cr_assert_eq(sort_op()->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0);
    const char *tname[] = {"threads"};
    static const long zero[] = {0};
    sp_params two = us_params(2, 0, NULL, NULL), nothreads = us_params(1, 1, tname, zero);
    for (int k = 0; sp_kernels[k]; k++) {
        const sp_kernel *kn = sp_kernels[k];
        if (strcmp(kn->operation, "sort") || !kn->need || !kn->prepare)
            continue;
        sp_need need;
        void *state = NULL;
        cr_expect_eq(kn->need(&pb, &two, &need, &err), -1, "%s took values=2", kn->name);
        cr_expect(strstr(err.msg, "values = 2") && strstr(err.msg, kn->name), "%s", err.msg);
        if (!kn->needs_gpu) {
            cr_expect_eq(kn->prepare(&pb, &two, &state, &err), -1);
            cr_expect_null(state);
        }
        if (kn->naxes > 1 && !strcmp(kn->axes[1].name, "threads")) {
            cr_expect_eq(kn->need(&pb, &nothreads, &need, &err), -1);
            cr_expect(strstr(err.msg, "threads = 0"), "%s", err.msg);
        }
    }
    sp_keys_free(&K);
}

Test(sort, cpu_need_states_what_prepare_allocates)
{
    sp_keys K;
    us_keys("keys:uniform?n=1000000", &K);
    sp_problem pb;
    sp_err err;
    cr_assert_eq(sort_op()->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0);
    sp_need q0, q1, r1;
    sp_params keys = us_params(0, 0, NULL, NULL), pairs = us_params(1, 0, NULL, NULL);
    cr_assert_eq(sp_kernel_find("sort_qsort")->need(&pb, &keys, &q0, &err), 0);
    cr_assert_eq(sp_kernel_find("sort_qsort")->need(&pb, &pairs, &q1, &err), 0);
    cr_assert_eq(sp_kernel_find("sort_radix_omp")->need(&pb, &pairs, &r1, &err), 0);
    cr_expect_geq(q0.host_bytes, 4000000);
    cr_expect_geq(q1.host_bytes, 16000000);   /* keys, values, pairs */
    cr_expect_geq(r1.host_bytes, 16000000);   /* keys, values, scratch of both */
    cr_expect_eq(q0.device_bytes + q1.device_bytes + r1.device_bytes, 0);
    sp_keys_free(&K);
}

/* A design for the harness's plain-C half: 2 bytes of workspace per key. */
static size_t fake_workspace(int64_t n, int with_vals, const sp_qsort_opts *o)
{
    return (size_t)n * 2 * (with_vals ? 2 : 1) + (size_t)o->cutoff;
}

static int warps_only(const sp_qsort_opts *o, sp_err *err)
{
    if (o->blocksize % 32)
        return sp_fail(err, "blocksize = %d is not a multiple of 32", o->blocksize);
    return 0;
}

Test(sort, gpu_harness_axes_and_need)
{
    sp_qsort_opts o;
    int values;
    sp_err err;
    sp_params none = {0};
    cr_assert_eq(sp_sort_gpu_axes("k", &none, &values, &o, &err), 0, "%s", err.msg);
    cr_expect_eq(values, 1);
    cr_expect_eq(o.blocksize, SP_SORT_GPU_BLOCKSIZE);
    cr_expect_eq(o.window, SP_SORT_GPU_WINDOW);
    cr_expect_eq(o.cutoff, SP_SORT_GPU_CUTOFF);
    static const struct {
        const char *axis;
        long v;
        const char *says;
    } bad[] = {{"values", 3, "values = 3"}, {"blocksize", 0, "blocksize = 0"},
               {"blocksize", 2048, "blocksize = 2048"}, {"window", 0, "window = 0"},
               {"cutoff", 0, "cutoff = 0"}};
    for (int i = 0; i < 5; i++) {
        sp_params p = {.n = 1, .name = {bad[i].axis}, .value = {bad[i].v}};
        cr_expect_eq(sp_sort_gpu_axes("sort_x", &p, &values, &o, &err), -1, "%s", bad[i].says);
        cr_expect(strstr(err.msg, bad[i].says) && strstr(err.msg, "sort_x"), "%s", err.msg);
    }
    sp_sort_gpu_design d = {"sort_fake", 0, NULL, fake_workspace, NULL};
    sp_keys K;
    us_keys("keys:uniform?n=1048576", &K);
    sp_problem pb;
    cr_assert_eq(sort_op()->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0);
    sp_need need;
    static const long cut[] = {100};
    const char *cname[] = {"cutoff"};
    sp_params keys = us_params(0, 1, cname, cut), pairs = us_params(1, 1, cname, cut);
    const uint64_t page = 2u << 20, mib4 = 4u << 20;
    cr_assert_eq(sp_sort_gpu_need(&d, &pb, &keys, &need, &err), 0, "%s", err.msg);
    /* input copy + keys (4 MiB each, whole pages) + 2 MiB + 100 of workspace */
    cr_expect_eq(need.device_bytes, 2 * mib4 + 2 * page);
    cr_assert_eq(sp_sort_gpu_need(&d, &pb, &pairs, &need, &err), 0, "%s", err.msg);
    cr_expect_eq(need.device_bytes, 3 * mib4 + 3 * page);
    /* the design's own check refuses in need, naming the kernel and the axis */
    d.check = warps_only;
    static const long bs[] = {100};
    const char *bname[] = {"blocksize"};
    sp_params odd = us_params(1, 1, bname, bs);
    cr_expect_eq(sp_sort_gpu_need(&d, &pb, &odd, &need, &err), -1);
    cr_expect(strstr(err.msg, "sort_fake: blocksize = 100 is not a multiple of 32"), "%s",
              err.msg);
    cr_expect_eq(sp_sort_gpu_need(&d, &pb, &pairs, &need, &err), 0, "%s", err.msg);
    d.workspace = NULL;
    cr_expect_eq(sp_sort_gpu_need(&d, &pb, &keys, &need, &err), -1);
    cr_expect(strstr(err.msg, "sort_fake"), "%s", err.msg);
    sp_keys_free(&K);
}

/* Read one number from a query on db. */
static double query(const char *db, const char *sql)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sqlite3 %s \"%s\"", db, sql);
    FILE *p = popen(cmd, "r");
    double v = NAN;
    cr_assert(p);
    if (fscanf(p, "%lf", &v) != 1)
        v = NAN;
    pclose(p);
    return v;
}

Test(sort, sweep_stores_and_reports_mkeys, .timeout = 120)
{
    char dir[256], ini[300], db[300], *out = NULL, cmd[900];
    tu_tempdir(dir, sizeof dir);
    tu_path(ini, sizeof ini, dir, "s.ini");
    tu_path(db, sizeof db, dir, "r.db");
    tu_write_file(ini, "[sweep]\nrepetitions = 2\nwarmup = 1\n[matrices]\n"
                       "source = keys:zipf?n=2^16+3\nsource = gen:laplace2d?n=20\n"
                       "[kernel sort_qsort]\n[kernel sort_radix_omp]\nthreads = 2\n"
                       "[kernel sort_cub_radix]\n[kernel spmv_csr_serial]\n");
    snprintf(cmd, sizeof cmd, "sweep %s --db %s", ini, db);
    cr_assert_eq(tu_run_spsweep(cmd, &out), 0, "%s", out);
    cr_expect(strstr(out, "keys keys_zipf_n65539: 65539 keys"), "%s", out);
    cr_expect(strstr(out, "1 run left out"), "%s", out);
    free(out);
    cr_expect_eq(query(db, "SELECT count(*) FROM runs WHERE status = 'ok' AND operation = 'sort'"),
                 8.0);
    cr_expect_eq(query(db, "SELECT count(*) FROM run_stats WHERE rate_unit <> 'Mkeys/s' "
                           "AND operation = 'sort'"), 0.0);
    cr_expect_eq(query(db, "SELECT count(*) FROM run_stats WHERE operation = 'sort' AND "
                           "abs(rate - flops / median / 1e6) > 1e-9 * rate"), 0.0);
    cr_expect_eq(query(db, "SELECT rows FROM matrices WHERE name = 'keys_zipf_n65539'"), 65539.0);
    cr_expect_eq(query(db, "SELECT cols FROM matrices WHERE name = 'keys_zipf_n65539'"), 1.0);
    cr_expect_eq(query(db, "SELECT flops FROM runs r JOIN matrices m ON m.id = r.matrix_id "
                           "WHERE m.name = 'keys_zipf_n65539' LIMIT 1"), 65539.0);
    cr_expect_eq(query(db, "SELECT count(*) FROM best_runs WHERE operation = 'sort'"), 2.0);
    snprintf(cmd, sizeof cmd, "report --db %s --out %s/rep", db, dir);
    cr_assert_eq(tu_run_spsweep(cmd, &out), 0, "%s", out);
    free(out);
}
