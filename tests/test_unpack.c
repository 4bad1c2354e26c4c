/* test_unpack.c — fetch/unpack*.c: SuiteSparse archives unpacked safely,
 * atomically and under a cap. Archives are built at test time with
 * util_archive from the real matrices in tests/data/ss. */
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "../fetch/unpack.h"
#include "../fetch/unpack_int.h"
#include "testutil.h"
#include "util_archive.h"

#define LABEL "HB/bcsstk06"
#define NAME "bcsstk06"

/* One test's scratch: the archive lives in work/, outputs go to dest/. */
typedef struct fixture {
    char work[256], dest[512], archive[512], mtx_src[512];
} fixture;

static void fixture_init(fixture *f)
{
    tu_tempdir(f->work, sizeof f->work);
    tu_path(f->dest, sizeof f->dest, f->work, "dest");
    cr_assert_eq(mkdir(f->dest, 0755), 0);
    tu_path(f->archive, sizeof f->archive, f->work, NAME ".tar.gz");
    snprintf(f->mtx_src, sizeof f->mtx_src, "%s/ss/" NAME ".mtx.gz", tu_datadir());
}

/* Names in dir (dot-files included, "." and ".." not), sorted, joined by
 * spaces into buf: "" for an empty directory. */
static void dir_names(const char *dir, char *buf, size_t len)
{
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort);
    cr_assert_geq(n, 0, "cannot list %s", dir);
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *s = list[i]->d_name;
        if (strcmp(s, ".") && strcmp(s, ".."))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "", s);
        free(list[i]);
    }
    free(list);
}

static void assert_dir_is(const char *dir, const char *want)
{
    char names[4096];
    dir_names(dir, names, sizeof names);
    cr_assert_str_eq(names, want, "%s holds '%s', want '%s'", dir, names, want);
}

/* True when file path holds exactly len bytes equal to data. */
static int file_equals(const char *path, const void *data, size_t len)
{
    size_t got;
    void *buf = ua_load(path, &got);
    int same = got == len && memcmp(buf, data, len) == 0;
    free(buf);
    return same;
}

/* Unpack f's archive expecting success. */
static void unpack_ok(fixture *f, const sp_unpack_opts *o, sp_unpack_result *res)
{
    sp_err err = {{0}};
    cr_assert_eq(sp_unpack_suitesparse(f->archive, NAME, LABEL, f->dest, o, res, &err), 0,
                 "%s", err.msg);
}

/* Unpack f's archive expecting failure: the message starts with the label
 * and holds each of the (NULL-terminated) fragments; dest stays empty. */
static void unpack_fails(fixture *f, const sp_unpack_opts *o, const char *frag, ...)
{
    sp_err err = {{0}};
    sp_unpack_result res;
    memset(&res, 0x55, sizeof res);
    cr_assert_eq(sp_unpack_suitesparse(f->archive, NAME, LABEL, f->dest, o, &res, &err), -1,
                 "unpack accepted a bad archive");
    cr_assert_eq(strncmp(err.msg, LABEL ": ", strlen(LABEL) + 2), 0,
                 "message does not start with the label: %s", err.msg);
    va_list ap;
    va_start(ap, frag);
    for (const char *s = frag; s; s = va_arg(ap, const char *))
        cr_assert_not_null(strstr(err.msg, s), "message '%s' lacks '%s'", err.msg, s);
    va_end(ap);
    cr_assert_eq(res.nfiles, 0, "result not cleared on failure");
    assert_dir_is(f->dest, "");
}

/* ---- good archives ------------------------------------------------------ */

Test(unpack, good_archive_byte_identical_and_hashed)
{
    fixture f;
    fixture_init(&f);
    ua_suitesparse(f.archive, NAME, f.mtx_src);
    sp_unpack_result res;
    unpack_ok(&f, NULL, &res);
    assert_dir_is(f.dest, NAME ".mtx");

    char out[600], hex[65];
    size_t len;
    uint64_t size;
    sp_err err = {{0}};
    void *src = ua_load(f.mtx_src, &len);
    tu_path(out, sizeof out, f.dest, NAME ".mtx");
    cr_assert(file_equals(out, src, len), "unpacked .mtx differs from the source");
    cr_assert_eq(sp_sha256_file(out, hex, &size, &err), 0, "%s", err.msg);
    cr_assert_str_eq(res.mtx_sha256, hex);
    cr_assert_eq(res.mtx_bytes, len);
    cr_assert_eq(size, len);
    cr_assert_eq(res.nfiles, 1);
    cr_assert_eq(res.total_bytes, len);
    cr_assert_eq(sp_sha256_file(f.archive, hex, &size, &err), 0, "%s", err.msg);
    cr_assert_str_eq(res.archive_sha256, hex, "the archive is hashed as it is read");
    cr_assert_eq(res.archive_bytes, size);
    struct stat st;
    cr_assert_eq(stat(out, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0644, "mode %o", st.st_mode & 0777);
    free(src);
}

/* Other filters and plain tar are detected, not just gzip; "./" prefixes
 * (GNU tar's default for "tar c .") are normalised away. */
Test(unpack, xz_and_plain_tar_and_dot_prefix)
{
    static const ua_format formats[] = {UA_TAR_XZ, UA_TAR};
    for (int i = 0; i < 2; i++) {
        fixture f;
        fixture_init(&f);
        ua_writer *w = ua_open(f.archive, formats[i]);
        ua_add_file(w, "./" NAME "/" NAME ".mtx", f.mtx_src);
        ua_close(w);
        sp_unpack_result res;
        unpack_ok(&f, NULL, &res);
        assert_dir_is(f.dest, NAME ".mtx");
        size_t len;
        free(ua_load(f.mtx_src, &len));
        cr_assert_eq(res.mtx_bytes, len, "format %d", i);
        /* the tar reader stops at the end marker; the hash covers every byte */
        char hex[65];
        uint64_t size;
        sp_err err;
        cr_assert_eq(sp_sha256_file(f.archive, hex, &size, &err), 0, "%s", err.msg);
        cr_assert_str_eq(res.archive_sha256, hex, "format %d", i);
        cr_assert_eq(res.archive_bytes, size);
    }
}

/* Archive with a right-hand side, coordinates and stray members. */
static void write_with_extras(fixture *f)
{
    ua_writer *w = ua_open(f->archive, UA_TAR_GZ);
    ua_add_dir(w, NAME "/");
    ua_add_text(w, NAME "/" NAME "_b.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n");
    ua_add_file(w, NAME "/" NAME ".mtx", f->mtx_src);
    ua_add_text(w, NAME "/" NAME "_coord.mtx", "coords\n");
    ua_add_text(w, "README", "outside <Name>/: never written\n");
    ua_add_text(w, NAME "/sub/deep.txt", "nested: never written\n");
    ua_close(w);
}

Test(unpack, all_files_keeps_extra_members)
{
    fixture f;
    fixture_init(&f);
    write_with_extras(&f);
    sp_unpack_opts o = {.all_files = 1};
    sp_unpack_result res;
    unpack_ok(&f, &o, &res);
    assert_dir_is(f.dest, NAME ".files " NAME ".mtx");
    char files[600], p[700];
    tu_path(files, sizeof files, f.dest, NAME ".files");
    assert_dir_is(files, NAME "_b.mtx " NAME "_coord.mtx");
    tu_path(p, sizeof p, files, NAME "_coord.mtx");
    cr_assert(file_equals(p, "coords\n", 7));
    cr_assert_eq(res.nfiles, 3);
    size_t len;
    free(ua_load(f.mtx_src, &len));
    const char *b = "%%MatrixMarket matrix array real general\n2 1\n1\n2\n";
    cr_assert_eq(res.total_bytes, len + strlen(b) + 7);
    cr_assert_eq(res.mtx_bytes, len);
}

Test(unpack, extras_skipped_without_all_files)
{
    fixture f;
    fixture_init(&f);
    write_with_extras(&f);
    sp_unpack_result res;
    unpack_ok(&f, &(sp_unpack_opts){0}, &res);
    assert_dir_is(f.dest, NAME ".mtx");
    cr_assert_eq(res.nfiles, 1);
    cr_assert_eq(res.total_bytes, res.mtx_bytes);
}

Test(unpack, missing_mtx_lists_members)
{
    fixture f;
    fixture_init(&f);
    ua_writer *w = ua_open(f.archive, UA_TAR_GZ);
    ua_add_text(w, NAME "/" NAME "_b.mtx", "b\n");
    ua_add_text(w, "other/other.mtx", "o\n");
    ua_close(w);
    unpack_fails(&f, &(sp_unpack_opts){.all_files = 1}, f.archive, "holds no " NAME "/" NAME
                 ".mtx (members: " NAME "/" NAME "_b.mtx, other/other.mtx)", NULL);
}

/* The member list in the message is cut with "..." rather than overflow. */
Test(unpack, missing_mtx_long_member_list_is_cut)
{
    fixture f;
    fixture_init(&f);
    ua_writer *w = ua_open(f.archive, UA_TAR_GZ);
    for (int i = 0; i < 200; i++) {
        char m[128];
        snprintf(m, sizeof m, NAME "/a_rather_long_member_name_number_%03d.txt", i);
        ua_add_text(w, m, "x\n");
    }
    ua_close(w);
    unpack_fails(&f, NULL, f.archive,
                 "(members: " NAME "/a_rather_long_member_name_number_000.txt, ", "_001.txt, ",
                 ", ...)", NULL);
}

/* An existing .mtx is replaced only by a successful unpack. */
Test(unpack, old_mtx_replaced_only_on_success)
{
    fixture f;
    fixture_init(&f);
    char out[600];
    tu_path(out, sizeof out, f.dest, NAME ".mtx");
    tu_write_file(out, "old\n");
    ua_writer *w = ua_open(f.archive, UA_TAR_GZ);
    ua_add_file(w, NAME "/" NAME ".mtx", f.mtx_src);
    ua_add_symlink(w, NAME "/link", "/etc/passwd");
    ua_close(w);
    sp_err err = {{0}};
    cr_assert_eq(sp_unpack_suitesparse(f.archive, NAME, LABEL, f.dest, NULL, NULL, &err), -1);
    cr_assert(file_equals(out, "old\n", 4), "a failed unpack touched the old .mtx");
    assert_dir_is(f.dest, NAME ".mtx");

    ua_suitesparse(f.archive, NAME, f.mtx_src);
    unpack_ok(&f, NULL, NULL);
    size_t len;
    void *src = ua_load(f.mtx_src, &len);
    cr_assert(file_equals(out, src, len), "the old .mtx was not replaced");
    assert_dir_is(f.dest, NAME ".mtx");
    free(src);
}

/* ---- refused members: each after a valid .mtx, so a reader that only
 * looks at what it keeps would accept the archive ------------------------ */

typedef enum bad_kind { BAD_DOTDOT, BAD_ABSOLUTE, BAD_SYMLINK, BAD_HARDLINK, BAD_CHR, BAD_BLK,
                        BAD_FIFO, BAD_DUPLICATE } bad_kind;

/* Valid .mtx first, then the bad member, then a harmless one. */
static void write_bad(fixture *f, bad_kind kind)
{
    ua_writer *w = ua_open(f->archive, UA_TAR_GZ);
    ua_add_dir(w, NAME "/");
    ua_add_file(w, NAME "/" NAME ".mtx", f->mtx_src);
    switch (kind) {
    case BAD_DOTDOT: ua_add_text(w, NAME "/../../evil", "x\n"); break;
    case BAD_ABSOLUTE: ua_add_text(w, "/tmp/spsweep-evil", "x\n"); break;
    case BAD_SYMLINK: ua_add_symlink(w, "elsewhere/link", "/etc/passwd"); break;
    case BAD_HARDLINK: ua_add_hardlink(w, NAME "/" NAME "_b.mtx", NAME "/" NAME ".mtx"); break;
    case BAD_CHR: ua_add_node(w, "dev/null", AE_IFCHR); break;
    case BAD_BLK: ua_add_node(w, NAME "/disk", AE_IFBLK); break;
    case BAD_FIFO: ua_add_node(w, NAME "/pipe", AE_IFIFO); break;
    case BAD_DUPLICATE: ua_add_text(w, NAME "/" NAME ".mtx", "second\n"); break;
    }
    ua_add_text(w, NAME "/" NAME "_b.mtx", "b\n");
    ua_close(w);
}

static void expect_refused(bad_kind kind, const char *want)
{
    fixture f;
    fixture_init(&f);
    write_bad(&f, kind);
    unpack_fails(&f, &(sp_unpack_opts){.all_files = 1}, f.archive, want, NULL);
    /* and without all_files, where the bad member would not be kept */
    unpack_fails(&f, NULL, f.archive, want, NULL);
}

Test(unpack, refuses_dotdot)
{
    expect_refused(BAD_DOTDOT, "'" NAME "/../../evil' has a '..' component");
}

Test(unpack, refuses_absolute)
{
    expect_refused(BAD_ABSOLUTE, "'/tmp/spsweep-evil' has an absolute path");
}

Test(unpack, refuses_symlink)
{
    expect_refused(BAD_SYMLINK, "'elsewhere/link' is a symbolic link");
}

Test(unpack, refuses_hardlink)
{
    expect_refused(BAD_HARDLINK, "'" NAME "/" NAME "_b.mtx' is a hard link");
}

Test(unpack, refuses_char_device)
{
    expect_refused(BAD_CHR, "'dev/null' is a character device");
}

Test(unpack, refuses_block_device)
{
    expect_refused(BAD_BLK, "'" NAME "/disk' is a block device");
}

Test(unpack, refuses_fifo)
{
    expect_refused(BAD_FIFO, "'" NAME "/pipe' is a fifo");
}

Test(unpack, refuses_duplicate_mtx)
{
    expect_refused(BAD_DUPLICATE, "'" NAME "/" NAME ".mtx' appears twice");
}

/* The hostile archives hold what the tests think they hold: libarchive's
 * writer kept the absolute path, the '..' and the link types. */
Test(unpack, util_archive_writes_hostile_members_verbatim)
{
    static const struct { bad_kind kind; const char *line; } cases[] = {
        {BAD_DOTDOT, "f " NAME "/../../evil\n"},
        {BAD_ABSOLUTE, "f /tmp/spsweep-evil\n"},
        {BAD_SYMLINK, "l elsewhere/link -> /etc/passwd\n"},
        {BAD_HARDLINK, "h " NAME "/" NAME "_b.mtx -> " NAME "/" NAME ".mtx\n"},
        {BAD_CHR, "c dev/null\n"},
        {BAD_BLK, "b " NAME "/disk\n"},
        {BAD_FIFO, "p " NAME "/pipe\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        char list[4096];
        fixture_init(&f);
        write_bad(&f, cases[i].kind);
        ua_list(f.archive, list, sizeof list);
        cr_assert_not_null(strstr(list, cases[i].line), "archive lists\n%s\nwithout '%s'", list,
                           cases[i].line);
        cr_assert_not_null(strstr(list, "f " NAME "/" NAME ".mtx\n"), "%s", list);
    }
}

/* ---- expansion caps ------------------------------------------------------ */

/* Run the unpack in a child whose file-size limit is fsize bytes (SIGXFSZ
 * ignored, so writes past it fail with EFBIG instead of killing it); the
 * child's message into msg. Returns the unpack's result. */
static int unpack_in_child(fixture *f, const sp_unpack_opts *o, rlim_t fsize, char *msg,
                           size_t len)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct rlimit rl = {fsize, fsize};
        sp_err err = {{0}};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &rl))
            _exit(3);
        int rc = sp_unpack_suitesparse(f->archive, NAME, LABEL, f->dest, o, NULL, &err);
        ssize_t w = write(fds[1], err.msg, strlen(err.msg) + 1);
        _exit(w < 0 ? 3 : rc == 0 ? 0 : 1);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], msg, len - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) < 2, "child status %d", status);
    return WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* 50 MB of zeros as the .mtx, cap 1 MiB. The child may write at most
 * 2 MiB per file: an unpacker that wrote on past the cap would fail with
 * "disk full" instead of the cap message. */
Test(unpack, bomb_stops_at_cap)
{
    fixture f;
    fixture_init(&f);
    ua_writer *w = ua_open(f.archive, UA_TAR_GZ);
    ua_add_zeros(w, NAME "/" NAME ".mtx", (uint64_t)50 << 20);
    ua_close(w);
    cr_assert_lt(ua_file_size(f.archive), 1 << 20, "the bomb should be small compressed");
    char msg[1024];
    sp_unpack_opts o = {.max_bytes = (uint64_t)1 << 20};
    cr_assert_eq(unpack_in_child(&f, &o, (rlim_t)2 << 20, msg, sizeof msg), -1);
    cr_assert_not_null(strstr(msg, "expands past the cap of 1 MiB"), "%s", msg);
    cr_assert_not_null(strstr(msg, f.archive), "%s", msg);
    assert_dir_is(f.dest, "");
}

/* Many members each under the cap, together over it: only the streaming
 * count catches this (no single header is too big). */
Test(unpack, cap_counts_all_members)
{
    fixture f;
    fixture_init(&f);
    ua_writer *w = ua_open(f.archive, UA_TAR_GZ);
    ua_add_file(w, NAME "/" NAME ".mtx", f.mtx_src);
    for (int i = 0; i < 40; i++) {
        char m[64];
        snprintf(m, sizeof m, NAME "/part%02d", i);
        ua_add_zeros(w, m, 100 << 10);
    }
    ua_close(w);
    unpack_fails(&f, &(sp_unpack_opts){.max_bytes = 1 << 20, .all_files = 1}, f.archive,
                 "expands past the cap of 1 MiB", NULL);
    /* the same archive without all_files writes only the .mtx: fine */
    unpack_ok(&f, &(sp_unpack_opts){.max_bytes = 1 << 20}, NULL);
    assert_dir_is(f.dest, NAME ".mtx");
}

/* A member whose header alone passes the cap fails before inflating it,
 * even when it would be skipped. */
Test(unpack, header_over_cap_fails_early_even_if_skipped)
{
    fixture f;
    fixture_init(&f);
    ua_writer *w = ua_open(f.archive, UA_TAR_GZ);
    ua_add_file(w, NAME "/" NAME ".mtx", f.mtx_src);
    ua_add_zeros(w, "other/huge", 3 << 20);
    ua_close(w);
    unpack_fails(&f, &(sp_unpack_opts){.max_bytes = 2 << 20}, f.archive,
                 "expands past the cap of 2 MiB (member 'other/huge' of 3145728 bytes)", NULL);
}

/* The sink refuses the write that would pass the cap before writing any
 * of it, and hashes only what it wrote. */
Test(unpack, sink_checks_cap_before_writing)
{
    char dir[256], path[512], buf[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "out");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0);
    uint64_t total = 100;   /* as if an earlier member wrote 100 bytes */
    unpack_sink s = {fd, path, "L", "A.tar.gz", &total, 1000, NULL};
    sp_err err = {{0}};
    memset(buf, 'x', sizeof buf);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(unpack_sink_write(&s, buf, sizeof buf, &err), 0, "%s", err.msg);
    cr_assert_eq(unpack_sink_write(&s, buf, sizeof buf, &err), -1);
    char want[700];
    snprintf(want, sizeof want, "L: A.tar.gz expands past the cap of 1000 bytes (writing %s)",
             path);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(total, 1000);
    close(fd);
    cr_assert_eq(ua_file_size(path), 900);
}

/* ---- broken input -------------------------------------------------------- */

Test(unpack, corrupt_gzip_middle)
{
    fixture f;
    fixture_init(&f);
    ua_suitesparse(f.archive, NAME, f.mtx_src);
    ua_flip_bytes(f.archive, ua_file_size(f.archive) / 2, 16);
    unpack_fails(&f, NULL, f.archive, NULL);
}

Test(unpack, truncated_gzip)
{
    fixture f;
    fixture_init(&f);
    ua_suitesparse(f.archive, NAME, f.mtx_src);
    ua_truncate(f.archive, ua_file_size(f.archive) / 2);
    unpack_fails(&f, NULL, f.archive, NULL);
}

/* Cut inside the tar data of an uncompressed archive. */
Test(unpack, truncated_tar)
{
    fixture f;
    fixture_init(&f);
    ua_writer *w = ua_open(f.archive, UA_TAR);
    ua_add_file(w, NAME "/" NAME ".mtx", f.mtx_src);
    ua_close(w);
    ua_truncate(f.archive, 50000);
    unpack_fails(&f, NULL, f.archive, NULL);
}

Test(unpack, plain_file_is_no_archive)
{
    fixture f;
    fixture_init(&f);
    tu_write_file(f.archive, "<html>404 Not Found</html>\n");
    unpack_fails(&f, NULL, f.archive, NULL);
}

/* Copy a file byte for byte (no gunzipping). */
static void copy_raw(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[8192];
    size_t n;
    cr_assert(in && out, "cannot copy %s to %s", from, to);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        cr_assert_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

/* A gzip'd .mtx where a tar.gz was expected (a mirror serving the wrong
 * file): valid gzip, but no archive inside. */
Test(unpack, gzipped_mtx_is_no_archive)
{
    fixture f;
    fixture_init(&f);
    copy_raw(f.mtx_src, f.archive);
    unpack_fails(&f, NULL, f.archive, "Unrecognized archive format", NULL);
}

/* Write data to path as one gzip member, appending when append is set. */
static void gzip_to(const char *path, const void *data, size_t len, int append)
{
    gzFile g = gzopen(path, append ? "ab" : "wb");
    cr_assert_not_null(g);
    cr_assert_eq(gzwrite(g, data, (unsigned)len), (int)len);
    cr_assert_eq(gzclose(g), Z_OK);
}

/* A tar split across two concatenated gzip members (as `cat a.gz b.gz`
 * makes, and gzip itself reads) unpacks whole. */
Test(unpack, multi_member_gzip)
{
    fixture f;
    fixture_init(&f);
    char tar[600];
    tu_path(tar, sizeof tar, f.work, "plain.tar");
    ua_writer *w = ua_open(tar, UA_TAR);
    ua_add_file(w, NAME "/" NAME ".mtx", f.mtx_src);
    ua_close(w);
    size_t len;
    char *bytes = ua_load(tar, &len);
    gzip_to(f.archive, bytes, len / 3, 0);
    gzip_to(f.archive, bytes + len / 3, len - len / 3, 1);
    free(bytes);
    sp_unpack_result res;
    unpack_ok(&f, NULL, &res);
    free(ua_load(f.mtx_src, &len));
    cr_assert_eq(res.mtx_bytes, len);
}

Test(unpack, data_after_gzip_refused)
{
    fixture f;
    fixture_init(&f);
    ua_suitesparse(f.archive, NAME, f.mtx_src);
    FILE *a = fopen(f.archive, "ab");
    cr_assert_not_null(a);
    fputs("<html>appended</html>", a);
    fclose(a);
    unpack_fails(&f, NULL, f.archive, "data after the end of the gzip stream", NULL);
}

/* Only the trailer's CRC is wrong: libarchive alone would not notice. */
Test(unpack, gzip_trailer_crc_checked)
{
    fixture f;
    fixture_init(&f);
    ua_suitesparse(f.archive, NAME, f.mtx_src);
    ua_flip_bytes(f.archive, ua_file_size(f.archive) - 8, 1);
    unpack_fails(&f, NULL, f.archive, "corrupt gzip data (incorrect data check)", NULL);
}

/* Megabytes of data after the tar end marker are inflated only up to a
 * bound (16 MiB), not to the end. */
Test(unpack, long_tail_after_tar_refused)
{
    fixture f;
    fixture_init(&f);
    char tar[600];
    tu_path(tar, sizeof tar, f.work, "plain.tar");
    ua_writer *w = ua_open(tar, UA_TAR);
    ua_add_file(w, NAME "/" NAME ".mtx", f.mtx_src);
    ua_close(w);
    size_t len, tail = (size_t)17 << 20;
    char *bytes = ua_load(tar, &len);
    bytes = realloc(bytes, len + tail);
    cr_assert_not_null(bytes);
    memset(bytes + len, 0, tail);
    gzip_to(f.archive, bytes, len + tail, 0);
    free(bytes);
    unpack_fails(&f, NULL, f.archive, "after the end of the tar archive", NULL);
}

Test(unpack, zip_and_cpio_refused)
{
    static const ua_format formats[] = {UA_ZIP, UA_CPIO_GZ};
    for (int i = 0; i < 2; i++) {
        fixture f;
        fixture_init(&f);
        ua_writer *w = ua_open(f.archive, formats[i]);
        ua_add_file(w, NAME "/" NAME ".mtx", f.mtx_src);
        ua_close(w);
        unpack_fails(&f, NULL, f.archive, "is not a tar archive", NULL);
    }
}

Test(unpack, empty_and_missing_archive)
{
    fixture f;
    fixture_init(&f);
    tu_write_file(f.archive, "");
    unpack_fails(&f, NULL, f.archive, "is empty", NULL);
    unlink(f.archive);
    unpack_fails(&f, NULL, f.archive, NULL);
}

/* ---- write errors -------------------------------------------------------- */

/* A 16 KiB file-size limit: the ~98 KB .mtx cannot be written. */
Test(unpack, disk_full_is_a_clear_error)
{
    fixture f;
    fixture_init(&f);
    ua_suitesparse(f.archive, NAME, f.mtx_src);
    char msg[1024], out[600];
    tu_path(out, sizeof out, f.dest, NAME ".mtx");
    cr_assert_eq(unpack_in_child(&f, NULL, 16 << 10, msg, sizeof msg), -1);
    char want[1200];
    snprintf(want, sizeof want, LABEL ": disk full writing %s (File too large)", out);
    cr_assert_str_eq(msg, want);
    assert_dir_is(f.dest, "");
}

Test(unpack, missing_dest_dir)
{
    fixture f;
    fixture_init(&f);
    ua_suitesparse(f.archive, NAME, f.mtx_src);
    char dest[700];
    tu_path(dest, sizeof dest, f.dest, "nope");
    sp_err err = {{0}};
    cr_assert_eq(sp_unpack_suitesparse(f.archive, NAME, LABEL, dest, NULL, NULL, &err), -1);
    cr_assert_not_null(strstr(err.msg, dest), "%s", err.msg);
    assert_dir_is(f.dest, "");
}

Test(unpack, bad_name)
{
    fixture f;
    fixture_init(&f);
    sp_err err = {{0}};
    cr_assert_eq(sp_unpack_suitesparse(f.archive, "../x", NULL, f.dest, NULL, NULL, &err), -1);
    cr_assert_str_eq(err.msg, "../x: '../x' is not a matrix name");
}

/* ---- member paths -------------------------------------------------------- */

Test(unpack, path_normalize_and_role)
{
    char out[64];
    const char *x;
    cr_assert_null(unpack_path_normalize(".//a/./b/", out, sizeof out));
    cr_assert_str_eq(out, "a/b");
    cr_assert_str_eq(unpack_path_normalize("/a", out, sizeof out), "has an absolute path");
    cr_assert_str_eq(unpack_path_normalize("a/../b", out, sizeof out), "has a '..' component");
    cr_assert_str_eq(unpack_path_normalize("..", out, sizeof out), "has a '..' component");
    cr_assert_null(unpack_path_normalize("a/..b/c..", out, sizeof out));
    cr_assert_str_eq(unpack_path_normalize("./", out, sizeof out), "has an empty name");
    cr_assert_str_eq(unpack_path_normalize("", out, sizeof out), "has an empty name");
    cr_assert_str_eq(unpack_path_normalize("abcdefgh/ijklmnop", out, 12), "has a name too long");
    cr_assert_eq(unpack_path_role("m/m.mtx", "m", &x), UNPACK_MTX);
    cr_assert_eq(unpack_path_role("m/m_b.mtx", "m", &x), UNPACK_EXTRA);
    cr_assert_str_eq(x, "m_b.mtx");
    cr_assert_eq(unpack_path_role("mm/m.mtx", "m", &x), UNPACK_SKIP);
    cr_assert_eq(unpack_path_role("m/m.mtx.bak", "m", &x), UNPACK_EXTRA);
    cr_assert_eq(unpack_path_role("m/sub/m.mtx", "m", &x), UNPACK_SKIP);
    cr_assert_eq(unpack_path_role("m", "m", &x), UNPACK_SKIP);
    cr_assert_eq(unpack_path_role("m.mtx", "m", &x), UNPACK_SKIP);
}

Test(unpack, format_bytes)
{
    char b[32];
    unpack_format_bytes((uint64_t)64 << 30, b, sizeof b);
    cr_assert_str_eq(b, "64 GiB");
    unpack_format_bytes((uint64_t)3 << 29, b, sizeof b);
    cr_assert_str_eq(b, "1536 MiB");
    unpack_format_bytes(1000, b, sizeof b);
    cr_assert_str_eq(b, "1000 bytes");
}
