/*
 * util_archive.h — build test archives with libarchive's writer: mirrors
 * of SuiteSparse's MM/<Group>/<Name>.tar.gz for end-to-end tests, and the
 * hostile or broken archives the unpacker must refuse.
 *
 * Every function aborts the calling Criterion test (cr_assert) when it
 * cannot do what it says, so callers need no error handling; do not call
 * them in a forked child. Member names are written exactly as given
 * (libarchive's writer does not strip "/" or ".."; ua_list shows what an
 * archive really holds). Members get mode 0644 (0755 for directories),
 * owner 0:0 and a fixed mtime, so archives are reproducible.
 *
 * Typical use:
 *   ua_writer *w = ua_open("/tmp/x/bcsstk06.tar.gz", UA_TAR_GZ);
 *   ua_add_dir(w, "bcsstk06/");
 *   ua_add_file(w, "bcsstk06/bcsstk06.mtx", "tests/data/ss/bcsstk06.mtx.gz");
 *   ua_add_text(w, "bcsstk06/bcsstk06_b.mtx", "%%MatrixMarket ...\n");
 *   ua_close(w);
 * or, for the common case, ua_suitesparse(archive, "bcsstk06", mtx_path).
 */
#ifndef SP_UTIL_ARCHIVE_H
#define SP_UTIL_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Container and compression of the archive written. */
typedef enum ua_format {
    UA_TAR_GZ,      /* pax tar, gzip'd: what the SuiteSparse mirror serves */
    UA_TAR,         /* pax tar, uncompressed */
    UA_TAR_XZ,      /* pax tar, xz'd (another filter the reader must detect) */
    UA_ZIP,         /* zip: a non-tar archive the unpacker must refuse */
    UA_CPIO_GZ      /* cpio (newc), gzip'd: ditto */
} ua_format;

typedef struct ua_writer ua_writer;

/* Start an archive at path (created or truncated). */
ua_writer *ua_open(const char *path, ua_format format);
/* Finish and free the writer: flushes the compressor and the tar trailer. */
void ua_close(ua_writer *w);

/* A regular file holding len bytes from data. */
void ua_add_mem(ua_writer *w, const char *member, const void *data, size_t len);
/* A regular file holding the NUL-terminated text. */
void ua_add_text(ua_writer *w, const char *member, const char *text);
/* A regular file holding the contents of path, gunzipped when path is
 * gzip'd (so tests/data/ss/X.mtx.gz becomes X.mtx); read into memory. */
void ua_add_file(ua_writer *w, const char *member, const char *path);
/* A regular file of size zero bytes, streamed (for expansion bombs: 50 MB
 * of zeros gzip to ~50 KB). */
void ua_add_zeros(ua_writer *w, const char *member, uint64_t size);
/* A directory member (by convention the name ends in '/'). */
void ua_add_dir(ua_writer *w, const char *member);
/* A symbolic link member pointing at target. */
void ua_add_symlink(ua_writer *w, const char *member, const char *target);
/* A hard link member to the earlier member target. */
void ua_add_hardlink(ua_writer *w, const char *member, const char *target);
/* A special member: type is AE_IFCHR, AE_IFBLK or AE_IFIFO (devices get
 * rdev 1:3, /dev/null's). */
void ua_add_node(ua_writer *w, const char *member, unsigned type);

/* The SuiteSparse layout in one call: a UA_TAR_GZ at archive holding the
 * directory <name>/ and <name>/<name>.mtx with the (gunzipped) contents
 * of mtx_path. */
void ua_suitesparse(const char *archive, const char *name, const char *mtx_path);

/* Read archive back with libarchive into buf: one line per member,
 * "<type> <path>[ -> <link target>]\n", type one of f d l h c b p s ?
 * (h: hard link). For asserting what a test archive really holds. */
void ua_list(const char *archive, char *buf, size_t len);

/* Whole file into a malloc'd buffer (gunzipped when gzip'd); *len set. */
void *ua_load(const char *path, size_t *len);
/* Size of a file in bytes. */
off_t ua_file_size(const char *path);
/* XOR n bytes at offset with 0xFF (corruption that keeps the size). */
void ua_flip_bytes(const char *path, off_t offset, size_t n);
/* Cut a file to size bytes. */
void ua_truncate(const char *path, off_t size);

#endif
