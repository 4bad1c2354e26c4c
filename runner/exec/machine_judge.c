/*
 * machine_judge.c — was the machine fit to measure on? From the readings
 * before and after a run (machine.c): throttled GPU, a CPU shared with
 * others, a clock that fell, a governor that lets clocks wander; the GPU
 * energy the run used; a one-line explanation for the log. Pure
 * functions of the readings, so every rule is tested on made-up ones.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"

/* A clock below this share of its value before the run has dropped. */
#define FREQ_DROP_RATIO 0.9
/* More than this share of the interval's jiffies stolen: busy. */
#define STEAL_BUSY 0.02
/* Load (or CPUs' worth of others' time) above what the machine can run
 * at once by more than this: busy. Half a CPU leaves room for the kernel
 * threads and the sweep's own parent process. */
#define LOAD_MARGIN 0.5
/* Others' CPU time is judged over at least this many jiffies per CPU
 * (0.5 s at USER_HZ = 100): shorter intervals are a few ticks of noise. */
#define MIN_WINDOW_J 50

/* Throttle reasons, and why three are not: GPU idle ("nothing is running
 * on the GPU and the clocks are dropping to idle state") only says a
 * reading fell between kernels; applications clocks and display clock
 * setting are clocks somebody set on purpose, constant for the sweep and
 * recorded with it. Every other reason lowers the clocks under the load
 * the run itself puts on the GPU, as NVML's reference (group
 * nvmlClocksEventReasons) describes them: SwPowerCap "the clocks have been
 * optimized to ensure not to exceed currently set power limits", the HW
 * slowdowns "reducing the core clocks by a factor of 2 or more" (thermal,
 * external power brake), SW thermal slowdown, and sync boost, where the
 * GPU is held to the lowest clocks of its sync-boost group, whatever
 * limits the others. Bits NVML adds later (board limit, reliability in
 * recent headers) are limits too, and count as throttling until named. */
static unsigned long long throttle_bits(const sp_machine_state *s)
{
    return s && s->gpu_valid && s->has_reasons ? s->reasons & ~SP_NVML_REASONS_BENIGN : 0;
}

static double larger(double a, double b)
{
    return isnan(a) || b > a ? b : a;
}

/* after / before of two known positive values; NaN otherwise. */
static double ratio(double before, double after)
{
    return before > 0 && after >= 0 ? after / before : NAN;
}

/* Steal and others' CPU time between the two readings of /proc/stat. The
 * load average counts the run's own threads, and lags a minute behind the
 * sweep's earlier runs; the jiffies that other processes used while the
 * run ran do not (they need both readings from the process that ran it).
 * The run needs `threads` CPUs; others are in its way when they use more
 * than the rest. */
static void judge_jiffies(const sp_machine_state *b, const sp_machine_state *a,
                          sp_machine_verdict *v)
{
    if (!b || !a || !b->has_stat || !a->has_stat || a->total_j <= b->total_j ||
        a->steal_j < b->steal_j || a->busy_j < b->busy_j)
        return;
    double dt = (double)(a->total_j - b->total_j);
    v->steal_pct = 100.0 * (double)(a->steal_j - b->steal_j) / dt;
    if (v->steal_pct > 100.0 * STEAL_BUSY)
        v->busy_why |= SP_BUSY_STEAL;
    if (!b->has_self || !a->has_self || a->self_j < b->self_j || v->nproc <= 0 ||
        dt < (double)MIN_WINDOW_J * v->nproc)
        return;
    double others = (double)(a->busy_j - b->busy_j) - (double)(a->self_j - b->self_j);
    int need = v->threads < v->nproc ? v->threads : v->nproc;
    v->others_cpus = (others > 0 ? others : 0) / dt * v->nproc;
    if (v->others_cpus > v->nproc - need + LOAD_MARGIN)
        v->busy_why |= SP_BUSY_OTHERS;
}

/* The load average: it counts the run's own threads and the sweep's
 * earlier runs (a one-minute average lags), neither of which needs more
 * than the machine's CPUs (or the run's threads, when it oversubscribes
 * on purpose); a load above that means other processes wanted CPUs too.
 * The one signal for runs too short for the jiffies. */
static void judge_load(const sp_machine_state *b, const sp_machine_state *a,
                       sp_machine_verdict *v)
{
    v->load1 = larger(b ? b->load1 : NAN, a ? a->load1 : NAN);
    double room = v->nproc > v->threads ? v->nproc : v->threads;
    if (v->nproc > 0 && !isnan(v->load1) && v->load1 > room + LOAD_MARGIN)
        v->busy_why |= SP_BUSY_LOAD;
}

/* The run queue: tasks runnable at a reading, less the reader's own
 * process (the reader, the run's workers still spinning) and its parent
 * (the sweep, woken by the run's frames), are others that want a CPU now;
 * more of them than the CPUs the run leaves free means somebody waits. Both
 * readings must say so (one is a moment, and a kernel thread passing
 * through is not a busy machine). A run of a few milliseconds, whose
 * jiffies are too few and whose load average lags a minute, is judged by
 * this alone. */
static void judge_queue(const sp_machine_state *b, const sp_machine_state *a,
                        sp_machine_verdict *v)
{
    if (!b || !a || b->procs_running <= 0 || a->procs_running <= 0 || v->nproc <= 0)
        return;
    int ob = b->procs_running - b->own_running, oa = a->procs_running - a->own_running;
    v->running = ob < oa ? ob : oa;
    v->running = v->running > 0 ? v->running : 0;
    int need = v->threads < v->nproc ? v->threads : v->nproc;
    if (v->running > v->nproc - need)
        v->busy_why |= SP_BUSY_QUEUE;
}

/* CPU frequency (mean over the run's CPUs) and SM clock, after / before.
 * An SM clock read while the GPU reports idle has fallen because the work
 * ended, not because the GPU was slowed: not a drop. */
static void judge_freq(const sp_machine_state *b, const sp_machine_state *a,
                       sp_machine_verdict *v)
{
    if (!b || !a)
        return;
    v->cpu_ratio = ratio(b->mhz_mean, a->mhz_mean);
    int idle = a->has_reasons && (a->reasons & SP_NVML_REASON_GPU_IDLE);
    if (b->gpu_valid && a->gpu_valid && b->gpu == a->gpu && !strcmp(b->bus, a->bus) && !idle)
        v->gpu_ratio = ratio(b->sm_mhz, a->sm_mhz);
    if (v->cpu_ratio < FREQ_DROP_RATIO || v->gpu_ratio < FREQ_DROP_RATIO)
        v->flags |= SP_MACHINE_FREQ_DROP;
}

void sp_machine_judge(const sp_machine_state *before, const sp_machine_state *after,
                      int threads, int nproc, sp_machine_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->threads = threads > 0 ? threads : 1;
    v->nproc = nproc;
    v->load1 = v->steal_pct = v->others_cpus = v->cpu_ratio = v->gpu_ratio = NAN;
    v->running = -1;
    v->throttle = throttle_bits(before) | throttle_bits(after);
    if (v->throttle)
        v->flags |= SP_MACHINE_THROTTLED;
    judge_load(before, after, v);
    judge_jiffies(before, after, v);
    judge_queue(before, after, v);
    if (v->busy_why)
        v->flags |= SP_MACHINE_BUSY;
    judge_freq(before, after, v);
    const sp_machine_state *g = after && after->governor[0] ? after : before;
    if (g && g->governor[0]) {
        snprintf(v->governor, sizeof v->governor, "%s", g->governor);
        if (strcmp(g->governor, "performance") != 0)
            v->flags |= SP_MACHINE_NOT_PERFORMANCE;
    }
}

unsigned sp_machine_flags(const sp_machine_state *before, const sp_machine_state *after,
                          int threads, int nproc)
{
    sp_machine_verdict v;
    sp_machine_judge(before, after, threads, nproc, &v);
    return v.flags;
}

double sp_machine_energy_j(const sp_machine_state *before, const sp_machine_state *after)
{
    if (!before || !after || !before->gpu_valid || !after->gpu_valid ||
        !before->has_energy || !after->has_energy || before->gpu != after->gpu ||
        strcmp(before->bus, after->bus) != 0 || after->energy_mj < before->energy_mj)
        return NAN;
    return (double)(after->energy_mj - before->energy_mj) / 1000.0;
}

double sp_machine_mean_power_w(const sp_machine_state *before, const sp_machine_state *after)
{
    double j = sp_machine_energy_j(before, after);
    double dt = isnan(j) ? NAN : after->mono - before->mono;
    return dt > 0 ? j / dt : NAN;
}

/* NVML's reasons by name, for the log. */
static const struct {
    unsigned long long bit;
    const char *name;
} reason_names[] = {
    {SP_NVML_REASON_SW_POWER_CAP, "power cap"},
    {SP_NVML_REASON_HW_SLOWDOWN, "hw slowdown"},
    {SP_NVML_REASON_SYNC_BOOST, "sync boost"},
    {SP_NVML_REASON_SW_THERMAL, "sw thermal"},
    {SP_NVML_REASON_HW_THERMAL, "hw thermal"},
    {SP_NVML_REASON_HW_POWER_BRAKE, "power brake"},
};

/* snprintf appending at *n of buf[len], keeping the would-be length. */
#define APPEND(...)                                                                       \
    (n += snprintf(n < (int)len ? buf + n : NULL, n < (int)len ? len - (size_t)n : 0, \
                   __VA_ARGS__))

static int describe_throttle(unsigned long long bits, char *buf, size_t len, int n)
{
    const char *sep = "";
    APPEND("throttled (");
    for (size_t i = 0; i < sizeof reason_names / sizeof *reason_names; i++)
        if (bits & reason_names[i].bit) {
            APPEND("%s%s", sep, reason_names[i].name);
            bits &= ~reason_names[i].bit;
            sep = ", ";
        }
    if (bits)
        APPEND("%sreasons 0x%llx", sep, bits);
    return APPEND(")");
}

static int describe_busy(const sp_machine_verdict *v, char *buf, size_t len, int n)
{
    const char *sep = "";
    APPEND("busy (");
    if (v->busy_why & SP_BUSY_LOAD)
        APPEND("load %.1f on %d CPUs", v->load1, v->nproc), sep = ", ";
    if (v->busy_why & SP_BUSY_OTHERS)
        APPEND("%sothers used %.1f CPUs", sep, v->others_cpus), sep = ", ";
    if (v->busy_why & SP_BUSY_STEAL)
        APPEND("%ssteal %.1f %%", sep, v->steal_pct), sep = ", ";
    if (v->busy_why & SP_BUSY_QUEUE)
        APPEND("%s%d others runnable on %d CPUs", sep, v->running, v->nproc);
    return APPEND(")");
}

static int describe_drop(const sp_machine_verdict *v, char *buf, size_t len, int n)
{
    const char *sep = "";
    APPEND("frequency drop (");
    if (v->cpu_ratio < FREQ_DROP_RATIO)
        APPEND("CPU to %.0f %%", 100 * v->cpu_ratio), sep = ", ";
    if (v->gpu_ratio < FREQ_DROP_RATIO)
        APPEND("%sSM clock to %.0f %%", sep, 100 * v->gpu_ratio);
    return APPEND(")");
}

int sp_machine_describe(const sp_machine_verdict *v, char *buf, size_t len)
{
    int n = 0;
    const char *sep = "";
    if (len)
        buf[0] = '\0';
    if (v->flags & SP_MACHINE_THROTTLED)
        n = describe_throttle(v->throttle, buf, len, n), sep = ", ";
    if (v->flags & SP_MACHINE_BUSY)
        n = describe_busy(v, buf, len, APPEND("%s", sep)), sep = ", ";
    if (v->flags & SP_MACHINE_FREQ_DROP)
        n = describe_drop(v, buf, len, APPEND("%s", sep)), sep = ", ";
    if (v->flags & SP_MACHINE_NOT_PERFORMANCE)
        APPEND("%sgovernor %s", sep, v->governor);
    return n;
}
