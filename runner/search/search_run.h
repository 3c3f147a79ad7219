/* search_run: what every strategy's search keeps (runner/search/search_strategy.c), shared with the strategies, each
 * a file of its own (runner/search/search_strategies.c lists them). Not for callers: they see runner/search/search.h. */
#ifndef TILELAB_SEARCH_RUN_H
#define TILELAB_SEARCH_RUN_H

#include "runner/search/search.h"

enum { PT_NEW, PT_OK, PT_FAILED, PT_INVALID };

typedef struct search_ops {
    /* The next point, or -1 to fall back to a random one (a strategy with nothing left of its own). */
    int (*next)(search_run *r, char *why, size_t n);
    void (*tell)(search_run *r, int point, search_outcome o, double y); /* after the shared bookkeeping */
    void (*free)(void *impl);
} search_ops;

struct search_run {
    const search_space *sp;
    search_rng rng;
    unsigned char *state; /* per point: PT_* */
    double *y;            /* per point: its objective when PT_OK */
    int *step;            /* per point: its evaluation's number (1-based), 0 when not evaluated */
    int nevals;           /* points evaluated (ok or failed) */
    int *unvisited;       /* the PT_NEW points, in no order; nunvisited of them */
    int *unvisited_at;    /* per point: its place in unvisited, or -1 */
    int nunvisited;
    int best;             /* the OK point with the lowest y, -1 before one */
    int *table;           /* open addressing: coordinates -> point + 1 (0: empty); tcap slots */
    int tcap;
    const search_ops *ops;
    void *impl;
};

/* The run's bookkeeping over sp's points, from seed, before its strategy's ops and state (search_start sets
 * them from the strategy's row). */
search_run *search_run_new(const search_space *sp, uint64_t seed);
/* The point at these coordinates, or -1 when the rules leave it out of the space. */
int search_point_at(const search_run *r, const int *coord);
/* A point not evaluated yet, uniformly, or -1 when none is left. */
int search_random_new(search_run *r);
/* The point not evaluated yet nearest to coord (a sum over dimensions of the distance of value indices,
 * relative to each dimension's count), ties broken by the generator; -1 when none is left. */
int search_nearest_new(search_run *r, const int *coord);
/* A point not evaluated yet that covers the params' values: of 32 drawn at random, the first with the most values
 * that none of the n points pts has; -1 when none is left. For first points: a model learns what a value does
 * from points that hold it, and crossing passes on only the values a population holds. Once every value is
 * held, the draw is uniform: pushing points apart would push them to the space's corners. */
int search_covering_new(search_run *r, const int *pts, int n);
static inline const int *search_coord(const search_run *r, int point)
{
    return r->sp->coord + (size_t)point * r->sp->ndims;
}

/* A strategy: its row in runner/search/search_strategies.c. */
struct search_strategy {
    const char *name; /* as `strategy:` and --strategy name it */
    const char *help; /* one line */
    void *(*make)(search_run *r); /* its state (r->impl), NULL for none */
    search_ops ops;
};

#endif
