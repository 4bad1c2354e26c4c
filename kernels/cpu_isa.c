/*
 * cpu_isa.c — the CPU's vector instructions, asked of the CPU (cpuid
 * through gcc's __builtin_cpu_supports), not of the build's -march: a
 * binary built on one machine may run on another (a cluster's login node
 * and its compute nodes).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_isa.h"

/* SPSWEEP_CPU_WITHOUT=avx512f[,...]: this CPU treated as lacking the sets
 * named, as on a machine without them (a sweep prepared for a cluster
 * whose nodes lack AVX-512, and the tests of the refusals, on any CPU). */
static int masked(const char *isa)
{
    const char *off = getenv("SPSWEEP_CPU_WITHOUT");
    size_t n = strlen(isa);
    for (const char *s = off; s && *s; s += strcspn(s, ","), s += *s == ',')
        if (!strncmp(s, isa, n) && (s[n] == ',' || !s[n]))
            return 1;
    return 0;
}

int sp_cpu_has_avx512f(void)
{
    if (masked("avx512f"))
        return 0;
#if SP_AVX512_BUILT
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
#else
    return 0;
#endif
}

int sp_cpu_has_isa(const char *isa)
{
    if (!isa)
        return 1;
    if (!strcmp(isa, "avx512f"))
        return sp_cpu_has_avx512f();
    return 0;
}

const char *sp_isa_label(const char *isa)
{
    return isa && !strcmp(isa, "avx512f") ? "AVX-512F" : isa ? isa : "";
}

int sp_require_avx512f(const char *who, sp_err *err)
{
    if (sp_cpu_has_avx512f())
        return 0;
#if SP_AVX512_BUILT
    return sp_fail(err, "%s: this CPU has no AVX-512F (the kernel's vector instructions%s); "
                        "the kernels without _avx512 in their name run here", who,
                   masked("avx512f") ? "; SPSWEEP_CPU_WITHOUT names it" : "");
#else
    return sp_fail(err, "%s: built for a CPU other than x86-64; AVX-512 is x86-64's", who);
#endif
}
