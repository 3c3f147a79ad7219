/* runner validate: experiments checked, planned and (with --compile) compiled, without a GPU; and the work
 * it shares with `runner compile`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cmd/cmd.h"
#include "runner/jit/cache.h"
#include "runner/jit/compile.h"
#include "runner/jit/jit_helper.h"
#include "runner/measure/counters.h"
#include "runner/plan/plan.h"
#include "runner/run/report.h"

static const char help[] =
    "Checks each experiment file (every key, type and value, named by file:line:column), expands its\n"
    "plan and prints the case counts, the skipped cases with their reasons, and what the experiment's\n"
    "own kernels compile from. Runs nothing and needs no GPU.\n";

static const char notes[] = "exit codes: 0 every file is valid (and compiles); 2 one is not.\n";

typedef struct {
    int compile;      /* validate: compile the kernels too */
    int arch, jobs;
    const char *chip; /* validate --chip: check counter names against this chip's metric list */
    int picks;        /* validate --picks: each dispatched case's pick */
    char **files;     /* experiment files as given */
    int nfiles;
} check_opts;

static int set_arch(void *opts, const char *v)
{
    check_opts *o = opts;
    char tail;
    if (sscanf(v, "sm_%d%c", &o->arch, &tail) != 1 || o->arch < 50 || o->arch > 200) {
        fprintf(stderr, "runner: --arch takes sm_NN, e.g. sm_90, not '%s'\n", v);
        return -1;
    }
    return 1;
}

/* validate's and compile's options, one table. */
const cmd_option cmd_check_table[] = {
    CMD_FLAG("--compile", check_opts, compile,
             "also compile every kernel with NVRTC (no GPU needed), into the kernel\n"
             "cache; a kernel that does not compile is an error", .only = "validate"),
    CMD_FN("--arch", "sm_NN", set_arch, "the architecture kernels compile for (default sm_90)"),
    CMD_INT("-j", "N", check_opts, jobs, 1, 256, "compiles at once, each in a process of its own, 1 .. 256 (default 1)"),
    CMD_STR("--chip", "CHIP", check_opts, chip,
            "check counter names against that chip's metric list (e.g. GH100; CUPTI's\n"
            "host library, no GPU; `run` checks them against its GPU's)", .only = "validate"),
    CMD_FLAG("--picks", check_opts, picks,
             "what a dispatching variant (sgemm's tuned) runs for each of its cases,\n"
             "from its table (with trials, the other candidates it times)", .only = "validate"),
    CMD_END,
};
static const cmd_option *const options[] = {cmd_check_table, NULL};

/* Options shared by validate and compile; files are the other arguments. */
static int parse_check_args(const char *cmd, int argc, char **argv, check_opts *o)
{
    *o = (check_opts){.arch = 90, .jobs = 1, .files = tl_xcalloc((size_t)argc + 1, sizeof(char *))};
    if (cmd_parse(cmd, options, argc, argv, o, (const char **)o->files, argc, &o->nfiles)) return -1;
    if (o->nfiles == 0) {
        fprintf(stderr, "runner %s: give one or more experiment files\n", cmd);
        return -1;
    }
    return 0;
}

/* validate --chip: the chip's metric list, from CUPTI's host library (no GPU needed). */
static int check_chip(const check_opts *o, const tl_experiment *x, counters_session **s, tl_err *e)
{
    if (!o->chip) return 0;
    if (!*s) *s = counters_open(-1, o->chip);
    if (counters_session_why(*s)) {
        tl_err_set(e, "runner validate: --chip %s: %s", o->chip, counters_session_why(*s));
        return -1;
    }
    return config_check_counters(*s, x, e);
}

/* Loads and plans each file (xs[i], ps[i]); 1 when one of them is bad (its error printed, its xs[i] and ps[i]
 * left empty). */
static int load_all(const check_opts *o, tl_experiment *xs, tl_plan *ps, int print_validate)
{
    int bad = 0;
    double compile_limit = 0;
    counters_session *chip = NULL;
    for (int i = 0; i < o->nfiles; i++) {
        tl_err e;
        plan_limits lim = {0};
        char *path = tl_user_path(o->files[i]);
        if (config_load(path, &xs[i], &e) || plan_expand(&xs[i], &lim, &ps[i], &e) ||
            check_chip(o, &xs[i], &chip, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            plan_free(&ps[i]), config_free(&xs[i]); /* op NULL: nothing of it is compiled */
            bad = 1;
        } else {
            if (xs[i].compile_timeout_s > compile_limit) compile_limit = xs[i].compile_timeout_s;
            if (print_validate) report_validate(stdout, o->files[i], &xs[i], &ps[i], o->picks);
        }
        free(path);
    }
    jit_helper_set_timeout(compile_limit); /* the most generous of the files' (0: the default) */
    counters_close(chip);
    return bad;
}

/* Compiles the kernels of every plan that loaded; 1 when one failed. */
static int compile_all(const check_opts *o, tl_experiment *xs, tl_plan *ps, const char *cmd)
{
    compile_list l = {0};
    char why[512];
    char *cache = cache_dir(why, sizeof why);
    if (!cache && why[0]) fprintf(stderr, "runner %s: kernel cache not used: %s; nothing is cached\n", cmd, why);
    for (int i = 0; i < o->nfiles; i++)
        if (xs[i].op) compile_collect(&xs[i], &ps[i], NULL, 0, &l);
    fprintf(stderr, "runner %s: compiling %d kernels for sm_%d%s%s, %d jobs\n", cmd, l.n, o->arch,
            cache ? " into " : " (no cache folder)", cache ? cache : "", o->jobs);
    double t0 = tl_now_s();
    int failed = compile_run(&l, o->arch, o->jobs, cache, NULL, stderr);
    fprintf(stderr, "runner %s: compiled in %.1f s%s\n", cmd, tl_now_s() - t0, failed ? ", with failures" : "");
    compile_list_free(&l);
    free(cache);
    return failed != 0;
}

/* Bad input, including a kernel that does not compile, is 2. */
int cmd_check_main(const char *cmd, int argc, char **argv)
{
    check_opts o;
    int bad = 1;
    tl_experiment *xs = NULL;
    tl_plan *ps = NULL;
    if (parse_check_args(cmd, argc, argv, &o) == 0) {
        int compile = o.compile || !strcmp(cmd, "compile");
        xs = tl_xcalloc((size_t)o.nfiles, sizeof *xs);
        ps = tl_xcalloc((size_t)o.nfiles, sizeof *ps);
        bad = load_all(&o, xs, ps, !strcmp(cmd, "validate"));
        int loaded = 0;
        for (int i = 0; i < o.nfiles; i++) loaded += xs[i].op != NULL;
        if (compile && loaded) bad |= compile_all(&o, xs, ps, cmd); /* no compile lines when none loaded */
        for (int i = 0; i < o.nfiles; i++) plan_free(&ps[i]), config_free(&xs[i]);
    }
    free(xs), free(ps), free(o.files);
    return bad ? TL_EXIT_BAD_INPUT : TL_EXIT_OK;
}

static int validate_main(int argc, char **argv, const cmd_line *line)
{
    (void)line;
    return cmd_check_main("validate", argc, argv);
}

const cmd_def cmd_validate = {
    .name = "validate",
    .synopsis = "validate EXPERIMENT.yaml... [--compile [--arch sm_90] [-j N]] [--chip CHIP] [--picks]",
    .summary = "check experiment files and print their case counts and skipped cases; runs nothing",
    .help = help,
    .options = options,
    .notes = notes,
    .main = validate_main,
};
