/*
 * machine.c — one reading of the machine's state (machine.h): the CPU
 * side from /proc and /sys, the GPU side from NVML (machine_nvml.c).
 * Nothing here fails: a file that is missing or says something else
 * leaves its fields unknown, because a reading is evidence about a run,
 * never a reason to lose the run. Every path is read under a root prefix
 * (sp_machine_set_root, $SPSWEEP_TEST_PROCFS_ROOT) so tests can stand a
 * fixture tree in for /proc and /sys.
 */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "machine_nvml.h"

#define MAX_CPUS 65536

static char root_dir[PATH_MAX];
static int root_set;

void sp_machine_set_root(const char *root)
{
    snprintf(root_dir, sizeof root_dir, "%s", root ? root : "");
    root_set = 1;
}

/* fopen of rel (an absolute path such as "/proc/stat") under the root. */
static FILE *open_under_root(const char *rel)
{
    const char *root = root_set ? root_dir : getenv("SPSWEEP_TEST_PROCFS_ROOT");
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s%s", root ? root : "", rel) >= (int)sizeof path)
        return NULL;
    return fopen(path, "r");
}

/* The first line of rel into buf, newline removed; 0, or -1. */
static int read_line(const char *rel, char *buf, size_t len)
{
    FILE *f = open_under_root(rel);
    int rc = f && fgets(buf, (int)len, f) ? 0 : -1;
    if (f)
        fclose(f);
    if (rc == 0)
        buf[strcspn(buf, "\n")] = '\0';
    return rc;
}

/* The CPUs of a list such as "0-3,8,10-11" (sysfs's online file), at most
 * max, into cpus; their count (0 when the text is not such a list). */
static int parse_cpu_list(const char *text, int *cpus, int max)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0)
            return 0;
        if (*end == '-') {
            p = end + 1;
            hi = strtol(p, &end, 10);
            if (end == p || hi < lo)
                return 0;
        }
        for (long c = lo; c <= hi && c < MAX_CPUS && n < max; c++)
            cpus[n++] = (int)c;
        p = end + (*end == ',');
        if (*end && *end != ',')
            return 0;
    }
    return n;
}

/* Every online CPU, malloc'd into *cpus; their count (0: unknown). */
static int online_cpus(int **cpus)
{
    char line[4096];
    long conf = sysconf(_SC_NPROCESSORS_ONLN);
    int max = MAX_CPUS, n = 0;
    *cpus = malloc(sizeof **cpus * (size_t)max);
    if (!*cpus)
        return 0;
    if (read_line("/sys/devices/system/cpu/online", line, sizeof line) == 0)
        n = parse_cpu_list(line, *cpus, max);
    if (n == 0) /* no sysfs: CPUs 0..N-1 as the C library counts them */
        for (long c = 0; c < conf && c < max; c++)
            (*cpus)[n++] = (int)c;
    return n;
}

static int has_cpu(const int *cpus, int n, int cpu)
{
    for (int i = 0; i < n; i++)
        if (cpus[i] == cpu)
            return 1;
    return 0;
}

/* Fold one frequency (MHz) into s's mean, min and max. */
static void add_mhz(sp_machine_state *s, double mhz)
{
    s->mhz_min = s->ncpus && s->mhz_min < mhz ? s->mhz_min : mhz;
    s->mhz_max = s->ncpus && s->mhz_max > mhz ? s->mhz_max : mhz;
    s->mhz_mean = (s->ncpus ? s->mhz_mean * s->ncpus + mhz : mhz) / (s->ncpus + 1);
    s->ncpus++;
}

/* Frequencies from cpufreq (kHz in scaling_cur_freq) and the governor. */
static void read_cpufreq(sp_machine_state *s, const int *cpus, int n)
{
    char rel[128], line[64];
    for (int i = 0; i < n; i++) {
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
                 cpus[i]);
        char *end;
        double khz = read_line(rel, line, sizeof line) ? NAN : strtod(line, &end);
        if (!isnan(khz) && end != line && khz > 0)
            add_mhz(s, khz / 1000.0);
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
                 cpus[i]);
        if (read_line(rel, line, sizeof line) || !line[0])
            continue;
        if (!s->governor[0])
            snprintf(s->governor, sizeof s->governor, "%.*s", (int)sizeof s->governor - 1, line);
        else if (strcmp(s->governor, line) != 0)
            snprintf(s->governor, sizeof s->governor, "mixed");
    }
    if (s->ncpus)
        snprintf(s->mhz_src, sizeof s->mhz_src, "cpufreq");
}

/* Frequencies from /proc/cpuinfo's "cpu MHz", where there is no cpufreq
 * (most VMs): the hypervisor's nominal figure, but a figure. */
static void read_cpuinfo(sp_machine_state *s, const int *cpus, int n)
{
    FILE *f = open_under_root("/proc/cpuinfo");
    char line[512];
    int cpu = -1;
    double mhz;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "processor : %d", &cpu) == 1)
            continue;
        if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 && has_cpu(cpus, n, cpu) && mhz > 0)
            add_mhz(s, mhz);
    }
    if (f)
        fclose(f);
    if (s->ncpus)
        snprintf(s->mhz_src, sizeof s->mhz_src, "cpuinfo");
}

/* Tasks of /proc/<pid>/task (under the root) in state R now: pid "self"
 * is the reader's process. */
static int count_running(const char *pid)
{
    char dir[PATH_MAX], rel[64];
    const char *root = root_set ? root_dir : getenv("SPSWEEP_TEST_PROCFS_ROOT");
    snprintf(rel, sizeof rel, "/proc/%s/task", pid);
    if (snprintf(dir, sizeof dir, "%s%s", root ? root : "", rel) >= (int)sizeof dir)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            char path[PATH_MAX + 300], line[512];
            snprintf(path, sizeof path, "%s/%s/stat", dir, e->d_name);
            FILE *f = fopen(path, "r");
            /* the state follows the command name's closing parenthesis */
            if (f && fgets(line, sizeof line, f)) {
                const char *c = strrchr(line, ')');
                n += c && c[1] == ' ' && c[2] == 'R';
            }
            if (f)
                fclose(f);
        }
    closedir(d);
    return n;
}

/* /proc/stat's aggregate `cpu` line: user nice system idle iowait irq
 * softirq steal (guest time is already inside user). */
static void read_stat(sp_machine_state *s)
{
    char line[512];
    unsigned long long v[8] = {0};
    if (read_line("/proc/stat", line, sizeof line) ||
        sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
               &v[3], &v[4], &v[5], &v[6], &v[7]) < 7)
        return;
    s->has_stat = 1;
    s->busy_j = v[0] + v[1] + v[2] + v[5] + v[6];
    s->steal_j = v[7];
    s->total_j = s->busy_j + v[3] + v[4] + v[7];
    /* procs_running, further down: the run queue now, which a run of a
     * few milliseconds can be judged by where its jiffies cannot */
    FILE *f = open_under_root("/proc/stat");
    int n;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "procs_running %d", &n) == 1 && n > 0) {
            s->procs_running = n;
            break;
        }
    if (f)
        fclose(f);
    /* of them, this process's threads (the reader, the run's spinning
     * workers) and its parent's (the sweep, woken by the run's frames) */
    if (s->procs_running > 0) {
        char ppid[32];
        snprintf(ppid, sizeof ppid, "%ld", (long)getppid());
        s->own_running = count_running("self") + count_running(ppid);
    }
}

/* This process's utime + stime (fields 14 and 15 of /proc/self/stat,
 * counted after the command name, which may hold spaces and parentheses). */
static void read_self(sp_machine_state *s)
{
    char line[1024];
    unsigned long long ut, st;
    if (read_line("/proc/self/stat", line, sizeof line))
        return;
    char *p = strrchr(line, ')');
    if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
                    &st) == 2) {
        s->has_self = 1;
        s->self_j = ut + st;
    }
}

static void read_load(sp_machine_state *s)
{
    char line[256];
    double l;
    if (read_line("/proc/loadavg", line, sizeof line) == 0 && sscanf(line, "%lf", &l) == 1)
        s->load1 = l;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    return clock_gettime(id, &ts) ? NAN : ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Everything unknown. */
static void clear(sp_machine_state *s, int gpu)
{
    memset(s, 0, sizeof *s);
    s->gpu = gpu;
    s->sm_mhz = s->mem_mhz = s->temp_c = s->power_w = NAN;
    s->mhz_mean = s->mhz_min = s->mhz_max = s->load1 = NAN;
}

static void read_cpus(sp_machine_state *s, const int *cpus, int ncpus)
{
    int *all = NULL;
    if (!cpus || ncpus <= 0) {
        ncpus = online_cpus(&all);
        cpus = all;
    }
    read_cpufreq(s, cpus, ncpus);
    if (!s->ncpus)
        read_cpuinfo(s, cpus, ncpus);
    free(all);
}

static int read_all(sp_machine_state *s, int gpu, const char *bus, const int *cpus, int ncpus)
{
    if (!s)
        return -1;
    clear(s, bus ? -1 : gpu);
    if (bus)
        snprintf(s->bus, sizeof s->bus, "%s", bus);
    s->t = clock_s(CLOCK_REALTIME);
    s->mono = clock_s(CLOCK_MONOTONIC);
    if (bus || gpu >= 0)
        sp_machine_read_gpu(s, gpu, bus);
    read_cpus(s, cpus, ncpus);
    read_load(s);
    read_stat(s);
    read_self(s);
    return s->gpu_valid + (s->ncpus > 0) + (s->governor[0] != '\0') + !isnan(s->load1) +
           s->has_stat;
}

int sp_machine_read(sp_machine_state *s, int gpu_index, const int *cpus, int ncpus)
{
    return read_all(s, gpu_index, NULL, cpus, ncpus);
}

int sp_machine_read_bus(sp_machine_state *s, const char *bus, const int *cpus, int ncpus)
{
    return read_all(s, -1, bus, cpus, ncpus);
}
