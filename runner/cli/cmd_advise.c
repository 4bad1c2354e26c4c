/*
 * cmd_advise.c — `spsweep advise SOURCE`: which kernel configuration for
 * this matrix, learnt from the sweeps stored in the databases (advise.h);
 * `spsweep advise --evaluate`: how good that advice is, leave-one-matrix-
 * out, against the safest configuration, always the most-often-best one
 * and always the vendor library. The databases are opened read-only.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plan/advise.h"
#include "cli.h"
#include "../plan/load_guard.h"
#include "../exec/sweep.h"
#include "commands.h"

enum { A_DB = 1, A_OP, A_DEVICE, A_PRECISION, A_K, A_MAXD, A_EXPLAIN, A_EVALUATE, A_CACHE,
       A_ALL, A_OUT, A_FILL, A_TEST };

#define MAX_DBS 64

static const sp_cli_opt advise_opts[] = {
    {"db", "PATH", A_DB, "a results database to learn from; repeatable, their sweeps "
     "pooled (default results/results.db)"},
    {"operation", "OP", A_OP, "the operation to advise for (default spmv)"},
    {"device", "cpu|gpu", A_DEVICE, "the device (default: cpu where the databases hold CPU "
     "runs, else gpu)"},
    {"precision", "P", A_PRECISION, "the precision axis' value (default double)"},
    {"k", "N", A_K, "neighbours the advice rests on, 1..32 (default 5)"},
    {"max-distance", "D", A_MAXD, "beyond this distance to the nearest measured matrix "
     "(the RMS of the z-scored feature differences) nothing close is known and no advice "
     "is given (default 1.0)"},
    {"max-fill", "F|none", A_FILL, "a padded configuration (DIA, ELL, HLL) whose layout "
     "would store more than F times the matrix's nonzeros is not advised, as a sweep with "
     "that max_fill refuses it (default 10, the sweep's default; none: no limit)"},
    {"all-features", NULL, A_ALL, "distances over all fourteen features, instead of those "
     "that lower the leave-one-matrix-out regret on the databases (learnt by backward "
     "elimination; with --evaluate, in each fold without the matrix judged)"},
    {"explain", NULL, A_EXPLAIN, "also print the features with their z-scores and every "
     "configuration's score; with --evaluate, one row per matrix"},
    {"evaluate", NULL, A_EVALUATE, "no SOURCE: leave each measured matrix out in turn, "
     "advise on it from the others and judge the advice against what was measured, beside "
     "three baselines (the safest configuration, always the most-often-best one, "
     "always the vendor library); a Markdown table"},
    {"test", "PATH", A_TEST, "with --evaluate: a database held out, repeatable: only its "
     "matrices are judged, each advised from the --db databases alone (features, "
     "neighbours and baselines learnt without it), to test advice on sweeps it was not "
     "tuned on"},
    {"out", "FILE", A_OUT, "with --evaluate: also write the evaluation as a Markdown page "
     "to FILE (the databases, the table, one row per matrix)"},
    {"cache-dir", "DIR", A_CACHE, "matrix cache for suitesparse: sources (default "
     "$SPSWEEP_CACHE, $XDG_CACHE_HOME/spsweep or ~/.cache/spsweep)"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_advise = {
    .name = "advise",
    .synopsis = "SOURCE [options]\n--evaluate [options]",
    .summary = "which kernel configuration for a matrix, learnt from the stored sweeps",
    .about = "Loads SOURCE (as `info` does), computes its features and finds the k "
             "measured matrices nearest to it in the databases (z-scored log-features of "
             "the view advise_features; docs/advise.md). Each configuration (kernel and "
             "axis values) measured on them scores the weighted mean of its rate over the "
             "best rate on each neighbour (advise_rates.rel; a padded layout's, DIA, ELL or "
             "HLL, scaled by its fill on that neighbour over its fill on SOURCE, known from "
             "the features); the highest is advised, with "
             "its expected rate (the neighbours' weighted geomean) and their range, the "
             "runner-up, and the neighbours. The distance uses the features that lower the "
             "leave-one-matrix-out regret on the databases (backward elimination; "
             "--all-features: all of them). When the nearest measured matrix is farther "
             "than --max-distance, or fewer than 3 matrices were measured, it says that "
             "nothing close is known instead of guessing; past --max-distance it names "
             "the safest configuration (the one whose rate over the best is highest on "
             "its worst tenth of the measured matrices) as what to measure first.\n"
             "--evaluate: leave-one-matrix-out over the stored sweeps: the share of "
             "matrices whose advised configuration is within 10 % of the measured best "
             "(or within the noise), and the regret (geomean of best / advised), beside "
             "the safest configuration (which also stands in where nothing close is known), "
             "always the most-often-best one and always the vendor library. With --test: "
             "held out instead, the matrices of the --test databases judged on advice "
             "learnt from the --db ones alone.",
    .opts = advise_opts,
    .exits = "0 advice printed (or the evaluation); 3 nothing close is known (no advice); "
             "1 the source or a database cannot be read; 2 a command line that cannot be "
             "parsed",
    .examples = "'gen:laplace2d?n=500' --db results/advise_cpu.db\n"
                "results/my.mtx --db a.db --db b.db --explain\n"
                "--evaluate --db results/advise_cpu.db\n"
                "--evaluate --db results/advise_cpu.db --test results/advise_cpu_holdout.db",
};

typedef struct advise_cli {
    const char *db[MAX_DBS], *test[MAX_DBS];
    int ndb, ntest;
    sp_adv_opts o;
    int explain, evaluate;
    const char *cache_dir, *out;
} advise_cli;

static int bad_value(const char *opt, const char *v, const char *want)
{
    fprintf(stderr, "spsweep advise: --%s '%s': expected %s\n", opt, v, want);
    return 1;
}

/* One option's value into c; nonzero: a bad value (said on stderr). */
static int take(advise_cli *c, int opt, const char *v)
{
    char *end;
    switch (opt) {
    case A_DB:
        if (c->ndb == MAX_DBS)
            return bad_value("db", v, "at most 64 databases");
        c->db[c->ndb++] = v;
        return 0;
    case A_TEST:
        if (c->ntest == MAX_DBS)
            return bad_value("test", v, "at most 64 databases");
        c->test[c->ntest++] = v;
        return 0;
    case A_OP: c->o.operation = v; return 0;
    case A_DEVICE: c->o.device = v; return 0;   /* checked after --help had its turn */
    case A_PRECISION: c->o.precision = v; return 0;
    case A_K: {
        errno = 0;
        long k = strtol(v, &end, 10);
        if (!*v || *end || errno || k < 1 || k > SP_ADV_MAX_K)
            return bad_value("k", v, "an integer in 1..32");
        c->o.k = (int)k;
        return 0;
    }
    case A_MAXD: {
        double d = strtod(v, &end);
        if (!*v || *end || !(d > 0 && d < 1e6))
            return bad_value("max-distance", v, "a positive number");
        c->o.max_distance = d;
        return 0;
    }
    case A_FILL:
        if (!strcmp(v, "none")) {
            c->o.max_fill = 0;
            return 0;
        }
        c->o.max_fill = strtod(v, &end);
        if (!*v || *end || !(c->o.max_fill >= 1 && c->o.max_fill < 1e12))
            return bad_value("max-fill", v, "a number >= 1, or none");
        return 0;
    case A_EXPLAIN: c->explain = 1; return 0;
    case A_ALL: c->o.all_features = 1; return 0;
    case A_OUT: c->out = v; return 0;
    case A_EVALUATE: c->evaluate = 1; return 0;
    case A_CACHE: c->cache_dir = v; return 0;
    }
    return 0;
}

/* 0 parsed, -1 --help printed, else the exit status. */
static int parse_advise(int argc, char **argv, advise_cli *c)
{
    memset(c, 0, sizeof *c);
    sp_adv_opts_default(&c->o);
    sp_cli_parser p;
    sp_cli_begin(&p, &sp_cli_advise);
    int opt;
    while ((opt = sp_cli_next(&p, argc, argv)) != SP_CLI_END) {
        if (opt == SP_CLI_HELP)
            return -1;
        if (opt == SP_CLI_BAD)
            return SP_EXIT_USAGE;
        if (take(c, opt, optarg))
            return 1;
    }
    if (c->out && !c->evaluate)
        return bad_value("out", c->out, "--evaluate beside it (advice itself goes to stdout)");
    if (c->ntest && !c->evaluate)
        return bad_value("test", c->test[0], "--evaluate beside it (a held-out database is "
                         "judged, not learnt from)");
    if (c->o.device && strcmp(c->o.device, "cpu") && strcmp(c->o.device, "gpu"))
        return bad_value("device", c->o.device, "cpu or gpu");
    int want = c->evaluate ? 0 : 1;
    if (argc - optind != want) {
        fprintf(stderr, "spsweep advise: %s; see `spsweep advise --help`\n",
                c->evaluate ? "--evaluate takes no SOURCE"
                            : "expected one SOURCE (gen:..., file:..., suitesparse:..., or "
                              "a path)");
        return 1;
    }
    if (!c->ndb)
        c->db[c->ndb++] = "results/results.db";
    if (c->ndb + c->ntest > MAX_DBS)
        return bad_value("test", c->test[0], "at most 64 databases with --db's");
    /* the held-out databases load after the others: their cases are those
     * of a db index from test_db on */
    if (c->ntest)
        c->o.test_db = c->ndb;
    for (int i = 0; i < c->ntest; i++)
        c->db[c->ndb + i] = c->test[i];
    return 0;
}

/* Load the source (with the memory guard `info` uses) and its features. */
static int source_features(const advise_cli *c, const char *text, sp_matrix *M,
                           double *f, sp_err *err)
{
    sp_source src;
    sp_load_opts lo = {.cache_dir = c->cache_dir};
    char why[900];
    if (sp_source_parse(text, &src, err))
        return -1;
    if (src.kind == SP_SRC_KEYS)
        return sp_fail(err, "%s: a key array, not a matrix: advise takes a matrix", src.text);
    if (sp_load_mem_short(&src, &lo, 0, NULL, 0, "advice", why, sizeof why))
        return sp_fail(err, "%s: %s", src.text, why);
    if (sp_matrix_load(&src, &lo, M, err))
        return -1;
    if (sp_adv_features_of(M, f, err)) {
        sp_matrix_free(M);
        return -1;
    }
    return 0;
}

static int advise_one(const advise_cli *c, const char *text, const sp_adv_set *set)
{
    sp_matrix M;
    sp_err err = {{0}};
    double f[SP_ADV_NFEAT];
    if (source_features(c, text, &M, f, &err)) {
        fprintf(stderr, "spsweep advise: %s\n", err.msg);
        return 1;
    }
    sp_advice adv;
    if (sp_adv_predict(set, f, NULL, &c->o, &adv, &err)) {
        sp_matrix_free(&M);
        fprintf(stderr, "spsweep advise: %s\n", err.msg);
        return 1;
    }
    printf("matrix: %s (%d x %d, %d nonzeros)\n", M.src.name, M.feat.rows, M.feat.cols,
           M.feat.nnz);
    sp_advice_print(set, &adv, f, c->explain, stdout);
    int rc = adv.close ? 0 : 3;
    sp_advice_free(&adv);
    sp_matrix_free(&M);
    return rc;
}

/* The evaluation as a page of its own: what it learnt from, the table,
 * one row per matrix. */
static int write_page(const advise_cli *c, const sp_adv_set *set, sp_err *err)
{
    FILE *f = fopen(c->out, "w");
    if (!f)
        return sp_fail(err, "%s: cannot write: %s", c->out, strerror(errno));
    fprintf(f, "# Which kernel for my matrix: advice judged %s\n\n`spsweep advise --evaluate",
            c->ntest ? "on held-out sweeps" : "leave-one-matrix-out");
    for (int i = 0; i < c->ndb + c->ntest; i++)
        fprintf(f, " --%s %s", i < c->ndb ? "db" : "test", c->db[i]);
    fprintf(f, "` (docs/advise.md)\n\n");
    sp_adv_eval ev;
    int rc = sp_adv_evaluate(set, &c->o, &ev, NULL, err);
    if (!rc) {
        sp_adv_eval_print(set, &c->o, &ev, f);
        fprintf(f, "\n## Each matrix\n\n");
        rc = sp_adv_evaluate(set, &c->o, &ev, f, err);
    }
    if (fclose(f) && !rc)
        rc = sp_fail(err, "%s: cannot write: %s", c->out, strerror(errno));
    return rc;
}

int sp_cmd_advise(int argc, char **argv)
{
    advise_cli c;
    int rc = parse_advise(argc, argv, &c);
    if (rc)
        return rc < 0 ? 0 : rc;
    sp_adv_set set;
    sp_err err = {{0}};
    if (sp_adv_load(c.db, c.ndb + c.ntest, &c.o, &set, &err)) {
        fprintf(stderr, "spsweep advise: %s\n", err.msg);
        return 1;
    }
    if (!c.evaluate) {
        if (!c.o.all_features && sp_adv_learn_features(&set, NULL, &c.o, &set.use, &err)) {
            fprintf(stderr, "spsweep advise: %s\n", err.msg);
            sp_adv_set_free(&set);
            return 1;
        }
        rc = advise_one(&c, argv[optind], &set);
    } else {
        sp_adv_eval ev;
        rc = sp_adv_evaluate(&set, &c.o, &ev, c.explain ? stdout : NULL, &err) ? 1 : 0;
        if (rc)
            fprintf(stderr, "spsweep advise: %s\n", err.msg);
        else {
            if (c.explain)
                printf("\n");
            sp_adv_eval_print(&set, &c.o, &ev, stdout);
        }
        if (!rc && c.out && write_page(&c, &set, &err)) {
            fprintf(stderr, "spsweep advise: %s\n", err.msg);
            rc = 1;
        }
    }
    sp_adv_set_free(&set);
    return rc;
}
