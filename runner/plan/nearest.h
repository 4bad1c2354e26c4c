/* nearest.h — "did you mean" (runner/plan/nearest.c), for the config's
 * checks and the command line alike. The name keeps its sp_cli_ prefix
 * from when it lived in runner/cli/cli.c, so callers did not change. */
#ifndef SP_NEAREST_H
#define SP_NEAREST_H

/* The candidate nearest to word (edit distance, case-insensitive) when it
 * is near enough to be a typo of it, else NULL: "did you mean". */
const char *sp_cli_nearest(const char *word, const char *const *cand, int n);

#endif
