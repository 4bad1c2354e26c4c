/* test_sha256.c — fetch/sha256.c against the FIPS 180-2 / NIST vectors,
 * streaming in odd chunk sizes against the whole-file hash, and errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../fetch/sha256.h"
#include "testutil.h"

#define MILLION_A "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

/* Hash a string in one update. */
static void hash_str(const char *s, char hex[65])
{
    sp_sha256 h;
    sp_err err = {{0}};
    cr_assert_eq(sp_sha256_init(&h, &err), 0, "%s", err.msg);
    sp_sha256_update(&h, s, strlen(s));
    sp_sha256_final(&h, hex);
    cr_assert_null(h.ctx, "final must free the context");
}

Test(sha256, known_vectors)
{
    char hex[65];
    hash_str("", hex);
    cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hash_str("abc", hex);
    cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    hash_str("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", hex);
    cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* One million 'a' fed in chunks of 1, 7, 63, 64, 65, 4097, ... bytes (block
 * boundaries and their neighbours) equals the vector and the file hash. */
Test(sha256, streaming_odd_chunks_equals_whole_file)
{
    static const size_t chunks[] = {1, 7, 63, 64, 65, 127, 4097, 65537};
    size_t n = 1000000, done = 0;
    char *a = malloc(n), hex[65], fhex[65], dir[256], path[512];
    cr_assert_not_null(a);
    memset(a, 'a', n);
    sp_sha256 h;
    sp_err err = {{0}};
    cr_assert_eq(sp_sha256_init(&h, &err), 0, "%s", err.msg);
    for (int i = 0; done < n; i = (i + 1) % 8) {
        size_t k = chunks[i] < n - done ? chunks[i] : n - done;
        sp_sha256_update(&h, a + done, k);
        done += k;
    }
    sp_sha256_final(&h, hex);
    cr_assert_str_eq(hex, MILLION_A);

    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "a.bin");
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(a, 1, n, f), n);
    fclose(f);
    uint64_t size = 0;
    cr_assert_eq(sp_sha256_file(path, fhex, &size, &err), 0, "%s", err.msg);
    cr_assert_str_eq(fhex, MILLION_A);
    cr_assert_eq(size, n);
    free(a);
}

Test(sha256, empty_file_and_null_size)
{
    char dir[256], path[512], hex[65];
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "empty");
    tu_write_file(path, "");
    cr_assert_eq(sp_sha256_file(path, hex, NULL, &err), 0, "%s", err.msg);
    cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

Test(sha256, missing_file_names_path)
{
    char dir[256], path[512], hex[65];
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "no-such-file.tar.gz");
    cr_assert_eq(sp_sha256_file(path, hex, NULL, &err), -1);
    cr_assert_not_null(strstr(err.msg, path), "message '%s' does not name the path", err.msg);
    cr_assert_not_null(strstr(err.msg, "No such file"), "%s", err.msg);
}

/* A directory opens but cannot be read: the read-error path. */
Test(sha256, unreadable_names_path)
{
    char dir[256], hex[65];
    sp_err err = {{0}};
    tu_tempdir(dir, sizeof dir);
    cr_assert_eq(sp_sha256_file(dir, hex, NULL, &err), -1);
    cr_assert_not_null(strstr(err.msg, dir), "%s", err.msg);
}

/* abort frees a running hash (ASan's leak check sees it) and is harmless
 * twice or after final. */
Test(sha256, abort_frees)
{
    sp_sha256 h;
    sp_err err = {{0}};
    char hex[65];
    cr_assert_eq(sp_sha256_init(&h, &err), 0, "%s", err.msg);
    sp_sha256_update(&h, "x", 1);
    sp_sha256_abort(&h);
    cr_assert_null(h.ctx);
    sp_sha256_abort(&h);
    cr_assert_eq(sp_sha256_init(&h, &err), 0, "%s", err.msg);
    sp_sha256_final(&h, hex);
    sp_sha256_abort(&h);
}
