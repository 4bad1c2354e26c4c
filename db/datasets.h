/*
 * datasets.h — the `datasets` table of a results database: every matrix a
 * fetch brought in or verified, with its URL, sizes and SHA-256 hashes, so
 * the numbers of a sweep can be traced to the exact bytes they came from.
 * Plain records: the fetch stage (fetch/) knows nothing of the database;
 * the runner hands its fetched items over (runner/exec/datasets.c).
 */
#ifndef SP_DATASETS_H
#define SP_DATASETS_H

#include <stdint.h>

#include "../core/sparse.h"

/* One fetched or verified matrix; NULL or "" leaves a column NULL. */
typedef struct sp_dataset_row {
    const char *source;         /* suitesparse:Group/Name (required) */
    const char *url;
    int64_t archive_bytes;
    const char *archive_sha256;
    const char *mtx_path;
    int64_t mtx_bytes;
    const char *mtx_sha256;     /* 64 hex digits (required) */
    const char *fetched_at;     /* ISO-8601 UTC */
    const char *verified_at;    /* when its bytes were last re-hashed */
} sp_dataset_row;

/* Insert or refresh the rows in db_path's datasets table (created when
 * absent), in one transaction: all or none. */
int sp_store_datasets(const char *db_path, const sp_dataset_row *rows, int n, sp_err *err);

#endif
