/*
 * datasets.c — the fetched items of a sweep or of `spsweep fetch` into the
 * results database's datasets table (db/datasets.h): the runner is the one
 * stage that knows both the fetch and the database.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../db/datasets.h"
#include "datasets.h"

int sp_record_datasets(const char *db_path, const sp_fetch_item *items, int n, FILE *log)
{
    if (!db_path || n <= 0)
        return 0;
    sp_dataset_row *rows = calloc((size_t)n, sizeof *rows);
    if (!rows) {
        fprintf(log, "spsweep: warning: datasets not recorded: out of memory\n");
        return -1;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        const sp_fetch_item *it = &items[i];
        if (it->state != SP_FETCH_DONE && it->state != SP_FETCH_CACHED)
            continue;       /* failed or never tried: nothing verified to record */
        const sp_manifest *mf = &it->manifest;
        rows[m++] = (sp_dataset_row){
            .source = mf->source, .url = mf->url, .archive_bytes = mf->archive_bytes,
            .archive_sha256 = mf->archive_sha256, .mtx_path = it->mtx_path,
            .mtx_bytes = mf->mtx_bytes, .mtx_sha256 = mf->mtx_sha256,
            .fetched_at = mf->fetched_at, .verified_at = it->verified_at};
    }
    sp_err err;
    int rc = m ? sp_store_datasets(db_path, rows, m, &err) : 0;
    if (rc)
        fprintf(log, "spsweep: warning: datasets not recorded: %s\n", err.msg);
    free(rows);
    return rc;
}
