/* util_sort.c — the sort tests' shared helpers (util_sort.h). */
#include <criterion/criterion.h>
#include "testutil.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/sort/sort.h"
#include "util_sort.h"

const char *const us_dists[6] = {"uniform", "sorted", "reverse", "equal", "few", "zipf"};
/* Empty, one, around a warp, not multiples of 32, and larger. */
const int64_t us_sizes[] = {0, 1, 2, 31, 32, 33, 1000, 4099, 100003};
const int us_nsizes = sizeof us_sizes / sizeof us_sizes[0];

void us_keys(const char *source, sp_keys *K)
{
    sp_source src;
    sp_keys_spec ks;
    sp_err err;
    cr_assert_eq(sp_source_parse(source, &src, &err), 0, "%s: %s", source, err.msg);
    cr_assert_eq(sp_keys_spec_parse(src.path, &ks, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_keys_generate(&ks, K, &err), 0, "%s", err.msg);
}

double us_run_kernel(const sp_kernel *k, const sp_params *p, const sp_workload *w, void **out)
{
    const sp_operation *op = sp_operation_find("sort");
    sp_problem pb;
    sp_err err = {{0}};
    sp_need need;
    tu_run run;
    double s = -1;
    cr_assert_eq(op->setup(&pb, w, &err), 0, "%s", err.msg);
    size_t bytes = op->output_bytes(&pb);
    void *ref = malloc(bytes), *o = malloc(bytes);
    cr_assert(ref && o);
    cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
    cr_assert_eq(k->need(&pb, p, &need, &err), 0, "%s need: %s", k->name, err.msg);
    cr_assert_eq(tu_run_prepare(&run, k, &pb, p, &err), 0, "%s prepare: %s", k->name, err.msg);
    for (int r = 0; r < 2; r++) {
        cr_assert_eq(tu_run_launch(&run, &s, &err), 0, "%s launch: %s", k->name, err.msg);
        cr_assert(isfinite(s) && s >= 0, "%s: %g seconds", k->name, s);
    }
    memset(o, 0xa5, bytes);                 /* poison: the result must be written in full */
    cr_assert_eq(tu_run_result(&run, o, &err), 0, "%s result: %s", k->name, err.msg);
    tu_run_end(&run);
    double e = op->error(&pb, o, ref);
    op->teardown(&pb);
    free(ref);
    if (out)
        *out = o;
    else
        free(o);
    return e;
}

void us_stable_sort(const uint32_t *key, int64_t n, uint32_t *key_out, uint32_t *val_out)
{
    uint32_t *k = malloc((size_t)(n + 1) * 4), *v = malloc((size_t)(n + 1) * 4);
    cr_assert(k && v);
    for (int64_t i = 0; i < n; i++)
        key_out[i] = key[i], val_out[i] = (uint32_t)i;
    for (int shift = 0; shift < 32; shift += 8) {   /* LSD counting passes: stable */
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++)
            count[((key_out[i] >> shift) & 255) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (int64_t i = 0; i < n; i++) {
            int64_t at = count[(key_out[i] >> shift) & 255]++;
            k[at] = key_out[i], v[at] = val_out[i];
        }
        memcpy(key_out, k, (size_t)n * 4);
        memcpy(val_out, v, (size_t)n * 4);
    }
    free(k);
    free(v);
}

sp_params us_params(int values, int naxes, const char *const *names, const long *vals)
{
    sp_params p = {.n = 1, .name = {"values"}, .value = {values}};
    for (int i = 0; i < naxes && p.n < SP_MAX_AXES; i++, p.n++)
        p.name[p.n] = names[i], p.value[p.n] = vals[i];
    return p;
}
