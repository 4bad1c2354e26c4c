/*
 * ssindex.c — the SuiteSparse Matrix Collection's index (files/ssstats.csv)
 * in an in-memory SQLite table, and lookups by name.
 *
 * The file: line 1 the number of matrices, line 2 the date of the last
 * revision, then one line per matrix k (line k + 2):
 *   Group,Name,nrows,ncols,nnz,isReal,isBinary,isND,posdef,psym,nsym,kind[,pattern_entries]
 * A line that does not have that shape is skipped with a warning naming it,
 * so one bad line never costs the rest of the index.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fetch.h"

struct sp_ss_index {
    sqlite3 *db;
    int size;
    char date[64];
};

static const char TABLE_SQL[] =
    "CREATE TABLE ssindex ("
    " id INTEGER, grp TEXT, name TEXT, rows INTEGER, cols INTEGER, nnz INTEGER,"
    " real INTEGER, binary INTEGER, nd INTEGER, posdef INTEGER, psym REAL, nsym REAL,"
    " kind TEXT, pattern_entries INTEGER, PRIMARY KEY (grp, name));"
    "CREATE INDEX ssindex_name ON ssindex(name COLLATE NOCASE);";

enum { NFIELDS_MIN = 12, NFIELDS_MAX = 13 };

/* Split line at commas into at most max fields (in place). Returns the
 * count, or max + 1 when there are more. */
static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n == max)
            return max + 1;
        f[n++] = p;
        p = strchr(p, ',');
        if (!p)
            return n;
        *p = '\0';
    }
}

/* Parse an integer field >= lo; -1 when malformed. */
static int parse_i64(const char *s, int64_t lo, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end || errno || x < lo)
        return -1;
    *v = x;
    return 0;
}

/* Parse a real field in [0, 1] (the symmetries); -1 when malformed. */
static int parse_unit(const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (!*s || *end || !(x >= 0 && x <= 1))
        return -1;
    *v = x;
    return 0;
}

/* One data line into e; returns NULL when fine, else what is wrong. */
static const char *parse_entry(char *line, int id, sp_ss_entry *e)
{
    char *f[NFIELDS_MAX + 1] = {0};
    int n = split_csv(line, f, NFIELDS_MAX);
    if (n < NFIELDS_MIN || n > NFIELDS_MAX)
        return "expected 12 or 13 comma-separated fields";
    memset(e, 0, sizeof *e);
    e->id = id;
    if (!sp_ss_name_ok(f[0], strlen(f[0])) || strlen(f[0]) >= sizeof e->group ||
        !sp_ss_name_ok(f[1], strlen(f[1])) || strlen(f[1]) >= sizeof e->name)
        return "group or name is not a SuiteSparse name";
    strcpy(e->group, f[0]);
    strcpy(e->name, f[1]);
    int64_t flag[4];
    if (parse_i64(f[2], 0, &e->rows) || parse_i64(f[3], 0, &e->cols) ||
        parse_i64(f[4], 0, &e->nnz))
        return "rows, cols or nnz is not a non-negative integer";
    for (int i = 0; i < 4; i++)
        if (parse_i64(f[5 + i], -1, &flag[i]) || flag[i] > 1)
            return "isReal, isBinary, isND or posdef is not 0 or 1";
    e->real = (int)flag[0], e->binary = (int)flag[1], e->nd = (int)flag[2];
    e->posdef = (int)flag[3];
    if (parse_unit(f[9], &e->psym) || parse_unit(f[10], &e->nsym))
        return "pattern or numerical symmetry is not a number in [0, 1]";
    snprintf(e->kind, sizeof e->kind, "%s", f[11]);
    e->pattern_entries = -1;
    if (n == 13 && parse_i64(f[12], 0, &e->pattern_entries))
        return "pattern_entries is not a non-negative integer";
    return NULL;
}

/* Insert e with the prepared statement ins. */
static int insert_entry(sqlite3_stmt *ins, const sp_ss_entry *e)
{
    sqlite3_reset(ins);
    sqlite3_bind_int(ins, 1, e->id);
    sqlite3_bind_text(ins, 2, e->group, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 3, e->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(ins, 4, e->rows);
    sqlite3_bind_int64(ins, 5, e->cols);
    sqlite3_bind_int64(ins, 6, e->nnz);
    sqlite3_bind_int(ins, 7, e->real);
    sqlite3_bind_int(ins, 8, e->binary);
    sqlite3_bind_int(ins, 9, e->nd);
    sqlite3_bind_int(ins, 10, e->posdef);
    sqlite3_bind_double(ins, 11, e->psym);
    sqlite3_bind_double(ins, 12, e->nsym);
    sqlite3_bind_text(ins, 13, e->kind, -1, SQLITE_TRANSIENT);
    if (e->pattern_entries >= 0)
        sqlite3_bind_int64(ins, 14, e->pattern_entries);
    else
        sqlite3_bind_null(ins, 14);
    return sqlite3_step(ins);
}

/* Strip a trailing "\n" / "\r\n". */
static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

typedef struct loader {
    const char *path;
    FILE *warn;
    int skipped;
} loader;

/* A skipped line: warn with its place, count it. */
static void skip_line(loader *L, long lineno, const char *why)
{
    L->skipped++;
    if (L->warn)
        fprintf(L->warn, "spsweep: warning: %s:%ld: %s; line skipped\n", L->path, lineno,
                why);
}

/* Read every line of f into ix->db. */
static int load_lines(FILE *f, loader *L, sp_ss_index *ix, sp_err *err)
{
    sqlite3_stmt *ins = NULL;
    if (sqlite3_prepare_v2(ix->db, "INSERT INTO ssindex VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &ins, NULL) != SQLITE_OK)
        return sp_fail(err, "%s: %s", L->path, sqlite3_errmsg(ix->db));
    char line[4096];
    long lineno = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            skip_line(L, lineno, "line too long");
            continue;
        }
        chomp(line);
        if (lineno == 1)
            continue;   /* the count: checked against what was read, below */
        if (lineno == 2) {
            snprintf(ix->date, sizeof ix->date, "%.63s", line);
            continue;
        }
        if (!*line)
            continue;
        sp_ss_entry e;
        const char *why = parse_entry(line, (int)(lineno - 2), &e);
        if (why) {
            skip_line(L, lineno, why);
            continue;
        }
        int s = insert_entry(ins, &e);
        if (s == SQLITE_CONSTRAINT) {
            skip_line(L, lineno, "Group/Name listed twice");
            continue;
        }
        if (s != SQLITE_DONE) {
            rc = sp_fail(err, "%s:%ld: %s", L->path, lineno, sqlite3_errmsg(ix->db));
            break;
        }
        ix->size++;
    }
    if (!rc && ferror(f))
        rc = sp_fail(err, "%s: read error: %s", L->path, strerror(errno));
    sqlite3_finalize(ins);
    return rc;
}

/* The first line must be a matrix count: a file that is not an index at
 * all (an HTML error page, say) fails here rather than as 2000 warnings. */
static int check_header(FILE *f, const char *path, sp_err *err)
{
    char line[256];
    int64_t count;
    if (!fgets(line, sizeof line, f))
        return sp_fail(err, "%s: empty file, not a SuiteSparse index", path);
    chomp(line);
    if (parse_i64(line, 0, &count))
        return sp_fail(err, "%s:1: expected the number of matrices, found '%.40s' (not a "
                       "SuiteSparse ssstats.csv)", path, line);
    rewind(f);
    return 0;
}

int sp_ss_index_load(const char *csv_path, FILE *warn, int *skipped, sp_ss_index **out,
                     sp_err *err)
{
    *out = NULL;
    FILE *f = fopen(csv_path, "r");
    if (!f)
        return sp_fail(err, "%s: %s", csv_path, strerror(errno));
    sp_ss_index *ix = calloc(1, sizeof *ix);
    loader L = {csv_path, skipped ? warn : (warn ? warn : stderr), 0};
    int rc = ix ? check_header(f, csv_path, err) : sp_fail(err, "out of memory");
    if (!rc && (sqlite3_open(":memory:", &ix->db) != SQLITE_OK ||
                sqlite3_exec(ix->db, TABLE_SQL, NULL, NULL, NULL) != SQLITE_OK ||
                sqlite3_exec(ix->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK))
        rc = sp_fail(err, "%s: index table: %s", csv_path, sqlite3_errmsg(ix->db));
    if (!rc)
        rc = load_lines(f, &L, ix, err);
    if (!rc)
        sqlite3_exec(ix->db, "COMMIT", NULL, NULL, NULL);
    fclose(f);
    if (skipped)
        *skipped = L.skipped;
    if (rc) {
        sp_ss_index_free(ix);
        return -1;
    }
    *out = ix;
    return 0;
}

void sp_ss_index_free(sp_ss_index *ix)
{
    if (!ix)
        return;
    sqlite3_close(ix->db);
    free(ix);
}

int sp_ss_index_size(const sp_ss_index *ix) { return ix ? ix->size : 0; }
const char *sp_ss_index_date(const sp_ss_index *ix) { return ix ? ix->date : ""; }

/* Fill e from the current row of a "SELECT id, grp, name, ..." statement. */
static void entry_from_row(sqlite3_stmt *s, sp_ss_entry *e)
{
    memset(e, 0, sizeof *e);
    e->id = sqlite3_column_int(s, 0);
    snprintf(e->group, sizeof e->group, "%s", (const char *)sqlite3_column_text(s, 1));
    snprintf(e->name, sizeof e->name, "%s", (const char *)sqlite3_column_text(s, 2));
    e->rows = sqlite3_column_int64(s, 3);
    e->cols = sqlite3_column_int64(s, 4);
    e->nnz = sqlite3_column_int64(s, 5);
    e->real = sqlite3_column_int(s, 6);
    e->binary = sqlite3_column_int(s, 7);
    e->nd = sqlite3_column_int(s, 8);
    e->posdef = sqlite3_column_int(s, 9);
    e->psym = sqlite3_column_double(s, 10);
    e->nsym = sqlite3_column_double(s, 11);
    snprintf(e->kind, sizeof e->kind, "%s", (const char *)sqlite3_column_text(s, 12));
    e->pattern_entries =
        sqlite3_column_type(s, 13) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 13);
}

#define ENTRY_COLUMNS                                                                  \
    "id, grp, name, rows, cols, nnz, real, binary, nd, posdef, psym, nsym, kind, "    \
    "pattern_entries"

/* Rows of "SELECT ... FROM ssindex WHERE <where>" with text binds. */
static int query_names(sp_ss_index *ix, const char *where, const char *a, const char *b,
                       sp_ss_entry *first, int *count, char *groups, size_t glen)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT " ENTRY_COLUMNS " FROM ssindex WHERE %s ORDER BY grp",
             where);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(ix->db, sql, -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, a, -1, SQLITE_TRANSIENT);
    if (b)
        sqlite3_bind_text(s, 2, b, -1, SQLITE_TRANSIENT);
    *count = 0;
    groups[0] = '\0';
    while (sqlite3_step(s) == SQLITE_ROW) {
        if ((*count)++ == 0)
            entry_from_row(s, first);
        size_t used = strlen(groups);
        snprintf(groups + used, glen - used, "%s%s/%s", used ? ", " : "",
                 (const char *)sqlite3_column_text(s, 1),
                 (const char *)sqlite3_column_text(s, 2));
    }
    sqlite3_finalize(s);
    return 0;
}

int sp_ss_index_lookup(sp_ss_index *ix, const char *gname, sp_ss_entry *e, sp_err *err)
{
    const char *slash = strchr(gname, '/');
    char group[128] = "", groups[1024];
    const char *name = slash ? slash + 1 : gname;
    if (slash)
        snprintf(group, sizeof group, "%.*s", (int)(slash - gname), gname);
    int n = 0;
    static const char *const exact[2] = {"name = ?1", "grp = ?2 AND name = ?1"};
    static const char *const nocase[2] = {"name = ?1 COLLATE NOCASE",
                                          "grp = ?2 COLLATE NOCASE AND name = ?1 COLLATE NOCASE"};
    if (query_names(ix, exact[slash != NULL], name, slash ? group : NULL, e, &n, groups,
                    sizeof groups) ||
        (n == 0 && query_names(ix, nocase[slash != NULL], name, slash ? group : NULL, e, &n,
                               groups, sizeof groups)))
        return sp_fail(err, "%s: index query failed: %s", gname, sqlite3_errmsg(ix->db));
    if (n == 1)
        return 0;
    if (n == 0)
        return sp_fail(err, "%s: not in the SuiteSparse index (%d matrices, %s)", gname,
                       ix->size, ix->date);
    return sp_fail(err, "%s: ambiguous, %d matrices have that name (%s): write "
                   "suitesparse:Group/Name", gname, n, groups);
}

/* Defence in depth for the compiled selection: the statement may read the
 * index table and call LIKE, nothing else. */
static int select_authorizer(void *user, int action, const char *a, const char *b,
                             const char *c, const char *d)
{
    (void)user, (void)c, (void)d;
    switch (action) {
    case SQLITE_SELECT:
        return SQLITE_OK;
    case SQLITE_READ:
        return a && !strcmp(a, "ssindex") ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_FUNCTION:
        return b && !strcasecmp(b, "like") ? SQLITE_OK : SQLITE_DENY;
    default:
        return SQLITE_DENY;
    }
}

int sp_ss_index_select(sp_ss_index *ix, const char *expr, long limit, sp_ss_entry **out,
                       int *n, sp_err *err)
{
    enum { MAXP = 64 };
    sp_sql_param params[MAXP];
    char cond[4096], sql[4400];
    int np = 0;
    *out = NULL;
    *n = 0;
    if (sp_ss_select_compile(expr, cond, sizeof cond, params, MAXP, &np, err))
        return -1;
    snprintf(sql, sizeof sql,
             "SELECT " ENTRY_COLUMNS " FROM ssindex WHERE %s ORDER BY nnz, grp, name LIMIT ?",
             cond);
    sqlite3_stmt *s;
    sqlite3_set_authorizer(ix->db, select_authorizer, NULL);
    int prc = sqlite3_prepare_v2(ix->db, sql, -1, &s, NULL);
    sqlite3_set_authorizer(ix->db, NULL, NULL);
    if (prc != SQLITE_OK)
        return sp_fail(err, "--select '%s': %s", expr, sqlite3_errmsg(ix->db));
    for (int i = 0; i < np; i++) {
        if (params[i].kind == 'n')
            sqlite3_bind_double(s, i + 1, strtod(params[i].text, NULL));
        else
            sqlite3_bind_text(s, i + 1, params[i].text, -1, SQLITE_TRANSIENT);
    }
    sqlite3_bind_int64(s, np + 1, limit > 0 ? limit : -1);
    int cap = 0, rc = 0, step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            sp_ss_entry *grown = realloc(*out, (size_t)cap * sizeof **out);
            if (!grown) {
                rc = sp_fail(err, "out of memory");
                break;
            }
            *out = grown;
        }
        entry_from_row(s, &(*out)[(*n)++]);
    }
    if (!rc && step != SQLITE_DONE)
        rc = sp_fail(err, "--select '%s': %s", expr, sqlite3_errmsg(ix->db));
    sqlite3_finalize(s);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
