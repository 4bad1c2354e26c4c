/*
 * commands.h — the commands whose files are their own (runner/cli/cmd_*.c):
 * each takes the command line with argv[0] its name and returns the exit
 * status. main.c puts them in the command table.
 */
#ifndef SP_COMMANDS_H
#define SP_COMMANDS_H

/* `spsweep fetch ...`, `spsweep cache ...` and `spsweep list ...`
 * (runner/cli/cmd_fetch.c, cmd_cache.c, cmd_list.c): argv[0] is the command
 * name; return the exit status. */
int sp_cmd_list(int argc, char **argv);
int sp_cmd_fetch(int argc, char **argv);
int sp_cmd_cache(int argc, char **argv);
/* `spsweep slurm ...`, `spsweep merge ...` (both forms)
 * (runner/cli/cmd_slurm.c, cmd_merge.c): same convention. `spsweep sweep
 * --gpus ...` is sp_cmd_sweep_gpus (runner/scale/shards.h). */
int sp_cmd_slurm(int argc, char **argv);
int sp_cmd_merge(int argc, char **argv);
/* `spsweep compare A.db B.db ...` (runner/cli/cmd_compare.c): same convention;
 * 3 when a combination is slower in B. */
int sp_cmd_compare(int argc, char **argv);

#endif
