/* util_db.h — SQLite helpers for the database tests (test_views.c,
 * test_store.c, test_resume.c, ...): one-value queries that abort the test
 * on an SQL error. */
#ifndef SP_UTIL_DB_H
#define SP_UTIL_DB_H

#include <sqlite3.h>
#include <stdint.h>

/* The first column of the first row as an integer / real (NaN for NULL) /
 * text ("" for NULL, copied into buf); ?1 is bound to param when the query
 * has parameters. */
int64_t ud_int(sqlite3 *db, const char *sql, int64_t param);
double ud_real(sqlite3 *db, const char *sql, int64_t param);
void ud_text(sqlite3 *db, const char *sql, int64_t param, char *buf, size_t len);
/* Run SQL that returns no rows; abort on error. */
void ud_exec(sqlite3 *db, const char *sql);
/* Drop every view (an older schema is made by dropping the columns a
 * newer one added, which SQLite refuses while a view reads them; the
 * store makes the views again when it opens the file). */
void ud_drop_views(sqlite3 *db);
/* |got - want| <= 1e-12 |want| (and both NaN counts as equal). */
void ud_close(double got, double want, const char *what);
/* The integer a query returns from the database file at path (opened and
 * closed around it, waiting up to 5 s for a writer). */
int64_t ud_file_int(const char *path, const char *sql);

#endif
