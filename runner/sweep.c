/*
 * sweep.c — the executor: for every matrix (loaded once, reference computed
 * once per operation) and every combination of the plan: prepare, warm up,
 * time the repetitions, check against the reference, release, store.
 *
 * A result that fails its check is stored as 'failed' with the error and no
 * samples: a wrong answer is never recorded as a timing.
 */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../db/store.h"
#include "runner.h"

#define MAX_OPS 8

/* An operation's inputs and reference on the current matrix. */
typedef struct op_state {
    const sp_operation *op;
    sp_problem pb;
    void *ref, *out;
    size_t out_bytes;
} op_state;

typedef struct run_ctx {
    const sp_config *cfg;
    const sp_sweep_opts *o;
    sp_store *st;
    int64_t sweep_id;
    sp_provenance prov;
    sp_sweep_result *res;
    double *samples;
    int done, total;
    int name_width;             /* of the matrix column in progress lines */
    op_state ops[MAX_OPS];
    int nops;
} run_ctx;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void say(const run_ctx *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const run_ctx *rc, const char *fmt, ...)
{
    if (!rc->o || !rc->o->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(rc->o->log, fmt, ap);
    va_end(ap);
    fflush(rc->o->log);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median_of(const double *s, int n, double *scratch)
{
    memcpy(scratch, s, (size_t)n * sizeof *s);
    qsort(scratch, (size_t)n, sizeof *scratch, cmp_double);
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

static void op_state_free(op_state *os)
{
    if (os->op && os->op->teardown)
        os->op->teardown(&os->pb);
    free(os->ref);
    free(os->out);
    memset(os, 0, sizeof *os);
}

/* The operation's problem and reference on A, set up on first use. */
static op_state *op_state_get(run_ctx *rc, const char *opname, const sp_csr *A, sp_err *err)
{
    for (int i = 0; i < rc->nops; i++)
        if (!strcmp(rc->ops[i].op->name, opname))
            return &rc->ops[i];
    const sp_operation *op = sp_operation_find(opname);
    if (!op) {
        sp_fail(err, "unknown operation '%s'", opname);
        return NULL;
    }
    if (rc->nops == MAX_OPS) {
        sp_fail(err, "more than %d operations in one sweep", MAX_OPS);
        return NULL;
    }
    op_state *os = &rc->ops[rc->nops];
    memset(os, 0, sizeof *os);
    os->op = op;
    if (op->setup(&os->pb, A, err))
        return NULL;
    os->out_bytes = op->output_bytes(&os->pb);
    os->ref = malloc(os->out_bytes ? os->out_bytes : 1);
    os->out = malloc(os->out_bytes ? os->out_bytes : 1);
    if (!os->ref || !os->out) {
        sp_fail(err, "out of memory for the %s reference", opname);
        op_state_free(os);
        return NULL;
    }
    if (op->reference(&os->pb, os->ref, err)) {
        op_state_free(os);
        return NULL;
    }
    rc->nops++;
    return os;
}

/* Warm-up and timed repetitions. */
static int time_runs(run_ctx *rc, const sp_kernel *k, void *state, sp_err *err)
{
    double s;
    for (int w = 0; w < rc->cfg->warmup; w++)
        if (k->run(state, &s, err))
            return sp_fail_prefix(err, "warm-up %d", w + 1);
    for (int r = 0; r < rc->cfg->repetitions; r++) {
        if (k->run(state, &rc->samples[r], err))
            return sp_fail_prefix(err, "repetition %d", r + 1);
        if (!(rc->samples[r] > 0) || !isfinite(rc->samples[r]))
            return sp_fail(err, "repetition %d: kernel reported time %g s", r + 1,
                           rc->samples[r]);
    }
    return 0;
}

/* Prepare, time, fetch the result and check it. Returns the run status. */
static const char *measure(run_ctx *rc, op_state *os, const sp_combo *c, sp_phases *ph,
                           double *rel, sp_err *err)
{
    const sp_kernel *k = c->kernel;
    void *state = NULL;
    const char *status = "error";
    if (k->prepare(&os->pb, &c->params, &state, ph, err)) {
        sp_fail_prefix(err, "prepare");
        goto out;
    }
    if (time_runs(rc, k, state, err))
        goto out;
    memset(os->out, 0xff, os->out_bytes);   /* NaN: unwritten output fails the check */
    if (k->result(state, os->out, ph, err)) {
        sp_fail_prefix(err, "result");
        goto out;
    }
    *rel = os->op->error(&os->pb, os->out, os->ref);
    if (!(*rel <= rc->cfg->tolerance)) {
        sp_fail(err, "relative error %.3g exceeds tolerance %.3g", *rel, rc->cfg->tolerance);
        status = "failed";
        goto out;
    }
    status = "ok";
out:
    if (state)
        k->release(state);
    return status;
}

static void count_status(sp_sweep_result *res, const char *status)
{
    res->runs++;
    if (!strcmp(status, "ok"))
        res->ok++;
    else if (!strcmp(status, "failed"))
        res->failed++;
    else if (!strcmp(status, "skipped"))
        res->skipped++;
    else
        res->errors++;
}

/* One progress line per run. Skipped runs stay quiet: the reason was said
 * once up front and the summary counts them. */
static void log_run(run_ctx *rc, const sp_matrix *M, const sp_combo *c, const char *status,
                    const sp_err *e, double flops)
{
    char axes[256];
    if (!strcmp(status, "skipped"))
        return;
    sp_params_text(&c->params, axes, sizeof axes);
    say(rc, "[%*d/%d] %-*s %-22s %-16s ", rc->total >= 1000 ? 5 : 3, rc->done, rc->total,
        rc->name_width, M->src.name, c->kernel->name, axes);
    if (!strcmp(status, "ok")) {
        double *scratch = rc->samples + rc->cfg->repetitions;
        double med = median_of(rc->samples, rc->cfg->repetitions, scratch);
        say(rc, "%10.4f ms %9.3f GFLOPS\n", med * 1e3, flops / med * 1e-9);
    } else {
        say(rc, "%s: %s\n", status, e->msg);
    }
}

/* Run (or skip) one combination on one matrix and store it. */
static int run_combo(run_ctx *rc, const sp_matrix *M, int64_t matrix_id, const sp_combo *c,
                     sp_err *err)
{
    const sp_kernel *k = c->kernel;
    sp_err e = {{0}};
    sp_phases ph = {0, 0, 0};
    double rel = NAN;
    const char *status;
    op_state *os = NULL;
    if (k->needs_gpu && !rc->prov.have_gpu) {
        status = "skipped";
        sp_fail(&e, "%s", rc->prov.gpu_reason);
    } else if (!k->prepare) {
        status = "skipped";
        sp_fail(&e, "kernel '%s' is not built into this binary", k->name);
    } else if (!(os = op_state_get(rc, k->operation, &M->A, &e))) {
        status = "error";
    } else {
        status = measure(rc, os, c, &ph, &rel, &e);
    }
    char axes[256];
    sp_params_json(&c->params, axes, sizeof axes);
    const sp_operation *op = sp_operation_find(k->operation);
    int ok = !strcmp(status, "ok");
    sp_run_record r = {
        .sweep_id = rc->sweep_id, .matrix_id = matrix_id, .kernel = k,
        .axes_json = axes, .status = status, .error = ok ? NULL : e.msg,
        .rel_error = rel, .flops = op ? op->flops(&M->A) : NAN,
        .bytes = op ? op->bytes(&M->A) : NAN, .phases = ph, .warmup = rc->cfg->warmup,
        .nsamples = ok ? rc->cfg->repetitions : 0, .samples = rc->samples,
    };
    rc->done++;
    count_status(rc->res, status);
    log_run(rc, M, c, status, &e, r.flops);
    int64_t run_id;
    return sp_store_run(rc->st, &r, &run_id, err) < 0 ? -1 : 0;
}

/* Load one matrix, run the whole plan on it, release it. */
static int sweep_matrix(run_ctx *rc, const sp_source *src, const sp_plan *plan, sp_err *err)
{
    sp_load_opts lo = {.cache_dir = rc->cfg->cache_dir, .mm = {.complex = rc->cfg->complex}};
    sp_matrix M;
    sp_err e;
    if (sp_matrix_load(src, &lo, &M, &e)) {
        /* could not be had (fetch failed): skipped; could not be read: error */
        const char *status = src->unavailable[0] ? "skipped" : "error";
        sp_err se;
        say(rc, "matrix %s: %s: %s\n", src->text, status, e.msg);
        if (sp_store_matrix_failure(rc->st, rc->sweep_id, src->text, status, e.msg, &se))
            say(rc, "matrix %s: not recorded: %s\n", src->text, se.msg);
        rc->res->matrix_errors++;
        rc->done += plan->ncombos;
        return 0;               /* the other matrices still run */
    }
    int64_t matrix_id;
    int rcode = sp_store_matrix(rc->st, &M, &matrix_id, err);
    say(rc, "matrix %s: %d x %d, %d nonzeros (%s)%s\n", M.src.name, M.A.rows, M.A.cols,
        M.A.nnz, M.feat.size_class, M.from_cache ? ", from cache" : "");
    for (int i = 0; !rcode && i < plan->ncombos && !interrupted; i++)
        rcode = run_combo(rc, &M, matrix_id, &plan->combos[i], err);
    for (int i = 0; i < rc->nops; i++)
        op_state_free(&rc->ops[i]);
    rc->nops = 0;
    sp_matrix_free(&M);
    return rcode;
}

static int begin_sweep(run_ctx *rc, sp_err *err)
{
    const sp_provenance *p = &rc->prov;
    sp_sweep_meta m = {
        .config_path = rc->cfg->path, .config_text = rc->cfg->text,
        .git_commit = p->git_commit, .host = p->host, .cpu = p->cpu,
        .cpu_count = p->cpu_count, .gpu = p->have_gpu ? p->gpu : NULL,
        .gpu_driver = p->have_gpu ? p->gpu_driver : NULL,
        .cuda_runtime = p->have_gpu ? p->cuda_runtime : NULL, .compiler = p->compiler,
        .cflags = p->cflags, .omp_binding = p->omp_binding,
        .repetitions = rc->cfg->repetitions, .warmup = rc->cfg->warmup,
    };
    return sp_store_begin_sweep(rc->st, &m, &rc->sweep_id, err);
}

/* One line up front when the plan holds GPU kernels and there is no GPU. */
static void announce_gpu(run_ctx *rc, const sp_plan *plan)
{
    if (rc->prov.have_gpu) {
        say(rc, "GPU: %s, driver %s, runtime %s\n", rc->prov.gpu, rc->prov.gpu_driver,
            rc->prov.cuda_runtime);
        return;
    }
    for (int i = 0; i < plan->ncombos; i++)
        if (plan->combos[i].kernel->needs_gpu) {
            say(rc, "GPU kernels skipped: %s\n", rc->prov.gpu_reason);
            return;
        }
}

static int sweep_all(run_ctx *rc, const sp_plan *plan, sp_err *err)
{
    rc->total = plan->ncombos * rc->cfg->nmatrices;
    rc->name_width = 12;
    for (int m = 0; m < rc->cfg->nmatrices; m++) {
        int w = (int)strlen(rc->cfg->matrices[m].name);
        rc->name_width = w > rc->name_width ? (w < 64 ? w : 64) : rc->name_width;
    }
    say(rc, "sweep %s: %d matrices x %d combinations, %d repetitions + %d warm-up -> %s\n",
        rc->cfg->path, rc->cfg->nmatrices, plan->ncombos, rc->cfg->repetitions,
        rc->cfg->warmup, rc->cfg->database);
    announce_gpu(rc, plan);
    for (int m = 0; m < rc->cfg->nmatrices && !interrupted; m++)
        if (sweep_matrix(rc, &rc->cfg->matrices[m], plan, err))
            return -1;
    return 0;
}

int sp_sweep_run(const sp_config *cfg, const sp_sweep_opts *o, sp_sweep_result *res,
                 sp_err *err)
{
    run_ctx rc = {.cfg = cfg, .o = o, .res = res};
    memset(res, 0, sizeof *res);
    sp_plan plan;
    if (sp_plan_expand(cfg, &plan, err))
        return -1;
    rc.samples = malloc(2 * (size_t)cfg->repetitions * sizeof(double));
    if (!rc.samples) {
        sp_plan_free(&plan);
        return sp_fail(err, "out of memory");
    }
    int rcode = -1;
    if (sp_store_open(cfg->database, &rc.st, err))
        goto out;
    sp_provenance_collect(&rc.prov);
    if (begin_sweep(&rc, err))
        goto out;
    res->sweep_id = rc.sweep_id;
    interrupted = 0;
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rcode = sweep_all(&rc, &plan, err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (!rcode && interrupted)
        rcode = sp_fail(err, "interrupted after %d runs (all stored in %s)", res->runs,
                        cfg->database);
    sp_err e2;
    const char *final = rcode ? (interrupted ? "interrupted" : "failed") : "done";
    if (sp_store_end_sweep(rc.st, rc.sweep_id, final, &e2) && !rcode)
        rcode = sp_fail(err, "%s", e2.msg);
    if (!rcode && o && o->log && !o->no_summary)
        sp_store_print_summary(rc.st, rc.sweep_id, o->log, &e2);
out:
    sp_store_close(rc.st);
    free(rc.samples);
    sp_plan_free(&plan);
    return rcode;
}
