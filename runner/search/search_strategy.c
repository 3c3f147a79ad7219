/* The strategies' shared bookkeeping: the generator, the points' states, the draws every strategy makes
 * (random, nearest, covering) and the run that holds them. The strategies are files of their own
 * (runner/search/search_strategies.c lists them). Every choice draws from the search's own generator, in an order
 * fixed by the outcomes told: the same seed and outcomes give the same proposals on every machine. */
#include "runner/search/search_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the generator: splitmix64 -------------------------------------------------------------------------- */

uint64_t search_rng_next(search_rng *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double search_rng_unit(search_rng *g)
{
    return (double)(search_rng_next(g) >> 11) * (1.0 / 9007199254740992.0);
}

int search_rng_below(search_rng *g, int n)
{
    return n <= 1 ? 0 : (int)(search_rng_next(g) % (uint64_t)n);
}

/* ---- the shared part ------------------------------------------------------------------------------------- */

static uint64_t coord_hash(const int *coord, int ndims)
{
    uint64_t h = 1469598103934665603ULL;
    for (int d = 0; d < ndims; d++) h = (h ^ (uint64_t)(unsigned)coord[d]) * 1099511628211ULL;
    return h;
}

int search_point_at(const search_run *r, const int *coord)
{
    const search_space *sp = r->sp;
    for (int d = 0; d < sp->ndims; d++)
        if (coord[d] < 0 || coord[d] >= sp->card[d]) return -1;
    for (uint64_t h = coord_hash(coord, sp->ndims) & (uint64_t)(r->tcap - 1);; h = (h + 1) & (uint64_t)(r->tcap - 1)) {
        int p = r->table[h] - 1;
        if (p < 0) return -1;
        if (!memcmp(search_coord(r, p), coord, sizeof *coord * (size_t)sp->ndims)) return p;
    }
}

int search_random_new(search_run *r)
{
    return r->nunvisited ? r->unvisited[search_rng_below(&r->rng, r->nunvisited)] : -1;
}

int search_covering_new(search_run *r, const int *pts, int n)
{
    const search_space *sp = r->sp;
    int best = -1, most = -1;
    for (int k = 0; k < 32 && r->nunvisited; k++) {
        int p = search_random_new(r), fresh = 0;
        const int *c = search_coord(r, p);
        for (int d = 0; d < sp->ndims; d++) {
            int seen = 0;
            for (int i = 0; i < n && !seen; i++) seen = search_coord(r, pts[i])[d] == c[d];
            fresh += !seen;
        }
        if (fresh > most) most = fresh, best = p;
    }
    return best;
}

static double coord_distance(const search_space *sp, const int *a, const int *b)
{
    double s = 0;
    for (int d = 0; d < sp->ndims; d++) s += fabs((double)(a[d] - b[d])) / (sp->card[d] > 1 ? sp->card[d] - 1 : 1);
    return s;
}

int search_nearest_new(search_run *r, const int *coord)
{
    int best = -1, ties = 0;
    double bd = INFINITY;
    for (int k = 0; k < r->nunvisited; k++) {
        int p = r->unvisited[k];
        double dist = coord_distance(r->sp, coord, search_coord(r, p));
        if (dist < bd - 1e-12) bd = dist, best = p, ties = 1;
        else if (dist < bd + 1e-12 && search_rng_below(&r->rng, ++ties) == 0) best = p; /* one of the ties, uniformly */
    }
    return best;
}

static void take(search_run *r, int p)
{
    int k = r->unvisited_at[p];
    if (k < 0) return;
    int last = r->unvisited[--r->nunvisited];
    r->unvisited[k] = last;
    r->unvisited_at[last] = k;
    r->unvisited_at[p] = -1;
}

/* ---- the run ------------------------------------------------------------------------------------------------- */

search_run *search_run_new(const search_space *sp, uint64_t seed)
{
    search_run *r = tl_xcalloc(1, sizeof *r);
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
        uint64_t h = coord_hash(search_coord(r, p), sp->ndims) & (uint64_t)(r->tcap - 1);
        while (r->table[h]) h = (h + 1) & (uint64_t)(r->tcap - 1);
        r->table[h] = p + 1;
    }
    return r;
}

int search_next(search_run *r, char *why, size_t n)
{
    if (!r->nunvisited) return -1;
    int p = r->ops->next(r, why, n);
    if (p < 0 || r->state[p] != PT_NEW) { /* the strategy has nothing of its own left */
        p = search_random_new(r);
        snprintf(why, n, "%s: nothing left to propose of its own, drawn uniformly", "search");
    }
    return p;
}

void search_tell(search_run *r, int point, search_outcome o, double y)
{
    if (point < 0 || point >= r->sp->npoints || r->state[point] != PT_NEW) return;
    take(r, point);
    if (o == SEARCH_INVALID) {
        r->state[point] = PT_INVALID;
    } else {
        r->step[point] = ++r->nevals;
        r->state[point] = o == SEARCH_OK && isfinite(y) ? PT_OK : PT_FAILED;
        r->y[point] = y;
        if (r->state[point] == PT_OK && (r->best < 0 || y < r->y[r->best])) r->best = point;
    }
    if (r->ops->tell) r->ops->tell(r, point, o, y);
}

void search_free(search_run *r)
{
    if (!r) return;
    if (r->ops->free) r->ops->free(r->impl);
    free(r->state), free(r->y), free(r->step), free(r->unvisited), free(r->unvisited_at), free(r->table);
    free(r);
}
