/* runner run: an experiment's cases, verified and timed, into a result file. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cmd/cmd.h"
#include "runner/exec/sanitize.h"
#include "runner/fleet/devices.h"

static const char help[] =
    "Plans the experiment (sizes x layouts x variants x params), compiles every kernel with NVRTC\n"
    "for this GPU, and runs each case: inputs from the experiment's seed, a poisoned and verified\n"
    "run against the op's reference, warm-up, timed repetitions (CUDA events, the L2 flushed\n"
    "outside the timed region) until the median is steady. Each case is committed to the HDF5\n"
    "result file as it ends; a progress line per case on stderr, a table at the end on stdout.\n"
    "`runner EXPERIMENT.yaml` is the same command.\n"
    "\n"
    "Cases whose variants run on the GPU need a CUDA device (cases the plan skips, e.g. a rung\n"
    "that does not take the size, are written down without one); variants of the host target\n"
    "(e.g. experiments/host_smoke.yaml) run anywhere. A variant of your own is declared in the\n"
    "experiment with `source:` (a .cu file in the experiment's folder), `entry:`, `block:`, `grid:`\n"
    "and optionally `smem:` and `requires:` (docs/guide/your-kernels.md). An op of your own is\n"
    "declared with `op:` as a mapping (buffers, inits, signature, work, reference); its variants may\n"
    "be several kernels a run (`kernels:`) or library calls (`library:`; docs/guide/declared-ops.md).\n"
    "A case that runs past `case_timeout_s` (default 120 s + 20 x max_time_s) is recorded as `timeout`\n"
    "and the runner starts again and goes on; SIGTERM and Ctrl-C say how to resume. A kernel whose compile\n"
    "runs past `compile_timeout_s` (default 600 s) fails its own cases.\n";

static const char notes[] =
    "exit codes: 0 every case ok or skipped; 1 a case failed verification, errored or timed out; 2 bad input\n"
    "(including a kernel of the experiment that does not compile): then no result file is written.\n";

static int set_shard(void *opts, const char *v)
{
    run_opts *o = opts;
    char tail;
    if (sscanf(v, "%d/%d%c", &o->shard_index, &o->shard_count, &tail) != 2 || o->shard_count < 1 ||
        o->shard_count > 100000 || o->shard_index < 0 || o->shard_index >= o->shard_count) {
        fprintf(stderr, "runner: --shard takes I/N with 0 <= I < N <= 100000 (e.g. 3/8), not '%s'\n", v);
        return -1;
    }
    snprintf(o->shard_text, sizeof o->shard_text, "%d/%d", o->shard_index, o->shard_count);
    return 1;
}

static int set_retry_failed(void *opts, const char *v)
{
    (void)v;
    run_opts *o = opts;
    o->retry_failed = o->resume = 1;
    return 0;
}

/* The tool is optional: memcheck when the next word is no tool's name (the experiment file, another option). */
static int set_sanitize(void *opts, const char *v)
{
    run_opts *o = opts;
    o->sanitize = v ? (int)sanitize_parse_tool(v) : SANITIZE_NONE;
    if (o->sanitize) return 1;
    if (v && v[0] != '-' && !strstr(v, ".yaml") && !strstr(v, ".yml")) {
        fprintf(stderr, "runner: --sanitize takes memcheck, racecheck, initcheck or synccheck, not '%s'\n", v);
        return -1;
    }
    o->sanitize = SANITIZE_MEMCHECK;
    return 0;
}

const cmd_option cmd_run_table[] = {
    CMD_STR("-o, --output", "FILE", run_opts, output,
            "result file (default: RESULTS_DIR/<name>-<utc>.h5); never overwritten"),
    CMD_STR("--results-dir", "DIR", run_opts, results_dir, "folder for the default file name (default: results)"),
    CMD_FLAG("-q, --quiet", run_opts, quiet, "no progress line per case"),
    CMD_FN("--shard", "I/N", set_shard,
           "run shard I (0-based) of N: disjoint shares balanced by expected time,\n"
           "the same on every machine"),
    CMD_FLAG("--resume", run_opts, resume,
             "continue -o FILE: skip the cases it holds (any status; run's\n"
             "--retry-failed runs the failed ones again); creates FILE\n"
             "when it does not exist. A kill at any moment leaves FILE complete up to\n"
             "the last case written; after a kernel fault that loses the CUDA\n"
             "context, the runner restarts itself this way"),
    CMD_INT("--compile-jobs", "N", run_opts, compile_jobs, 0, 256,
            "threads that compile the run's kernels ahead while the first cases\n"
            "run, each through a helper process of its own: one process's NVRTC\n"
            "compiles one CuTe kernel at a time (default: the CPUs it may use,\n"
            "one a 2 GiB of memory; with --devices, dealt over the workers; 0:\n"
            "each case compiles its own)"),
    CMD_FN("--retry-failed", NULL, set_retry_failed,
           "with -o FILE: as --resume, and the cases FILE holds as failed or timed out\n"
           "run again, once (each earlier attempt is kept under /retried in FILE)", .only = "run"),
    CMD_FN("--sanitize", "[TOOL]", set_sanitize,
           "after each case of a compiled kernel, its verified run again in a child\n"
           "process under compute-sanitizer TOOL: memcheck (the default), racecheck,\n"
           "initcheck or synccheck; kernels built with line info, so reports name\n"
           "your file and line. A finding fails the case (verify_failed), its\n"
           "count and first reports in the file; timings come from the normal run", .only = "run"),
    CMD_STR("--devices", "all|0,2,3", run_opts, devices,
            "run on several GPUs of this machine at once: a worker process per GPU\n"
            "(each case on one GPU, a problem's cases together, shares balanced by\n"
            "expected time), their files in FILE.parts/ merged into FILE at the end;\n"
            "each case names its device. With --resume, goes on after a kill\n"
            "(the workers die with the run; what they wrote is kept)", .only = "run"),
    CMD_FLAG("--local-sources", run_opts, local_sources,
             "compile this runner's own kernels instead of those the file carries", .only = "rerun"),
    CMD_STR("--data", "DIR", run_opts, data_dir,
            "the folder of the data files the file names but does not carry (over\n"
            "64 MiB: `runner extract` lists them), at their paths; each is checked\n"
            "against the SHA-256 the file holds", .only = "rerun"),
    CMD_FLAG("--sanitize-child", run_opts, sanitize_child, "how --sanitize runs a case", .only = "run", .hidden = 1),
    CMD_STR("--worker-cases", "FILE", run_opts, worker_cases, "how --devices starts its workers", .only = "run",
            .hidden = 1),
    CMD_STR("--search-held", "FILE", run_opts, search_held, "a --devices worker's file of what its searches hold",
            .only = "run", .hidden = 1),
    CMD_END,
};

static const cmd_option *const options[] = {cmd_run_table, NULL};

int cmd_run_options(const char *cmd, int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->results_dir = "results";
    o->compile_jobs = -1;
    const char *words[2];
    int nw;
    if (cmd_parse(cmd, options, argc, argv, o, words, 2, &nw)) return -1;
    if (nw == 2) {
        fprintf(stderr, "runner: one experiment per %s (got '%s' and '%s'); validate takes several\n", cmd, words[0],
                words[1]);
        return -1;
    }
    if (nw == 0) {
        fprintf(stderr, "runner: give %s (see runner %s --help)\n",
                strcmp(cmd, "rerun") ? "an experiment file" : "a result file", cmd);
        return -1;
    }
    o->yaml = words[0];
    if (o->resume && !o->output) {
        fprintf(stderr, "runner: %s continues a file: name it with -o FILE\n",
                o->retry_failed ? "--retry-failed" : "--resume");
        return -1;
    }
    if (o->retry_failed && o->devices) {
        fprintf(stderr, "runner: --retry-failed runs on one GPU: drop --devices (the failed cases are few), or "
                        "--resume with --devices to go on without them\n");
        return -1;
    }
    if (o->sanitize && o->sanitize_child) {
        fprintf(stderr, "runner: --sanitize-child is how --sanitize runs a case; give one or the other\n");
        return -1;
    }
    if (o->devices && o->worker_cases) {
        fprintf(stderr, "runner: --worker-cases is how --devices starts its workers; give one or the other\n");
        return -1;
    }
    return 0;
}

static int run_main(int argc, char **argv, const cmd_line *line)
{
    run_opts o;
    tl_experiment x;
    tl_err e;
    if (cmd_run_options("run", argc, argv, &o)) return TL_EXIT_BAD_INPUT;
    char *yaml = tl_user_path(o.yaml);
    int rc = TL_EXIT_BAD_INPUT;
    if (config_load(yaml, &x, &e)) fprintf(stderr, "%s\n", e.msg);
    else if (o.devices) rc = devices_run_experiment(&o, &x, line->argc, line->argv);
    else rc = run_experiment(&o, &x, line->argc, line->argv, NULL);
    config_free(&x);
    free(yaml);
    return rc;
}

const cmd_def cmd_run = {
    .name = "run",
    .synopsis = "run EXPERIMENT.yaml [-o FILE] [--results-dir DIR] [-q] [--shard I/N] [--resume]\n"
                "                  [--retry-failed] [--sanitize [TOOL]] [--compile-jobs N] [--devices all|0,2,3]",
    .summary = "run every case of an experiment: verify, time, write the result file, print a table",
    .help = help,
    .options = options,
    .notes = notes,
    .main = run_main,
};
