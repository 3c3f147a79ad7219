/* What an experiment's `search:` asks (runner/search/search.h): its text in a result file, its objective's name,
 * the evaluations its budget allows. Beside the strategies, below the plan: the experiment's reader
 * (runner/config/cfg_search.c) and the writer use it without the plan's searches. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runner/search/search.h"

const char *const search_budget_names[3] = {"cases", "fraction", "seconds"};

void search_spec_free(search_spec *s)
{
    free(s->counter);
    memset(s, 0, sizeof *s);
}

const char *search_objective_name(const search_spec *s)
{
    return s->objective == SEARCH_TIME ? "time" : s->objective == SEARCH_ENERGY ? "energy" : s->counter;
}

char *search_spec_text(const search_spec *s)
{
    return tl_xasprintf("strategy=%s;budget=%s:%.15g;objective=%s;better=%s;seed=%llu",
                        search_strategy_name(s->strategy), search_budget_names[s->budget_kind], s->budget,
                        search_objective_name(s), s->higher_better ? "higher" : "lower", (unsigned long long)s->seed);
}

int search_budget_cases(const search_spec *s, const search_space *sp)
{
    if (s->budget_kind == SEARCH_CASES) return (int)fmin(s->budget, 2e9);
    if (s->budget_kind == SEARCH_FRACTION) {
        double n = ceil(s->budget * sp->npoints - 1e-9);
        return n < 1 ? 1 : (int)n;
    }
    return 0;
}
