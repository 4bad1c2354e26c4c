/*
 * test_align.c — every alignment claim the kernels make to the compiler is
 * true of the layouts that feed it, checked as an invariant on any machine.
 *
 * The column-major ELLPACK/HLL loop says `omp simd aligned(vk, ck : 64)`;
 * with -march=native on an AVX-512 CPU that becomes aligned 512-bit loads,
 * which fault when the claim is false. A machine without wide vectors runs
 * the same code happily, so a crash test would pass there: these tests
 * check the addresses themselves instead. They walk every pointer the
 * kernels form (sp_hll_strip, then k·ld per column) for every hack size,
 * padding option and awkward matrix, through the layout options the
 * kernels use (sp_hll_cpu) and through the kernels' own prepare.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../kernels/hll.h"
#include "../kernels/spmv/spmv_hll.h"
#include "spmv_cases.h"

/* Every column of every strip of every hack of H aligned to `bytes`?
 * Returns the number of misaligned column starts (0 when the claim holds). */
static long misaligned_columns(const sp_hll *H, size_t bytes)
{
    long bad = 0;
    for (int32_t h = 0; h < H->nhacks; h++)
        for (int32_t s = 0; s < sp_hll_hack_rows(H, h); s += SP_ELL_STRIP) {
            const double *v;
            const int32_t *c;
            sp_hll_strip(H, h, s, &v, &c);
            for (int32_t k = 0; k < H->width[h]; k++)
                bad += !sp_is_aligned(v + (int64_t)k * H->ld, bytes) +
                       !sp_is_aligned(c + (int64_t)k * H->ld, bytes);
        }
    return bad;
}

static const int32_t hacks[] = {0,  1,  2,  3,  5,   7,   8,   9,   13,   15,   16,  17,
                                31, 32, 33, 64, 100, 511, 512, 513, 1000, 4096, 65536};
#define NHACKS ((int)(sizeof hacks / sizeof hacks[0]))

/* The layouts of sp_hll_cpu(hack, column-major), with either padding
 * column, on every awkward matrix: the claim holds for every column. */
Test(align, cpu_colmajor_layouts_keep_every_column_aligned, .timeout = 120)
{
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        for (int h = 0; h < NHACKS; h++)
            for (int pad = SP_HLL_PAD_REPEAT; pad <= SP_HLL_PAD_NEG; pad++) {
                sp_hll_opts o = sp_hll_cpu(hacks[h], 1);
                o.pad = pad;
                sp_hll H;
                sp_err err;
                int64_t stored;
                uint64_t bytes;
                if (sp_hll_plan(&c.A, &o, &stored, &bytes, &err) ||
                    bytes > SPMV_TEST_FREE_BYTES)
                    continue;   /* refused, or skipped by the runner: nothing claimed */
                cr_assert_eq(sp_hll_from_csr(&H, &c.A, &o, &err), 0, "%s: %s", c.name,
                             err.msg);
                cr_assert(sp_hll_columns_aligned(&H, SP_HLL_ALIGN_BYTES),
                          "%s hack %d pad %d: ld %d, val %p, col %p", c.name, hacks[h], pad,
                          H.ld, (void *)H.val, (void *)H.col);
                cr_assert_eq(misaligned_columns(&H, SP_HLL_ALIGN_BYTES), 0,
                             "%s hack %d pad %d: misaligned columns", c.name, hacks[h], pad);
                sp_hll_free(&H);
            }
        spmv_case_free(&c);
    }
}

/* The test can fail: the first layout (ld rounded to 8 rows) keeps val
 * aligned but puts col's odd columns 32 bytes off, which is what faulted on
 * AVX-512; both checks see it on any machine. */
Test(align, the_check_sees_an_eight_row_layout)
{
    spmv_case c;
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case_build(i, &c);
        if (!strcmp(c.name, "33 rows (a hack and one), empty column 5"))
            break;
        spmv_case_free(&c);
    }
    sp_hll_opts o = sp_hll_cpu(8, 1);
    o.align = 8;
    sp_hll H;
    sp_err err;
    cr_assert_eq(sp_hll_from_csr(&H, &c.A, &o, &err), 0, "%s", err.msg);
    cr_assert_not(sp_hll_columns_aligned(&H, SP_HLL_ALIGN_BYTES));
    cr_assert_gt(misaligned_columns(&H, SP_HLL_ALIGN_BYTES), 0);
    sp_hll_free(&H);
    spmv_case_free(&c);
}

/* Through the kernels themselves: every CPU kernel whose loop makes the
 * claim (the column-major ELLPACK and HLL ones) builds, at every hack size,
 * a layout that keeps it. */
Test(align, every_colmajor_cpu_kernel_prepares_aligned_layouts, .timeout = 120)
{
    static const char *claimers[] = {"spmv_ell_serial", "spmv_ell_omp",
                                     "spmv_hll_aligned_serial", "spmv_hll_aligned_omp"};
    const sp_operation *op = sp_operation_find("spmv");
    for (int i = 0; i < spmv_case_count(); i++) {
        spmv_case c;
        spmv_case_build(i, &c);
        sp_problem pb;
        sp_err err;
        cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
        for (int k = 0; k < 4; k++) {
            const sp_kernel *K = sp_kernel_find(claimers[k]);
            cr_assert_not_null(K, "%s", claimers[k]);
            for (int h = 1; h < NHACKS; h++) {
                sp_params p = {.n = 2, .name = {"threads", "hack"}, .value = {2, hacks[h]}};
                sp_need need = {0};
                if (K->need(&pb, &p, &need, &err) || need.host_bytes > SPMV_TEST_FREE_BYTES)
                    continue;   /* refused or skipped by the runner: nothing runs */
                void *state = NULL;
                cr_assert_eq(K->prepare(&pb, &p, &state, &err), 0, "%s on %s: %s",
                             K->name, c.name, err.msg);
                const sp_hll *H = &((const sp_spmv_hll *)state)->H;
                cr_assert(sp_hll_columns_aligned(H, SP_HLL_ALIGN_BYTES), "%s hack %d on %s",
                          K->name, hacks[h], c.name);
                cr_assert_eq(misaligned_columns(H, SP_HLL_ALIGN_BYTES), 0, "%s hack %d on %s",
                             K->name, hacks[h], c.name);
                K->release(state);
                if (!strncmp(K->name, "spmv_ell", 8))
                    break;  /* ELLPACK has no hack axis: one layout */
            }
        }
        op->teardown(&pb);
        spmv_case_free(&c);
    }
}
