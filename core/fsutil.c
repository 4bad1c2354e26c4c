/*
 * fsutil.c — directory creation shared by the cache, the fetcher, the
 * results store and the report.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sparse.h"

/* mkdir -p dir; every component must end up a directory. */
int sp_mkdir_p(const char *dir, sp_err *err)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return sp_fail(err, "%s: path too long", dir);
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        struct stat sb;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return sp_fail(err, "cannot create directory %s: %s: %s", dir, path,
                           strerror(errno));
        if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return sp_fail(err, "cannot create directory %s: %s is not a directory", dir, path);
        *p = saved;
        if (saved == '\0')
            return 0;
    }
}

/* mkdir -p of the directory that holds the file at path. */
int sp_mkdir_parent(const char *path, sp_err *err)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return sp_fail(err, "%s: path too long", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    return sp_mkdir_p(dir, err);
}
