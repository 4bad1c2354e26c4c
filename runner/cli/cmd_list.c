/*
 * cmd_list.c — `spsweep list [FILTER...] [--long]`: the registered kernels
 * with their operation, format, backend, device, whether they can run on
 * this machine and their axes' defaults, narrowed by glob filters. Whether
 * a GPU is there is asked of the forked probe (kernels/gpu_info.cu), so
 * listing never creates a CUDA context in this process; it is asked only
 * when a GPU kernel of this build is listed.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "../../kernels/cpu_isa.h"
#include "cli.h"
#include "../exec/sweep.h"
#include "commands.h"

enum { L_LONG = 1 };

static const sp_cli_opt list_opts[] = {
    {"long", NULL, L_LONG, "each kernel's one-line description under it, and the axis values it takes at all"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_list = {
    .name = "list",
    .synopsis = "[FILTER...] [--long]",
    .summary = "the registered kernels, whether each can run here, and their axes",
    .about = "Lists every kernel: name, operation, format, backend, device (cpu or gpu), "
             "whether it can run here, and its axes with their default values. A FILTER "
             "is a glob matched, ignoring case, against the device, operation, format, "
             "backend or name (the first of them it matches on some kernel): filters of "
             "one of these widen the list, filters of different ones narrow it, so "
             "`list gpu transpose` lists the GPU transpositions and `list spmv_csr_serial "
             "spmv_csr_omp` both kernels. A GPU "
             "kernel cannot run here when this build has no CUDA ('not built') or no "
             "usable GPU is found ('no GPU'); a CPU kernel written in one instruction "
             "set's intrinsics cannot where this CPU lacks the set ('no ISA', e.g. the "
             "*_avx512 kernels without AVX-512F); a closing line says why, and a sweep "
             "skips such kernels with that reason.",
    .opts = list_opts,
    .exits = "0 listed; "
             "1 no kernel matches the filters; "
             "2 a command line that cannot be parsed",
    .examples = "'spmv_*'\n"
                "gpu transpose\n"
                "spmv_csr_serial spmv_csr_omp\n"
                "dia --long",
};

/* The fields a filter is matched against, in the order a filter's field
 * is decided: the first one that it matches on some kernel. */
enum { F_DEVICE, F_OPERATION, F_FORMAT, F_BACKEND, F_NAME, NFIELDS };

static const char *field(const sp_kernel *k, int f)
{
    const char *v[NFIELDS] = {sp_kernel_device(k), k->operation, k->format,
                              k->backend, k->name};
    return v[f] ? v[f] : "";
}

/* The field filter f matches on some kernel; NFIELDS when none. */
static int field_of(const char *f)
{
    for (int i = 0; i < NFIELDS; i++)
        for (int j = 0; sp_kernels[j]; j++)
            if (fnmatch(f, field(sp_kernels[j], i), FNM_CASEFOLD) == 0)
                return i;
    return NFIELDS;
}

/* Filters of one field widen the list (any of them), filters of
 * different fields narrow it (each field's). */
static int wanted(const sp_kernel *k, char **filters, const int *fields, int n)
{
    for (int i = 0; i < NFIELDS; i++) {
        int asked = 0, hit = 0;
        for (int j = 0; j < n; j++)
            if (fields[j] == i) {
                asked = 1;
                hit |= fnmatch(filters[j], field(k, i), FNM_CASEFOLD) == 0;
            }
        if (asked && !hit)
            return 0;
    }
    return 1;
}

/* Say that filter f matches no kernel, with the nearest name, operation
 * or backend. */
static void say_no_match(const char *f)
{
    const char *cand[256];
    int nc = 0;
    for (int i = 0; sp_kernels[i] && nc < 250; i++) {
        cand[nc++] = sp_kernels[i]->name;
        cand[nc++] = sp_kernels[i]->operation;
        cand[nc++] = sp_kernels[i]->backend;
    }
    const char *near = sp_cli_nearest(f, cand, nc);
    fprintf(stderr, "spsweep list: no kernel matches '%s'%s%s%s; `spsweep list` lists them "
            "all\n", f, near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
}

/* "yes", "no GPU" or "not built" for k; the probe asked once, when a
 * built GPU kernel is listed. */
static const char *runs_here(const sp_kernel *k, int *probed, int *gpu, char *reason,
                             size_t len)
{
    if (!k->prepare)
        return "not built";
    if (!k->needs_gpu)
        return sp_cpu_has_isa(k->isa) ? "yes" : "no ISA";
    if (!*probed) {
        sp_gpu_info info;
        *gpu = sp_gpu_probe(&info, reason, len) == 1;
        *probed = 1;
    }
    return *gpu ? "yes" : "no GPU";
}

int sp_cmd_list(int argc, char **argv)
{
    sp_cli_parser p;
    int opt, long_form = 0;
    sp_cli_begin(&p, &sp_cli_list);
    while ((opt = sp_cli_next(&p, argc, argv)) != SP_CLI_END) {
        if (opt == SP_CLI_HELP)
            return 0;
        if (opt == SP_CLI_BAD)
            return SP_EXIT_USAGE;
        long_form |= opt == L_LONG;
    }
    char **filters = argv + optind;
    int nfilters = argc - optind, wname = 6, listed = 0, probed = 0, gpu = 0;
    int fields[64];
    if (nfilters > 64) {
        fprintf(stderr, "spsweep list: at most 64 filters\n");
        return 1;
    }
    for (int i = 0; i < nfilters; i++)
        if ((fields[i] = field_of(filters[i])) == NFIELDS) {
            say_no_match(filters[i]);
            return 1;
        }
    int no_gpu = 0, not_built = 0, not_built_gpu = 0, no_isa = 0;
    char isa_kernels[512] = "";
    char reason[512] = "";
    for (int i = 0; sp_kernels[i]; i++)
        if (wanted(sp_kernels[i], filters, fields, nfilters) && (int)strlen(sp_kernels[i]->name) > wname)
            wname = (int)strlen(sp_kernels[i]->name);
    for (int i = 0; sp_kernels[i]; i++) {
        const sp_kernel *k = sp_kernels[i];
        if (!wanted(k, filters, fields, nfilters))
            continue;
        if (!listed++)
            printf("%-*s  %-9s  %-6s  %-8s  %-6s  %-9s  %s\n", wname, "kernel", "operation",
                   "format", "backend", "device", "runs here", "axes");
        char axes[256] = "-";
        for (int a = 0, n = 0; a < k->naxes; a++)
            n += snprintf(axes + n, sizeof axes - (size_t)n, "%s%s=%s", a ? " " : "",
                          k->axes[a].name, k->axes[a].defaults);
        const char *here = runs_here(k, &probed, &gpu, reason, sizeof reason);
        no_gpu += !strcmp(here, "no GPU");
        if (!strcmp(here, "no ISA")) {
            size_t n = strlen(isa_kernels);
            snprintf(isa_kernels + n, sizeof isa_kernels - n, "%s%s (%s)", no_isa ? ", " : "",
                     k->name, sp_isa_label(k->isa));
            no_isa++;
        }
        not_built += !strcmp(here, "not built");
        not_built_gpu += !strcmp(here, "not built") && k->needs_gpu;
        printf("%-*s  %-9s  %-6s  %-8s  %-6s  %-9s  %s\n", wname, k->name, k->operation,
               k->format, k->backend, sp_kernel_device(k), here, axes);
        if (long_form) {
            printf("%*s  %s\n", wname, "", k->summary ? k->summary : "(no description)");
            char valid[512] = "";
            for (int a = 0, n = 0; a < k->naxes; a++)
                if (k->axes[a].valid && n < (int)sizeof valid)
                    n += snprintf(valid + n, sizeof valid - (size_t)n, "%s%s in %s",
                                  n ? ", " : "", k->axes[a].name, k->axes[a].valid);
            if (*valid)     /* what a config may ask of it (sp_axis.valid) */
                printf("%*s  takes %s\n", wname, "", valid);
        }
    }
    if (!listed) {
        fprintf(stderr, "spsweep list: no kernel matches all of the filters; `spsweep list` "
                "lists them all\n");
        return 1;
    }
    if (no_gpu)
        printf("# no GPU: %d GPU kernel%s cannot run here: %s\n", no_gpu,
               no_gpu == 1 ? "" : "s", reason);
    if (no_isa)
        printf("# no ISA: %d CPU kernel%s the instruction set named after %s, which this "
               "CPU lacks: %s\n", no_isa, no_isa == 1 ? " needs" : "s need",
               no_isa == 1 ? "it" : "each", isa_kernels);
    if (not_built_gpu)
        printf("# not built: %d GPU kernel%s not in this build (built without CUDA: nvcc "
               "was not found, or CUDA=0; `spsweep --version` says)\n", not_built_gpu,
               not_built_gpu == 1 ? " is" : "s are");
    if (not_built > not_built_gpu)
        printf("# not built: %d CPU kernel%s not in this build (built without the library "
               "it calls, e.g. Intel MKL: `make deps-mkl` installs it from PyPI without root "
               "and the next build adds its kernels; `spsweep --version` says)\n",
               not_built - not_built_gpu,
               not_built - not_built_gpu == 1 ? " is" : "s are");
    return 0;
}
