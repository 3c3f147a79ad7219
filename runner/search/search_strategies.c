/* The search strategies, one row each: a strategy is its file (search_<name>.c, defining search_<name>) and its row
 * here. The YAML's `strategy:` choices, search-replay's --strategy and their help come from this table. */
#include "runner/search/search_run.h"

#include <stdio.h>
#include <string.h>

extern const search_strategy search_random, search_genetic, search_local, search_bayes;

const search_strategy *const search_strategies[] = {
    &search_random,
    &search_genetic,
    &search_local,
    &search_bayes,
};
const int search_nstrategies = sizeof search_strategies / sizeof *search_strategies;

search_run *search_start(const search_space *sp, int st, uint64_t seed)
{
    search_run *r = search_run_new(sp, seed);
    r->ops = &search_strategies[st]->ops;
    r->impl = search_strategies[st]->make ? search_strategies[st]->make(r) : NULL;
    return r;
}

const char *search_strategy_name(int st)
{
    return st >= 0 && st < search_nstrategies ? search_strategies[st]->name : "?";
}

const char *search_strategy_help(int st)
{
    return st >= 0 && st < search_nstrategies ? search_strategies[st]->help : "";
}

int search_strategy_find(const char *name)
{
    for (int st = 0; st < search_nstrategies; st++)
        if (!strcmp(search_strategies[st]->name, name)) return st;
    return -1;
}

void search_strategy_list(const char *sep, const char *last, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (int st = 0; st < search_nstrategies && at < n; st++) {
        const char *s = st == 0 ? "" : st == search_nstrategies - 1 ? last : sep;
        int k = snprintf(out + at, n - at, "%s%s", s, search_strategies[st]->name);
        if (k < 0) break;
        at += (size_t)k;
    }
}
