/* test_deps.c — .ci/deps.sh, what `make` runs before it compiles: found
 * by pkg-config, nothing is installed; missing as root with apt-get, only
 * the missing Debian packages are installed; missing as anyone else, the
 * package names for Debian, RHEL (dnf) and Spack are printed and make
 * stops. Slurm and munge belong to no group a build or a sweep checks.
 * apt-get and id are stand-ins on PATH that record how they were called.
 * And ARCH=, the ISA `make` compiles for, as the provenance records it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "util_shards.h"

static char dir[256];

/* A PATH holding `id` answering uid, and `apt-get` writing its arguments
 * to dir/apt.log; then the system's PATH. */
static void stand_ins(int uid)
{
    char path[400], text[400];
    tu_tempdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/id", dir);
    snprintf(text, sizeof text, "#!/bin/sh\necho %d\n", uid);
    tu_write_file(path, text);
    chmod(path, 0755);
    snprintf(path, sizeof path, "%s/apt-get", dir);
    snprintf(text, sizeof text, "#!/bin/sh\necho \"$@\" >> %s/apt.log\n", dir);
    tu_write_file(path, text);
    chmod(path, 0755);
}

/* What the apt-get stand-in was asked, "" when never. */
static char *apt_log(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/apt.log", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    fclose(f);
    return tu_slurp(path, NULL);
}

Test(deps, found_by_pkg_config_nothing_is_installed)
{
    stand_ins(0);
    char *out;
    /* the machine that runs the tests has the build's libraries */
    int rc = us_sh(&out, "PATH=%s:$PATH bash .ci/deps.sh ensure build", dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_str_eq(out, "", "silent when all is there");
    char *log = apt_log();
    cr_assert_str_eq(log, "", "apt-get not called: %s", log);
    free(log);
    free(out);
}

Test(deps, missing_as_non_root_names_the_packages_for_three_systems)
{
    stand_ins(1000);
    char *out;
    int rc = us_sh(&out, "PATH=%s:$PATH PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= "
                   "bash .ci/deps.sh ensure build", dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "not found (pkg-config, commands, Python): sqlite3 inih zlib "
                          "libxxhash libcurl libarchive libcrypto librsb\n"), "%s", out);
    cr_assert(strstr(out, "Debian, Ubuntu: sudo apt-get install libsqlite3-dev libinih-dev "
                          "zlib1g-dev"), "%s", out);
    cr_assert(strstr(out, "RHEL, Fedora:   sudo dnf install sqlite-devel inih-devel"), "%s",
              out);
    cr_assert(strstr(out, "Spack:          spack install sqlite libinih zlib xxhash curl "
                          "libarchive openssl librsb"), "%s", out);
    cr_assert(!strstr(out, "slurm") && !strstr(out, "munge"), "no Slurm to build: %s", out);
    char *log = apt_log();
    cr_assert_str_eq(log, "", "a user's make never runs apt-get: %s", log);
    free(log);
    free(out);
}

Test(deps, missing_as_root_installs_only_what_is_missing)
{
    stand_ins(0);
    char *out;
    /* the apt lists look fresh to it only if they are: no update either way
     * reaches the network, the stand-in takes both calls */
    int rc = us_sh(&out, "PATH=%s:$PATH PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= "
                   "bash .ci/deps.sh ensure build", dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "installing Debian packages: libsqlite3-dev"), "%s", out);
    char *log = apt_log();
    const char *install = strstr(log, "install -y -qq --no-install-recommends libsqlite3-dev "
                                      "libinih-dev zlib1g-dev libxxhash-dev "
                                      "libcurl4-openssl-dev libarchive-dev libssl-dev "
                                      "librsb-dev\n");
    cr_assert_not_null(install, "%s", log);
    cr_assert(!strstr(log, "build-essential") && !strstr(log, "slurm"),
              "only the missing: %s", log);
    free(log);
    free(out);
}

/* `make deps` installs the build's and the tests' packages (Chromium for
 * the test of the report's index.html among them), never Slurm; `make
 * deps-slurm` those of the cluster test alone. */
Test(deps, slurm_only_with_deps_slurm)
{
    stand_ins(0);
    char *out;
    int rc = us_sh(&out, "PATH=%s:$PATH bash .ci/deps.sh install build test", dir);
    cr_assert_eq(rc, 0, "%s", out);
    char *log = apt_log();
    cr_assert(strstr(log, "libcriterion-dev") && strstr(log, "librsb-dev") &&
              strstr(log, " chromium"), "%s", log);
    cr_assert(!strstr(log, "slurm") && !strstr(log, "munge"), "%s", log);
    free(log);
    free(out);
    rc = us_sh(&out, "PATH=%s:$PATH bash .ci/deps.sh install slurm", dir);
    cr_assert_eq(rc, 0, "%s", out);
    log = apt_log();
    cr_assert(strstr(log, "--no-install-recommends slurm-wlm munge\n"), "%s", log);
    free(log);
    free(out);
}

/* ARCH= picks the ISA the kernels are compiled for (a login node building
 * for its compute nodes); the default, native, says in the provenance
 * flags what it meant on the building machine. A throwaway BUILD keeps
 * the real build's flags stamp as it is. */
Test(make_build, arch_chooses_the_isa_and_the_provenance_names_it)
{
    char tmp[256], *out;
    tu_tempdir(tmp, sizeof tmp);
    int rc = us_sh(&out, "make -n --no-print-directory SKIP_DEPS=1 BUILD=%s/b ARCH=x86-64-v3 "
                   "%s/b/obj/fetch/sha256.o", tmp, tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "-DSP_OPT_FLAGS='\"-O3 -march=x86-64-v3\"'") &&
                  strstr(out, " -O3 -march=x86-64-v3 "), "%s", out);
    free(out);
    rc = us_sh(&out, "make -n --no-print-directory SKIP_DEPS=1 BUILD=%s/c %s/c/obj/fetch/sha256.o",
               tmp, tmp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "-DSP_OPT_FLAGS='\"-O3 -march=native (native = "), "%s", out);
    free(out);
    /* the binary under test says it too, as every sweep's sweeps.cflags does */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --version", tu_spsweep_bin());
    rc = us_sh(&out, "%s", cmd);
    cr_assert_eq(rc, 0, "%s", out);
    /* `make asan` builds with its own OPT (-O1, no -march): there the
     * build line names those flags, which is what its sweeps record */
    int sanitized = strstr(out, "-fsanitize") != NULL;
    cr_assert(sanitized || strstr(out, "-march="), "%s", out);
    free(out);
}
