/*
 * charts.h — the charts a sweep config asks the report for: its
 * [chart NAME] sections (docs/configs.md, docs/report.md).
 *
 *   [chart gflops-threads]
 *   y = rate                 ; rate | time | speedup
 *   x = threads              ; any axis a kernel of the config sweeps, or
 *                            ; `kernel`: a bar per kernel (its best run) and
 *                            ; matrix, one chart for all matrices
 *   split = family           ; none (default) | family | kernel
 *   kernels = *_omp*, spmv_csr_serial   ; globs, default every kernel
 *   device = cpu             ; cpu | gpu, default both
 *   operation = spmv         ; default every operation
 *   baseline = spmv_csr_serial          ; y = speedup only; default the
 *                                       ; sweep's serial baseline
 *   stat = median            ; median (with its 95 % interval) | mean
 *
 * The config reader (runner/plan/config.c) checks each section when the config
 * is read, against the config's own kernels, with FILE:LINE errors; the
 * report (plots/report_request.c) reads the sections back from the config
 * text stored with the sweep and draws one chart per matrix (and per
 * family or kernel with `split`).
 */
#ifndef SP_CHARTS_H
#define SP_CHARTS_H

#include <stddef.h>

#include "../../core/sparse.h"

typedef enum { SP_CHART_RATE, SP_CHART_TIME, SP_CHART_SPEEDUP } sp_chart_y;
typedef enum { SP_CHART_SPLIT_NONE, SP_CHART_SPLIT_FAMILY, SP_CHART_SPLIT_KERNEL } sp_chart_split;

/* x = kernel: the kernels side by side, each at its best run, a bar per
 * matrix (not an axis: no kernel declares it). */
#define SP_CHART_X_KERNEL "kernel"

/* Keys of a [chart] section, as bits of sp_chart_spec.given. */
enum {
    SP_CHART_KEY_Y = 1, SP_CHART_KEY_X = 2, SP_CHART_KEY_SPLIT = 4, SP_CHART_KEY_KERNELS = 8,
    SP_CHART_KEY_DEVICE = 16, SP_CHART_KEY_OPERATION = 32, SP_CHART_KEY_BASELINE = 64,
    SP_CHART_KEY_STAT = 128,
};

/* A chart's name: its files start with it. At most 40 characters, so that
 * "chart NAME" stays within libinih's 50 characters of a section title. */
#define SP_CHART_NAME_MAX 40
#define SP_CHART_NAME_RULE "a chart name is 1 to 40 letters, digits, '_', '-' or '.'"

typedef struct sp_chart_spec {
    char name[64];              /* [chart NAME]: SP_CHART_NAME_RULE */
    int line;                   /* of the section header */
    sp_chart_y y;               /* default rate */
    char x[32];                 /* the axis (required) */
    sp_chart_split split;
    int mean;                   /* stat = mean: the mean of the samples, no interval */
    char kernels[512];          /* comma-separated fnmatch globs; "" every kernel */
    char device[8];             /* "cpu", "gpu" or "" (both) */
    char operation[32];         /* "" every operation */
    char baseline[128];         /* y = speedup: the kernel divided by; "" the serial
                                 * baseline of the sweep (view baselines) */
    unsigned given;             /* SP_CHART_KEY_* seen (a key given twice is refused) */
    int key_line[8];            /* line of each key, by bit number (0: not given) */
} sp_chart_spec;

/* The name of key i of a [chart] section (in SP_CHART_KEY_* order), NULL
 * past the last. */
const char *sp_chart_key_name(int i);
/* Is name a valid chart name (SP_CHART_NAME_RULE)? */
int sp_chart_name_ok(const char *name);
/* Apply `key = value` to c, checking the value. -1 with a message that
 * names the key (no file or line: the caller adds them). line is the
 * key's line, kept for later checks. */
int sp_chart_key(sp_chart_spec *c, const char *key, const char *value, int line, sp_err *err);
/* The section is complete: x given, baseline only with y = speedup. */
int sp_chart_finish(const sp_chart_spec *c, sp_err *err);
/* The line of a key (SP_CHART_KEY_*) if given, else the section's. */
int sp_chart_line(const sp_chart_spec *c, unsigned key);
/* Does the chart take kernel (its `kernels` globs; every kernel without)? */
int sp_chart_selects(const sp_chart_spec *c, const char *kernel);
/* Does glob (one of the `kernels` list) match name? */
int sp_chart_glob_matches(const char *glob, const char *name);
/* Calls fn(glob) for each glob of c->kernels, stopping at a non-zero return. */
int sp_chart_each_glob(const sp_chart_spec *c, int (*fn)(const char *glob, void *user),
                       void *user);
/* The format family of a kernel, as `split = family` groups them: its
 * format ("csr", "hll", ...), with the column-major aligned sliced ELLPACK
 * kernels (names with "_aligned") a family of their own, "hll-aligned". */
void sp_chart_family(const char *kernel, const char *format, char *out, size_t len);

/* Every [chart] section of a config text (the report reads them from the
 * config stored with the sweep); the other sections are skipped unread.
 * *out is malloc'd (NULL when there are none). -1 with "PATH:LINE: ..."
 * on a bad section. */
int sp_chart_specs_parse(const char *path, const char *text, sp_chart_spec **out, int *n,
                         sp_err *err);

#endif
