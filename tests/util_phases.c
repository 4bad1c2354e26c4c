/* util_phases.c — a GPU kernel's phases through the harness and its
 * release from partial states (util_phases.h). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util_phases.h"

/* k's operation set up on A, its reference, and an output buffer. */
typedef struct phases_case {
    const sp_operation *op;
    sp_problem pb;
    size_t bytes;
    void *ref, *out;
} phases_case;

static void case_open(phases_case *c, const sp_kernel *k, const sp_csr *A)
{
    sp_err err = {{0}};
    c->op = sp_operation_find(k->operation);
    cr_assert_not_null(c->op, "%s: no operation '%s'", k->name, k->operation);
    cr_assert(k->prepare && k->upload, "%s is not built into this binary", k->name);
    cr_assert_eq(c->op->setup(&c->pb, SP_MATRIX_WORKLOAD(A), &err), 0, "%s", err.msg);
    c->bytes = c->op->output_bytes(&c->pb);
    c->ref = malloc(c->bytes + 8);
    c->out = malloc(c->bytes + 8);
    cr_assert(c->ref && c->out);
    cr_assert_eq(c->op->reference(&c->pb, c->ref, &err), 0, "%s", err.msg);
}

static void case_close(phases_case *c)
{
    free(c->ref);
    free(c->out);
    c->op->teardown(&c->pb);
}

/* The phases of a whole life: all of upload and result timed, release
 * timed, convert_s with the device's wait when there is an analyse. */
static void assert_phases(const sp_kernel *k, const sp_phases *ph)
{
    cr_assert_gt(ph->h2d_s, 0, "%s: h2d_s = %g", k->name, ph->h2d_s);
    cr_assert_gt(ph->d2h_s, 0, "%s: d2h_s = %g", k->name, ph->d2h_s);
    cr_assert_geq(ph->free_s, 0, "%s: free_s = %g", k->name, ph->free_s);
    if (k->analyse)
        cr_assert_gt(ph->convert_s, 0, "%s: convert_s = %g", k->name, ph->convert_s);
    else
        cr_assert_geq(ph->convert_s, 0, "%s: convert_s = %g", k->name, ph->convert_s);
}

void phases_check(const sp_kernel *k, const sp_params *p, const sp_csr *A)
{
    phases_case c;
    case_open(&c, k, A);
    tu_run r;
    sp_err err = {{0}};
    double s = -1;
    cr_assert_eq(tu_run_prepare(&r, k, &c.pb, p, &err), 0, "%s: %s", k->name, err.msg);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(tu_run_launch(&r, &s, &err), 0, "%s launch: %s", k->name, err.msg);
    memset(c.out, 0xff, c.bytes);
    cr_assert_eq(tu_run_result(&r, c.out, &err), 0, "%s result: %s", k->name, err.msg);
    tu_run_end(&r);
    cr_assert_eq(c.op->error(&c.pb, c.out, c.ref), 0.0, "%s: output differs from the reference",
                 k->name);
    assert_phases(k, &r.ph);
    case_close(&c);
}

/* The kernel under test, and whether its broken copy's step fails after
 * running the real one (else before doing anything). */
static const sp_kernel *real;
static int fail_after;

static int failing_upload(void *state, const sp_exec *ex, sp_err *err)
{
    if (fail_after && real->upload(state, ex, err))
        return -1;
    return sp_fail(err, "upload failed on purpose");
}

static int failing_analyse(void *state, const sp_exec *ex, sp_err *err)
{
    if (fail_after && real->analyse(state, ex, err))
        return -1;
    return sp_fail(err, "analyse failed on purpose");
}

/* k with its upload (or its analyse) failing, before or after its work:
 * the harness's prepare fails, the state it leaves is released. */
static void check_failing_step(const sp_kernel *k, phases_case *c, const sp_params *p,
                               int analyse, int after)
{
    static sp_kernel broken;    /* the harness holds it until tu_run_end */
    broken = *k;
    real = k, fail_after = after;
    if (analyse)
        broken.analyse = failing_analyse;
    else
        broken.upload = failing_upload;
    tu_run r;
    sp_err err = {{0}};
    cr_assert_eq(tu_run_prepare(&r, &broken, &c->pb, p, &err), -1, "%s", k->name);
    cr_assert_not_null(strstr(err.msg, "on purpose"), "%s: %s", k->name, err.msg);
    cr_assert_not_null(r.state, "%s: prepare made a state", k->name);
    tu_run_end(&r);
    cr_assert_geq(r.ph.free_s, 0, "%s", k->name);
}

void phases_check_partial(const sp_kernel *k, const sp_params *p, const sp_csr *A)
{
    phases_case c;
    case_open(&c, k, A);
    sp_err err = {{0}};
    void *state = NULL;
    cr_assert_eq(k->prepare(&c.pb, p, &state, &err), 0, "%s: %s", k->name, err.msg);
    k->release(state);          /* a lone prepare: nothing on the device */
    tu_run r;
    cr_assert_eq(tu_run_prepare(&r, k, &c.pb, p, &err), 0, "%s: %s", k->name, err.msg);
    tu_run_end(&r);             /* uploaded and analysed, never launched */
    cr_assert_gt(r.ph.h2d_s, 0, "%s", k->name);
    cr_assert_geq(r.ph.free_s, 0, "%s", k->name);
    for (int after = 0; after < 2; after++) {
        check_failing_step(k, &c, p, 0, after);
        if (k->analyse)
            check_failing_step(k, &c, p, 1, after);
    }
    char reason[256];
    cr_assert_eq(sp_gpu_healthy_here(reason, sizeof reason), 0, "%s: %s", k->name, reason);
    case_close(&c);
}
