/*
 * machine_nvml.c — the GPU's clocks, temperature, power, throttle reasons
 * and energy counter from NVML, which ships with the driver rather than
 * the toolkit: it is loaded with dlopen at the first reading, so spsweep
 * neither links it nor needs nvml.h, and a machine without it (no driver,
 * a CPU-only VM) reads its GPU fields as unknown with the reason ("NVML
 * not found: libnvidia-ml.so.1: cannot open shared object file ...").
 * Tests replace the library by a table of fakes (sp_machine_set_nvml).
 */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "machine_nvml.h"

#define NVML_LIB "libnvidia-ml.so.1"
/* nvmlClockType_t and nvmlTemperatureSensors_t values (nvml.h) */
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0

/* The loaded library, once per process. */
static struct {
    const sp_nvml_api *injected; /* tests' table, or NULL */
    sp_nvml_api lib;             /* the library's entry points */
    void *dl;                    /* dlopen handle */
    const char *libname;         /* NULL: NVML_LIB */
    int ready;                   /* 1 initialised, -1 failed, 0 not tried */
    pid_t pid;                   /* the process that tried: a forked child tries again */
    char why[160];               /* the failure */
    /* The last device looked up by PCI bus id: the lookup costs about as
     * much as all the readings together (ms), and a run reads its GPU
     * between every two samples. Dropped with the library. */
    char bus[32];
    void *bus_dev;
} nv;

/* dlsym as a function pointer; the first of two names found (NVML renamed
 * "throttle" reasons to "event" reasons in R535 and kept the old name). */
static void *sym(const char *name, const char *old)
{
    void *p = dlsym(nv.dl, name);
    return p || !old ? p : dlsym(nv.dl, old);
}

/* dlopen the library and fill nv.lib; 0, or -1 with nv.why. */
static int load_library(void)
{
    const char *name = nv.libname ? nv.libname : NVML_LIB;
    if (!nv.dl)
        nv.dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!nv.dl) {
        const char *e = dlerror();
        snprintf(nv.why, sizeof nv.why, "NVML not found: %s", e ? e : name);
        return -1;
    }
    sp_nvml_api *a = &nv.lib;
    a->init = (int (*)(void))sym("nvmlInit_v2", "nvmlInit");
    a->shutdown = (int (*)(void))sym("nvmlShutdown", NULL);
    a->by_index = (int (*)(unsigned, void **))sym("nvmlDeviceGetHandleByIndex_v2",
                                                  "nvmlDeviceGetHandleByIndex");
    a->by_bus = (int (*)(const char *, void **))sym("nvmlDeviceGetHandleByPciBusId_v2",
                                                    "nvmlDeviceGetHandleByPciBusId");
    a->clock = (int (*)(void *, int, unsigned *))sym("nvmlDeviceGetClockInfo", NULL);
    a->temperature = (int (*)(void *, int, unsigned *))sym("nvmlDeviceGetTemperature", NULL);
    a->power = (int (*)(void *, unsigned *))sym("nvmlDeviceGetPowerUsage", NULL);
    a->reasons = (int (*)(void *, unsigned long long *))sym(
        "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    a->energy = (int (*)(void *, unsigned long long *))sym(
        "nvmlDeviceGetTotalEnergyConsumption", NULL);
    a->error_string = (const char *(*)(int))sym("nvmlErrorString", NULL);
    if (!a->init) {
        snprintf(nv.why, sizeof nv.why, "NVML (%s) has no nvmlInit_v2", name);
        return -1;
    }
    return 0;
}

static const sp_nvml_api *api_in_use(void)
{
    return nv.injected ? nv.injected : &nv.lib;
}

/* NVML's name for return code rc. */
static const char *rc_text(int rc, char *buf, size_t len)
{
    const sp_nvml_api *a = api_in_use();
    const char *t = rc != -1 && a->error_string ? a->error_string(rc) : NULL;
    if (rc == -1)
        t = "not in this NVML";
    if (!t)
        snprintf(buf, len, "NVML error %d", rc);
    return t ? t : buf;
}

/* The API, loaded and initialised in this process; NULL with nv.why set. */
static const sp_nvml_api *nvml(void)
{
    if (nv.ready && nv.pid == getpid())
        return nv.ready > 0 ? api_in_use() : NULL;
    nv.pid = getpid();
    nv.ready = -1;
    nv.bus[0] = 0;              /* a handle of the parent's is not this process's */
    nv.bus_dev = NULL;
    if (!nv.injected && load_library())
        return NULL;
    const sp_nvml_api *a = api_in_use();
    int rc = a->init ? a->init() : -1;
    if (rc) {
        char b[32];
        snprintf(nv.why, sizeof nv.why, "nvmlInit_v2: %s", rc_text(rc, b, sizeof b));
        return NULL;
    }
    nv.ready = 1;
    return a;
}

void sp_machine_close(void)
{
    if (nv.ready > 0 && nv.pid == getpid() && api_in_use()->shutdown)
        api_in_use()->shutdown();
    if (nv.dl)
        dlclose(nv.dl);
    nv.dl = NULL;
    nv.ready = 0;
    nv.bus[0] = 0;
    nv.bus_dev = NULL;
    memset(&nv.lib, 0, sizeof nv.lib);
}

void sp_machine_set_nvml(const sp_nvml_api *api)
{
    sp_machine_close();
    nv.injected = api;
}

void sp_machine_set_nvml_lib(const char *lib)
{
    sp_machine_close();
    nv.libname = lib;
}

/* Append "; what" to s's note. */
static void note(sp_machine_state *s, const char *fmt, ...)
{
    size_t n = strlen(s->gpu_note);
    if (n + 3 >= sizeof s->gpu_note)
        return;
    if (n)
        n += (size_t)snprintf(s->gpu_note + n, sizeof s->gpu_note - n, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->gpu_note + n, sizeof s->gpu_note - n, fmt, ap);
    va_end(ap);
}

/* rc of one query, noted under `what` when it failed; 0 on success. */
static int asked(sp_machine_state *s, const char *what, int rc)
{
    char b[32];
    if (rc)
        note(s, "%s: %s", what, rc_text(rc, b, sizeof b));
    return rc;
}

/* The handle of the GPU at PCI bus id bus, looked up once per process
 * and bus; NVML's status. */
static int by_bus(const sp_nvml_api *a, const char *bus, void **dev)
{
    if (nv.bus_dev && !strcmp(nv.bus, bus)) {
        *dev = nv.bus_dev;
        return 0;
    }
    int rc = a->by_bus ? a->by_bus(bus, dev) : -1;
    if (rc == 0 && strlen(bus) < sizeof nv.bus) {
        snprintf(nv.bus, sizeof nv.bus, "%s", bus);
        nv.bus_dev = *dev;
    }
    return rc;
}

/* The device handle; 0, or -1 with the note. */
static int device(const sp_nvml_api *a, sp_machine_state *s, int index, const char *bus,
                  void **dev)
{
    char b[32];
    int rc = bus ? by_bus(a, bus, dev)
                 : (a->by_index ? a->by_index((unsigned)index, dev) : -1);
    if (rc && bus)
        note(s, "NVML has no GPU at PCI bus id %s: %s", bus, rc_text(rc, b, sizeof b));
    else if (rc)
        note(s, "NVML has no GPU %d: %s", index, rc_text(rc, b, sizeof b));
    return rc ? -1 : 0;
}

void sp_machine_read_gpu(sp_machine_state *s, int index, const char *bus)
{
    const sp_nvml_api *a = nvml();
    void *dev = NULL;
    unsigned u;
    unsigned long long ull;
    if (!a) {
        note(s, "%s", nv.why);
        return;
    }
    if (device(a, s, index, bus, &dev))
        return;
    s->gpu_valid = 1;
    if (!asked(s, "SM clock", a->clock ? a->clock(dev, NVML_CLOCK_SM, &u) : -1))
        s->sm_mhz = u;
    if (!asked(s, "memory clock", a->clock ? a->clock(dev, NVML_CLOCK_MEM, &u) : -1))
        s->mem_mhz = u;
    if (!asked(s, "temperature",
               a->temperature ? a->temperature(dev, NVML_TEMPERATURE_GPU, &u) : -1))
        s->temp_c = u;
    if (!asked(s, "power", a->power ? a->power(dev, &u) : -1))
        s->power_w = u / 1000.0;
    if (!asked(s, "throttle reasons", a->reasons ? a->reasons(dev, &ull) : -1)) {
        s->has_reasons = 1;
        s->reasons = ull;
    }
    if (!asked(s, "energy counter", a->energy ? a->energy(dev, &ull) : -1)) {
        s->has_energy = 1;
        s->energy_mj = ull;
    }
}

int sp_machine_gpu_energy_mj(const char *bus, unsigned long long *mj)
{
    const sp_nvml_api *a = nvml();
    void *dev = NULL;
    if (!a || !bus || !a->energy || by_bus(a, bus, &dev))
        return -1;
    return a->energy(dev, mj) ? -1 : 0;
}

int sp_machine_gpu_reasons(const char *bus, unsigned long long *bits)
{
    const sp_nvml_api *a = nvml();
    void *dev = NULL;
    if (!a || !bus || !a->reasons || by_bus(a, bus, &dev))
        return -1;
    return a->reasons(dev, bits) ? -1 : 0;
}
