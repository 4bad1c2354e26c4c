/*
 * commands.h — the command table (runner/cli/commands.c): one entry per
 * command, its table (name, one-line summary, options, help: cli.h) and
 * its handler, in the order `spsweep --help` lists them. main.c dispatches
 * through it, `spsweep help` prints from it. Every command is its own
 * cmd_NAME.c: the sp_cli_cmd table and the handler below, which takes the
 * command line with argv[0] the command's name and returns the exit status.
 */
#ifndef SP_COMMANDS_H
#define SP_COMMANDS_H

#include "cli.h"

typedef struct sp_command {
    const sp_cli_cmd *cli;
    int (*run)(int argc, char **argv);  /* argv[0] = the command's name */
} sp_command;

/* The table and its length; SP_MAX_COMMANDS bounds it (for buffers). */
extern const sp_command sp_commands[];
extern const int sp_ncommands;
#define SP_MAX_COMMANDS 32
/* The command called name, or NULL. */
const sp_command *sp_command_find(const char *name);
/* Every command's table, NULL-terminated (out holds SP_MAX_COMMANDS + 1). */
void sp_command_tables(const sp_cli_cmd **out);
/* One line for a command that is none of ours, with "did you mean";
 * SP_EXIT_USAGE. */
int sp_command_unknown(const char *name);

/* The handlers. sweep and plan (cmd_sweep.c; `sweep --gpus` then goes to
 * sp_cmd_sweep_gpus, runner/scale/gpus.c), info, report, export, help
 * (commands.c). */
int sp_cmd_sweep(int argc, char **argv);
int sp_cmd_plan(int argc, char **argv);
int sp_cmd_info(int argc, char **argv);
int sp_cmd_report(int argc, char **argv);
int sp_cmd_export(int argc, char **argv);
int sp_cmd_help(int argc, char **argv);
/* `spsweep help` over the commands' tables (NULL-terminated), as
 * sp_cmd_help (commands.c) hands them over (cmd_help.c). */
int sp_help_run(const sp_cli_cmd *const *tables, int argc, char **argv);
/* list, fetch, cache (cmd_list.c, cmd_fetch.c, cmd_cache.c). */
int sp_cmd_list(int argc, char **argv);
int sp_cmd_fetch(int argc, char **argv);
int sp_cmd_cache(int argc, char **argv);
/* slurm, merge (both forms: cmd_merge.c), compare (3 when a combination
 * is slower in B). */
int sp_cmd_slurm(int argc, char **argv);
int sp_cmd_merge(int argc, char **argv);
int sp_cmd_compare(int argc, char **argv);
/* advise (runner/cli/cmd_advise.c; 3 when nothing close is known) */
int sp_cmd_advise(int argc, char **argv);

#endif
