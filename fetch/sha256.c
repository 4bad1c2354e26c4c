/*
 * sha256.c — SHA-256 via OpenSSL EVP. EVP (not the deprecated SHA256_*
 * calls) picks the fastest implementation the CPU offers (SHA-NI, AVX2),
 * which matters when hashing multi-GiB matrices.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"

#define FILE_CHUNK ((size_t)1 << 20)    /* 1 MiB reads: few syscalls, cache-friendly */

int sp_sha256_init(sp_sha256 *h, sp_err *err)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    h->ctx = NULL;
    if (!ctx)
        return sp_fail(err, "sha256: out of memory");
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        unsigned long e = ERR_get_error();
        EVP_MD_CTX_free(ctx);
        return sp_fail(err, "sha256: cannot start a hash: %s",
                       e ? ERR_reason_error_string(e) : "unknown OpenSSL error");
    }
    h->ctx = ctx;
    return 0;
}

/* The software digest cannot fail once initialised, so no status is
 * returned; the assert guards against use after final/abort. */
void sp_sha256_update(sp_sha256 *h, const void *p, size_t n)
{
    assert(h->ctx);
    if (n)
        EVP_DigestUpdate(h->ctx, p, n);
}

void sp_sha256_final(sp_sha256 *h, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    assert(h->ctx);
    EVP_DigestFinal_ex(h->ctx, md, &len);
    assert(len == 32);
    for (unsigned int i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
    sp_sha256_abort(h);
}

void sp_sha256_abort(sp_sha256 *h)
{
    EVP_MD_CTX_free(h->ctx);    /* NULL-safe */
    h->ctx = NULL;
}

/* Feed everything fd holds into h; bytes read into *total. */
static int hash_fd(int fd, sp_sha256 *h, uint64_t *total, const char *path, sp_err *err)
{
    unsigned char *buf = malloc(FILE_CHUNK);
    if (!buf)
        return sp_fail(err, "%s: out of memory for the read buffer", path);
    *total = 0;
    for (;;) {
        ssize_t r = read(fd, buf, FILE_CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            return sp_fail(err, "%s: read error: %s", path, strerror(e));
        }
        if (r == 0)
            break;
        sp_sha256_update(h, buf, (size_t)r);
        *total += (uint64_t)r;
    }
    free(buf);
    return 0;
}

int sp_sha256_file(const char *path, char hex[65], uint64_t *size, sp_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sp_fail(err, "%s: cannot open: %s", path, strerror(errno));
    /* Sequential hint: the kernel reads ahead more aggressively. */
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    sp_sha256 h;
    uint64_t total = 0;
    if (sp_sha256_init(&h, err)) {
        close(fd);
        return sp_fail_prefix(err, "%s", path);
    }
    if (hash_fd(fd, &h, &total, path, err)) {
        sp_sha256_abort(&h);
        close(fd);
        return -1;
    }
    close(fd);
    sp_sha256_final(&h, hex);
    if (size)
        *size = total;
    return 0;
}
