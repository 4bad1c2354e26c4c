/*
 * advise.h — which kernel configuration for this matrix, learnt from the
 * stored sweeps (issue 25): k nearest neighbours on the matrices' z-scored
 * log-features (the view advise_features), each configuration scored by
 * its rate relative to the best on the neighbours (the view advise_rates).
 * Plain C over SQL, no model file: the measured matrices are the model.
 *
 *   runner/advise.c       the learning set, the features of a new matrix, kNN
 *   runner/advise_eval.c  leave-one-matrix-out against two baselines
 *   runner/advise_plan.c  `kernels = advised:K` in a sweep
 *   runner/cmd_advise.c   `spsweep advise`
 */
#ifndef SP_ADVISE_H
#define SP_ADVISE_H

#include <stdio.h>

#include "../../fetch/matrix.h"

#define SP_ADV_NFEAT 14     /* the f_* columns of advise_features */
#define SP_ADV_ALL ((1u << SP_ADV_NFEAT) - 1)
#define SP_ADV_MAX_K 32

/* The feature columns' names (f_nnz, ...), in the order of sp_adv_case.f. */
extern const char *const sp_adv_feature_names[SP_ADV_NFEAT];

/* One measured matrix: a matrix of one sweep of one database, with the
 * rates of its configurations at one operation, device and precision. */
typedef struct sp_adv_case {
    char *name, *source;
    char checksum[17];          /* the matrix's identity across sweeps and databases */
    int db;                     /* index into the --db list */
    long long sweep_id;
    double f[SP_ADV_NFEAT];
    int first, n;               /* its rates: set->rates[first .. first + n) */
    double best_rate;
    double vendor_rate;         /* the fastest vendor run; NaN: none ran */
    int vendor_at;              /* its index in set->rates; -1: none */
} sp_adv_case;

typedef struct sp_adv_rate {
    int config;                 /* index into set->kernel / set->axes */
    double rate, rate_lo, rate_hi;  /* NaN bounds: no interval */
    double rel;                 /* rate / the best on the matrix */
    int near_best;              /* advise_rates.near_best */
} sp_adv_rate;

typedef struct sp_adv_set {
    char operation[32], device[8], precision[16], rate_unit[16];
    int ncases, nrates, nconfigs;
    sp_adv_case *cases;
    sp_adv_rate *rates;
    char **kernel, **axes;      /* the distinct configurations */
    unsigned use;               /* the features distances use (bit j: feature j; 0 all):
                                   sp_adv_learn_features */
    int cap_cases, cap_rates, cap_configs;
} sp_adv_set;

typedef struct sp_adv_opts {
    const char *operation;      /* default "spmv" */
    const char *device;         /* "cpu" | "gpu"; NULL: cpu where it ran, else gpu */
    const char *precision;      /* default "double" */
    int k;                      /* neighbours, default 5 */
    double max_distance;        /* RMS z-distance of the nearest beyond which nothing is
                                   close (default SP_ADV_MAX_DISTANCE) */
    int all_features;           /* 1: distances over every feature; 0: the ones
                                   sp_adv_learn_features keeps (default) */
    double max_fill;            /* a padded configuration (DIA, ELL, HLL) whose layout
                                   would store more than this many times the matrix's
                                   nonzeros is not advised, as a sweep would refuse it
                                   (default SP_MAX_FILL_DEFAULT, the sweep's; 0: none) */
    int test_db;                /* with sp_adv_evaluate: the databases from this index of
                                   the list on are held out: only their matrices are
                                   judged, each advised from the databases before it
                                   alone (a matrix also among those, without its own
                                   runs); 0: leave-one-matrix-out over all of them */
} sp_adv_opts;

/* A configuration that did not run ok on a matrix (it failed, was refused
 * by max_fill, or was not measured) counts there as this share of the
 * best: bad enough to lose to one that ran everywhere. */
#define SP_ADV_MISSING_REL 0.1

#define SP_ADV_K 5
#define SP_ADV_MAX_DISTANCE 1.0
#define SP_ADV_MIN_CASES 3      /* fewer measured matrices: nothing is known */

void sp_adv_opts_default(sp_adv_opts *o);

#define SP_ADV_MAX_REFUSED 16

/* The least fill (stored entries / nonzeros, padding included) that
 * configuration (kernel, axes) has on a matrix of features f, from the
 * features alone: DIA ndiags·rows/nnz and ELL rows·row_max/nnz exactly
 * (the kernels' own sp_need.stored); HLL at a hack that is a multiple of
 * 32 at least the sliced-ELL fill at 32, a multiple of 8 at least the fill
 * at 8 (a taller slice is a union of shorter ones, so it pads no less);
 * 0 (nothing known) for every other kernel, and for SELL and an HLL at
 * `sigma` above 1, whose row sorting pads less. */
double sp_adv_fill_bound(const char *kernel, const char *axes, const double f[SP_ADV_NFEAT]);
/* The feature whose exp is that fill (7 f_dia, 8 f_ell, 9 f_sell8, 10
 * f_sell32), or -1 when nothing is known; a kernel sorting its rows (SELL,
 * or a `sigma` axis above 1) is -1. */
int sp_adv_fill_feature(const char *kernel, const char *axes);

/* A configuration in the order advised. */
typedef struct sp_adv_choice {
    int config;
    double score;               /* weighted mean of rel over the neighbours (0 where the
                                   configuration did not run ok) */
    int support;                /* neighbours that measured it */
    double expected, lo, hi;    /* weighted geomean of its neighbours' rates, their range */
    double worst;               /* its least rel over them (fill-scaled; MISSING_REL
                                   where it did not run) */
    double raw;                 /* the score with the scaled rels not capped at 1 (the
                                   tie-break between configurations at the cap) */
    double tail;                /* the geomean of its rel on its worst tenth of them
                                   (sp_advice.safest only) */
} sp_adv_choice;

typedef struct sp_advice {
    int close;                  /* 0: the database knows nothing close (why says so) */
    char why[256];
    double nearest;             /* RMS z-distance of the nearest neighbour */
    int nnb;
    int nb[SP_ADV_MAX_K];       /* case indexes, nearest first */
    double dist[SP_ADV_MAX_K];
    int nchoices;
    sp_adv_choice *choices;     /* every configuration a neighbour measured, best first */
    double mean[SP_ADV_NFEAT], sd[SP_ADV_NFEAT];  /* the z-scoring used */
    unsigned use;               /* the features the distances used */
    int nrefused;               /* configurations left out: their layout's fill on this
                                   matrix is above max_fill (sp_adv_fill_bound) */
    int refused[SP_ADV_MAX_REFUSED];    /* the first of them (config indexes) */
    double refused_fill[SP_ADV_MAX_REFUSED];
    sp_adv_choice safest;       /* the best on its worst tenth of every measured matrix
                                   kept (config -1: none): what stands in, and is named,
                                   where nothing close is known */
    int safest_over;            /* the cases it was scored over */
} sp_advice;

/* Load the learning set: every matrix with features and ok runs of the
 * operation, device and precision in the databases (opened read-only).
 * Errors name the database. An empty set is no error (advice then says
 * nothing is known). */
int sp_adv_load(const char *const *dbs, int ndb, const sp_adv_opts *o, sp_adv_set *set,
                sp_err *err);
void sp_adv_set_free(sp_adv_set *set);

/* The feature vector of a loaded matrix, through the same view
 * (advise_features over an in-memory database): the one definition. */
int sp_adv_features_of(const sp_matrix *M, double f[SP_ADV_NFEAT], sp_err *err);

/* Advice for a matrix of features f, leaving out the cases whose
 * checksum is `exclude` (NULL: none; leave-one-matrix-out). */
int sp_adv_predict(const sp_adv_set *set, const double f[SP_ADV_NFEAT], const char *exclude,
                   const sp_adv_opts *o, sp_advice *adv, sp_err *err);
void sp_advice_free(sp_advice *adv);
/* The same leaving out the cases with skip[c] set (NULL: none), distances
 * over the features in use (0: all). */
int sp_adv_predict_skip(const sp_adv_set *set, const double f[SP_ADV_NFEAT],
                        const unsigned char *skip, unsigned use, const sp_adv_opts *o,
                        sp_advice *adv, sp_err *err);
/* skip[c] = 1 for the cases of matrix `exclude` (a checksum; NULL: none),
 * calloc'd (NULL out of memory). */
unsigned char *sp_adv_skip_matrix(const sp_adv_set *set, const char *exclude);

/* Which features predict (advise_learn.c): backward elimination from all
 * of them, dropping the feature whose absence gives the lowest
 * leave-one-matrix-out regret over the cases not skipped, while that is no
 * higher than before, down to SP_ADV_MIN_FEATURES. The mask into
 * *use. */
#define SP_ADV_MIN_FEATURES 3
int sp_adv_learn_features(const sp_adv_set *set, const unsigned char *skip,
                          const sp_adv_opts *o, unsigned *use, sp_err *err);

/* The configuration most often the best (place 1) over the cases, leaving
 * out those with skip[c] set (NULL: none); -1 when there are none. */
int sp_adv_most_often_best(const sp_adv_set *set, const unsigned char *skip);
/* Distinct matrices (checksums) among the cases, leaving out those with
 * skip[c] set (NULL: none): a matrix swept twice is one matrix, two
 * cases. */
int sp_adv_distinct_matrices(const sp_adv_set *set, const unsigned char *skip);
/* The rate record of configuration `config` on case c, or NULL. */
const sp_adv_rate *sp_adv_rate_of(const sp_adv_set *set, int c, int config);

/* Print advice: the configuration, its expected rate and interval, the
 * runner-up, the neighbours; with explain the features and why. */
void sp_advice_print(const sp_adv_set *set, const sp_advice *adv, const double *f,
                     int explain, FILE *out);

/* Leave-one-matrix-out (advise_eval.c). */
typedef struct sp_adv_method {
    const char *name;
    int cases;                  /* matrices it was judged on */
    int within;                 /* near the best (10 % or within the noise) */
    int unmeasured;             /* its choice never ran on the matrix */
    double regret;              /* geomean of best / its rate where measured */
    double worst;               /* the largest best / its rate */
} sp_adv_method;

typedef struct sp_adv_eval {
    int matrices, not_close;    /* matrices judged; those with nothing close (advised
                                   the safest configuration, sp_advice.safest) */
    int learnt_from, held_out;  /* held out (sp_adv_opts.test_db): the distinct matrices
                                   of the databases advice was learnt from, and of the
                                   held-out ones; 0 otherwise */
    sp_adv_method advised, safest, most_often, vendor;
    char most_often_config[256];   /* over the whole set, for the report */
    int kept[SP_ADV_NFEAT];     /* folds whose learnt distance used feature j */
} sp_adv_eval;

/* Evaluate advice over set (leave-one-matrix-out, or held out: o->test_db);
 * with per_matrix, one line per matrix on out. An error where the held-out
 * databases hold no measured matrix. */
int sp_adv_evaluate(const sp_adv_set *set, const sp_adv_opts *o, sp_adv_eval *ev,
                    FILE *per_matrix, sp_err *err);
/* The evaluation as a Markdown table. */
void sp_adv_eval_print(const sp_adv_set *set, const sp_adv_opts *o, const sp_adv_eval *ev,
                       FILE *out);

#endif
