/*
 * sha256.h — SHA-256 through OpenSSL's EVP interface (libcrypto), streaming
 * and over a whole file. The dataset manager hashes every archive it
 * downloads and every .mtx it unpacks, so a cached file can be checked
 * against the index without trusting its name or mtime.
 */
#ifndef SP_SHA256_H
#define SP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A running hash; ctx is an EVP_MD_CTX, NULL once finished or aborted. */
typedef struct sp_sha256 {
    void *ctx;
} sp_sha256;

/* Start a hash. -1 (OpenSSL's reason in err) when libcrypto cannot. */
int sp_sha256_init(sp_sha256 *h, sp_err *err);
/* Add n bytes. */
void sp_sha256_update(sp_sha256 *h, const void *p, size_t n);
/* Finish: 64 lower-case hex digits and a NUL into hex; frees ctx. */
void sp_sha256_final(sp_sha256 *h, char hex[65]);
/* Free without a result (error paths); harmless on a finished hash. */
void sp_sha256_abort(sp_sha256 *h);

/* Hash a whole file with large reads; its size into *size when size is not
 * NULL. Errors name the path. */
int sp_sha256_file(const char *path, char hex[65], uint64_t *size, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
