/* machine.h — the machine's state around a run (issue 19, point 4): GPU
 * clocks, temperature, power, throttle reasons and energy counter (NVML,
 * loaded at run time), CPU governor, frequency, load average and steal
 * time; read before and after a run (runner/exec/machine.c,
 * runner/exec/machine_nvml.c), judged (runner/exec/machine_judge.c: throttled, busy,
 * frequency drop, governor) and rendered for logs and the database
 * (runner/exec/machine_json.c). */
#ifndef SP_MACHINE_H
#define SP_MACHINE_H

#include <stddef.h>

/* NVML's clock event ("throttle") reason bits, nvml.h's
 * nvmlClocksEventReason* (older name nvmlClocksThrottleReason*), the same
 * values in every NVML since the bit was introduced. */
#define SP_NVML_REASON_GPU_IDLE 0x1ULL
#define SP_NVML_REASON_APP_CLOCKS 0x2ULL
#define SP_NVML_REASON_SW_POWER_CAP 0x4ULL
#define SP_NVML_REASON_HW_SLOWDOWN 0x8ULL
#define SP_NVML_REASON_SYNC_BOOST 0x10ULL
#define SP_NVML_REASON_SW_THERMAL 0x20ULL
#define SP_NVML_REASON_HW_THERMAL 0x40ULL
#define SP_NVML_REASON_HW_POWER_BRAKE 0x80ULL
#define SP_NVML_REASON_DISPLAY_CLOCKS 0x100ULL
/* Reasons that are no throttling (machine_judge.c says why): every other
 * bit, present or future, counts as throttled. */
#define SP_NVML_REASONS_BENIGN \
    (SP_NVML_REASON_GPU_IDLE | SP_NVML_REASON_APP_CLOCKS | SP_NVML_REASON_DISPLAY_CLOCKS)

/* One reading. A double that could not be read is NaN; a string is "". */
typedef struct sp_machine_state {
    double t;                  /* CLOCK_REALTIME, seconds since the epoch */
    double mono;               /* CLOCK_MONOTONIC seconds, for intervals */
    /* GPU (NVML) */
    int gpu;                   /* NVML index asked for; -1: none (or by bus id) */
    char bus[32];              /* PCI bus id asked for; "" by index */
    int gpu_valid;             /* NVML answered for this device */
    double sm_mhz, mem_mhz;    /* current SM and memory clocks */
    double temp_c;             /* GPU core temperature */
    double power_w;            /* board power draw */
    int has_reasons;           /* reasons below were read */
    unsigned long long reasons; /* SP_NVML_REASON_* bits active now */
    int has_energy;            /* the device has an energy counter */
    unsigned long long energy_mj; /* energy since the driver loaded, mJ */
    char gpu_note[200];        /* why GPU fields are unknown; "" when all read */
    /* CPU, over the CPUs the run uses */
    char governor[32];         /* scaling governor, "mixed" if they differ */
    int ncpus;                 /* CPUs whose frequency was read */
    double mhz_mean, mhz_min, mhz_max; /* current frequency */
    char mhz_src[8];           /* "cpufreq" (sysfs) or "cpuinfo" (/proc/cpuinfo) */
    double load1;              /* 1-minute load average */
    int has_stat;              /* /proc/stat's `cpu` line was read */
    unsigned long long total_j, busy_j, steal_j; /* jiffies: all, non-idle
                                  (user..softirq), stolen by the hypervisor */
    int procs_running;         /* /proc/stat's procs_running: tasks runnable at the
                                  reading, the reader itself included; 0: not read */
    int own_running;           /* of them, the reader's process's threads and its
                                  parent's (the sweep's): not others */
    int has_self;              /* /proc/self/stat was read */
    unsigned long long self_j; /* this process's utime + stime, all threads */
} sp_machine_state;

/* Read the machine's state now: the GPU of NVML index gpu_index (-1: no
 * GPU) and the CPUs cpus[0..ncpus) (NULL or 0: every online CPU). Never
 * fails: what cannot be read is left unknown (and gpu_note says why for
 * the GPU). Returns the number of groups read (GPU, frequency, governor,
 * load, /proc/stat), -1 only when s is NULL. NVML's index is in PCI order
 * and ignores CUDA_VISIBLE_DEVICES: for the device a CUDA process uses,
 * use sp_machine_read_bus with its cudaDeviceGetPCIBusId. Not thread-safe
 * (NVML is loaded once per process, lazily). */
int sp_machine_read(sp_machine_state *s, int gpu_index, const int *cpus, int ncpus);
/* The same for the GPU of PCI bus id bus ("0000:3b:00.0"; NULL: no GPU). */
int sp_machine_read_bus(sp_machine_state *s, const char *bus, const int *cpus, int ncpus);

/* Judgement of a run from the readings before and after it. */
#define SP_MACHINE_THROTTLED 0x1u     /* a throttle reason at either reading */
#define SP_MACHINE_BUSY 0x2u          /* others competed for the run's CPUs */
#define SP_MACHINE_FREQ_DROP 0x4u     /* CPU or SM clock fell below 90 % */
#define SP_MACHINE_NOT_PERFORMANCE 0x8u /* governor known, not "performance" */

/* Which rule found the machine busy (sp_machine_verdict.busy_why). */
#define SP_BUSY_LOAD 0x1u   /* load average above the CPUs (or threads) + 0.5 */
#define SP_BUSY_OTHERS 0x2u /* others' CPU time left the run short of CPUs */
#define SP_BUSY_STEAL 0x4u  /* over 2 % of the jiffies stolen */
#define SP_BUSY_QUEUE 0x8u  /* others' runnable tasks more than the CPUs the run
                               leaves free, at both readings */

/* What the judgement saw, for the flags and their explanation (NaN: not
 * judged). */
typedef struct sp_machine_verdict {
    unsigned flags;               /* SP_MACHINE_* */
    unsigned busy_why;            /* SP_BUSY_* */
    unsigned long long throttle;  /* throttle reasons seen (benign bits removed) */
    double load1;                 /* the larger load average of the two */
    double steal_pct;             /* stolen share of the interval's jiffies */
    double others_cpus;           /* CPUs' worth used by other processes */
    int running;                  /* others' runnable tasks, the fewer of the two
                                     readings; -1: not read */
    double cpu_ratio, gpu_ratio;  /* frequency after / before */
    int threads, nproc;
    char governor[32];
} sp_machine_verdict;

/* Judge a run of `threads` threads on a machine of `nproc` online CPUs
 * (the CPUs /proc/stat and the load average count) from its readings
 * before and after (either may be NULL: judged on the other). Others' CPU
 * time during the run needs both readings from the process that ran it
 * (its own time, self_j, is subtracted). */
void sp_machine_judge(const sp_machine_state *before, const sp_machine_state *after,
                      int threads, int nproc, sp_machine_verdict *v);
/* sp_machine_judge's flags alone. */
unsigned sp_machine_flags(const sp_machine_state *before, const sp_machine_state *after,
                          int threads, int nproc);
/* Joules the GPU used between the two readings; NaN when either has no
 * energy counter, they are of different GPUs, or the counter went back. */
double sp_machine_energy_j(const sp_machine_state *before, const sp_machine_state *after);
/* Mean GPU power between the two readings (energy / time), W; NaN unknown. */
double sp_machine_mean_power_w(const sp_machine_state *before, const sp_machine_state *after);
/* "throttled (power cap), busy (load 3.1 on 2 CPUs)"; "" when no flag is
 * set. Returns what snprintf returns. */
int sp_machine_describe(const sp_machine_verdict *v, char *buf, size_t len);
/* One reading as a JSON object of its known fields (keys in
 * machine_json.c and docs/database.md). Returns what snprintf returns: the
 * output is complete when that is < len. */
int sp_machine_json(const sp_machine_state *s, char *buf, size_t len);

/* The GPU's energy counter alone (mJ since the driver loaded), for the
 * energy windows that read it between samples: 0, or -1 without NVML, the
 * device or a counter. */
int sp_machine_gpu_energy_mj(const char *bus, unsigned long long *mj);
/* The clock event ("throttle") reasons of the GPU of bus alone, one NVML
 * call (for a reading between samples); 0, or -1 when NVML cannot say. */
int sp_machine_gpu_reasons(const char *bus, unsigned long long *bits);

/* Test injection. The root that /proc and /sys are read under (NULL: "",
 * the real ones; $SPSWEEP_TEST_PROCFS_ROOT when never set). */
void sp_machine_set_root(const char *root);

/* The NVML entry points used, as NVML declares them with its device
 * handle as void * and nvmlReturn_t as int (0 success). */
typedef struct sp_nvml_api {
    int (*init)(void);
    int (*shutdown)(void);
    int (*by_index)(unsigned index, void **dev);
    int (*by_bus)(const char *bus, void **dev);
    int (*clock)(void *dev, int type, unsigned *mhz);     /* 1 SM, 2 memory */
    int (*temperature)(void *dev, int sensor, unsigned *c); /* 0 GPU */
    int (*power)(void *dev, unsigned *mw);
    int (*reasons)(void *dev, unsigned long long *bits);
    int (*energy)(void *dev, unsigned long long *mj);
    const char *(*error_string)(int rc);
} sp_nvml_api;
/* Use api instead of the library (tests); NULL: the library again. */
void sp_machine_set_nvml(const sp_nvml_api *api);
/* Load NVML from lib instead of libnvidia-ml.so.1 (NULL: that one). */
void sp_machine_set_nvml_lib(const char *lib);
/* Shut NVML down and unload it; the next GPU reading loads it again. */
void sp_machine_close(void);

#endif
