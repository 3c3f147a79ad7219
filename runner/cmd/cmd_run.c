/* runner run: an experiment's cases, verified and timed, into a result file. */
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
    "runs past `compile_timeout_s` (default 600 s) fails its own cases.\n"
    "\n"
    CMD_RUN_OPTIONS_HELP
    "  --retry-failed        with -o FILE: as --resume, and the cases FILE holds as failed or timed out\n"
    "                        run again, once (each earlier attempt is kept under /retried in FILE)\n"
    "  --sanitize [TOOL]     after each case of a compiled kernel, its verified run again in a child\n"
    "                        process under compute-sanitizer TOOL: memcheck (the default), racecheck,\n"
    "                        initcheck or synccheck; kernels built with line info, so reports name\n"
    "                        your file and line. A finding fails the case (verify_failed), its\n"
    "                        count and first reports in the file; timings come from the normal run\n"
    "  --devices all|0,2,3   run on several GPUs of this machine at once: a worker process per GPU\n"
    "                        (each case on one GPU, a problem's cases together, shares balanced by\n"
    "                        expected time), their files in FILE.parts/ merged into FILE at the end;\n"
    "                        each case names its device. With --resume, goes on after a kill\n"
    "                        (the workers die with the run; what they wrote is kept)\n"
    "\n"
    "exit codes: 0 every case ok or skipped; 1 a case failed verification, errored or timed out; 2 bad input\n"
    "(including a kernel of the experiment that does not compile): then no result file is written.\n";

int cmd_run_options(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->results_dir = "results";
    o->compile_jobs = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) o->output = argv[++i];
        else if (!strcmp(a, "--results-dir") && i + 1 < argc) o->results_dir = argv[++i];
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o->quiet = 1;
        else if (!strcmp(a, "--resume")) o->resume = 1;
        else if (!strcmp(a, "--retry-failed")) o->retry_failed = o->resume = 1;
        else if (!strcmp(a, "--sanitize-child")) o->sanitize_child = 1;
        else if (!strcmp(a, "--sanitize")) {
            /* The tool is optional: memcheck when the next word is no tool's name. */
            o->sanitize = i + 1 < argc ? (int)san_parse_tool(argv[i + 1]) : SAN_NONE;
            if (o->sanitize) i++;
            else if (i + 1 < argc && argv[i + 1][0] != '-' && !strstr(argv[i + 1], ".yaml") &&
                     !strstr(argv[i + 1], ".yml")) {
                fprintf(stderr, "runner: --sanitize takes memcheck, racecheck, initcheck or synccheck, not '%s'\n",
                        argv[i + 1]);
                return -1;
            } else {
                o->sanitize = SAN_MEMCHECK;
            }
        }
        else if (!strcmp(a, "--local-sources")) o->local_sources = 1;
        else if (!strcmp(a, "--data") && i + 1 < argc) o->data_dir = argv[++i];
        else if (!strcmp(a, "--devices") && i + 1 < argc) o->devices = argv[++i];
        else if (!strcmp(a, "--worker-cases") && i + 1 < argc) o->worker_cases = argv[++i];
        else if (!strcmp(a, "--search-held") && i + 1 < argc) o->search_held = argv[++i];
        else if (!strcmp(a, "--compile-jobs") && i + 1 < argc) {
            char tail;
            const char *v = argv[++i];
            if (sscanf(v, "%d%c", &o->compile_jobs, &tail) != 1 || o->compile_jobs < 0 || o->compile_jobs > 256) {
                fprintf(stderr, "runner: --compile-jobs takes a number of threads 0 .. 256, not '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--shard") && i + 1 < argc) {
            char tail;
            const char *v = argv[++i];
            if (sscanf(v, "%d/%d%c", &o->shard_index, &o->shard_count, &tail) != 2 || o->shard_count < 1 ||
                o->shard_count > 100000 || o->shard_index < 0 || o->shard_index >= o->shard_count) {
                fprintf(stderr, "runner: --shard takes I/N with 0 <= I < N <= 100000 (e.g. 3/8), not '%s'\n", v);
                return -1;
            }
            snprintf(o->shard_text, sizeof o->shard_text, "%d/%d", o->shard_index, o->shard_count);
        } else if (a[0] == '-') {
            fprintf(stderr, "runner: unknown or incomplete option '%s' (see runner run --help)\n", a);
            return -1;
        } else if (!o->yaml) {
            o->yaml = a;
        } else {
            fprintf(stderr, "runner: one experiment per run (got '%s' and '%s'); validate takes several\n", o->yaml, a);
            return -1;
        }
    }
    if (!o->yaml) {
        fprintf(stderr, "runner: give an experiment file (see runner run --help)\n");
        return -1;
    }
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
    if (cmd_run_options(argc, argv, &o)) return TL_EXIT_BAD_INPUT;
    if (o.local_sources || o.data_dir) {
        fprintf(stderr, "runner: %s belongs to rerun (a run reads its sources and data files from the experiment's "
                        "folder)\n", o.local_sources ? "--local-sources" : "--data");
        return TL_EXIT_BAD_INPUT;
    }
    char *yaml = tl_user_path(o.yaml);
    int rc = TL_EXIT_BAD_INPUT;
    if (config_load(yaml, &x, &e)) fprintf(stderr, "%s\n", e.msg);
    else if (o.devices) rc = dev_run_experiment(&o, &x, line->argc, line->argv);
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
    .main = run_main,
};
