/* fork_cost.c — what the runner's process model costs per combination:
 * fork + a child that reports one frame + reap (runner/isolate/child.c), with a
 * matrix of the given source loaded in the parent (its pages are shared
 * copy-on-write; fork copies the page tables).
 *
 *   build/bench/fork_cost [SOURCE] [N]      default gen:laplace2d?n=1000, 200
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../runner/isolate/isolate.h"

/* The smallest useful child: one DONE frame. */
static void trivial(void *arg, int fd)
{
    (void)arg;
    sp_wire_done d = {SP_RUN_OK, SP_STOP_COUNT, 0, 1, 0};
    sp_wire_send(fd, SP_MSG_DONE, &d, sizeof d);
}

int main(int argc, char **argv)
{
    const char *text = argc > 1 ? argv[1] : "gen:laplace2d?n=1000";
    int n = argc > 2 ? atoi(argv[2]) : 200;
    sp_source src;
    sp_matrix M;
    sp_err err;
    sp_load_opts lo = {.no_cache = 1};
    if (sp_source_parse(text, &src, &err) || sp_matrix_load(&src, &lo, &M, &err)) {
        fprintf(stderr, "fork_cost: %s\n", err.msg);
        return 1;
    }
    double best = 1e9, sum = 0;
    for (int i = 0; i < n; i++) {
        sp_child_outcome o;
        if (sp_child_run(trivial, NULL, 10, NULL, &o, &err) || !o.done) {
            fprintf(stderr, "fork_cost: %s\n", o.done ? err.msg : "no result");
            return 1;
        }
        sum += o.wall_s;
        best = o.wall_s < best ? o.wall_s : best;
        sp_child_outcome_free(&o);
    }
    printf("%s: %d nnz (%.0f MiB CSR): fork+report+reap mean %.3f ms, min %.3f ms (%d runs)\n",
           text, M.A.nnz, (M.A.nnz * 12.0 + M.A.rows * 4.0) / 1048576, sum / n * 1e3,
           best * 1e3, n);
    sp_matrix_free(&M);
    return 0;
}
