#include "runner/search/search_driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One evaluation of a search, as the trace keeps it. */
typedef struct {
    int plan_index;
    int step;          /* 0: an invalid point */
    search_outcome o;
    double objective;  /* NAN unless ok */
    double best;       /* the best so far, NAN before an ok one */
    double cost_s;
    char *why;
} trace_step;

typedef struct {
    search_result r;
    trace_step *steps;
    int nsteps;
} search_state;

struct search_driver {
    const tl_experiment *x;
    const tl_plan *p;
    const search_plan *sp;
    const unsigned char *todo;
    const search_held *held;
    int problem;       /* the problem under way */
    int phase;         /* 0: its sweep cases, 1: its searches */
    int cursor;        /* phase 0: the next plan index to look at */
    int search;        /* phase 1: the search under way (into sp->spaces), or -1 before the problem's first */
    search_run *run;     /* that search's strategy */
    int budget;        /* its budget of evaluations (0: of seconds) */
    int pending;       /* the plan case handed out, -1 when none */
    char why[256];     /* why it was proposed */
    search_state *ss;  /* per search */
    int *first_search; /* per problem: its first search in sp->spaces order */
};

double search_result_objective(const search_spec *s, const tl_result *r)
{
    if (strcmp(r->status, "ok")) return NAN;
    if (s->objective == SEARCH_TIME) return r->samples.n ? r->st.median_ms : NAN;
    if (s->objective == SEARCH_ENERGY) return r->energy.j_per_run;
    for (int k = 0; k < r->counters.n; k++)
        if (!strcmp(r->counters.names[k], s->counter)) return r->counters.values[k];
    return NAN;
}

static uint64_t label_seed(uint64_t seed, const char *label, int entry)
{
    uint64_t h = 1469598103934665603ULL ^ seed;
    for (const char *c = label; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    return (h ^ (uint64_t)entry) * 0x9e3779b97f4a7c15ULL;
}

search_driver *search_driver_new(const tl_experiment *x, const tl_plan *p, const search_plan *sp, const unsigned char *todo,
                             const search_held *held)
{
    search_driver *d = tl_xcalloc(1, sizeof *d);
    d->x = x, d->p = p, d->sp = sp, d->todo = todo, d->held = held;
    d->search = -1, d->pending = -1;
    d->ss = tl_xcalloc((size_t)sp->nspaces + 1, sizeof *d->ss);
    d->first_search = tl_xcalloc((size_t)sp->nproblems + 1, sizeof *d->first_search);
    for (int q = 0; q < sp->nproblems; q++) d->first_search[q] = sp->nspaces;
    for (int s = sp->nspaces - 1; s >= 0; s--) d->first_search[sp->spaces[s].problem] = s;
    for (int s = 0; s < sp->nspaces; s++) {
        d->ss[s].r.best_case = -1, d->ss[s].r.best = NAN;
        const search_space *sc = &sp->spaces[s];
        for (int k = 0; k < sc->npoints && !d->ss[s].r.mine; k++) {
            int i = sc->plan_index[k];
            d->ss[s].r.mine = todo[i] || (held && held[i].status);
        }
    }
    return d;
}

void search_driver_free(search_driver *d)
{
    if (!d) return;
    search_free(d->run);
    for (int s = 0; s < d->sp->nspaces; s++) {
        for (int k = 0; k < d->ss[s].nsteps; k++) free(d->ss[s].steps[k].why);
        free(d->ss[s].steps);
    }
    free(d->ss), free(d->first_search);
    free(d);
}

/* Tells the search under way the outcome of plan case i and keeps it in the trace; the trace's step. */
static trace_step *tell(search_driver *d, int i, const char *status, double objective, double cost_s)
{
    search_state *st = &d->ss[d->search];
    const search_spec *spec = d->x->search;
    search_outcome o = !status || !strcmp(status, "skipped") ? SEARCH_INVALID
                     : !strcmp(status, "ok") && isfinite(objective) ? SEARCH_OK : SEARCH_FAILED;
    double y = spec && spec->higher_better ? -objective : objective;
    search_tell(d->run, d->sp->point_of[i], o, y);
    st->steps = realloc(st->steps, sizeof *st->steps * (size_t)(st->nsteps + 1));
    if (!st->steps) abort();
    trace_step *t = &st->steps[st->nsteps++];
    *t = (trace_step){i, 0, o, o == SEARCH_OK ? objective : NAN, st->r.best, cost_s, tl_xstrdup(d->why)};
    if (o == SEARCH_INVALID) {
        st->r.invalid++;
        return t;
    }
    t->step = ++st->r.evals;
    st->r.seconds += isfinite(cost_s) && cost_s > 0 ? cost_s : 0;
    if (o == SEARCH_OK && (st->r.best_case < 0 || (spec && spec->higher_better ? objective > st->r.best : objective < st->r.best))) {
        st->r.best = objective, st->r.best_case = i, st->r.best_step = t->step, st->r.best_at_s = st->r.seconds;
    }
    t->best = st->r.best;
    return t;
}

static int spent(const search_driver *d)
{
    const search_result *r = &d->ss[d->search].r;
    const search_spec *s = d->x->search;
    return d->budget ? r->evals >= d->budget : r->seconds >= s->budget;
}

/* The next case of the search under way to run, or -1 when it is over. */
static int driver_next_point(search_driver *d)
{
    const search_space *sc = &d->sp->spaces[d->search];
    while (!spent(d)) {
        int pt = search_next(d->run, d->why, sizeof d->why);
        if (pt < 0) return -1;
        int i = sc->plan_index[pt];
        if (d->held && d->held[i].status) {
            tell(d, i, d->held[i].status, d->held[i].objective, d->held[i].cost_s);
            continue;
        }
        if (!d->todo[i]) { /* neither to run nor held: a replay's point its file lacks */
            tell(d, i, NULL, NAN, 0);
            continue;
        }
        return d->pending = i;
    }
    return -1;
}

static void start_search(search_driver *d, int s)
{
    search_free(d->run);
    d->run = NULL;
    d->search = s;
    const search_space *sc = &d->sp->spaces[s];
    char *label = search_space_label(d->p, sc);
    d->run = search_start(sc, d->x->search->strategy, label_seed(d->x->search->seed, label, sc->entry));
    free(label);
    d->budget = search_budget_cases(d->x->search, sc);
}

int search_driver_next(search_driver *d)
{
    if (d->pending >= 0) return d->pending; /* (asked again before it ran) */
    while (d->problem < d->sp->nproblems) {
        if (d->phase == 0) {
            for (; d->cursor < d->p->ncases; d->cursor++) {
                int i = d->cursor;
                if (d->sp->problem_of[i] == d->problem && d->sp->space_of[i] < 0 && d->todo[i] &&
                    !(d->held && d->held[i].status)) {
                    d->cursor++;
                    return d->pending = i;
                }
            }
            d->phase = 1, d->search = -1;
        }
        if (d->search >= 0) {
            int i = driver_next_point(d);
            if (i >= 0) return i;
        }
        /* The problem's next search that is this run's. */
        int s = d->search < 0 ? d->first_search[d->problem] : d->search + 1;
        while (s < d->sp->nspaces && d->sp->spaces[s].problem == d->problem && !d->ss[s].r.mine) s++;
        if (s < d->sp->nspaces && d->sp->spaces[s].problem == d->problem) {
            start_search(d, s);
            continue;
        }
        search_free(d->run);
        d->run = NULL;
        d->problem++, d->phase = 0, d->cursor = 0, d->search = -1;
    }
    return -1;
}

void search_driver_ran(search_driver *d, int i, const char *status, double objective, double cost_s, search_note *note)
{
    memset(note, 0, sizeof *note);
    note->objective = note->best = NAN;
    if (i != d->pending) return;
    d->pending = -1;
    if (d->phase != 1 || d->search < 0 || d->sp->space_of[i] != d->search) return; /* a sweep case */
    trace_step *t = tell(d, i, status, objective, cost_s);
    note->step = t->step;
    note->proposer = tl_xstrdup(t->why);
    note->objective = t->objective;
    note->best = t->best;
}

int search_driver_expected(const search_driver *d)
{
    long long n = 0;
    for (int i = 0; i < d->p->ncases; i++)
        n += d->sp->space_of[i] < 0 && d->todo[i] && !(d->held && d->held[i].status);
    for (int s = 0; s < d->sp->nspaces; s++) {
        if (!d->ss[s].r.mine) continue;
        const search_space *sc = &d->sp->spaces[s];
        int budget = search_budget_cases(d->x->search, sc), held = 0;
        for (int k = 0; k < sc->npoints; k++) held += d->held && d->held[sc->plan_index[k]].status;
        int left = (budget && budget < sc->npoints ? budget : sc->npoints) - held;
        n += left > 0 ? left : 0;
    }
    return n > 2000000000 ? 2000000000 : (int)n;
}

const search_result *search_driver_result(const search_driver *d, int s)
{
    return &d->ss[s].r;
}

int search_driver_trace_len(const search_driver *d, int s)
{
    return d->ss[s].nsteps;
}

void search_driver_trace_row(const search_driver *d, int s, int k, search_trace_row *row)
{
    const trace_step *t = &d->ss[s].steps[k];
    *row = (search_trace_row){t->plan_index, t->step, t->objective, t->best, t->cost_s, t->why};
}
