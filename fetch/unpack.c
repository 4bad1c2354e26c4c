/*
 * unpack.c — sp_unpack_suitesparse: read a SuiteSparse archive once, as a
 * stream, checking every member before any byte of it is written, and
 * make the outputs visible only when the whole archive read cleanly
 * (layout and guarantees in unpack.h).
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unpack_int.h"

#define DATA_CHUNK ((size_t)256 << 10)   /* decompressed bytes per read */
#define TAIL_LIMIT ((uint64_t)16 << 20)  /* tar padding after the end marker is ~10 KiB */
#define MAX_MEMBERS 100000               /* bounds the work a hostile archive can cause */

typedef struct unpack_job {
    const char *archive, *name, *label;
    char dest[PATH_MAX];        /* dest_dir without trailing '/' */
    uint64_t cap, total;
    int all_files;
    unpack_src src;             /* the file, gunzipped */
    struct archive *a;          /* the tar reader on top of src */
    unsigned char *buf;         /* DATA_CHUNK bytes */
    unpack_outs outs;           /* the .mtx is moved last before commit */
    int mtx_index;              /* its index in outs, -1 until seen */
    sp_sha256 hash;
    sp_unpack_result res;
    int nmembers;
    char members[600];          /* "a, b, ..." for the missing-.mtx message */
    int members_cut;            /* the list ended with "..." */
} unpack_job;

/* Fail with the reason for the archive: our gzip reader's when it failed
 * (libarchive would only say "truncated"), else libarchive's message. */
static int archive_failure(unpack_job *j, sp_err *err)
{
    const char *m = j->src.msg[0] ? j->src.msg : archive_error_string(j->a);
    return sp_fail(err, "%s: %s: %s", j->label, j->archive,
                   m ? m : "unreadable archive (no reason given by libarchive)");
}

/* Remember a member's name for the missing-.mtx message; the list is cut
 * with "..." once it would not fit in the message. */
static void note_member(unpack_job *j, const char *path)
{
    size_t used = strlen(j->members), room = sizeof j->members - used;
    if (j->members_cut)
        return;
    const char *sep = used ? ", " : "";
    /* keep room for a later ", ..." */
    if (strlen(sep) + strlen(path) + 6 < room) {
        snprintf(j->members + used, room, "%s%s", sep, path);
    } else {
        snprintf(j->members + used, room, "%s...", sep);
        j->members_cut = 1;
    }
}

/* libarchive's read callback: the next bytes of src. */
static la_ssize_t src_read_cb(struct archive *a, void *data, const void **p)
{
    unpack_src *src = data;
    ssize_t n = unpack_src_read(src, p);
    if (n < 0)
        archive_set_error(a, EIO, "%s", src->msg);
    return n;
}

/* Open the archive for streaming: any compression filter, any format
 * (so a zip or cpio is named as such rather than "unrecognised"); the
 * format is checked per member. */
static int job_open(unpack_job *j, sp_err *err)
{
    if (unpack_src_open(&j->src, j->archive, j->label, err))
        return -1;
    j->a = archive_read_new();
    if (!j->a)
        return sp_fail(err, "%s: out of memory opening %s", j->label, j->archive);
    if (archive_read_support_filter_all(j->a) != ARCHIVE_OK ||
        archive_read_support_format_all(j->a) != ARCHIVE_OK ||
        archive_read_open(j->a, &j->src, NULL, src_read_cb, NULL) != ARCHIVE_OK)
        return archive_failure(j, err);
    return 0;
}

/* Checks that apply to every member, kept or not. */
static int check_member(unpack_job *j, struct archive_entry *e, const char *path,
                        char *norm, size_t len, sp_err *err)
{
    if ((archive_format(j->a) & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_TAR)
        return sp_fail(err, "%s: %s is not a tar archive (format: %s)", j->label, j->archive,
                       archive_format_name(j->a) ? archive_format_name(j->a) : "unknown");
    if (++j->nmembers > MAX_MEMBERS)
        return sp_fail(err, "%s: %s has more than %d members", j->label, j->archive,
                       MAX_MEMBERS);
    const char *why = unpack_path_normalize(path, norm, len);
    if (!why)
        why = unpack_type_refusal(e);
    if (why)
        return sp_fail(err, "%s: %s: member '%s' %s; refusing the whole archive",
                       j->label, j->archive, path ? path : "", why);
    /* A member bigger than the cap fails before any decompression, even
     * one we would skip: skipping it still inflates it. */
    if (archive_entry_size_is_set(e) && (uint64_t)archive_entry_size(e) > j->cap) {
        char cap[32];
        unpack_format_bytes(j->cap, cap, sizeof cap);
        return sp_fail(err, "%s: %s expands past the cap of %s (member '%s' of %" PRId64
                       " bytes)", j->label, j->archive, cap, path, archive_entry_size(e));
    }
    return 0;
}

/* Final path of a kept member, and the tag of its temp file. */
static int output_paths(unpack_job *j, unpack_role role, const char *extra, char *final,
                        char *tag, sp_err *err)
{
    int n = role == UNPACK_MTX
                ? snprintf(final, PATH_MAX, "%s/%s.mtx", j->dest, j->name)
                : snprintf(final, PATH_MAX, "%s/%s.files/%s", j->dest, j->name, extra);
    if (n >= PATH_MAX)
        return sp_fail(err, "%s: output path too long for member '%s'", j->label,
                       extra ? extra : j->name);
    snprintf(tag, NAME_MAX, "%s.%s", j->name, role == UNPACK_MTX ? "mtx" : "part");
    return 0;
}

/* Stream the current member's data through a sink into fd. */
static int copy_data(unpack_job *j, unpack_sink *s, sp_err *err)
{
    for (;;) {
        la_ssize_t n = archive_read_data(j->a, j->buf, DATA_CHUNK);
        if (n == 0)
            return 0;
        if (n < 0)
            return archive_failure(j, err);
        if (unpack_sink_write(s, j->buf, (size_t)n, err))
            return -1;
    }
}

/* Write the current member (role MTX or EXTRA) to a new temp file. */
static int extract_member(unpack_job *j, unpack_role role, const char *extra, sp_err *err)
{
    char final[PATH_MAX], tag[NAME_MAX];
    if (output_paths(j, role, extra, final, tag, err))
        return -1;
    if (unpack_out_exists(&j->outs, final))
        return sp_fail(err, "%s: %s: member '%s/%s' appears twice; refusing the whole archive",
                       j->label, j->archive, j->name, extra ? extra : tag);
    int fd;
    if (unpack_out_create(&j->outs, j->dest, tag, final, &fd, j->label, err))
        return -1;
    uint64_t before = j->total;
    unpack_sink s = {fd, final, j->label, j->archive, &j->total, j->cap,
                     role == UNPACK_MTX ? &j->hash : NULL};
    if (copy_data(j, &s, err)) {
        close(fd);
        return -1;
    }
    if (unpack_out_close(fd, final, j->label, err))
        return -1;
    if (role == UNPACK_MTX) {
        j->mtx_index = j->outs.n - 1;
        j->res.mtx_bytes = j->total - before;
    }
    j->res.nfiles++;
    return 0;
}

/* Read every header; check each member; write the ones we keep. */
static int read_members(unpack_job *j, sp_err *err)
{
    struct archive_entry *e;
    for (;;) {
        int rc = archive_read_next_header(j->a, &e);
        if (rc == ARCHIVE_EOF)   /* read the gzip trailer too: it holds the CRC */
            return unpack_src_drain(&j->src, TAIL_LIMIT) ? archive_failure(j, err) : 0;
        if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
            return archive_failure(j, err);
        const char *path = archive_entry_pathname(e), *extra;
        char norm[PATH_MAX];
        if (check_member(j, e, path, norm, sizeof norm, err))
            return -1;
        note_member(j, path);
        if (archive_entry_filetype(e) == AE_IFDIR)
            continue;
        unpack_role role = unpack_path_role(norm, j->name, &extra);
        if (role == UNPACK_MTX || (role == UNPACK_EXTRA && j->all_files))
            if (extract_member(j, role, extra, err))
                return -1;
    }
}

/* Move the .mtx to the end of the outputs, so it is renamed last. */
static void mtx_last(unpack_job *j)
{
    unpack_out m = j->outs.v[j->mtx_index];
    memmove(&j->outs.v[j->mtx_index], &j->outs.v[j->mtx_index + 1],
            (size_t)(j->outs.n - 1 - j->mtx_index) * sizeof m);
    j->outs.v[j->outs.n - 1] = m;
}

/* Everything read: insist on the .mtx, then rename into place. */
static int finish(unpack_job *j, sp_err *err)
{
    if (j->mtx_index < 0)
        return sp_fail(err, "%s: %s holds no %s/%s.mtx (members: %s)", j->label, j->archive,
                       j->name, j->name, j->members[0] ? j->members : "none");
    mtx_last(j);
    if (unpack_src_raw_hash(&j->src, j->res.archive_sha256, &j->res.archive_bytes))
        return archive_failure(j, err);
    if (unpack_outs_commit(&j->outs, j->dest, j->label, err))
        return -1;
    sp_sha256_final(&j->hash, j->res.mtx_sha256);
    j->res.total_bytes = j->total;
    return 0;
}

/* Check the arguments and fill the job's fixed fields. */
static int job_init(unpack_job *j, const char *archive, const char *name, const char *label,
                    const char *dest_dir, const sp_unpack_opts *opts, sp_err *err)
{
    memset(j, 0, sizeof *j);
    j->mtx_index = -1;
    j->src.fd = -1;
    j->label = label ? label : name ? name : "unpack";
    if (!archive || !name || !dest_dir)
        return sp_fail(err, "%s: unpack needs an archive, a name and a directory", j->label);
    if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return sp_fail(err, "%s: '%s' is not a matrix name", j->label, name);
    size_t n = strlen(dest_dir);
    while (n > 1 && dest_dir[n - 1] == '/')
        n--;
    if (n == 0 || n >= sizeof j->dest)
        return sp_fail(err, "%s: bad destination directory '%s'", j->label, dest_dir);
    memcpy(j->dest, dest_dir, n);
    j->archive = archive;
    j->name = name;
    j->cap = opts && opts->max_bytes ? opts->max_bytes : SP_UNPACK_DEFAULT_MAX;
    j->all_files = opts && opts->all_files;
    j->buf = malloc(DATA_CHUNK);
    if (!j->buf)
        return sp_fail(err, "%s: out of memory", j->label);
    return sp_sha256_init(&j->hash, err) ? sp_fail_prefix(err, "%s", j->label) : 0;
}

int sp_unpack_suitesparse(const char *archive, const char *name, const char *label,
                          const char *dest_dir, const sp_unpack_opts *opts,
                          sp_unpack_result *res, sp_err *err)
{
    unpack_job j;
    int rc = job_init(&j, archive, name, label, dest_dir, opts, err);
    if (rc == 0)
        rc = job_open(&j, err);
    if (rc == 0)
        rc = read_members(&j, err);
    if (rc == 0)
        rc = finish(&j, err);
    unpack_outs_discard(&j.outs);   /* after a commit: only frees */
    sp_sha256_abort(&j.hash);
    if (j.a)
        archive_read_free(j.a);
    unpack_src_close(&j.src);
    free(j.buf);
    if (res) {
        memset(res, 0, sizeof *res);
        if (rc == 0)
            *res = j.res;
    }
    return rc;
}
