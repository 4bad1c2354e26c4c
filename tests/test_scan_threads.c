/*
 * test_scan_threads.c — transpose_cuda_scantrans's `scan_threads` axis
 * (study 001's ScanTrans thread count), without a GPU: the config syntax
 * (chunks, auto, counts, ranges) and its errors; a section that leaves it
 * out keeps the axes of older runs; the unit count each value gives, the
 * study's "low mem" as a refusal naming the value, and the memory
 * statement growing with the count. auto's device half (the occupancy
 * API) is tests/gpu/test_gpu_transpose.c's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/transpose/transpose_gpu.h"
#include "../runner/runner.h"

static void values(const char *text, const long *want, int n)
{
    sp_axis_values a;
    sp_err err;
    cr_assert_eq(sp_axis_parse(SP_AXIS_SCAN_THREADS, text, 4, &a, &err), 0, "%s: %s", text,
                 err.msg);
    cr_assert_eq(a.n, n, "%s: %d values", text, a.n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(a.v[i], want[i], "%s: value %d is %ld", text, i, a.v[i]);
    sp_axis_values_free(&a);
}

static void refused(const char *text, const char *msg)
{
    sp_axis_values a;
    sp_err err;
    cr_assert_eq(sp_axis_parse(SP_AXIS_SCAN_THREADS, text, 4, &a, &err), -1, "%s accepted",
                 text);
    cr_assert_str_eq(err.msg, msg);
}

Test(scan_threads, the_axis_takes_its_words_and_counts)
{
    static const long mixed[] = {SP_SCAN_THREADS_AUTO, SP_SCAN_THREADS_CHUNKS, 1, 2, 4, 64};
    values("auto, chunks,64,1..4:*2", mixed, 6);
    cr_assert_str_eq(sp_axis_word(SP_AXIS_SCAN_THREADS, SP_SCAN_THREADS_AUTO), "auto");
    cr_assert_str_eq(sp_axis_word(SP_AXIS_SCAN_THREADS, SP_SCAN_THREADS_CHUNKS), "chunks");
    cr_assert_null(sp_axis_word(SP_AXIS_SCAN_THREADS, 64), "a count is printed as itself");
    refused("0", "axis 'scan_threads': '0' is not one of chunks, auto, nor a count of 1 or more");
    refused("-2", "axis 'scan_threads': '-2' is not one of chunks, auto, nor a count of 1 or "
                  "more");
    refused("autoo", "axis 'scan_threads': 'autoo' is not one of chunks, auto, nor a count of 1 "
                     "or more");
    refused("auto..8", "axis 'scan_threads': a range spans counts (1 or more), not words");
    refused("99999999", "axis 'scan_threads': value 99999999 outside -1..16777216");
}

/* The plan's axes: left out, the combination carries no scan_threads (the
 * axes JSON older ScanTrans runs have); set, its words by name. */
Test(scan_threads, left_out_it_is_not_carried_set_it_is_named)
{
    const char *text[] = {"[matrices]\nsource = gen:laplace2d?n=4\n"
                          "[kernel transpose_cuda_scantrans]\nblocksize = 256\n",
                          "[matrices]\nsource = gen:laplace2d?n=4\n"
                          "[kernel transpose_cuda_scantrans]\nblocksize = 256\n"
                          "scan_threads = auto,chunks,8\n"};
    const char *want[][3] = {{"{\"blocksize\":256}"},
                             {"{\"blocksize\":256,\"scan_threads\":\"auto\"}",
                              "{\"blocksize\":256,\"scan_threads\":\"chunks\"}",
                              "{\"blocksize\":256,\"scan_threads\":8}"}};
    for (int t = 0; t < 2; t++) {
        sp_config cfg;
        sp_plan plan;
        sp_err err;
        cr_assert_eq(sp_config_parse("s.ini", text[t], NULL, &cfg, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_plan_expand(&cfg, &plan, &err), 0, "%s", err.msg);
        cr_assert_eq(plan.ncombos, t ? 3 : 1);
        for (int c = 0; c < plan.ncombos; c++) {
            char json[256];
            sp_params_json(&plan.combos[c].params, json, sizeof json);
            int found = 0;
            for (int w = 0; w < 3 && want[t][w]; w++)
                found |= !strcmp(json, want[t][w]);
            cr_assert(found, "unexpected axes %s", json);
        }
        sp_plan_free(&plan);
        sp_config_free(&cfg);
    }
}

static sp_params params_of(long v)
{
    sp_params p = {.n = 1, .name = {SP_AXIS_SCAN_THREADS}, .value = {v}};
    return p;
}

Test(scan_threads, each_value_gives_its_units_or_the_reason)
{
    static const sp_csr A = {.rows = 3000, .cols = 5000, .nnz = 1000000};
    sp_err err;
    int32_t units = 0, own = 0;
    sp_params p = params_of(SP_SCAN_THREADS_CHUNKS);
    cr_assert_eq(sp_scantrans_gpu_axis_units(&A, &p, SP_SCANTRANS_BUDGET, &units, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(sp_scantrans_gpu_units(&A, SP_SCANTRANS_BUDGET, &own, &err), 0);
    cr_assert_eq(units, own, "chunks is the kernel's own choice");
    cr_assert_eq(sp_scantrans_gpu_axis_units(&A, NULL, SP_SCANTRANS_BUDGET, &units, &err), 0);
    cr_assert_eq(units, own, "and the choice without the axis");
    p = params_of(100);
    cr_assert_eq(sp_scantrans_gpu_axis_units(&A, &p, SP_SCANTRANS_BUDGET, &units, &err), 0);
    cr_assert_eq(units, 100);
    p = params_of(SP_SCAN_THREADS_AUTO);
    cr_assert_eq(sp_scantrans_gpu_axis_units(&A, &p, SP_SCANTRANS_BUDGET, &units, &err), 0);
    cr_assert_eq(units, SP_SCAN_THREADS_AUTO, "resolved on the device, in upload");
    /* the study's grid: max(rows, cols) = 5000 in whole blocks */
    cr_assert_eq(sp_scantrans_auto_units(&A, 768, SP_SCANTRANS_BUDGET, &units, &err), 0);
    cr_assert_eq(units, 5376, "7 blocks of 768");
    cr_assert_eq(sp_scantrans_auto_units(&A, 1000, SP_SCANTRANS_BUDGET, &units, &err), 0);
    cr_assert_eq(units, 5000);
    /* past the budget: the study's "low mem", refused naming the value */
    p = params_of(300);
    cr_assert_eq(sp_scantrans_gpu_axis_units(&A, &p, 4000000, &units, &err), -1);
    cr_assert_str_eq(err.msg, "transpose_cuda_scantrans: scan_threads = 300: 300 chunks keep "
                              "(chunks + 1) x cols = 6020000 bytes of counts, above the budget "
                              "of 4000000 (cols = 5000; fewer scan_threads, or chunks)");
    static const sp_csr wide = {.rows = 1000, .cols = 100000, .nnz = 500000};
    p = params_of(SP_SCAN_THREADS_AUTO);
    cr_assert_eq(sp_scantrans_gpu_axis_units(&wide, &p, SP_SCANTRANS_BUDGET, &units, &err), -1);
    cr_assert(strstr(err.msg, "scan_threads = auto: 100000 chunks keep"), "%s", err.msg);
}

/* The memory statement follows the units: more scan_threads, more counts;
 * auto states its bound (whole blocks of 1024 past max(rows, cols)). */
Test(scan_threads, the_memory_statement_follows_the_count)
{
    static const sp_csr A = {.rows = 3000, .cols = 5000, .nnz = 1000000};
    sp_problem pb = {.A = (sp_csr *)&A};
    const sp_kernel *k = sp_kernel_find("transpose_cuda_scantrans");
    cr_assert_not_null(k);
    sp_err err;
    sp_need n8 = {0}, n800 = {0}, nauto = {0};
    sp_params p8 = params_of(8), p800 = params_of(800), pa = params_of(SP_SCAN_THREADS_AUTO);
    cr_assert_eq(k->need(&pb, &p8, &n8, &err), 0, "%s", err.msg);
    cr_assert_eq(k->need(&pb, &p800, &n800, &err), 0, "%s", err.msg);
    cr_assert_eq(k->need(&pb, &pa, &nauto, &err), 0, "%s", err.msg);
    cr_assert_eq(n800.device_bytes - n8.device_bytes,
                 sp_trans_gpu_bytes_scantrans(&A, 800, 256, 8) -
                     sp_trans_gpu_bytes_scantrans(&A, 8, 256, 8));
    cr_assert_eq(nauto.device_bytes, sp_trans_gpu_bytes_scantrans(&A, 5120, 256, 8));
    /* prepare (host only) refuses what need refuses, before the device */
    if (k->prepare) {
        sp_csr wide;
        cr_assert_eq(sp_generate("random?rows=10&cols=100000&nnz=50", &wide, &err), 0, "%s",
                     err.msg);
        sp_problem pw = {.A = &wide};
        void *state = NULL;
        cr_assert_eq(k->prepare(&pw, &pa, &state, &err), -1);
        cr_assert(strstr(err.msg, "scan_threads = auto"), "%s", err.msg);
        cr_assert_null(state);
        sp_params p64 = params_of(64);
        cr_assert_eq(k->prepare(&pw, &p64, &state, &err), 0, "%s", err.msg);
        k->release(state);
        sp_csr_free(&wide);
    }
}
