/* genetic: a population of the fittest points evaluated, crossed and mutated; a child the rules leave out or
 * already evaluated moves to the nearest point not evaluated. Every draw from the search's generator. */
#include "runner/search/search_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GA_POP_MIN 8
#define GA_POP_MAX 20
#define GA_TRIES 32 /* mutations tried before the child is moved to the nearest point not evaluated */

typedef struct {
    int pop;        /* the population: the fittest `pop` points evaluated */
    int *members;   /* scratch: the current population, best first */
} ga_state;

static void *ga_new(search_run *r)
{
    ga_state *g = tl_xcalloc(1, sizeof *g);
    /* About one point in fifty, within bounds: a population large enough to mix, small enough to breed early. */
    g->pop = r->sp->npoints / 50;
    g->pop = g->pop < GA_POP_MIN ? GA_POP_MIN : g->pop > GA_POP_MAX ? GA_POP_MAX : g->pop;
    g->members = tl_xcalloc((size_t)g->pop, sizeof *g->members);
    return g;
}

static void ga_free(void *impl)
{
    ga_state *g = impl;
    free(g->members);
    free(g);
}

/* The fittest OK points, best first (ties by step): n of them, at most g->pop. */
static int ga_population(search_run *r, ga_state *g)
{
    int n = 0;
    for (int p = 0; p < r->sp->npoints; p++) {
        if (r->state[p] != PT_OK) continue;
        int at = n < g->pop ? n++ : g->pop;
        if (at == g->pop && !(r->y[p] < r->y[g->members[g->pop - 1]])) continue;
        if (at == g->pop) at = g->pop - 1;
        while (at > 0 && (r->y[p] < r->y[g->members[at - 1]] ||
                          (r->y[p] == r->y[g->members[at - 1]] && r->step[p] < r->step[g->members[at - 1]]))) {
            g->members[at] = g->members[at - 1];
            at--;
        }
        g->members[at] = p;
    }
    return n;
}

/* A tournament of two: the fitter of two members drawn at random (members are sorted, best first). */
static int ga_pick(search_run *r, const ga_state *g, int n)
{
    int a = search_rng_below(&r->rng, n), b = search_rng_below(&r->rng, n);
    return g->members[a < b ? a : b];
}

static void ga_mutate(search_run *r, int *c)
{
    const search_space *sp = r->sp;
    int changed = 0;
    for (int d = 0; d < sp->ndims; d++) {
        if (search_rng_below(&r->rng, sp->ndims) != 0) continue; /* each dimension with probability 1 / ndims */
        changed = 1;
        if (search_rng_unit(&r->rng) < 0.75) { /* mostly a neighbouring value: good values sit near good values */
            int v = c[d] + (search_rng_below(&r->rng, 2) ? 1 : -1);
            c[d] = v < 0 ? 1 % sp->card[d] : v >= sp->card[d] ? sp->card[d] - 2 : v;
        } else {
            c[d] = search_rng_below(&r->rng, sp->card[d]);
        }
    }
    if (!changed) { /* every child differs from its parents' crossing somewhere */
        int d = search_rng_below(&r->rng, sp->ndims);
        c[d] = (c[d] + 1 + search_rng_below(&r->rng, sp->card[d] - 1)) % sp->card[d];
    }
}

static int ga_next(search_run *r, char *why, size_t n)
{
    ga_state *g = r->impl;
    int npop = ga_population(r, g);
    if (npop < 2 || r->nevals < g->pop) {
        /* Drawn to cover the params' values: crossing can only pass on values the population holds. */
        snprintf(why, n, "genetic: the first population (%d of %d), covering the params' values", r->nevals + 1,
                 g->pop);
        return search_covering_new(r, g->members, npop);
    }
    const search_space *sp = r->sp;
    int c[SEARCH_MAX_DIMS];
    int a = ga_pick(r, g, npop), b = ga_pick(r, g, npop);
    for (int t = 0; t < GA_TRIES; t++) {
        const int *ca = search_coord(r, a), *cb = search_coord(r, b);
        for (int d = 0; d < sp->ndims; d++) c[d] = search_rng_below(&r->rng, 2) ? ca[d] : cb[d];
        ga_mutate(r, c);
        int p = search_point_at(r, c);
        if (p >= 0 && r->state[p] == PT_NEW) {
            snprintf(why, n, "genetic: a child of steps %d and %d", r->step[a], r->step[b]);
            return p;
        }
    }
    int p = search_nearest_new(r, c);
    snprintf(why, n, "genetic: a child of steps %d and %d, moved to the nearest point not evaluated", r->step[a],
             r->step[b]);
    return p;
}

const search_strategy search_genetic = {"genetic", "a population of the fittest points, crossed and mutated", ga_new,
                                    {ga_next, NULL, ga_free}};
