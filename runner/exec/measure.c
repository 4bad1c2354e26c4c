/*
 * measure.c — what a combination's child does (measure.h): check device
 * memory, prepare, warm up, size the batch, time the repetitions (a fixed
 * count, or until the median is pinned down: `repetitions = auto`) through
 * the harness (harness.h: the harness owns the clock, the kernel only
 * launches), fetch the result, check it against the reference, release,
 * and report every step to the parent as it starts, so a crash can be told
 * apart by stage.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "harness.h"
#include "measure.h"
#include "measure_machine.h"
#include "measure_steps.h"
#include "../plan/memguard.h"
#include "../../db/stats.h"

/* An auto run never keeps more samples than this (stop reason 'count'). */
#define AUTO_MAX_REPS 100000
/* Fewest repetitions of an auto run. */
#define AUTO_MIN_REPS 10

typedef struct sample_buf {
    double *v, *scratch;
    int32_t *flags;             /* SP_MACHINE_* bits of each sample */
    int n, cap;
} sample_buf;

static void stage(int fd, const char *what)
{
    sp_profile_mark(what);
    sp_wire_send(fd, SP_MSG_STAGE, what, strlen(what));
}

/* The kernel's facts about what it built (sp_kernel.info), when it has
 * any: a JSON object, or nothing when it cannot say. */
static void send_info(int fd, const sp_kernel *k, void *state)
{
    char json[1024];
    if (!k->info || k->info(state, json, sizeof json) || json[0] != '{')
        return;
    sp_wire_send(fd, SP_MSG_INFO, json, strnlen(json, sizeof json - 1));
}

/* The harness's steps (prepare, upload, analyse, result, release). */
static void stage_hook(void *ctx, const char *step)
{
    stage((int)(intptr_t)ctx, step);
}

/* Append one sample, growing both arrays. */
static int push(sample_buf *b, double s, int32_t flags, sp_err *err)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        double *v = realloc(b->v, (size_t)cap * sizeof *v);
        if (v)
            b->v = v;
        double *sc = v ? realloc(b->scratch, (size_t)cap * sizeof *sc) : NULL;
        if (sc)
            b->scratch = sc;
        int32_t *fl = sc ? realloc(b->flags, (size_t)cap * sizeof *fl) : NULL;
        if (!fl)
            return sp_fail(err, "out of memory for %d samples", cap);
        b->flags = fl;
        b->cap = cap;
    }
    b->flags[b->n] = flags;
    b->v[b->n++] = s;
    return 0;
}

/* Is it time to look at the noise? Every repetition up to 100, then every
 * 2 % more (sorting each time would cost O(n^2 log n)). */
static int noise_due(int n)
{
    return n < 100 || n % (n / 50) == 0;
}

/* Should an auto run stop after n samples? Sets *stop. */
static int auto_done(const sp_measure_job *j, sample_buf *b, double t0, int *stop)
{
    int min = j->repetitions > AUTO_MIN_REPS ? j->repetitions : AUTO_MIN_REPS;
    if (b->n < min)
        return 0;
    if (b->n >= AUTO_MAX_REPS)
        return *stop = SP_STOP_COUNT, 1;
    if (noise_due(b->n) && sp_median_noise(b->v, b->n, b->scratch) <= j->max_noise)
        return *stop = SP_STOP_NOISE, 1;
    if (sp_seconds() - t0 >= j->max_time_s)
        return *stop = SP_STOP_TIME, 1;
    return 0;
}

/* The timed repetitions; each is one sample of `batch` launches, stored as
 * the time of one launch. */
static int timed_reps(const sp_measure_job *j, sp_harness *h, void *state, int batch,
                      sp_run_machine *m, sample_buf *b, sp_step_series *ss, int *stop,
                      sp_err *err)
{
    double t0 = sp_seconds();
    for (;;) {
        double s;
        if (sp_harness_sample(h, state, batch, &s, err))
            return sp_fail_prefix(err, "repetition %d", b->n + 1);
        if (!(s > 0) || !isfinite(s))
            return sp_fail(err, "repetition %d: measured %g s", b->n + 1, s);
        if (push(b, s, sp_run_machine_sample(m), err) ||
            (h->timing_steps && sp_step_series_push(ss, &h->steps, err)))
            return -1;
        if (!j->auto_reps && b->n >= j->repetitions)
            return *stop = SP_STOP_COUNT, 0;
        if (j->auto_reps && auto_done(j, b, t0, stop))
            return 0;
    }
}

/* Does the device have what the kernel said it needs? 0 yes, 1 no (the
 * reason in err), -1 cannot tell. Only for GPU kernels. */
static int device_short(const sp_measure_job *j, sp_err *err)
{
    if (!j->kernel->needs_gpu || j->need_device_bytes == 0)
        return 0;
    uint64_t avail = 0, total = 0;
    char why[512];
    if (sp_gpu_mem_here(&avail, &total, why, sizeof why))
        return sp_fail(err, "%s", why);
    if (j->need_device_bytes <= avail)
        return 0;
    sp_mem_shortfall(err->msg, sizeof err->msg, "device", j->need_device_bytes, avail);
    return 1;
}

/* A fresh child has no OpenMP threads (the parent released its pool before
 * the fork): start them now, at the combination's thread count, so that
 * not even the first timed repetition pays for creating them when the
 * warm-up is 0. A GPU kernel without a threads axis times no host
 * threads: it starts none (the check makes its pool if it needs one). */
static void start_openmp_threads(const sp_measure_job *j)
{
    if (j->kernel->needs_gpu && sp_param(j->params, "threads", 0) <= 0)
        return;
    long threads = sp_param(j->params, "threads", omp_get_max_threads());
#pragma omp parallel num_threads((int)(threads > 0 ? threads : 1))
    {
    }
}

/* The batch: the job's, or calibrated to min_sample_s (harness.h). */
static int choose_batch(const sp_measure_job *j, sp_harness *h, void *state, int *batch,
                        sp_err *err)
{
    if (j->steps)
        return *batch = 1, 0;   /* a step's time is one launch's (harness.h) */
    if (j->batch > 0) {
        *batch = j->cold || j->kernel->reset ? 1 : j->batch;
        return 0;
    }
    return sp_harness_batch(h, state, j->min_sample_s, batch, err);
}

/* Every step up to the check; returns an SP_RUN_* status (OK, FAILED, ERROR or SKIPPED). */
static int measure(const sp_measure_job *j, int fd, sp_harness *h, void **state,
                   sp_phases *ph, sample_buf *b, sp_step_series *ss, sp_wire_done *d,
                   sp_wire_machine *wm, sp_err *err)
{
    const sp_kernel *k = j->kernel;
    int short_mem = device_short(j, err);
    sp_profile_mark("device-memory");
    if (short_mem)
        return short_mem > 0 ? SP_RUN_SKIPPED : SP_RUN_ERROR;
    start_openmp_threads(j);
    long threads = sp_param(j->params, "threads", omp_get_max_threads());
    sp_profile_mark("threads");
    if (sp_harness_open(h, k, j->cold, (int)threads, err))
        return sp_fail_prefix(err, "harness"), SP_RUN_ERROR;
    sp_profile_mark("harness-open");
    h->on_stage = stage_hook, h->stage_ctx = (void *)(intptr_t)fd;
    h->blocking = j->blocking && k->needs_gpu ? SP_BLOCKING_ON : SP_BLOCKING_OFF;
    if (j->steps)
        sp_harness_time_steps(h);
    if (sp_harness_prepare(h, j->pb, j->params, state, ph, err))
        return SP_RUN_ERROR;
    send_info(fd, k, *state);
    stage(fd, "warm-up");
    for (int w = 0; w < j->warmup; w++)
        if (sp_harness_launch(h, *state, err))
            return sp_fail_prefix(err, "warm-up %d", w + 1), SP_RUN_ERROR;
    int batch = 1;
    if (choose_batch(j, h, *state, &batch, err))
        return SP_RUN_ERROR;
    d->batch = batch;
    stage(fd, "repetitions");
    sp_run_machine m;
    sp_run_machine_begin(&m, h, (int)threads);
    sp_profile_mark("machine-before");
    if (timed_reps(j, h, *state, batch, &m, b, ss, &d->stop, err) ||
        (j->energy_s > 0 &&
         sp_run_machine_energy(&m, h, *state, batch, sp_median(b->v, b->n, b->scratch),
                               j->energy_s, j->energy_windows, err)))
        return SP_RUN_ERROR;
    sp_profile_mark("timed");
    d->blocking = (int32_t)h->blocking;     /* ON, or TIMEOUT when it gave up */
    sp_run_machine_end(&m, wm);
    sp_profile_mark("machine-after");
    memset(j->out, 0xff, j->out_bytes);     /* NaN: unwritten output fails the check */
    if (sp_harness_result(h, *state, j->out, ph, err))
        return SP_RUN_ERROR;
    stage(fd, "check");
    d->rel_error = j->op->error(j->pb, j->out, j->ref);
    sp_profile_mark("checked");
    /* the sweep's tolerance, or the bound of the run's precision (kernel.h) */
    double tolerance = sp_run_tolerance(j->op, j->pb, j->ref, j->params, j->tolerance);
    if (!(d->rel_error <= tolerance))
        return sp_fail(err, "relative error %.3g exceeds tolerance %.3g", d->rel_error,
                       tolerance), SP_RUN_FAILED;
    return SP_RUN_OK;
}

/* Send the samples and their flags in frames of at most 1 Mi each. */
static void send_samples(int fd, const sample_buf *b)
{
    for (int i = 0; i < b->n; i += 1 << 20) {
        int n = b->n - i < (1 << 20) ? b->n - i : 1 << 20;
        sp_wire_send(fd, SP_MSG_SAMPLES, b->v + i, (size_t)n * sizeof(double));
        sp_wire_send(fd, SP_MSG_SAMPLE_FLAGS, b->flags + i, (size_t)n * sizeof(int32_t));
    }
}

/* A worker keeps its process for the next combination: after a GPU run
 * that ended well, make sure its context did too (an asynchronous or
 * sticky error would otherwise be blamed on the next run). */
static int context_sound(const sp_measure_job *j, sp_err *err)
{
    if (!j->check_context || !j->kernel->needs_gpu)
        return 1;
    return sp_gpu_healthy_here(err->msg, sizeof err->msg) == 0;
}

/* Measure and report one combination. Samples go only with an ok result;
 * release runs before DONE, so a crash there is a crash of the run. */
int sp_measure(const sp_measure_job *j, int fd)
{
    sp_err err = {{0}};
    sp_phases ph = {0, 0, 0, 0};
    void *state = NULL;
    sample_buf b = {0};
    sp_step_series ss = {0};
    char steps[1024];
    sp_wire_done d = {SP_RUN_ERROR, SP_STOP_COUNT, NAN, 1, SP_BLOCKING_OFF};
    sp_harness h;
    memset(&h, 0, sizeof h);
    static sp_wire_machine wm;      /* 3 KiB: off the stack */
    memset(&wm, 0, sizeof wm);
    sp_profile_mark("begin");
    d.status = measure(j, fd, &h, &state, &ph, &b, &ss, &d, &wm, &err);
    sp_profile_mark("measured");
    if (d.status == SP_RUN_OK) {
        send_samples(fd, &b);
        sp_wire_send(fd, SP_MSG_MACHINE, &wm, sizeof wm);
        /* the kernel's steps, when the sweep times them and it marks any */
        if (!sp_step_series_json(&ss, steps, sizeof steps))
            sp_wire_send(fd, SP_MSG_STEPS, steps, strlen(steps));
    }
    if (state)
        sp_harness_release(&h, state, &ph);
    sp_wire_send(fd, SP_MSG_PHASES, &ph, sizeof ph);
    sp_harness_close(&h);
    sp_profile_mark("closed");
    if (d.status == SP_RUN_OK && !context_sound(j, &err))
        d.status = SP_RUN_ERROR;       /* the samples sent are not kept */
    sp_profile_mark("context-checked");
    size_t mlen = d.status == SP_RUN_OK ? 0 : strlen(err.msg);
    unsigned char msg[sizeof d + sizeof err.msg];
    memcpy(msg, &d, sizeof d);
    memcpy(msg + sizeof d, err.msg, mlen);
    sp_wire_send(fd, SP_MSG_DONE, msg, sizeof d + mlen);
    free(b.v);
    free(b.scratch);
    free(b.flags);
    sp_step_series_free(&ss);
    return d.status;
}

/* The child's body: one combination. */
void sp_measure_child(void *arg, int fd)
{
    sp_measure((const sp_measure_job *)arg, fd);
}
