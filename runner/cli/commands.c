/*
 * commands.c — the command table (commands.h): every command's name, help
 * and handler, in the order `spsweep --help` lists them. A new command is
 * its own cmd_NAME.c (its sp_cli_cmd table and its sp_cmd_NAME handler)
 * and one line here.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

const sp_command sp_commands[] = {
    {&sp_cli_sweep, sp_cmd_sweep},          /* cmd_sweep.c */
    {&sp_cli_plan, sp_cmd_plan},            /* cmd_sweep.c */
    {&sp_cli_list, sp_cmd_list},            /* cmd_list.c */
    {&sp_cli_info, sp_cmd_info},            /* cmd_info.c */
    {&sp_cli_fetch, sp_cmd_fetch},          /* cmd_fetch.c */
    {&sp_cli_cache, sp_cmd_cache},          /* cmd_cache.c */
    {&sp_cli_report, sp_cmd_report},        /* cmd_report.c */
    {&sp_cli_export, sp_cmd_export},        /* cmd_export.c */
    {&sp_cli_compare, sp_cmd_compare},      /* cmd_compare.c */
    {&sp_cli_merge, sp_cmd_merge},          /* cmd_merge.c */
    {&sp_cli_slurm, sp_cmd_slurm},          /* cmd_slurm.c */
    {&sp_cli_advise, sp_cmd_advise},        /* cmd_advise.c */
    {&sp_cli_help_cmd, sp_cmd_help},        /* cmd_help.c, below */
};
#define NCOMMANDS ((int)(sizeof sp_commands / sizeof *sp_commands))
const int sp_ncommands = NCOMMANDS;
_Static_assert(NCOMMANDS <= SP_MAX_COMMANDS, "SP_MAX_COMMANDS holds every command");

const sp_command *sp_command_find(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(sp_commands[i].cli->name, name))
            return &sp_commands[i];
    return NULL;
}

/* Every command's table, NULL-terminated. */
void sp_command_tables(const sp_cli_cmd **out)
{
    for (int i = 0; i < NCOMMANDS; i++)
        out[i] = sp_commands[i].cli;
    out[NCOMMANDS] = NULL;
}

/* One line for a command that is none of ours; SP_EXIT_USAGE. */
int sp_command_unknown(const char *name)
{
    const sp_cli_cmd *tables[SP_MAX_COMMANDS + 1];
    sp_command_tables(tables);
    return sp_cli_unknown(tables, name);
}

/* `spsweep help`: the printing is cmd_help.c's, over the tables handed to
 * it, so that it calls nothing back in this file. */
int sp_cmd_help(int argc, char **argv)
{
    const sp_cli_cmd *tables[SP_MAX_COMMANDS + 1];
    sp_command_tables(tables);
    return sp_help_run(tables, argc, argv);
}
