/* util_server.h — start and stop tests/fetch_server.py (a local HTTP
 * server with fault injection) from a Criterion test, and read its request
 * log. Used by the download tests and the end-to-end fetch tests. */
#ifndef SP_UTIL_SERVER_H
#define SP_UTIL_SERVER_H

#include <stddef.h>
#include <sys/types.h>

typedef struct sp_test_server {
    pid_t pid;
    int port;
    char dir[512];      /* temp dir holding the port file, faults, log, stderr */
    char log_path[600]; /* one JSON line per request */
    char base_url[128]; /* "http://127.0.0.1:PORT" */
} sp_test_server;

/* Start tests/fetch_server.py (found under the working directory, the repo
 * root, like tests/data) serving root; faults_json (may be NULL) is the
 * fault table's JSON text. 0 on success; on failure -1 and a one-line
 * reason (python3 missing, the script failing to start) for cr_skip. The
 * server dies with the test process even if stop is never reached. */
int sp_test_server_start(sp_test_server *s, const char *root, const char *faults_json,
                         char *reason, size_t len);
/* SIGTERM the server, reap it, remove its temp dir and log (count requests
 * before this). Safe to call twice. */
void sp_test_server_stop(sp_test_server *s);
/* Requests in the log for path (exact URL path), and, when range_prefix is
 * not NULL, whose Range header starts with it. -1 if the log is unreadable. */
int sp_test_server_count(const sp_test_server *s, const char *path, const char *range_prefix);

#endif
