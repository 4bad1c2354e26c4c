/*
 * cmd_export.c — `spsweep export --csv|--json|--markdown|--gbench
 * [options]`: one table or view of a sweep on stdout (db/export.c renders
 * it).
 */
#include <stdio.h>
#include <string.h>

#include "../../db/store.h"
#include "args.h"
#include "commands.h"

static const sp_cli_opt export_opts[] = {
    {"csv", NULL, OPT_CSV, "CSV (RFC 4180) with a header line, as the sqlite3 shell's "
     "`.mode csv` writes it"},
    {"json", NULL, OPT_JSON, "a JSON array of objects, one per row; the JSON-valued "
     "columns (axes, kernel_info) as JSON objects"},
    {"markdown", NULL, OPT_MARKDOWN, "a Markdown table: a header row, then one row per "
     "row of the table or view (reals with 6 significant digits, '|' escaped)"},
    {"gbench", NULL, OPT_GBENCH, "Google Benchmark's JSON format, for its "
     "tools/compare.py and CI dashboards: one entry per ok run named "
     "kernel/matrix/axis=value..., the median as its time, the rate and the interval "
     "as counters, and the mean, median, stddev and cv aggregates (run_stats only)"},
    {"time-unit", "ns|us|ms|s|auto", OPT_TIME_UNIT, "--gbench's time unit (default auto: "
     "the largest in which the fastest run reads at least 100); give two exports the "
     "same unit to compare them with compare.py"},
    {"db", "PATH", OPT_DB, "results database (default results/results.db)"},
    {"sweep", "ID", OPT_SWEEP, "the sweep to export (default: the latest)"},
    {"what", "NAME", OPT_WHAT, "the table or view: run_stats (default), runs, samples, "
     "speedup, best_runs, run_modes, failures, matrices, sweeps, advise_rates or "
     "advice_outcome"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_export = {
    .name = "export",
    .synopsis = "--csv|--json|--markdown [options]\n--gbench [--time-unit UNIT] [options]",
    .summary = "a sweep's statistics (or another table) as CSV, JSON, Markdown or Google "
               "Benchmark JSON on stdout",
    .about = "Writes one table or view of a sweep to stdout, rendered by SQLite; the "
             "database is opened read-only (docs/database.md describes every view and "
             "each format). python/spsweep_results.py loads a database into Python "
             "records or a pandas DataFrame with one column per axis.",
    .opts = export_opts,
    .exits = "0 exported; "
             "1 not exactly one of --csv, --json, --markdown and --gbench, or the "
             "database, sweep or table cannot be read; "
             "2 a command line that cannot be parsed",
    .examples = "--csv > stats.csv\n"
                "--json --what failures --sweep 3\n"
                "--markdown --what best_runs\n"
                "--gbench --time-unit us > new.json",
};

static int cmd_export(const cli *c)
{
    sp_err err;
    const char *db = c->db ? c->db : "results/results.db";
    if (c->csv + c->json + c->markdown + c->gbench != 1)
        return sp_args_die("export expects exactly one of --csv, --json, --markdown and --gbench");
    if (c->nargs)
        return sp_args_die("export takes no arguments besides its options (see spsweep export "
                   "--help)");
    if (c->time_unit && !c->gbench)
        return sp_args_die("--time-unit goes with --gbench");
    if (c->gbench && c->what && strcmp(c->what, "run_stats"))
        return sp_args_die("--gbench exports run_stats only (not --what)");
    int rc = c->gbench ? sp_store_export_gbench(db, c->sweep, c->time_unit, stdout, &err)
                       : sp_store_export(db, c->what, c->sweep,
                                         c->json       ? SP_EXPORT_JSON
                                         : c->markdown ? SP_EXPORT_MARKDOWN
                                                       : SP_EXPORT_CSV,
                                         stdout, &err);
    return rc ? sp_args_die(err.msg) : 0;
}

int sp_cmd_export(int argc, char **argv)
{
    return sp_args_run(&sp_cli_export, cmd_export, argc, argv);
}
