/* cmd: a command's option table both parses its command line and lists its options in its help, so the two
 * agree for every command: each option the help lists parses, each hidden one parses and is not listed, an
 * option of another command sharing the table is refused with whose it is, and bad values name the option. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cmd/cmd.h"
#include "runner/testing/testutil.h"

static char *help_of(const cmd_def *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cmd_print_help(f, c);
    fclose(f);
    return text;
}

/* Whether help has a line that starts with label (two spaces, the option and its argument) and goes on. */
static int listed(const char *help, const char *label)
{
    size_t n = strlen(label);
    for (const char *at = strstr(help, label); at; at = strstr(at + 1, label))
        if ((at == help || at[-1] == '\n') && (at[n] == ' ' || at[n] == '\n')) return 1;
    return 0;
}

/* The value each kind of argument takes here. */
static const char *value_for(const cmd_option *o)
{
    if (!o->arg || o->arg[0] == '[') return NULL;
    if (!strcmp(o->arg, "I/N")) return "1/4";
    if (!strcmp(o->arg, "sm_NN")) return "sm_90";
    if (!strcmp(o->arg, "higher")) return "higher";
    if (o->kind == CMD_OPT_INT) return "1";
    if (!strcmp(o->names, "--seed")) return "7";
    return "x";
}

/* Every command: each option of its tables that is its own parses (with a value where it takes one) and the help
 * lists it unless hidden; one of another command is refused. */
static int check_each_option_parses_and_is_listed(void)
{
    int n = 0;
    for (int i = 0; i < cmd_ncommands; i++) {
        const cmd_def *c = cmd_commands[i];
        char *help = help_of(c);
        for (int t = 0; c->options && c->options[t]; t++)
            for (const cmd_option *o = c->options[t]; o->names; o++) {
                const char *first = o->names, *comma = strchr(first, ',');
                char word[64];
                snprintf(word, sizeof word, "%.*s", (int)(comma ? (size_t)(comma - first) : strlen(first)), first);
                char label[96];
                snprintf(label, sizeof label, "  %s%s%s", o->names, o->arg ? " " : "", o->arg ? o->arg : "");
                int mine = !o->only || !strcmp(o->only, c->name);
                n++;
                CHECK(listed(help, label) == (mine && !o->hidden), "%s --help: %s listed %d, hidden %d, its own %d",
                      c->name, label, listed(help, label), o->hidden, mine);
                char opts[4096] = {0};
                const char *words[4];
                int nw;
                char *argv[2] = {word, (char *)value_for(o)};
                FILE *saved = stderr;
                stderr = fopen("/dev/null", "w");
                int rc = cmd_parse(c->name, c->options, argv[1] ? 2 : 1, argv, opts, words, 4, &nw);
                fclose(stderr);
                stderr = saved;
                n++;
                CHECK((rc == 0) == mine && (rc != 0 || nw == 0), "%s %s %s: rc %d, %d words", c->name, word,
                           argv[1] ? argv[1] : "", rc, nw);
            }
        free(help);
    }
    return n;
}

typedef struct {
    int flag, num;
    const char *str;
} toy_opts;

static const cmd_option toy[] = {
    CMD_FLAG("-f, --flag", toy_opts, flag, "a flag"),
    CMD_INT("--num", "N", toy_opts, num, 1, 9, "a number"),
    CMD_STR("--str", "S", toy_opts, str, "a string,\nover two lines"),
    CMD_FLAG("--theirs", toy_opts, flag, "another command's", .only = "other"),
    CMD_END,
};
static const cmd_option *const toys[] = {toy, NULL};

static int parse_toy(const char *line, toy_opts *o, const char **words, int *nw, char *err, size_t n)
{
    char buf[256], *argv[16];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 16; w = strtok(NULL, " ")) argv[argc++] = w;
    memset(o, 0, sizeof *o);
    char *text = NULL;
    size_t len = 0;
    FILE *saved = stderr;
    stderr = open_memstream(&text, &len);
    int rc = cmd_parse("toy", toys, argc, argv, o, words, 2, nw);
    fclose(stderr);
    stderr = saved;
    snprintf(err, n, "%s", text ? text : "");
    free(text);
    return rc;
}

static int check_parse(void)
{
    int n = 0;
    toy_opts o;
    const char *w[2];
    int nw;
    char err[512];
    n++;
    CHECK(parse_toy("a.yaml -f --num 3 --str s b.yaml", &o, w, &nw, err, sizeof err) == 0 && o.flag && o.num == 3 &&
                   !strcmp(o.str, "s") && nw == 2 && !strcmp(w[0], "a.yaml") && !strcmp(w[1], "b.yaml"),
               "a full line: %s", err);
    n++;
    CHECK(parse_toy("--flag", &o, w, &nw, err, sizeof err) == 0 && o.flag, "the long spelling: %s", err);
    n++;
    CHECK(parse_toy("--num 10", &o, w, &nw, err, sizeof err) && strstr(err, "runner toy: --num takes N, a whole "
                                                                             "number 1 .. 9, not '10'"), "%s", err);
    n++;
    CHECK(parse_toy("--num 3x", &o, w, &nw, err, sizeof err) && strstr(err, "not '3x'"), "%s", err);
    n++;
    CHECK(parse_toy("--str", &o, w, &nw, err, sizeof err) && strstr(err, "unknown or incomplete option '--str'"),
               "%s", err);
    n++;
    CHECK(parse_toy("--frob", &o, w, &nw, err, sizeof err) && strstr(err, "unknown or incomplete option '--frob'"),
               "%s", err);
    n++;
    CHECK(parse_toy("--theirs", &o, w, &nw, err, sizeof err) && strstr(err, "--theirs belongs to other"), "%s", err);
    n++;
    CHECK(parse_toy("a b c", &o, w, &nw, err, sizeof err) && strstr(err, "too many words ('c'"), "%s", err);
    /* The help: each line of an option's text at column 24, a long label on a line of its own. */
    cmd_def c = {.name = "toy", .synopsis = "toy", .summary = "s", .help = "h\n", .options = toys};
    char *help = help_of(&c);
    n++;
    CHECK(strstr(help, "\noptions:\n  -f, --flag            a flag\n  --num N               a number\n"
                            "  --str S               a string,\n                        over two lines\n") &&
                   !strstr(help, "--theirs"),
               "help:\n%s", help);
    free(help);
    return n;
}

int main(void)
{
    int total = 0;
    total += check_parse();
    total += check_each_option_parses_and_is_listed();
    return TEST_REPORT(total);
}
