/*
 * report_gnuplot.c — run gnuplot on the report script inside out_dir,
 * its output going to out_dir/gnuplot.log; a failure is reported with the
 * first lines of that log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_impl.h"

#define GNUPLOT_LOG "gnuplot.log"
#define GNUPLOT_LOG_LINES 3

/* Find an executable gnuplot in $PATH; 0 with its path in buf, -1 if none. */
static int find_gnuplot(char *buf, size_t len)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        if (n > 0 && (size_t)snprintf(buf, len, "%.*s/gnuplot", (int)n, path) < len &&
            access(buf, X_OK) == 0)
            return 0;
        path = end ? end + 1 : NULL;
    }
    return -1;
}

/* The first GNUPLOT_LOG_LINES non-empty lines of the log, joined by " | ". */
static void read_log_head(const rp_report *r, char *buf, size_t len)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/%s", r->out_dir, GNUPLOT_LOG);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    int taken = 0;
    while (taken < GNUPLOT_LOG_LINES && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strspn(line, " \t^") == strlen(line))
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", taken ? " | " : "", line);
        taken++;
    }
    fclose(f);
}

/* In the child: cwd out_dir, stdin /dev/null, stdout and stderr to the log,
 * then exec gnuplot. Only async-signal-safe calls. */
static void exec_gnuplot(const char *gnuplot, const char *out_dir, const char *script)
{
    int in = open("/dev/null", O_RDONLY);
    if (chdir(out_dir) != 0 || in < 0)
        _exit(126);
    int log = open(GNUPLOT_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0 || dup2(in, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0)
        _exit(126);
    char *const argv[] = {(char *)"gnuplot", (char *)script, NULL};
    execv(gnuplot, argv);
    _exit(127);
}

/* Run gnuplot on script (a file name inside out_dir) and wait for it. */
int rp_run_gnuplot(const rp_report *r, const char *script, sp_err *err)
{
    char gnuplot[4096];
    if (find_gnuplot(gnuplot, sizeof gnuplot) != 0)
        return sp_fail(err, "gnuplot not found; install gnuplot-nox (make deps)");
    pid_t pid = fork();
    if (pid < 0)
        return sp_fail(err, "cannot start gnuplot: fork: %s", strerror(errno));
    if (pid == 0)
        exec_gnuplot(gnuplot, r->out_dir, script);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return sp_fail(err, "waiting for gnuplot: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char head[768];
    read_log_head(r, head, sizeof head);
    if (WIFEXITED(status))
        return sp_fail(err, "gnuplot failed (exit %d) on %s/%s: %s", WEXITSTATUS(status),
                       r->out_dir, script, head[0] ? head : "no output");
    return sp_fail(err, "gnuplot killed by signal %d on %s/%s: %s", WTERMSIG(status),
                   r->out_dir, script, head[0] ? head : "no output");
}
