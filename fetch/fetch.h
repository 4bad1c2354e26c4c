/*
 * fetch.h — the dataset manager: the SuiteSparse Matrix Collection's index,
 * selection over it, and fetching matrices into a verified local cache.
 *
 *   cache root   --cache-dir, $SPSWEEP_CACHE (or the older $SPSWEEP_CACHE_DIR),
 *                $XDG_CACHE_HOME/spsweep, ~/.cache/spsweep     (cache_root.c)
 *   layout       <root>/suitesparse/ssstats.csv                the index
 *                <root>/suitesparse/<Group>/<Name>.mtx         the matrix
 *                <root>/suitesparse/<Group>/<Name>.csr         binary CSR cache
 *                <root>/suitesparse/<Group>/<Name>.manifest    hashes, URL, dates
 *                <root>/suitesparse/<Group>/<Name>.files/      --all-files members
 *                <root>/suitesparse/<Group>/.<Name>.lock       one fetcher at a time
 *                <root>/suitesparse/<Group>/<Name>.tar.gz.part a download to resume
 *   index        ssstats.csv loaded into an in-memory SQLite table (ssindex.c);
 *                --select expressions checked token by token (ssselect.c)
 *   fetching     libcurl downloads (download.c), libarchive unpacking
 *                (unpack.c), SHA-256 (sha256.c), a lock per matrix (fetch_lock.c),
 *                the manifest (manifest.c), the whole flow (fetch.c), the
 *                `datasets` table of the results database (db/datasets.c, written by
 *                the runner from the items: runner/exec/datasets.c)
 */
#ifndef SP_FETCH_H
#define SP_FETCH_H

#include <stdint.h>
#include <stdio.h>
#include "../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_SS_DEFAULT_URL "https://sparse.tamu.edu"
#define SP_SS_INDEX_MAX_AGE_S (30L * 24 * 3600)   /* refresh the index after 30 days */

/* ---- cache root and paths (cache_root.c) --------------------------------- */
/* The cache root: dir when given, else the environment, else ~/.cache/spsweep. */
int sp_cache_root(const char *dir, char *out, size_t len, sp_err *err);

typedef struct sp_ss_paths {
    char dir[1024];         /* <root>/suitesparse/<Group> */
    char mtx[1100];         /* <dir>/<Name>.mtx */
    char csr[1100];         /* <dir>/<Name>.csr */
    char manifest[1100];    /* <dir>/<Name>.manifest */
    char archive[1100];     /* <dir>/<Name>.tar.gz (its download: archive + ".part") */
    char lock[1100];        /* <dir>/.<Name>.lock */
    char files[1100];       /* <dir>/<Name>.files */
} sp_ss_paths;

int sp_ss_paths_make(const char *root, const char *group, const char *name, sp_ss_paths *p,
                     sp_err *err);
/* True when s is a usable Group or Name: letters, digits, '_', '-', '.',
 * not "." or "..". */
int sp_ss_name_ok(const char *s, size_t len);
/* The base URL: url when given, else $SPSWEEP_SUITESPARSE_URL, else
 * SP_SS_DEFAULT_URL; without a trailing '/'. */
void sp_ss_base_url(const char *url, char *out, size_t len);

/* ---- the collection's index (ssindex.c, ssselect.c) ---------------------- */
typedef struct sp_ss_entry {
    int id;                 /* line k + 2 of ssstats.csv is matrix k */
    char group[64];
    char name[128];
    int64_t rows, cols, nnz;
    int real, binary, nd, posdef;
    double psym, nsym;
    char kind[128];
    int64_t pattern_entries; /* 13th column; -1 when absent */
} sp_ss_entry;

typedef struct sp_ss_index sp_ss_index;

/* Load ssstats.csv into a table. Malformed lines are skipped, each with a
 * warning "PATH:LINE: ..." on warn (NULL: stderr; quiet with a counter in
 * *skipped when not NULL). */
int sp_ss_index_load(const char *csv_path, FILE *warn, int *skipped, sp_ss_index **ix,
                     sp_err *err);
void sp_ss_index_free(sp_ss_index *ix);
int sp_ss_index_size(const sp_ss_index *ix);
const char *sp_ss_index_date(const sp_ss_index *ix);   /* line 2 of the file */
/* Look up "Group/Name" or a "Name" unique in the index (exact, else the
 * only case-insensitive match). Errors say "not in the index" or list the
 * groups of an ambiguous name. */
int sp_ss_index_lookup(sp_ss_index *ix, const char *gname, sp_ss_entry *e, sp_err *err);
/* Matrices for which expr holds, ordered by nnz then group and name, at
 * most limit (limit <= 0: all). *out is malloc'd. Fields: group, name,
 * rows, cols, nnz, real, binary, nd, posdef, psym, nsym, kind, id,
 * pattern_entries. Errors name the column of the expression. */
int sp_ss_index_select(sp_ss_index *ix, const char *expr, long limit, sp_ss_entry **out,
                       int *n, sp_err *err);
/* Translate expr into an SQL condition over the index table; literals go
 * to params (up to maxp) as text with their kind ('n' number, 's' string).
 * Exposed for tests. */
typedef struct sp_sql_param {
    char kind;
    char text[256];
} sp_sql_param;
int sp_ss_select_compile(const char *expr, char *sql, size_t len, sp_sql_param *params,
                         int maxp, int *nparams, sp_err *err);

/* ---- per-matrix lock (fetch_lock.c) -------------------------------------- */
/* Take the lock file at path (created when absent). wait = 0: returns 1
 * at once when another process holds it. Returns 0 when taken, -1 on error.
 * *fd is the lock to release. */
int sp_lock_take(const char *path, int wait, int *fd, sp_err *err);
void sp_lock_release(int fd);

/* ---- manifest: what was fetched, with hashes (manifest.c) ---------------- */
typedef struct sp_manifest {
    char source[300];       /* suitesparse:Group/Name */
    char url[1024];
    int64_t archive_bytes;
    char archive_sha256[65];
    int64_t mtx_bytes;
    char mtx_sha256[65];
    char fetched_at[32];    /* ISO-8601 UTC */
} sp_manifest;

int sp_manifest_write(const char *path, const sp_manifest *m, sp_err *err);
/* 1 when absent, 0 when read, -1 when unreadable or malformed. */
int sp_manifest_read(const char *path, sp_manifest *m, sp_err *err);
/* Check the .mtx at path against m (size, then SHA-256). 0 when it
 * matches, -1 with the difference. */
int sp_manifest_verify(const sp_manifest *m, const char *mtx_path, sp_err *err);
void sp_utc_now(char *buf, size_t len);

/* ---- fetching (fetch.c) ------------------------------------------------- */
typedef struct sp_fetch_opts {
    const char *cache_dir;      /* NULL: sp_cache_root's default */
    const char *base_url;       /* NULL: $SPSWEEP_SUITESPARSE_URL or the collection */
    int jobs;                   /* downloads at once (0: 4) */
    int refresh;                /* download the index even when it is fresh */
    int all_files;              /* keep every member of the archive, not only the .mtx */
    int keep_archives;          /* keep <Name>.tar.gz after unpacking */
    int no_verify;              /* trust cached matrices without re-hashing them */
    int no_convert;             /* do not build the binary CSR cache */
    int read_threads;           /* Matrix Market parse threads of that build (sp_mm_opts) */
    uint64_t max_bytes;         /* cap on one archive's expanded size (0: 64 GiB) */
    int retries;                /* 0: the download default (4); < 0: no retries */
    double retry_delay_s;       /* 0: the download default */
    long stall_time_s;          /* 0: the download default */
    long connect_timeout_s;     /* 0: the download default */
    int progress;               /* -1 auto (terminal), 0 log lines, 1 bar */
    int quiet;
    FILE *log;                  /* NULL: stderr */
} sp_fetch_opts;

typedef enum {
    SP_FETCH_PENDING = 0,
    SP_FETCH_CACHED,            /* already there, verified (or trusted with no_verify) */
    SP_FETCH_DONE,              /* fetched now */
    SP_FETCH_FAILED,
} sp_fetch_state;

typedef struct sp_fetch_item {
    char group[64], name[128];
    char label[200];            /* Group/Name */
    int in_index;
    sp_ss_entry entry;          /* when in_index */
    sp_fetch_state state;
    int not_found;              /* 404: not in the collection */
    int unreachable;            /* the collection could not be reached (offline.c) */
    int unresolved;             /* `fetch --list` only: a name the index does not resolve
                                   (label is the name as given, error says why) */
    char error[1024];           /* when failed: "Group/Name: cause" */
    char warning[512];          /* e.g. fetched but not convertible */
    char mtx_path[1100];
    char verified_at[32];       /* when its bytes were last re-hashed */
    sp_manifest manifest;
    double seconds;
    /* private to fetch.c */
    int lock_fd;
    int deferred;
} sp_fetch_item;

/* The index: <root>/suitesparse/ssstats.csv, downloaded when absent,
 * older than 30 days or refresh is set; an old copy is used (with a
 * warning) when a refresh fails. */
int sp_fetch_index(const sp_fetch_opts *o, sp_ss_index **ix, sp_err *err);
/* Names ("Group/Name", "Name", optionally "suitesparse:"-prefixed) and a
 * selection (may be NULL) into *items, each once, in the order given. ix
 * may be NULL when every name has its group. */
int sp_fetch_resolve(sp_ss_index *ix, const char *const *names, int nnames,
                     const char *select, long limit, sp_fetch_item **items, int *n,
                     sp_err *err);
/* Bring every item into the cache (or find it there, verified). Returns the
 * number that failed (each with its error), -1 when nothing could start. */
int sp_fetch_run(sp_fetch_item *items, int n, const sp_fetch_opts *o, sp_err *err);
/* Print what a fetch would do, one line per item: name, rows, cols and
 * nnz from the index (when it has them), "cached" (with the matrix's size
 * from its manifest) or "missing" (with the archive's size from a HEAD
 * request when with_sizes and the collection answers; "not in collection"
 * on a 404), and the kind; unresolved items as such, with their reason.
 * Then a summary line. Never fails for a missing matrix or an unreachable
 * collection: those are what it marks. */
int sp_fetch_list(sp_fetch_item *items, int n, const sp_fetch_opts *o, int with_sizes,
                  FILE *out, sp_err *err);

/* ---- an unreachable collection (offline.c) -------------------------------- */
/* The first DNS or connection failure to a base URL (before anything of it
 * answered) marks it unreachable for the rest of the process: the index,
 * the HEAD requests and the downloads then fail at once, "not tried",
 * instead of each retrying; the first one to notice prints the one-line
 * hint. */
void sp_fetch_mark_unreachable(const char *base, const char *cause);
/* 1 when base was marked, with the first failure's cause (may be NULL). */
int sp_fetch_known_unreachable(const char *base, char *cause, size_t len);
/* Print the hint for base to log (NULL: stderr), with what (e.g. "24
 * matrices not fetched") after the cause: once per process, and only when
 * base was marked. Returns 1 when it printed. */
int sp_fetch_hint_once(const char *base, const char *what, FILE *log);
/* The hint's text: the URL, the cause, what, and what to do. */
void sp_fetch_offline_hint(const char *base, const char *cause, const char *what, char *buf,
                           size_t len);


#ifdef __cplusplus
}
#endif
#endif
