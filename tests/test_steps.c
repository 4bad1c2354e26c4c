/*
 * test_steps.c — a launch's steps as sub-phases (`steps = 1`, issue 20):
 * the harness times the marks a kernel makes (sp_exec_mark) on its own
 * clock, the steps add up to the sample, marks outside a sample or
 * without steps on cost nothing, bad marks and batches are refused with
 * the reason; the per-run series and their medians (measure_steps.c);
 * the config key; and a real sweep of the CPU ScanTrans with steps = 1
 * storing its four steps, read back through the run_steps view.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner/exec/harness.h"
#include "../runner/exec/measure_steps.h"
#include "../runner/runner.h"
#include "testutil.h"
#include "util_db.h"

/* A made-up clock the fake kernel advances: exact step lengths. */
static double now;
static double fake_clock(void)
{
    return now;
}

/* What the fake kernel does in one launch: `lead` seconds before its
 * first mark, then each mark followed by its seconds. */
typedef struct fake_state {
    double lead;
    int n;
    const char *name[20];
    double seconds[20];
    int launches;
} fake_state;

static int fake_launch(void *state, const sp_exec *ex, sp_err *err)
{
    fake_state *s = state;
    (void)err;
    now += s->lead;
    for (int i = 0; i < s->n; i++) {
        sp_exec_mark(ex, s->name[i]);
        now += s->seconds[i];
    }
    s->launches++;
    return 0;
}

static const sp_kernel fake = {.name = "test_steps", .operation = "transpose",
                               .backend = "test", .launch = fake_launch};

/* A harness on the fake kernel with the fake clock, timing steps or not. */
static void open_fake(sp_harness *h, int steps)
{
    sp_err err;
    sp_harness_cpu_clock = fake_clock;
    now = 100;
    cr_assert_eq(sp_harness_open(h, &fake, 0, 1, &err), 0, "%s", err.msg);
    if (steps)
        sp_harness_time_steps(h);
}

static void close_fake(sp_harness *h)
{
    sp_harness_close(h);
    sp_harness_cpu_clock = sp_seconds;
}

Test(steps, the_steps_of_a_sample_add_up_to_it)
{
    sp_harness h;
    sp_err err;
    fake_state s = {.lead = 0.25, .n = 4,
                    .name = {"histogram", "vertical_scan", "prefix_sum", "write_back"},
                    .seconds = {1.0, 0.5, 0.125, 3.0}};
    open_fake(&h, 1);
    double t = 0;
    cr_assert_eq(sp_harness_sample(&h, &s, 1, &t, &err), 0, "%s", err.msg);
    cr_assert_float_eq(t, 4.875, 1e-12);
    cr_assert_eq(h.steps.n, 4);
    /* the first step starts with the sample: the lead is its */
    double want[] = {1.25, 0.5, 0.125, 3.0}, sum = 0;
    for (int i = 0; i < 4; i++) {
        cr_assert_str_eq(h.steps.name[i], s.name[i]);
        cr_assert_float_eq(h.steps.seconds[i], want[i], 1e-12, "%s", s.name[i]);
        sum += h.steps.seconds[i];
    }
    cr_assert_float_eq(sum, t, 1e-12, "the steps add up to the sample");
    close_fake(&h);
}

Test(steps, a_name_marked_twice_is_summed_in_first_marked_order)
{
    sp_harness h;
    sp_err err;
    fake_state s = {.n = 3, .name = {"scan", "merge", "scan"}, .seconds = {1, 2, 4}};
    open_fake(&h, 1);
    double t = 0;
    cr_assert_eq(sp_harness_sample(&h, &s, 1, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(h.steps.n, 2);
    cr_assert_str_eq(h.steps.name[0], "scan");
    cr_assert_float_eq(h.steps.seconds[0], 5.0, 1e-12);
    cr_assert_str_eq(h.steps.name[1], "merge");
    cr_assert_float_eq(h.steps.seconds[1], 2.0, 1e-12);
    close_fake(&h);
}

/* Without steps = 1 a launch gets no mark hook: its marks do nothing, the
 * sample is the same, and a batch is allowed as before. */
Test(steps, without_steps_marks_cost_nothing_and_batches_stay)
{
    sp_harness h;
    sp_err err;
    fake_state s = {.n = 2, .name = {"a", "b"}, .seconds = {1, 2}};
    open_fake(&h, 0);
    cr_assert_null(h.ex.mark);
    double t = 0;
    cr_assert_eq(sp_harness_sample(&h, &s, 4, &t, &err), 0, "%s", err.msg);
    cr_assert_float_eq(t, 3.0, 1e-12);
    cr_assert_eq(h.steps.n, 0);
    close_fake(&h);
}

/* A sample with steps is one launch: the calibration gives 1, a batch is
 * refused with the reason; warm-up launches mark outside any sample and
 * leave no steps behind. */
Test(steps, steps_time_one_launch_and_warm_ups_are_not_steps)
{
    sp_harness h;
    sp_err err;
    fake_state s = {.n = 2, .name = {"a", "b"}, .seconds = {0.001, 0.002}};
    open_fake(&h, 1);
    int batch = 0;
    cr_assert_eq(sp_harness_batch(&h, &s, 1.0, &batch, &err), 0, "%s", err.msg);
    cr_assert_eq(batch, 1);
    double t;
    cr_assert_eq(sp_harness_sample(&h, &s, 2, &t, &err), -1);
    cr_assert_str_eq(err.msg, "steps = 1 times one launch a sample, not a batch of 2");
    cr_assert_eq(sp_harness_launch(&h, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(h.nmarks, 0, "a warm-up's marks are not kept");
    close_fake(&h);
}

Test(steps, bad_marks_fail_the_sample_with_the_reason)
{
    sp_harness h;
    sp_err err;
    double t;
    fake_state bad = {.n = 1, .name = {"two words"}, .seconds = {1}};
    open_fake(&h, 1);
    cr_assert_eq(sp_harness_sample(&h, &bad, 1, &t, &err), -1);
    cr_assert_str_eq(err.msg, "steps: step name 'two words': 1 to 48 letters, digits, '_', "
                              "'-' or '.'");
    fake_state many = {.n = 17};
    for (int i = 0; i < 17; i++)
        many.name[i] = "x", many.seconds[i] = 1;
    cr_assert_eq(sp_harness_sample(&h, &many, 1, &t, &err), -1);
    cr_assert_str_eq(err.msg, "steps: more than 16 step marks in one launch (the last: 'x')");
    /* the harness recovers: the next sample is measured */
    fake_state ok = {.n = 1, .name = {"x"}, .seconds = {2}};
    cr_assert_eq(sp_harness_sample(&h, &ok, 1, &t, &err), 0, "%s", err.msg);
    cr_assert_float_eq(h.steps.seconds[0], 2.0, 1e-12);
    close_fake(&h);
}

/* The run's series: per name, the median over its samples, in the order
 * first marked; a step missing from a sample counts 0 there. */
Test(steps, the_series_keeps_each_steps_median)
{
    sp_step_series ss = {0};
    sp_err err;
    char json[256];
    cr_assert_eq(sp_step_series_json(&ss, json, sizeof json), -1, "no steps: no JSON");
    double a[] = {3, 1, 2, 100, 4}, b[] = {10, 30, 20, 40, 50};
    for (int i = 0; i < 5; i++) {
        sp_steps st = {.n = i == 3 ? 1 : 2, .name = {"a", "b"}, .seconds = {a[i], b[i]}};
        cr_assert_eq(sp_step_series_push(&ss, &st, &err), 0, "%s", err.msg);
    }
    sp_steps late = {.n = 1, .name = {"c"}, .seconds = {7}};
    cr_assert_eq(sp_step_series_push(&ss, &late, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_step_series_json(&ss, json, sizeof json), 0);
    /* a: 3 1 2 100 4 0 -> 2.5; b: 10 30 20 0 50 0 -> 15; c: 0 x5, 7 -> 0 */
    cr_assert_str_eq(json, "{\"a\":2.5,\"b\":15,\"c\":0}");
    cr_assert_eq(sp_step_series_json(&ss, json, 10), -1, "too small a buffer is refused");
    sp_step_series_free(&ss);
}

Test(steps, the_config_key_takes_0_or_1)
{
    sp_config cfg;
    sp_err err;
    cr_assert_eq(sp_config_parse("s.ini", "[sweep]\nsteps = 1\n[matrices]\nsource = "
                                 "gen:laplace2d?n=4\n[kernel transpose_serial]\n",
                                 NULL, &cfg, &err), 0, "%s", err.msg);
    cr_assert_eq(cfg.steps, 1);
    sp_config_free(&cfg);
    cr_assert_eq(sp_config_parse("s.ini", "[sweep]\nsteps = 2\n[matrices]\nsource = "
                                 "gen:laplace2d?n=4\n[kernel transpose_serial]\n",
                                 NULL, &cfg, &err), -1);
    cr_assert(strstr(err.msg, "'steps' must be 0 or 1"), "%s", err.msg);
}

/* A sweep of the CPU ScanTrans with steps = 1 and 3 rounds: every round
 * stores the four steps of study 001 (the kernels of its GPU version) in
 * order; the view gives each step once per run with its median over the
 * rounds, none above the run's slowest sample. The serial kernel marks
 * nothing and has no steps; a sweep without steps stores none. */
Test(steps, a_sweep_stores_scantrans_steps_and_the_view_reads_them, .timeout = 120)
{
    char dir[256], db[300], text[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(db, sizeof db, dir, "steps.db");
    for (int steps = 1; steps >= 0; steps--) {
        snprintf(text, sizeof text,
                 "[sweep]\nrepetitions = 5\nwarmup = 1\nrounds = 3\nsteps = %d\ndatabase = %s\n"
                 "[matrices]\nsource = gen:random?rows=3000&cols=4000&nnz=200000&seed=%d\n"
                 "[kernel transpose_serial]\n[kernel transpose_scantrans]\nthreads = 2\n",
                 steps, db, 2 + steps);
        sp_config cfg;
        sp_sweep_result res;
        sp_err err;
        cr_assert_eq(sp_config_parse("steps.ini", text, NULL, &cfg, &err), 0, "%s", err.msg);
        tu_stderr_begin(dir);
        int rc = sp_sweep_run(&cfg, &(sp_sweep_opts){0}, &res, &err);
        free(tu_stderr_end());
        cr_assert_eq(rc, 0, "%s", err.msg);
        sp_config_free(&cfg);
    }
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(ud_real(h, "SELECT count(*) FROM run_rounds rr JOIN runs r ON r.id = rr.run_id"
                           " WHERE r.kernel = 'transpose_scantrans' AND rr.steps IS NOT NULL", 0), 3,
                 "each of the three rounds of the steps sweep");
    cr_assert_eq(ud_real(h, "SELECT count(*) FROM run_rounds WHERE steps IS NOT NULL AND"
                           " (SELECT group_concat(key, ',') FROM json_each(steps)) ="
                           " 'histogram,vertical_scan,prefix_sum,write_back'", 0), 3);
    cr_assert_eq(ud_real(h, "SELECT count(*) FROM run_steps", 0), 4, "one row a step, one run");
    cr_assert_eq(ud_real(h, "SELECT count(*) FROM run_steps WHERE kernel = 'transpose_scantrans'"
                           " AND rounds = 3 AND median_s > 0 AND"
                           " position = CASE step WHEN 'histogram' THEN 1 WHEN 'vertical_scan'"
                           " THEN 2 WHEN 'prefix_sum' THEN 3 WHEN 'write_back' THEN 4 END", 0), 4);
    /* a step is part of its sample: no step's median above the run's
     * slowest sample. (Their sum need not be near the median sample: on
     * a loaded machine each sample may lose its time in a different step,
     * a descheduled thread at another barrier; the exact sum is the
     * harness test above.) */
    cr_assert_eq(ud_real(h, "SELECT count(*) FROM run_steps st JOIN run_stats s ON"
                           " s.run_id = st.run_id WHERE st.median_s <= s.max * (1 + 1e-9)", 0), 4);
    /* the view's median is the middle round's */
    cr_assert_float_eq(ud_real(h, "SELECT median_s FROM run_steps WHERE step = 'write_back'", 0),
                       ud_real(h, "SELECT json_extract(steps, '$.write_back') AS w FROM run_rounds"
                                 " WHERE steps IS NOT NULL ORDER BY w LIMIT 1 OFFSET 1", 0), 1e-15);
    sqlite3_close(h);
}
