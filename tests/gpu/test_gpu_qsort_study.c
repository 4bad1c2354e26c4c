/* test_gpu_qsort_study.c — study 004's 14 quicksort variants
 * (kernels/sort/qstudy.h) run as the runner runs every sort kernel (need,
 * prepare, upload, reset and launch twice, result; tests/util_sort.c) and
 * checked by the sort operation's own check against its reference, and
 * the keys against a stable serial sort:
 *   every_distribution   each variant (a test per variant, as below) at its default axes on the six key
 *                        distributions of the sort tests at n = 0, 1, 2,
 *                        31, 32, 33, 1000, 4099 (sorted, reverse and equal
 *                        keys there are the deepest trees: n - 1 levels),
 *                        uniform also at 100003; keys and pairs
 *   other_axes           the block phase of 3-7 from the first level and
 *                        from a later one (blocksize 32, 64, 1024), the
 *                        flat launches at 32 threads, and 8's and 9's
 *                        windows of 1, 7, 32, 100 and 1024 threads
 *   study_sizes          the study's own inputs, 2^19 and 2^20 uniform keys
 *                        with seed 20, every variant (what
 *                        configs/studies/004-quicksort.ini sweeps)
 *   refusals             inputs past a bound refused by need and prepare
 *                        with the bound named, no state left
 * With SPSWEEP_GPU_TEST_QUICK (the sanitizer passes: every level is a few
 * launches) sizes stop at 33 keys (uniform: 1000), other_axes takes two
 * values of each axis on 1000 uniform keys, and study_sizes is skipped. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fetch/matrix.h"
#include "../../kernels/sort/qstudy.h"
#include "../testutil.h"
#include "../util_sort.h"

static int quick(void)
{
    return getenv("SPSWEEP_GPU_TEST_QUICK") != NULL;
}

static const sp_kernel *variant_kernel(int v)
{
    const sp_kernel *k = sp_kernel_find(sp_qstudy_info_of((sp_qstudy_variant)v)->kernel);
    cr_assert_not_null(k);
    cr_assert_not_null(k->prepare, "%s is not built into this binary", k->name);
    return k;
}

/* k with p (values set per run) on the keys of src: error 0 and the keys
 * those of the stable reference, keys only and with values. */
static void check_on(const sp_kernel *k, sp_params p, const char *src)
{
    sp_keys K;
    us_keys(src, &K);
    uint32_t *rk = malloc((size_t)(K.n + 1) * 4), *rv = malloc((size_t)(K.n + 1) * 4);
    cr_assert(rk && rv);
    us_stable_sort(K.key, K.n, rk, rv);
    for (int values = 0; values < 2; values++) {
        p.value[0] = values;
        void *out;
        double e = us_run_kernel(k, &p, SP_KEYS_WORKLOAD(&K), &out);
        cr_assert_eq(e, 0.0, "%s on %s, values=%d", k->name, src, values);
        sp_sort_out o;
        sp_sort_view(out, K.n, &o);
        cr_assert_eq(o.h->values, (uint32_t)values);
        cr_assert_eq(memcmp(o.key, rk, (size_t)K.n * 4), 0, "%s on %s", k->name, src);
        free(out);
    }
    free(rk);
    free(rv);
    sp_keys_free(&K);
}

/* One test per variant, so `--jobs` spreads the 14 over the card and a
 * slow or failing variant is named by the test's parameter. */
ParameterizedTestParameters(gpu_qsort_study, every_distribution)
{
    return tu_index_params(SP_QSTUDY_NVARIANTS);
}

ParameterizedTest(int *pv, gpu_qsort_study, every_distribution, .timeout = 900)
{
    static const int64_t sizes[] = {0, 1, 2, 31, 32, 33, 1000, 4099, 100003};
    int v = *pv;
    const sp_kernel *k = variant_kernel(v);
    for (int d = 0; d < 6; d++)
        for (int s = 0; s < 9; s++) {
            /* quick: up to 33 keys (1000 uniform), each level being
             * several launches under the sanitizer */
            if (sizes[s] > (d == 0 ? (quick() ? 1000 : 100003) : quick() ? 33 : 4099))
                continue;
            char src[128];
            snprintf(src, sizeof src, "keys:%s?n=%lld&seed=%d", us_dists[d],
                     (long long)sizes[s], s + 1);
            check_on(k, us_params(0, 0, NULL, NULL), src);
        }
}

ParameterizedTestParameters(gpu_qsort_study, other_axes)
{
    return tu_index_params(SP_QSTUDY_NVARIANTS);
}

ParameterizedTest(int *pv, gpu_qsort_study, other_axes, .timeout = 600)
{
    const char *srcs[] = {quick() ? "keys:uniform?n=1000&seed=5" : "keys:uniform?n=4099&seed=5",
                          "keys:equal?n=1000",
                          "keys:few?n=3001&seed=2", "keys:uniform?n=100003&seed=6"};
    int nsrc = quick() ? 1 : 4, naxis = quick() ? 2 : 0;
    const char *bs[] = {"blocksize"}, *win[] = {"window"};
    int v = *pv;
    const sp_qstudy_info *in = sp_qstudy_info_of((sp_qstudy_variant)v);
    const sp_kernel *k = variant_kernel(v);
    if (in->windowed) {
        static const long windows[] = {7, 1024, 1, 32, 100};
        for (int w = 0; w < (naxis ? naxis : 5); w++)
            for (int s = 0; s < nsrc; s++)
                check_on(k, us_params(0, 1, win, &windows[w]), srcs[s]);
        return;
    }
    static const long sizes[] = {32, 1024, 64};
    for (int b = 0; b < (naxis ? naxis : 3); b++)
        for (int s = 0; s < nsrc; s++)
            check_on(k, us_params(0, 1, bs, &sizes[b]), srcs[s]);
}

ParameterizedTestParameters(gpu_qsort_study, study_sizes)
{
    return tu_index_params(SP_QSTUDY_NVARIANTS);
}

ParameterizedTest(int *pv, gpu_qsort_study, study_sizes, .timeout = 600)
{
    if (quick())
        return;
    const char *srcs[] = {"keys:uniform?n=2^19&seed=20", "keys:uniform?n=2^20&seed=20"};
    for (int s = 0; s < 2; s++)
        check_on(variant_kernel(*pv), us_params(0, 0, NULL, NULL), srcs[s]);
}

Test(gpu_qsort_study, refusals)
{
    sp_keys K;
    us_keys("keys:reverse?n=2^20", &K);
    const sp_operation *op = sp_operation_find("sort");
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, SP_KEYS_WORKLOAD(&K), &err), 0, "%s", err.msg);
    sp_params p = us_params(1, 0, NULL, NULL);
    for (int v = 0; v < SP_QSTUDY_NVARIANTS; v++) {
        const sp_kernel *k = variant_kernel(v);
        sp_need need = {0};
        cr_assert_eq(k->need(&pb, &p, &need, &err), -1, "%s took 2^20 reverse keys", k->name);
        cr_assert_not_null(strstr(err.msg, "refused"), "%s", err.msg);
        void *state = &err;
        cr_assert_eq(k->prepare(&pb, &p, &state, &err), -1);
        cr_assert_null(state, "%s: a refusal left a state", k->name);
        cr_assert_not_null(strstr(err.msg, "SP_QSTUDY_"), "%s", err.msg);
    }
    op->teardown(&pb);
    sp_keys_free(&K);
}
