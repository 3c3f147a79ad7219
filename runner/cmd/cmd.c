/* The commands, a row each, in the order `runner --help` lists them. A command is its file, cmd_<name>.c,
 * defining `const cmd_def cmd_<name>`, and its row here. */
#include "runner/cmd/cmd.h"

#include <stdio.h>
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

/* ---- options ------------------------------------------------------------------------------------- */

static int takes_arg(const cmd_option *o)
{
    return o->arg && o->arg[0] != '[';
}

/* Whether word is one of o's spellings ("-o, --output"). */
static int spelled(const cmd_option *o, const char *word)
{
    size_t n = strlen(word);
    for (const char *s = o->names; *s;) {
        size_t len = strcspn(s, ",");
        if (len == n && !strncmp(s, word, n)) return 1;
        s += len;
        s += strspn(s, ", ");
    }
    return 0;
}

static const cmd_option *find_option(const cmd_option *const *tables, const char *word)
{
    for (int t = 0; tables && tables[t]; t++)
        for (const cmd_option *o = tables[t]; o->names; o++)
            if (spelled(o, word)) return o;
    return NULL;
}

static int set_option(const char *cmd, const cmd_option *o, const char *word, const char *value, void *opts)
{
    char *at = (char *)opts + o->at;
    switch (o->kind) {
    case CMD_OPT_FLAG:
        *(int *)at = 1;
        return 0;
    case CMD_OPT_STR:
        *(const char **)at = value;
        return 1;
    case CMD_OPT_INT: {
        long v;
        char tail;
        if (sscanf(value, "%ld%c", &v, &tail) != 1 || v < o->lo || v > o->hi) {
            fprintf(stderr, "runner %s: %s takes %s, a whole number %ld .. %ld, not '%s'\n", cmd, word, o->arg, o->lo,
                    o->hi, value);
            return -1;
        }
        *(int *)at = (int)v;
        return 1;
    }
    case CMD_OPT_FN:
        return o->fn(opts, value);
    }
    return -1;
}

int cmd_parse(const char *cmd, const cmd_option *const *tables, int argc, char **argv, void *opts, const char **words,
              int nwords, int *nw)
{
    *nw = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            if (*nw >= nwords) {
                fprintf(stderr, "runner %s: too many words ('%s'; see runner %s --help)\n", cmd, a, cmd);
                return -1;
            }
            words[(*nw)++] = a;
            continue;
        }
        const cmd_option *o = find_option(tables, a);
        if (o && o->only && strcmp(o->only, cmd)) {
            fprintf(stderr, "runner %s: %s belongs to %s (see runner %s --help)\n", cmd, a, o->only, cmd);
            return -1;
        }
        if (!o || (takes_arg(o) && i + 1 >= argc)) {
            fprintf(stderr, "runner %s: unknown or incomplete option '%s' (see runner %s --help)\n", cmd, a, cmd);
            return -1;
        }
        const char *value = o->arg && i + 1 < argc ? argv[i + 1] : NULL;
        int took = set_option(cmd, o, a, value, opts);
        if (took < 0) return -1;
        i += took;
    }
    return 0;
}

static void print_options(FILE *f, const char *cmd, const cmd_option *const *tables)
{
    fprintf(f, "\noptions:\n");
    for (int t = 0; tables[t]; t++)
        for (const cmd_option *o = tables[t]; o->names; o++) {
            if (o->hidden || (o->only && strcmp(o->only, cmd))) continue;
            char label[64];
            snprintf(label, sizeof label, "%s%s%s", o->names, o->arg ? " " : "", o->arg ? o->arg : "");
            fprintf(f, "  %-20s", label);
            if (strlen(label) > 20) fprintf(f, "\n%22s", "");
            /* Each line of the help at column 24. */
            for (const char *s = o->help; *s;) {
                size_t len = strcspn(s, "\n");
                fprintf(f, "  %.*s\n", (int)len, s);
                s += len;
                if (*s == '\n' && *++s) fprintf(f, "%22s", "");
            }
        }
}

void cmd_print_help(FILE *f, const cmd_def *c)
{
    fprintf(f, "usage: runner %s\n\n%s\n\n%s", c->synopsis, c->summary, c->help);
    if (c->options) print_options(f, c->name, c->options);
    if (c->notes) fprintf(f, "\n%s", c->notes);
    if (c->help_table) c->help_table(f);
}
