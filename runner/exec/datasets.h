/*
 * datasets.h — fetched items into the results database's datasets table
 * (runner/exec/datasets.c, db/datasets.h).
 */
#ifndef SP_RUNNER_DATASETS_H
#define SP_RUNNER_DATASETS_H

#include <stdio.h>

#include "../../fetch/fetch.h"

/* Record every item fetched or found verified in db_path (NULL: nothing
 * to do); a failure is a warning on log (the matrices are in the cache
 * either way) and -1. */
int sp_record_datasets(const char *db_path, const sp_fetch_item *items, int n, FILE *log);

#endif
