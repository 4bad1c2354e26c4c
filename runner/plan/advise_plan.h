/* advise_plan.h — `kernels = advised:K` (runner/advise_plan.c): the plan's
 * selection cut to the K advised configurations per matrix plus the vendor
 * library's, the advice stored with the sweep, and its outcome. */
#ifndef SP_ADVISE_PLAN_H
#define SP_ADVISE_PLAN_H

#include <stdio.h>

#include "../../db/store.h"
#include "select.h"

typedef struct sp_advised_row {
    int matrix, rank, combo;    /* cfg->matrices[matrix], 1 = first, plan->combos[combo] */
    double expected, lo, hi;    /* the rate expected and the neighbours' range */
    char neighbours[256];
} sp_advised_row;

typedef struct sp_advised {
    int nrows, cap;
    sp_advised_row *rows;
    unsigned char *keep;        /* [matrix * ncombos + combo]: advised (or unadvisable) */
    int unadvised;              /* matrices (per operation and device) with nothing close */
    int dropped;                /* runs of the selection left out */
} sp_advised;

/* With cfg->advised_k set: advise on every matrix of wl and keep only its
 * advised combinations, the vendor libraries' and those not advised on
 * (another precision; a matrix with nothing close: all); wl->advised holds
 * the advice. Without: nothing. */
int sp_advise_select(const sp_config *cfg, const sp_plan *plan, sp_worklist *wl, sp_err *err);
void sp_advised_free(sp_advised *a);
/* The advice as "# advised ..." comment lines of the dry run. */
void sp_advised_print(const sp_config *cfg, const sp_plan *plan, const sp_advised *a,
                      FILE *out);
/* Store the advice with the sweep (table advice); a resumed sweep's again. */
int sp_advised_store(sp_store *st, int64_t sweep_id, const sp_config *cfg,
                     const sp_plan *plan, const sp_advised *a, sp_err *err);
/* One line of advice_outcome after the sweep: how often the advice was right. */
void sp_advised_summary(sp_store *st, int64_t sweep_id, FILE *out);

#endif
