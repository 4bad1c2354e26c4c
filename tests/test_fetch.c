/* test_fetch.c — the dataset manager end to end (fetch/fetch.c with the
 * real download engine and unpacker) against tests/fetch_server.py serving
 * a mirror built here from tests/data, with fault injection: every bad
 * case of the issue ends in a clear error naming the matrix and the cause,
 * nothing partial in the cache, and the other matrices still fetched. */
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "../fetch/fetch.h"
#include "../fetch/sha256.h"
#include "../kernels/kernel.h"
#include "../runner/exec/datasets.h"
#include "testutil.h"
#include "util_archive.h"
#include "util_server.h"

typedef struct fixture {
    char dir[512];          /* temp root */
    char mirror[700];       /* what the server serves */
    char cache[700];        /* the cache root */
    char db[700];
    char olm[700];          /* olm1000.mtx, inflated: the expected bytes */
    char bcs[700];
    sp_test_server srv;
} fixture;

/* The mirror's index: the two real matrices plus one entry per fault. */
static const char INDEX[] =
    "14\n21-Nov-2026 12:00:00\n"
    "HB,bcsstk06,420,420,4140,1,0,0,1,1,1,structural problem,4140\n"
    "Bai,olm1000,1000,1000,3996,1,0,1,0,0.67,0.33,computational fluid dynamics problem,3996\n"
    "Fault,e404,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,e503,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,flaky,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,cut,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,reset,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,corrupt,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,nomtx,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,dotdot,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,abspath,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,link,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,bomb,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "Fault,stall,1000,1000,3996,1,0,0,0,0,0,x,3996\n"
    "this line is not an index entry\n";

/* One archive of the mirror: MM/<group>/<name>.tar.gz. */
static ua_writer *mirror_archive(fixture *fx, const char *group, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/MM/%s", fx->mirror, group);
    sp_err err;
    cr_assert_eq(sp_mkdir_p(path, &err), 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/MM/%s/%s.tar.gz", fx->mirror, group, name);
    return ua_open(path, UA_TAR_GZ);
}

/* A well-formed archive of name holding olm1000's matrix. */
static void olm_archive(fixture *fx, const char *group, const char *name)
{
    char member[256];
    ua_writer *w = mirror_archive(fx, group, name);
    snprintf(member, sizeof member, "%s/%s.mtx", name, name);
    ua_add_file(w, member, fx->olm);
    ua_close(w);
}

static void build_mirror(fixture *fx)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/files", fx->mirror);
    sp_err err;
    cr_assert_eq(sp_mkdir_p(path, &err), 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/files/ssstats.csv", fx->mirror);
    tu_write_file(path, INDEX);
    snprintf(path, sizeof path, "%s/MM/HB", fx->mirror);
    cr_assert_eq(sp_mkdir_p(path, &err), 0);
    snprintf(path, sizeof path, "%s/MM/HB/bcsstk06.tar.gz", fx->mirror);
    ua_suitesparse(path, "bcsstk06", fx->bcs);
    snprintf(path, sizeof path, "%s/MM/Bai", fx->mirror);
    cr_assert_eq(sp_mkdir_p(path, &err), 0);
    snprintf(path, sizeof path, "%s/MM/Bai/olm1000.tar.gz", fx->mirror);
    ua_suitesparse(path, "olm1000", fx->olm);
    static const char *const plain[] = {"e503", "flaky", "cut", "reset", "stall", NULL};
    for (int i = 0; plain[i]; i++)
        olm_archive(fx, "Fault", plain[i]);
    olm_archive(fx, "Fault", "corrupt");
    snprintf(path, sizeof path, "%s/MM/Fault/corrupt.tar.gz", fx->mirror);
    ua_flip_bytes(path, ua_file_size(path) / 2, 64);
    ua_writer *w = mirror_archive(fx, "Fault", "nomtx");
    ua_add_text(w, "nomtx/README.txt", "no matrix here\n");
    ua_close(w);
    w = mirror_archive(fx, "Fault", "dotdot");
    ua_add_file(w, "dotdot/dotdot.mtx", fx->olm);
    ua_add_text(w, "dotdot/../../evil.txt", "escape\n");
    ua_close(w);
    w = mirror_archive(fx, "Fault", "abspath");
    ua_add_file(w, "abspath/abspath.mtx", fx->olm);
    ua_add_text(w, "/tmp/spsweep-evil.txt", "escape\n");
    ua_close(w);
    w = mirror_archive(fx, "Fault", "link");
    ua_add_file(w, "link/link.mtx", fx->olm);
    ua_add_symlink(w, "link/passwd", "/etc/passwd");
    ua_close(w);
    w = mirror_archive(fx, "Fault", "bomb");
    ua_add_zeros(w, "bomb/bomb.mtx", 64u << 20);
    ua_close(w);
}

/* Faults of the server, by URL path. */
static const char FAULTS[] =
    "{\"/MM/Fault/e503.tar.gz\": [\"status:503\"],"
    " \"/MM/Fault/flaky.tar.gz\": [\"status:503\", \"status:502\", \"ok\"],"
    " \"/MM/Fault/cut.tar.gz\": [\"cut:5000\", \"ok\"],"
    " \"/MM/Fault/reset.tar.gz\": [\"reset\", \"ok\"],"
    " \"/MM/Fault/stall.tar.gz\": [\"stall:30\"]}";

static void setup_with(fixture *fx, const char *faults)
{
    memset(fx, 0, sizeof *fx);
    tu_tempdir(fx->dir, sizeof fx->dir);
    snprintf(fx->mirror, sizeof fx->mirror, "%s/mirror", fx->dir);
    snprintf(fx->cache, sizeof fx->cache, "%s/cache", fx->dir);
    snprintf(fx->db, sizeof fx->db, "%s/results.db", fx->dir);
    snprintf(fx->olm, sizeof fx->olm, "%s/olm1000.mtx", fx->dir);
    snprintf(fx->bcs, sizeof fx->bcs, "%s/bcsstk06.mtx", fx->dir);
    char gz[1024];
    snprintf(gz, sizeof gz, "%s/ss/olm1000.mtx.gz", tu_datadir());
    tu_gunzip(gz, fx->olm);
    snprintf(gz, sizeof gz, "%s/ss/bcsstk06.mtx.gz", tu_datadir());
    tu_gunzip(gz, fx->bcs);
    build_mirror(fx);
    char reason[512];
    if (sp_test_server_start(&fx->srv, fx->mirror, faults, reason, sizeof reason))
        cr_skip_test("fetch tests skipped: %s", reason);
}

static void teardown(fixture *fx) { sp_test_server_stop(&fx->srv); }

/* Options for a quick, quiet fetch from the fixture's server; the lines
 * quiet still prints (every failure's reason) go to /dev/null, as the
 * tests check the items themselves. */
static sp_fetch_opts quick_opts(const fixture *fx)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    sp_fetch_opts o = {.cache_dir = fx->cache, .base_url = fx->srv.base_url,
                       .jobs = 4, .retries = 3, .retry_delay_s = 0.02,
                       .stall_time_s = 1, .connect_timeout_s = 5, .progress = 0, .quiet = 1,
                       .log = devnull};
    return o;
}

/* Resolve names against the mirror's index. */
static void resolve(fixture *fx, const char *const *names, int n, sp_fetch_item **items,
                    int *count)
{
    sp_fetch_opts o = quick_opts(fx);
    sp_ss_index *ix;
    sp_err err;
    FILE *devnull = fopen("/dev/null", "w");
    o.log = devnull;
    cr_assert_eq(sp_fetch_index(&o, &ix, &err), 0, "%s", err.msg);
    fclose(devnull);
    cr_assert_eq(sp_ss_index_size(ix), 14, "the malformed line is skipped");
    cr_assert_eq(sp_fetch_resolve(ix, names, n, NULL, 0, items, count, &err), 0, "%s",
                 err.msg);
    sp_ss_index_free(ix);
}

/* The cached matrix of Group/Name must be byte-identical to expect. */
static void assert_cached_identical(const fixture *fx, const char *gname, const char *expect)
{
    char path[1024], h1[65], h2[65];
    snprintf(path, sizeof path, "%s/suitesparse/%s.mtx", fx->cache, gname);
    sp_err err;
    cr_assert_eq(sp_sha256_file(path, h1, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_sha256_file(expect, h2, NULL, &err), 0, "%s", err.msg);
    cr_assert_str_eq(h1, h2, "%s differs from %s", path, expect);
}

/* No .mtx, no temp file, no archive for Group/Name. */
static void assert_nothing_cached(const fixture *fx, const char *group, const char *name)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "ls -a %s/suitesparse/%s 2>/dev/null | grep -E '^\\.?%s\\.(mtx|csr|manifest)|"
             "^\\.%s\\.mtx\\.|^%s\\.tar\\.gz$' | grep -q .",
             fx->cache, group, name, name, name);
    cr_assert_neq(system(cmd), 0, "%s/%s left files in the cache", group, name);
}

static sp_fetch_item *find_item(sp_fetch_item *items, int n, const char *label)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(items[i].label, label))
            return &items[i];
    cr_assert_fail("no item %s", label);
    return NULL;
}

Test(fetch, fetches_verifies_records_and_reuses)
{
    fixture fx;
    setup_with(&fx, NULL);
    const char *names[] = {"HB/bcsstk06", "olm1000"};
    sp_fetch_item *items;
    int n;
    resolve(&fx, names, 2, &items, &n);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(items[1].label, "Bai/olm1000", "a group-less name resolves");
    sp_fetch_opts o = quick_opts(&fx);
    sp_err err;
    cr_assert_eq(sp_fetch_run(items, n, &o, &err), 0, "%s %s", items[0].error, items[1].error);
    for (int i = 0; i < n; i++)
        cr_assert_eq(items[i].state, SP_FETCH_DONE, "%s", items[i].label);
    /* as the sweep and `spsweep fetch` record them */
    cr_assert_eq(sp_record_datasets(fx.db, items, n, stderr), 0);
    assert_cached_identical(&fx, "HB/bcsstk06", fx.bcs);
    assert_cached_identical(&fx, "Bai/olm1000", fx.olm);
    char csr[1024], archive[1024];
    snprintf(csr, sizeof csr, "%s/suitesparse/Bai/olm1000.csr", fx.cache);
    snprintf(archive, sizeof archive, "%s/suitesparse/Bai/olm1000.tar.gz", fx.cache);
    cr_assert_eq(access(csr, F_OK), 0, "the binary CSR cache is built at fetch time");
    cr_assert_neq(access(archive, F_OK), 0, "the archive is removed after unpacking");
    /* the datasets table holds both, with the hashes of the manifest */
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(fx.db, &db), SQLITE_OK);
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT source, mtx_sha256, archive_bytes FROM datasets "
                                        "ORDER BY source", -1, &s, NULL), SQLITE_OK,
                 "%s", sqlite3_errmsg(db));
    int rows = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *src = (const char *)sqlite3_column_text(s, 0);
        sp_fetch_item *it = find_item(items, n, src + strlen("suitesparse:"));
        cr_assert_str_eq((const char *)sqlite3_column_text(s, 1), it->manifest.mtx_sha256);
        char served[1024], hex[65];
        uint64_t size;
        snprintf(served, sizeof served, "%s/MM/%s.tar.gz", fx.mirror, it->label);
        cr_assert_eq(sp_sha256_file(served, hex, &size, &err), 0, "%s", err.msg);
        cr_assert_str_eq(it->manifest.archive_sha256, hex, "the archive as served");
        cr_assert_eq(sqlite3_column_int64(s, 2), (sqlite3_int64)size);
        rows++;
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    cr_assert_eq(rows, 2);
    /* a second fetch finds both, verifies them, downloads nothing */
    int gets = sp_test_server_count(&fx.srv, "/MM/Bai/olm1000.tar.gz", NULL);
    cr_assert_eq(gets, 1);
    cr_assert_eq(sp_fetch_run(items, n, &o, &err), 0);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(items[i].state, SP_FETCH_CACHED);
        cr_assert_neq(items[i].verified_at[0], 0, "re-hashed on reuse");
    }
    cr_assert_eq(sp_test_server_count(&fx.srv, "/MM/Bai/olm1000.tar.gz", NULL), gets);
    free(items);
    teardown(&fx);
}

Test(fetch, a_damaged_cached_copy_is_fetched_again)
{
    fixture fx;
    setup_with(&fx, NULL);
    const char *names[] = {"Bai/olm1000"};
    sp_fetch_item *items;
    int n;
    resolve(&fx, names, 1, &items, &n);
    sp_fetch_opts o = quick_opts(&fx);
    sp_err err;
    cr_assert_eq(sp_fetch_run(items, n, &o, &err), 0, "%s", items[0].error);
    char mtx[1024];
    snprintf(mtx, sizeof mtx, "%s/suitesparse/Bai/olm1000.mtx", fx.cache);
    ua_flip_bytes(mtx, 200, 1);     /* same size, one byte different */
    cr_assert_eq(sp_fetch_run(items, n, &o, &err), 0, "%s", items[0].error);
    cr_assert_eq(items[0].state, SP_FETCH_DONE, "refetched, not reused");
    assert_cached_identical(&fx, "Bai/olm1000", fx.olm);
    cr_assert_eq(sp_test_server_count(&fx.srv, "/MM/Bai/olm1000.tar.gz", NULL), 2);
    free(items);
    teardown(&fx);
}

Test(fetch, every_fault_fails_alone_with_its_cause, .timeout = 60)
{
    fixture fx;
    setup_with(&fx, FAULTS);
    const char *names[] = {"HB/bcsstk06", "Fault/e404", "Fault/e503",    "Fault/flaky",
                           "Fault/cut",   "Fault/reset", "Fault/corrupt", "Fault/nomtx",
                           "Fault/dotdot", "Fault/abspath", "Fault/link", "Fault/bomb",
                           "Fault/stall", "Bai/olm1000"};
    int count = (int)(sizeof names / sizeof names[0]);
    sp_fetch_item *items;
    int n;
    resolve(&fx, names, count, &items, &n);
    cr_assert_eq(n, count);
    sp_fetch_opts o = quick_opts(&fx);
    o.max_bytes = 1u << 20;
    o.retries = 2;
    sp_err err;
    int failed = sp_fetch_run(items, n, &o, &err);
    static const struct {
        const char *label, *cause;  /* cause NULL: must succeed */
    } expect[] = {
        {"HB/bcsstk06", NULL},   {"Bai/olm1000", NULL},  {"Fault/flaky", NULL},
        {"Fault/cut", NULL},     {"Fault/reset", NULL},
        {"Fault/e404", "not in the collection"},
        {"Fault/e503", "503"},
        {"Fault/corrupt", "corrupt.tar.gz"},
        {"Fault/nomtx", "holds no nomtx/nomtx.mtx"},
        {"Fault/dotdot", ".."},
        {"Fault/abspath", "absolute"},
        {"Fault/link", "link"},
        {"Fault/bomb", "cap"},
        {"Fault/stall", "stall"},
    };
    int want_failed = 0;
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        sp_fetch_item *it = find_item(items, n, expect[i].label);
        const char *slash = strchr(it->label, '/');
        char group[64];
        snprintf(group, sizeof group, "%.*s", (int)(slash - it->label), it->label);
        if (!expect[i].cause) {
            cr_assert_eq(it->state, SP_FETCH_DONE, "%s: %s", it->label, it->error);
            assert_cached_identical(&fx, it->label,
                                    !strcmp(it->label, "HB/bcsstk06") ? fx.bcs : fx.olm);
            continue;
        }
        want_failed++;
        cr_assert_eq(it->state, SP_FETCH_FAILED, "%s should fail", it->label);
        cr_assert(!strncmp(it->error, it->label, strlen(it->label)),
                  "the error names the matrix: %s", it->error);
        cr_assert(strstr(it->error, expect[i].cause), "%s: expected '%s' in: %s", it->label,
                  expect[i].cause, it->error);
        assert_nothing_cached(&fx, group, slash + 1);
    }
    cr_assert_eq(failed, want_failed);
    cr_assert_eq(sp_test_server_count(&fx.srv, "/MM/Fault/e404.tar.gz", NULL), 1,
                 "404 is never retried");
    cr_assert_eq(sp_test_server_count(&fx.srv, "/MM/Fault/e503.tar.gz", NULL), 3,
                 "5xx retried: 1 + 2 retries");
    cr_assert_eq(sp_test_server_count(&fx.srv, "/MM/Fault/cut.tar.gz", "bytes=5000-"), 1,
                 "the cut body is resumed with a range request");
    cr_assert_neq(access("/tmp/spsweep-evil.txt", F_OK), 0);
    free(items);
    teardown(&fx);
}

Test(fetch, a_partial_download_resumes_in_the_next_fetch)
{
    fixture fx;
    setup_with(&fx, "{\"/MM/Bai/olm1000.tar.gz\": [\"cut:3000\", \"ok\"]}");
    const char *names[] = {"Bai/olm1000"};
    sp_fetch_item *items;
    int n;
    resolve(&fx, names, 1, &items, &n);
    sp_fetch_opts o = quick_opts(&fx);
    o.retries = -1;             /* no retries */
    sp_err err;
    cr_assert_eq(sp_fetch_run(items, n, &o, &err), 1);
    cr_assert_eq(items[0].state, SP_FETCH_FAILED);
    char part[1024];
    snprintf(part, sizeof part, "%s/suitesparse/Bai/olm1000.tar.gz.part", fx.cache);
    struct stat st;
    cr_assert_eq(stat(part, &st), 0, "the partial download is kept");
    cr_assert_eq(st.st_size, 3000);
    assert_nothing_cached(&fx, "Bai", "olm1000");
    cr_assert_eq(sp_fetch_run(items, n, &o, &err), 0, "%s", items[0].error);
    cr_assert_eq(sp_test_server_count(&fx.srv, "/MM/Bai/olm1000.tar.gz", "bytes=3000-"), 1);
    assert_cached_identical(&fx, "Bai/olm1000", fx.olm);
    cr_assert_neq(access(part, F_OK), 0);
    free(items);
    teardown(&fx);
}

/* Fetch names in a child process; its exit status is the failure count. */
static pid_t fetch_in_child(fixture *fx, const char *gname, rlim_t fsize)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid)
        return pid;
    if (fsize) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {fsize, fsize};
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    const char *names[] = {gname};
    sp_fetch_item *items;
    int n;
    sp_err err;
    if (sp_fetch_resolve(NULL, names, 1, NULL, 0, &items, &n, &err))
        _exit(100);
    sp_fetch_opts o = quick_opts(fx);
    int failed = sp_fetch_run(items, n, &o, &err);
    if (fsize && failed == 1) {
        /* report the message to the parent through a file */
        char path[1024];
        snprintf(path, sizeof path, "%s/child-error", fx->dir);
        struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
        setrlimit(RLIMIT_FSIZE, &rl);
        FILE *f = fopen(path, "w");
        if (f)
            fputs(items[0].error, f), fclose(f);
    }
    _exit(failed < 0 ? 101 : failed);
}

Test(fetch, two_fetchers_download_once, .timeout = 60)
{
    fixture fx;
    /* slow enough that the second fetcher starts while the first downloads */
    setup_with(&fx, "{\"/MM/Bai/olm1000.tar.gz\": [\"slow:40000\"]}");
    pid_t a = fetch_in_child(&fx, "Bai/olm1000", 0);
    usleep(100 * 1000);
    pid_t b = fetch_in_child(&fx, "Bai/olm1000", 0);
    int sa, sb;
    waitpid(a, &sa, 0);
    waitpid(b, &sb, 0);
    cr_assert(WIFEXITED(sa) && WEXITSTATUS(sa) == 0, "first fetcher: %d", sa);
    cr_assert(WIFEXITED(sb) && WEXITSTATUS(sb) == 0, "second fetcher: %d", sb);
    cr_assert_eq(sp_test_server_count(&fx.srv, "/MM/Bai/olm1000.tar.gz", NULL), 1,
                 "downloaded once, reused by the second");
    assert_cached_identical(&fx, "Bai/olm1000", fx.olm);
    teardown(&fx);
}

Test(fetch, a_full_disk_is_a_clear_error_and_leaves_nothing, .timeout = 60)
{
    fixture fx;
    setup_with(&fx, NULL);
    /* room for the archive (~13 kB) but not for the 100 kB matrix */
    pid_t pid = fetch_in_child(&fx, "Bai/olm1000", 40000);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
    char path[1024], msg[1024] = "";
    snprintf(path, sizeof path, "%s/child-error", fx.dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(msg, sizeof msg, f));
    fclose(f);
    cr_assert(strstr(msg, "Bai/olm1000") && (strstr(msg, "disk full") ||
                                             strstr(msg, "File too large")), "%s", msg);
    assert_nothing_cached(&fx, "Bai", "olm1000");
    teardown(&fx);
}

/* Set the index file's age to days. */
static void age_index(const fixture *fx, int days)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/suitesparse/ssstats.csv", fx->cache);
    struct utimbuf t = {time(NULL) - days * 86400L, time(NULL) - days * 86400L};
    cr_assert_eq(utime(path, &t), 0);
}

Test(fetch, the_index_is_refreshed_after_30_days_and_kept_when_the_refresh_fails)
{
    fixture fx;
    setup_with(&fx, NULL);
    sp_fetch_opts o = quick_opts(&fx);
    FILE *log = tmpfile();
    o.log = log;
    sp_ss_index *ix;
    sp_err err;
    const char *idx = "/files/ssstats.csv";
    cr_assert_eq(sp_fetch_index(&o, &ix, &err), 0, "%s", err.msg);
    sp_ss_index_free(ix);
    cr_assert_eq(sp_test_server_count(&fx.srv, idx, NULL), 1);
    age_index(&fx, 29);
    cr_assert_eq(sp_fetch_index(&o, &ix, &err), 0, "%s", err.msg);
    sp_ss_index_free(ix);
    cr_assert_eq(sp_test_server_count(&fx.srv, idx, NULL), 1, "fresh: not downloaded");
    age_index(&fx, 31);
    cr_assert_eq(sp_fetch_index(&o, &ix, &err), 0, "%s", err.msg);
    sp_ss_index_free(ix);
    cr_assert_eq(sp_test_server_count(&fx.srv, idx, NULL), 2, "stale: downloaded again");
    /* the mirror goes away: the cached index is used, with a warning */
    sp_test_server_stop(&fx.srv);
    o.refresh = 1;
    o.retries = -1;
    cr_assert_eq(sp_fetch_index(&o, &ix, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_ss_index_size(ix), 14);
    sp_ss_index_free(ix);
    rewind(log);
    char text[8192] = "";
    text[fread(text, 1, sizeof text - 1, log)] = 0;
    fclose(log);
    cr_assert(strstr(text, "index not refreshed") && strstr(text, "using the cached"), "%s",
              text);
    cr_assert(strstr(text, "ssstats.csv:17:"), "the malformed line is named: %s", text);
}

/* ---- the command line ----------------------------------------------------- */

/* "spsweep fetch ARGS" against the fixture's mirror and cache. */
static int fetch_cli(const fixture *fx, const char *args, char **out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "fetch --base-url %s --cache-dir %s --db %s --retries 1 "
             "--retry-delay 0.02 --stall-timeout 1 %s", fx->srv.base_url, fx->cache, fx->db,
             args);
    return tu_run_spsweep(cmd, out);
}

Test(fetch_cli, list_select_and_fetch_by_name, .timeout = 60)
{
    fixture fx;
    setup_with(&fx, NULL);
    char *out;
    int rc = fetch_cli(&fx, "--select \"group = 'Fault' and name like 'c%'\" --list", &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "Fault/corrupt") && strstr(out, "Fault/cut"), "%s", out);
    cr_assert(!strstr(out, "Bai/olm1000"), "%s", out);
    cr_assert(strstr(out, "2 matrices: 0 cached, 2 missing (archives 25.2 kB to download)"),
              "archive sizes from HEAD requests: %s", out);
    cr_assert_eq(sp_test_server_count(&fx.srv, "/MM/Fault/cut.tar.gz", NULL), 1, "HEAD only");
    char mtx[1024];
    snprintf(mtx, sizeof mtx, "%s/suitesparse/Fault/cut.mtx", fx.cache);
    cr_assert_neq(access(mtx, F_OK), 0, "--list fetches nothing");
    free(out);
    rc = fetch_cli(&fx, "HB/bcsstk06 olm1000", &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "fetched  HB/bcsstk06") && strstr(out, "fetched  Bai/olm1000"), "%s",
              out);
    free(out);
    assert_cached_identical(&fx, "Bai/olm1000", fx.olm);
    cr_assert_eq(tu_run_spsweep("cache list --cache-dir nonexistent-dir", &out), 0, "%s", out);
    cr_assert(strstr(out, "0 matrices"), "%s", out);
    free(out);
    char args[1024];
    snprintf(args, sizeof args, "cache verify --cache-dir %s", fx.cache);
    cr_assert_eq(tu_run_spsweep(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "2 checked, 0 bad"), "%s", out);
    free(out);
    snprintf(mtx, sizeof mtx, "%s/suitesparse/Bai/olm1000.mtx", fx.cache);
    ua_flip_bytes(mtx, 100, 1);
    cr_assert_eq(tu_run_spsweep(args, &out), 1, "%s", out);
    cr_assert(strstr(out, "BAD      Bai/olm1000") && strstr(out, "differs from the manifest"),
              "%s", out);
    free(out);
    teardown(&fx);
}

Test(fetch_cli, bad_names_and_expressions_exit_nonzero_with_the_cause)
{
    fixture fx;
    setup_with(&fx, NULL);
    char *out;
    cr_assert_eq(fetch_cli(&fx, "--select 'nnz >> 3'", &out), 2, "%s", out);
    cr_assert(strstr(out, "column 6"), "%s", out);
    free(out);
    cr_assert_eq(fetch_cli(&fx, "no_such_matrix", &out), 2, "%s", out);
    cr_assert(strstr(out, "no_such_matrix: not in the SuiteSparse index"), "%s", out);
    free(out);
    cr_assert_eq(fetch_cli(&fx, "HB/bcsstk06 Fault/e404", &out), 1, "%s", out);
    cr_assert(strstr(out, "fetched  HB/bcsstk06"), "the good one still completes: %s", out);
    cr_assert(strstr(out, "Fault/e404") && strstr(out, "not in the collection"), "%s", out);
    free(out);
    cr_assert_eq(fetch_cli(&fx, "--max-size lots HB/bcsstk06", &out), 2, "%s", out);
    cr_assert(strstr(out, "--max-size"), "%s", out);
    free(out);
    teardown(&fx);
}

Test(fetch_cli, a_sweep_fetches_what_it_lacks_and_skips_what_it_cannot_have, .timeout = 120)
{
    fixture fx;
    setup_with(&fx, NULL);
    char cfg[1024], text[2048], args[3000];
    tu_path(cfg, sizeof cfg, fx.dir, "sweep.ini");
    snprintf(text, sizeof text,
             "[sweep]\nrepetitions = 2\nwarmup = 0\n"
             "[fetch]\nbase_url = %s\n"
             "[matrices]\nsource = suitesparse:olm1000\nsource = suitesparse:Fault/e404\n"
             "select = group = 'HB'\n"
             "[kernel spmv_csr_serial]\n", fx.srv.base_url);
    tu_write_file(cfg, text);
    snprintf(args, sizeof args, "sweep %s --db %s --cache-dir %s", cfg, fx.db, fx.cache);
    char *out;
    int rc = tu_run_spsweep(args, &out);
    cr_assert_neq(rc, 0, "a matrix could not be had: %s", out);
    cr_assert(strstr(out, "Fault/e404") && strstr(out, "not in the collection"), "%s", out);
    assert_cached_identical(&fx, "Bai/olm1000", fx.olm);
    assert_cached_identical(&fx, "HB/bcsstk06", fx.bcs);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(fx.db, &db), SQLITE_OK);
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT m.source, count(*) FROM runs r JOIN matrices m "
                                        "ON m.id = r.matrix_id WHERE r.status = 'ok' GROUP BY "
                                        "m.source ORDER BY m.source", -1, &s, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(s, 0), "suitesparse:Bai/olm1000",
                     "stored under its full name");
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(s, 0), "suitesparse:HB/bcsstk06",
                     "added by the config's select");
    cr_assert_eq(sqlite3_step(s), SQLITE_DONE);
    sqlite3_finalize(s);
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT source, status, reason FROM matrix_failures",
                                    -1, &s, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "the unavailable matrix is recorded");
    cr_assert_str_eq((const char *)sqlite3_column_text(s, 0), "suitesparse:Fault/e404");
    cr_assert_str_eq((const char *)sqlite3_column_text(s, 1), "skipped");
    cr_assert(strstr((const char *)sqlite3_column_text(s, 2), "not in the collection"));
    cr_assert_eq(sqlite3_step(s), SQLITE_DONE);
    sqlite3_finalize(s);
    sqlite3_close(db);
    free(out);
    teardown(&fx);
}

Test(fetch, a_file_url_mirror_works_without_a_server)
{
    fixture fx;
    setup_with(&fx, NULL);
    sp_test_server_stop(&fx.srv);           /* no HTTP from here on */
    char base[1024];
    snprintf(base, sizeof base, "file://%s", fx.mirror);
    sp_fetch_opts o = quick_opts(&fx);
    o.base_url = base;
    FILE *devnull = fopen("/dev/null", "w");
    o.log = devnull;
    sp_ss_index *ix;
    sp_err err;
    cr_assert_eq(sp_fetch_index(&o, &ix, &err), 0, "%s", err.msg);
    const char *names[] = {"olm1000", "Fault/e404"};
    sp_fetch_item *items;
    int n;
    cr_assert_eq(sp_fetch_resolve(ix, names, 2, NULL, 0, &items, &n, &err), 0, "%s", err.msg);
    sp_ss_index_free(ix);
    cr_assert_eq(sp_fetch_run(items, n, &o, &err), 1);
    fclose(devnull);
    cr_assert_eq(items[0].state, SP_FETCH_DONE, "%s", items[0].error);
    assert_cached_identical(&fx, "Bai/olm1000", fx.olm);
    cr_assert(items[1].not_found && strstr(items[1].error, "not in the collection"), "%s",
              items[1].error);
    free(items);
}

Test(fetch_cli, cache_clean_removes_leftovers_and_keeps_matrices)
{
    fixture fx;
    setup_with(&fx, NULL);
    char *out;
    cr_assert_eq(fetch_cli(&fx, "Bai/olm1000 --keep-archives", &out), 0, "%s", out);
    free(out);
    char part[1024], tmp[1024], orphan[1024], mtx[1024], args[1024];
    snprintf(part, sizeof part, "%s/suitesparse/HB/x.tar.gz.part", fx.cache);
    snprintf(tmp, sizeof tmp, "%s/suitesparse/Bai/.olm1000.mtx.AbC123", fx.cache);
    snprintf(orphan, sizeof orphan, "%s/suitesparse/Bai/gone.csr", fx.cache);
    snprintf(mtx, sizeof mtx, "%s/suitesparse/Bai/olm1000.mtx", fx.cache);
    snprintf(args, sizeof args, "%s/suitesparse/HB", fx.cache);
    sp_err err;
    cr_assert_eq(sp_mkdir_p(args, &err), 0);
    tu_write_file(part, "partial");
    tu_write_file(tmp, "half an unpack");
    tu_write_file(orphan, "a conversion without its matrix");
    snprintf(args, sizeof args, "cache clean --cache-dir %s", fx.cache);
    cr_assert_eq(tu_run_spsweep(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "4 files removed"), "part, temp, orphan and the kept archive: %s",
              out);
    free(out);
    cr_assert(access(part, F_OK) && access(tmp, F_OK) && access(orphan, F_OK));
    cr_assert_eq(access(mtx, F_OK), 0, "the matrix stays");
    snprintf(args, sizeof args, "%s/suitesparse/Bai/olm1000.csr", fx.cache);
    cr_assert_eq(access(args, F_OK), 0, "its conversion stays");
    snprintf(args, sizeof args, "cache clean --all --cache-dir %s", fx.cache);
    cr_assert_eq(tu_run_spsweep(args, &out), 0, "%s", out);
    free(out);
    cr_assert_neq(access(mtx, F_OK), 0, "--all removes the matrices too");
    teardown(&fx);
}

/* ---- issue 18: unknown names do not stop the rest, --quiet keeps reasons -- */

/* A config naming two matrices of the mirror and two that are not in its
 * index (one group-less, one with a group) between comments that mention
 * them: --list lists the two, reports each unknown name with its config
 * line, and exits 2 (an unresolved name) at the end; a fetch of the same
 * config fetches the two and reports the same. */
Test(fetch_cli, a_config_with_unknown_names_lists_and_fetches_the_rest, .timeout = 60)
{
    fixture fx;
    setup_with(&fx, NULL);
    char cfg[1024], args[1200];
    tu_path(cfg, sizeof cfg, fx.dir, "names.ini");
    tu_write_file(cfg, "[matrices]\n"
                       "; suitesparse:no_such_matrix below is a typo on purpose\n"
                       "source = suitesparse:HB/bcsstk06\n"
                       "source = suitesparse:no_such_matrix\n"
                       "source = suitesparse:olm1000\n"
                       "source = suitesparse:Nope/missing\n"
                       "[kernel spmv_csr_serial]\n");
    char *out;
    snprintf(args, sizeof args, "--config %s --list", cfg);
    int rc = fetch_cli(&fx, args, &out);
    cr_assert_eq(rc, 2, "an unresolved name: %s", out);
    cr_assert(strstr(out, "HB/bcsstk06") && strstr(out, "Bai/olm1000"),
              "the resolvable names are listed: %s", out);
    cr_assert(strstr(out, "\nno_such_matrix ") && strstr(out, "\nNope/missing "),
              "and so are the others, marked: %s", out);
    cr_assert(strstr(out, "2 matrices: 0 cached, 2 missing (archives 39.5 kB to download); "
                          "2 names not resolved"), "%s", out);
    char want[1400];
    snprintf(want, sizeof want, "%s:4: no_such_matrix: not in the SuiteSparse index", cfg);
    cr_assert(strstr(out, want), "expected '%s' in: %s", want, out);
    snprintf(want, sizeof want, "%s:6: Nope/missing: not in the SuiteSparse index", cfg);
    cr_assert(strstr(out, want), "expected '%s' in: %s", want, out);
    cr_assert(strstr(out, "2 names not resolved"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "--config %s --quiet", cfg);
    rc = fetch_cli(&fx, args, &out);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, want), "expected '%s' in: %s", want, out);
    free(out);
    assert_cached_identical(&fx, "HB/bcsstk06", fx.bcs);
    assert_cached_identical(&fx, "Bai/olm1000", fx.olm);
}

/* "spsweep fetch ARGS" as fetch_cli runs it, keeping only its stderr. */
static int fetch_cli_stderr(const fixture *fx, const char *args, char **err)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s fetch --base-url %s --cache-dir %s --db %s --retries 1 "
             "--retry-delay 0.02 --stall-timeout 1 %s 2>&1 >/dev/null", tu_spsweep_bin(),
             fx->srv.base_url, fx->cache, fx->db, args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    *err = calloc(1, 1 << 16);
    cr_assert_not_null(*err);
    (*err)[fread(*err, 1, (1 << 16) - 1, p)] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* --quiet drops the progress lines, not the reasons: the 404 and a matrix
 * that unpacks but does not parse still say why, on stderr. */
Test(fetch_cli, quiet_still_prints_every_failure_reason, .timeout = 60)
{
    fixture fx;
    setup_with(&fx, NULL);
    ua_writer *w = mirror_archive(&fx, "Fault", "badmtx");
    ua_add_text(w, "badmtx/badmtx.mtx",
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n");
    ua_close(w);
    char *out;
    int rc = fetch_cli_stderr(&fx, "--quiet HB/bcsstk06 Fault/e404 Fault/badmtx", &out);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "Fault/e404") && strstr(out, "not in the collection"),
              "the 404's reason on stderr: %s", out);
    cr_assert(strstr(out, "Fault/badmtx") && strstr(out, "badmtx.mtx:3:") &&
                  strstr(out, "not a number"), "the parse error on stderr: %s", out);
    cr_assert(strstr(out, "1 of 3 matrices failed"), "%s", out);
    cr_assert(!strstr(out, "fetched  HB/bcsstk06"), "no progress lines: %s", out);
    free(out);
    assert_cached_identical(&fx, "HB/bcsstk06", fx.bcs);
}

/* ---- an unreachable collection -------------------------------------------- */

/* A loopback port nothing listens on (bound, then closed): a machine
 * without network refuses the same way. */
static int dead_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    cr_assert_geq(s, 0);
    cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    close(s);
    return ntohs(a.sin_port);
}

/* How many lines of text hold needle. */
static int lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The first connection failure stops the whole fetch: no retries (4 by
 * default, a 1 s backoff doubling), the other matrices not tried, and one
 * line that says what to do; under a second where the retries would have
 * taken 15 s. --quiet keeps that line. */
Test(fetch_cli, an_unreachable_collection_stops_at_the_first_failure_with_one_hint,
     .timeout = 60)
{
    char dir[256], args[1400], *out;
    tu_tempdir(dir, sizeof dir);
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    int port = dead_port();
    snprintf(args, sizeof args, "fetch --base-url http://127.0.0.1:%d --cache-dir %s/cache "
             "--db '' --quiet HB/bcsstk06 Bai/olm1000 G/a G/b G/c G/d G/e G/f G/g G/h", port,
             dir);
    double t0 = sp_seconds();
    int rc = tu_run_spsweep(args, &out);
    double took = sp_seconds() - t0;
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_lt(took, 3.0, "no retries: %.1f s\n%s", took, out);
    cr_assert_eq(lines_with(out, "cannot reach the SuiteSparse collection"), 1, "%s", out);
    char want[200];
    snprintf(want, sizeof want, "spsweep: cannot reach the SuiteSparse collection at "
             "http://127.0.0.1:%d (cannot connect (", port);
    const char *hint = strstr(out, want);
    cr_assert_not_null(hint, "%s", out);
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(hint, "\n"), hint);
    const char *parts[] = {"10 matrices not fetched", "--base-url", "SPSWEEP_SUITESPARSE_URL",
                           "file://", "docs/troubleshooting.md"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        cr_assert(strstr(line, parts[i]), "'%s' not in the hint: %s", parts[i], line);
    cr_assert(!strstr(out, "retry"), "nothing retried: %s", out);
    cr_assert(!strstr(out, "FAILED"), "no line per matrix: %s", out);
    cr_assert(strstr(out, "10 of 10 matrices failed"), "%s", out);
    free(out);

    /* the same through the library: every item failed, marked unreachable */
    const char *names[] = {"HB/bcsstk06", "Bai/olm1000", "G/a"};
    sp_fetch_item *items;
    int n;
    sp_err err;
    cr_assert_eq(sp_fetch_resolve(NULL, names, 3, NULL, 0, &items, &n, &err), 0, "%s", err.msg);
    char base[64], cache[300];
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    FILE *log = tmpfile();
    sp_fetch_opts o = {.cache_dir = cache, .base_url = base, .jobs = 1, .retry_delay_s = 5,
                       .quiet = 1, .log = log};
    t0 = sp_seconds();
    cr_assert_eq(sp_fetch_run(items, n, &o, &err), 3);
    cr_assert_lt(sp_seconds() - t0, 2.0);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(items[i].state, SP_FETCH_FAILED);
        cr_assert(items[i].unreachable, "%s", items[i].error);
        cr_assert(strstr(items[i].error, "cannot connect"), "%s", items[i].error);
    }
    cr_assert(strstr(items[1].error, "not tried"), "%s", items[1].error);
    char cause[400];
    cr_assert(sp_fetch_known_unreachable(base, cause, sizeof cause));
    cr_assert(strstr(cause, "cannot connect"), "%s", cause);
    /* a second run in the same process does not try again */
    items[0].state = SP_FETCH_PENDING;
    cr_assert_eq(sp_fetch_run(items, 1, &o, &err), 1);
    cr_assert(strstr(items[0].error, "not tried"), "%s", items[0].error);
    fclose(log);
    free(items);
}

/* `fetch --config C --list` offline: every matrix of the config, the
 * cached ones with their size, the missing ones marked (sizes unknown),
 * a name the cached index does not know marked unresolved; the hint once;
 * no waiting on retries. */
Test(fetch_cli, list_works_offline_and_marks_cached_and_missing, .timeout = 60)
{
    fixture fx;
    setup_with(&fx, NULL);
    char *out, cfg[800], args[2000];
    cr_assert_eq(fetch_cli(&fx, "olm1000", &out), 0, "%s", out);   /* the index, olm1000 */
    free(out);
    teardown(&fx);                                          /* now offline */
    snprintf(cfg, sizeof cfg, "%s/offline.ini", fx.dir);
    tu_write_file(cfg, "[matrices]\nsource = suitesparse:Bai/olm1000\n"
                       "source = suitesparse:HB/bcsstk06\nsource = suitesparse:Nope/missing\n"
                       "[kernel spmv_csr_serial]\n");
    snprintf(args, sizeof args, "fetch --base-url http://127.0.0.1:%d --cache-dir %s "
             "--config %s --list", dead_port(), fx.cache, cfg);
    double t0 = sp_seconds();
    int rc = tu_run_spsweep(args, &out);
    cr_assert_lt(sp_seconds() - t0, 3.0, "%s", out);
    cr_assert_eq(rc, 2, "Nope/missing is not in the index: %s", out);
    cr_assert(strstr(out, "offline.ini:4: Nope/missing: not in the SuiteSparse index"), "%s",
              out);
    const char *rows[] = {"Bai/olm1000                                    1000       1000"
                          "         3996  cached     ",
                          "HB/bcsstk06                                     420        420"
                          "         4140  missing    ?          structural problem",
                          "Nope/missing                                      ?          ?"
                          "            ?  unresolved ?          not in the SuiteSparse index"};
    for (int i = 0; i < 3; i++)
        cr_assert(strstr(out, rows[i]), "expected '%s' in:\n%s", rows[i], out);
    cr_assert(strstr(out, "2 matrices: 1 cached (") &&
                  strstr(out, "1 missing (archive sizes unknown); 1 name not resolved"),
              "%s", out);
    cr_assert_eq(lines_with(out, "cannot reach the SuiteSparse collection"), 1, "%s", out);
    free(out);
}
