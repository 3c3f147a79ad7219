#include "runner/search/search_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each value's place on [0, 1]: by log2 when the values are positive and increasing (tile sizes, stages), by
 * value when they increase, else by their order in the list. */
static double *places(const long *v, int n)
{
    double *pos = tl_xcalloc((size_t)n, sizeof *pos);
    int increasing = 1, positive = 1;
    for (int j = 0; j < n; j++) {
        if (v[j] <= 0) positive = 0;
        if (j && v[j] <= v[j - 1]) increasing = 0;
    }
    for (int j = 0; j < n; j++) {
        if (!increasing) pos[j] = n > 1 ? (double)j / (n - 1) : 0;
        else if (positive) pos[j] = log2((double)v[j]);
        else pos[j] = (double)v[j];
    }
    if (increasing && n > 1) {
        double lo = pos[0], hi = pos[n - 1];
        for (int j = 0; j < n; j++) pos[j] = (pos[j] - lo) / (hi - lo);
    }
    return pos;
}

static int value_index(const cfg_variant *cv, int k, long value)
{
    for (int j = 0; j < cv->nvalues[k]; j++)
        if (cv->values[k][j] == value) return j;
    return -1;
}

typedef struct {
    char *key;
    int first; /* the plan index where it first appears */
} problem_key;

static int by_problem_key(const void *a, const void *b)
{
    const problem_key *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->first - y->first;
}

/* problem_of: problems numbered in order of first appearance in the plan. */
static int number_problems(const tl_plan *p, int *problem_of)
{
    problem_key *ks = tl_xcalloc((size_t)p->ncases + 1, sizeof *ks);
    for (int i = 0; i < p->ncases; i++) ks[i] = (problem_key){plan_problem_key(&p->cases[i]), i};
    qsort(ks, (size_t)p->ncases, sizeof *ks, by_problem_key);
    /* First, each key's first plan index; then the problems in that order. */
    int *first = tl_xcalloc((size_t)p->ncases + 1, sizeof *first), nprob = 0;
    for (int k = 0; k < p->ncases;) {
        int end = k;
        while (end < p->ncases && !strcmp(ks[end].key, ks[k].key)) end++;
        for (int j = k; j < end; j++) first[ks[j].first] = ks[k].first;
        k = end;
    }
    int *number = tl_xcalloc((size_t)p->ncases + 1, sizeof *number);
    for (int i = 0; i < p->ncases; i++) {
        if (first[i] == i) number[i] = nprob++;
        problem_of[i] = number[first[i]];
    }
    for (int i = 0; i < p->ncases; i++) free(ks[i].key);
    free(ks), free(first), free(number);
    return nprob;
}

int search_plan_make(const tl_experiment *x, const tl_plan *p, search_plan *sp, tl_err *e)
{
    memset(sp, 0, sizeof *sp);
    size_t n = (size_t)p->ncases + 1;
    sp->problem_of = tl_xcalloc(n, sizeof *sp->problem_of);
    sp->space_of = tl_xcalloc(n, sizeof *sp->space_of);
    sp->point_of = tl_xcalloc(n, sizeof *sp->point_of);
    sp->nproblems = number_problems(p, sp->problem_of);
    /* A search a (problem, entry) pair: its index by problem * nvariants + entry, -1 until its first case. */
    int *slot = tl_xcalloc((size_t)sp->nproblems * (size_t)x->nvariants + 1, sizeof *slot);
    for (int s = 0; s < sp->nproblems * x->nvariants; s++) slot[s] = -1;
    for (int i = 0; i < p->ncases; i++) {
        const tl_case *c = &p->cases[i];
        const cfg_variant *cv = c->cv;
        int entry = (int)(cv - x->variants), ndims = 0, dims[SEARCH_MAX_DIMS];
        sp->space_of[i] = sp->point_of[i] = -1;
        for (int k = 0; k < cv->v->nparams && ndims < SEARCH_MAX_DIMS; k++)
            if (cv->nvalues[k] > 1) dims[ndims++] = k;
        if (!ndims) continue;
        int *at = &slot[sp->problem_of[i] * x->nvariants + entry];
        if (*at < 0) {
            *at = sp->nspaces++;
            sp->spaces = realloc(sp->spaces, sizeof *sp->spaces * (size_t)sp->nspaces);
            if (!sp->spaces) abort();
            search_space *s = &sp->spaces[*at];
            memset(s, 0, sizeof *s);
            s->problem = sp->problem_of[i], s->entry = entry, s->first_case = i, s->ndims = ndims, s->nraw = 1;
            for (int d = 0; d < ndims; d++) {
                s->param[d] = dims[d];
                s->card[d] = cv->nvalues[dims[d]];
                s->pos[d] = places(cv->values[dims[d]], s->card[d]);
                s->nraw *= s->card[d];
            }
        }
        search_space *s = &sp->spaces[*at];
        sp->space_of[i] = *at;
        if (c->skipped) continue; /* the rules leave it out: not a point */
        s->coord = realloc(s->coord, sizeof *s->coord * (size_t)(s->npoints + 1) * (size_t)ndims);
        s->plan_index = realloc(s->plan_index, sizeof *s->plan_index * (size_t)(s->npoints + 1));
        if (!s->coord || !s->plan_index) abort();
        for (int d = 0; d < ndims; d++) s->coord[(size_t)s->npoints * ndims + d] = value_index(cv, dims[d], c->params[dims[d]]);
        s->plan_index[s->npoints] = i;
        sp->point_of[i] = s->npoints++;
    }
    free(slot);
    if (!sp->nspaces) {
        tl_err_set(e, "%s: nothing to search: no variant has a param with a list of values", x->path);
        search_plan_free(sp);
        return -1;
    }
    return 0;
}

void search_plan_free(search_plan *sp)
{
    for (int s = 0; s < sp->nspaces; s++) {
        for (int d = 0; d < sp->spaces[s].ndims; d++) free(sp->spaces[s].pos[d]);
        free(sp->spaces[s].coord), free(sp->spaces[s].plan_index);
    }
    free(sp->spaces), free(sp->problem_of), free(sp->space_of), free(sp->point_of);
    memset(sp, 0, sizeof *sp);
}

char *search_space_label(const tl_plan *p, const search_space *s)
{
    const tl_case *c = &p->cases[s->first_case];
    return tl_xasprintf("%s %s %s %s", c->sizes_text, c->layout_text, c->dtype, c->variant->name);
}
