/*
 * cli.c — the option tables of cli.h put to work: getopt_long built from
 * a command's table, the one-line errors of a command line that cannot be
 * parsed (with "did you mean"), and the help of a command, of all
 * commands, and docs/cli.md, all printed from the same tables.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/kernel.h"
#include "cli.h"

#define WIDTH 79        /* help lines end before column 80 */
#define OPT_COL 24      /* where an option's meaning starts */
#define VAL_BASE 256    /* getopt's val of table entry i: VAL_BASE + i */

void sp_cli_begin(sp_cli_parser *p, const sp_cli_cmd *cmd)
{
    int n = 0;
    p->cmd = cmd;
    for (const sp_cli_opt *o = cmd->opts; o && o->name && n < SP_CLI_MAX_OPTS; o++, n++)
        p->opts[n] = (struct option){o->name, o->value ? required_argument : no_argument,
                                     NULL, VAL_BASE + n};
    p->opts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    p->opts[n] = (struct option){NULL, 0, NULL, 0};
    optind = 0;         /* GNU: a full restart, permutation state included */
    opterr = 0;
}

/* The one line for an option sp_cli_next cannot take. */
static void bad_option(const sp_cli_parser *p, int c, int argc, char **argv)
{
    const sp_cli_cmd *cmd = p->cmd;
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    char name[128], why[512];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    const struct option *known = optopt >= VAL_BASE ? &p->opts[optopt - VAL_BASE] : NULL;
    if (c == ':' && known)
        snprintf(why, sizeof why, "option '--%s' needs a value (%s)", known->name,
                 cmd->opts[optopt - VAL_BASE].value);
    else if (known)
        snprintf(why, sizeof why, "option '--%s' takes no value", known->name);
    else if (optopt > 0)
        snprintf(why, sizeof why, "unknown option '-%c'", optopt);
    else {
        /* an unknown long option, or a prefix of several */
        const char *word = !strncmp(name, "--", 2) ? name + 2 : name;
        const char *names[SP_CLI_MAX_OPTS + 1] = {NULL};
        char several[256] = "";
        int n = 0, prefixed = 0;
        for (const struct option *o = p->opts; o->name; o++) {
            names[n++] = o->name;
            if (*word && !strncmp(o->name, word, strlen(word)))
                snprintf(several + strlen(several), sizeof several - strlen(several),
                         "%s--%s", prefixed++ ? ", " : "", o->name);
        }
        const char *near = sp_cli_nearest(word, names, n);
        if (prefixed > 1)
            snprintf(why, sizeof why, "ambiguous option '%s' (%s)", name, several);
        else if (near)
            snprintf(why, sizeof why, "unknown option '%s' (did you mean --%s?)", name, near);
        else
            snprintf(why, sizeof why, "unknown option '%s'", name);
    }
    fprintf(stderr, "spsweep %s: %s; see `spsweep %s --help`\n", cmd->name, why, cmd->name);
}

int sp_cli_next(sp_cli_parser *p, int argc, char **argv)
{
    int c = getopt_long(argc, argv, ":h", p->opts, NULL);
    if (c == -1)
        return SP_CLI_END;
    if (c == 'h') {
        sp_cli_help(p->cmd, stdout);
        return SP_CLI_HELP;
    }
    if (c >= VAL_BASE)
        return p->cmd->opts[c - VAL_BASE].id;
    bad_option(p, c, argc, argv);
    return SP_CLI_BAD;
}

/* Print text from column *col, wrapped at WIDTH: words that do not fit
 * start a new line at column indent; '\n' in text breaks the line. */
static void wrap(FILE *out, const char *text, int indent, int *col)
{
    for (const char *s = text; *s;) {
        if (*s == '\n') {
            fputc('\n', out);
            *col = 0;
            s++;
            continue;
        }
        if (*s == ' ') {
            s++;
            continue;
        }
        int len = (int)strcspn(s, " \n");
        if (*col > indent && *col + 1 + len > WIDTH) {
            fputc('\n', out);
            *col = 0;
        }
        if (*col < indent) {
            fprintf(out, "%*s", indent - *col, "");
            *col = indent;
        } else if (*col > indent) {
            fputc(' ', out);
            (*col)++;
        }
        fprintf(out, "%.*s", len, s);
        *col += len;
        s += len;
    }
}

/* A paragraph at indent, ended by a newline. */
static void paragraph(FILE *out, const char *text, int indent)
{
    int col = 0;
    wrap(out, text, indent, &col);
    if (col)
        fputc('\n', out);
}

void sp_cli_help(const sp_cli_cmd *cmd, FILE *out)
{
    const char *s = cmd->synopsis;
    for (int first = 1; first || *s; first = 0) {
        size_t len = strcspn(s, "\n");
        fprintf(out, "%s spsweep %s%s%.*s\n", first ? "usage:" : "      ", cmd->name,
                len ? " " : "", (int)len, s);
        s += len + (s[len] == '\n');
    }
    fputc('\n', out);
    paragraph(out, cmd->about, 0);
    fputs("\noptions:\n", out);
    for (const sp_cli_opt *o = cmd->opts; o && o->name; o++) {
        int col = fprintf(out, "  --%s%s%s", o->name, o->value ? " " : "",
                          o->value ? o->value : "");
        if (col > OPT_COL - 2) {
            fputc('\n', out);
            col = 0;
        }
        wrap(out, o->help, OPT_COL, &col);
        fputc('\n', out);
    }
    int col = fprintf(out, "  -h, --help");
    wrap(out, "this text", OPT_COL, &col);
    fputs("\n\n", out);
    col = fprintf(out, "exit status:");
    wrap(out, cmd->exits, 2, &col);
    fputc('\n', out);
    if (cmd->examples && *cmd->examples) {
        fputs("\nexamples:\n", out);
        for (s = cmd->examples; *s;) {
            size_t len = strcspn(s, "\n");
            fprintf(out, "  spsweep %s %.*s\n", cmd->name, (int)len, s);
            s += len + (s[len] == '\n');
        }
    }
}

static const char overview_head[] =
    "usage: spsweep COMMAND [options] [operands]\n"
    "       spsweep COMMAND --help    one command's options, exit statuses and examples\n"
    "       spsweep help [COMMAND]    the same; without COMMAND, this text\n"
    "       spsweep --version         version, database schema and build options\n";

static const char exit_rule[] =
    "exit status: 0 success; 1 an error, said on stderr; 2 a command line that cannot be "
    "parsed (an unknown command or option, an option without its value), said in one line "
    "on stderr. Some commands give more statuses, or another meaning to 2 (sweep: runs "
    "that failed; merge --shards: shards missing; fetch: names not in the index): see "
    "their --help.";

void sp_cli_overview(const sp_cli_cmd *const *cmds, FILE *out)
{
    fputs(overview_head, out);
    fputs("\ncommands:\n", out);
    for (int i = 0; cmds[i]; i++) {
        int col = fprintf(out, "  %-9s", cmds[i]->name);
        wrap(out, cmds[i]->summary, 12, &col);
        fputc('\n', out);
    }
    fputc('\n', out);
    paragraph(out, exit_rule, 0);
    fputs("The whole command line in one page: docs/cli.md.\n", out);
}

void sp_cli_markdown(const sp_cli_cmd *const *cmds, FILE *out)
{
    fputs("# The spsweep command line\n\n"
          "<!-- Generated by `bin/spsweep help --markdown` (`make docs`) from the "
          "option tables in runner/ that the parser and `--help` use; a test checks that "
          "this file matches. Edit those tables, not this file. -->\n\n"
          "```text\n", out);
    fputs(overview_head, out);
    fputs("```\n\n"
          "Options are long options, `--name VALUE` or `--name=VALUE`, anywhere after the "
          "command, and may be shortened to any prefix that names one option. Every "
          "command takes `--help` (or `-h`) and prints the part of this page that is "
          "its own.\n\n"
          "## Exit status\n\n"
          "| status | meaning |\n| --- | --- |\n"
          "| 0 | success |\n"
          "| 1 | an error: a bad config or option value, a file or database that cannot be "
          "read or written, an interrupted sweep; said on stderr |\n"
          "| 2 | a command line that cannot be parsed: an unknown command or option, an "
          "option without its value; one line on stderr names it and "
          "`spsweep COMMAND --help` |\n\n"
          "Some commands add statuses or give 2 a second meaning, listed in their "
          "sections: `sweep` 2 when the sweep holds runs that failed (counted over the "
          "whole sweep, so a resumed sweep exits as the first run did); `compare` 3 when a "
          "combination is slower; `merge --shards` 2 while shards are missing; `fetch` 2 "
          "for a name not in the index; `list` 1 when no kernel matches.\n\n"
          "## Commands\n\n| command | what it does |\n| --- | --- |\n", out);
    for (int i = 0; cmds[i]; i++)
        fprintf(out, "| [`%s`](#spsweep-%s) | %s |\n", cmds[i]->name, cmds[i]->name,
                cmds[i]->summary);
    for (int i = 0; cmds[i]; i++) {
        fprintf(out, "\n## spsweep %s\n\n```text\n", cmds[i]->name);
        sp_cli_help(cmds[i], out);
        fputs("```\n", out);
    }
}

/* roff text: a leading '.' or '\'' escaped, backslashes doubled, '-' as
 * "\-" (a hyphen that copies and pastes as a minus). */
static void roff(FILE *out, const char *text)
{
    int bol = 1;
    for (const char *p = text; *p; p++) {
        if (bol && (*p == '.' || *p == '\''))
            fputs("\\&", out);
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else
            fputc(*p, out);
        bol = *p == '\n';
    }
}

/* Paragraphs separated by '\n' in text, each a .PP. */
static void roff_paragraphs(FILE *out, const char *text)
{
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), p);
        fputs(".PP\n", out);
        roff(out, buf);
        fputc('\n', out);
        p += n + (p[n] == '\n');
    }
}

void sp_cli_man(const sp_cli_cmd *const *cmds, const char *version, FILE *out)
{
    fputs(".\\\" Generated by `spsweep help --man` from the option tables in runner/.\n", out);
    fprintf(out, ".TH SPSWEEP 1 \"\" \"spsweep ");
    roff(out, version);
    fputs("\" \"User Commands\"\n.SH NAME\nspsweep \\- sweep sparse-matrix kernels over "
          "matrices, formats and axes, and keep every sample in SQLite\n.SH SYNOPSIS\n", out);
    for (int i = 0; cmds[i]; i++) {
        fprintf(out, ".B spsweep %s\n", cmds[i]->name);
        char first[512];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(cmds[i]->synopsis, "\n"),
                 cmds[i]->synopsis);
        roff(out, first);
        fputs("\n.br\n", out);
    }
    fputs(".SH DESCRIPTION\nspsweep runs every kernel, format and axis combination of a "
          "config on every matrix, each checked against a serial double-precision "
          "reference, with every sample stored in a SQLite database; see the README and "
          "docs/ of the source tree.\n.SH COMMANDS\n", out);
    for (int i = 0; cmds[i]; i++) {
        const sp_cli_cmd *c = cmds[i];
        fprintf(out, ".SS spsweep %s\n", c->name);
        roff_paragraphs(out, c->summary);
        roff_paragraphs(out, c->about);
        for (const sp_cli_opt *o = c->opts; o && o->name; o++) {
            fputs(".TP\n.B \\-\\-", out);
            roff(out, o->name);
            if (o->value) {
                fputs(" \\fI", out);
                roff(out, o->value);
                fputs("\\fR", out);
            }
            fputc('\n', out);
            roff(out, o->help);
            fputc('\n', out);
        }
        if (c->exits) {
            fputs(".PP\nExit status: ", out);
            roff(out, c->exits);
            fputc('\n', out);
        }
    }
    fputs(".SH EXIT STATUS\n0 success; 1 an error, said on stderr; 2 a command line that "
          "cannot be parsed. Commands that add statuses say so above.\n"
          ".SH SEE ALSO\nsqlite3(1), gnuplot(1)\n", out);
}

void sp_cli_completion(const sp_cli_cmd *const *cmds, const struct sp_kernel *const *kernels,
                       FILE *out)
{
    fputs("# bash completion for spsweep, generated by `spsweep help --completion` from\n"
          "# the option tables the parser uses (zsh: autoload bashcompinit; bashcompinit).\n"
          "_spsweep()\n{\n    local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}\n"
          "    local opts=\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n        COMPREPLY=($(compgen -W \"", out);
    for (int i = 0; cmds[i]; i++)
        fprintf(out, "%s%s", i ? " " : "", cmds[i]->name);
    fputs(" --help --version\" -- \"$cur\"))\n        return\n    fi\n"
          "    case $cmd in\n", out);
    for (int i = 0; cmds[i]; i++) {
        fprintf(out, "    %s) opts=\"--help", cmds[i]->name);
        for (const sp_cli_opt *o = cmds[i]->opts; o && o->name; o++)
            fprintf(out, " --%s", o->name);
        fputs("\" ;;\n", out);
    }
    fputs("    esac\n    case $cur in\n        kernel=*)\n"
          "            COMPREPLY=($(compgen -P kernel= -W \"", out);
    for (int i = 0; kernels && kernels[i]; i++)
        fprintf(out, "%s%s", i ? " " : "", kernels[i]->name);
    fputs("\" -- \"${cur#kernel=}\"))\n            return ;;\n"
          "        -*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); return ;;\n    esac\n"
          "    COMPREPLY=($(compgen -f -- \"$cur\"))\n}\ncomplete -o filenames -F _spsweep "
          "spsweep\n", out);
}

const sp_cli_cmd *sp_cli_find(const sp_cli_cmd *const *cmds, const char *name)
{
    for (int i = 0; cmds[i]; i++)
        if (!strcmp(cmds[i]->name, name))
            return cmds[i];
    return NULL;
}

int sp_cli_unknown(const sp_cli_cmd *const *cmds, const char *name)
{
    const char *names[64];
    int n = 0;
    for (; cmds[n] && n < (int)(sizeof names / sizeof *names); n++)
        names[n] = cmds[n]->name;
    const char *near = sp_cli_nearest(name, names, n);
    fprintf(stderr, "spsweep: unknown %s '%s'%s%s%s; see `spsweep --help`\n",
            name[0] == '-' ? "option" : "command", name, near ? " (did you mean " : "",
            near ? near : "", near ? "?)" : "");
    return SP_EXIT_USAGE;
}
