/* devices: one run over several GPUs of this machine (`run --devices`). A worker process per GPU runs
 * its share of the plan (a problem's cases together, balanced by the cost model) into its own result
 * file in OUT.parts/ (run_parts_dir), crash-safe and resumable like any run; at the end the parts and OUT
 * (when resuming) are merged into OUT, which appears complete or not at all. A kill -9 of the run kills its
 * workers and loses nothing: `--resume` counts the cases the parts hold. */
#ifndef TILELAB_DEVICES_H
#define TILELAB_DEVICES_H

#include "runner/plan/plan.h"
#include "runner/run/run.h"

#define DEVICES_MAX 64

typedef struct {
    int n;
    int ord[DEVICES_MAX]; /* CUDA ordinals, as the run sees them (CUDA_VISIBLE_DEVICES applies) */
    int simulated;    /* TILELAB_TEST_DEVICES: devices without CUDA, for host-target cases (tests) */
} devices_list;

/* "all" or a list "0,2,3" -> ordinals, checked against this machine's devices. -1 with e. */
int devices_parse(const char *spec, devices_list *d, tl_err *e);

typedef struct {
    const char *runner;     /* this binary, for the workers (/proc/self/exe) */
    const char *argv0;      /* how the user called it, for the workers' recorded command lines */
    const char *yaml;       /* the experiment as given (the workers run in this folder) */
    const char *out;        /* the result file */
    const char *shard_text; /* the run's --shard ("" for none), given to the workers */
    const char *argv_text;  /* the run's command line, recorded by the merge */
    int resume, quiet;
    int compile_jobs;       /* the run's compile threads (-1: the default), shared over the workers */
    const char *sanitize;   /* --sanitize's tool for the workers, or NULL */
} devices_opts;

/* Runs the cases with share[i] of p over the devices into o->out; the exit code (TL_EXIT_*). */
int devices_run(const devices_opts *o, const devices_list *d, const tl_experiment *x, const tl_plan *p, const unsigned char *share);

/* run --devices: a worker process a GPU; this process plans (without device facts, as shards do), hands out the
 * cases and merges, and uses no GPU. The exit code. */
int devices_run_experiment(const run_opts *o, tl_experiment *x, int argc, char **argv);

#endif
