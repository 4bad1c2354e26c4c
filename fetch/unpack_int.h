/*
 * unpack_int.h — the pieces behind sp_unpack_suitesparse (fetch/unpack.c),
 * shared by its files and the unit tests; not a public interface.
 *   unpack_src.c     the archive file's bytes, gunzipped with the CRC checked
 *   unpack_member.c  which members are safe, and what each one becomes
 *   unpack_out.c     temp output files: create, write under the cap, fsync,
 *                    rename into place or remove
 */
#ifndef SP_UNPACK_INT_H
#define SP_UNPACK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sha256.h"
#include "unpack.h"

#include <sys/types.h>
#include <zlib.h>

struct archive_entry;

/* The archive file as the tar reader sees it. A gzip'd file is inflated
 * here with zlib rather than by libarchive, because libarchive's gzip
 * filter never checks the trailer's CRC and length (and stops reading at
 * the tar end marker, before the trailer): a bit flip inside a deflate
 * block would otherwise unpack silently as a wrong matrix. Any other file
 * is passed through unchanged for libarchive's own filters (xz, bzip2,
 * zstd, ...). */
typedef struct unpack_src {
    int fd;
    int gzip;               /* 1: inflating; 0: passing the bytes through */
    int z_live;             /* z needs inflateEnd */
    z_stream z;
    unsigned char *in, *out;
    int in_eof;             /* the file is read to its end */
    int member_end;         /* a gzip member ended; another may follow */
    int done;               /* everything delivered */
    char msg[256];          /* why the last read failed; "" when none did */
    sp_sha256 raw;          /* of the file's bytes as read: the archive's hash */
    int raw_live;
    uint64_t raw_bytes;
} unpack_src;

/* Open path (refusing an empty file). -1 with "<label>: <path>: why". */
int unpack_src_open(unpack_src *s, const char *path, const char *label, sp_err *err);
/* The next bytes into *p: their count, 0 at the end, -1 with s->msg set
 * (corrupt or truncated gzip data, data after the gzip stream, I/O). */
ssize_t unpack_src_read(unpack_src *s, const void **p);
/* Read a gzip stream to its end, so its CRC and length are checked;
 * -1 with s->msg set when that fails or more than limit bytes remain. */
int unpack_src_drain(unpack_src *s, uint64_t limit);
void unpack_src_close(unpack_src *s);
/* Read whatever of the file the tar reader left unread and finish the
 * SHA-256 of all its bytes (so the archive is read once, not twice). */
int unpack_src_raw_hash(unpack_src *s, char hex[65], uint64_t *bytes);

/* What a (normalised) member path is to the matrix <Name>. */
typedef enum unpack_role {
    UNPACK_SKIP,    /* not written: outside <Name>/, nested deeper, or a directory */
    UNPACK_MTX,     /* <Name>/<Name>.mtx */
    UNPACK_EXTRA    /* <Name>/<X>, written with all_files */
} unpack_role;

/* Normalise a member path into out: "." and empty components dropped
 * ("./a//b" -> "a/b"). NULL when safe, else why it is refused ("has an
 * absolute path", "has a '..' component", "has an empty name", ...). */
const char *unpack_path_normalize(const char *path, char *out, size_t len);
/* Role of a normalised path; for UNPACK_EXTRA *extra points at X in norm. */
unpack_role unpack_path_role(const char *norm, const char *name, const char **extra);
/* NULL for a regular file or a directory; otherwise what the member is
 * ("is a symbolic link", "is a hard link", "is a character device", ...). */
const char *unpack_type_refusal(struct archive_entry *e);
/* "64 GiB", "1 MiB", "1500 bytes": the cap as people read it. */
void unpack_format_bytes(uint64_t n, char *buf, size_t len);

/* One output file: written to tmp, renamed to final on success. */
typedef struct unpack_out {
    char *tmp;      /* NULL once renamed (or removed) */
    char *final;
} unpack_out;

typedef struct unpack_outs {
    unpack_out *v;
    int n, cap;
} unpack_outs;

/* Create a temp file in dest for final path `final` (copied), mode 0644;
 * its fd into *fd. tmp_tag names the temp file: ".<tmp_tag>.XXXXXX". */
int unpack_out_create(unpack_outs *o, const char *dest, const char *tmp_tag,
                      const char *final, int *fd, const char *label, sp_err *err);
/* True when some output already goes to final (a duplicate member). */
int unpack_out_exists(const unpack_outs *o, const char *final);
/* fsync and close fd, written as `path`. -1 on failure (fd closed anyway). */
int unpack_out_close(int fd, const char *path, const char *label, sp_err *err);
/* Rename every temp file into place, in order (the caller adds the .mtx
 * last); creates the parent of any final path that lies in a
 * subdirectory of dest; fsyncs the directories. */
int unpack_outs_commit(unpack_outs *o, const char *dest, const char *label, sp_err *err);
/* Remove every temp file not yet renamed, and free the list. */
void unpack_outs_discard(unpack_outs *o);

/* Where member bytes go: counted against the cap shared by all members,
 * hashed when hash is not NULL. */
typedef struct unpack_sink {
    int fd;
    const char *path;       /* the final path, for messages */
    const char *label;      /* starts every message */
    const char *archive;    /* named in the cap message */
    uint64_t *total;        /* bytes written by the whole unpack so far */
    uint64_t cap;
    sp_sha256 *hash;
} unpack_sink;

/* Write n bytes, refusing before writing anything that would take *total
 * past cap. Write errors: "disk full writing PATH (strerror)" for
 * ENOSPC/EDQUOT/EFBIG, "cannot write PATH: strerror" otherwise. */
int unpack_sink_write(unpack_sink *s, const void *p, size_t n, sp_err *err);

#endif
