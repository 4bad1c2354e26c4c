/* test_download.c — the download engine (fetch/download.c) against
 * tests/fetch_server.py with injected faults: every case is checked by its
 * outcome — the downloaded bytes, what is left of the .part, and the
 * requests the server saw. */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../fetch/download.h"
#include "../kernels/kernel.h"
#include "testutil.h"
#include "util_server.h"

enum { BIG = 300000 }; /* large enough that cuts and ranges fall mid-body */

/* A served root, an output dir, and the server. */
typedef struct env {
    char root[512], out[512];
    char url[1024], dest[1100], part[1200];
    sp_test_server srv;
} env;

/* size pseudo-random bytes (seeded by name) into root/name. */
static void make_file(const char *root, const char *name, size_t size)
{
    char path[1024];
    unsigned seed = (unsigned)strlen(name) * 7919u + (unsigned)size;
    for (const char *c = name; *c; c++)
        seed = seed * 31u + (unsigned char)*c;
    tu_path(path, sizeof path, root, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    for (size_t i = 0; i < size; i++)
        fputc(rand_r(&seed) & 0xff, f);
    cr_assert_eq(fclose(f), 0);
}

/* Read a whole file; *len gets its size. NULL if it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* dest holds exactly the bytes of root/name. */
static void assert_same(const env *e, const char *name, const char *dest)
{
    char src[1024];
    size_t na, nb;
    tu_path(src, sizeof src, e->root, name);
    char *a = slurp(src, &na), *b = slurp(dest, &nb);
    cr_assert_not_null(b, "%s missing", dest);
    cr_assert_eq(na, nb, "%s: %zu bytes, want %zu", dest, nb, na);
    cr_assert(memcmp(a, b, na) == 0, "%s differs from %s", dest, src);
    free(a);
    free(b);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Stop the server and remove the test's directories. */
static void finish(env *e)
{
    sp_test_server_stop(&e->srv);
    nftw(e->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    nftw(e->out, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static long size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Keep a proxy from the environment out of the way of the local server
 * (libcurl honours http_proxy; each test runs in its own process). */
static void no_proxy_for_localhost(void)
{
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
}

/* Temp dirs, one served file "/d/NAME" of size bytes, and the server with
 * faults (JSON, may be NULL). Skips the test when the server cannot run. */
static void setup(env *e, const char *name, size_t size, const char *faults)
{
    char dir[512], reason[1024];
    no_proxy_for_localhost();
    memset(e, 0, sizeof *e);
    tu_tempdir(e->root, sizeof e->root);
    tu_tempdir(e->out, sizeof e->out);
    tu_path(dir, sizeof dir, e->root, "d");
    cr_assert_eq(mkdir(dir, 0755), 0);
    if (name) {
        char rel[600];
        snprintf(rel, sizeof rel, "d/%s", name);
        make_file(e->root, rel, size);
    }
    if (sp_test_server_start(&e->srv, e->root, faults, reason, sizeof reason) < 0)
        cr_skip_test("download tests need the local server: %s", reason);
    if (name) {
        snprintf(e->url, sizeof e->url, "%s/d/%s", e->srv.base_url, name);
        snprintf(e->dest, sizeof e->dest, "%s/%s", e->out, name);
        snprintf(e->part, sizeof e->part, "%s.part", e->dest);
    }
}

/* Options for tests: tiny delays and a one-second stall window, silent. */
static sp_dl_opts quick_opts(void)
{
    return (sp_dl_opts){.jobs = 4, .retries = 4, .retry_delay_s = 0.01,
                        .retry_delay_max_s = 0.05, .connect_timeout_s = 5,
                        .stall_bytes = 50000, .stall_time_s = 1, .progress = 0, .quiet = 1};
}

/* Run one item for e's file; returns sp_download_all's result. */
static int fetch_one(env *e, sp_dl_item *it, const sp_dl_opts *o)
{
    sp_err err = {{0}};
    it->url = e->url;
    it->dest = e->dest;
    it->label = "HB/test";
    int rc = sp_download_all(it, 1, o, &err);
    cr_assert_neq(rc, -1, "%s", err.msg);
    return rc;
}

/* Write the first n bytes of root/d/name (or n copies of junk) to e->part,
 * as an earlier run would have left it. */
static void leave_part(env *e, const char *name, size_t n, int junk)
{
    char src[1024];
    size_t len;
    snprintf(src, sizeof src, "%s/d/%s", e->root, name);
    char *data = slurp(src, &len);
    cr_assert_not_null(data);
    if (junk)
        memset(data, 'J', len);
    FILE *f = fopen(e->part, "wb");
    cr_assert_not_null(f);
    for (size_t i = 0; i < n; i++) /* n may exceed len: pad with junk */
        fputc(i < len ? data[i] : 'J', f);
    cr_assert_eq(fclose(f), 0);
    free(data);
}

Test(download, plain_get)
{
    env e;
    setup(&e, "a.bin", BIG, NULL);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert(it.ok);
    cr_assert_eq(it.size, BIG);
    cr_assert_eq(it.http_code, 200);
    cr_assert_eq(it.attempts, 1);
    cr_assert_eq(it.resumed, 0);
    assert_same(&e, "d/a.bin", e.dest);
    cr_assert(!exists(e.part), ".part left behind");
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 1);
    finish(&e);
}

/* Eight files of assorted sizes (one empty) through `jobs` transfers. */
static int done_calls;
static void count_done(sp_dl_item *it, void *ctx)
{
    cr_assert_eq(ctx, &done_calls);
    cr_assert(it->ok, "%s", it->error);
    done_calls++;
}

static void many_files(int jobs)
{
    enum { N = 8 };
    static const size_t sizes[N] = {0, 1, 1000, 65536, 65537, BIG, 123457, 4096};
    env e;
    setup(&e, NULL, 0, NULL);
    char names[N][32], urls[N][256], dests[N][1100];
    sp_dl_item items[N];
    memset(items, 0, sizeof items);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "d/f%d.bin", i);
        make_file(e.root, names[i], sizes[i]);
        snprintf(urls[i], sizeof urls[i], "%s/%s", e.srv.base_url, names[i]);
        snprintf(dests[i], sizeof dests[i], "%s/f%d.bin", e.out, i);
        items[i] = (sp_dl_item){.url = urls[i], .dest = dests[i], .label = names[i]};
    }
    sp_dl_opts o = quick_opts();
    o.jobs = jobs;
    o.on_done = count_done;
    o.ctx = &done_calls;
    done_calls = 0;
    sp_err err = {{0}};
    cr_assert_eq(sp_download_all(items, N, &o, &err), 0, "%s", err.msg);
    cr_assert_eq(done_calls, N);
    for (int i = 0; i < N; i++) {
        cr_assert(items[i].ok, "%s", items[i].error);
        cr_assert_eq(items[i].size, (int64_t)sizes[i]);
        assert_same(&e, names[i], dests[i]);
    }
    finish(&e);
}

Test(download, many_files_one_job) { many_files(1); }
Test(download, many_files_four_jobs) { many_files(4); }

Test(download, head_fills_size_writes_nothing)
{
    env e;
    setup(&e, "a.bin", BIG, NULL);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {.head_only = 1};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert(it.ok);
    cr_assert_eq(it.size, BIG);
    cr_assert(!exists(e.dest) && !exists(e.part));
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 1);
    finish(&e);
}

Test(download, not_found_is_not_retried)
{
    env e;
    setup(&e, "a.bin", 10, NULL);
    snprintf(e.url, sizeof e.url, "%s/d/missing.bin", e.srv.base_url);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    cr_assert(!it.ok);
    cr_assert(it.not_found);
    cr_assert_eq(it.http_code, 404);
    cr_assert_eq(it.attempts, 1);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/missing.bin", NULL), 1);
    cr_assert(strstr(it.error, "HB/test: not in the collection (HTTP 404"), "%s", it.error);
    cr_assert(!exists(e.dest) && !exists(e.part));
    finish(&e);
}

Test(download, retries_503_then_succeeds)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"status:503\", \"status:503\", \"ok\"]}");
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.attempts, 3);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 3);
    assert_same(&e, "d/a.bin", e.dest); /* the 503 bodies never reached the file */
    finish(&e);
}

Test(download, persistent_503_fails_after_retries)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"status:503\"]}");
    sp_dl_opts o = quick_opts();
    o.retries = 2;
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    cr_assert_eq(it.attempts, 3);
    cr_assert_eq(it.not_found, 0);
    cr_assert_eq(it.http_code, 503);
    cr_assert_str_eq(it.error, "HB/test: HTTP 503 after 3 attempts");
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 3);
    cr_assert(!exists(e.dest) && !exists(e.part));
    finish(&e);
}

/* Read back a tmpfile log. */
static void read_log(FILE *log, char *text, size_t len)
{
    rewind(log);
    size_t n = fread(text, 1, len - 1, log);
    text[n] = '\0';
    fclose(log);
}

Test(download, backoff_doubles_up_to_the_cap)
{
    env e;
    setup(&e, "a.bin", 100, "{\"/d/a.bin\": [\"status:500\"]}");
    sp_dl_opts o = quick_opts();
    o.retries = 3;
    o.retry_delay_s = 0.1;
    o.retry_delay_max_s = 0.3;
    o.quiet = 0;
    o.log = tmpfile();
    cr_assert_not_null(o.log);
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    char text[4096];
    read_log(o.log, text, sizeof text);
    /* jitter is within 10%, so the one-decimal delays are exact */
    cr_assert(strstr(text, "HB/test: HTTP 500; retry 1/3 in 0.1 s\n"), "%s", text);
    cr_assert(strstr(text, "HB/test: HTTP 500; retry 2/3 in 0.2 s\n"), "%s", text);
    cr_assert(strstr(text, "HB/test: HTTP 500; retry 3/3 in 0.3 s\n"), "%s", text);
    cr_assert(strstr(text, "HB/test: HTTP 500 after 4 attempts\n"), "%s", text);
    finish(&e);
}

Test(download, negative_retries_means_one_attempt)
{
    env e;
    setup(&e, "a.bin", 100, "{\"/d/a.bin\": [\"status:503\", \"ok\"]}");
    sp_dl_opts o = quick_opts();
    o.retries = -1;
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    cr_assert_eq(it.attempts, 1);
    cr_assert_str_eq(it.error, "HB/test: HTTP 503");
    finish(&e);
}

Test(download, unwritable_dest_fails_before_any_request)
{
    env e;
    setup(&e, "a.bin", 100, NULL);
    snprintf(e.dest, sizeof e.dest, "%s/no/such/dir/a.bin", e.out);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    cr_assert_eq(it.attempts, 1);
    cr_assert(strstr(it.error, "HB/test: cannot open "), "%s", it.error);
    cr_assert(strstr(it.error, "a.bin.part: No such file or directory"), "%s", it.error);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 0);
    finish(&e);
}

Test(download, status_429_is_retried)
{
    env e;
    setup(&e, "a.bin", 5000, "{\"/d/a.bin\": [\"status:429\", \"ok\"]}");
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.attempts, 2);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

Test(download, other_4xx_is_not_retried)
{
    env e;
    setup(&e, "a.bin", 5000, "{\"/d/a.bin\": [\"status:403\"]}");
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    cr_assert_eq(it.attempts, 1);
    cr_assert_eq(it.not_found, 0);
    cr_assert(strstr(it.error, "HB/test: HTTP 403 for http://"), "%s", it.error);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 1);
    finish(&e);
}

Test(download, cut_body_resumes_with_range)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"cut:100000\", \"ok\"]}");
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.attempts, 2);
    cr_assert_eq(it.resumed, 1);
    cr_assert_eq(it.http_code, 206);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", "bytes=100000-"), 1);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

Test(download, two_cuts_resume_twice)
{
    env e;
    /* the second cut counts from the start of the 206 body */
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"cut:1000\", \"cut:50000\", \"ok\"]}");
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.attempts, 3);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", "bytes=1000-"), 1);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", "bytes=51000-"), 1);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

Test(download, part_from_previous_run_resumes)
{
    env e;
    setup(&e, "a.bin", BIG, NULL);
    leave_part(&e, "a.bin", 123456, 0);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.attempts, 1);
    cr_assert_eq(it.resumed, 1);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 1);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", "bytes=123456-"), 1);
    assert_same(&e, "d/a.bin", e.dest);
    cr_assert(!exists(e.part));
    finish(&e);
}

Test(download, server_ignoring_range_restarts_from_zero)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"ignore-range\"]}");
    leave_part(&e, "a.bin", 77777, 1); /* junk: must not survive */
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.attempts, 1);
    cr_assert_eq(it.resumed, 0);
    cr_assert_eq(it.http_code, 200);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", "bytes=77777-"), 1);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

/* A .part as long as the file but holding other bytes, and a server that
 * ignores ranges: libcurl's own resume would call this "already
 * downloaded" and keep the junk; the engine must replace it. */
Test(download, full_length_junk_part_is_replaced)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"ignore-range\"]}");
    leave_part(&e, "a.bin", BIG, 1);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", "bytes=300000-"), 1);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

Test(download, range_416_discards_part_and_restarts)
{
    env e;
    setup(&e, "a.bin", BIG, NULL);
    leave_part(&e, "a.bin", BIG + 10, 0); /* longer than the file: 416 */
    sp_dl_opts o = quick_opts();
    o.retries = -1; /* the restart is not a retry */
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.attempts, 2);
    cr_assert_eq(it.resumed, 0);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 2);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", "bytes=300010-"), 1);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

Test(download, repeated_416_fails_once_restarted)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"cut:1000\", \"status:416\"]}");
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    /* cut -> resume gets 416 -> restart from zero (cut? no: 416 again) */
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    cr_assert(strstr(it.error, "HB/test: HTTP 416"), "%s", it.error);
    cr_assert(!exists(e.dest));
    finish(&e);
}

Test(download, reset_is_retried)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"reset\", \"reset\", \"ok\"]}");
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.attempts, 3);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

Test(download, persistent_reset_fails_clearly)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"reset\"]}");
    sp_dl_opts o = quick_opts();
    o.retries = 1;
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    cr_assert_eq(it.attempts, 2);
    cr_assert(strncmp(it.error, "HB/test: connection", 19) == 0, "%s", it.error);
    cr_assert(strstr(it.error, "after 2 attempts"), "%s", it.error);
    cr_assert(!exists(e.dest) && !exists(e.part));
    finish(&e);
}

Test(download, stall_is_detected_and_resumed)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"stall:10\", \"ok\"]}");
    sp_dl_opts o = quick_opts();
    o.quiet = 0;
    o.log = tmpfile();
    cr_assert_not_null(o.log);
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.attempts, 2);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", "bytes=4096-"), 1);
    assert_same(&e, "d/a.bin", e.dest);
    char text[4096];
    read_log(o.log, text, sizeof text);
    cr_assert(strstr(text, "HB/test: transfer stalled: less than 50000 bytes/s for 1 s; retry 1/4"),
              "%s", text);
    finish(&e);
}

Test(download, redirect_is_followed)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/alias.bin\": [\"redirect:/d/a.bin\"]}");
    snprintf(e.url, sizeof e.url, "%s/d/alias.bin", e.srv.base_url);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.http_code, 200);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/alias.bin", NULL), 1);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 1);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

/* http_proxy is honoured: the request for an unresolvable host goes to
 * the local server as a proxy (which serves the URL's path). */
Test(download, proxy_environment_is_honoured)
{
    env e;
    setup(&e, "a.bin", 5000, NULL);
    unsetenv("no_proxy");
    unsetenv("NO_PROXY");
    setenv("http_proxy", e.srv.base_url, 1);
    snprintf(e.url, sizeof e.url, "http://spsweep-proxy-test.invalid/d/a.bin");
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 1);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

/* file:// needs no server: e's root and output dirs only. */
static void file_env(env *e)
{
    char dir[600];
    no_proxy_for_localhost();
    memset(e, 0, sizeof *e);
    tu_tempdir(e->root, sizeof e->root);
    tu_tempdir(e->out, sizeof e->out);
    tu_path(dir, sizeof dir, e->root, "d");
    cr_assert_eq(mkdir(dir, 0755), 0);
    make_file(e->root, "d/a.bin", BIG);
    snprintf(e->url, sizeof e->url, "file://%s/d/a.bin", e->root);
    snprintf(e->dest, sizeof e->dest, "%s/a.bin", e->out);
    snprintf(e->part, sizeof e->part, "%s.part", e->dest);
}

Test(download, file_url)
{
    env e;
    file_env(&e);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.size, BIG);
    cr_assert_eq(it.http_code, 0);
    assert_same(&e, "d/a.bin", e.dest);
    cr_assert(!exists(e.part));
    finish(&e);
}

Test(download, file_url_resumes_part)
{
    env e;
    file_env(&e);
    leave_part(&e, "a.bin", 100001, 0);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.resumed, 1);
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

Test(download, file_url_head)
{
    env e;
    file_env(&e);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {.head_only = 1};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    cr_assert_eq(it.size, BIG);
    cr_assert(!exists(e.dest) && !exists(e.part));
    finish(&e);
}

Test(download, file_url_missing_is_not_found)
{
    env e;
    file_env(&e);
    snprintf(e.url, sizeof e.url, "file://%s/d/nothere.bin", e.root);
    sp_dl_opts o = quick_opts();
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    cr_assert(it.not_found);
    cr_assert_eq(it.attempts, 1);
    cr_assert(strstr(it.error, "HB/test: not in the collection"), "%s", it.error);
    cr_assert(!exists(e.dest) && !exists(e.part));
    finish(&e);
}

/* Disk full: a child with a 64 KiB file size limit (and SIGXFSZ ignored,
 * so the write fails with EFBIG instead of killing it) reports the item's
 * result through a pipe. */
Test(download, disk_full_fails_cleanly_and_keeps_part)
{
    env e;
    setup(&e, "a.bin", BIG, NULL);
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct rlimit rl = {65536, 65536};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(2);
        sp_dl_opts o = quick_opts();
        sp_dl_item it = {.url = e.url, .dest = e.dest, .label = "HB/full"};
        sp_err err = {{0}};
        int rc = sp_download_all(&it, 1, &o, &err);
        ssize_t w = write(fd[1], it.error, sizeof it.error);
        _exit(rc == 1 && !it.ok && w == (ssize_t)sizeof it.error ? 0 : 3);
    }
    close(fd[1]);
    char msg[512] = {0};
    ssize_t got = read(fd[0], msg, sizeof msg);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status), "child died by signal %d", WTERMSIG(status));
    cr_assert_eq(WEXITSTATUS(status), 0, "child status %d: %s", WEXITSTATUS(status), msg);
    cr_assert_eq(got, (ssize_t)sizeof msg);
    cr_assert(strncmp(msg, "HB/full: cannot write ", 22) == 0, "%s", msg);
    cr_assert(strstr(msg, e.part) && strstr(msg, strerror(EFBIG)), "%s", msg);
    cr_assert(!exists(e.dest));
    long kept = size_of(e.part);
    cr_assert(kept > 0 && kept <= 65536, ".part holds %ld bytes", kept);
    cr_assert_eq(sp_test_server_count(&e.srv, "/d/a.bin", NULL), 1, "write errors are final");
    finish(&e);
}

/* A port nobody listens on: bind an ephemeral one, then close it. */
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

Test(download, unreachable_port_fails_after_retries)
{
    env e;
    file_env(&e);
    snprintf(e.url, sizeof e.url, "http://127.0.0.1:%d/d/a.bin", dead_port());
    sp_dl_opts o = quick_opts();
    o.retries = 2;
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 1);
    cr_assert_eq(it.attempts, 3);
    cr_assert_eq(it.http_code, 0);
    cr_assert(strncmp(it.error, "HB/test: cannot connect (", 25) == 0, "%s", it.error);
    cr_assert(strstr(it.error, "after 3 attempts"), "%s", it.error);
    cr_assert(!exists(e.dest) && !exists(e.part));
    finish(&e);
}

/* stop_unreachable (the fetcher's setting): the first failure to connect,
 * before anything of the run reached a server, is not retried, and every
 * other item fails at once as not tried, however many retries and however
 * long a backoff the options allow. */
Test(download, stop_unreachable_fails_the_rest_untried)
{
    env e;
    file_env(&e);
    int port = dead_port();
    enum { N = 6 };
    char urls[N][128], dests[N][700], labels[N][32];
    sp_dl_item items[N];
    for (int i = 0; i < N; i++) {
        snprintf(urls[i], sizeof urls[i], "http://127.0.0.1:%d/d/%d.bin", port, i);
        snprintf(dests[i], sizeof dests[i], "%s/%d.bin", e.out, i);
        snprintf(labels[i], sizeof labels[i], "G/m%d", i);
        items[i] = (sp_dl_item){.url = urls[i], .dest = dests[i], .label = labels[i]};
    }
    sp_dl_opts o = quick_opts();
    o.jobs = 1;
    o.retries = 4;
    o.retry_delay_s = o.retry_delay_max_s = 5;     /* a retry would show in the time */
    o.stop_unreachable = 1;
    sp_err err;
    double t0 = sp_seconds();
    cr_assert_eq(sp_download_all(items, N, &o, &err), N);
    cr_assert_lt(sp_seconds() - t0, 2.0, "no retry, no backoff");
    cr_assert_eq(items[0].attempts, 1);
    cr_assert(items[0].unreachable);
    cr_assert(strncmp(items[0].error, "G/m0: cannot connect (", 22) == 0, "%s", items[0].error);
    char want[128];
    for (int i = 1; i < N; i++) {
        cr_assert_eq(items[i].attempts, 0, "%s was tried", labels[i]);
        cr_assert(items[i].unreachable);
        snprintf(want, sizeof want, "G/m%d: not tried: cannot connect to 127.0.0.1:%d", i, port);
        cr_assert_str_eq(items[i].error, want);
    }
    char host[64];
    sp_dl_url_host("https://user@sparse.tamu.edu/MM/x.tar.gz", host, sizeof host);
    cr_assert_str_eq(host, "sparse.tamu.edu");
    sp_dl_url_host("file:///srv/mirror", host, sizeof host);
    cr_assert_str_eq(host, "");
    finish(&e);
}

/* Once an attempt of the run reached a server, a connection failure is a
 * blip: retried as usual; only when its retries run out does it stop the
 * rest. */
Test(download, stop_unreachable_retries_once_a_server_answered)
{
    env e;
    file_env(&e);
    int port = dead_port();
    char dead1[128], dead2[128], d0[700], d1[700], d2[700];
    snprintf(dead1, sizeof dead1, "http://127.0.0.1:%d/d/b.bin", port);
    snprintf(dead2, sizeof dead2, "http://127.0.0.1:%d/d/c.bin", port);
    snprintf(d0, sizeof d0, "%s/a.bin", e.out);
    snprintf(d1, sizeof d1, "%s/b.bin", e.out);
    snprintf(d2, sizeof d2, "%s/c.bin", e.out);
    sp_dl_item items[3] = {{.url = e.url, .dest = d0, .label = "ok"},
                           {.url = dead1, .dest = d1, .label = "blip"},
                           {.url = dead2, .dest = d2, .label = "after"}};
    sp_dl_opts o = quick_opts();
    o.jobs = 1;                 /* in order: the file:// item answers first */
    o.retries = 2;
    o.stop_unreachable = 1;
    sp_err err;
    cr_assert_eq(sp_download_all(items, 3, &o, &err), 2);
    cr_assert(items[0].ok, "%s", items[0].error);
    /* the third started while the blip waited out its backoff (a waiting
     * retry holds up no one), so both were tried and retried: whichever ran
     * out of retries first stopped the run, and the other then ended with
     * its own retries spent or not retried */
    int spent = 0;
    for (int i = 1; i < 3; i++) {
        cr_assert(items[i].unreachable, "%s", items[i].error);
        cr_assert(items[i].attempts == 3 ||
                      strstr(items[i].error, "not retried: cannot connect to 127.0.0.1:"),
                  "%s: %d attempts: %s", items[i].label, items[i].attempts, items[i].error);
        spent += items[i].attempts == 3;
    }
    cr_assert_geq(spent, 1, "retried: the run had reached a server");
    finish(&e);
}

/* A waiting retry must not hold up the other transfers: with one job, the
 * second file finishes while the first waits out its backoff. */
static const char *done_order[2];
static int done_n;
static void record_done(sp_dl_item *it, void *ctx)
{
    (void)ctx;
    done_order[done_n++] = it->label;
}

Test(download, waiting_retry_does_not_block_others)
{
    env e;
    setup(&e, "a.bin", 5000, "{\"/d/a.bin\": [\"status:503\", \"ok\"]}");
    make_file(e.root, "d/b.bin", 5000);
    char url_b[1024], dest_b[1100];
    snprintf(url_b, sizeof url_b, "%s/d/b.bin", e.srv.base_url);
    snprintf(dest_b, sizeof dest_b, "%s/b.bin", e.out);
    sp_dl_item items[2] = {{.url = e.url, .dest = e.dest, .label = "A"},
                           {.url = url_b, .dest = dest_b, .label = "B"}};
    sp_dl_opts o = quick_opts();
    o.jobs = 1;
    o.retry_delay_s = o.retry_delay_max_s = 0.5;
    o.on_done = record_done;
    sp_err err = {{0}};
    cr_assert_eq(sp_download_all(items, 2, &o, &err), 0, "%s", err.msg);
    cr_assert_eq(done_n, 2);
    cr_assert_str_eq(done_order[0], "B");
    cr_assert_str_eq(done_order[1], "A");
    assert_same(&e, "d/a.bin", e.dest);
    assert_same(&e, "d/b.bin", dest_b);
    finish(&e);
}

Test(download, failures_are_counted_per_item)
{
    env e;
    setup(&e, "a.bin", 5000, "{\"/d/bad.bin\": [\"status:403\"]}");
    char u2[1024], u3[1024], d2[1100], d3[1100];
    snprintf(u2, sizeof u2, "%s/d/none.bin", e.srv.base_url);
    snprintf(u3, sizeof u3, "%s/d/bad.bin", e.srv.base_url);
    snprintf(d2, sizeof d2, "%s/none.bin", e.out);
    snprintf(d3, sizeof d3, "%s/bad.bin", e.out);
    sp_dl_item items[3] = {{.url = e.url, .dest = e.dest, .label = "ok"},
                           {.url = u2, .dest = d2, .label = "none"},
                           {.url = u3, .dest = d3, .label = "bad"}};
    sp_dl_opts o = quick_opts();
    sp_err err = {{0}};
    cr_assert_eq(sp_download_all(items, 3, &o, &err), 2);
    cr_assert(items[0].ok && !items[1].ok && !items[2].ok);
    cr_assert(items[1].not_found && !items[2].not_found);
    finish(&e);
}

Test(download, plain_log_lines)
{
    env e;
    setup(&e, "a.bin", BIG, "{\"/d/a.bin\": [\"cut:1000\", \"ok\"]}");
    sp_dl_opts o = quick_opts();
    o.quiet = 0;
    o.log = tmpfile();
    cr_assert_not_null(o.log);
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    char text[4096], want[1200];
    read_log(o.log, text, sizeof text);
    snprintf(want, sizeof want, "fetch HB/test: GET %s\n", e.url);
    cr_assert(strncmp(text, want, strlen(want)) == 0, "%s", text);
    cr_assert(strstr(text, "HB/test: body cut short"), "%s", text);
    snprintf(want, sizeof want, "fetch HB/test: GET %s, resuming at 1000 bytes\n", e.url);
    cr_assert(strstr(text, want), "%s", text);
    cr_assert(strstr(text, "HB/test: 300.0 kB in "), "%s", text);
    cr_assert(!strchr(text, '\033'), "escape codes in a plain log");
    finish(&e);
}

Test(download, progress_bar_draws_and_clears)
{
    env e;
    setup(&e, "a.bin", 100000, "{\"/d/a.bin\": [\"slow:200000\"]}");
    sp_dl_opts o = quick_opts();
    o.quiet = 0;
    o.progress = 1;
    o.log = tmpfile();
    cr_assert_not_null(o.log);
    sp_dl_item it = {0};
    cr_assert_eq(fetch_one(&e, &it, &o), 0, "%s", it.error);
    char text[65536];
    read_log(o.log, text, sizeof text);
    cr_assert(strstr(text, "0/1 files"), "no overall line: %s", text);
    cr_assert(strstr(text, "HB/test "), "no file line");
    cr_assert(strstr(text, "\033[J"), "area never cleared");
    cr_assert(!strstr(text, "fetch HB/test: GET"), "start lines belong to plain mode");
    cr_assert(strstr(text, "HB/test: 100.0 kB in "), "no done line");
    assert_same(&e, "d/a.bin", e.dest);
    finish(&e);
}

Test(download, bad_arguments)
{
    sp_err err = {{0}};
    sp_dl_item it = {.url = "http://127.0.0.1:1/x", .label = "no-dest"};
    cr_assert_eq(sp_download_all(NULL, 0, NULL, &err), 0);
    cr_assert_eq(sp_download_all(NULL, 2, NULL, &err), -1);
    cr_assert_eq(sp_download_all(&it, 1, NULL, &err), -1);
    cr_assert(strstr(err.msg, "no-dest"), "%s", err.msg);
}
