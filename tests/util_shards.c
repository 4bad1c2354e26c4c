/* util_shards.c — helpers for the scale-out tests (util_shards.h). */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"
#include "util_shards.h"

void us_small_config(const char *dir, const char *name, char *path, size_t len)
{
    tu_path(path, len, dir, name);
    tu_write_file(path, "[sweep]\nrepetitions = 2\nwarmup = 0\n"
                        "[matrices]\nsource = gen:laplace2d?n=20\n"
                        "source = gen:uniform?rows=300&cols=200&per_row=3&seed=2\n"
                        "source = gen:banded?n=100&bw=2\n"
                        "[kernel spmv_csr_serial]\n[kernel spmv_csr_omp]\nthreads = 1,2\n");
}

char *us_combos(const char *db)
{
    sqlite3 *h;
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK,
                 "cannot open %s", db);
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT m.source || '|' || r.kernel || '|' || r.axes"
                                       " FROM runs r JOIN matrices m ON m.id = r.matrix_id"
                                       " ORDER BY 1", -1, &s, NULL), SQLITE_OK,
                 "%s: %s", db, sqlite3_errmsg(h));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    while (sqlite3_step(s) == SQLITE_ROW)
        fprintf(f, "%s\n", (const char *)sqlite3_column_text(s, 0));
    fclose(f);
    sqlite3_finalize(s);
    sqlite3_close(h);
    return buf;
}

int us_sh(char **out, const char *fmt, ...)
{
    char *cmd = NULL, *full = NULL;
    va_list ap;
    va_start(ap, fmt);
    cr_assert_gt(vasprintf(&cmd, fmt, ap), 0);
    va_end(ap);
    cr_assert_gt(asprintf(&full, "(%s) 2>&1", cmd), 0);
    FILE *p = popen(full, "r");
    cr_assert_not_null(p);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(m);
    int st = pclose(p);
    free(cmd);
    free(full);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}
