#include "runner/config/cfg_search.h"

#include "runner/measure/counters.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_budget(cfg_node_ctx *c, yaml_node_t *n, search_spec *s)
{
    static const char *const keys[] = {"cases", "fraction", "seconds", NULL};
    cfg_node_pair pr[3];
    int np;
    if (n->type != YAML_MAPPING_NODE)
        return cfg_node_fail(c, n, "search.budget", "expected a mapping of one of cases, fraction or seconds ({cases: 200}, "
                                                "{fraction: 0.05}, {seconds: 600}), got %s", cfg_node_kind_name(n));
    if (cfg_node_pairs(c, n, "search.budget", keys, pr, 3, &np)) return -1;
    if (np != 1)
        return cfg_node_fail(c, n, "search.budget", "give one of cases, fraction or seconds (it has %d)", np);
    yaml_node_t *v = pr[0].value;
    s->budget_line = (int)v->start_mark.line + 1, s->budget_col = (int)v->start_mark.column + 1;
    if (!strcmp(pr[0].key, "cases")) {
        long k;
        if (cfg_node_int(c, v, "search.budget.cases", 1, 1L << 40, &k)) return -1;
        s->budget_kind = SEARCH_CASES, s->budget = (double)k;
    } else {
        double d;
        int frac = !strcmp(pr[0].key, "fraction");
        if (cfg_node_double(c, v, frac ? "search.budget.fraction" : "search.budget.seconds", 0, frac ? 1 : 1e9, &d)) return -1;
        if (!(d > 0))
            return cfg_node_fail(c, v, frac ? "search.budget.fraction" : "search.budget.seconds",
                             "must be more than 0 (a search of nothing)");
        s->budget_kind = frac ? SEARCH_FRACTION : SEARCH_SECONDS, s->budget = d;
    }
    return 0;
}

static int parse_objective(cfg_node_ctx *c, yaml_node_t *n, search_spec *s)
{
    if (cfg_node_expect(c, n, YAML_SCALAR_NODE, "search.objective")) return -1;
    const char *v = cfg_node_scalar(n);
    if (!strcmp(v, "time")) s->objective = SEARCH_TIME;
    else if (!strcmp(v, "energy")) s->objective = SEARCH_ENERGY;
    else if (counters_name_ok(v)) s->objective = SEARCH_COUNTER, s->counter = tl_xstrdup(v);
    else
        return cfg_node_fail(c, n, "search.objective", "unknown objective '%s' (time, energy, or a counter's metric name "
                                                   "such as dram__bytes_read.sum: runner list counters)", v);
    return 0;
}

int cfg_search_parse(cfg_node_ctx *c, yaml_node_t *n, uint64_t seed, search_spec **out)
{
    static const char *const keys[] = {"strategy", "budget", "objective", "better", "seed", NULL};
    cfg_node_pair pr[5];
    int np, which;
    if (n->type != YAML_MAPPING_NODE)
        return cfg_node_fail(c, n, "search", "expected a mapping (strategy, budget, objective, better, seed), got %s",
                         cfg_node_kind_name(n));
    if (cfg_node_pairs(c, n, "search", keys, pr, 5, &np)) return -1;
    static const char *const required[] = {"strategy", "budget"};
    for (int i = 0; i < 2; i++)
        if (!cfg_node_find(pr, np, required[i])) return cfg_node_fail(c, n, "search", "'%s' is missing", required[i]);
    search_spec *s = *out = tl_xcalloc(1, sizeof *s);
    s->line = (int)n->start_mark.line + 1, s->col = (int)n->start_mark.column + 1;
    s->seed = seed;
    yaml_node_t *v;
    const char *names[SEARCH_MAX_STRATEGIES];
    for (int st = 0; st < search_nstrategies; st++) names[st] = search_strategy_name(st);
    if (cfg_node_choice(c, cfg_node_find(pr, np, "strategy"), "search.strategy", names, search_nstrategies, &which))
        return -1;
    s->strategy = which;
    if (parse_budget(c, cfg_node_find(pr, np, "budget"), s)) return -1;
    yaml_node_t *objective = cfg_node_find(pr, np, "objective");
    if (objective && parse_objective(c, objective, s)) return -1;
    yaml_node_t *at = objective ? objective : n;
    s->objective_line = (int)at->start_mark.line + 1, s->objective_col = (int)at->start_mark.column + 1;
    if ((v = cfg_node_find(pr, np, "better"))) {
        static const char *const better[] = {"lower", "higher"};
        if (cfg_node_choice(c, v, "search.better", better, 2, &s->higher_better)) return -1;
        if (s->higher_better && s->objective != SEARCH_COUNTER)
            return cfg_node_fail(c, v, "search.better", "a %s is better lower; `better: higher` is for a counter (a "
                                                    "throughput, a hit rate)", search_objective_name(s));
    }
    if ((v = cfg_node_find(pr, np, "seed"))) {
        long given;
        if (cfg_node_int(c, v, "search.seed", 0, 0x7fffffffffffffffL, &given)) return -1;
        s->seed = (uint64_t)given;
    }
    return 0;
}
