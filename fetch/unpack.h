/*
 * unpack.h — streaming extraction of a SuiteSparse Matrix Market archive
 * (MM/<Group>/<Name>.tar.gz) into the matrix cache.
 *
 * Output layout in dest_dir (which must exist):
 *   <dest_dir>/<Name>.mtx            the member <Name>/<Name>.mtx
 *   <dest_dir>/<Name>.files/<X>      with all_files: every other regular
 *                                    member <Name>/<X> (right-hand sides,
 *                                    coordinates, ...); X has no '/'
 * Members outside <Name>/ or nested deeper are not written (but are still
 * checked for safety). Directory members are accepted and ignored.
 *
 * Atomic per file: each output is written to a temp file in dest_dir
 * (".<Name>.mtx.XXXXXX", ".<Name>.part.XXXXXX"), fsync'd, and renamed into
 * place only after the whole archive has been read without error; the
 * extra files first, the .mtx last, so a visible new .mtx means its extras
 * are in place too. On any error every temp file is removed and nothing
 * new is visible; an older <Name>.mtx is left untouched. Files get mode
 * 0644, whatever the archive says. Stale files in <Name>.files/ from an
 * earlier unpack are not removed.
 *
 * Integrity: a gzip'd archive is inflated with zlib, read to its very end,
 * and its CRC and length checked (libarchive's gzip filter checks
 * neither); other compressions are left to libarchive. More than 16 MiB
 * of data after the tar end marker, or anything after the gzip stream, is
 * refused.
 */
#ifndef SP_UNPACK_H
#define SP_UNPACK_H

#include <stdint.h>

#include "../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_unpack_opts {
    uint64_t max_bytes;     /* cap on the total expanded size of what is written;
                               0 = SP_UNPACK_DEFAULT_MAX (64 GiB) */
    int all_files;          /* 0: only <Name>/<Name>.mtx; 1: also every other regular
                               member <Name>/<X> (rhs, coords, ...) */
} sp_unpack_opts;

typedef struct sp_unpack_result {
    char mtx_sha256[65];    /* of the .mtx as written */
    uint64_t mtx_bytes;
    int nfiles;             /* files written, the .mtx included */
    uint64_t total_bytes;   /* bytes written, the .mtx included */
    char archive_sha256[65]; /* of the archive file, every byte, hashed as it was read */
    uint64_t archive_bytes;
} sp_unpack_result;

#define SP_UNPACK_DEFAULT_MAX ((uint64_t)64 << 30)

/* Unpack `archive` (any compression libarchive reads; tar formats only) as
 * described above. name: the matrix name (<Name>, no '/'); label starts
 * every message ("HB/bcsstk06: ..."; NULL = name). opts NULL = defaults;
 * res may be NULL. Refuses the whole archive (nothing written) when any
 * member has an absolute path or a '..' component, is a symlink, hard link,
 * device, fifo or socket, or appears twice; when the written bytes would
 * pass max_bytes (checked while streaming, and early from a member's header
 * size: any member, kept or not, whose header size alone passes the cap);
 * when it holds no <Name>/<Name>.mtx; on corrupt or truncated input and on
 * write errors. -1 with the message in err. */
int sp_unpack_suitesparse(const char *archive, const char *name, const char *label,
                          const char *dest_dir, const sp_unpack_opts *opts,
                          sp_unpack_result *res, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
