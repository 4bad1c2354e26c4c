/* util_shards.h — helpers for the scale-out tests (test_slurm*.c,
 * test_shards.c, test_gpus.c): a small CPU-only config, the combinations a
 * database holds, shell commands with their output. */
#ifndef SP_UTIL_SHARDS_H
#define SP_UTIL_SHARDS_H

#include <stddef.h>

/* Write a CPU-only config of 3 generated matrices x 3 combinations
 * (9 runs, 2 repetitions each) to dir/name; its path into path. */
void us_small_config(const char *dir, const char *name, char *path, size_t len);
/* Every run of db as "source|kernel|axes" lines, sorted, duplicates kept
 * (so a run stored twice shows); malloc'd. */
char *us_combos(const char *db);
/* Run a shell command with stderr merged; exit status, output malloc'd. */
int us_sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
