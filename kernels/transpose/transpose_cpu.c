/*
 * transpose_cpu.c — what the CPU transposition kernels share: a state that
 * reads the problem's CSR in place and owns the CSC and the scratch.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../partition.h"
#include "transpose.h"

static int check_problem(const char *who, const sp_problem *pb, sp_err *err)
{
    if (!pb || !pb->A)
        return sp_fail(err, "%s: problem without a matrix", who);
    return 0;
}

int sp_transpose_cpu_need(const char *who, sp_transpose_work work, const sp_problem *pb,
                          const sp_params *p, sp_need *need, sp_err *err)
{
    int threads;
    if (check_problem(who, pb, err) || sp_threads_param(p, who, &threads, err))
        return -1;
    need->host_bytes = sp_csc_bytes(pb->A) + work(pb->A, threads);
    need->device_bytes = 0;
    return 0;
}

int sp_transpose_cpu_prepare(const char *who, sp_transpose_work work, const sp_problem *pb,
                             const sp_params *p, void **state, sp_err *err)
{
    int threads;
    *state = NULL;
    if (check_problem(who, pb, err) || sp_threads_param(p, who, &threads, err))
        return -1;
    sp_transpose_cpu *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "%s: out of memory for the state", who);
    s->A = pb->A, s->threads = threads;
    uint64_t scratch = work(pb->A, threads);
    s->work_bytes = scratch;
    s->out = sp_alloc_large(sp_csc_bytes(pb->A));
    s->work = scratch <= SIZE_MAX ? sp_alloc_large((size_t)scratch) : NULL;
    if (!s->out || !s->work) {
        sp_transpose_cpu_release(s);
        return sp_fail(err, "%s: out of memory for the CSC and %llu bytes of scratch", who,
                       (unsigned long long)scratch);
    }
    sp_csc_view(s->out, pb->A, &s->C);
    *state = s;
    return 0;
}

int sp_transpose_cpu_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    const sp_transpose_cpu *s = state;
    (void)ex;
    if (!s || !out)
        return sp_fail(err, "transpose (CPU): result without a state or an output buffer");
    memcpy(out, s->out, sp_csc_bytes(s->A));
    return 0;
}

void sp_transpose_cpu_release(void *state)
{
    sp_transpose_cpu *s = state;
    if (s) {
        free(s->out);
        free(s->work);
    }
    free(s);
}
