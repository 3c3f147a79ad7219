/* cmd: the runner's commands. Each is one file, runner/cmd/cmd_<name>.c, holding its help beside its option
 * parsing and one cmd_def, and a row of the table in cmd.c; main.c dispatches. */
#ifndef TILELAB_CMD_H
#define TILELAB_CMD_H

#include <stdio.h>

#include "runner/run/run.h"

/* The whole command line as the process got it: what a run records in its session and re-executes. */
typedef struct {
    int argc;
    char **argv;
} cmd_line;

typedef struct {
    const char *name;     /* the word: "validate" */
    const char *synopsis; /* its usage after "runner ": "validate EXPERIMENT.yaml... [--compile ...]" */
    const char *summary;  /* one line for `runner --help` */
    const char *help;     /* the rest of `runner NAME --help`: what it does, its options */
    void (*help_table)(FILE *f); /* after help, where a list comes from a table (NULL: none) */
    /* argc, argv: the words after the command's own; line: the whole command line. The exit code. */
    int (*main)(int argc, char **argv, const cmd_line *line);
} cmd_def;

/* The commands, in the order `runner --help` lists them (cmd.c). */
extern const cmd_def *const cmd_commands[];
extern const int cmd_ncommands;
/* The command named name, or NULL. */
const cmd_def *cmd_find(const char *name);

/* `runner NAME --help`: its usage line, its summary, its help (and its table's). */
void cmd_print_help(FILE *f, const cmd_def *c);

/* run's and rerun's options (cmd_run.c): -1 after saying what is wrong. Their help, written once: */
int cmd_run_options(int argc, char **argv, run_opts *o);
#define CMD_RUN_OPTIONS_HELP \
    "options:\n" \
    "  -o, --output FILE     result file (default: RESULTS_DIR/<name>-<utc>.h5); never overwritten\n" \
    "  --results-dir DIR     folder for the default file name (default: results)\n" \
    "  -q, --quiet           no progress line per case\n" \
    "  --shard I/N           run shard I (0-based) of N: disjoint shares balanced by expected time,\n" \
    "                        the same on every machine\n" \
    "  --resume              continue -o FILE: skip the cases it holds (any status; run's\n" \
    "                        --retry-failed runs the failed ones again); creates FILE\n" \
    "                        when it does not exist. A kill at any moment leaves FILE complete up to\n" \
    "                        the last case written; after a kernel fault that loses the CUDA\n" \
    "                        context, the runner restarts itself this way\n" \
    "  --compile-jobs N      threads that compile the run's kernels ahead while the first cases\n" \
    "                        run, each through a helper process of its own: one process's NVRTC\n" \
    "                        compiles one CuTe kernel at a time (default: the CPUs it may use,\n" \
    "                        one a 2 GiB of memory; with --devices, dealt over the workers; 0:\n" \
    "                        each case compiles its own)\n"

/* validate's and compile's work (cmd_validate.c): parses their options (compile takes --arch and -j only),
 * loads and plans each file, prints validate's report, compiles when asked; the exit code. */
int cmd_check_main(const char *cmd, int argc, char **argv);

#endif
