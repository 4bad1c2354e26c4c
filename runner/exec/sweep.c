/*
 * sweep.c — the executor: for every matrix (loaded once, reference computed
 * once per operation, both in this process) and every combination of the
 * plan: decide whether it can run (GPU present, kernel built, memory
 * enough), run it in a child process (isolate.h: measure.c does the work,
 * child.c the process), store what came back (sweep_combo.c). This file:
 * the sweep's identity and resume, the loop over matrices, signals. It
 * calls sweep_combo.c, never the reverse; what both use is sweep_ctx.c.
 *
 * A result that fails its check is stored as 'failed' with the error and no
 * samples: a wrong answer is never recorded as a timing. A child that dies
 * or overruns the timeout is stored as 'crashed' or 'timeout' and the sweep
 * goes on. SIGINT/SIGTERM: the combination in flight finishes, the sweep
 * is marked interrupted; a second one kills the child in flight (its run is
 * not stored).
 */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../isolate/isolate.h"
#include "../plan/load_guard.h"
#include "../plan/advise_plan.h"
#include "resume.h"
#include "sweep_ctx.h"

static void on_signal(int sig)
{
    (void)sig;
    if (sp_sweep_interrupted < 2)
        sp_sweep_interrupted++;
}

/* The memory guard at the load (load_guard.c): 1, with the reason in e,
 * when src, or src with the references its n pairs at w set up, does not
 * fit in the host's available memory. */
static int load_too_big(const run_ctx *rc, const sp_source *src, const sp_load_opts *lo,
                        const sp_work *w, int n, sp_err *e)
{
    const sp_operation *ops[MAX_OPS];
    int nops = sp_work_ops(rc->plan, w, n, rc->prov.have_gpu, ops, MAX_OPS);
    return sp_load_mem_short(src, lo, 0, ops, nops, "its operations' inputs and references",
                             e->msg, sizeof e->msg);
}

/* Load matrix m and run the n pairs of the to-do list that start at w
 * (all on m), then release it. */
static int sweep_matrix(run_ctx *rc, const sp_work *w, int n, sp_err *err)
{
    const sp_source *src = &rc->cfg->matrices[w->matrix];
    sp_load_opts lo;
    sp_matrix M;
    sp_err e;
    sp_config_load_opts(rc->cfg, &lo);
    int too_big = load_too_big(rc, src, &lo, w, n, &e);
    if (too_big || sp_matrix_load(src, &lo, &M, &e)) {
        sp_progress_clear(&rc->progress);
        /* could not be had (fetch failed) or would not fit: skipped; could
         * not be read: error */
        sp_run_status status = too_big || src->unavailable[0] ? SP_RUN_SKIPPED : SP_RUN_ERROR;
        int line = sp_config_source_line(rc->cfg, w->matrix);
        if (line)               /* named as config errors are */
            sp_fail_prefix(&e, "%s:%d", rc->cfg->path, line);
        sp_sweep_say(rc, "matrix %s: %s: %s\n", src->text, sp_run_status_name(status), e.msg);
        rc->res->matrix_errors++;
        rc->done += n;
        /* the other matrices still run */
        return sp_store_matrix_failure(rc->st, rc->sweep_id, src->text, status, e.msg, err);
    }
    int64_t matrix_id;
    int rcode = sp_store_matrix(rc->st, sp_matrix_identity(&M), &matrix_id, err);
    if (M.src.kind == SP_SRC_KEYS)
        sp_sweep_say(rc, "keys %s: %lld keys (%s)\n", M.src.name, (long long)M.keys.n,
            M.feat.size_class);
    else
        sp_sweep_say(rc, "matrix %s: %d x %d, %d nonzeros (%s)%s\n", M.src.name, M.A.rows,
            M.A.cols, M.A.nnz, M.feat.size_class, M.from_cache ? ", from cache" : "");
    for (int i = 0; !rcode && i < n && !sp_sweep_interrupted; i++) {
        const sp_combo *c = &rc->plan->combos[w[i].combo];
        char axes[256];
        sp_params_text(&c->params, axes, sizeof axes);
        sp_progress_show(&rc->progress, rc->done + 1, M.src.name, c->kernel->name, axes);
        rcode = sp_sweep_combo(rc, &M, matrix_id, c, w[i].round, w[i].cost, err);
    }
    sp_sweep_ops_free(rc);
    sp_matrix_free(&M);
    return rcode;
}

/* The largest `threads` axis value of the plan; all cores without one. */
static int max_threads(const run_ctx *rc)
{
    long most = 0;
    for (int i = 0; i < rc->plan->ncombos; i++) {
        long t = sp_param(&rc->plan->combos[i].params, "threads", 0);
        most = t > most ? t : most;
    }
    return most > 0 ? (int)most : rc->prov.cpu_count;
}

static int begin_sweep(run_ctx *rc, sp_err *err)
{
    const sp_provenance *p = &rc->prov;
    const sp_config *cfg = rc->cfg;
    sp_sweep_meta m;
    sp_sweep_meta_init(&m);
    m.config_path = cfg->path, m.config_text = cfg->text;
    m.git_commit = p->git_commit, m.host = p->host, m.cpu = p->cpu;
    m.cpu_count = p->cpu_count, m.gpu = p->have_gpu ? p->gpu : NULL;
    m.gpu_driver = p->have_gpu ? p->gpu_driver : NULL;
    m.cuda_runtime = p->have_gpu ? p->cuda_runtime : NULL, m.compiler = p->compiler;
    m.cflags = p->cflags, m.omp_binding = p->omp_binding;
    m.isolate = sp_isolate_name(cfg->isolate);
    m.rounds = cfg->rounds, m.seed = cfg->seed, m.cache = cfg->cold ? "cold" : "warm";
    m.batch = cfg->batch, m.min_sample_s = cfg->min_sample_s;
    m.noisy_threshold = cfg->noisy_threshold, m.libraries = p->libraries;
    m.repetitions = cfg->repetitions, m.warmup = cfg->warmup;
    m.timeout_s = cfg->timeout_s, m.repetitions_auto = cfg->auto_reps;
    m.max_noise = cfg->auto_reps ? cfg->max_noise : 0;
    m.max_time_s = cfg->auto_reps ? cfg->max_time_s : 0;
    m.plan_hash = rc->plan_hash, m.binary_hash = rc->binary_hash;
    m.git_dirty = p->git_dirty, m.os = p->os, m.kernel_release = p->kernel_release;
    m.cpu_sockets = p->cpu_sockets, m.cpu_cores = p->cpu_cores;
    m.cpu_threads = p->cpu_threads, m.mem_total_gib = p->mem_total_gib;
    if (p->have_gpu) {
        m.gpu_sm_count = p->gpu_info.sm_count, m.gpu_mem_gib = p->gpu_info.mem_total_gib;
        m.gpu_clock_mhz = p->gpu_info.clock_mhz;
        m.gpu_mem_clock_mhz = p->gpu_info.mem_clock_mhz;
        m.device_copy_gbs = p->gpu_info.copy_gbs;
        m.device_l2_gbs = p->gpu_info.l2_gbs, m.device_l2_bytes = p->gpu_info.l2_bytes;
    }
    m.host_triad_threads = max_threads(rc);
    m.host_triad_gbs = sp_stream_triad(m.host_triad_threads);
    uint64_t llc = 0;
    m.host_cache_gbs = sp_cache_triad(m.host_triad_threads, &llc);
    m.host_cache_bytes = (int64_t)llc;
    if (rc->o && rc->o->shard_count > 1)
        m.shard_index = rc->o->shard_index, m.shard_count = rc->o->shard_count;
    return sp_store_begin_sweep(rc->st, &m, &rc->sweep_id, err);
}

/* Continue the latest sweep of this plan, binary and shard (unless told to
 * start afresh), or begin a new one. */
static int open_sweep(run_ctx *rc, sp_err *err)
{
    int si = 0, sc = 0;
    if (rc->o && rc->o->shard_count > 1)
        si = rc->o->shard_index, sc = rc->o->shard_count;
    int64_t id = 0;
    if (!(rc->o && rc->o->fresh) &&
        sp_store_find_sweep(rc->st, rc->plan_hash, rc->binary_hash, si, sc, &id, err))
        return -1;
    if (!id)
        return begin_sweep(rc, err);
    rc->sweep_id = id;
    rc->resumed = 1;
    return sp_store_reopen_sweep(rc->st, id, err);
}

/* Drop from the to-do list every pair the sweep holds already. */
static int drop_stored(run_ctx *rc, sp_err *err)
{
    sp_done_set d;
    if (!rc->resumed || sp_done_load(rc->st, rc->sweep_id, &d, err))
        return rc->resumed ? -1 : 0;
    int kept = 0, before = rc->todo.n;
    rc->todo.total_cost = 0;
    for (int i = 0; i < before; i++) {
        const sp_work *w = &rc->todo.w[i];
        if (sp_done_has(&d, rc->cfg->matrices[w->matrix].text, &rc->plan->combos[w->combo],
                        w->round))
            continue;
        rc->todo.total_cost += w->cost;
        rc->todo.w[kept++] = *w;
    }
    rc->todo.n = kept;
    sp_done_free(&d);
    sp_sweep_say(rc, "resuming sweep %lld: %d of %d selected runs already stored\n",
        (long long)rc->sweep_id, before - kept, before);
    return 0;
}

/* One line up front when the plan holds GPU kernels and there is no GPU. */
static void announce_gpu(const run_ctx *rc, const sp_plan *plan)
{
    if (rc->prov.have_gpu) {
        sp_sweep_say(rc, "GPU: %s, driver %s, runtime %s\n", rc->prov.gpu, rc->prov.gpu_driver,
            rc->prov.cuda_runtime);
        return;
    }
    for (int i = 0; i < plan->ncombos; i++)
        if (plan->combos[i].kernel->needs_gpu) {
            sp_sweep_say(rc, "GPU kernels skipped: %s\n", rc->prov.gpu_reason);
            return;
        }
}

static int sweep_all(run_ctx *rc, sp_err *err)
{
    const sp_plan *plan = rc->plan;
    rc->total = rc->todo.n;
    rc->name_width = 12;
    for (int m = 0; m < rc->cfg->nmatrices; m++) {
        int w = (int)strlen(rc->cfg->matrices[m].name);
        rc->name_width = w > rc->name_width ? (w < 64 ? w : 64) : rc->name_width;
    }
    char reps[32];
    snprintf(reps, sizeof reps, rc->cfg->auto_reps ? "auto (>= %d)" : "%d",
             rc->cfg->repetitions);
    sp_sweep_say(rc, "sweep %s: %d matrices x %d combinations, %s repetitions + %d warm-up, "
        "isolate %s -> %s\n", rc->cfg->path, rc->cfg->nmatrices, plan->ncombos, reps,
        rc->cfg->warmup, sp_isolate_name(rc->cfg->isolate), rc->cfg->database);
    char why[512];
    int unfit = sp_select_unfit(rc->cfg, plan, why, sizeof why);
    if (unfit)
        sp_sweep_say(rc, "%s\n", why);
    int planned = (rc->cfg->nmatrices * plan->ncombos - unfit) * rc->cfg->rounds;
    if (rc->cfg->rounds > 1)
        sp_sweep_say(rc, "%d rounds, each in a new order (seed %ld)\n", rc->cfg->rounds,
            rc->cfg->seed);
    if (rc->total != planned)
        sp_sweep_say(rc, "running %d of the plan's %d runs\n", rc->total, planned);
    announce_gpu(rc, plan);
    sp_progress_start(&rc->progress, rc->o ? rc->o->log : NULL, rc->o && rc->o->live,
                      rc->total, rc->todo.total_cost);
    for (int i = 0; i < rc->todo.n && !sp_sweep_interrupted;) {
        int n = 1;
        while (i + n < rc->todo.n && rc->todo.w[i + n].matrix == rc->todo.w[i].matrix)
            n++;
        if (sweep_matrix(rc, &rc->todo.w[i], n, err))
            return -1;
        i += n;
    }
    sp_progress_clear(&rc->progress);
    char took[32];
    sp_duration_text(sp_seconds() - rc->progress.t0, took, sizeof took);
    sp_sweep_say(rc, "%d runs in %s", rc->res->runs, took);
    if (rc->res->workers)
        sp_sweep_say(rc, " (%d worker process%s)", rc->res->workers,
            rc->res->workers == 1 ? "" : "es");
    sp_sweep_say(rc, "\n");
    return 0;
}

/* The sweep's identity, its selection, and the test hook. */
static int prepare_run(run_ctx *rc, sp_err *err)
{
    const char *hook = getenv("SPSWEEP_TEST_KILL_AFTER");
    rc->kill_after = hook ? strtol(hook, NULL, 10) : 0;
    if (sp_plan_hash(rc->cfg, rc->plan, rc->plan_hash, err) ||
        sp_binary_hash(rc->binary_hash, err))
        return -1;
    return sp_select(rc->cfg, rc->plan, rc->o, &rc->todo, err) ||
           sp_worklist_rounds(&rc->todo, rc->cfg->rounds, rc->cfg->seed, err);
}

/* Close the sweep after its loop: its final status and, when it ran to
 * its end, its tally and the summary. One that could not go on (its
 * database cannot be written: a full disk, a file-size limit) says what
 * became of it after the reason. */
static int finish_sweep(run_ctx *rc, int rcode, sp_err *err)
{
    sp_err e2;
    if (!rcode && sp_sweep_interrupted)
        rcode = sp_fail(err, "interrupted after %d runs (all stored in %s)", rc->res->runs,
                        rc->cfg->database);
    const char *final = rcode ? (sp_sweep_interrupted ? "interrupted" : "failed") : "done";
    int ended = sp_store_end_sweep(rc->st, rc->sweep_id, final, &e2) == 0;
    if (rcode && !sp_sweep_interrupted) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        sp_fail(err, "%s; sweep %lld stopped%s: the runs it stored are kept, and the same "
                "command resumes it", why, (long long)rc->sweep_id,
                ended ? ", marked failed" : "");
    }
    if (rcode)
        return rcode;
    if (!ended || sp_store_sweep_tally(rc->st, rc->sweep_id, &rc->res->sweep, &e2))
        return sp_fail(err, "%s", e2.msg);
    if (rc->o && rc->o->log && !rc->o->no_summary) {
        sp_store_print_summary(rc->st, rc->sweep_id, rc->o->log, &e2);
        sp_advised_summary(rc->st, rc->sweep_id, rc->o->log);
    }
    return 0;
}

/* Where this invocation's time went, outside and inside its runs, in one
 * line that `sweep --gpus` reads back from each shard's log
 * (SP_SWEEP_TIMING_FMT in runner.h): the machine record (provenance: the
 * GPU probe with its device-copy measurement, the GPU keeper's start), the
 * sweep record (the host bandwidth measurement, the resume check), the
 * loop over the runs (loading each matrix included) and the closing
 * (final status, tally, summary). */
static void say_timing(const run_ctx *rc, const double *t)
{
    sp_sweep_say(rc, SP_SWEEP_TIMING_FMT "\n", t[1] - t[0], t[2] - t[1], t[3] - t[2],
                 t[4] - t[3]);
}

int sp_sweep_run(const sp_config *cfg, const sp_sweep_opts *o, sp_sweep_result *res,
                 sp_err *err)
{
    sp_plan plan;
    memset(res, 0, sizeof *res);
    if (sp_plan_expand(cfg, &plan, err))
        return -1;
    run_ctx rc = {.cfg = cfg, .o = o, .res = res, .plan = &plan};
    sp_gpu_keeper keeper = {.pid = -1};
    int rcode = -1;
    if (prepare_run(&rc, err))
        goto out;
    FILE *plan_out = o && o->dry_run ? (o->log ? o->log : stdout) : NULL;
    sp_plan_warn(cfg, &plan, &rc.todo, plan_out);
    if (plan_out) {
        rcode = sp_sweep_print_plan(cfg, &plan, &rc.todo, plan_out, err);
        goto out;
    }
    if (sp_store_open(cfg->database, &rc.st, err))
        goto out;
    double t[5];                /* the phases of this invocation (say_timing) */
    t[0] = sp_seconds();
    sp_gpu_keeper_fork(&plan, &keeper);
    sp_provenance_collect(&rc.prov);
    sp_gpu_keeper_await(&keeper, rc.prov.have_gpu);
    t[1] = sp_seconds();
    if (open_sweep(&rc, err) || drop_stored(&rc, err) ||
        sp_advised_store(rc.st, rc.sweep_id, cfg, &plan, rc.todo.advised, err))
        goto out;
    res->sweep_id = rc.sweep_id;
    sp_sweep_interrupted = 0;
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    t[2] = sp_seconds();
    rcode = sweep_all(&rc, err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    t[3] = sp_seconds();
    rcode = finish_sweep(&rc, rcode, err);
    t[4] = sp_seconds();
    say_timing(&rc, t);
out:
    sp_gpu_keeper_stop(&keeper);
    sp_store_close(rc.st);
    sp_worklist_free(&rc.todo);
    sp_plan_free(&plan);
    return rcode;
}
