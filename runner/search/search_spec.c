/* What an experiment's `search:` asks (runner/search/search.h): its text in a result file, its objective's name,
 * the evaluations its budget allows. Beside the strategies, below the plan: the experiment's reader
 * (runner/config/cfg_search.c) and the writer use it without the plan's searches. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runner/search/search.h"

const char *const srch_budget_names[3] = {"cases", "fraction", "seconds"};

void srch_spec_free(srch_spec *s)
{
    free(s->counter);
    memset(s, 0, sizeof *s);
}

const char *srch_objective_name(const srch_spec *s)
{
    return s->objective == SRCH_TIME ? "time" : s->objective == SRCH_ENERGY ? "energy" : s->counter;
}

char *srch_spec_text(const srch_spec *s)
{
    return tl_xasprintf("strategy=%s;budget=%s:%.15g;objective=%s;better=%s;seed=%llu",
                        srch_strategy_name(s->strategy), srch_budget_names[s->budget_kind], s->budget,
                        srch_objective_name(s), s->higher_better ? "higher" : "lower", (unsigned long long)s->seed);
}

int srch_budget_cases(const srch_spec *s, const srch_space *sp)
{
    if (s->budget_kind == SRCH_CASES) return (int)fmin(s->budget, 2e9);
    if (s->budget_kind == SRCH_FRACTION) {
        double n = ceil(s->budget * sp->npoints - 1e-9);
        return n < 1 ? 1 : (int)n;
    }
    return 0;
}
