/* testutil.c — helpers shared by the Criterion tests. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "testutil.h"
#include "../runner/exec/harness.h"

void tu_tempdir(char *buf, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, len, "%s/spsweep-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(buf), "mkdtemp %s failed", buf);
}

void tu_path(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

void tu_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

const char *tu_datadir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        char cwd[PATH_MAX];
        cr_assert_not_null(getcwd(cwd, sizeof cwd));
        if (snprintf(dir, sizeof dir, "%s/tests/data", cwd) >= (int)sizeof dir)
            cr_assert_fail("working directory path too long");
    }
    return dir;
}

const char *tu_spsweep_bin(void)
{
    const char *b = getenv("SPSWEEP_BIN");
    return b && *b ? b : "bin/spsweep";
}

double *tu_dense(const sp_csr *A)
{
    double *D = calloc((size_t)A->rows * (size_t)A->cols + 1, sizeof(double));
    cr_assert_not_null(D);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            D[(size_t)i * (size_t)A->cols + (size_t)A->colidx[k]] += A->val[k];
    return D;
}

void tu_gunzip(const char *gz, const char *out)
{
    gzFile in = gzopen(gz, "rb");
    cr_assert_not_null(in, "cannot open %s", gz);
    FILE *f = fopen(out, "wb");
    cr_assert_not_null(f, "cannot create %s", out);
    char buf[65536];
    int n;
    while ((n = gzread(in, buf, sizeof buf)) > 0)
        cr_assert_eq(fwrite(buf, 1, (size_t)n, f), (size_t)n);
    cr_assert_eq(n, 0, "%s: inflate error", gz);
    gzclose(in);
    cr_assert_eq(fclose(f), 0);
}

int tu_run_spsweep(const char *args, char **out)
{
    char *cmd = NULL;
    cr_assert_gt(asprintf(&cmd, "%s %s 2>&1", tu_spsweep_bin(), args), 0);
    FILE *p = popen(cmd, "r");
    free(cmd);
    cr_assert_not_null(p);
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int tu_run_prepare(tu_run *r, const sp_kernel *k, const sp_problem *pb, const sp_params *p,
                   sp_err *err)
{
    memset(r, 0, sizeof *r);
    if (sp_harness_open(&r->h, k, 0, (int)sp_param(p, "threads", 1), err))
        return -1;
    r->open = 1;
    return sp_harness_prepare(&r->h, pb, p, &r->state, &r->ph, err);
}

int tu_run_launch(tu_run *r, double *seconds, sp_err *err)
{
    return sp_harness_sample(&r->h, r->state, 1, seconds, err);
}

int tu_run_result(tu_run *r, void *out, sp_err *err)
{
    return sp_harness_result(&r->h, r->state, out, &r->ph, err);
}

void tu_run_end(tu_run *r)
{
    if (r->open && r->state)
        sp_harness_release(&r->h, r->state, &r->ph);
    if (r->open)
        sp_harness_close(&r->h);
    r->state = NULL;
    r->open = 0;
}

int tu_launch_timed(const sp_kernel *k, void *state, double *seconds, sp_err *err)
{
    sp_harness h;
    if (sp_harness_open(&h, k, 0, 1, err))
        return -1;
    int rc = sp_harness_sample(&h, state, 1, seconds, err);
    sp_harness_close(&h);
    return rc;
}

void tu_spin(double seconds)
{
    double t0 = sp_seconds();
    while (sp_seconds() - t0 < seconds) {
    }
}

static int stderr_saved = -1;
static char stderr_path[1024];

void tu_stderr_begin(const char *dir)
{
    tu_path(stderr_path, sizeof stderr_path, dir, "stderr.log");
    fflush(stderr);
    stderr_saved = dup(STDERR_FILENO);
    int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(stderr_saved >= 0 && fd >= 0 && dup2(fd, STDERR_FILENO) >= 0, "%s",
              stderr_path);
    close(fd);
}

char *tu_stderr_end(void)
{
    fflush(stderr);
    if (stderr_saved >= 0) {
        dup2(stderr_saved, STDERR_FILENO);
        close(stderr_saved);
        stderr_saved = -1;
    }
    return tu_slurp(stderr_path, NULL);
}

int tu_sweep_cli(const char *env, const char *cfg, const char *db)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s sweep %s --db %s --quiet >/dev/null 2>&1", env ? env : "",
             tu_spsweep_bin(), cfg, db);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

char *tu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s cannot be read", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n, "%s", path);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

void tu_csr_from_pairs(sp_csr *A, int32_t rows, int32_t cols, int32_t nnz,
                       const int32_t (*ij)[2])
{
    sp_err err = {{0}};
    cr_assert_eq(sp_csr_alloc(A, rows, cols, nnz, &err), 0);
    for (int32_t k = 0; k < nnz; k++) {
        A->rowptr[ij[k][0] + 1]++;
        A->colidx[k] = ij[k][1];
        A->val[k] = 1.0;
    }
    for (int32_t i = 0; i < rows; i++)
        A->rowptr[i + 1] += A->rowptr[i];
    cr_assert_eq(sp_csr_validate(A, &err), 0, "%s", err.msg);
}

struct criterion_test_params tu_index_params(int n)
{
    /* one table for every caller: each takes its first n entries */
    static int index[256];
    cr_assert(n >= 0 && n <= 256, "%d test parameters", n);
    for (int i = 0; i < 256; i++)
        index[i] = i;
    return cr_make_param_array(int, index, (size_t)n);
}
