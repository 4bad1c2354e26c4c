/*
 * fetch_lock.c — one fetcher per matrix. Two sweeps (two shards on one
 * node) that want the same matrix take its lock file with flock(2): the
 * first downloads, the second waits, then finds the matrix in place and
 * reuses it. flock locks vanish with the process, so a killed fetcher never
 * leaves a stale lock behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fetch.h"

int sp_lock_take(const char *path, int wait, int *fd, sp_err *err)
{
    *fd = -1;
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f < 0)
        return sp_fail(err, "%s: cannot open lock file: %s", path, strerror(errno));
    int rc;
    while ((rc = flock(f, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        int e = errno;
        close(f);
        if (e == EWOULDBLOCK)
            return 1;
        return sp_fail(err, "%s: cannot lock: %s", path, strerror(e));
    }
    *fd = f;
    return 0;
}

void sp_lock_release(int fd)
{
    if (fd >= 0)
        close(fd);  /* closing the last descriptor drops the flock */
}
