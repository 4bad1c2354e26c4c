/*
 * machine_json.c — one machine-state reading as a JSON object, for a JSON
 * column of the database (before and after each run). Only the fields
 * that were read appear, so "unknown" is an absent key rather than a
 * made-up zero. Keys (units in the name where there is one):
 *   t          wall clock, seconds since the epoch
 *   gpu        NVML index asked for          bus       PCI bus id asked for
 *   sm_mhz     SM clock                      mem_mhz   memory clock
 *   temp_c     GPU temperature               power_w   board power
 *   reasons    NVML clock event ("throttle") reason bits
 *   energy_mj  GPU energy counter since the driver loaded
 *   gpu_note   why GPU fields are missing
 *   gov        CPU scaling governor ("mixed" when the run's CPUs differ)
 *   cpus       CPUs whose frequency was read
 *   mhz, mhz_min, mhz_max  their mean, lowest and highest frequency
 *   mhz_src    "cpufreq" or "cpuinfo" (VMs: the hypervisor's figure)
 *   load1      1-minute load average
 *   jiffies, busy_j, steal_j  /proc/stat `cpu` line: all, non-idle, stolen
 *   running    /proc/stat procs_running: runnable tasks, the reader included
 *   own_running  of them, the reader's process's threads and its parent's
 *   self_j     the reading process's own CPU time, jiffies
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "machine.h"

/* Output into buf[len], counting what did not fit as snprintf does. */
typedef struct json_out {
    char *buf;
    size_t len;
    int n;
    const char *sep;
} json_out;

static void put(json_out *o, const char *fmt, ...)
{
    va_list ap;
    size_t at = o->n < (int)o->len ? (size_t)o->n : o->len;
    va_start(ap, fmt);
    int k = vsnprintf(o->len ? o->buf + at : NULL, o->len - at, fmt, ap);
    va_end(ap);
    o->n += k > 0 ? k : 0;
}

static void key(json_out *o, const char *k)
{
    put(o, "%s\"%s\":", o->sep, k);
    o->sep = ",";
}

static void num(json_out *o, const char *k, double v)
{
    if (isfinite(v)) {
        key(o, k);
        put(o, "%.10g", v);
    }
}

static void whole(json_out *o, const char *k, unsigned long long v)
{
    key(o, k);
    put(o, "%llu", v);
}

/* A string value with JSON's escapes; nothing when empty. */
static void text(json_out *o, const char *k, const char *s)
{
    if (!s[0])
        return;
    key(o, k);
    put(o, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            put(o, "\\%c", c);
        else if (c < 0x20)
            put(o, "\\u%04x", c);
        else
            put(o, "%c", c);
    }
    put(o, "\"");
}

static void gpu_fields(json_out *o, const sp_machine_state *s)
{
    if (s->gpu >= 0)
        whole(o, "gpu", (unsigned long long)s->gpu);
    text(o, "bus", s->bus);
    num(o, "sm_mhz", s->sm_mhz);
    num(o, "mem_mhz", s->mem_mhz);
    num(o, "temp_c", s->temp_c);
    num(o, "power_w", s->power_w);
    if (s->has_reasons)
        whole(o, "reasons", s->reasons);
    if (s->has_energy)
        whole(o, "energy_mj", s->energy_mj);
    text(o, "gpu_note", s->gpu_note);
}

static void cpu_fields(json_out *o, const sp_machine_state *s)
{
    text(o, "gov", s->governor);
    if (s->ncpus > 0) {
        whole(o, "cpus", (unsigned long long)s->ncpus);
        num(o, "mhz", s->mhz_mean);
        num(o, "mhz_min", s->mhz_min);
        num(o, "mhz_max", s->mhz_max);
        text(o, "mhz_src", s->mhz_src);
    }
    num(o, "load1", s->load1);
    if (s->has_stat) {
        whole(o, "jiffies", s->total_j);
        whole(o, "busy_j", s->busy_j);
        whole(o, "steal_j", s->steal_j);
    }
    if (s->procs_running > 0) {
        whole(o, "running", (unsigned long long)s->procs_running);
        whole(o, "own_running", (unsigned long long)s->own_running);
    }
    if (s->has_self)
        whole(o, "self_j", s->self_j);
}

int sp_machine_json(const sp_machine_state *s, char *buf, size_t len)
{
    json_out o = {buf, len, 0, ""};
    if (len)
        buf[0] = '\0';
    put(&o, "{");
    if (isfinite(s->t)) {
        key(&o, "t");
        put(&o, "%.3f", s->t);
    }
    gpu_fields(&o, s);
    cpu_fields(&o, s);
    put(&o, "}");
    return o.n;
}
