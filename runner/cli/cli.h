/*
 * cli.h — one description per subcommand of the command line: its
 * synopsis, every option (name, value, meaning with its default), exit
 * statuses and examples. The same table drives getopt_long and prints
 * `spsweep COMMAND --help` and docs/cli.md (runner/cli/cli.c), so the parser,
 * the help and the manual cannot drift apart.
 *
 * A command's parser:
 *   sp_cli_parser p;
 *   sp_cli_begin(&p, &sp_cli_fetch);
 *   while ((opt = sp_cli_next(&p, argc, argv)) != SP_CLI_END)
 *       switch (opt) {
 *       case F_SELECT: ... optarg ...
 *       case SP_CLI_HELP: return 0;               help printed on stdout
 *       case SP_CLI_BAD: return SP_EXIT_USAGE;   one line printed on stderr
 *       }
 * argv[0] is the command name; the operands end up after optind.
 */
#ifndef SP_CLI_H
#define SP_CLI_H

#include <getopt.h>
#include <stdio.h>
#include "../plan/nearest.h"

/* The exit status of a command line that cannot be parsed: an unknown
 * command or option, an option without its value (docs/cli.md). */
#define SP_EXIT_USAGE 2

/* sp_cli_next's answers besides an option's id (ids are positive). */
#define SP_CLI_END (-1)
#define SP_CLI_HELP (-2)
#define SP_CLI_BAD (-3)

#define SP_CLI_MAX_OPTS 32

typedef struct sp_cli_opt {
    const char *name;   /* long name without "--"; NULL ends a table */
    const char *value;  /* its value's placeholder ("PATH"); NULL: a flag */
    int id;             /* what sp_cli_next returns for it, > 0 */
    const char *help;   /* meaning and default, one paragraph (wrapped when printed) */
} sp_cli_opt;

typedef struct sp_cli_cmd {
    const char *name;       /* "sweep" */
    const char *synopsis;   /* after "spsweep NAME"; '\n' between forms */
    const char *summary;    /* one line for `spsweep --help` */
    const char *about;      /* what it does; '\n' between paragraphs */
    const sp_cli_opt *opts; /* ends with {NULL}; --help is implied */
    const char *exits;      /* the exit statuses: "0 done; 1 an error; ..." */
    const char *examples;   /* command lines, one per line, without "spsweep " */
} sp_cli_cmd;

/* Every command's help as a man page in roff, spsweep(1) (`help --man`):
 * NAME, SYNOPSIS, DESCRIPTION, one subsection per command with its
 * options, EXIT STATUS; version goes in the header. */
void sp_cli_man(const sp_cli_cmd *const *cmds, const char *version, FILE *out);
/* A bash completion script (`help --completion`): the commands, each
 * command's options, kernel names after `--only kernel=` and `--axis`,
 * files elsewhere. kernels: NULL-terminated. */
struct sp_kernel;
void sp_cli_completion(const sp_cli_cmd *const *cmds, const struct sp_kernel *const *kernels,
                       FILE *out);

/* Every command's table, each in its cmd_*.c (runner/cli/commands.c puts
 * them in order); help's is sp_cli_help_cmd, sp_cli_help being the printer. */
extern const sp_cli_cmd sp_cli_sweep, sp_cli_plan, sp_cli_list, sp_cli_info, sp_cli_fetch,
    sp_cli_cache, sp_cli_report, sp_cli_export, sp_cli_compare, sp_cli_merge, sp_cli_slurm,
    sp_cli_advise, sp_cli_help_cmd;

typedef struct sp_cli_parser {
    const sp_cli_cmd *cmd;
    struct option opts[SP_CLI_MAX_OPTS + 2];
} sp_cli_parser;

/* Set up getopt_long for cmd's table (optind reset, getopt's own messages
 * off). */
void sp_cli_begin(sp_cli_parser *p, const sp_cli_cmd *cmd);
/* The next option's id with optarg set; SP_CLI_END after the last one;
 * SP_CLI_HELP for --help or -h, the help printed on stdout; SP_CLI_BAD for
 * an unknown or ambiguous option, a missing value or a value given to a
 * flag, with one line on stderr naming it and `spsweep NAME --help`. */
int sp_cli_next(sp_cli_parser *p, int argc, char **argv);

/* `spsweep NAME --help`: usage, what it does, options, exit statuses,
 * examples, wrapped to 80 columns. */
void sp_cli_help(const sp_cli_cmd *cmd, FILE *out);
/* `spsweep --help`: every command of cmds (NULL-terminated) in one line. */
void sp_cli_overview(const sp_cli_cmd *const *cmds, FILE *out);
/* docs/cli.md: the overview, the exit-status conventions and every
 * command's help, as Markdown. */
void sp_cli_markdown(const sp_cli_cmd *const *cmds, FILE *out);

/* The command of cmds (NULL-terminated) called name, or NULL. */
const sp_cli_cmd *sp_cli_find(const sp_cli_cmd *const *cmds, const char *name);
/* One line on stderr for a name that is none of cmds, with "did you mean";
 * returns SP_EXIT_USAGE. */
int sp_cli_unknown(const sp_cli_cmd *const *cmds, const char *name);

/* "did you mean" (sp_cli_nearest) lives in runner/plan/nearest.h, where the
 * config's checks use it too. */

#endif
