/* util_archive.c — test archives through libarchive's writer (see
 * util_archive.h). */
#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util_archive.h"

#define UA_MTIME 1700000000     /* fixed, so archives are reproducible */
#define UA_CHUNK ((size_t)64 << 10)

struct ua_writer {
    struct archive *a;
    char path[4096];
};

/* Assert a libarchive call succeeded, with its message. */
static void ua_check(struct archive *a, int rc, const char *what, const char *path)
{
    cr_assert(rc == ARCHIVE_OK || rc == ARCHIVE_WARN, "util_archive: %s %s: %s", what, path,
              archive_error_string(a) ? archive_error_string(a) : "?");
}

/* Select container and filter for format. */
static int ua_set_format(struct archive *a, ua_format format)
{
    int gz = format == UA_TAR_GZ || format == UA_CPIO_GZ;
    int rc = gz ? archive_write_add_filter_gzip(a)
                : format == UA_TAR_XZ ? archive_write_add_filter_xz(a) : ARCHIVE_OK;
    if (rc != ARCHIVE_OK)
        return rc;
    if (format == UA_ZIP)
        return archive_write_set_format_zip(a);
    if (format == UA_CPIO_GZ)
        return archive_write_set_format_cpio_newc(a);
    return archive_write_set_format_pax_restricted(a);
}

ua_writer *ua_open(const char *path, ua_format format)
{
    ua_writer *w = calloc(1, sizeof *w);
    cr_assert_not_null(w);
    snprintf(w->path, sizeof w->path, "%s", path);
    w->a = archive_write_new();
    cr_assert_not_null(w->a);
    ua_check(w->a, ua_set_format(w->a, format), "set format for", path);
    ua_check(w->a, archive_write_open_filename(w->a, path), "open", path);
    return w;
}

void ua_close(ua_writer *w)
{
    ua_check(w->a, archive_write_close(w->a), "close", w->path);
    archive_write_free(w->a);
    free(w);
}

/* A header for member of the given type and size, written to w. */
static void ua_header(ua_writer *w, const char *member, unsigned type, uint64_t size,
                      void (*extra)(struct archive_entry *, const char *), const char *arg)
{
    struct archive_entry *e = archive_entry_new();
    cr_assert_not_null(e);
    archive_entry_set_pathname(e, member);
    archive_entry_set_filetype(e, type);
    archive_entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
    archive_entry_set_size(e, (la_int64_t)size);
    archive_entry_set_mtime(e, UA_MTIME, 0);
    archive_entry_set_uid(e, 0);
    archive_entry_set_gid(e, 0);
    if (extra)
        extra(e, arg);
    ua_check(w->a, archive_write_header(w->a, e), "write header of", member);
    archive_entry_free(e);
}

/* archive_write_data may accept fewer bytes than asked; loop. */
static void ua_data(ua_writer *w, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        la_ssize_t n = archive_write_data(w->a, p, len);
        cr_assert(n > 0, "util_archive: write data to %s: %s", w->path,
                  archive_error_string(w->a) ? archive_error_string(w->a) : "?");
        p += n;
        len -= (size_t)n;
    }
}

void ua_add_mem(ua_writer *w, const char *member, const void *data, size_t len)
{
    ua_header(w, member, AE_IFREG, len, NULL, NULL);
    ua_data(w, data, len);
}

void ua_add_text(ua_writer *w, const char *member, const char *text)
{
    ua_add_mem(w, member, text, strlen(text));
}

void ua_add_file(ua_writer *w, const char *member, const char *path)
{
    size_t len;
    void *data = ua_load(path, &len);
    ua_add_mem(w, member, data, len);
    free(data);
}

void ua_add_zeros(ua_writer *w, const char *member, uint64_t size)
{
    static const char zeros[UA_CHUNK];
    ua_header(w, member, AE_IFREG, size, NULL, NULL);
    for (uint64_t left = size; left > 0;) {
        size_t n = left < UA_CHUNK ? (size_t)left : UA_CHUNK;
        ua_data(w, zeros, n);
        left -= n;
    }
}

void ua_add_dir(ua_writer *w, const char *member)
{
    ua_header(w, member, AE_IFDIR, 0, NULL, NULL);
}

static void set_symlink(struct archive_entry *e, const char *t)
{
    archive_entry_set_symlink(e, t);
}

static void set_hardlink(struct archive_entry *e, const char *t)
{
    archive_entry_set_hardlink(e, t);
}

static void set_rdev(struct archive_entry *e, const char *unused)
{
    (void)unused;
    archive_entry_set_rdevmajor(e, 1);
    archive_entry_set_rdevminor(e, 3);
}

void ua_add_symlink(ua_writer *w, const char *member, const char *target)
{
    ua_header(w, member, AE_IFLNK, 0, set_symlink, target);
}

void ua_add_hardlink(ua_writer *w, const char *member, const char *target)
{
    ua_header(w, member, AE_IFREG, 0, set_hardlink, target);
}

void ua_add_node(ua_writer *w, const char *member, unsigned type)
{
    cr_assert(type == AE_IFCHR || type == AE_IFBLK || type == AE_IFIFO,
              "util_archive: ua_add_node takes AE_IFCHR, AE_IFBLK or AE_IFIFO");
    ua_header(w, member, type, 0, type == AE_IFIFO ? NULL : set_rdev, NULL);
}

void ua_suitesparse(const char *archive, const char *name, const char *mtx_path)
{
    char dir[512], mtx[1024];
    snprintf(dir, sizeof dir, "%s/", name);
    snprintf(mtx, sizeof mtx, "%s/%s.mtx", name, name);
    ua_writer *w = ua_open(archive, UA_TAR_GZ);
    ua_add_dir(w, dir);
    ua_add_file(w, mtx, mtx_path);
    ua_close(w);
}

/* One letter for a member's type, hard links apart. */
static char ua_type_letter(struct archive_entry *e)
{
    if (archive_entry_hardlink(e))
        return 'h';
    switch (archive_entry_filetype(e)) {
    case AE_IFREG: return 'f';
    case AE_IFDIR: return 'd';
    case AE_IFLNK: return 'l';
    case AE_IFCHR: return 'c';
    case AE_IFBLK: return 'b';
    case AE_IFIFO: return 'p';
    case AE_IFSOCK: return 's';
    default: return '?';
    }
}

void ua_list(const char *archive, char *buf, size_t len)
{
    struct archive *a = archive_read_new();
    struct archive_entry *e;
    size_t used = 0;
    cr_assert_not_null(a);
    archive_read_support_filter_all(a);
    archive_read_support_format_all(a);
    ua_check(a, archive_read_open_filename(a, archive, 1 << 16), "open", archive);
    buf[0] = '\0';
    while (archive_read_next_header(a, &e) == ARCHIVE_OK && used < len) {
        const char *link = archive_entry_hardlink(e) ? archive_entry_hardlink(e)
                                                     : archive_entry_symlink(e);
        int n = snprintf(buf + used, len - used, "%c %s%s%s\n", ua_type_letter(e),
                         archive_entry_pathname(e), link ? " -> " : "", link ? link : "");
        used += n > 0 ? (size_t)n : 0;
    }
    archive_read_free(a);
}

void *ua_load(const char *path, size_t *len)
{
    gzFile f = gzopen(path, "rb");      /* passes plain files through */
    cr_assert_not_null(f, "util_archive: cannot open %s", path);
    size_t cap = UA_CHUNK, n = 0;
    char *data = malloc(cap);
    cr_assert_not_null(data);
    for (;;) {
        if (n == cap) {
            data = realloc(data, cap *= 2);
            cr_assert_not_null(data);
        }
        int r = gzread(f, data + n, (unsigned)(cap - n));
        cr_assert_geq(r, 0, "util_archive: cannot read %s", path);
        if (r == 0)
            break;
        n += (size_t)r;
    }
    gzclose(f);
    *len = n;
    return data;
}

off_t ua_file_size(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "util_archive: cannot stat %s", path);
    return st.st_size;
}

void ua_flip_bytes(const char *path, off_t offset, size_t n)
{
    int fd = open(path, O_RDWR);
    cr_assert_geq(fd, 0, "util_archive: cannot open %s", path);
    for (size_t i = 0; i < n; i++) {
        unsigned char c;
        cr_assert_eq(pread(fd, &c, 1, offset + (off_t)i), 1, "util_archive: %s too short",
                     path);
        c ^= 0xFF;
        cr_assert_eq(pwrite(fd, &c, 1, offset + (off_t)i), 1);
    }
    close(fd);
}

void ua_truncate(const char *path, off_t size)
{
    cr_assert_eq(truncate(path, size), 0, "util_archive: cannot truncate %s", path);
}
