#include "runner/cmd.h"

#include "runner/util.h"

void cmd_print_help(FILE *f, const cmd_def *c)
{
    fprintf(f, "usage: runner %s\n\n%s\n\n%s", c->synopsis, c->summary, c->help);
    if (c->help_table) c->help_table(f);
}
