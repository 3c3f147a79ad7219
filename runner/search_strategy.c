/* The strategies' shared bookkeeping, and random, genetic and local search. Every choice draws from the
 * search's own generator, in an order fixed by the outcomes told: the same seed and outcomes give the
 * same proposals on every machine. */
#include "runner/search_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const srch_strategy_names[SRCH_NSTRATEGIES] = {"random", "genetic", "local", "bayes"};

/* ---- the generator: splitmix64 -------------------------------------------------------------------------- */

uint64_t srch_rng_next(srch_rng *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double srch_rng_unit(srch_rng *g)
{
    return (double)(srch_rng_next(g) >> 11) * (1.0 / 9007199254740992.0);
}

int srch_rng_below(srch_rng *g, int n)
{
    return n <= 1 ? 0 : (int)(srch_rng_next(g) % (uint64_t)n);
}

/* ---- the shared part ------------------------------------------------------------------------------------- */

static uint64_t coord_hash(const int *coord, int ndims)
{
    uint64_t h = 1469598103934665603ULL;
    for (int d = 0; d < ndims; d++) h = (h ^ (uint64_t)(unsigned)coord[d]) * 1099511628211ULL;
    return h;
}

int srch_point_at(const srch_run *r, const int *coord)
{
    const srch_space *sp = r->sp;
    for (int d = 0; d < sp->ndims; d++)
        if (coord[d] < 0 || coord[d] >= sp->card[d]) return -1;
    for (uint64_t h = coord_hash(coord, sp->ndims) & (uint64_t)(r->tcap - 1);; h = (h + 1) & (uint64_t)(r->tcap - 1)) {
        int p = r->table[h] - 1;
        if (p < 0) return -1;
        if (!memcmp(srch_coord(r, p), coord, sizeof *coord * (size_t)sp->ndims)) return p;
    }
}

int srch_random_new(srch_run *r)
{
    return r->nunvisited ? r->unvisited[srch_rng_below(&r->rng, r->nunvisited)] : -1;
}

int srch_covering_new(srch_run *r, const int *pts, int n)
{
    const srch_space *sp = r->sp;
    int best = -1, most = -1;
    for (int k = 0; k < 32 && r->nunvisited; k++) {
        int p = srch_random_new(r), fresh = 0;
        const int *c = srch_coord(r, p);
        for (int d = 0; d < sp->ndims; d++) {
            int seen = 0;
            for (int i = 0; i < n && !seen; i++) seen = srch_coord(r, pts[i])[d] == c[d];
            fresh += !seen;
        }
        if (fresh > most) most = fresh, best = p;
    }
    return best;
}

static double coord_distance(const srch_space *sp, const int *a, const int *b)
{
    double s = 0;
    for (int d = 0; d < sp->ndims; d++) s += fabs((double)(a[d] - b[d])) / (sp->card[d] > 1 ? sp->card[d] - 1 : 1);
    return s;
}

int srch_nearest_new(srch_run *r, const int *coord)
{
    int best = -1, ties = 0;
    double bd = INFINITY;
    for (int k = 0; k < r->nunvisited; k++) {
        int p = r->unvisited[k];
        double dist = coord_distance(r->sp, coord, srch_coord(r, p));
        if (dist < bd - 1e-12) bd = dist, best = p, ties = 1;
        else if (dist < bd + 1e-12 && srch_rng_below(&r->rng, ++ties) == 0) best = p; /* one of the ties, uniformly */
    }
    return best;
}

static void take(srch_run *r, int p)
{
    int k = r->unvisited_at[p];
    if (k < 0) return;
    int last = r->unvisited[--r->nunvisited];
    r->unvisited[k] = last;
    r->unvisited_at[last] = k;
    r->unvisited_at[p] = -1;
}

/* ---- random ---------------------------------------------------------------------------------------------- */

static int random_next(srch_run *r, char *why, size_t n)
{
    snprintf(why, n, "random: drawn uniformly from the %d points not evaluated", r->nunvisited);
    return srch_random_new(r);
}

static const srch_ops random_ops = {random_next, NULL, NULL};

/* ---- genetic ------------------------------------------------------------------------------------------------ */

#define GA_POP_MIN 8
#define GA_POP_MAX 20
#define GA_TRIES 32 /* mutations tried before the child is moved to the nearest point not evaluated */

typedef struct {
    int pop;        /* the population: the fittest `pop` points evaluated */
    int *members;   /* scratch: the current population, best first */
} ga_state;

static void *ga_new(srch_run *r)
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
static int ga_population(srch_run *r, ga_state *g)
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
static int ga_pick(srch_run *r, const ga_state *g, int n)
{
    int a = srch_rng_below(&r->rng, n), b = srch_rng_below(&r->rng, n);
    return g->members[a < b ? a : b];
}

static void ga_mutate(srch_run *r, int *c)
{
    const srch_space *sp = r->sp;
    int changed = 0;
    for (int d = 0; d < sp->ndims; d++) {
        if (srch_rng_below(&r->rng, sp->ndims) != 0) continue; /* each dimension with probability 1 / ndims */
        changed = 1;
        if (srch_rng_unit(&r->rng) < 0.75) { /* mostly a neighbouring value: good values sit near good values */
            int v = c[d] + (srch_rng_below(&r->rng, 2) ? 1 : -1);
            c[d] = v < 0 ? 1 % sp->card[d] : v >= sp->card[d] ? sp->card[d] - 2 : v;
        } else {
            c[d] = srch_rng_below(&r->rng, sp->card[d]);
        }
    }
    if (!changed) { /* every child differs from its parents' crossing somewhere */
        int d = srch_rng_below(&r->rng, sp->ndims);
        c[d] = (c[d] + 1 + srch_rng_below(&r->rng, sp->card[d] - 1)) % sp->card[d];
    }
}

static int ga_next(srch_run *r, char *why, size_t n)
{
    ga_state *g = r->impl;
    int npop = ga_population(r, g);
    if (npop < 2 || r->nevals < g->pop) {
        /* Drawn to cover the params' values: crossing can only pass on values the population holds. */
        snprintf(why, n, "genetic: the first population (%d of %d), covering the params' values", r->nevals + 1,
                 g->pop);
        return srch_covering_new(r, g->members, npop);
    }
    const srch_space *sp = r->sp;
    int c[SRCH_MAX_DIMS];
    int a = ga_pick(r, g, npop), b = ga_pick(r, g, npop);
    for (int t = 0; t < GA_TRIES; t++) {
        const int *ca = srch_coord(r, a), *cb = srch_coord(r, b);
        for (int d = 0; d < sp->ndims; d++) c[d] = srch_rng_below(&r->rng, 2) ? ca[d] : cb[d];
        ga_mutate(r, c);
        int p = srch_point_at(r, c);
        if (p >= 0 && r->state[p] == PT_NEW) {
            snprintf(why, n, "genetic: a child of steps %d and %d", r->step[a], r->step[b]);
            return p;
        }
    }
    int p = srch_nearest_new(r, c);
    snprintf(why, n, "genetic: a child of steps %d and %d, moved to the nearest point not evaluated", r->step[a],
             r->step[b]);
    return p;
}

static const srch_ops genetic_ops = {ga_next, NULL, ga_free};

/* ---- local: iterated first-improvement hill climbing -------------------------------------------------------- */

#define LS_START 6   /* random points before the first climb */
#define LS_KICK 3    /* params changed by a restart */

typedef struct {
    int current;     /* the point the climb stands on, -1 before the first */
    int restart;     /* the last restart's point: the climb's next start, once evaluated */
} ls_state;

static void *ls_new(srch_run *r)
{
    (void)r;
    ls_state *s = tl_xcalloc(1, sizeof *s);
    s->current = s->restart = -1;
    return s;
}

static void ls_free(void *impl)
{
    free(impl);
}

/* A neighbour of p not evaluated: one param one value over (first the near ones, in random order), else one
 * param at any value; -1 when none is left. */
static int ls_neighbour(srch_run *r, int p, int *far)
{
    const srch_space *sp = r->sp;
    int c[SRCH_MAX_DIMS], cand[2 * SRCH_MAX_DIMS], nc = 0;
    memcpy(c, srch_coord(r, p), sizeof *c * (size_t)sp->ndims);
    for (int pass = 0; pass < 2; pass++) {
        for (int d = 0; d < sp->ndims; d++) {
            int was = c[d];
            for (int v = 0; v < sp->card[d]; v++) {
                int step = abs(v - was);
                if (step == 0 || (pass == 0) != (step == 1)) continue;
                c[d] = v;
                int q = srch_point_at(r, c);
                if (q >= 0 && r->state[q] == PT_NEW) {
                    if (pass == 0) cand[nc++] = q;
                    else if (srch_rng_below(&r->rng, ++nc) == 0) cand[0] = q; /* uniformly among the far ones */
                }
            }
            c[d] = was;
        }
        if (nc) {
            *far = pass;
            return pass == 0 ? cand[srch_rng_below(&r->rng, nc)] : cand[0];
        }
    }
    return -1;
}

static int ls_next(srch_run *r, char *why, size_t n)
{
    ls_state *s = r->impl;
    if (r->nevals < LS_START || r->best < 0) {
        snprintf(why, n, "local: a starting point (%d of %d), drawn uniformly", r->nevals + 1, LS_START);
        return srch_random_new(r);
    }
    if (s->restart >= 0 && r->state[s->restart] != PT_NEW) { /* the restart evaluated: climb from it */
        s->current = s->restart;
        s->restart = -1;
    }
    if (s->current < 0) s->current = r->best;
    int far = 0, p = ls_neighbour(r, s->current, &far);
    if (p >= 0) {
        snprintf(why, n, "local: a %s neighbour of step %d", far ? "far" : "near", r->step[s->current]);
        return p;
    }
    /* A local optimum: every neighbour evaluated, none better. Restart near the best point found. */
    const srch_space *sp = r->sp;
    int c[SRCH_MAX_DIMS];
    memcpy(c, srch_coord(r, r->best), sizeof *c * (size_t)sp->ndims);
    for (int k = 0; k < LS_KICK && k < sp->ndims; k++) {
        int d = srch_rng_below(&r->rng, sp->ndims);
        c[d] = srch_rng_below(&r->rng, sp->card[d]);
    }
    p = srch_nearest_new(r, c);
    s->restart = p;
    snprintf(why, n, "local: a restart near step %d (a local optimum at step %d)", r->step[r->best],
             r->step[s->current]);
    return p;
}

static void ls_tell(srch_run *r, int point, srch_outcome o, double y)
{
    ls_state *s = r->impl;
    /* First improvement: the climb moves to a better neighbour as soon as it is seen. */
    if (o == SRCH_OK && s->current >= 0 && point != s->restart && r->state[s->current] == PT_OK &&
        y < r->y[s->current])
        s->current = point;
}

static const srch_ops local_ops = {ls_next, ls_tell, ls_free};

/* ---- the run ------------------------------------------------------------------------------------------------- */

srch_run *srch_start(const srch_space *sp, srch_strategy st, uint64_t seed)
{
    srch_run *r = tl_xcalloc(1, sizeof *r);
    r->sp = sp;
    r->rng.s = seed ^ 0x7f4a7c159e3779b9ULL;
    size_t n = (size_t)sp->npoints;
    r->state = tl_xcalloc(n + 1, 1);
    r->y = tl_xcalloc(n + 1, sizeof *r->y);
    r->step = tl_xcalloc(n + 1, sizeof *r->step);
    r->unvisited = tl_xcalloc(n + 1, sizeof *r->unvisited);
    r->unvisited_at = tl_xcalloc(n + 1, sizeof *r->unvisited_at);
    for (int p = 0; p < sp->npoints; p++) r->unvisited[p] = p, r->unvisited_at[p] = p;
    r->nunvisited = sp->npoints;
    r->best = -1;
    for (r->tcap = 16; r->tcap < 2 * sp->npoints; r->tcap *= 2) {}
    r->table = tl_xcalloc((size_t)r->tcap, sizeof *r->table);
    for (int p = 0; p < sp->npoints; p++) {
        uint64_t h = coord_hash(srch_coord(r, p), sp->ndims) & (uint64_t)(r->tcap - 1);
        while (r->table[h]) h = (h + 1) & (uint64_t)(r->tcap - 1);
        r->table[h] = p + 1;
    }
    static const srch_ops *const ops[SRCH_NSTRATEGIES] = {&random_ops, &genetic_ops, &local_ops, &srch_bayes_ops};
    r->ops = ops[st];
    r->impl = st == SRCH_GENETIC ? ga_new(r) : st == SRCH_LOCAL ? ls_new(r) : st == SRCH_BAYES ? srch_bayes_new(r) : NULL;
    return r;
}

int srch_next(srch_run *r, char *why, size_t n)
{
    if (!r->nunvisited) return -1;
    int p = r->ops->next(r, why, n);
    if (p < 0 || r->state[p] != PT_NEW) { /* the strategy has nothing of its own left */
        p = srch_random_new(r);
        snprintf(why, n, "%s: nothing left to propose of its own, drawn uniformly", "search");
    }
    return p;
}

void srch_tell(srch_run *r, int point, srch_outcome o, double y)
{
    if (point < 0 || point >= r->sp->npoints || r->state[point] != PT_NEW) return;
    take(r, point);
    if (o == SRCH_INVALID) {
        r->state[point] = PT_INVALID;
    } else {
        r->step[point] = ++r->nevals;
        r->state[point] = o == SRCH_OK && isfinite(y) ? PT_OK : PT_FAILED;
        r->y[point] = y;
        if (r->state[point] == PT_OK && (r->best < 0 || y < r->y[r->best])) r->best = point;
    }
    if (r->ops->tell) r->ops->tell(r, point, o, y);
}

void srch_free(srch_run *r)
{
    if (!r) return;
    if (r->ops->free) r->ops->free(r->impl);
    free(r->state), free(r->y), free(r->step), free(r->unvisited), free(r->unvisited_at), free(r->table);
    free(r);
}
