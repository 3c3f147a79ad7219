/* local: iterated first-improvement hill climbing. The climb moves to a better neighbour as soon as one is seen;
 * at a local optimum it restarts a few params away from the best point. */
#include "runner/search/search_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LS_START 6   /* random points before the first climb */
#define LS_KICK 3    /* params changed by a restart */

typedef struct {
    int current;     /* the point the climb stands on, -1 before the first */
    int restart;     /* the last restart's point: the climb's next start, once evaluated */
} ls_state;

static void *ls_new(search_run *r)
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
static int ls_neighbour(search_run *r, int p, int *far)
{
    const search_space *sp = r->sp;
    int c[SEARCH_MAX_DIMS], cand[2 * SEARCH_MAX_DIMS], nc = 0;
    memcpy(c, search_coord(r, p), sizeof *c * (size_t)sp->ndims);
    for (int pass = 0; pass < 2; pass++) {
        for (int d = 0; d < sp->ndims; d++) {
            int was = c[d];
            for (int v = 0; v < sp->card[d]; v++) {
                int step = abs(v - was);
                if (step == 0 || (pass == 0) != (step == 1)) continue;
                c[d] = v;
                int q = search_point_at(r, c);
                if (q >= 0 && r->state[q] == PT_NEW) {
                    if (pass == 0) cand[nc++] = q;
                    else if (search_rng_below(&r->rng, ++nc) == 0) cand[0] = q; /* uniformly among the far ones */
                }
            }
            c[d] = was;
        }
        if (nc) {
            *far = pass;
            return pass == 0 ? cand[search_rng_below(&r->rng, nc)] : cand[0];
        }
    }
    return -1;
}

static int ls_next(search_run *r, char *why, size_t n)
{
    ls_state *s = r->impl;
    if (r->nevals < LS_START || r->best < 0) {
        snprintf(why, n, "local: a starting point (%d of %d), drawn uniformly", r->nevals + 1, LS_START);
        return search_random_new(r);
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
    const search_space *sp = r->sp;
    int c[SEARCH_MAX_DIMS];
    memcpy(c, search_coord(r, r->best), sizeof *c * (size_t)sp->ndims);
    for (int k = 0; k < LS_KICK && k < sp->ndims; k++) {
        int d = search_rng_below(&r->rng, sp->ndims);
        c[d] = search_rng_below(&r->rng, sp->card[d]);
    }
    p = search_nearest_new(r, c);
    s->restart = p;
    snprintf(why, n, "local: a restart near step %d (a local optimum at step %d)", r->step[r->best],
             r->step[s->current]);
    return p;
}

static void ls_tell(search_run *r, int point, search_outcome o, double y)
{
    ls_state *s = r->impl;
    /* First improvement: the climb moves to a better neighbour as soon as it is seen. */
    if (o == SEARCH_OK && s->current >= 0 && point != s->restart && r->state[s->current] == PT_OK &&
        y < r->y[s->current])
        s->current = point;
}

const search_strategy search_local = {"local", "iterated first-improvement hill climbing with restarts near the best",
                                  ls_new, {ls_next, ls_tell, ls_free}};
