/* run: one experiment run, from its plan to its result file (the commands run and rerun), or spread over
 * the GPUs of this machine (run --devices, runner/fleet/devices.h).
 *
 * A run on one GPU (or the host) is one run_state, taken through its phases in order: plan (again with the
 * device's facts once there is one), prepare (counters, the kernel cache, this run's share of the cases, the
 * experiment's own kernels compiled: an error until here is bad input and writes nothing), open (the GPU
 * set-up, the result file, the cases it already holds), the cases (each committed as it ends, a kernel
 * fault that loses the CUDA context re-executing the runner to resume), the closing table. */
#ifndef TILELAB_RUN_H
#define TILELAB_RUN_H

#include "runner/config/config.h"
#include "runner/plan/plan.h"

typedef struct {
    const char *yaml;          /* the experiment file (rerun: the result file) as given */
    const char *output;        /* -o FILE, or NULL: RESULTS_DIR/<name>-<utc>.h5 */
    const char *results_dir;
    int quiet;                 /* no progress line per case */
    int resume;                /* continue -o FILE: skip the cases it holds */
    int shard_index, shard_count; /* --shard i/N (count 0: every case) */
    char shard_text[32];       /* "i/N", or "" */
    int local_sources;         /* rerun: this runner's kernels, not the file's */
    const char *data_dir;      /* rerun --data: the folder of the data files the result file did not carry */
    int compile_jobs;          /* threads compiling ahead; -1: the default */
    const char *devices;       /* --devices: "all" or "0,2,3"; NULL: one device */
    const char *worker_cases;  /* a --devices worker: the file of the case ids it runs */
    const char *search_held;   /* a --devices worker of a search: the run's file, which holds what earlier
                                * sessions evaluated of its problems' searches (its own file: this session's) */
    int retry_failed;          /* with --resume: run again the cases the file holds as failed or timed out */
    int sanitize;              /* --sanitize: a runner/exec/sanitize.h tool (0: none) */
    int sanitize_child;        /* how --sanitize runs a case: its verified run only, with line info, no restarts */
    const char *cases_of;      /* rerun of a file a search made: only the cases that file holds run (in plan
                                * order, no new search); NULL: the share as planned */
} run_opts;

/* Plans x, runs this run's share of its cases and writes the file; argc and argv: the whole command line
 * (recorded in the session, and how the runner starts again after a lost context); rerun_of: what a rerun
 * names as its source, else NULL. The exit code. */
int run_experiment(const run_opts *o, tl_experiment *x, int argc, char **argv, const char *rerun_of);

/* What a run over several GPUs (runner/fleet/devices.h) takes from a run's: */
/* the output path: -o as given, else RESULTS_DIR/<name>-<utc>.h5 (its folder created if missing); */
char *run_output_path(const run_opts *o, const tl_experiment *x, tl_err *e);
/* whether a case of p runs on the GPU (one the plan skipped for a reason of its own, not of the device's, is
 * written down without one); */
int run_needs_gpu(const tl_plan *p);
/* the run's share of p's cases (its shard; a --devices worker's, of those), per case 1 = run it here, or NULL
 * with e; */
unsigned char *run_share_of(const run_opts *o, const tl_plan *p, tl_err *e);
/* the folder of the workers' files for result file out (a new string): a run into out that finds it refuses to
 * start unless it continues the run over several GPUs. */
char *run_parts_dir(const char *out);

#endif
