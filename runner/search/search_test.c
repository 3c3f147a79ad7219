/* search: the strategies on spaces made here, with a landscape of known optimum, points that fail and points
 * the device cannot run. Every strategy proposes each point at most once, never one already told, the same
 * points for the same seed and outcomes, never a failed point as its best; given every point, it proposes
 * them all; with a budget of 4% of the space, every strategy but random does better than random; genetic's and
 * bayes's first points cover the params' values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/search/search_run.h"
#include "runner/testing/testutil.h"

#define NDIMS 5
/* The space of the quality runs, and a smaller one for runs of every point (bayes refits its model each step:
 * 400 s for the 3,296 points of the large one). */
static const int large[NDIMS] = {7, 6, 5, 4, 4}, small[NDIMS] = {5, 6, 3, 4, 2};
static int card[NDIMS], limit;

/* The rules of the space: the place sum of the first three at most limit (a corner left out). */
static int allowed(const int *c)
{
    return c[0] + c[1] + c[2] <= limit;
}

/* A bowl with its floor at (4, 1, 3, 2, *), a second, shallower bowl elsewhere, and an interaction term;
 * points at (0, 5, *, *, *) fail; points with c[3] == 3 and c[4] == 0 the device cannot run. */
static double landscape(const int *c, search_outcome *o)
{
    *o = c[0] == 0 && c[1] == 5 ? SEARCH_FAILED : c[3] == 3 && c[4] == 0 ? SEARCH_INVALID : SEARCH_OK;
    double a = (c[0] - 4) * (c[0] - 4) + 2.0 * (c[1] - 1) * (c[1] - 1) + (c[2] - 3) * (c[2] - 3) + 0.5 * abs(c[3] - 2);
    double b = 1.5 + (c[0] - 1) * (c[0] - 1) + (c[1] - 4) * (c[1] - 4) * 0.5 + c[2] * 0.3;
    return 1.0 + fmin(a, b) * 0.1 + 0.02 * c[4] * (c[0] % 2);
}

static void make_space(search_space *s, const int *cards, int sum_limit)
{
    memcpy(card, cards, sizeof card), limit = sum_limit;
    memset(s, 0, sizeof *s);
    s->ndims = NDIMS, s->nraw = 1;
    for (int d = 0; d < NDIMS; d++) {
        s->card[d] = card[d], s->nraw *= card[d];
        s->pos[d] = tl_xcalloc((size_t)card[d], sizeof *s->pos[d]);
        for (int j = 0; j < card[d]; j++) s->pos[d][j] = (double)j / (card[d] - 1);
    }
    s->coord = tl_xcalloc((size_t)s->nraw * NDIMS, sizeof *s->coord);
    s->plan_index = tl_xcalloc((size_t)s->nraw, sizeof *s->plan_index);
    int c[NDIMS] = {0};
    for (long long k = 0; k < s->nraw; k++) {
        long long r = k;
        for (int d = NDIMS - 1; d >= 0; d--) c[d] = (int)(r % card[d]), r /= card[d];
        if (!allowed(c)) continue;
        memcpy(s->coord + (size_t)s->npoints * NDIMS, c, sizeof c);
        s->plan_index[s->npoints] = (int)k;
        s->npoints++;
    }
}

static void free_space(search_space *s)
{
    for (int d = 0; d < NDIMS; d++) free(s->pos[d]);
    free(s->coord), free(s->plan_index);
}

/* The best ok objective of the whole space. */
static double optimum(const search_space *s)
{
    double best = INFINITY;
    for (int p = 0; p < s->npoints; p++) {
        search_outcome o;
        double y = landscape(s->coord + (size_t)p * NDIMS, &o);
        if (o == SEARCH_OK && y < best) best = y;
    }
    return best;
}

/* Runs strategy st for `evals` evaluations (invalid points not counted): the proposals in seq (when not NULL),
 * the best objective found. Checks each proposal on the way. */
static double run(const search_space *s, int st, uint64_t seed, int evals, int *seq, int *nseq)
{
    search_run *r = search_start(s, st, seed);
    unsigned char *told = tl_xcalloc((size_t)s->npoints, 1);
    char why[256];
    int n = 0, counted = 0;
    double best = INFINITY;
    while (counted < evals) {
        int p = search_next(r, why, sizeof why);
        if (p < 0) break;
        CHECK(p < s->npoints && !told[p], "%s proposed point %d, %s", search_strategy_name(st), p,
              p < s->npoints ? "already told" : "outside the space");
        CHECK(why[0] != '\0', "%s gave no reason for point %d", search_strategy_name(st), p);
        told[p] = 1;
        if (seq) seq[n] = p;
        n++;
        search_outcome o;
        double y = landscape(s->coord + (size_t)p * NDIMS, &o);
        search_tell(r, p, o, y);
        counted += o != SEARCH_INVALID;
        if (o == SEARCH_OK && y < best) best = y;
        CHECK(r->best < 0 || r->state[r->best] == PT_OK, "%s holds a point that did not run ok as its best",
              search_strategy_name(st));
    }
    if (r->best >= 0) CHECK(r->y[r->best] == best, "%s's best is not the best ok point told", search_strategy_name(st));
    if (nseq) *nseq = n;
    free(told);
    search_free(r);
    return best;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    search_space s;
    make_space(&s, small, 9);
    int *a = tl_xcalloc((size_t)s.npoints + 1, sizeof *a), *b = tl_xcalloc((size_t)s.npoints + 1, sizeof *b);
    for (int st = 0; st < search_nstrategies; st++) {
        const char *name = search_strategy_name(st);
        /* The same seed and outcomes: the same proposals. Another seed: others. */
        int na, nb;
        run(&s, st, 7, 60, a, &na);
        run(&s, st, 7, 60, b, &nb);
        CHECK(na == nb && !memcmp(a, b, sizeof *a * (size_t)na), "%s: two runs from one seed proposed different points",
              name);
        run(&s, st, 8, 60, b, &nb);
        CHECK(na != nb || memcmp(a, b, sizeof *a * (size_t)na), "%s: seeds 7 and 8 proposed the same points", name);
        /* Every point, once each, then none. */
        run(&s, st, 3, s.npoints + 5, a, &na);
        CHECK(na == s.npoints, "%s proposed %d of the %d points before it stopped", name, na, s.npoints);
    }
    free_space(&s);
    free(a), free(b);
    make_space(&s, large, 13);
    double opt = optimum(&s);
    a = tl_xcalloc((size_t)s.npoints + 1, sizeof *a), b = tl_xcalloc((size_t)s.npoints + 1, sizeof *b);
    /* Quality at 4% of the space, over 15 seeds: the median of best / optimum. */
    enum { SEEDS = 15 };
    int budget = (int)ceil(0.04 * s.npoints);
    double med[SEARCH_MAX_STRATEGIES];
    for (int st = 0; st < search_nstrategies; st++) {
        double q[SEEDS];
        for (int k = 0; k < SEEDS; k++) q[k] = opt / run(&s, st, 100 + (uint64_t)k, budget, NULL, NULL);
        qsort(q, SEEDS, sizeof *q, by_double);
        med[st] = q[SEEDS / 2];
        printf("%-8s %d points, budget %d: best found over the optimum, median %.4f, worst %.4f\n",
               search_strategy_name(st), s.npoints, budget, med[st], q[0]);
    }
    const int random = search_strategy_find("random"), genetic = search_strategy_find("genetic"),
              bayes = search_strategy_find("bayes");
    CHECK(random >= 0 && genetic >= 0 && bayes >= 0 && search_strategy_find("annealing") < 0, "the strategies' table");
    for (int st = 0; st < search_nstrategies; st++)
        if (st != random)
            CHECK(med[st] > med[random], "%s (median %.4f) is no better than random (%.4f)", search_strategy_name(st),
                  med[st], med[random]);
    CHECK(med[bayes] == 1.0, "bayes did not find the optimum in the median (%.4f)", med[bayes]);
    /* The first points of genetic and bayes cover the params' values (crossing passes on only the values the
     * population holds; bayes's per-param half of the model learns what a value does from points that hold it):
     * over 15 seeds, their first NDIMS + 2 points hold more of each param's values than random's first do. */
    const int covering[3] = {random, genetic, bayes};
    int seen[3] = {0}, all = 0;
    for (int k = 0; k < SEEDS; k++)
        for (int w = 0; w < 3; w++) {
            int n;
            run(&s, covering[w], 200 + (uint64_t)k, NDIMS + 2, a, &n);
            for (int d = 0; d < NDIMS; d++) {
                int has[8] = {0};
                for (int i = 0; i < n; i++) has[s.coord[(size_t)a[i] * NDIMS + d]] = 1;
                for (int j = 0; j < card[d]; j++) seen[w] += has[j];
                all += w == 0 ? card[d] : 0;
            }
        }
    printf("the params' %d values in the first %d points, summed over %d seeds (of %d): random %d, genetic %d, "
           "bayes %d\n", all / SEEDS, NDIMS + 2, SEEDS, all, seen[0], seen[1], seen[2]);
    for (int w = 1; w < 3; w++)
        CHECK(seen[w] >= seen[0] + all / 10, "%s's first points hold %d of %d param values, random's %d",
              search_strategy_name(covering[w]), seen[w], all, seen[0]);
    free(a), free(b);
    free_space(&s);
    printf("%s\n", test_failures ? "FAILED" : "ok");
    return test_failures ? 1 : 0;
}
