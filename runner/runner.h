/*
 * runner.h — the runner as a whole, for the tests and the benches: its
 * wings' headers in one. Inside runner/ every file includes its own wing's
 * header and those of the wings below it (runner/README.md), never this.
 *
 *   plan/plan.h       axis values, the sweep config, the plan
 *   exec/sweep.h      run a sweep, its fetch step, provenance
 *   cli/commands.h    the commands of their own files
 *
 * The config format: runner/plan/plan.h.
 */
#ifndef SP_RUNNER_H
#define SP_RUNNER_H

#include "cli/commands.h"
#include "exec/sweep.h"
#include "plan/plan.h"

#endif
