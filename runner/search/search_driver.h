/* search_driver: the order of a search run's cases. Problem after problem (in plan order): first the cases that
 * run as in a sweep (baselines, fixed params), then each search of the problem until its budget is spent or its
 * points are; a case the result file already holds is not run again, its outcome is told to the strategy as
 * the file has it (so a resumed search proposes what the uninterrupted one would). */
#ifndef TILELAB_SEARCH_DRIVER_H
#define TILELAB_SEARCH_DRIVER_H

#include <hdf5.h>

#include "runner/exec/result.h"
#include "runner/search/search_plan.h"

/* What a result file holds of a plan case (runner/search/search_file.c reads it). */
typedef struct {
    const char *status; /* its status; NULL when the file does not hold it */
    double objective;   /* the objective (search.h), NAN when it has none */
    double cost_s;      /* the case's wall time (its phases), s */
} search_held;

/* What a search says of a case it ran (the file's search_* attributes). */
typedef struct {
    int step;        /* its evaluation in its search, 1-based; 0: not a search's case (or an invalid point) */
    char *proposer;  /* why the strategy proposed it */
    double objective;/* NAN when it has none (failed) */
    double best;     /* the search's best objective so far, this case included; NAN before an ok one */
} search_note;

/* How a search ended, for the closing lines and the tests. */
typedef struct {
    int evals;        /* points evaluated (ok or failed; not invalid ones) */
    int invalid;      /* points the device could not run */
    double seconds;   /* their wall time, s */
    int best_case;    /* plan index of the best point, -1 when none was ok */
    double best;      /* its objective */
    int best_step;    /* the evaluation that found it */
    double best_at_s; /* the seconds spent when it was found */
    int mine;         /* 1: this run's (its problem is in the share) */
} search_result;

typedef struct search_driver search_driver;

/* The driver of x's search over plan p (sp its searches) for the cases todo marks; held: per plan case, what
 * the file holds (NULL: nothing). */
search_driver *search_driver_new(const tl_experiment *x, const tl_plan *p, const search_plan *sp, const unsigned char *todo,
                             const search_held *held);
void search_driver_free(search_driver *d);
/* The next plan case to run, or -1 when the run is done. */
int search_driver_next(search_driver *d);
/* Case i (the last search_driver_next) ran with this status, objective (NAN: none) and wall time; note gets
 * what the file records of it (proposer malloc'd). */
void search_driver_ran(search_driver *d, int i, const char *status, double objective, double cost_s, search_note *note);
/* The cases the run expects to run: the sweep's ones and each search's budget (or points, if fewer). */
int search_driver_expected(const search_driver *d);
/* How search s ended (valid after the run is done). */
const search_result *search_driver_result(const search_driver *d, int s);

/* The evaluations search s told its strategy, in order (invalid points too). */
typedef struct {
    int plan_index;
    int step;          /* 0: an invalid point (not counted) */
    double objective;  /* NAN unless ok */
    double best;       /* the best so far, NAN before an ok one */
    double cost_s;     /* its wall time, s */
    const char *why;   /* what proposed it */
} search_trace_row;
int search_driver_trace_len(const search_driver *d, int s);
void search_driver_trace_row(const search_driver *d, int s, int k, search_trace_row *row);

/* The objective of result r under spec s (its median ms, its energy per run in J, or its counter), NAN when r
 * is not ok or lacks it. */
double search_result_objective(const search_spec *s, const tl_result *r);

/* ---- what a result file holds (runner/search/search_file.c) ------------------------------------------ */

/* Per case of plan p: what the result file f (h5in_open'd) holds of it, its objective under spec s. *out is
 * p->ncases long (free() it); cases the file lacks have status NULL. -1 with e when the file cannot be read. */
int search_held_read(hid_t f, const char *path, const tl_plan *p, const search_spec *s, search_held **out, tl_err *e);

/* Whether a run with --resume of the share (the plan cases share marks) of search experiment x would still run
 * a case, given the result file path: a sweep case the file lacks, or a search whose budget is not spent.
 * *unfinished 1 or 0; -1 with e when path cannot be read. */
int search_share_unfinished(const char *path, const tl_experiment *x, const tl_plan *p, const unsigned char *share,
                          int *unfinished, tl_err *e);

#endif
