/*
 * sweep_combo.c — one combination on the loaded matrix: decide whether it
 * can run (GPU present, kernel built, memory enough: the kernel's `need`,
 * pure arithmetic, against MemAvailable), run it in a child of its own or
 * in the matrix's worker (isolate.h), log and store what came back.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "harness.h"
#include "measure.h"
#include "../plan/memguard.h"
#include "../../db/stats.h"
#include "sweep_ctx.h"

/* What became of one combination. */
typedef struct combo_outcome {
    sp_run_status status;
    char msg[1024];
    double rel;
    sp_phases ph;
    double *samples;            /* malloc'd (from the child) */
    int nsamples;
    int stop;
    sp_need need;
    int batch;                  /* launches per sample the child used */
    int blocking;               /* sp_blocking the child's samples were taken with */
    int32_t *sample_flags;      /* malloc'd (from the child), one per sample */
    int have_machine;
    sp_wire_machine machine;    /* the machine around the samples */
    char info[1024];            /* the kernel's JSON facts, "" when none */
    char steps[1024];           /* the medians of its timed steps, "" when none */
} combo_outcome;

static void op_state_free(op_state *os)
{
    if (os->op && os->op->teardown)
        os->op->teardown(&os->pb);
    free(os->ref);
    free(os->out);
    memset(os, 0, sizeof *os);
}

/* M as an operation's workload: its matrix, or its key array. */
static sp_workload workload_of(const sp_matrix *M)
{
    sp_workload w = {SP_WL_MATRIX, &M->A, NULL};
    if (sp_source_workload(&M->src) == SP_WL_KEYS)
        w = (sp_workload){SP_WL_KEYS, NULL, &M->keys};
    return w;
}

/* The operation's problem and reference on w, set up on first use. */
static op_state *op_state_get(run_ctx *rc, const char *opname, const sp_workload *w,
                              sp_err *err)
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
    if (op->setup(&os->pb, w, err))
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

/* What the kernel says it will allocate (pure arithmetic: this is the
 * parent); without a need function, the output vector. -1 when the kernel
 * says the combination cannot be built. */
static int kernel_need(const sp_kernel *k, const op_state *os, const sp_combo *c,
                       sp_need *need, sp_err *err)
{
    memset(need, 0, sizeof *need);
    if (!k->need) {
        need->host_bytes = os->out_bytes;
        return 0;
    }
    return k->need(&os->pb, &c->params, need, err);
}

/* The measurement of combination c on the operation's problem. */
static sp_measure_job job_of(const run_ctx *rc, const op_state *os, const sp_combo *c,
                             uint64_t need_device_bytes)
{
    const sp_config *cfg = rc->cfg;
    return (sp_measure_job){
        .kernel = c->kernel, .params = &c->params, .op = os->op, .pb = &os->pb,
        .ref = os->ref, .out = os->out, .out_bytes = os->out_bytes, .warmup = cfg->warmup,
        .repetitions = cfg->repetitions, .auto_reps = cfg->auto_reps,
        .max_noise = cfg->max_noise, .max_time_s = cfg->max_time_s,
        .tolerance = cfg->tolerance, .need_device_bytes = need_device_bytes,
        .cold = (int)sp_param(&c->params, SP_AXIS_CACHE, cfg->cold),
        .batch = (int)sp_param(&c->params, SP_AXIS_BATCH, cfg->batch),
        .blocking = (int)sp_param(&c->params, SP_AXIS_BLOCKING, cfg->blocking),
        .min_sample_s = sp_config_min_sample(cfg, c->kernel), .energy_s = cfg->energy_s,
        .energy_windows = cfg->energy_windows, .steps = cfg->steps,
    };
}

/* Does kernel k run in the matrix's worker (else in a child of its own)? */
static int in_worker(const run_ctx *rc, const sp_kernel *k)
{
    if (rc->cfg->isolate == SP_ISOLATE_AUTO)
        return k->needs_gpu;
    return rc->cfg->isolate == SP_ISOLATE_MATRIX;
}

/* What the parent sends the worker: indices into the plan and the
 * operation states, which the worker holds as they were at its fork. */
typedef struct worker_cmd {
    int32_t combo, op;
    uint64_t need_device_bytes;
} worker_cmd;

/* The worker's body (sp_worker_fn): it goes on after ok and skipped only. */
static int worker_body(void *arg, const void *cmd, size_t len, int fd)
{
    const run_ctx *rc = arg;
    worker_cmd wc;
    if (len != sizeof wc)
        return 0;
    memcpy(&wc, cmd, sizeof wc);
    if (wc.combo < 0 || wc.combo >= rc->plan->ncombos || wc.op < 0 || wc.op >= rc->nops)
        return 0;
    sp_measure_job j = job_of(rc, &rc->ops[wc.op], &rc->plan->combos[wc.combo],
                              wc.need_device_bytes);
    j.check_context = 1;
    int status = sp_measure(&j, fd);
    return status == SP_RUN_OK || status == SP_RUN_SKIPPED;
}

/* Run the combination in the matrix's worker, or in a child of its own. */
static int run_isolated(run_ctx *rc, op_state *os, const sp_combo *c, uint64_t need_dev,
                        sp_child_outcome *co, sp_err *e)
{
    const sp_config *cfg = rc->cfg;
    if (!in_worker(rc, c->kernel)) {
        sp_measure_job j = job_of(rc, os, c, need_dev);
        return sp_child_run(sp_measure_child, &j, cfg->timeout_s, &sp_sweep_interrupted, co, e);
    }
    worker_cmd wc = {(int32_t)(c - rc->plan->combos), (int32_t)(os - rc->ops), need_dev};
    if (rc->worker.pid > 0 && wc.op >= rc->worker_nops)
        sp_worker_stop(&rc->worker);    /* forked before this operation's reference */
    if (rc->worker.pid <= 0)
        rc->worker_nops = rc->nops;
    int r = sp_worker_run(&rc->worker, worker_body, rc, &wc, sizeof wc, cfg->timeout_s,
                          &sp_sweep_interrupted, co, e);
    rc->res->workers = rc->worker.started;
    return r;
}

/* Run the combination and read its outcome. */
static void isolate(run_ctx *rc, op_state *os, const sp_combo *c, combo_outcome *out)
{
    const sp_config *cfg = rc->cfg;
    sp_child_outcome co;
    sp_err e;
    if (run_isolated(rc, os, c, out->need.device_bytes, &co, &e)) {
        out->status = SP_RUN_ERROR;
        snprintf(out->msg, sizeof out->msg, "%s", e.msg);
        return;
    }
    out->status = sp_child_verdict(&co, cfg->timeout_s, out->msg, sizeof out->msg);
    out->ph = co.phases;
    out->rel = co.result.rel_error;
    out->stop = co.result.stop;
    out->batch = co.result.batch;
    out->blocking = co.result.blocking;
    if (out->status == SP_RUN_OK) {
        out->samples = co.samples;
        out->nsamples = co.nsamples;
        co.samples = NULL;
        if (co.nflags == co.nsamples) {
            out->sample_flags = co.sample_flags;
            co.sample_flags = NULL;
        }
        out->have_machine = co.have_machine;
        out->machine = co.machine;
        memcpy(out->info, co.info, sizeof out->info);
        memcpy(out->steps, co.steps, sizeof out->steps);
    }
    sp_child_outcome_free(&co);
}

/* Does the padded layout the kernel would build store more than max_fill
 * times the matrix's entries (sp_need.stored)? 1 with the reason: the
 * combination is skipped before any conversion, so a sweep over real
 * graphs does not spend minutes building layouts that cannot win (a DIA
 * of a power-law graph has tens of thousands of diagonals). */
static int over_fill(const sp_matrix *M, const sp_combo *c, const sp_need *need, char *msg,
                     size_t len)
{
    double nnz = M->A.nnz > 0 ? (double)M->A.nnz : 1;
    if (!(c->max_fill > 0) || !need->stored || (double)need->stored <= c->max_fill * nnz)
        return 0;
    snprintf(msg, len, "its %s layout would store %llu entries, %.1fx the matrix's %lld, "
             "above max_fill = %g (set max_fill = none to run it)", c->kernel->format,
             (unsigned long long)need->stored, (double)need->stored / nnz,
             (long long)M->A.nnz, c->max_fill);
    return 1;
}

/* Decide and (when it can) run one combination. */
static void decide(run_ctx *rc, const sp_matrix *M, const sp_combo *c, combo_outcome *out)
{
    const sp_kernel *k = c->kernel;
    sp_err e = {{0}};
    op_state *os = NULL;
    sp_workload w = workload_of(M);
    out->status = SP_RUN_SKIPPED;
    if (k->needs_gpu && !rc->prov.have_gpu)
        snprintf(out->msg, sizeof out->msg, "%s%s%s%s", rc->prov.gpu_reason,
                 rc->prov.gpu_detail[0] ? " (" : "", rc->prov.gpu_detail,
                 rc->prov.gpu_detail[0] ? ")" : "");
    else if (!k->prepare)
        snprintf(out->msg, sizeof out->msg, "kernel '%s' is not built into this binary%s",
                 k->name,
                 strcmp(k->backend, "mkl") ? "" : " (no MKL: make deps-mkl, then make)");
    else if (!(os = op_state_get(rc, k->operation, &w, &e)))
        out->status = SP_RUN_ERROR, snprintf(out->msg, sizeof out->msg, "%s", e.msg);
    else if (kernel_need(k, os, c, &out->need, &e))
        snprintf(out->msg, sizeof out->msg, "%s", e.msg);
    else if (!over_fill(M, c, &out->need, out->msg, sizeof out->msg) &&
             !sp_host_mem_short(out->need.host_bytes, out->msg, sizeof out->msg))
        isolate(rc, os, c, out);
}

/* Count one stored run in the sweep's result. */
static void count_status(sp_sweep_result *res, sp_run_status status)
{
    res->runs++;
    switch (status) {
    case SP_RUN_OK: res->ok++; break;
    case SP_RUN_FAILED: res->failed++; break;
    case SP_RUN_SKIPPED: res->skipped++; break;
    case SP_RUN_CRASHED: res->crashed++; break;
    case SP_RUN_TIMEOUT: res->timeouts++; break;
    default: res->errors++; break;
    }
}

/* One progress line per run. Skipped runs stay quiet when the reason was
 * said once up front (no GPU); the summary counts them. */
static void log_run(run_ctx *rc, const sp_matrix *M, const sp_combo *c,
                    const combo_outcome *out, double flops, const char *unit)
{
    char axes[256];
    if (out->status == SP_RUN_SKIPPED && c->kernel->needs_gpu && !rc->prov.have_gpu)
        return;
    sp_params_text(&c->params, axes, sizeof axes);
    sp_sweep_say(rc, "[%*d/%d] %-*s %-22s %-16s ", rc->total >= 1000 ? 5 : 3, rc->done, rc->total,
        rc->name_width, M->src.name, c->kernel->name, axes);
    if (out->status == SP_RUN_OK) {
        double *scratch = malloc((size_t)out->nsamples * sizeof *scratch);
        double med = scratch ? sp_median(out->samples, out->nsamples, scratch) : NAN;
        free(scratch);
        sp_sweep_say(rc, "%10.4f ms %9.3f %s", med * 1e3, flops / med / sp_store_rate_scale(rc->st, unit),
            unit ? unit : "GFLOPS");
        if (rc->cfg->auto_reps)
            sp_sweep_say(rc, "  (%d reps, stopped on %s)", out->nsamples,
                out->stop == 1 ? "noise" : out->stop == 2 ? "time" : "count");
        if (out->batch > 1)
            sp_sweep_say(rc, "  x%d", out->batch);
        if (out->have_machine && out->machine.describe[0])
            sp_sweep_say(rc, "  [%s]", out->machine.describe);
        sp_sweep_say(rc, "\n");
    } else {
        sp_sweep_say(rc, "%s: %s\n", sp_run_status_name(out->status), out->msg);
    }
}

/* Run (or skip) one combination on one matrix and store it. */
int sp_sweep_combo(run_ctx *rc, const sp_matrix *M, int64_t matrix_id, const sp_combo *c,
                   int round, double cost, sp_err *err)
{
    static const char *const stops[] = {"count", "noise", "time"};
    const sp_kernel *k = c->kernel;
    combo_outcome out = {.rel = NAN};
    decide(rc, M, c, &out);
    if (out.status == SP_RUN_ABORTED)
        return 0;               /* killed on a second interrupt: resume reruns it */
    char axes[256];
    sp_params_json(&c->params, axes, sizeof axes);
    const sp_operation *op = sp_operation_find(k->operation);
    int ok = out.status == SP_RUN_OK;
    sp_workload w = workload_of(M);
    sp_run_record r = {
        .sweep_id = rc->sweep_id, .matrix_id = matrix_id, .kernel = sp_kernel_identity(k),
        .axes_json = axes, .status = out.status, .error = ok ? NULL : out.msg,
        .rel_error = out.rel, .flops = op ? op->flops(&w) : NAN,
        .bytes = op ? op->bytes(&w, (sp_precision)sp_param(&c->params, SP_AXIS_PRECISION,
                                                             SP_DOUBLE))
                    : NAN,
        .phases = out.ph, .warmup = rc->cfg->warmup,
        .nsamples = ok ? out.nsamples : 0, .samples = out.samples,
        .stop_reason = stops[out.stop >= 0 && out.stop <= 2 ? out.stop : 0],
        .rate_unit = op ? op->rate_unit : NULL, .need = out.need, .round = round,
        .batch = out.batch,
        .cache = sp_param(&c->params, SP_AXIS_CACHE, rc->cfg->cold) ? "cold" : "warm",
        .blocking = ok ? sp_blocking_name((sp_blocking)out.blocking) : NULL,
        .sample_flags = out.sample_flags, .kernel_info = out.info[0] ? out.info : NULL,
        .steps = out.steps[0] ? out.steps : NULL,
    };
    if (ok && out.have_machine) {
        r.flags = out.machine.flags, r.energy_windows = out.machine.energy_windows;
        r.energy_j = out.machine.energy_j, r.energy_launches = out.machine.energy_launches;
        r.state_before = out.machine.before, r.state_after = out.machine.after;
    }
    rc->done++;
    count_status(rc->res, out.status);
    sp_progress_done(&rc->progress, cost);
    log_run(rc, M, c, &out, r.flops, r.rate_unit);
    int64_t run_id;
    sp_profile_mark("reported");
    int rcode = sp_store_run(rc->st, &r, &run_id, err) < 0 ? -1 : 0;
    sp_profile_mark("stored");
    free(out.samples);
    free(out.sample_flags);
    if (rc->kill_after > 0 && --rc->kill_after == 0)
        raise(SIGKILL);         /* tests of exact resume (SPSWEEP_TEST_KILL_AFTER) */
    return rcode;
}

/* Let the matrix's worker go (it holds the matrix and the references as
 * they were at its fork), then free the matrix's operation states. */
void sp_sweep_ops_free(run_ctx *rc)
{
    sp_worker_stop(&rc->worker);
    for (int i = 0; i < rc->nops; i++)
        op_state_free(&rc->ops[i]);
    rc->nops = 0;
}
