/*
 * compare.h — one definition of faster, slower, same and noisy between
 * the same combination (matrix source, operation, kernel, axis values) in
 * two sweeps A (the base, "before") and B ("after"). `spsweep compare
 * A.db B.db` (runner/cli/cmd_compare.c) and the report's change table
 * (`report --base A.db`, plots/report_compare.c) both call it.
 *
 * A combination is "noisy" when either run is, by the one definition the
 * views use (run_stats.noisy): it has no interval (n <= 5), or its relative
 * half-width, (ci_hi - ci_lo) / 2 / median, exceeds its sweep's `noisy`
 * threshold (default 5 %), or max_noise when one is given: its verdict
 * cannot be trusted either way. On the shared 2-core VM a run slowed down
 * 10 000 times by other processes had a 40 % half-width; calling that
 * "slower" because the gap was wider still was a false alarm on a re-run
 * of the same config (bench/repeatability.sh), so "noisy" comes first.
 * Otherwise a difference is called only when all three hold:
 *   1. the two-sided Mann–Whitney U test of the two runs' samples gives
 *      p < alpha (db/ranktest.h),
 *   2. the medians differ by more than min_effect: |B/A - 1| > min_effect,
 *   3. the two runs' intervals [ci_lo, ci_hi] in run_stats do not overlap
 *      (the bounds of B/A, [B.lo / A.hi, B.hi / A.lo], exclude 1);
 * then B is "slower" (B/A > 1) or "faster"; else "same". Rule 3 once
 * asked only that the gap exceed each run's half-width: on the H200, two
 * sweeps of the seven real matrices with `blocking = on` (half-widths of
 * 1-2 % under 20 us) overlapped on every combination, yet that rule called
 * 6 of 64 changed. The samples of one round share a prepare, so the rank
 * test over pooled samples is optimistic; the interval is what carries
 * the spread between rounds.
 * A run with too few samples for an interval (run_stats leaves ci_lo NULL)
 * shows the range [min, max] of its samples in the table, and is noisy:
 * five samples cannot say a 10 % change is no accident of one prepare
 * (bench/RESULTS.md: a new prepare moves a short kernel by 15-35 %).
 * Combinations in one sweep only are "gone" (A only) or "new" (B only).
 */
#ifndef SP_COMPARE_H
#define SP_COMPARE_H

#include <stdint.h>
#include "../core/sparse.h"
#include "ranktest.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqlite3;

/* The defaults of --min-effect, --alpha and --max-noise (fractions). */
#define SP_CMP_MIN_EFFECT 0.02
#define SP_CMP_ALPHA 0.05
#define SP_CMP_MAX_NOISE (-1.0)

typedef struct sp_cmp_opts {
    double min_effect;          /* |B/A - 1| must exceed it */
    double alpha;               /* the rank test's level */
    /* relative half-width above which a run is noisy; < 0 (the default):
     * each run's own sweep's threshold, as run_stats.noisy says */
    double max_noise;
} sp_cmp_opts;

/* The defaults above. */
void sp_cmp_opts_default(sp_cmp_opts *o);

/* One ok run of a sweep: its key, run_stats' median and interval, and its
 * samples (seconds). */
typedef struct sp_cmp_run {
    int64_t run_id;
    char *matrix, *source, *operation, *kernel, *axes;     /* axes: JSON */
    double median;
    double lo, hi;              /* run_stats ci_lo, ci_hi; the samples' range when NULL */
    int from_range;             /* 1: lo, hi are the range */
    int noisy;                  /* run_stats.noisy: its sweep's threshold, or no interval */
    int unfit;                  /* run_stats.flags has throttled, busy or frequency drop
                                   (SP_CMP_UNFIT_FLAGS): measured on a machine not fit to
                                   measure on, so noisy whatever its interval */
    int n;                      /* samples */
    const double *samples;
} sp_cmp_run;

/* Every ok run of one sweep (db/compare_load.c). */
typedef struct sp_cmp_set {
    int64_t sweep_id;
    sp_cmp_run *runs;
    int n;
    double *pool;               /* every sample; runs point into it */
} sp_cmp_set;

/* The machine-state bits (runner/exec/machine.h: SP_MACHINE_THROTTLED,
 * SP_MACHINE_BUSY, SP_MACHINE_FREQ_DROP) that make a run unfit to call a
 * change on. A busy machine can hold a run steady at a slower speed: on
 * the 2-core VM with two CPU hogs, two sweeps of one config gave a CSR
 * run intervals of 1.7 % and 1.4 % that missed each other by 5 %, a
 * change called on a re-run. Not NOT_PERFORMANCE: informational. */
#define SP_CMP_UNFIT_FLAGS 0x7u

/* In display order: changes first, the bulk ("same") last. */
typedef enum {
    SP_CMP_SLOWER, SP_CMP_FASTER, SP_CMP_NOISY, SP_CMP_GONE, SP_CMP_NEW, SP_CMP_SAME,
    SP_CMP_NVERDICTS
} sp_cmp_verdict;

typedef struct sp_cmp_row {
    const sp_cmp_run *a, *b;    /* NULL on the side a gone / new combination lacks */
    sp_cmp_verdict verdict;
    double noise_a, noise_b;    /* (hi - lo) / 2 / median */
    double ratio;               /* B median / A median */
    double ratio_lo, ratio_hi;  /* B.lo / A.hi, B.hi / A.lo: the ratios both intervals allow */
    double p;                   /* the rank test's two-sided p-value */
    sp_mwu_method method;
} sp_cmp_row;

/* "slower", "faster", "noisy", "gone", "new", "same". */
const char *sp_cmp_verdict_name(sp_cmp_verdict v);
/* A run's relative half-width, (hi - lo) / 2 / median. */
double sp_cmp_noise(const sp_cmp_run *r);
/* Judge B against A (both present) into row, by the rules at the top.
 * -1 only when out of memory. */
int sp_cmp_judge(const sp_cmp_run *a, const sp_cmp_run *b, const sp_cmp_opts *o,
                 sp_cmp_row *row, sp_err *err);

/* The sweep of the database at path (connection db, read-only) to
 * compare: *sweep_id when given (it must exist: "OPTION ID: no such sweep
 * in PATH (sweeps 1-3)"), else the latest sweep with successful runs, else
 * the latest sweep. */
int sp_cmp_pick_sweep(struct sqlite3 *db, const char *path, const char *option,
                      int64_t *sweep_id, sp_err *err);
/* Every ok run of sweep_id from run_stats, with its samples. The
 * connection must see this build's views (sp_store_open_readonly). */
int sp_cmp_load(struct sqlite3 *db, const char *path, int64_t sweep_id, sp_cmp_set *out,
                sp_err *err);
void sp_cmp_set_free(sp_cmp_set *s);
/* Pair the runs of a and b by key and judge each pair; runs on one side
 * only become "gone" / "new" rows. Rows are sorted by verdict (the enum's
 * order), then matrix, operation, kernel and axes; free(*rows). */
int sp_cmp_pair(const sp_cmp_set *a, const sp_cmp_set *b, const sp_cmp_opts *o,
                sp_cmp_row **rows, int *nrows, sp_err *err);
/* counts[v] = the rows with verdict v. */
void sp_cmp_count(const sp_cmp_row *rows, int n, int counts[SP_CMP_NVERDICTS]);

#ifdef __cplusplus
}
#endif
#endif
