/* cmd: the runner's commands. Each is one file, runner/cmd/cmd_<name>.c, holding its help beside its option
 * parsing and one cmd_def, and a row of the table in cmd.c; main.c dispatches. */
#ifndef TILELAB_CMD_H
#define TILELAB_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "runner/run/run.h"

/* The whole command line as the process got it: what a run records in its session and re-executes. */
typedef struct {
    int argc;
    char **argv;
} cmd_line;

/* One option of a command, a row of its table: the table both parses the command line (cmd_parse) and lists
 * the options in the command's help (cmd_print_help), so that the two cannot drift (git's parse-options). */
typedef enum {
    CMD_OPT_FLAG, /* sets an int to 1 */
    CMD_OPT_STR,  /* sets a const char * to the word after it */
    CMD_OPT_INT,  /* sets an int to the word after it, a whole number in [lo, hi] */
    CMD_OPT_FN    /* fn takes the word after it (or, for an optional argument, the word if there is one) */
} cmd_opt_kind;

typedef struct {
    const char *names;  /* its spellings: "-o, --output" */
    const char *arg;    /* what follows it, as the help shows it: "FILE"; "[TOOL]": optional (CMD_OPT_FN decides);
                         * NULL: nothing (a flag) */
    const char *help;   /* what it does; lines joined by "\n" */
    cmd_opt_kind kind;
    size_t at;          /* offsetof what it sets in the command's options struct (FLAG, STR, INT) */
    long lo, hi;        /* CMD_OPT_INT: the range */
    /* CMD_OPT_FN: value (NULL when an optional argument is absent) into opts; 1 when it took value, 0 when it
     * did not (an optional argument that is the next word instead), -1 after saying on stderr what is wrong. */
    int (*fn)(void *opts, const char *value);
    const char *only;   /* in a table commands share, the one command it belongs to (NULL: each of them) */
    int hidden;         /* how the runner starts its own workers and children: parsed, not listed */
} cmd_option;

/* Rows, each with what it sets in a struct of type T; more fields after (.only = "run", .hidden = 1). */
#define CMD_FLAG(names_, T, field, help_, ...) \
    {.names = names_, .help = help_, .kind = CMD_OPT_FLAG, .at = offsetof(T, field), __VA_ARGS__}
#define CMD_STR(names_, arg_, T, field, help_, ...) \
    {.names = names_, .arg = arg_, .help = help_, .kind = CMD_OPT_STR, .at = offsetof(T, field), __VA_ARGS__}
#define CMD_INT(names_, arg_, T, field, lo_, hi_, help_, ...)                                                 \
    {.names = names_, .arg = arg_, .help = help_, .kind = CMD_OPT_INT, .at = offsetof(T, field), .lo = lo_, \
     .hi = hi_, __VA_ARGS__}
#define CMD_FN(names_, arg_, fn_, help_, ...) \
    {.names = names_, .arg = arg_, .help = help_, .kind = CMD_OPT_FN, .fn = fn_, __VA_ARGS__}
#define CMD_END {.names = NULL}

/* Reads argv with the tables (a NULL-ended list, each table ended by a row of NULL names): the options into
 * opts, the other words into words (at most nwords of them, *nw in all). -1 after saying on stderr what is
 * wrong, naming cmd. */
int cmd_parse(const char *cmd, const cmd_option *const *tables, int argc, char **argv, void *opts, const char **words,
              int nwords, int *nw);

typedef struct {
    const char *name;     /* the word: "validate" */
    const char *synopsis; /* its usage after "runner ": "validate EXPERIMENT.yaml... [--compile ...]" */
    const char *summary;  /* one line for `runner --help` */
    const char *help;     /* the rest of `runner NAME --help`: what it does */
    const cmd_option *const *options; /* its options' tables (NULL-ended; NULL: none), listed after help */
    const char *notes;    /* after the options (exit codes ...), or NULL */
    void (*help_table)(FILE *f); /* last, where a list comes from a table (NULL: none) */
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

/* run's and rerun's options (cmd_run.c), one table: each takes the rows that are not another's. */
extern const cmd_option cmd_run_table[];
/* Parses run's or rerun's command line (cmd: "run" or "rerun") into o: -1 after saying what is wrong. */
int cmd_run_options(const char *cmd, int argc, char **argv, run_opts *o);

/* validate's and compile's options (cmd_validate.c), one table. */
extern const cmd_option cmd_check_table[];
/* validate's and compile's work (cmd_validate.c): parses their options (compile takes --arch and -j only),
 * loads and plans each file, prints validate's report, compiles when asked; the exit code. */
int cmd_check_main(const char *cmd, int argc, char **argv);

#endif
