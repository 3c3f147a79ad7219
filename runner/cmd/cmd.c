/* The commands, a row each, in the order `runner --help` lists them. A command is its file, cmd_<name>.c,
 * defining `const cmd_def cmd_<name>`, and its row here. */
#include "runner/cmd/cmd.h"

#include <string.h>

#include "runner/util/util.h"

#define CMD_COMMANDS(X) \
    X(run)              \
    X(rerun)            \
    X(extract)          \
    X(merge)            \
    X(submit)           \
    X(validate)         \
    X(compile)          \
    X(table_check)      \
    X(search_replay)    \
    X(list)             \
    X(cache)

#define CMD_DECLARE(name) extern const cmd_def cmd_##name;
CMD_COMMANDS(CMD_DECLARE)
#define CMD_ROW(name) &cmd_##name,
const cmd_def *const cmd_commands[] = {CMD_COMMANDS(CMD_ROW)};
const int cmd_ncommands = (int)(sizeof cmd_commands / sizeof *cmd_commands);

const cmd_def *cmd_find(const char *name)
{
    for (int i = 0; i < cmd_ncommands; i++)
        if (!strcmp(cmd_commands[i]->name, name)) return cmd_commands[i];
    return NULL;
}

void cmd_print_help(FILE *f, const cmd_def *c)
{
    fprintf(f, "usage: runner %s\n\n%s\n\n%s", c->synopsis, c->summary, c->help);
    if (c->help_table) c->help_table(f);
}
