/* submit: a sweep as a Slurm job array. One task per shard runs
 *   runner run SWEEP/experiment/experiment.yaml --shard $SLURM_ARRAY_TASK_ID/N --resume -o SWEEP/shard-<i>.h5
 * (with --devices all when a task has several GPUs: its shard over the GPUs Slurm gave it)
 * and a merge job that depends on the whole array (afterok) writes the result file. Everything a
 * resubmission needs is in the sweep folder: `sh SWEEP/submit.sh` again resumes every shard. The
 * experiment travels as a folder, SWEEP/experiment/: the YAML and the kernel sources of its own
 * variants, so compute nodes need nothing but the runner. */
#ifndef TILELAB_SUBMIT_H
#define TILELAB_SUBMIT_H

#include "runner/config/config.h"

typedef struct {
    int shards;
    const char *partition, *gres, *time, *account; /* NULL: Slurm's defaults */
    int max_parallel;                               /* 0: no limit */
    int gpus_per_task;                              /* 0: one GPU, the task's default */
    const char *runner;                             /* the runner the jobs run (absolute path) */
    const char *output;                             /* the merged result file (absolute path) */
    const char *dir;                                /* the sweep folder (absolute path) */
    int dry_run;
} submit_opts;

typedef struct {
    char *experiment; /* SWEEP/experiment/experiment.yaml: the experiment as submitted */
    char *array;      /* array.sbatch */
    char *merge;      /* merge.sbatch */
    char *submit;     /* submit.sh: submits both, prints the job ids */
} submit_scripts;

/* The scripts' texts (file names are in o->dir). */
void submit_render(const tl_experiment *x, const submit_opts *o, submit_scripts *s);
void submit_scripts_free(submit_scripts *s);
/* Writes the sweep folder, then (unless dry_run) runs submit.sh; prints what it did to stdout. */
int submit_sweep(const tl_experiment *x, const submit_opts *o, tl_err *e);

#endif
