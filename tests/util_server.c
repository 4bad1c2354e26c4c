/* util_server.c — run tests/fetch_server.py as a child process for the
 * download tests: start it, wait for its port, stop it, count requests in
 * its JSON log. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "util_server.h"

enum { START_WAIT_MS = 15000, STOP_WAIT_MS = 3000 };

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Write a reason; returns -1. */
static int fail(char *reason, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *reason, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Full path of an executable on $PATH, or -1. */
static int find_in_path(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path && *path ? path : "/usr/bin:/bin");
    for (char *save, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(buf, len, "%s/%s", d, name);
        if (access(buf, X_OK) == 0)
            return 0;
    }
    return -1;
}

/* The server script, next to tests/data (which testutil finds from the
 * working directory, the repository root). */
static int script_path(char *buf, size_t len)
{
    snprintf(buf, len, "%s/../fetch_server.py", tu_datadir());
    return access(buf, R_OK);
}

/* Child side: stdio to files, die with the parent, exec the server. */
static void exec_server(const sp_test_server *s, const char *python, const char *script,
                        const char *root, const char *faults, pid_t parent)
{
    char port_file[700], err_file[700];
    snprintf(port_file, sizeof port_file, "%s/port", s->dir);
    snprintf(err_file, sizeof err_file, "%s/server.err", s->dir);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(126);
    int in = open("/dev/null", O_RDONLY), out = open(err_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        _exit(126);
    closefrom(3); /* Criterion's pipes must not outlive the test in us */
    const char *argv[] = {python, script, "--root", root, "--port-file", port_file,
                          "--log", s->log_path, faults ? "--faults" : NULL, faults, NULL};
    execv(python, (char *const *)argv);
    _exit(127);
}

/* First line of the server's stderr, for a reason. */
static void server_stderr(const sp_test_server *s, char *buf, size_t len)
{
    char path[700];
    snprintf(path, sizeof path, "%s/server.err", s->dir);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f))
        snprintf(buf, len, "%s", line); /* the last line: Python's exception */
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

/* Wait for the port file; -1 with a reason when the child died first or
 * the wait ran out. */
static int wait_for_port(sp_test_server *s, char *reason, size_t len)
{
    char path[700];
    snprintf(path, sizeof path, "%s/port", s->dir);
    for (int waited = 0; waited < START_WAIT_MS; waited += 10) {
        FILE *f = fopen(path, "r");
        if (f) {
            int ok = fscanf(f, "%d", &s->port) == 1 && s->port > 0;
            fclose(f);
            if (ok)
                return 0;
        }
        int status;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            char why[1024];
            server_stderr(s, why, sizeof why);
            s->pid = 0;
            return fail(reason, len, "fetch_server.py exited (status %d): %s",
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1, why);
        }
        sleep_ms(10);
    }
    return fail(reason, len, "fetch_server.py wrote no port within %d s", START_WAIT_MS / 1000);
}

int sp_test_server_start(sp_test_server *s, const char *root, const char *faults_json,
                         char *reason, size_t len)
{
    char python[1024], script[1024], faults[700];
    memset(s, 0, sizeof *s);
    if (find_in_path("python3", python, sizeof python) < 0)
        return fail(reason, len, "python3 not found in PATH");
    if (script_path(script, sizeof script) < 0)
        return fail(reason, len, "%s not found (run from the repository root)", script);
    tu_tempdir(s->dir, sizeof s->dir);
    snprintf(s->log_path, sizeof s->log_path, "%s/requests.jsonl", s->dir);
    if (faults_json) {
        snprintf(faults, sizeof faults, "%s/faults.json", s->dir);
        tu_write_file(faults, faults_json);
    }
    pid_t parent = getpid();
    s->pid = fork();
    if (s->pid < 0) {
        s->pid = 0;
        return fail(reason, len, "fork: %s", strerror(errno));
    }
    if (s->pid == 0)
        exec_server(s, python, script, root, faults_json ? faults : NULL, parent);
    if (wait_for_port(s, reason, len) < 0) {
        sp_test_server_stop(s);
        return -1;
    }
    snprintf(s->base_url, sizeof s->base_url, "http://127.0.0.1:%d", s->port);
    return 0;
}

/* Reap pid within ms milliseconds; 0 when it is gone. */
static int reap(pid_t pid, int ms)
{
    for (int waited = 0; waited <= ms; waited += 10) {
        pid_t w = waitpid(pid, NULL, WNOHANG);
        if (w == pid || (w < 0 && errno == ECHILD))
            return 0;
        sleep_ms(10);
    }
    return -1;
}

void sp_test_server_stop(sp_test_server *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        if (reap(s->pid, STOP_WAIT_MS) < 0) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, NULL, 0);
        }
        s->pid = 0;
    }
    if (!s->dir[0])
        return;
    static const char *files[] = {"port", "faults.json", "requests.jsonl", "server.err"};
    char path[700];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", s->dir, files[i]);
        unlink(path);
    }
    rmdir(s->dir);
    s->dir[0] = '\0';
}

/* The log is the server's own JSON, written with fixed separators, so a
 * field reads as "key":"value"; test paths need no escaping. */
static int line_matches(const char *line, const char *path, const char *range_prefix)
{
    char want[1200];
    snprintf(want, sizeof want, "\"path\":\"%s\"", path);
    if (!strstr(line, want))
        return 0;
    if (!range_prefix)
        return 1;
    snprintf(want, sizeof want, "\"range\":\"%s", range_prefix);
    return strstr(line, want) != NULL;
}

int sp_test_server_count(const sp_test_server *s, const char *path, const char *range_prefix)
{
    FILE *f = fopen(s->log_path, "r");
    if (!f)
        return errno == ENOENT ? 0 : -1;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += line_matches(line, path, range_prefix);
    fclose(f);
    return n;
}
