/* measure.h — what a combination's child or worker does (runner/exec/measure.c):
 * measure one combination through the harness and report it to the parent
 * in the frames of runner/isolate/isolate.h. The isolate wing forks and
 * collects; this is the body it runs. */
#ifndef SP_MEASURE_H
#define SP_MEASURE_H

#include "../isolate/isolate.h"

typedef struct sp_measure_job {
    const sp_kernel *kernel;
    const sp_params *params;
    const sp_operation *op;
    const sp_problem *pb;
    const void *ref;
    void *out;                  /* op->output_bytes, scratch for the result */
    size_t out_bytes;
    int warmup;
    int repetitions;            /* fixed count, or the minimum when auto */
    int auto_reps;
    double max_noise, max_time_s;
    double tolerance;
    uint64_t need_device_bytes; /* checked against free device memory first */
    int check_context;          /* a worker: after a GPU run, is the context sound? */
    int cold;                   /* flush the caches before every sample (batch 1) */
    int batch;                  /* launches per sample; 0: enough for min_sample_s */
    int blocking;               /* GPU samples behind the blocking kernel (harness.h) */
    double min_sample_s;        /* the shortest sample a calibrated batch makes */
    double energy_s;            /* GPU energy window after the samples; 0: none */
    int energy_windows;         /* windows of energy_s each (1..SP_ENERGY_WINDOWS_MAX) */
    int steps;                  /* time the kernel's marked steps (one launch a sample) */
} sp_measure_job;

/* Measure one combination and report it on fd; returns the SP_RUN_*
 * status it reported. */
int sp_measure(const sp_measure_job *j, int fd);
/* The child's body: an sp_child_fn taking an sp_measure_job. */
void sp_measure_child(void *job, int fd);

#endif
