/* util_tprec.c — the single-precision transposition check (util_tprec.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util_tprec.h"
#include "../kernels/transpose/transpose.h"

void tprec_unfloat(const sp_csr *A, sp_csr *B)
{
    sp_err err;
    cr_assert_eq(sp_csr_alloc(B, A->rows, A->cols, A->nnz, &err), 0, "%s", err.msg);
    memcpy(B->rowptr, A->rowptr, ((size_t)A->rows + 1) * sizeof *B->rowptr);
    memcpy(B->colidx, A->colidx, (size_t)A->nnz * sizeof *B->colidx);
    for (int32_t k = 0; k < A->nnz; k++) {
        double v = A->val[k] != 0.0 ? A->val[k] : 1.0 + k;
        B->val[k] = ldexp(v * (1.0 + (1 + k % 5) * 0x1p-30), (int)(k % 9) - 4);
    }
}

int32_t tprec_rounded_values(const sp_csr *A)
{
    int32_t n = 0;
    for (int32_t k = 0; k < A->nnz; k++)
        n += (double)(float)A->val[k] != A->val[k];
    return n;
}

/* k at p on A as the runner drives it, the result into out (poisoned
 * first); 1 when need refuses it (prepare too) or it is over the tests'
 * memory, else 0. */
static int run_single(const sp_kernel *k, const sp_params *p, const sp_problem *pb, void *out,
                      size_t bytes)
{
    sp_err err = {{0}};
    sp_need need = {0};
    void *state = NULL;
    if (k->need && k->need(pb, p, &need, &err)) {
        cr_assert_neq(err.msg[0], 0, "%s: need refused without a reason", k->name);
        cr_assert_eq(k->prepare(pb, p, &state, &err), -1, "%s: need refused, prepare built it",
                     k->name);
        cr_assert_null(state, "%s: a failed prepare leaves no state", k->name);
        return 1;
    }
    if (need.host_bytes > SPMV_TEST_FREE_BYTES || need.device_bytes > SPMV_TEST_FREE_BYTES)
        return 1;
    tu_run r;
    double s = -1;
    cr_assert_eq(tu_run_prepare(&r, k, pb, p, &err), 0, "%s prepare: %s", k->name, err.msg);
    for (int i = 0; i < 2; i++)     /* a launch leaves the state ready for the next */
        cr_assert_eq(tu_run_launch(&r, &s, &err), 0, "%s launch: %s", k->name, err.msg);
    memset(out, 0xff, bytes);
    cr_assert_eq(tu_run_result(&r, out, &err), 0, "%s result: %s", k->name, err.msg);
    tu_run_end(&r);
    if (k->needs_gpu)
        cr_assert(r.ph.h2d_s > 0 && r.ph.d2h_s > 0, "%s: transfers not timed", k->name);
    return 0;
}

/* out against ref: the structure identical, each value the reference's
 * rounded to float. */
static void check_rounded(const sp_csr *A, const void *out, const void *ref, const char *what)
{
    sp_csc o, r;
    sp_csc_view((void *)out, A, &o);
    sp_csc_view((void *)ref, A, &r);
    cr_assert_eq(memcmp(o.colptr, r.colptr, ((size_t)A->cols + 1) * 4), 0, "%s: colptr", what);
    cr_assert_eq(memcmp(o.rowidx, r.rowidx, (size_t)A->nnz * 4), 0, "%s: rowidx", what);
    for (int32_t k = 0; k < A->nnz; k++) {
        double want = (double)(float)r.val[k];
        cr_assert(!memcmp(&o.val[k], &want, sizeof want),
                  "%s: CSC value %d is %.17g, the reference's %.17g rounded to float is %.17g",
                  what, k, o.val[k], r.val[k], want);
    }
}

int tprec_check_single(const sp_kernel *k, const spmv_axis_override *o, int no,
                       const sp_csr *A, const char *what)
{
    static const long single[] = {SP_SINGLE};
    spmv_axis_override all[SP_MAX_AXES + 1];
    cr_assert_leq(no, SP_MAX_AXES);
    memcpy(all, o, (size_t)no * sizeof *o);
    all[no] = (spmv_axis_override){SP_AXIS_PRECISION, single, 1};
    const sp_operation *op = sp_operation_find("transpose");
    sp_problem pb;
    sp_err err;
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(A), &err), 0, "%s", err.msg);
    size_t bytes = op->output_bytes(&pb);
    void *ref = malloc(bytes + 8), *out = malloc(bytes + 8);
    cr_assert(ref && out);
    cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
    sp_params *p;
    int n = spmv_kernel_params_with(k, all, no + 1, &p), refused = 0;
    for (int c = 0; c < n; c++) {
        cr_assert_eq(sp_param(&p[c], SP_AXIS_PRECISION, -1), SP_SINGLE,
                     "%s declares no precision axis", k->name);
        char label[256];
        int len = snprintf(label, sizeof label, "%s on %s:", k->name, what);
        for (int a = 0; a < p[c].n && len < (int)sizeof label; a++)
            len += snprintf(label + len, sizeof label - (size_t)len, " %s=%ld", p[c].name[a],
                            p[c].value[a]);
        if (run_single(k, &p[c], &pb, out, bytes)) {
            refused++;
            continue;
        }
        check_rounded(A, out, ref, label);
        double e = op->error(&pb, out, ref), tol = sp_run_tolerance(op, &pb, ref, &p[c], 0);
        cr_assert_leq(e, tol, "%s: error %g above single's tolerance %g", label, e, tol);
    }
    free(p);
    free(ref);
    free(out);
    op->teardown(&pb);
    return refused;
}
