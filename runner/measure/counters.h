/* counters: hardware counters per case, collected with CUPTI's range profiler (CUDA 13) in a pass of
 * their own after the timed repetitions. libcupti is loaded with dlopen: a node without it still
 * measures, and each case says why it has no counters.
 *
 * Config side (no CUDA needed): metric names as Nsight Compute writes them (`dram__bytes_read.sum`)
 * and named sets that expand to them (counters_sets, the one table `list counters`, docs/guide/counters.md and the
 * analysis read). */
#ifndef TILELAB_COUNTERS_H
#define TILELAB_COUNTERS_H

#include <stddef.h>

#include "runner/util/util.h"

#define COUNTERS_MAX 64          /* metrics one case may collect */
#define COUNTERS_MAX_KERNELS 256 /* kernels one run of a variant may launch and still be profiled */
#define COUNTERS_MAX_PASSES 64   /* replays of one run the metrics may need */

/* The metric every collection adds: per-kernel durations weigh the kernels of a run (see below). */
#define COUNTERS_DURATION "gpu__time_duration.sum"

/* One metric of a named set, with what it tells. */
typedef struct {
    const char *set;     /* memory | smem | occupancy | roofline */
    const char *metric;  /* Nsight Compute / CUPTI name */
    const char *meaning; /* one line for list and docs/guide/counters.md */
} counters_set_metric;

extern const counters_set_metric counters_sets[];
extern const int counters_nsets; /* rows of counters_sets */

/* The counters a variant collects: names expanded from sets, deduplicated, in order. */
typedef struct {
    char **names;  /* metric names */
    int *line;     /* where each was named in the experiment file (1-based; a set's own position) */
    int *col;
    int n;
    char *text;    /* as written, comma-separated ("memory, dram__bytes.sum"); "" when none */
} counters_list;

/* Adds item (a set name or a metric name) to l, from line:col. -1 with e ("what is wrong") when it
 * is neither a set nor a well-formed metric name, or l is full. */
int counters_list_add(counters_list *l, const char *item, int line, int col, tl_err *e);
void counters_list_copy(counters_list *dst, const counters_list *src);
void counters_list_free(counters_list *l);
/* 1 when name looks like a metric (unit__counter[.rollup[.submetric...]]). */
int counters_name_ok(const char *name);

/* How a metric's per-kernel values combine over the kernels of one run: .sum, .max, .min as they say;
 * every other metric (averages, ratios, rates, percentages) as the mean weighted by kernel duration. */
typedef enum { COUNTERS_SUM, COUNTERS_MAX_OF, COUNTERS_MIN_OF, COUNTERS_WEIGHTED } counters_combine;
counters_combine counters_combine_of(const char *name);
/* Combines values[k * stride] for k < nkernels, weights[k] the kernels' durations. */
double counters_combine_values(counters_combine how, const double *values, size_t stride, const double *weights, int nkernels);

/* ---- CUPTI ---------------------------------------------------------------------------------- */

typedef struct counters_session counters_session;

/* What one case collected. status: "ok"; or why not: "not_permitted" (profiling is for admins only),
 * "cupti_missing", "unavailable" (no GPU, host target, no driver support), "unsupported" (a metric
 * this chip lacks), "no_kernels" (the run launched none: cudaMemcpy), "not_run" (the case did not
 * measure), "error" (CUPTI failed; reason says how). */
typedef struct {
    const char *status;
    char *reason;     /* NULL when ok */
    int n;            /* metrics (the list's, then COUNTERS_DURATION when the list lacks it) */
    char **names;
    double *values;   /* combined over the run's kernels */
    char **units;     /* CUPTI's dimension units ("byte", "l2_sector", "percent", ...) */
    long kernels;     /* kernels one run launched */
    long passes;      /* replays of the run the metrics needed */
} counters_result;

void counters_result_free(counters_result *r);
void counters_result_unavailable(counters_result *r, const char *status, const char *why);

/* Loads libcupti (TILELAB_CUPTI, the loader's path, then the toolkit's folders). Never fails: a
 * session without CUPTI or without a device says why in counters_session_why. device < 0: host side only
 * (metric lists for chip, e.g. "GH100", without a GPU; a chip CUPTI does not know is a why). */
counters_session *counters_open(int device, const char *chip);
void counters_close(counters_session *s);
const char *counters_session_why(const counters_session *s); /* NULL when usable */
const char *counters_chip(const counters_session *s);        /* "GH100", or NULL */
const char *counters_library(const counters_session *s);     /* the libcupti loaded, or NULL */

/* Checks every name of l against the chip's metric list: -1 with e ("path:line:col: counters: ... (near
 * names: ...)") for the first it lacks. 0 when all are known or no list can be had. */
int counters_check(counters_session *s, const counters_list *l, const char *path, tl_err *e);

/* One pass of the measured run: prepare (outside the profiled range: reset outputs, flush L2) and
 * run (the launches of one run, synchronised). */
typedef int (*counters_step)(void *ctx, tl_err *e);

/* Collects l's metrics over one run, replayed as often as the metrics need. kernels: the kernels one run
 * launches where the caller knows (a compiled variant: 1, or 2 with a second entry), else 0: a pass of
 * one metric counts them first (the profiler's room for kernels dirties the L2, so it is made exact).
 * Sets r's status; -1 only when the run itself failed (e says why: the case is an error). */
int counters_collect(counters_session *s, const counters_list *l, int kernels, counters_step prepare, counters_step run, void *ctx,
                counters_result *r, tl_err *e);

#endif
