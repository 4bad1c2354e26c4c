/* test_registry.c — the kernel registry: descriptors complete and
 * consistent, lookups, sp_param, and the GPU probe's contract. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <string.h>
#include <unistd.h>

#include "../kernels/kernel.h"
#include "../runner/runner.h"

static int count_kernels(void)
{
    int n = 0;
    while (sp_kernels[n])
        n++;
    return n;
}

/* An identifier in lower case: letters, digits, '_', not starting with a digit. */
static int is_identifier(const char *s)
{
    if (!s || !*s || isdigit((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

Test(registry, the_first_kernels_are_registered)
{
    const char *names[] = {"spmv_csr_serial", "spmv_csr_omp", "spmv_csr_cuda_scalar",
                           "spmv_csr_cusparse"};
    for (int i = 0; i < 4; i++) {
        const sp_kernel *k = sp_kernel_find(names[i]);
        cr_assert_not_null(k, "%s not registered", names[i]);
        cr_assert_str_eq(k->name, names[i]);
    }
    cr_assert_geq(count_kernels(), 4);
}

Test(registry, names_are_unique_identifiers)
{
    for (int i = 0; sp_kernels[i]; i++) {
        cr_assert(is_identifier(sp_kernels[i]->name), "bad name '%s'", sp_kernels[i]->name);
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(sp_kernels[i]->name, sp_kernels[j]->name, "duplicate kernel");
    }
}

Test(registry, descriptors_are_complete)
{
    static const char *backends[] = {"serial", "openmp", "cuda",   "cusparse",
                                     "cub",    "librsb", "mkl",    NULL};
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        cr_assert_not_null(sp_operation_find(k->operation), "%s: operation '%s' unknown",
                           k->name, k->operation);
        cr_assert(is_identifier(k->format), "%s: format '%s'", k->name, k->format);
        cr_assert(k->summary && *k->summary, "%s: no summary", k->name);
        int known = 0;
        for (int b = 0; backends[b]; b++)
            known |= k->backend && !strcmp(k->backend, backends[b]);
        cr_assert(known, "%s: backend '%s' unknown", k->name, k->backend);
    }
}

/* Axis names are identifiers, unique per kernel, and the defaults parse
 * with the runner's axis syntax into at least one value. */
Test(registry, axes_parse)
{
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        cr_assert(k->naxes >= 0 && k->naxes <= SP_MAX_AXES, "%s: naxes %d", k->name, k->naxes);
        for (int a = 0; a < k->naxes; a++) {
            cr_assert(is_identifier(k->axes[a].name), "%s: axis '%s'", k->name,
                      k->axes[a].name);
            for (int b = 0; b < a; b++)
                cr_assert_str_neq(k->axes[a].name, k->axes[b].name, "%s", k->name);
            sp_axis_values v = {0};
            sp_err err;
            cr_assert_eq(sp_axis_parse(k->axes[a].name, k->axes[a].defaults, 16, &v, &err),
                         0, "%s axis %s: %s", k->name, k->axes[a].name, err.msg);
            cr_assert_gt(v.n, 0);
            sp_axis_values_free(&v);
        }
    }
}

Test(registry, declared_axes)
{
    const sp_kernel *omp = sp_kernel_find("spmv_csr_omp");
    const sp_kernel *scalar = sp_kernel_find("spmv_csr_cuda_scalar");
    cr_assert(omp && scalar);
    cr_assert_eq(omp->naxes, 1);
    cr_assert_str_eq(omp->axes[0].name, "threads");
    cr_assert_str_eq(omp->axes[0].defaults, "1..nproc:*2,nproc");
    cr_assert_eq(scalar->naxes, 3);
    cr_assert_str_eq(scalar->axes[0].name, "blocksize");
    cr_assert_str_eq(scalar->axes[0].defaults,
                     "32,64,96,128,160,192,256,320,384,512,768,1024");
    cr_assert_str_eq(scalar->axes[1].name, SP_AXIS_MEMORY);
    cr_assert_str_eq(scalar->axes[1].defaults, "device");
    cr_assert_str_eq(scalar->axes[2].name, SP_AXIS_PRECISION);
    cr_assert_eq(sp_kernel_find("spmv_csr_serial")->naxes, 0);
    cr_assert_eq(sp_kernel_find("spmv_csr_cusparse")->naxes, 1);
}

/* A `precision` axis has exactly one default value, double: the value a
 * kernel reads when the axis is absent, and the one runner/plan/plan.c leaves
 * out of a combination whose section does not set it (so a kernel that
 * gains the axis keeps its plans' hashes). Every GPU SpMV kernel, ours and
 * cuSPARSE's, has the axis. */
Test(registry, precision_axes_default_to_double_alone)
{
    int gpu_spmv = 0, with = 0;
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        int found = 0;
        for (int a = 0; a < k->naxes; a++) {
            if (strcmp(k->axes[a].name, SP_AXIS_PRECISION))
                continue;
            sp_axis_values v = {0};
            sp_err err;
            cr_assert_eq(sp_axis_parse(k->axes[a].name, k->axes[a].defaults, 16, &v, &err), 0,
                         "%s: %s", k->name, err.msg);
            cr_assert_eq(v.n, 1, "%s: %d defaults of the precision axis", k->name, v.n);
            cr_assert_eq(v.v[0], SP_DOUBLE, "%s", k->name);
            sp_axis_values_free(&v);
            found = 1;
        }
        with += found;
        if (k->needs_gpu && !strcmp(k->operation, "spmv")) {
            cr_assert(found, "%s: no precision axis", k->name);
            gpu_spmv++;
        }
    }
    cr_assert_geq(gpu_spmv, 15, "the GPU SpMV kernels");
    cr_assert_geq(with, 30, "GPU SpMV, every transposition kernel, MKL");
}

/* CPU kernels have their functions (the MKL ones when built with MKL);
 * GPU kernels say so, and have theirs exactly when this binary was built
 * with CUDA. */
Test(registry, functions_and_gpu_flags)
{
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        int gpu_backend = !strcmp(k->backend, "cuda") || !strcmp(k->backend, "cusparse") ||
                          !strcmp(k->backend, "cub");
        cr_assert_eq(k->needs_gpu, gpu_backend, "%s: needs_gpu %d, backend %s", k->name,
                     k->needs_gpu, k->backend);
#ifdef SP_HAVE_CUDA
        int built = 1;
#else
        int built = !k->needs_gpu;
#endif
#ifndef SP_HAVE_MKL
        built = built && strcmp(k->backend, "mkl");
#endif
        int have = !!k->prepare + !!k->launch + !!k->result + !!k->release;
        cr_assert_eq(have, built ? 4 : 0, "%s: %d of 4 functions", k->name, have);
    }
}

Test(registry, find)
{
    cr_assert_null(sp_kernel_find("no_such_kernel"));
    cr_assert_null(sp_kernel_find(""));
    cr_assert_null(sp_kernel_find(NULL));
    cr_assert_null(sp_kernel_find("spmv_csr"), "prefixes do not match");
    cr_assert_null(sp_kernel_find("SPMV_CSR_SERIAL"), "names are case-sensitive");
    const sp_operation *op = sp_operation_find("spmv");
    cr_assert_not_null(op);
    cr_assert_str_eq(op->name, "spmv");
    cr_assert(op->setup && op->teardown && op->output_bytes && op->reference && op->error &&
              op->flops && op->bytes);
    cr_assert_null(sp_operation_find("spmv2"));
    cr_assert_null(sp_operation_find(NULL));
}

Test(registry, param)
{
    sp_params p = {.n = 2, .name = {"threads", "blocksize"}, .value = {8, 256}};
    cr_assert_eq(sp_param(&p, "threads", 1), 8);
    cr_assert_eq(sp_param(&p, "blocksize", 1), 256);
    cr_assert_eq(sp_param(&p, "hack", 32), 32, "absent axis gives the default");
    cr_assert_eq(sp_param(&p, "thread", 3), 3, "no prefix match");
    cr_assert_eq(sp_param(NULL, "threads", 5), 5);
    p.n = 1;
    cr_assert_eq(sp_param(&p, "blocksize", 64), 64, "only the first n axes count");
    sp_params none = {0};
    cr_assert_eq(sp_param(&none, "threads", -1), -1);
}

/* The probe answers either way; without a device it says why. In a CPU-only
 * build the reason is fixed. */
Test(registry, gpu_probe_answers)
{
    sp_gpu_info g;
    char reason[512] = "unset";
    int ok = sp_gpu_probe(&g, reason, sizeof reason);
    cr_assert(ok == 0 || ok == 1);
    if (ok) {
        cr_assert_geq(g.count, 1);
        cr_assert_neq(g.name[0], 0);
        cr_assert_gt(g.mem_total_gib, 0);
    } else {
        cr_assert(reason[0] && strcmp(reason, "unset"), "no reason given");
        cr_assert_eq(g.count, 0);
    }
#ifndef SP_HAVE_CUDA
    cr_assert_eq(ok, 0);
    cr_assert_str_eq(reason, "spsweep was built without CUDA (nvcc not found at build time)");
#endif
}

/* A CUDA build on a machine without an NVIDIA driver: the reason says so in
 * plain words (the runtime's own "CUDA driver version is insufficient for
 * CUDA runtime version" reads like a driver bug) and CUDA's raw message is
 * kept apart, for the database. */
Test(registry, gpu_probe_says_no_gpu_in_plain_words)
{
    sp_gpu_info g;
    char reason[512] = "unset";
    if (sp_gpu_probe(&g, reason, sizeof reason))
        cr_skip_test("a GPU is present");
#ifdef SP_HAVE_CUDA
    if (access("/dev/nvidiactl", F_OK) == 0)
        cr_skip_test("an NVIDIA driver is present: %s", reason);
    cr_assert_str_eq(reason, "no NVIDIA GPU or driver found");
    cr_assert_not_null(strstr(g.detail, "cudaGetDeviceCount: "), "raw message: %s", g.detail);
    cr_assert_null(strstr(reason, "insufficient"));
#else
    cr_assert_str_eq(g.detail, "CPU-only build (CUDA=0)");
#endif
}
