/* test_gpu_memory.c — the host side of study 002's GPU additions, without
 * a GPU: the `memory = device|managed` word axis (its words, its bound,
 * the plan leaving an unset device out so existing plans keep their
 * hashes), what each kernel declaring it states under managed memory, the
 * refusal of a value that is neither, and the shared-memory bound of HLL
 * solution 2 (spmv_hll_cuda_staged) in need and prepare alike. */
#include <criterion/criterion.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/spmv/spmv_gpu_host.h"
#include "../runner/exec/resume.h"
#include "../runner/runner.h"
#include "spmv_cases.h"

/* The kernels of study 002's CUDA part, each of which must take the axis. */
static const char *const study_cuda[] = {
    "spmv_csr_cuda_scalar", "spmv_csr_cuda_vector", "spmv_csr_cuda_block",
    "spmv_hll_cuda_hack",   "spmv_hll_cuda_staged", "spmv_hll_cuda_aligned",
    "spmv_hll_cuda_warp",   "spmv_hll_cuda_block",
};

static int declares_memory(const sp_kernel *k)
{
    for (int a = 0; a < k->naxes; a++)
        if (!strcmp(k->axes[a].name, SP_AXIS_MEMORY))
            return 1;
    return 0;
}

Test(gpu_memory, memory_is_a_word_axis)
{
    sp_axis_values a;
    sp_err err = {{0}};
    cr_assert_eq(sp_axis_parse(SP_AXIS_MEMORY, "managed, device", 8, &a, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(a.n, 2);
    cr_assert_eq(a.v[0], SP_MEMORY_DEVICE, "in the enum's order");
    cr_assert_eq(a.v[1], SP_MEMORY_MANAGED);
    sp_axis_values_free(&a);
    const char *bad[] = {"unified", "1", "Device", "device..managed:*4"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err.msg[0] = 0;
        cr_assert_eq(sp_axis_parse(SP_AXIS_MEMORY, bad[i], 8, &a, &err), -1, "'%s' accepted",
                     bad[i]);
        cr_assert_not_null(strstr(err.msg, SP_AXIS_MEMORY), "'%s': %s", bad[i], err.msg);
    }
    cr_assert_str_eq(sp_axis_word(SP_AXIS_MEMORY, SP_MEMORY_DEVICE), "device");
    cr_assert_str_eq(sp_axis_word(SP_AXIS_MEMORY, SP_MEMORY_MANAGED), "managed");
    cr_assert_null(sp_axis_word(SP_AXIS_MEMORY, 3));
}

/* Every kernel declaring the axis defaults to device alone (the value
 * runner/plan/plan.c leaves out of a combination, so the kernels that gained
 * the axis keep their plans), and every CUDA kernel of the study has it. */
Test(gpu_memory, the_study_kernels_declare_it_defaulting_to_device_alone)
{
    int with = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        for (int a = 0; a < k->naxes; a++) {
            if (strcmp(k->axes[a].name, SP_AXIS_MEMORY))
                continue;
            sp_axis_values v = {0};
            sp_err err;
            cr_assert_eq(sp_axis_parse(k->axes[a].name, k->axes[a].defaults, 16, &v, &err), 0,
                         "%s: %s", k->name, err.msg);
            cr_assert(v.n == 1 && v.v[0] == SP_MEMORY_DEVICE, "%s: defaults %s", k->name,
                      k->axes[a].defaults);
            sp_axis_values_free(&v);
            cr_assert(k->needs_gpu && !strcmp(k->operation, "spmv"), "%s", k->name);
            with++;
        }
    }
    for (size_t i = 0; i < sizeof study_cuda / sizeof *study_cuda; i++) {
        const sp_kernel *k = sp_kernel_find(study_cuda[i]);
        cr_assert_not_null(k, "%s is not registered", study_cuda[i]);
        cr_assert(declares_memory(k), "%s has no memory axis", k->name);
    }
    cr_assert_geq(with, (int)(sizeof study_cuda / sizeof *study_cuda));
}

/* The axes JSON of every combination of text, one a line, and the hash. */
static void plan_json(const char *text, char *json, size_t len, char hash[17])
{
    sp_config cfg;
    sp_plan plan;
    sp_err err;
    cr_assert_eq(sp_config_parse("m.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_plan_expand(&cfg, &plan, &err), 0, "%s", err.msg);
    json[0] = 0;
    for (int i = 0; i < plan.ncombos; i++) {
        char one[160];
        sp_params_json(&plan.combos[i].params, one, sizeof one);
        snprintf(json + strlen(json), len - strlen(json), "%s\n", one);
    }
    cr_assert_eq(sp_plan_hash(&cfg, &plan, hash, &err), 0, "%s", err.msg);
    sp_plan_free(&plan);
    sp_config_free(&cfg);
}

/* A section without `memory` plans what it planned before the axis (its
 * combinations carry blocksize alone); written out, or swept, the axis is
 * carried by its words, device before managed, and changes the hash. */
Test(gpu_memory, memory_left_out_is_not_carried)
{
    const char *head = "[matrices]\nsource = gen:laplace2d?n=4\n"
                       "[kernel spmv_csr_cuda_scalar]\nblocksize = 64\n";
    char text[256], json[512], plain[17], hash[17];
    plan_json(head, json, sizeof json, plain);
    cr_assert_str_eq(json, "{\"blocksize\":64}\n");
    snprintf(text, sizeof text, "%smemory = device\n", head);
    plan_json(text, json, sizeof json, hash);
    cr_assert_str_eq(json, "{\"blocksize\":64,\"memory\":\"device\"}\n");
    cr_assert_str_neq(hash, plain);
    snprintf(text, sizeof text, "%smemory = managed, device\nprecision = single\n", head);
    plan_json(text, json, sizeof json, hash);
    cr_assert_str_eq(json, "{\"blocksize\":64,\"memory\":\"device\",\"precision\":\"single\"}\n"
                           "{\"blocksize\":64,\"memory\":\"managed\",\"precision\":\"single\"}\n");
    snprintf(text, sizeof text, "%smemory = pinned\n", head);
    sp_config cfg;
    sp_err err = {{0}};
    cr_assert_eq(sp_config_parse("m.ini", text, NULL, &cfg, &err), -1, "pinned accepted");
    cr_assert_not_null(strstr(err.msg, "memory"), "%s", err.msg);
}

static sp_params with_memory(long memory)
{
    return (sp_params){.n = 1, .name = {SP_AXIS_MEMORY}, .value = {memory}};
}

Test(gpu_memory, the_axis_value_is_checked)
{
    int m = 0;
    sp_err err = {{0}};
    cr_assert_eq(sp_gpu_memory("k", NULL, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(m, SP_MEMORY_DEVICE, "absent: device");
    sp_params p = with_memory(SP_MEMORY_MANAGED);
    cr_assert_eq(sp_gpu_memory("k", &p, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(m, SP_MEMORY_MANAGED);
    p = with_memory(3);
    cr_assert_eq(sp_gpu_memory("kern", &p, &m, &err), -1);
    cr_assert(strstr(err.msg, "kern") && strstr(err.msg, "memory = 3"), "%s", err.msg);
}

/* Managed memory is filled by the host in place: each kernel declaring the
 * axis states its device arrays on the host too, and the same device
 * bytes; device is what no axis states. A value of neither kind is
 * refused by need and by prepare (host only, no state left). */
Test(gpu_memory, managed_need_counts_the_arrays_on_the_host_too)
{
    sp_csr A;
    sp_err err = {{0}};
    cr_assert_eq(sp_generate("laplace2d?n=300", &A, &err), 0, "%s", err.msg);
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&A), &err), 0, "%s", err.msg);
    const sp_params dev = with_memory(SP_MEMORY_DEVICE), man = with_memory(SP_MEMORY_MANAGED),
                    bad = with_memory(7);
    int kernels = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!declares_memory(k))
            continue;
        sp_need d = {0}, m = {0}, none = {0}, b = {0};
        cr_assert_eq(k->need(&pb, &dev, &d, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_eq(k->need(&pb, &man, &m, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_eq(k->need(&pb, NULL, &none, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert(none.device_bytes == d.device_bytes && none.host_bytes == d.host_bytes,
                  "%s: no axis is device", k->name);
        cr_assert_eq(m.device_bytes, d.device_bytes, "%s", k->name);
        cr_assert_eq(m.host_bytes, d.host_bytes + d.device_bytes, "%s", k->name);
        err.msg[0] = 0;
        cr_assert_eq(k->need(&pb, &bad, &b, &err), -1, "%s took memory 7", k->name);
        cr_assert_not_null(strstr(err.msg, "memory = 7"), "%s: %s", k->name, err.msg);
        if (k->prepare) {           /* a CUDA build */
            void *state = &err;
            err.msg[0] = 0;
            cr_assert_eq(k->prepare(&pb, &bad, &state, &err), -1, "%s", k->name);
            cr_assert_null(state, "%s: a refusal left a state", k->name);
            cr_assert_not_null(strstr(err.msg, "memory = 7"), "%s: %s", k->name, err.msg);
            state = NULL;
            cr_assert_eq(k->prepare(&pb, &man, &state, &err), 0, "%s: %s", k->name, err.msg);
            k->release(state);
        }
        kernels++;
    }
    cr_assert_geq(kernels, 8);
    op->teardown(&pb);
    sp_csr_free(&A);
}

/* Solution 2 keeps hack row sums in 48 KiB of shared memory: 6144 doubles
 * or 12288 floats fit, one more does not, refused by need and by prepare
 * with the reason; solution 1 has no such bound. */
Test(gpu_memory, staged_hll_refuses_a_hack_past_its_shared_memory)
{
    spmv_case c;
    spmv_case_build(0, &c);
    const sp_operation *op = sp_operation_find("spmv");
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(&c.A), &err), 0, "%s", err.msg);
    const sp_kernel *staged = sp_kernel_find("spmv_hll_cuda_staged"),
                    *hack = sp_kernel_find("spmv_hll_cuda_hack");
    cr_assert(staged && hack);
    struct {
        long hack, prec;
        int ok;
    } cases[] = {{6144, SP_DOUBLE, 1}, {6145, SP_DOUBLE, 0}, {12288, SP_SINGLE, 1},
                 {12289, SP_SINGLE, 0}, {32, SP_DOUBLE, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sp_params p = {.n = 2, .name = {"hack", SP_AXIS_PRECISION},
                       .value = {cases[i].hack, cases[i].prec}};
        sp_need need = {0};
        int h = 0;
        err.msg[0] = 0;
        cr_assert_eq(sp_gpu_staged_hack("s", &p, &h, &err), cases[i].ok ? 0 : -1,
                     "hack %ld: %s", cases[i].hack, err.msg);
        cr_assert_eq(staged->need(&pb, &p, &need, &err), cases[i].ok ? 0 : -1, "hack %ld",
                     cases[i].hack);
        if (!cases[i].ok)
            cr_assert(strstr(err.msg, "spmv_hll_cuda_staged") && strstr(err.msg, "shared"),
                      "%s", err.msg);
        cr_assert_eq(hack->need(&pb, &p, &need, &err), 0, "solution 1, hack %ld: %s",
                     cases[i].hack, err.msg);
        if (staged->prepare) {
            void *state = NULL;
            int rc = staged->prepare(&pb, &p, &state, &err);
            cr_assert_eq(rc, cases[i].ok ? 0 : -1, "prepare, hack %ld: %s", cases[i].hack,
                         err.msg);
            cr_assert(rc == 0 || !state);
            staged->release(state);
        }
    }
    op->teardown(&pb);
    spmv_case_free(&c);
}
