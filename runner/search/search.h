/* search: runs a budget of a plan's cases instead of all of them, chosen by a strategy from the ones
 * measured so far.
 *
 * An experiment with `search:` (runner/config/cfg_search.c) keeps its plan: the same cases, the same ids as the
 * sweep of its lists. A *search* is one problem (sizes, layouts, dtype, args) and one entry of `variants:`
 * with a list-valued param; its *points* are that entry's cases of that problem that the rules let run, its
 * *dimensions* the params with more than one value. Every other case (a baseline, a variant with fixed
 * params) runs as in a sweep, before its problem's searches.
 *
 * A strategy proposes one point at a time and is told its outcome. Proposals depend only on the seed, the
 * space and the outcomes told so far, so a search is rebuilt from a result file by proposing again and taking
 * each outcome from the file (`--resume`, `search-replay`): the file is the search's cache. */
#ifndef TILELAB_SEARCH_H
#define TILELAB_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "runner/util/util.h"

/* ---- what the experiment asks (`search:`) ------------------------------------------------------- */

/* The strategies, a row each in runner/search/search_strategies.c; a spec names one by its index there. */
typedef struct search_strategy search_strategy;
#define SEARCH_MAX_STRATEGIES 16
extern const search_strategy *const search_strategies[];
extern const int search_nstrategies;
const char *search_strategy_name(int st);
const char *search_strategy_help(int st); /* one line */
int search_strategy_find(const char *name); /* its index, -1 for none */
/* The names joined: "random, genetic, local or bayes" with sep ", " and last " or ". */
void search_strategy_list(const char *sep, const char *last, char *out, size_t n);

typedef enum { SEARCH_CASES, SEARCH_FRACTION, SEARCH_SECONDS } search_budget_kind;
extern const char *const search_budget_names[3]; /* "cases", "fraction", "seconds" */

typedef enum { SEARCH_TIME, SEARCH_ENERGY, SEARCH_COUNTER } search_objective_kind;
#define SEARCH_ENERGY_S 1.0 /* `objective: energy`: the energy runs' length, s, where `measure:` gives no energy_s */

typedef struct {
    int strategy;            /* index into search_strategies */
    search_budget_kind budget_kind;
    double budget;           /* cases, a fraction of a search's points (0, 1], or seconds of its cases' wall time */
    search_objective_kind objective;
    char *counter;           /* SEARCH_COUNTER: the metric's name */
    int higher_better;       /* `better: higher` (a counter such as a throughput); time and energy: lower */
    uint64_t seed;           /* `seed:`, else the experiment's */
    int line, col;           /* where `search:` is (1-based), for errors that only the plan shows */
    int budget_line, budget_col;
    int objective_line, objective_col; /* where `objective:` is (or `search:` without one) */
} search_spec;

void search_spec_free(search_spec *s);
/* "strategy=genetic;budget=cases:200;objective=time;better=lower;seed=3": the root attribute `search`. */
char *search_spec_text(const search_spec *s);
/* The objective's name as a reader sees it: "time", "energy" or the counter's. */
const char *search_objective_name(const search_spec *s);

/* ---- a search's space ---------------------------------------------------------------------------- */

#define SEARCH_MAX_DIMS 32

typedef struct {
    int problem;              /* index among the plan's problems (first appearance order) */
    int entry;                /* index into the experiment's variants */
    int first_case;           /* its first case in the plan (a point or not): its problem's texts */
    int ndims;
    int param[SEARCH_MAX_DIMS]; /* the variant's param index of each dimension */
    int card[SEARCH_MAX_DIMS];  /* values of each dimension (the param's list, as listed) */
    double *pos[SEARCH_MAX_DIMS]; /* per value, its place on [0, 1] for models: by log2 of the value when every value
                                 * is positive, else by the value; in list order when not monotonic */
    long long nraw;           /* the product of card: the space before the rules */
    int npoints;              /* the points the rules let run */
    int *coord;               /* npoints x ndims value indices */
    int *plan_index;          /* each point's case in the plan */
} search_space;

/* The evaluations a budget allows a search of sp (0: no count, a budget of seconds). */
int search_budget_cases(const search_spec *s, const search_space *sp);

/* ---- strategies --------------------------------------------------------------------------------- */

typedef enum { SEARCH_OK, SEARCH_FAILED, SEARCH_INVALID } search_outcome;

typedef struct search_run search_run;

/* A strategy over sp's points, from seed. */
search_run *search_start(const search_space *sp, int st, uint64_t seed);
/* The next point to evaluate, with why it was proposed in why; -1 when every point is evaluated. */
int search_next(search_run *r, char *why, size_t n);
/* The outcome of point: SEARCH_OK with y (lower is better), SEARCH_FAILED (it ran but failed: never the best),
 * SEARCH_INVALID (the device cannot run it: as if it were not in the space). */
void search_tell(search_run *r, int point, search_outcome o, double y);
void search_free(search_run *r);

/* ---- the internals the strategies share (runner/search/search_*.c) ----------------------------------- */

typedef struct {
    uint64_t s;
} search_rng;
uint64_t search_rng_next(search_rng *g);
double search_rng_unit(search_rng *g);      /* in [0, 1) */
int search_rng_below(search_rng *g, int n); /* in [0, n) */

#endif
