/*
 * unpack_out.c — the output side of unpacking: temp files in dest_dir,
 * writes counted against the cap, fsync, and the final renames. Temp files
 * live in dest_dir itself so that rename() is atomic (same file system)
 * and a crash leaves only dot-files behind, never a half-written .mtx.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unpack_int.h"

/* Append an entry owning copies of tmp and final. */
static int outs_push(unpack_outs *o, const char *tmp, const char *final)
{
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 4;
        unpack_out *v = realloc(o->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        o->v = v;
        o->cap = cap;
    }
    unpack_out *e = &o->v[o->n];
    e->tmp = strdup(tmp);
    e->final = strdup(final);
    if (!e->tmp || !e->final) {
        free(e->tmp);
        free(e->final);
        return -1;
    }
    o->n++;
    return 0;
}

int unpack_out_create(unpack_outs *o, const char *dest, const char *tmp_tag,
                      const char *final, int *fd, const char *label, sp_err *err)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dest, tmp_tag) >= (int)sizeof tmp)
        return sp_fail(err, "%s: output path too long in %s", label, dest);
    *fd = mkostemp(tmp, O_CLOEXEC);
    if (*fd < 0)
        return sp_fail(err, "%s: cannot create a temp file in %s: %s", label, dest,
                       strerror(errno));
    /* mkstemp makes 0600; a cache shared between users wants 0644. */
    if (fchmod(*fd, 0644) || outs_push(o, tmp, final)) {
        int e = errno;
        close(*fd);
        unlink(tmp);
        *fd = -1;
        return sp_fail(err, "%s: cannot set up %s: %s", label, tmp, strerror(e));
    }
    return 0;
}

int unpack_out_exists(const unpack_outs *o, const char *final)
{
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->v[i].final, final) == 0)
            return 1;
    return 0;
}

/* The write-error message: out of space is the common case and should
 * read as such, not as a bare errno. */
static int write_failure(const char *label, const char *path, int e, sp_err *err)
{
    if (e == ENOSPC || e == EDQUOT || e == EFBIG)
        return sp_fail(err, "%s: disk full writing %s (%s)", label, path, strerror(e));
    return sp_fail(err, "%s: cannot write %s: %s", label, path, strerror(e));
}

int unpack_out_close(int fd, const char *path, const char *label, sp_err *err)
{
    /* fsync before rename: otherwise a crash can leave a renamed but empty
     * file, which would look like a complete download. */
    if (fsync(fd)) {
        int e = errno;
        close(fd);
        return write_failure(label, path, e, err);
    }
    if (close(fd))
        return write_failure(label, path, errno, err);
    return 0;
}

int unpack_sink_write(unpack_sink *s, const void *p, size_t n, sp_err *err)
{
    if (n > s->cap - *s->total) {
        char cap[32];
        unpack_format_bytes(s->cap, cap, sizeof cap);
        return sp_fail(err, "%s: %s expands past the cap of %s (writing %s)", s->label,
                       s->archive, cap, s->path);
    }
    if (s->hash)
        sp_sha256_update(s->hash, p, n);
    for (const char *c = p; n > 0;) {
        ssize_t w = write(s->fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return write_failure(s->label, s->path, errno, err);
        c += w;
        n -= (size_t)w;
        *s->total += (uint64_t)w;
    }
    return 0;
}

/* fsync a directory so the renames in it survive a crash. */
static int sync_dir(const char *dir, const char *label, sp_err *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return sp_fail(err, "%s: cannot open %s: %s", label, dir, strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    return rc ? sp_fail(err, "%s: cannot sync %s: %s", label, dir, strerror(e)) : 0;
}

/* The directory part of path into dir (path always holds a '/': it was
 * built as dest + "/" + name). */
static void parent_of(const char *path, char *dir, size_t len)
{
    snprintf(dir, len, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
}

/* Rename one output into place, creating its parent when that is a
 * subdirectory of dest (<Name>.files/). */
static int commit_one(unpack_out *e, const char *dest, const char *label, sp_err *err)
{
    char dir[PATH_MAX];
    parent_of(e->final, dir, sizeof dir);
    if (strcmp(dir, dest) != 0 && mkdir(dir, 0755) && errno != EEXIST)
        return sp_fail(err, "%s: cannot create %s: %s", label, dir, strerror(errno));
    if (rename(e->tmp, e->final))
        return sp_fail(err, "%s: cannot rename %s to %s: %s", label, e->tmp, e->final,
                       strerror(errno));
    free(e->tmp);
    e->tmp = NULL;
    return 0;
}

int unpack_outs_commit(unpack_outs *o, const char *dest, const char *label, sp_err *err)
{
    /* Sync a subdirectory once its run of renames is over, before the
     * next output (the .mtx comes last) becomes visible. */
    char pending[PATH_MAX] = "";
    for (int i = 0; i < o->n; i++) {
        char dir[PATH_MAX];
        parent_of(o->v[i].final, dir, sizeof dir);
        if (pending[0] && strcmp(dir, pending) != 0) {
            if (sync_dir(pending, label, err))
                return -1;
            pending[0] = '\0';
        }
        if (commit_one(&o->v[i], dest, label, err))
            return -1;
        if (strcmp(dir, dest) != 0)
            memcpy(pending, dir, sizeof pending);
    }
    if (pending[0] && sync_dir(pending, label, err))
        return -1;
    return sync_dir(dest, label, err);
}

void unpack_outs_discard(unpack_outs *o)
{
    for (int i = 0; i < o->n; i++) {
        if (o->v[i].tmp)
            unlink(o->v[i].tmp);
        free(o->v[i].tmp);
        free(o->v[i].final);
    }
    free(o->v);
    o->v = NULL;
    o->n = o->cap = 0;
}
