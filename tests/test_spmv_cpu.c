/* test_spmv_cpu.c — the CPU SpMV families beyond the generic checks in
 * test_spmv.c: splits, ELLPACK/HLL layouts and refusals, every hack size,
 * the `chunk` axis, librsb across fork. */
#include <criterion/criterion.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spmv_cases.h"
#include "../fetch/matrix.h"
#include "../kernels/hll.h"
#include "../kernels/partition.h"
#include "../kernels/spmv/spmv_gpu_host.h"
#include "../kernels/spmv/spmv_hll.h"

/* The awkward case called `name`. */
static void case_named(const char *name, spmv_case *c)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case_build(i, c);
        if (!strcmp(c->name, name))
            return;
        spmv_case_free(c);
    }
    cr_assert_fail("no case '%s'", name);
}

Test(partition, split_prefix_tiles_rows_and_balances_nonzeros)
{
    /* rows of 10, 0, 0, 10, 10, 10, then 3 empty rows at the end */
    int32_t ptr[] = {0, 10, 10, 10, 20, 30, 40, 40, 40, 40};
    int32_t n = 9;
    cr_assert_eq(sp_split_prefix(ptr, n, 4, 0), 0);
    cr_assert_eq(sp_split_prefix(ptr, n, 4, 1), 1);     /* first row with ptr >= 10 */
    cr_assert_eq(sp_split_prefix(ptr, n, 4, 2), 4);     /* >= 20 */
    cr_assert_eq(sp_split_prefix(ptr, n, 4, 3), 5);
    cr_assert_eq(sp_split_prefix(ptr, n, 4, 4), n, "trailing empty rows belong to the last part");
    for (int parts = 1; parts <= 20; parts++)           /* more parts than rows */
        for (int t = 0; t < parts; t++)
            cr_assert_leq(sp_split_prefix(ptr, n, parts, t), sp_split_prefix(ptr, n, parts, t + 1));
    int32_t zero[] = {0, 0, 0};
    cr_assert_eq(sp_split_prefix(zero, 2, 3, 1), 0);
    cr_assert_eq(sp_split_prefix(zero, 2, 3, 3), 2);
    cr_assert_eq(sp_split_equal(10, 3, 1), 3);
    cr_assert_eq(sp_split_equal(2, 7, 7), 2);
}

Test(partition, axes_are_checked)
{
    sp_params p = {.n = 2, .name = {"threads", "chunk"}, .value = {0, 0}};
    sp_err err;
    int v;
    cr_assert_eq(sp_threads_param(&p, "k", &v, &err), -1);
    cr_assert_not_null(strstr(err.msg, "threads = 0"), "%s", err.msg);
    cr_assert_eq(sp_chunk_param(&p, "k", &v, &err), -1);
    p.value[0] = 5, p.value[1] = 7;
    cr_assert_eq(sp_threads_param(&p, "k", &v, &err), 0);
    cr_assert_eq(v, 5);
    cr_assert_eq(sp_chunk_param(&p, "k", &v, &err), 0);
    cr_assert_eq(v, 7);
    cr_assert_eq(sp_threads_param(NULL, "k", &v, &err), 0);
    cr_assert_eq(v, 1, "absent threads axis means 1");
}

/* Every stored slot of H against A: real entries in CSR order, then
 * padding with value 0 on the row's last column (0 in empty and phantom
 * rows) or -1; ld a multiple of the alignment; column-major hacks 64-byte
 * aligned when align is 8; offsets = ld x width. */
static void check_layout(const sp_hll *H, const sp_csr *A, const sp_hll_opts *o)
{
    cr_assert_eq((uintptr_t)H->val % 64, 0);
    cr_assert_eq((uintptr_t)H->col % 64, 0);
    cr_assert_eq(H->ld % o->align, 0);
    cr_assert(H->ld >= H->hack && H->ld < H->hack + o->align);
    cr_assert_eq(H->off[H->nhacks], H->stored);
    for (int32_t h = 0; h < H->nhacks; h++) {
        cr_assert_eq(H->off[h + 1] - H->off[h], (int64_t)H->ld * H->width[h]);
        if (H->colmajor && o->align == 8)
            cr_assert_eq(H->off[h] % 8, 0, "hack %d not 64-byte aligned", h);
        for (int32_t r = 0; r < H->ld; r++) {
            int64_t i = (int64_t)h * H->hack + r;
            int real = r < H->hack && i < A->rows;
            int32_t b = real ? A->rowptr[i] : 0, len = real ? A->rowptr[i + 1] - b : 0;
            cr_assert_leq(len, H->width[h], "hack %d narrower than row %lld", h, (long long)i);
            int32_t pad = o->pad == SP_HLL_PAD_NEG ? -1 : len ? A->colidx[b + len - 1] : 0;
            for (int32_t k = 0; k < H->width[h]; k++) {
                int64_t p = H->off[h] + (H->colmajor ? (int64_t)k * H->ld + r
                                                     : (int64_t)r * H->width[h] + k);
                cr_assert_eq(H->col[p], k < len ? A->colidx[b + k] : pad,
                             "hack %d row %d slot %d", h, r, k);
                cr_assert_eq(H->val[p], k < len ? A->val[b + k] : 0.0);
            }
        }
    }
}

/* Every option: hack sizes (0 = ELLPACK), both majors, alignment 1 and 8,
 * both padding columns. */
Test(hll, layouts_hold_every_entry_and_pad_with_zeros)
{
    static const char *names[] = {"rows not a multiple of 32 (1001)", "every third row empty",
                                  "33 rows (a hack and one), empty column 5",
                                  "column 0 and the last 37 rows empty"};
    static const int32_t hacks[] = {0, 1, 7, 8, 32, 100};
    static const int32_t aligns[] = {1, 8};
    for (int n = 0; n < 4; n++) {
        spmv_case c;
        case_named(names[n], &c);
        for (int h = 0; h < 6; h++)
            for (int v = 0; v < 8; v++) {
                sp_hll_opts o = {hacks[h], v & 1, aligns[(v >> 1) & 1], v >> 2};
                sp_hll H;
                sp_err err;
                cr_assert_eq(sp_hll_from_csr(&H, &c.A, &o, &err), 0, "%s", err.msg);
                check_layout(&H, &c.A, &o);
                sp_hll_free(&H);
            }
        spmv_case_free(&c);
    }
}

Test(hll, plan_counts_padding)
{
    /* rows of 1, 3, 0 nonzeros */
    int32_t rowptr[] = {0, 1, 4, 4}, colidx[] = {2, 0, 1, 3};
    double val[] = {1, 2, 3, 4};
    sp_csr A = {.rows = 3, .cols = 4, .nnz = 4, .rowptr = rowptr, .colidx = colidx, .val = val};
    int64_t stored;
    uint64_t bytes;
    sp_err err;
    sp_hll_opts o = sp_hll_cpu(0, 1);
    cr_assert_eq(sp_hll_plan(&A, &o, &stored, &bytes, &err), 0, "%s", err.msg);
    cr_assert_eq(stored, 16 * 3, "ELLPACK: 3 columns of 16 rows (rows padded to 16)");
    cr_assert_eq(bytes, (uint64_t)stored * 12 + 3 * 4, "entries, width and offsets");
    o = sp_hll_gpu(0, 1);
    cr_assert_eq(sp_hll_plan(&A, &o, &stored, &bytes, &err), 0, "%s", err.msg);
    cr_assert_eq(stored, 3 * 3, "GPU ELL: no alignment rows");
    o = sp_hll_cpu(1, 0);
    cr_assert_eq(sp_hll_plan(&A, &o, &stored, &bytes, &err), 0, "%s", err.msg);
    cr_assert_eq(stored, 4, "row-major hack 1: no padding at all");
    o = sp_hll_cpu(2, 0);
    cr_assert_eq(sp_hll_plan(&A, &o, &stored, &bytes, &err), 0, "%s", err.msg);
    cr_assert_eq(stored, 2 * 3 + 2 * 0, "hack 2: rows 0-1 three wide, row 2 (and a phantom) 0");
    o = sp_hll_cpu(2, 1);
    cr_assert_eq(sp_hll_plan(&A, &o, &stored, &bytes, &err), 0, "%s", err.msg);
    cr_assert_eq(stored, 16 * 3, "aligned hack 2: 16 rows stored per hack");
    o = sp_hll_cpu(SP_HACK_MAX + 1, 0);
    cr_assert_eq(sp_hll_plan(&A, &o, &stored, &bytes, &err), -1);
    o = sp_hll_cpu(-1, 0);
    cr_assert_eq(sp_hll_plan(&A, &o, &stored, &bytes, &err), -1);
    o = sp_hll_cpu(2, 0);
    o.align = 0;
    cr_assert_eq(sp_hll_plan(&A, &o, &stored, &bytes, &err), -1);
    cr_assert_not_null(strstr(err.msg, "align = 0"), "%s", err.msg);
}

/* ELLPACK of 20 000 rows with one row of 200 000 would store 4·10^9
 * entries, past the 32-bit offsets: need and prepare refuse it with the
 * reason, before allocating; HLL of the same matrix is accepted. */
Test(hll, ell_refuses_a_layout_past_32_bit_offsets)
{
    sp_csr A;
    sp_err err = {{0}};
    cr_assert_eq(sp_generate("denserow?rows=20000&cols=200000&per_row=1&dense=200000", &A,
                             &err), 0, "%s", err.msg);
    const char *names[] = {"spmv_ell_serial", "spmv_ell_omp"};
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0);
    for (int n = 0; n < 2; n++) {
        const sp_kernel *k = sp_kernel_find(names[n]);
        cr_assert_not_null(k);
        sp_need need = {0};
        cr_assert_eq(k->need(&pb, NULL, &need, &err), -1);
        cr_assert_not_null(strstr(err.msg, "ELLPACK refused"), "%s", err.msg);
        cr_assert_not_null(strstr(err.msg, "longest row 200000"), "%s", err.msg);
        cr_assert_not_null(strstr(err.msg, "spmv_ell: "), "the kernels are named: %s", err.msg);
        void *state = &err;
        cr_assert_eq(k->prepare(&pb, NULL, &state, &err), -1);
        cr_assert_null(state);
    }
    sp_params p = {.n = 1, .name = {"hack"}, .value = {32}};
    sp_need need;
    cr_assert_eq(sp_kernel_find("spmv_hll_serial")->need(&pb, &p, &need, &err), 0, "%s",
                 err.msg);
    op->teardown(&pb);
    sp_csr_free(&A);
}

/* The memory rule instead of a padding ratio: ELLPACK of 3000 rows with
 * one of 200 000 (6·10^8 stored entries for 2·10^5 nonzeros) is accepted
 * by need, which states its 7.2 GB, so the runner runs it where that is
 * free and skips it, with both numbers, where it is not (the tests treat
 * 1 GiB as free and skip it). A matrix whose padding fits is built. */
Test(hll, need_states_the_padded_bytes)
{
    spmv_case c;
    case_named("one dense row of 200000", &c);
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0);
    sp_need need;
    cr_assert_eq(sp_kernel_find("spmv_ell_serial")->need(&pb, NULL, &need, &err), 0, "%s",
                 err.msg);
    cr_assert_geq(need.host_bytes, (uint64_t)3000 * 200000 * 12);
    cr_assert_lt(need.host_bytes, (uint64_t)3008 * 200000 * 12 + (1u << 20));
    cr_assert_eq(spmv_check_kernel(sp_kernel_find("spmv_ell_serial"), NULL, &c.A), -1,
                 "over the tests' free memory: skipped");
    op->teardown(&pb);
    spmv_case_free(&c);

    case_named("one row of 2000 in 2000 x 2000", &c);
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0);
    sp_params p = {.n = 1, .name = {"hack"}, .value = {32}};
    cr_assert_eq(sp_kernel_find("spmv_hll_serial")->need(&pb, &p, &need, &err), 0, "%s",
                 err.msg);
    /* the hack holding the long row stores 32 x 2000 entries */
    cr_assert_geq(need.host_bytes, (uint64_t)(32 * 2000 + 8 * (2000 - 32)) * 12);
    cr_assert_eq(sp_kernel_find("spmv_ell_serial")->need(&pb, NULL, &need, &err), 0, "%s",
                 err.msg);
    cr_assert_geq(need.host_bytes, (uint64_t)2000 * 2000 * 12, "ELLPACK: 2000 x 2000 stored");
    double rel = spmv_check_kernel(sp_kernel_find("spmv_ell_omp"), NULL, &c.A);
    cr_assert(rel >= 0 && rel <= 1e-12, "ELLPACK of 4·10^6 padded entries runs: %g", rel);
    op->teardown(&pb);
    spmv_case_free(&c);
}

/* Every HLL kernel at hack sizes around the row counts and the strip, none
 * refused (every layout here fits). */
Test(hll, every_hack_size, .timeout = 120)
{
    static const char *names[] = {"random 5000x5000, 10 per row",
                                  "33 rows (a hack and one), empty column 5",
                                  "one row of 2000 in 2000 x 2000",
                                  "tall 10007 x 3, rows not a multiple of 8",
                                  "column 0 and the last 37 rows empty"};
    static const long hacks[] = {1, 3, 8, 13, 32, 100, 600, 4096};
    static const long threads[] = {1, 3};
    for (int n = 0; n < 5; n++) {
        spmv_case c;
        case_named(names[n], &c);
        for (int k = 0; sp_kernels[k]; k++) {
            const sp_kernel *K = sp_kernels[k];
            if (strcmp(K->format, "hll") || K->needs_gpu)
                continue;
            for (int h = 0; h < 8; h++)
                for (int t = 0; t < 2; t++) {
                    sp_params p = {.n = 3, .name = {"threads", "hack", "chunk"},
                                   .value = {threads[t], hacks[h], 1 + h}};
                    double rel = spmv_check_kernel(K, &p, &c.A);
                    cr_assert_leq(rel, 1e-12, "%s hack=%ld threads=%ld on %s: %g", K->name,
                                  hacks[h], threads[t], c.name, rel);
                    cr_assert(rel >= 0 || spmv_cpu_lacks_isa(K), "%s hack=%ld refused %s",
                              K->name, hacks[h], c.name);
                }
        }
        spmv_case_free(&c);
    }
}

Test(spmv_cpu, dynamic_chunk_sizes_and_bad_axes)
{
    spmv_case c;
    case_named("every third row empty", &c);
    const sp_kernel *k = sp_kernel_find("spmv_csr_omp_dynamic");
    cr_assert_not_null(k);
    static const long chunks[] = {1, 7, 64, 5000};
    for (int i = 0; i < 4; i++) {
        sp_params p = {.n = 2, .name = {"threads", "chunk"}, .value = {3, chunks[i]}};
        cr_assert_leq(spmv_check_kernel(k, &p, &c.A), 1e-12, "chunk %ld", chunks[i]);
    }
    const char *bad[] = {"spmv_csr_omp_dynamic", "spmv_hll_omp_dynamic", "spmv_hll_serial"};
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0);
    for (int i = 0; i < 3; i++) {
        sp_params p = {.n = 2, .name = {"chunk", "hack"}, .value = {i == 2 ? 1 : 0, 0}};
        void *state = NULL;
        err.msg[0] = 0;
        cr_assert_eq(sp_kernel_find(bad[i])->prepare(&pb, &p, &state, &err), -1, "%s",
                     bad[i]);
        cr_assert_neq(err.msg[0], 0);
        cr_assert_null(state);
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}

/* The CPU kernels that work in place state y alone; the converting ones
 * at least their format. */
Test(spmv_cpu, every_cpu_kernel_states_its_need)
{
    spmv_case c;
    case_named("random 5000x5000, 10 per row", &c);
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0);
    for (int k = 0; sp_kernels[k]; k++) {
        const sp_kernel *K = sp_kernels[k];
        if (K->needs_gpu || strcmp(K->operation, "spmv") || !strcmp(K->name, "spmv_csr_serial") ||
            !strcmp(K->name, "spmv_csr_omp"))
            continue;                       /* those two belong to another branch */
        sp_need need = {0};
        cr_assert_not_null(K->need, "%s has no need", K->name);
        int refused = K->need(&pb, NULL, &need, &err);
        if (refused && spmv_cpu_lacks_isa(K) && strstr(err.msg, "AVX-512"))
            continue;                       /* a CPU without it (tests/test_spmv.c) */
        cr_assert_eq(refused, 0, "%s: %s", K->name, err.msg);
        cr_assert_geq(need.host_bytes, (uint64_t)c.A.rows * 8, "%s: y not counted", K->name);
        if (strcmp(K->format, "csr"))
            cr_assert_geq(need.host_bytes, (uint64_t)c.A.nnz * 12, "%s", K->name);
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}

/* Run spmv_librsb with 2 threads on A in a forked child; its exit status. */
static int librsb_in_child(const sp_csr *A)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        alarm(20);
        sp_params two = {.n = 1, .name = {"threads"}, .value = {2}};
        double rel = spmv_check_kernel(sp_kernel_find("spmv_librsb"), &two, A);
        _exit(rel >= 0 && rel <= 1e-12 ? 0 : 3);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return status;
}

/* librsb is initialised lazily, per process: children forked from a parent
 * that never used it each initialise their own (the runner's isolation),
 * and the parent can use it afterwards. (A child forked after the parent
 * ran OpenMP with several threads hangs in libgomp, librsb or not.) */
Test(librsb, initialised_lazily_in_each_process, .timeout = 60)
{
    spmv_case c;
    case_named("rows not a multiple of 32 (1001)", &c);
    for (int i = 0; i < 2; i++) {
        int status = librsb_in_child(&c.A);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d status 0x%x", i,
                  status);
    }
    sp_params two = {.n = 1, .name = {"threads"}, .value = {2}};
    cr_assert_leq(spmv_check_kernel(sp_kernel_find("spmv_librsb"), &two, &c.A), 1e-12);
    spmv_case_free(&c);
}

/* librsb as its authors use it: tuned (tune = 1, the default) and untuned
 * both give A x on every awkward matrix at every thread count the machine
 * has; a tuned run with more threads than CPUs is refused by need and by
 * prepare alike, with the reason; the run's facts say what was built. */
Test(librsb, tuned_and_untuned_on_awkward_matrices, .timeout = 120)
{
    const sp_kernel *k = sp_kernel_find("spmv_librsb");
    cr_assert_not_null(k);
    cr_assert_not_null(k->info, "librsb reports what it built");
    long cpus = omp_get_num_procs(), threads[2] = {1, cpus > 1 ? 2 : 1}, tunes[2] = {0, 1};
    spmv_axis_override o[2] = {{"threads", threads, 2}, {"tune", tunes, 2}};
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        cr_assert_eq(spmv_check_kernel_with(k, o, 2, &c.A, c.name), 0, "%s refused", c.name);
        spmv_case_free(&c);
    }
}

Test(librsb, tuned_runs_state_their_threads_and_blocks, .timeout = 60)
{
    const sp_kernel *k = sp_kernel_find("spmv_librsb");
    const sp_operation *op = sp_operation_find("spmv");
    spmv_case c;
    case_named("rows not a multiple of 32 (1001)", &c);
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
    long cpus = omp_get_num_procs();
    sp_params over = {.n = 2, .name = {"threads", "tune"}, .value = {cpus + 1, 1}};
    sp_need need;
    void *state = NULL;
    cr_assert_eq(k->need(&pb, &over, &need, &err), -1);
    cr_assert(strstr(err.msg, "tuner") && strstr(err.msg, "tune = 0"), "%s", err.msg);
    cr_assert_eq(k->prepare(&pb, &over, &state, &err), -1, "prepare agrees with need");
    cr_assert_null(state);
    over.value[1] = 2;
    cr_assert_eq(k->need(&pb, &over, &need, &err), -1, "tune = 2 is no setting");
    for (int tune = 0; tune < 2; tune++) {
        sp_params p = {.n = 2, .name = {"threads", "tune"}, .value = {1, tune}};
        char json[1024], want[64];
        cr_assert_eq(k->prepare(&pb, &p, &state, &err), 0, "%s", err.msg);
        cr_assert_eq(k->info(state, json, sizeof json), 0);
        snprintf(want, sizeof want, "\"tuned\":%d,", tune);
        cr_assert(json[0] == '{' && strstr(json, want) && strstr(json, "\"threads\":1,") &&
                      strstr(json, "\"leaves\":") && strstr(json, "\"librsb\":\"1."),
                  "%s", json);
        k->release(state);
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}

/* spmv_hll_avx512's need at sigma > 1 states the layout's size from the
 * row lengths sorted in windows, without sorting (sp_sell_sigma_plan, in
 * the runner's parent): it must be the size of the layout prepare then
 * builds, the aligned HLL of the sorted copy, entry for entry, at hacks
 * that divide the alignment and that do not, on every awkward matrix and
 * on irregular generated ones (where sorting moves most rows). */
Test(spmv_cpu, sorted_hll_need_states_the_layout_prepare_builds, .timeout = 120)
{
    const sp_kernel *k = sp_kernel_find("spmv_hll_avx512");
    cr_assert_not_null(k);
    const sp_operation *op = sp_operation_find("spmv");
    static const char *const gen[] = {"rmat?scale=12&ef=8&seed=3",
                                      "denserow?rows=3000&cols=2000&per_row=3&dense=1500&seed=2",
                                      "random?rows=5000&cols=700&nnz=30000&seed=5"};
    static const long sigmas[] = {2, 3, 512, 4096}, hacks[] = {16, 7, 32, 1};
    int ncase = spmv_case_count(), checked = 0;
    for (int m = 0; m < ncase + 3; m++) {
        spmv_case c = {0};
        sp_csr G = {0};
        sp_err err = {{0}};
        const sp_csr *A;
        if (m < ncase) {
            spmv_case_build(m, &c);
            A = &c.A;
        } else {
            cr_assert_eq(sp_generate(gen[m - ncase], &G, &err), 0, "%s", err.msg);
            A = &G;
        }
        sp_problem pb;
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(A), &err), 0, "%s", err.msg);
        for (int si = 0; si < 4; si++)
            for (int hi = 0; hi < 4; hi++) {
                sp_params p = {3, {"threads", "hack", "sigma"}, {1, hacks[hi], sigmas[si]}};
                sp_need need = {0};
                if (k->need(&pb, &p, &need, &err)) {
                    cr_assert(spmv_cpu_lacks_isa(k), "%s: %s", k->name, err.msg);
                    continue;
                }
                int32_t *perm = NULL;
                sp_csr P = {0};
                sp_hll_opts o;
                sp_hll H = {0};
                cr_assert_eq(sp_sell_sigma(A, (int32_t)sigmas[si], &perm, &P, &err), 0, "%s",
                             err.msg);
                cr_assert_eq(sp_spmv_hll_aligned_layout(&p, &o, &err), 0, "%s", err.msg);
                cr_assert_eq(sp_hll_from_csr(&H, &P, &o, &err), 0, "%s", err.msg);
                cr_assert_eq((int64_t)need.stored, H.stored,
                             "%s, hack %ld, sigma %ld: need states %llu entries, the layout "
                             "holds %lld", m < ncase ? c.name : gen[m - ncase], hacks[hi],
                             sigmas[si], (unsigned long long)need.stored, (long long)H.stored);
                sp_hll_free(&H);
                sp_csr_free(&P);
                free(perm);
                checked++;
            }
        op->teardown(&pb);
        if (m < ncase)
            spmv_case_free(&c);
        else
            sp_csr_free(&G);
    }
    if (!checked)
        cr_log_info("this CPU has no AVX-512F: spmv_hll_avx512 refused every need");
}
