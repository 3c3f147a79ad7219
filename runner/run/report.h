/* report: what the runner prints: the progress line, the final table, `list` and `validate`.
 * (Analysis reads only the HDF5 file; this is for the person at the terminal.) */
#ifndef TILELAB_REPORT_H
#define TILELAB_REPORT_H

#include <stdio.h>

#include "runner/exec/env.h"
#include "runner/exec/result.h"
#include "runner/plan/plan.h"

void report_list_op(FILE *f, const reg_op *op);
/* picks: also each dispatched case's pick, a line each. */
void report_validate(FILE *f, const char *path, const tl_experiment *x, const tl_plan *p, int picks);
void report_header(FILE *f, const tl_experiment *x, const tl_plan *p, const env_info *env, const char *out_path);
/* The progress lines' columns, characters: as wide as the widest text among the cases a run will run (todo), so
 * that their figures line up. */
typedef struct {
    int variant, params, sizes, layout;
} report_widths;
report_widths report_progress_widths(const tl_plan *p, const unsigned char *todo);
void report_progress(FILE *f, const report_widths *w, int done, int total, const tl_result *r, double elapsed_s);
/* variant, params, size, median ms, GFLOP/s, % of the op's library baseline, status. */
void report_table(FILE *f, const tl_experiment *x, const tl_result *res, int n);
/* Number of cases that failed verification or errored; prints their reasons to stderr. */
int report_failures(const tl_result *res, int n);

/* The run's closing line: where its wall time went, phase by phase (its cases', the writer's, the
 * rest; trials only where a case had some); how many of the cases' kernels came from the cache, and how
 * many NVRTC compiled during the run (compiled_ahead of them in the threads that compile ahead, whose
 * cases then read them from the cache; and those its trials compiled themselves, trial_compiled). */
void report_phases(FILE *f, const double *phase_s, double write_s, double wall_s, const tl_result *res, int n,
                   int compiled_ahead);

#endif
