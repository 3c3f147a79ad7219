/* runner submit: a sweep as a Slurm job array of shards and a merge job after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/cmd/cmd.h"
#include "runner/fleet/devices.h"
#include "runner/fleet/submit.h"
#include "runner/plan/plan.h"

static const char help[] =
    "Writes OUT.sweep/ (a copy of the experiment folder, array.sbatch, merge.sbatch, submit.sh, logs/)\n"
    "and runs submit.sh: a job array whose task i runs shard i of N with --resume into\n"
    "OUT.sweep/shard-i.h5, and a merge job (--dependency=afterok on the array) that writes OUT.h5.\n"
    "Prints the job ids and where the result will be. A task with a failed case exits 1, so Slurm\n"
    "cancels the merge; `sh OUT.sweep/submit.sh` resubmits, every shard resuming its file. The runner\n"
    "path in the scripts must be reachable from the compute nodes (the portable bundle on a shared\n"
    "file system, or --runner).\n";

/* An absolute version of a user path (relative to where the user stands). */
static char *absolute(const char *path)
{
    char *p = tl_user_path(path), cwd[4096];
    if (p[0] == '/' || !getcwd(cwd, sizeof cwd)) return p;
    char *a = tl_xasprintf("%s/%s", cwd, p);
    free(p);
    return a;
}

/* Values that go into #SBATCH lines: no spaces, quotes or newlines. */
static int slurm_value_ok(const char *opt, const char *v)
{
    if (v[0] && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:=/+-") == strlen(v)) return 1;
    fprintf(stderr, "runner submit: %s '%s': letters, digits and _.,:=/+- only\n", opt, v);
    return 0;
}

/* The command line, apart from what it means for the sweep. */
typedef struct {
    submit_opts so;
    const char *yaml, *output, *results_dir, *runner;
} submit_args;

static const cmd_option table[] = {
    CMD_INT("--shards", "N", submit_args, so.shards, 1, 100000, "tasks of the array, 1 .. 100000 (required)"),
    CMD_STR("--partition", "P", submit_args, so.partition, "the array's #SBATCH --partition"),
    CMD_STR("--gres", "G", submit_args, so.gres, "the array's #SBATCH --gres"),
    CMD_STR("--time", "T", submit_args, so.time, "the array's #SBATCH --time"),
    CMD_STR("--account", "A", submit_args, so.account,
            "the array's #SBATCH --account (these four: letters, digits and _.,:=/+- only)"),
    CMD_INT("--max-parallel", "K", submit_args, so.max_parallel, 0, 100000,
            "at most K tasks of the array at once (0: no limit)"),
    CMD_INT("--gpus-per-task", "G", submit_args, so.gpus_per_task, 1, DEVICES_MAX,
            "each task asks for G GPUs (gres gpu:G unless --gres) and runs its shard on\n"
            "all of them (run --devices all)"),
    CMD_STR("-o, --output", "OUT.h5", submit_args, output, "the merged file (default: RESULTS_DIR/<name>-<utc>.h5)"),
    CMD_STR("--results-dir", "DIR", submit_args, results_dir, "folder for the default name (default: results)"),
    CMD_STR("--runner", "PATH", submit_args, runner, "the runner the scripts call (default: this one)"),
    CMD_FLAG("--dry-run", submit_args, so.dry_run, "print the scripts, submit nothing"),
    CMD_END,
};
static const cmd_option *const options[] = {table, NULL};

/* -1 after saying what is wrong. */
static int parse_args(int argc, char **argv, submit_args *sa)
{
    submit_opts *so = &sa->so;
    sa->results_dir = "results";
    const char *words[2];
    int nw;
    if (cmd_parse("submit", options, argc, argv, sa, words, 2, &nw)) return -1;
    if (nw == 2) {
        fprintf(stderr, "runner submit: one experiment per sweep (got '%s' and '%s')\n", words[0], words[1]);
        return -1;
    }
    sa->yaml = nw ? words[0] : NULL;
    if (!sa->yaml || so->shards < 1 || so->shards > 100000 || so->max_parallel < 0) {
        fprintf(stderr, "runner submit: usage: submit EXPERIMENT.yaml --shards N (1..100000) [--max-parallel K] ...\n");
        return -1;
    }
    if ((so->partition && !slurm_value_ok("--partition", so->partition)) ||
        (so->gres && !slurm_value_ok("--gres", so->gres)) || (so->time && !slurm_value_ok("--time", so->time)) ||
        (so->account && !slurm_value_ok("--account", so->account)))
        return -1;
    return 0;
}

/* Plans the experiment (so a bad file fails here, not in the array), then submits the array and its merge. */
static int submit_main(int argc, char **argv, const cmd_line *line)
{
    (void)line;
    submit_args sa = {0};
    int rc = TL_EXIT_BAD_INPUT;
    if (parse_args(argc, argv, &sa)) return rc;
    submit_opts so = sa.so;
    const char *yaml = sa.yaml, *output = sa.output, *results_dir = sa.results_dir, *runner = sa.runner;
    tl_experiment x;
    tl_plan p = {0};
    tl_err e;
    plan_limits lim = {0};
    char *path = tl_user_path(yaml), *out = NULL, *dir = NULL, *self = NULL;
    if (config_load(path, &x, &e) || plan_expand(&x, &lim, &p, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        goto done;
    }
    if (so.shards > p.ncases)
        fprintf(stderr, "runner submit: warning: %d shards for %d cases: %d shards will have nothing to run\n",
                so.shards, p.ncases, so.shards - p.ncases);
    if (output) {
        out = absolute(output);
    } else {
        char stamp[32], *rd = absolute(results_dir);
        tl_utc_stamp(stamp, 0);
        out = tl_xasprintf("%s/%s-%s.h5", rd, x.name, stamp);
        free(rd);
    }
    size_t n = strlen(out);
    dir = n > 3 && !strcmp(out + n - 3, ".h5") ? tl_xasprintf("%.*s.sweep", (int)(n - 3), out) : tl_xasprintf("%s.sweep", out);
    self = runner ? absolute(runner) : realpath("/proc/self/exe", NULL);
    if (!self) {
        fprintf(stderr, "runner submit: cannot find this runner's path; give it with --runner\n");
        goto done;
    }
    /* A path in the scripts: single-quoted in their commands; in the #SBATCH lines, which Slurm reads with its
     * own rules (% a pattern, a blank the end), it must need no quoting at all. */
    const char *bad = NULL, *what = NULL;
    for (const char *const *pp = (const char *const[]){self, out, path, NULL}; *pp && !bad; pp++)
        for (const char *c = *pp; *c && !bad; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) bad = *pp, what = "a control character (a newline?)";
    for (const char *c = dir; *c && !bad; c++)
        if (strchr(" \t'\"\\%#", *c)) bad = dir, what = "a blank, a quote, '\\', '%' or '#', which an #SBATCH line cannot hold";
    if (bad) {
        char *shown = tl_shown(bad);
        fprintf(stderr, "runner submit: '%s' holds %s: choose another path (-o, --runner)\n", shown, what);
        free(shown);
        goto done;
    }
    struct stat st;
    if (!so.dry_run && stat(out, &st) == 0) {
        fprintf(stderr, "runner submit: %s exists; result files are never overwritten (choose another -o)\n", out);
        goto done;
    }
    so.runner = self, so.output = out, so.dir = dir;
    if (submit_sweep(&x, &so, &e)) {
        fprintf(stderr, "runner submit: %s\n", e.msg);
        rc = TL_EXIT_FAILED;
        goto done;
    }
    rc = TL_EXIT_OK;
done:
    plan_free(&p);
    config_free(&x);
    free(path), free(out), free(dir), free(self);
    return rc;
}

const cmd_def cmd_submit = {
    .name = "submit",
    .synopsis = "submit EXPERIMENT.yaml --shards N [--partition P] [--gres gpu:1] [--time T] [--account A]\n"
                "                     [--max-parallel K] [--gpus-per-task G] [-o OUT.h5] [--runner PATH] [--dry-run]",
    .summary = "a Slurm job array, a shard a task each resuming its own file, and a merge job after it",
    .help = help,
    .options = options,
    .main = submit_main,
};
