/* ctx_cost.c — what a GPU combination's own process costs (isolate.h):
 * the CUDA context a fresh forked child creates (its first CUDA call,
 * cudaMemGetInfo, as measure.c makes it) and a whole combination child
 * (fork, context, upload, warm-up, timed repetitions, check, release,
 * reap), each with the GPU keeper off and on (runner/isolate/keeper.c), and the
 * context with CUDA_MODULE_LOADING=EAGER against the default (LAZY).
 * Run two at once with CUDA_VISIBLE_DEVICES=0 and =1 to see whether
 * contexts on two GPUs get in each other's way.
 *
 *   build/bench/ctx_cost [N] [SOURCE] [contexts]   default 8, gen:laplace2d?n=2000;
 *                                   "contexts": the context lines only
 *
 * Needs a GPU; prints medians and minima in ms, one line per variant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../runner/exec/measure.h"

/* Child: time the first CUDA call (it creates the context). */
static void context_child(void *arg, int fd)
{
    const char *loading = arg;
    if (loading)
        setenv("CUDA_MODULE_LOADING", loading, 1);
    uint64_t avail, total;
    char why[256];
    double t0 = sp_seconds();
    int bad = sp_gpu_mem_here(&avail, &total, why, sizeof why);
    double t = sp_seconds() - t0;
    sp_wire_send(fd, SP_MSG_SAMPLES, &t, sizeof t);
    sp_wire_done d = {bad ? SP_RUN_ERROR : SP_RUN_OK, SP_STOP_COUNT, 0, 1, 0};
    sp_wire_send(fd, SP_MSG_DONE, &d, sizeof d);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    printf("%-62s median %8.1f ms  min %8.1f ms  max %8.1f ms  (%d children)\n", what,
           v[n / 2] * 1e3, v[0] * 1e3, v[n - 1] * 1e3, n);
    fflush(stdout);
}

/* n children timing their context; inside = the child's own figure. */
static int contexts(const char *what, const char *loading, int n)
{
    double in[64], wall[64];
    for (int i = 0; i < n; i++) {
        sp_child_outcome o;
        sp_err err;
        if (sp_child_run(context_child, (void *)loading, 120, NULL, &o, &err) || !o.done ||
            o.result.status != SP_RUN_OK || o.nsamples != 1) {
            fprintf(stderr, "ctx_cost: %s: no context (%s)\n", what, o.stderr_tail);
            return 1;
        }
        in[i] = o.samples[0], wall[i] = o.wall_s;
        sp_child_outcome_free(&o);
    }
    char line[160];
    snprintf(line, sizeof line, "context, first CUDA call, %s", what);
    report(line, in, n);
    snprintf(line, sizeof line, "context child, fork to reap, %s", what);
    report(line, wall, n);
    return 0;
}

/* n whole combination children of kernel k with params p. */
static int combos(const char *what, const sp_kernel *k, const sp_params *p,
                  const sp_operation *op, sp_problem *pb, void *ref, void *out,
                  size_t out_bytes, int n)
{
    double wall[64], timed[64];
    sp_measure_job j = {.kernel = k, .params = p, .op = op, .pb = pb, .ref = ref,
                        .out = out, .out_bytes = out_bytes, .warmup = 2, .repetitions = 10,
                        .tolerance = 1e-8};
    for (int i = 0; i < n; i++) {
        sp_child_outcome o;
        sp_err err;
        if (sp_child_run(sp_measure_child, &j, 120, NULL, &o, &err) || !o.done ||
            o.result.status != SP_RUN_OK) {
            fprintf(stderr, "ctx_cost: %s: %s %s\n", k->name, o.message, o.stderr_tail);
            return 1;
        }
        wall[i] = o.wall_s, timed[i] = 0;
        for (int s = 0; s < o.nsamples; s++)
            timed[i] += o.samples[s];
        sp_child_outcome_free(&o);
    }
    char line[160];
    snprintf(line, sizeof line, "combination %s, fork to reap, %s", k->name, what);
    report(line, wall, n);
    snprintf(line, sizeof line, "  of which the 10 timed repetitions");
    report(line, timed, n);
    return 0;
}

static int all_combos(const char *what, const sp_operation *op, sp_problem *pb, void *ref,
                      void *out, size_t out_bytes, int n)
{
    static const char *const names[] = {"spmv_csr_cuda_vector", "spmv_csr_cusparse"};
    sp_params p = {.n = 1, .name = {"blocksize"}, .value = {256}};
    sp_params none = {0};
    for (int i = 0; i < 2; i++) {
        const sp_kernel *k = sp_kernel_find(names[i]);
        if (!k || !k->prepare)
            return fprintf(stderr, "ctx_cost: %s not built in\n", names[i]), 1;
        if (combos(what, k, i == 0 ? &p : &none, op, pb, ref, out, out_bytes, n))
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    const char *text = argc > 2 ? argv[2] : "gen:laplace2d?n=2000";
    n = n < 1 ? 1 : n > 64 ? 64 : n;
    sp_source src;
    sp_matrix M;
    sp_err err;
    sp_load_opts lo = {.no_cache = 1};
    sp_problem pb;
    const sp_operation *op = sp_operation_find("spmv");
    if (sp_source_parse(text, &src, &err) || sp_matrix_load(&src, &lo, &M, &err) ||
        op->setup(&pb, SP_MATRIX_WORKLOAD(&M.A), &err)) {
        fprintf(stderr, "ctx_cost: %s\n", err.msg);
        return 1;
    }
    size_t ob = op->output_bytes(&pb);
    void *ref = malloc(ob), *out = malloc(ob);
    if (!ref || !out || op->reference(&pb, ref, &err))
        return fprintf(stderr, "ctx_cost: reference: %s\n", err.msg), 1;
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    printf("ctx_cost: %s, %d nnz; CUDA_VISIBLE_DEVICES=%s\n", text, M.A.nnz, vis ? vis : "");
    sp_plan gpu_plan = {0};
    sp_combo one = {.kernel = sp_kernel_find("spmv_csr_cusparse")};
    gpu_plan.combos = &one, gpu_plan.ncombos = 1;
    int only_ctx = argc > 3 && !strcmp(argv[3], "contexts");
    int rc = contexts("no keeper, module loading default", NULL, n) ||
             (!only_ctx && (contexts("no keeper, CUDA_MODULE_LOADING=EAGER", "EAGER", n) ||
                            all_combos("no keeper", op, &pb, ref, out, ob, n)));
    sp_gpu_keeper k;
    double t0 = sp_seconds();
    sp_gpu_keeper_start(&gpu_plan, 1, &k);
    printf("keeper started in %.1f ms (%s)\n", (sp_seconds() - t0) * 1e3,
           k.ready ? "holding a context" : "no context");
    rc = rc || contexts("keeper on, module loading default", NULL, n) ||
         (!only_ctx && all_combos("keeper on", op, &pb, ref, out, ob, n));
    sp_gpu_keeper_stop(&k);
    op->teardown(&pb);
    free(ref);
    free(out);
    sp_matrix_free(&M);
    return rc;
}
