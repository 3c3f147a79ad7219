/* The search strategies, one row each: a strategy is its file (search_<name>.c, defining srch_<name>) and its row
 * here. The YAML's `strategy:` choices, search-replay's --strategy and their help come from this table. */
#include "runner/search/search_run.h"

#include <stdio.h>
#include <string.h>

extern const srch_strategy srch_random, srch_genetic, srch_local, srch_bayes;

const srch_strategy *const srch_strategies[] = {
    &srch_random,
    &srch_genetic,
    &srch_local,
    &srch_bayes,
};
const int srch_nstrategies = sizeof srch_strategies / sizeof *srch_strategies;

srch_run *srch_start(const srch_space *sp, int st, uint64_t seed)
{
    srch_run *r = srch_run_new(sp, seed);
    r->ops = &srch_strategies[st]->ops;
    r->impl = srch_strategies[st]->make ? srch_strategies[st]->make(r) : NULL;
    return r;
}

const char *srch_strategy_name(int st)
{
    return st >= 0 && st < srch_nstrategies ? srch_strategies[st]->name : "?";
}

const char *srch_strategy_help(int st)
{
    return st >= 0 && st < srch_nstrategies ? srch_strategies[st]->help : "";
}

int srch_strategy_find(const char *name)
{
    for (int st = 0; st < srch_nstrategies; st++)
        if (!strcmp(srch_strategies[st]->name, name)) return st;
    return -1;
}

void srch_strategy_list(const char *sep, const char *last, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (int st = 0; st < srch_nstrategies && at < n; st++) {
        const char *s = st == 0 ? "" : st == srch_nstrategies - 1 ? last : sep;
        int k = snprintf(out + at, n - at, "%s%s", s, srch_strategies[st]->name);
        if (k < 0) break;
        at += (size_t)k;
    }
}
