/*
 * cmd_report.c — `spsweep report [options]`: the charts and tables of one
 * sweep of a results database (plots/report.h does the drawing).
 */
#include <stdio.h>

#include "../../plots/report.h"
#include "args.h"
#include "commands.h"

static const sp_cli_opt report_opts[] = {
    {"db", "PATH", OPT_DB, "results database (default results/results.db)"},
    {"out", "DIR", OPT_OUT, "where the charts and report.pdf go (default "
     "results/report)"},
    {"sweep", "ID", OPT_SWEEP, "the sweep to report (default: the latest)"},
    {"base", "OLD.db", OPT_BASE, "add a change table: each combination faster, slower, "
     "same or noisy against the same one in OLD.db, as `spsweep compare` judges it"},
    {"base-sweep", "ID", OPT_BASE_SWEEP, "the sweep of OLD.db to compare with (default: "
     "its latest)"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_report = {
    .name = "report",
    .synopsis = "[options]",
    .summary = "charts (PNG, report.pdf, index.html) and tables from a results database",
    .about = "Draws the charts and tables of one sweep of the database with gnuplot: one "
             "PNG per chart, report.pdf with all of them, and index.html, the same as one "
             "self-contained web page with sortable tables (docs/report.md).",
    .opts = report_opts,
    .exits = "0 the report was written; "
             "1 the database or sweep cannot be read, or a chart cannot be drawn; "
             "2 a command line that cannot be parsed",
    .examples = "--db results/results.db --out results/report\n"
                "--db new.db --base old.db",
};

static int cmd_report(const cli *c)
{
    sp_err err;
    const char *db = c->db ? c->db : "results/results.db";
    const char *out = c->out ? c->out : "results/report";
    if (c->nargs)
        return sp_args_die("report takes no arguments besides --db, --out, --sweep, --base and "
                   "--base-sweep");
    sp_report_opts ro = {.sweep_id = c->sweep, .base_db = c->base, .base_sweep_id = c->base_sweep,
                         .log = stderr};
    if (sp_report_run(db, out, &ro, &err))
        return sp_args_die(err.msg);
    printf("report written to %s/ (report.pdf, index.html and one PNG per chart)\n", out);
    return 0;
}

int sp_cmd_report(int argc, char **argv)
{
    return sp_args_run(&sp_cli_report, cmd_report, argc, argv);
}
