/*
 * report_manifest.c — the report owns the files it wrote into its output
 * folder, and only those. Every file it writes (rp_create, and the PNGs,
 * report.pdf and gnuplot.log gnuplot writes) is recorded, and the list is
 * left in out_dir/report-files.txt. The next report into that folder first
 * removes the files listed there, so a chart of a matrix or a page the
 * new database does not have does not stay beside the new report; a file
 * the report did not write (the user's) is never touched. Only plain names
 * with the report's characters and suffixes are removed, so an edited list
 * cannot reach another folder or a database.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_impl.h"

#define MANIFEST "report-files.txt"

/* Remember that the report writes out_dir/name (once). */
int rp_manifest_add(rp_report *r, const char *name, sp_err *err)
{
    for (int i = 0; i < r->nfiles; i++)
        if (!strcmp(r->files[i], name))
            return 0;
    if (r->nfiles == r->files_cap) {
        int cap = r->files_cap ? 2 * r->files_cap : 64;
        char **grown = realloc(r->files, (size_t)cap * sizeof *grown);
        if (!grown)
            return sp_fail(err, "report: out of memory for %d file names", cap);
        r->files = grown;
        r->files_cap = cap;
    }
    if (!(r->files[r->nfiles] = strdup(name)))
        return sp_fail(err, "report: out of memory");
    r->nfiles++;
    return 0;
}

/* A name the report could have written: [A-Za-z0-9_.-] (file names are
 * made by rp_sanitize), not hidden, one of the report's suffixes. */
static int reportable(const char *name)
{
    static const char *const suffixes[] = {".png", ".gp", ".dat", ".tsv", ".pdf", ".log",
                                           ".csv", ".md", ".tex", ".svg", ".html"};
    size_t n = strlen(name);
    if (n == 0 || name[0] == '.' ||
        strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != n)
        return 0;
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && !strcmp(name + n - k, suffixes[i]))
            return 1;
    }
    return 0;
}

/* Remove out_dir/name; a file already gone is fine. */
static int remove_old(const rp_report *r, const char *name, sp_err *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", r->out_dir, name) >= sizeof path)
        return sp_fail(err, "%s/%s: path too long", r->out_dir, name);
    if (unlink(path) != 0 && errno != ENOENT)
        return sp_fail(err, "%s: cannot remove the previous report's file: %s", path,
                       strerror(errno));
    return 0;
}

/* Remove the files the previous report listed in out_dir, then the list. */
int rp_manifest_clear(const rp_report *r, sp_err *err)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/%s", r->out_dir, MANIFEST);
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : sp_fail(err, "%s: %s", path, strerror(errno));
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (reportable(line))
            rc = remove_old(r, line, err);
    }
    fclose(f);
    return rc ? -1 : remove_old(r, MANIFEST, err);
}

/* Write the list of the files this report wrote. */
int rp_manifest_write(rp_report *r, sp_err *err)
{
    FILE *f = rp_create(r, MANIFEST, err);
    if (!f)
        return -1;
    fprintf(f, "# spsweep report: the files this report wrote into this folder. The next\n"
               "# report here removes them before it writes; other files are left alone.\n");
    for (int i = 0; i < r->nfiles; i++)
        if (strcmp(r->files[i], MANIFEST))
            fprintf(f, "%s\n", r->files[i]);
    return rp_finish(f, r, MANIFEST, err);
}

/* Open out_dir/name for writing; the name goes into the manifest first,
 * so that even a half-written file is removed by the next report. */
FILE *rp_create(rp_report *r, const char *name, sp_err *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", r->out_dir, name) >= sizeof path) {
        sp_fail(err, "%s/%s: path too long", r->out_dir, name);
        return NULL;
    }
    if (rp_manifest_add(r, name, err))
        return NULL;
    FILE *f = fopen(path, "w");
    if (!f)
        sp_fail(err, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

/* Close a file from rp_create; a write error anywhere in it is reported. */
int rp_finish(FILE *f, const rp_report *r, const char *name, sp_err *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return sp_fail(err, "%s/%s: write failed: %s", r->out_dir, name,
                       errno ? strerror(errno) : "I/O error");
    return 0;
}
