/*
 * sweep_ctx.h — the executor's shared context (private to runner/exec/):
 * the sweep's state (run_ctx), the signal counter and the log
 * (sweep_ctx.c), and the one combination sweep.c hands to sweep_combo.c.
 * The calls go one way: sweep.c -> sweep_combo.c -> sweep_ctx.c.
 */
#ifndef SP_SWEEP_CTX_H
#define SP_SWEEP_CTX_H

#include <signal.h>

#include "../../db/store.h"
#include "../isolate/isolate.h"
#include "../plan/select.h"
#include "progress.h"
#include "sweep.h"

#define MAX_OPS 8

/* An operation's inputs and reference on the current matrix. */
typedef struct op_state {
    const sp_operation *op;
    sp_problem pb;
    void *ref, *out;
    size_t out_bytes;
} op_state;

typedef struct run_ctx {
    const sp_config *cfg;
    const sp_sweep_opts *o;
    const sp_plan *plan;
    sp_store *st;
    int64_t sweep_id;
    int resumed;                /* continuing an earlier sweep */
    char plan_hash[17], binary_hash[17];
    sp_provenance prov;
    sp_sweep_result *res;
    sp_worklist todo;           /* selected and not stored yet, plan order */
    int done, total;
    int name_width;             /* of the matrix column in progress lines */
    long kill_after;            /* test hook: SIGKILL ourselves after this many runs */
    sp_progress progress;
    op_state ops[MAX_OPS];
    int nops;
    sp_worker worker;           /* the matrix's worker (isolate.h), pid 0: none */
    int worker_nops;            /* ops that existed when it was forked */
} run_ctx;

/* Signals seen: 1 = finish the combination in flight and stop, 2 = kill it
 * (sweep.c's handler counts them; sweep_ctx.c holds the counter). */
extern volatile sig_atomic_t sp_sweep_interrupted;

/* printf to the sweep's log, when it has one (sweep_ctx.c). */
void sp_sweep_say(const run_ctx *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One round of one combination on the loaded matrix: decide, run in a
 * child, store (sweep_combo.c); cost is its estimate, for the progress line. */
int sp_sweep_combo(run_ctx *rc, const sp_matrix *M, int64_t matrix_id, const sp_combo *c,
                   int round, double cost, sp_err *err);
/* Let the matrix's worker go and free the matrix's operation states. */
void sp_sweep_ops_free(run_ctx *rc);

#endif
