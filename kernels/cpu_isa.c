/*
 * cpu_isa.c — the CPU's vector instructions, asked of the CPU (cpuid
 * through gcc's __builtin_cpu_supports), not of the build's -march: a
 * binary built on one machine may run on another (a cluster's login node
 * and its compute nodes).
 */
#include "cpu_isa.h"

int sp_cpu_has_avx512f(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
#else
    return 0;
#endif
}

int sp_require_avx512f(const char *who, sp_err *err)
{
    if (sp_cpu_has_avx512f())
        return 0;
#if defined(__x86_64__) && defined(__GNUC__)
    return sp_fail(err, "%s: this CPU has no AVX-512F (the kernel's vector instructions); "
                        "the kernels without _avx512 in their name run here", who);
#else
    return sp_fail(err, "%s: built for a CPU other than x86-64; AVX-512 is x86-64's", who);
#endif
}
