/* test_machine.c — the machine's state around a run (runner/exec/machine*.c,
 * issue 19 point 4): the judgement (throttled, busy, frequency drop,
 * governor) and the energy from made-up readings; the readings from
 * fixture trees standing in for /proc and /sys (tests/data/machine) and
 * from a fake NVML table; the real machine read without a crash; every
 * reading's JSON valid by SQLite's json_valid. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <unistd.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../runner/exec/machine.h"
#include "testutil.h"

/* A reading with nothing known, as sp_machine_read leaves unknowns. */
static sp_machine_state blank(void)
{
    sp_machine_state s;
    memset(&s, 0, sizeof s);
    s.gpu = -1;
    s.sm_mhz = s.mem_mhz = s.temp_c = s.power_w = NAN;
    s.mhz_mean = s.mhz_min = s.mhz_max = s.load1 = NAN;
    return s;
}

static sp_machine_state gpu_reading(double sm, unsigned long long reasons)
{
    sp_machine_state s = blank();
    s.gpu = 0;
    s.gpu_valid = s.has_reasons = 1;
    s.sm_mhz = sm;
    s.reasons = reasons;
    return s;
}

static void describe(const sp_machine_state *b, const sp_machine_state *a, int threads,
                     int nproc, char *buf, size_t len)
{
    sp_machine_verdict v;
    sp_machine_judge(b, a, threads, nproc, &v);
    sp_machine_describe(&v, buf, len);
}

Test(machine, power_cap_is_throttling)
{
    sp_machine_state b = gpu_reading(1980, 0), a = gpu_reading(1980, SP_NVML_REASON_SW_POWER_CAP);
    char text[256];
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), SP_MACHINE_THROTTLED);
    cr_assert_eq(sp_machine_flags(&a, &b, 1, 2), SP_MACHINE_THROTTLED, "before counts too");
    describe(&b, &a, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "throttled (power cap)");
    a.reasons = SP_NVML_REASON_HW_THERMAL | SP_NVML_REASON_SW_POWER_CAP;
    describe(&b, &a, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "throttled (power cap, hw thermal)");
}

Test(machine, idle_and_clock_settings_are_not_throttling)
{
    sp_machine_state b = gpu_reading(1980, SP_NVML_REASON_GPU_IDLE);
    sp_machine_state a = gpu_reading(1980, SP_NVML_REASON_GPU_IDLE | SP_NVML_REASON_APP_CLOCKS |
                                               SP_NVML_REASON_DISPLAY_CLOCKS);
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u);
    /* reasons not read (or no GPU) say nothing, whatever the field holds */
    a.reasons = SP_NVML_REASON_HW_SLOWDOWN;
    a.has_reasons = 0;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u);
}

Test(machine, sync_boost_and_unnamed_reasons_are_throttling)
{
    sp_machine_state b = gpu_reading(1980, 0), a = gpu_reading(1980, SP_NVML_REASON_SYNC_BOOST);
    char text[256];
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), SP_MACHINE_THROTTLED);
    a.reasons = 0x200 | SP_NVML_REASON_GPU_IDLE;
    describe(&b, &a, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "throttled (reasons 0x200)");
}

Test(machine, load_above_the_cpus_is_busy)
{
    sp_machine_state b = blank(), a = blank();
    char text[256];
    b.load1 = 1.2;
    a.load1 = 5.0;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), SP_MACHINE_BUSY, "load 5 on 2 CPUs");
    describe(&b, &a, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "busy (load 5.0 on 2 CPUs)");
    /* the sweep's own earlier runs of 2 threads, nobody else */
    a.load1 = 2.4;
    cr_assert_eq(sp_machine_flags(&b, &a, 2, 2), 0u);
    /* a run that oversubscribes on purpose explains its own load */
    a.load1 = 8.2;
    cr_assert_eq(sp_machine_flags(&b, &a, 8, 2), 0u);
    a.load1 = 9.0;
    cr_assert_eq(sp_machine_flags(&b, &a, 8, 2), SP_MACHINE_BUSY);
    /* the larger of the two readings counts */
    cr_assert_eq(sp_machine_flags(&a, NULL, 8, 2), SP_MACHINE_BUSY);
}

/* Two /proc/stat readings `total` jiffies apart with `busy`, `steal` and
 * the process's own `self` jiffies in between. */
static void jiffies(sp_machine_state *b, sp_machine_state *a, unsigned long long total,
                    unsigned long long busy, unsigned long long steal, unsigned long long self)
{
    *b = blank();
    *a = blank();
    b->has_stat = a->has_stat = b->has_self = a->has_self = 1;
    b->total_j = 100000, b->busy_j = 40000, b->steal_j = 500, b->self_j = 900;
    a->total_j = b->total_j + total, a->busy_j = b->busy_j + busy;
    a->steal_j = b->steal_j + steal, a->self_j = b->self_j + self;
}

Test(machine, steal_over_two_percent_is_busy)
{
    sp_machine_state b, a;
    char text[256];
    jiffies(&b, &a, 1000, 500, 100, 500);
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), SP_MACHINE_BUSY, "10 %% stolen");
    describe(&b, &a, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "busy (steal 10.0 %)");
    jiffies(&b, &a, 1000, 500, 10, 500);
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u, "1 %% stolen");
    /* counters from two boots (or two machines) are not compared */
    a.steal_j = 0;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u);
}

Test(machine, others_cpu_time_during_the_run_is_busy)
{
    sp_machine_state b, a;
    char text[256];
    /* 2 CPUs for 1 s (200 jiffies): the run's 2 threads used 120, others 80 */
    jiffies(&b, &a, 200, 200, 0, 120);
    cr_assert_eq(sp_machine_flags(&b, &a, 2, 2), SP_MACHINE_BUSY);
    describe(&b, &a, 2, 2, text, sizeof text);
    cr_assert_str_eq(text, "busy (others used 0.8 CPUs)");
    /* with one thread the other CPU was free for them */
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u);
    /* too short to tell (0.25 s): not judged */
    jiffies(&b, &a, 50, 50, 0, 20);
    cr_assert_eq(sp_machine_flags(&b, &a, 2, 2), 0u);
    /* without the process's own time the others are not known */
    jiffies(&b, &a, 200, 200, 0, 120);
    a.has_self = 0;
    cr_assert_eq(sp_machine_flags(&b, &a, 2, 2), 0u);
}

/* Others' runnable tasks (the run queue less the reader's process and its
 * parent) more than the CPUs the run leaves free, at both readings:
 * somebody waited for a CPU, whatever the run's length (a run of
 * milliseconds has too few jiffies and a load average that lags). */
Test(machine, a_run_queue_longer_than_the_cpus_is_busy)
{
    sp_machine_state b = blank(), a = blank();
    char text[256];
    /* the reader and two others on 2 CPUs, a run of 1 thread: one waits */
    b.procs_running = 3, b.own_running = 1;
    a.procs_running = 4, a.own_running = 1;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), SP_MACHINE_BUSY);
    describe(&b, &a, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "busy (2 others runnable on 2 CPUs)", "the fewer of the two");
    /* one other: the CPU the 1-thread run leaves free holds it */
    b.procs_running = a.procs_running = 2;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u);
    /* but a run of 2 threads needs both CPUs */
    cr_assert_eq(sp_machine_flags(&b, &a, 2, 2), SP_MACHINE_BUSY);
    /* the reader, the run's spinning worker and the woken sweep: all its own */
    b.procs_running = a.procs_running = 3;
    b.own_running = a.own_running = 3;
    cr_assert_eq(sp_machine_flags(&b, &a, 2, 2), 0u);
    /* one reading alone is a moment: a task passing through is not a busy machine */
    b.procs_running = 1, b.own_running = 1;
    a.procs_running = 6, a.own_running = 1;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u);
    cr_assert_eq(sp_machine_flags(NULL, &a, 1, 2), 0u, "one reading is not judged");
    /* not read: not judged */
    b.procs_running = 0;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u);
}

/* The reader's own runnable threads are counted from /proc/self/task: a
 * real reading while a second thread of this process spins. */
static volatile int spin_stop;
static void *spin(void *arg)
{
    (void)arg;
    while (!spin_stop)
        ;
    return NULL;
}

Test(machine, own_running_threads_are_not_others)
{
    sp_machine_set_root("");
    sp_machine_state s;
    sp_machine_read(&s, -1, NULL, 0);
    if (s.procs_running <= 0)
        cr_skip_test("no procs_running in this machine's /proc/stat");
    cr_assert_geq(s.own_running, 1, "the reader is running while it reads");
    cr_assert_leq(s.own_running, s.procs_running + 2, "counted a moment apart");
    pthread_t t;
    spin_stop = 0;
    cr_assert_eq(pthread_create(&t, NULL, spin, NULL), 0);
    int seen = 0;
    for (int i = 0; i < 200 && seen < 2; i++) {
        usleep(1000);
        sp_machine_read(&s, -1, NULL, 0);
        seen = s.own_running > seen ? s.own_running : seen;
    }
    spin_stop = 1;
    pthread_join(t, NULL);
    cr_assert_geq(seen, 2, "the spinning thread is this process's own");
}

Test(machine, frequency_drop_is_flagged)
{
    sp_machine_state b = blank(), a = blank();
    char text[256];
    b.mhz_mean = 3000;
    a.mhz_mean = 2500;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), SP_MACHINE_FREQ_DROP);
    describe(&b, &a, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "frequency drop (CPU to 83 %)");
    a.mhz_mean = 2800;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u, "93 %% is no drop");
    a.mhz_mean = 3300;
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u);
    sp_machine_state gb = gpu_reading(1980, 0), ga = gpu_reading(1500, 0);
    cr_assert_eq(sp_machine_flags(&gb, &ga, 1, 2), SP_MACHINE_FREQ_DROP);
    describe(&gb, &ga, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "frequency drop (SM clock to 76 %)");
    /* the GPU went idle after the work: its clock falls, nothing slowed it */
    ga.reasons = SP_NVML_REASON_GPU_IDLE;
    cr_assert_eq(sp_machine_flags(&gb, &ga, 1, 2), 0u);
    /* two different GPUs are not compared */
    ga.reasons = 0;
    ga.gpu = 1;
    cr_assert_eq(sp_machine_flags(&gb, &ga, 1, 2), 0u);
}

Test(machine, governor_other_than_performance_is_said)
{
    sp_machine_state b = blank(), a = blank();
    char text[256];
    snprintf(a.governor, sizeof a.governor, "powersave");
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), SP_MACHINE_NOT_PERFORMANCE);
    describe(&b, &a, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "governor powersave");
    snprintf(a.governor, sizeof a.governor, "performance");
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u);
    a.governor[0] = '\0';
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2), 0u, "unknown is not judged");
}

Test(machine, description_joins_the_flags)
{
    sp_machine_state b = gpu_reading(1980, 0), a = gpu_reading(1980, SP_NVML_REASON_SW_POWER_CAP);
    char text[256], small[12];
    a.load1 = 3.1;
    cr_assert_eq(sp_machine_flags(&b, &a, 2, 2), SP_MACHINE_THROTTLED | SP_MACHINE_BUSY);
    describe(&b, &a, 2, 2, text, sizeof text);
    cr_assert_str_eq(text, "throttled (power cap), busy (load 3.1 on 2 CPUs)");
    sp_machine_verdict v;
    sp_machine_judge(&b, &a, 2, 2, &v);
    int n = sp_machine_describe(&v, small, sizeof small);
    cr_assert_eq(n, (int)strlen(text), "the length it needs, as snprintf");
    cr_assert_str_eq(small, "throttled (");
    b = blank(), a = blank();
    describe(&b, &a, 1, 2, text, sizeof text);
    cr_assert_str_eq(text, "");
}

Test(machine, energy_between_counters)
{
    sp_machine_state b = gpu_reading(1980, 0), a = gpu_reading(1980, 0);
    b.has_energy = a.has_energy = 1;
    b.energy_mj = 1000000;
    a.energy_mj = 1004500;
    b.mono = 10.0;
    a.mono = 10.5;
    cr_assert_float_eq(sp_machine_energy_j(&b, &a), 4.5, 1e-12);
    cr_assert_float_eq(sp_machine_mean_power_w(&b, &a), 9.0, 1e-9);
    a.energy_mj = 999;
    cr_assert(isnan(sp_machine_energy_j(&b, &a)), "the counter went back: wrapped or reset");
    cr_assert(isnan(sp_machine_mean_power_w(&b, &a)));
    a.energy_mj = 1004500;
    a.has_energy = 0;
    cr_assert(isnan(sp_machine_energy_j(&b, &a)), "no counter");
    a.has_energy = 1;
    a.gpu = 1;
    cr_assert(isnan(sp_machine_energy_j(&b, &a)), "another GPU");
    cr_assert(isnan(sp_machine_energy_j(NULL, &a)));
}

static void fixture_root(const char *name)
{
    char root[512];
    snprintf(root, sizeof root, "%s/machine/%s", tu_datadir(), name);
    sp_machine_set_root(root);
}

Test(machine, reads_cpufreq_governor_load_and_jiffies)
{
    sp_machine_state s;
    fixture_root("cpufreq");
    cr_assert_eq(sp_machine_read(&s, -1, NULL, 0), 4, "frequency, governor, load, stat");
    cr_assert_eq(s.ncpus, 4, "every online CPU");
    cr_assert_str_eq(s.mhz_src, "cpufreq");
    cr_assert_float_eq(s.mhz_mean, 2125.0, 1e-9);
    cr_assert_float_eq(s.mhz_min, 1000.0, 1e-9);
    cr_assert_float_eq(s.mhz_max, 3000.0, 1e-9);
    cr_assert_str_eq(s.governor, "mixed", "CPU 2 is on powersave");
    cr_assert_float_eq(s.load1, 3.10, 1e-12);
    cr_assert(s.has_stat);
    cr_assert_eq(s.busy_j, 1000 + 20 + 300 + 5 + 6);
    cr_assert_eq(s.steal_j, 70);
    cr_assert_eq(s.total_j, 1331 + 5000 + 40 + 70);
    cr_assert_eq(s.procs_running, 3, "the run queue, further down /proc/stat");
    cr_assert(s.has_self, "a command name with spaces and parentheses");
    cr_assert_eq(s.self_j, 300);
    cr_assert_eq(s.gpu_valid, 0);
    cr_assert(isnan(s.sm_mhz));
    cr_assert_str_eq(s.gpu_note, "", "no GPU asked for");
    /* the run's own CPUs only */
    int cpus[] = {0, 1};
    sp_machine_read(&s, -1, cpus, 2);
    cr_assert_eq(s.ncpus, 2);
    cr_assert_float_eq(s.mhz_mean, 2500.0, 1e-9);
    cr_assert_str_eq(s.governor, "performance");
    int slow[] = {2};
    sp_machine_read(&s, -1, slow, 1);
    cr_assert_str_eq(s.governor, "powersave");
    cr_assert_eq(sp_machine_flags(&s, &s, 1, 4), SP_MACHINE_NOT_PERFORMANCE);
}

Test(machine, reads_cpuinfo_where_there_is_no_cpufreq)
{
    sp_machine_state s;
    fixture_root("vm");
    cr_assert_eq(sp_machine_read(&s, -1, NULL, 0), 3, "frequency, load, stat; no governor");
    cr_assert_eq(s.ncpus, 2);
    cr_assert_str_eq(s.mhz_src, "cpuinfo");
    cr_assert_float_eq(s.mhz_mean, (2596.124 + 2600.0) / 2, 1e-9);
    cr_assert_str_eq(s.governor, "");
    cr_assert_float_eq(s.load1, 5.57, 1e-12);
    cr_assert_eq(s.has_self, 0, "no self/stat in this tree");
    cr_assert_eq(s.procs_running, 0, "no procs_running line: not read");
    int one[] = {1};
    sp_machine_read(&s, -1, one, 1);
    cr_assert_eq(s.ncpus, 1);
    cr_assert_float_eq(s.mhz_mean, 2600.0, 1e-9);
}

Test(machine, online_list_with_gaps)
{
    char root[256], p[512];
    tu_tempdir(root, sizeof root);
    const char *dirs[] = {"/sys", "/sys/devices", "/sys/devices/system", "/sys/devices/system/cpu"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", root, dirs[i]);
        mkdir(p, 0755);
    }
    snprintf(p, sizeof p, "%s/sys/devices/system/cpu/online", root);
    tu_write_file(p, "0,2-3\n");
    for (int c = 0; c < 4; c++) {
        snprintf(p, sizeof p, "%s/sys/devices/system/cpu/cpu%d", root, c);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/sys/devices/system/cpu/cpu%d/cpufreq", root, c);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", root, c);
        tu_write_file(p, c == 1 ? "9000000\n" : "2000000\n");
    }
    sp_machine_set_root(root);
    sp_machine_state s;
    sp_machine_read(&s, -1, NULL, 0);
    cr_assert_eq(s.ncpus, 3, "CPU 1 is offline");
    cr_assert_float_eq(s.mhz_max, 2000.0, 1e-9);
}

Test(machine, missing_files_leave_everything_unknown)
{
    char root[256], json[1024];
    tu_tempdir(root, sizeof root);
    sp_machine_set_root(root);
    sp_machine_state s;
    cr_assert_eq(sp_machine_read(&s, -1, NULL, 0), 0);
    cr_assert_eq(s.ncpus, 0);
    cr_assert(isnan(s.load1) && isnan(s.mhz_mean));
    cr_assert_eq(s.has_stat + s.has_self, 0);
    cr_assert_eq(sp_machine_flags(&s, &s, 1, 2), 0u, "nothing known, nothing flagged");
    sp_machine_json(&s, json, sizeof json);
    cr_assert(strncmp(json, "{\"t\":", 5) == 0 && !strchr(json, ','), "%s", json);
    cr_assert_eq(sp_machine_read(NULL, -1, NULL, 0), -1);
}

/* A fake NVML: one GPU (index 0, bus "0000:3b:00.0") whose answers the
 * test sets; an index or bus it does not have answers "not found". */
static struct {
    int init_rc, energy_rc, inits, shutdowns, bus_lookups, reads;
    unsigned long long energy, reasons;
} fake;

static int f_init(void)
{
    fake.inits++;
    return fake.init_rc;
}
static int f_shutdown(void)
{
    fake.shutdowns++;
    return 0;
}
static int f_by_index(unsigned i, void **dev)
{
    *dev = &fake;
    return i == 0 ? 0 : 6; /* NVML_ERROR_NOT_FOUND */
}
static int f_by_bus(const char *bus, void **dev)
{
    fake.bus_lookups++;
    *dev = &fake;
    return strcmp(bus, "0000:3b:00.0") ? 6 : 0;
}
static int f_clock(void *dev, int type, unsigned *mhz)
{
    cr_assert_eq(dev, &fake);
    *mhz = type == 1 ? 1980 : type == 2 ? 2619 : 0;
    return type == 1 || type == 2 ? 0 : 2;
}
static int f_temperature(void *dev, int sensor, unsigned *c)
{
    (void)dev;
    *c = 41;
    return sensor == 0 ? 0 : 2;
}
static int f_power(void *dev, unsigned *mw)
{
    (void)dev;
    *mw = 123456;
    return 0;
}
static int f_reasons(void *dev, unsigned long long *bits)
{
    (void)dev;
    fake.reads++;
    *bits = fake.reasons;
    return 0;
}
static int f_energy(void *dev, unsigned long long *mj)
{
    (void)dev;
    *mj = fake.energy;
    return fake.energy_rc;
}
static const char *f_error(int rc)
{
    return rc == 3 ? "Not Supported" : rc == 6 ? "Not Found" : rc == 9 ? "Driver Not Loaded"
                                                                         : "Unknown Error";
}
static const sp_nvml_api fake_api = {f_init, f_shutdown, f_by_index, f_by_bus, f_clock,
                                     f_temperature, f_power, f_reasons, f_energy, f_error};

Test(machine, fake_nvml_fills_the_gpu_fields)
{
    sp_machine_state b, a;
    fixture_root("vm");
    memset(&fake, 0, sizeof fake);
    fake.energy = 5000000;
    sp_machine_set_nvml(&fake_api);
    cr_assert_eq(sp_machine_read(&b, 0, NULL, 0), 4, "GPU, frequency, load, stat");
    cr_assert(b.gpu_valid);
    cr_assert_float_eq(b.sm_mhz, 1980, 1e-12);
    cr_assert_float_eq(b.mem_mhz, 2619, 1e-12);
    cr_assert_float_eq(b.temp_c, 41, 1e-12);
    cr_assert_float_eq(b.power_w, 123.456, 1e-9, "mW to W");
    cr_assert(b.has_reasons && b.reasons == 0);
    cr_assert(b.has_energy && b.energy_mj == 5000000);
    cr_assert_str_eq(b.gpu_note, "");
    fake.energy += 2500;
    fake.reasons = SP_NVML_REASON_SW_THERMAL;
    sp_machine_read_bus(&a, "0000:3b:00.0", NULL, 0);
    cr_assert(a.gpu_valid);
    cr_assert_str_eq(a.bus, "0000:3b:00.0");
    cr_assert(isnan(sp_machine_energy_j(&b, &a)), "by index and by bus are not compared");
    sp_machine_read(&a, 0, NULL, 0);
    cr_assert_float_eq(sp_machine_energy_j(&b, &a), 2.5, 1e-12);
    cr_assert_eq(sp_machine_flags(&b, &a, 1, 2) & SP_MACHINE_THROTTLED, SP_MACHINE_THROTTLED);
    cr_assert_eq(fake.inits, 1, "NVML is initialised once per process");
    sp_machine_close();
    cr_assert_eq(fake.shutdowns, 1);
    sp_machine_set_nvml(NULL);
}


Test(machine, nvml_failures_are_noted_not_fatal)
{
    sp_machine_state s;
    fixture_root("vm");
    memset(&fake, 0, sizeof fake);
    fake.energy_rc = 3;
    sp_machine_set_nvml(&fake_api);
    sp_machine_read(&s, 0, NULL, 0);
    cr_assert(s.gpu_valid);
    cr_assert_eq(s.has_energy, 0);
    cr_assert_str_eq(s.gpu_note, "energy counter: Not Supported");
    cr_assert_float_eq(s.sm_mhz, 1980, 1e-12, "the other fields are read");
    sp_machine_read(&s, 5, NULL, 0);
    cr_assert_eq(s.gpu_valid, 0);
    cr_assert(isnan(s.sm_mhz));
    cr_assert_str_eq(s.gpu_note, "NVML has no GPU 5: Not Found");
    sp_machine_read_bus(&s, "0000:99:00.0", NULL, 0);
    cr_assert_str_eq(s.gpu_note, "NVML has no GPU at PCI bus id 0000:99:00.0: Not Found");
    fake.init_rc = 9;
    sp_machine_set_nvml(&fake_api); /* loaded again: init fails this time */
    cr_assert_eq(sp_machine_read(&s, 0, NULL, 0), 3, "frequency, load, stat; no GPU");
    cr_assert_eq(s.gpu_valid, 0);
    cr_assert_str_eq(s.gpu_note, "nvmlInit_v2: Driver Not Loaded");
    cr_assert_eq(s.ncpus, 2, "the CPU side is read all the same");
    sp_machine_set_nvml(NULL);
}

Test(machine, nvml_library_absent_gives_the_reason)
{
    sp_machine_state s;
    const char *lib = "libspsweep-no-such-nvml.so.1";
    sp_machine_set_nvml_lib(lib);
    sp_machine_read(&s, 0, NULL, 0);
    cr_assert_eq(s.gpu_valid, 0);
    char want[200];
    snprintf(want, sizeof want, "NVML not found: %s: cannot open shared object file", lib);
    cr_assert(strncmp(s.gpu_note, want, strlen(want)) == 0, "%s", s.gpu_note);
    sp_machine_set_nvml_lib(NULL);
}

/* This machine as it is: a frequency (cpufreq or, in a VM, /proc/cpuinfo),
 * the load and /proc/stat; NVML present, or absent with the reason. */
Test(machine, real_machine_reads_without_crashing)
{
    sp_machine_state s;
    char json[4096];
    sp_machine_set_root(NULL);
    int groups = sp_machine_read(&s, 0, NULL, 0);
    cr_assert_geq(groups, 3);
    cr_assert_gt(s.ncpus, 0);
    cr_assert_gt(s.mhz_mean, 0, "%s", s.mhz_src);
    cr_assert(!isnan(s.load1));
    cr_assert(s.has_stat && s.has_self);
    struct stat st;
    if (stat("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", &st) != 0)
        cr_assert_str_eq(s.mhz_src, "cpuinfo", "no cpufreq here: /proc/cpuinfo");
    if (!s.gpu_valid)
        cr_assert_neq(s.gpu_note[0], '\0', "an unknown GPU says why");
    if (strstr(s.gpu_note, "NVML not found"))
        cr_assert(strncmp(s.gpu_note, "NVML not found: libnvidia-ml.so.1: cannot open shared "
                          "object file", 65) == 0, "%s", s.gpu_note);
    cr_assert_lt(sp_machine_json(&s, json, sizeof json), (int)sizeof json);
    sp_machine_close();
}

/* json_valid(text) and json_extract(text, path) as SQLite sees them. */
static int sql_json(const char *text, const char *path, char *out, size_t len)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT json_valid(?1), json_extract(?1, ?2)", -1, &st,
                                    NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, path ? path : "$", -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    int valid = sqlite3_column_int(st, 0);
    const unsigned char *v = sqlite3_column_text(st, 1);
    if (out)
        snprintf(out, len, "%s", v ? (const char *)v : "NULL");
    sqlite3_finalize(st);
    sqlite3_close(db);
    return valid;
}

Test(machine, json_is_valid_and_holds_the_known_fields)
{
    sp_machine_state s;
    char json[4096], v[256];
    fixture_root("cpufreq");
    memset(&fake, 0, sizeof fake);
    fake.energy = 77;
    fake.reasons = SP_NVML_REASON_SW_POWER_CAP;
    sp_machine_set_nvml(&fake_api);
    sp_machine_read(&s, 0, NULL, 0);
    int n = sp_machine_json(&s, json, sizeof json);
    cr_assert_eq(n, (int)strlen(json));
    cr_assert(sql_json(json, NULL, NULL, 0), "%s", json);
    const char *want[][2] = {{"$.gpu", "0"}, {"$.sm_mhz", "1980"}, {"$.mem_mhz", "2619"},
                             {"$.temp_c", "41"}, {"$.power_w", "123.456"}, {"$.reasons", "4"},
                             {"$.energy_mj", "77"}, {"$.gov", "mixed"}, {"$.cpus", "4"},
                             {"$.mhz", "2125"}, {"$.mhz_min", "1000"}, {"$.mhz_src", "cpufreq"},
                             {"$.load1", "3.1"}, {"$.jiffies", "6441"}, {"$.steal_j", "70"},
                             {"$.self_j", "300"}, {"$.running", "3"}, {"$.own_running", "0"}, {"$.gpu_note", "NULL"}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        sql_json(json, want[i][0], v, sizeof v);
        cr_assert_str_eq(v, want[i][1], "%s in %s", want[i][0], json);
    }
    /* strings with quotes, backslashes and control characters stay JSON */
    snprintf(s.governor, sizeof s.governor, "a\"b\\c\td");
    snprintf(s.gpu_note, sizeof s.gpu_note, "line\nbreak \x01");
    s.load1 = NAN;
    sp_machine_json(&s, json, sizeof json);
    cr_assert(sql_json(json, NULL, NULL, 0), "%s", json);
    sql_json(json, "$.gov", v, sizeof v);
    cr_assert_str_eq(v, "a\"b\\c\td");
    sql_json(json, "$.load1", v, sizeof v);
    cr_assert_str_eq(v, "NULL", "unknown fields are left out");
    /* too small a buffer: the length needed, a terminated prefix */
    char small[16];
    cr_assert_eq(sp_machine_json(&s, small, sizeof small), (int)strlen(json));
    cr_assert_eq(strlen(small), sizeof small - 1);
    cr_assert_eq(sp_machine_json(&s, NULL, 0), (int)strlen(json));
    sp_machine_set_nvml(NULL);
}

/* The reading between two samples is one NVML call: the device is looked
 * up by bus id once per process and bus (the lookup costs milliseconds),
 * not once per sample; another bus is looked up anew, and a closed NVML
 * forgets the handle. */
Test(machine, reasons_between_samples_look_the_gpu_up_once)
{
    memset(&fake, 0, sizeof fake);
    sp_machine_set_nvml(&fake_api);
    unsigned long long bits = 0;
    for (int i = 0; i < 20; i++) {
        fake.reasons = i == 7 ? SP_NVML_REASON_SW_THERMAL : 0;
        cr_assert_eq(sp_machine_gpu_reasons("0000:3b:00.0", &bits), 0);
        cr_assert_eq(bits, fake.reasons, "sample %d", i);
    }
    cr_assert_eq(fake.reads, 20);
    cr_assert_eq(fake.bus_lookups, 1, "looked up %d times", fake.bus_lookups);
    cr_assert_eq(sp_machine_gpu_reasons("0000:af:00.0", &bits), -1, "no GPU there");
    cr_assert_eq(fake.bus_lookups, 2);
    unsigned long long mj;
    cr_assert_eq(sp_machine_gpu_energy_mj("0000:3b:00.0", &mj), 0);
    cr_assert_eq(fake.bus_lookups, 2, "the failed lookup replaced nothing");
    sp_machine_set_nvml(&fake_api);        /* closes NVML: the handle is gone */
    cr_assert_eq(sp_machine_gpu_reasons("0000:3b:00.0", &bits), 0);
    cr_assert_eq(fake.bus_lookups, 3);
    cr_assert_eq(sp_machine_gpu_reasons(NULL, &bits), -1);
    sp_machine_close();
    sp_machine_set_nvml(NULL);
}
