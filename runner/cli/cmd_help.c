/*
 * cmd_help.c — `spsweep help [COMMAND]` and `spsweep help --markdown |
 * --man | --completion`: every command's help printed from the command
 * table (commands.c), as a list, one command's, docs/cli.md, the man page
 * or the bash completion. It prints from the tables it is handed
 * (sp_cmd_help, commands.c) and calls nothing in commands.c.
 */
#include <stdio.h>

#include "../exec/sweep.h"
#include "args.h"
#include "commands.h"

static const sp_cli_opt help_opts[] = {
    {"markdown", NULL, OPT_MARKDOWN, "every command's help as one Markdown page, "
     "docs/cli.md (`make docs` writes it)"},
    {"man", NULL, OPT_MAN, "every command's help as a man page, spsweep(1) in roff "
     "(`make install` installs it)"},
    {"completion", NULL, OPT_COMPLETION, "a bash completion script for the commands, "
     "their options and kernel names (`make install` installs it; zsh loads it through "
     "bashcompinit)"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_help_cmd = {
    .name = "help",
    .synopsis = "[COMMAND]\n--markdown | --man | --completion",
    .summary = "the list of commands, or one command's help",
    .about = "Without COMMAND, the list of commands (as spsweep --help); with one, its "
             "help (as spsweep COMMAND --help).",
    .opts = help_opts,
    .exits = "0 printed; "
             "2 an unknown command, or a command line that cannot be parsed",
    .examples = "sweep\n"
                "--markdown > docs/cli.md\n"
                "--man > spsweep.1 && man ./spsweep.1\n"
                "--completion > ~/.local/share/bash-completion/completions/spsweep",
};

int sp_help_run(const sp_cli_cmd *const *tables, int argc, char **argv)
{
    cli c;
    int rc = sp_args_parse(&sp_cli_help_cmd, argc, argv, &c);
    if (rc)
        return rc < 0 ? 0 : rc;
    int formats = c.markdown + c.man + c.completion;
    if (formats == 1 && !c.nargs) {
        if (c.markdown)
            sp_cli_markdown(tables, stdout);
        else if (c.man)
            sp_cli_man(tables, sp_build_describe[0] ? sp_build_describe : SP_VERSION, stdout);
        else
            sp_cli_completion(tables, sp_kernels, stdout);
        return 0;
    }
    if (c.nargs > 1 || formats) {
        fprintf(stderr, "spsweep help: expected at most one COMMAND, or one of --markdown, "
                        "--man and --completion alone; see `spsweep help --help`\n");
        return SP_EXIT_USAGE;
    }
    if (!c.nargs) {
        sp_cli_overview(tables, stdout);
        return 0;
    }
    const sp_cli_cmd *cmd = sp_cli_find(tables, c.args[0]);
    if (!cmd)
        return sp_cli_unknown(tables, c.args[0]);
    sp_cli_help(cmd, stdout);
    return 0;
}
