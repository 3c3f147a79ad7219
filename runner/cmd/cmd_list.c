/* runner list: the registry's ops, their kernel signatures and variants; the counter sets. */
#include <stdio.h>
#include <string.h>

#include "runner/cmd/cmd.h"
#include "runner/measure/counters.h"
#include "runner/ops/registry_lookup.h"
#include "runner/run/report.h"

static const char help[] =
    "Prints the registry (kernels/<op>/<op>.c), the one table the runner, the tests and the docs\n"
    "read: each op's axes, operands, dtypes, tolerance and the kernel signature a variant of your own\n"
    "must take, then each variant with its params, their defaults and its constraints.\n"
    "\n"
    "  runner list           every op\n"
    "  runner list OP        one op (the ops below)\n"
    "  runner list counters  the counter sets (below): their metrics and what each means\n";

/* The ops and the counter sets, from their tables: an op or a set added there is listed here. */
static void help_table(FILE *f)
{
    fprintf(f, "\nops:");
    for (int i = 0; i < reg_nops; i++) fprintf(f, "%s %s", i ? "," : "", reg_ops[i]->name);
    fprintf(f, "\ncounter sets:");
    for (int i = 0, n = 0; i < counters_nsets; i++)
        if (i == 0 || strcmp(counters_sets[i].set, counters_sets[i - 1].set)) fprintf(f, "%s %s", n++ ? "," : "", counters_sets[i].set);
    fprintf(f, "\n");
}

static void list_counters(FILE *f)
{
    fprintf(f, "counter sets (`counters:` in an experiment or a variant; any CUPTI metric name too):\n");
    for (int i = 0; i < counters_nsets; i++) {
        if (i == 0 || strcmp(counters_sets[i].set, counters_sets[i - 1].set)) fprintf(f, "\n  %s\n", counters_sets[i].set);
        fprintf(f, "    %-56s %s\n", counters_sets[i].metric, counters_sets[i].meaning);
    }
    fprintf(f, "\nEvery collection adds %s (the kernels' time under the profiler, ns). Over the kernels of\n"
               "one run, .sum, .max and .min metrics combine as they say; the others as means weighted by the\n"
               "kernels' durations.\n", COUNTERS_DURATION);
}

static int list_main(int argc, char **argv, const cmd_line *line)
{
    (void)line;
    if (argc > 1) {
        fprintf(stderr, "runner list: takes at most one op name, or `counters`\n");
        return TL_EXIT_BAD_INPUT;
    }
    if (argc == 1 && !strcmp(argv[0], "counters")) {
        list_counters(stdout);
        return TL_EXIT_OK;
    }
    if (argc == 1 && !reg_find_op(argv[0])) {
        fprintf(stderr, "runner list: unknown op '%s'\n", argv[0]);
        return TL_EXIT_BAD_INPUT;
    }
    for (int i = 0; i < reg_nops; i++) {
        const reg_op *op = reg_ops[i];
        if (argc == 1 && strcmp(op->name, argv[0])) continue;
        report_list_op(stdout, op);
    }
    return TL_EXIT_OK;
}

const cmd_def cmd_list = {
    .name = "list",
    .synopsis = "list [OP | counters]",
    .summary = "the ops, the kernel signature of each, their variants, params, defaults and constraints",
    .help = help,
    .help_table = help_table,
    .main = list_main,
};
