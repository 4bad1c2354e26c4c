/*
 * cpu_isa.h — which vector instructions the CPU running spsweep has, for the
 * kernels written in one instruction set's intrinsics (the *_avx512 SpMV
 * kernels): they are compiled for it by a target attribute whatever the
 * build's -march, and refuse, with this reason, to run where it is missing.
 */
#ifndef SP_CPU_ISA_H
#define SP_CPU_ISA_H

#include "kernel.h"

/* Where the compiler takes target attributes on x86-64 (gcc, clang), the
 * AVX-512 kernels are compiled in their intrinsics whatever the build's
 * -march, and SP_AVX512_BUILT is 1; elsewhere it is 0 and they refuse at
 * prepare. sp_cpu_has_avx512f() is 0 there too (cpu_isa.c). */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SP_AVX512_BUILT 1
#else
#define SP_AVX512_BUILT 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build is x86-64 and the CPU has AVX-512F, else 0. */
int sp_cpu_has_avx512f(void);

/* 0 when sp_cpu_has_avx512f(); else -1 with the reason, naming `who`. */
int sp_require_avx512f(const char *who, sp_err *err);

/* 1 when this CPU has the instruction set a kernel's descriptor names
 * (sp_kernel.isa: NULL, or "avx512f"), else 0 (an unknown name too). */
int sp_cpu_has_isa(const char *isa);

/* The set's name as a user reads it ("AVX-512F"), or isa itself. */
const char *sp_isa_label(const char *isa);

#ifdef __cplusplus
}
#endif
#endif
