/*
 * harness.c — the measurement clock (harness.h): samples of back-to-back
 * launches between two readings of one clock, cache flushes for cold
 * samples, and the batch size that makes a short kernel's sample long
 * enough to mean something.
 *
 * Why batches: a 5 µs GPU kernel timed alone is a 5 µs interval between
 * two events, where the events' own resolution (0.5 µs) and the launch
 * gaps are a tenth of it; timed 100 at a time the sample lasts 0.5 ms and
 * the per-launch time is what the kernel costs in a loop (nvbench's
 * batch measurement). A CPU kernel of 20 µs is likewise at the mercy of one
 * timer interrupt. `batch = 1` keeps the one-launch sample.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* ---- the CPU's last-level cache --------------------------------------- */

/* An integer read from a sysfs file ("32768K", "1M" or plain bytes), 0
 * when it cannot be read. */
static size_t sysfs_size(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned long long v = 0;
    char unit = 0;
    int got = fscanf(f, "%llu%c", &v, &unit);
    fclose(f);
    if (got < 1)
        return 0;
    return (size_t)v * (unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1);
}

/* CPUs in a sysfs cpu list ("0-7,16-23"). */
static int cpus_in_list(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = 0, a, b;
    char sep;
    while (fscanf(f, "%d", &a) == 1) {
        b = a;
        if (fscanf(f, "%c", &sep) == 1 && sep == '-' && fscanf(f, "%d", &b) == 1 &&
            fscanf(f, "%c", &sep) != 1)
            sep = 0;    /* the list's last range */
        n += b - a + 1;
    }
    fclose(f);
    return n;
}

size_t sp_llc_bytes(void)
{
    size_t best = 0;
    int level = 0, share = 1;
    char path[128];
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        int lv = (int)sysfs_size(path);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        size_t sz = sysfs_size(path);
        if (lv >= level && sz > 0) {
            level = lv, best = sz;
            snprintf(path, sizeof path,
                     "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
            share = cpus_in_list(path);
        }
    }
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    /* one instance per group of `share` CPUs (a socket, or an AMD CCX) */
    size_t instances = share > 0 && cpus > share ? (size_t)((cpus + share - 1) / share) : 1;
    return best * instances;
}

/* Touch every word of the flush buffer from `threads` threads (a load and
 * a store each: memset would use streaming stores that bypass the caches). */
static void cpu_flush(const sp_harness *h)
{
    uint64_t *b = h->flush;
    const size_t n = h->flush_words;
#pragma omp parallel for schedule(static) num_threads(h->threads)
    for (size_t i = 0; i < n; i++)
        b[i] += 1;
}

/* ---- opening and closing ---------------------------------------------- */

int sp_harness_open(sp_harness *h, const sp_kernel *k, int cold, int threads, sp_err *err)
{
    memset(h, 0, sizeof *h);
    h->k = k, h->gpu = k->needs_gpu, h->cold = cold;
    h->threads = threads > 0 ? threads : 1;
    if (h->gpu) {
        if (sp_gpu_clock_open(&h->clock, cold, err))
            return -1;
        h->ex.stream = sp_gpu_clock_stream(h->clock);
        return 0;
    }
    if (!cold)
        return 0;
    size_t bytes = 2 * sp_llc_bytes();
    bytes = bytes < ((size_t)64 << 20) ? (size_t)64 << 20 : bytes;
    h->flush_words = bytes / sizeof *h->flush;
    h->flush = sp_alloc_large(h->flush_words * sizeof *h->flush);
    if (!h->flush)
        return sp_fail(err, "cold cache: out of memory for the %zu MiB flush buffer",
                       bytes >> 20);
    memset(h->flush, 0, h->flush_words * sizeof *h->flush);
    return 0;
}

void sp_harness_close(sp_harness *h)
{
    sp_gpu_clock_close(h->clock);
    free(h->flush);
    memset(h, 0, sizeof *h);
}

/* ---- phases ------------------------------------------------------------ */

static void stage(const sp_harness *h, const char *step)
{
    if (h->on_stage)
        h->on_stage(h->stage_ctx, step);
}

/* Wait for the device before and after a GPU phase (a no-op for a CPU
 * kernel), so a phase's time is its own work and all of it. */
static int settle(sp_harness *h, sp_err *err)
{
    return h->gpu ? sp_gpu_clock_device_sync(h->clock, err) : 0;
}

typedef int (*state_step)(void *state, const sp_exec *ex, sp_err *err);

/* One optional step of the state (upload, analyse), timed into *acc. */
static int timed_step(sp_harness *h, const char *name, state_step fn, void *state,
                      double *acc, sp_err *err)
{
    if (!fn)
        return 0;
    stage(h, name);
    if (settle(h, err))
        return sp_fail_prefix(err, "before %s", name);
    double t0 = sp_seconds();
    if (fn(state, &h->ex, err) || settle(h, err))
        return sp_fail_prefix(err, "%s", name);
    *acc += sp_seconds() - t0;
    return 0;
}

/* The GPU kernels of this process that have had their warm run. */
static const sp_kernel *warmed[256];
static int nwarmed;

/* prepare, upload and analyse, each timed into ph. */
static int prepare_steps(sp_harness *h, const sp_problem *pb, const sp_params *p, void **state,
                         sp_phases *ph, sp_err *err)
{
    const sp_kernel *k = h->k;
    stage(h, "prepare");
    double t0 = sp_seconds();
    if (k->prepare(pb, p, state, err))
        return sp_fail_prefix(err, "prepare");
    ph->convert_s += sp_seconds() - t0;
    return timed_step(h, "upload", k->upload, *state, &ph->h2d_s, err) ||
                   timed_step(h, "analyse", k->analyse, *state, &ph->convert_s, err)
               ? -1
               : 0;
}

/* A GPU kernel's first prepare in a process pays for what only a first
 * use costs: its library's first handle, and (most likely: not traced)
 * the modules of its kernels and its library's, which CUDA loads when a
 * kernel first runs (lazy loading, the default since CUDA 12.2). On the
 * H100 (2026-12-07) the first transpose_cusparse conversion of a process
 * took 0.09-0.13 s in the GPU test and 27-42 ms in the study 001 sweep
 * (14 of 23 matrices), the next 3-5e-5 s, one cuSPARSE handle made
 * beforehand notwithstanding; whichever run of a worker came first held
 * it (study 001's mode 1, issue 20). With this warm run: 0.18-0.37 ms on
 * every matrix and cache state of a probe sweep. So the first time a GPU
 * kernel is prepared in a process it runs once on the same problem
 * through the same steps, its phases thrown away: prepare, upload,
 * analyse, a launch, release. A failure is left for the timed prepare to
 * meet and report; a kernel counts as warmed once its warm run went
 * through, so a combination refused in its prepare or failing leaves the
 * next one of the kernel to warm it. */
static void warm_run(sp_harness *h, const sp_problem *pb, const sp_params *p)
{
    for (int i = 0; i < nwarmed; i++)
        if (warmed[i] == h->k)
            return;
    sp_phases thrown = {0, 0, 0, 0};
    sp_err ignored;
    void *state = NULL;
    int ran = !prepare_steps(h, pb, p, &state, &thrown, &ignored) &&
              (stage(h, "warm-up launch"), !sp_harness_launch(h, state, &ignored));
    if (state)
        sp_harness_release(h, state, &thrown);
    if (ran && nwarmed < (int)(sizeof warmed / sizeof *warmed))
        warmed[nwarmed++] = h->k;
}

int sp_harness_prepare(sp_harness *h, const sp_problem *pb, const sp_params *p, void **state,
                       sp_phases *ph, sp_err *err)
{
    const sp_kernel *k = h->k;
    *state = NULL;
    if (!k->prepare || (h->gpu && !k->upload))
        return sp_fail(err, "%s: not built into this binary (no %s)", k->name,
                       k->prepare ? "upload" : "prepare");
    if (h->gpu)
        warm_run(h, pb, p);
    return prepare_steps(h, pb, p, state, ph, err);
}

int sp_harness_result(sp_harness *h, void *state, void *out, sp_phases *ph, sp_err *err)
{
    stage(h, "result");
    if (settle(h, err))
        return sp_fail_prefix(err, "before the result");
    double t0 = sp_seconds();
    if (h->k->result(state, out, &h->ex, err) || settle(h, err))
        return sp_fail_prefix(err, "result");
    if (h->gpu)
        ph->d2h_s += sp_seconds() - t0;
    return 0;
}

void sp_harness_release(sp_harness *h, void *state, sp_phases *ph)
{
    sp_err ignored;
    stage(h, "release");
    settle(h, &ignored);    /* a failed run may leave work in flight */
    double t0 = sp_seconds();
    h->k->release(state);
    settle(h, &ignored);
    ph->free_s += sp_seconds() - t0;
}

/* ---- launches and samples --------------------------------------------- */

double (*sp_harness_cpu_clock)(void) = sp_seconds;

static int reset(sp_harness *h, void *state, sp_err *err)
{
    if (!h->k->reset)
        return 0;
    if (h->k->reset(state, &h->ex, err))
        return sp_fail_prefix(err, "reset");
    return h->gpu ? sp_gpu_clock_sync(h->clock, err) : 0;
}

int sp_harness_launch(sp_harness *h, void *state, sp_err *err)
{
    if (!h->k->launch)
        return sp_fail(err, "%s: not built into this binary (no launch)", h->k->name);
    if (reset(h, state, err) || h->k->launch(state, &h->ex, err))
        return -1;
    return h->gpu ? sp_gpu_clock_sync(h->clock, err) : 0;
}

/* ---- steps (`steps = 1`) ------------------------------------------------ */

/* A name a database column and a JSON key can hold as it is. */
static int step_name_ok(const char *s)
{
    if (!s || !*s || strlen(s) > 48)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return 0;
    return 1;
}

/* ex.mark: read the clock at a step's start. A failure is kept for the
 * sample to report (a launch cannot return it from here). */
static void harness_mark(void *ctx, const char *step)
{
    sp_harness *h = ctx;
    if (!h->in_sample || h->mark_failed)
        return;
    int i = h->nmarks;
    if (!step_name_ok(step))
        h->mark_failed = 1, sp_fail(&h->mark_err, "step name '%s': 1 to 48 letters, digits, "
                                    "'_', '-' or '.'", step ? step : "(null)");
    else if (i == SP_MAX_STEPS)
        h->mark_failed = 1, sp_fail(&h->mark_err, "more than %d step marks in one launch "
                                    "(the last: '%s')", SP_MAX_STEPS, step);
    else if (h->gpu ? sp_gpu_clock_mark(h->clock, i, &h->mark_err)
                    : (h->mark_t[i] = sp_harness_cpu_clock(), 0))
        h->mark_failed = 1;
    else
        h->mark_name[h->nmarks++] = step;
}

void sp_harness_time_steps(sp_harness *h)
{
    h->timing_steps = 1;
    h->ex.mark = harness_mark;
    h->ex.mark_ctx = h;
}

/* h->steps from the sample's marks: t0 the CPU clock at its start, total
 * its length (the whole batch's). */
static int collect_steps(sp_harness *h, double t0, double total, sp_err *err)
{
    double at[SP_MAX_STEPS];
    sp_steps *st = &h->steps;
    st->n = 0;
    if (h->mark_failed)
        return sp_fail(err, "%s", h->mark_err.msg);
    for (int i = 0; i < h->nmarks; i++)
        if (h->gpu ? sp_gpu_clock_mark_elapsed(h->clock, i, &at[i], err)
                   : (at[i] = h->mark_t[i] - t0, 0))
            return -1;
    for (int i = 0; i < h->nmarks; i++) {
        double from = i == 0 ? 0 : at[i], to = i + 1 < h->nmarks ? at[i + 1] : total;
        int slot = 0;
        while (slot < st->n && strcmp(st->name[slot], h->mark_name[i]))
            slot++;
        if (slot == st->n)
            st->name[st->n] = h->mark_name[i], st->seconds[st->n++] = 0;
        st->seconds[slot] += to > from ? to - from : 0;
    }
    return 0;
}

const char *sp_blocking_name(sp_blocking b)
{
    return b == SP_BLOCKING_ON ? "on" : b == SP_BLOCKING_TIMEOUT ? "timeout" : "off";
}

/* The kernels of this process whose launches waited for the device
 * behind the blocking kernel: their later runs go without it at once. */
static const sp_kernel *waits_for_device[32];
static int nwaits;

static int known_to_wait(const sp_kernel *k)
{
    for (int i = 0; i < nwaits; i++)
        if (waits_for_device[i] == k)
            return 1;
    return 0;
}

static void remember_wait(const sp_kernel *k)
{
    if (!known_to_wait(k) && nwaits < (int)(sizeof waits_for_device / sizeof *waits_for_device))
        waits_for_device[nwaits++] = k;
}

/* Let the blocking kernel go when a sample ends early (an error). */
static void unblock(sp_harness *h)
{
    if (h->gpu)
        sp_gpu_clock_unblock(h->clock);
}

int sp_harness_sample(sp_harness *h, void *state, int batch, double *seconds, sp_err *err)
{
    if (batch < 1 || batch > SP_BATCH_MAX)
        return sp_fail(err, "batch = %d outside 1..%d", batch, SP_BATCH_MAX);
    if (h->timing_steps && batch != 1)
        return sp_fail(err, "steps = 1 times one launch a sample, not a batch of %d", batch);
    if (h->cold && (h->gpu ? sp_gpu_clock_flush(h->clock, err) : (cpu_flush(h), 0)))
        return -1;
    if (!h->k->launch)
        return sp_fail(err, "%s: not built into this binary (no launch)", h->k->name);
    if (reset(h, state, err))
        return -1;
    if (h->gpu && h->blocking == SP_BLOCKING_ON && known_to_wait(h->k))
        h->blocking = SP_BLOCKING_TIMEOUT;
    int block = h->gpu && h->blocking == SP_BLOCKING_ON;
    if (block && sp_gpu_clock_block(h->clock, SP_BLOCKING_TIMEOUT_S, err))
        return -1;
    double t0 = 0, total = 0;
    if (h->gpu ? sp_gpu_clock_start(h->clock, err) : (t0 = sp_harness_cpu_clock(), 0))
        return unblock(h), -1;
    h->in_sample = h->timing_steps, h->nmarks = 0, h->mark_failed = 0;
    for (int i = 0; i < batch; i++)
        if (h->k->launch(state, &h->ex, err))
            return h->in_sample = 0, unblock(h),
                   sp_fail_prefix(err, "launch %d of %d", i + 1, batch);
    h->in_sample = 0;
    if (h->gpu ? sp_gpu_clock_stop(h->clock, &total, err)
               : (total = sp_harness_cpu_clock() - t0, 0))
        return -1;
    if (block && sp_gpu_clock_block_gave_up(h->clock)) {
        /* the launches waited for the device, which waited for the
         * block: this sample holds the timeout; take it again without */
        h->blocking = SP_BLOCKING_TIMEOUT;
        remember_wait(h->k);
        return sp_harness_sample(h, state, batch, seconds, err);
    }
    if (h->timing_steps && collect_steps(h, t0, total, err))
        return sp_fail_prefix(err, "steps");
    *seconds = total / batch;
    return 0;
}

/* Launches that fill min_s at `per` seconds each, within 1..SP_BATCH_MAX. */
static int batch_for(double min_s, double per)
{
    if (!(per > 0))
        return SP_BATCH_MAX;
    double b = ceil(min_s / per);
    return b < 1 ? 1 : b > SP_BATCH_MAX ? SP_BATCH_MAX : (int)b;
}

int sp_harness_batch(sp_harness *h, void *state, double min_sample_s, int *batch, sp_err *err)
{
    *batch = 1;
    if (h->cold || h->k->reset || h->timing_steps || !h->k->launch || !(min_sample_s > 0))
        return 0;
    double one = 0;
    if (sp_harness_sample(h, state, 1, &one, err))
        return sp_fail_prefix(err, "batch calibration");
    int b = batch_for(min_sample_s, one);
    if (b == 1)
        return 0;
    /* launches in a row cost less than one alone (the launch latency
     * overlaps): check the guess once and grow it if the sample fell short */
    double per = 0;
    if (sp_harness_sample(h, state, b, &per, err))
        return sp_fail_prefix(err, "batch calibration");
    if (per * b < min_sample_s)
        b = batch_for(min_sample_s * 1.1, per);
    *batch = b;
    return 0;
}
