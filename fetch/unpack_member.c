/*
 * unpack_member.c — which archive members are safe, and what each one
 * becomes. An archive from a mirror should hold plain files under
 * <Name>/; anything that could write outside dest_dir when unpacked
 * naively (absolute paths, '..', links) or that is no file at all
 * (devices, fifos) means the archive is not what we asked for, so the
 * caller refuses all of it rather than skipping the member.
 */
#include <archive_entry.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "unpack_int.h"

const char *unpack_path_normalize(const char *path, char *out, size_t len)
{
    size_t o = 0;
    if (!path || !*path)
        return "has an empty name";
    if (path[0] == '/')
        return "has an absolute path";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return "has a '..' component";
        if (n > 0 && !(n == 1 && p[0] == '.')) {
            if (o + (o > 0) + n + 1 > len)
                return "has a name too long";
            if (o > 0)
                out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
        }
        p += n + (p[n] == '/');
    }
    if (o == 0)
        return "has an empty name";
    out[o] = '\0';
    return NULL;
}

unpack_role unpack_path_role(const char *norm, const char *name, const char **extra)
{
    size_t nl = strlen(name);
    *extra = NULL;
    if (strncmp(norm, name, nl) != 0 || norm[nl] != '/')
        return UNPACK_SKIP;
    const char *x = norm + nl + 1;
    if (!*x || strchr(x, '/'))
        return UNPACK_SKIP;
    if (strncmp(x, name, nl) == 0 && strcmp(x + nl, ".mtx") == 0)
        return UNPACK_MTX;
    *extra = x;
    return UNPACK_EXTRA;
}

const char *unpack_type_refusal(struct archive_entry *e)
{
    /* A tar hard link has the type of its target, so test it first. */
    if (archive_entry_hardlink(e))
        return "is a hard link";
    switch (archive_entry_filetype(e)) {
    case AE_IFREG:
    case AE_IFDIR:
        return NULL;
    case AE_IFLNK:
        return "is a symbolic link";
    case AE_IFCHR:
        return "is a character device";
    case AE_IFBLK:
        return "is a block device";
    case AE_IFIFO:
        return "is a fifo";
    case AE_IFSOCK:
        return "is a socket";
    default:
        return "is of an unknown file type";
    }
}

void unpack_format_bytes(uint64_t n, char *buf, size_t len)
{
    static const char *const units[] = {"GiB", "MiB", "KiB"};
    for (int i = 0; i < 3; i++) {
        uint64_t unit = (uint64_t)1 << (30 - 10 * i);
        if (n >= unit && n % unit == 0) {
            snprintf(buf, len, "%" PRIu64 " %s", n / unit, units[i]);
            return;
        }
    }
    snprintf(buf, len, "%" PRIu64 " bytes", n);
}
