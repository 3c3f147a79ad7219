/* runner search-replay: a search strategy run against the measured cases of a result file, without a GPU. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cmd/cmd.h"
#include "runner/search/search_driver.h"
#include "runner/store/h5in.h"
#include "runner/store/h5src.h"

static const char help[] =
    "Runs a search strategy against the cases a result file holds, as if each were measured again: the\n"
    "file is the search's cache, so no GPU is needed. On a file of a full sweep this shows what a search\n"
    "would have found with a budget, against the optimum the sweep measured; on a file a search made,\n"
    "it proposes what that search did (the same seed and outcomes give the same proposals). A point the\n"
    "file lacks counts as one the device could not run. Prints, per search (problem and variant entry)\n"
    "and strategy, the best found over the file's optimum (1: the optimum), median and worst over the\n"
    "seeds.\n";

static const char notes[] =
    "exit codes: 0 replayed; 2 bad input (a file that is not a consistent tilelab result file, an\n"
    "option, nothing to search).\n";

/* The strategies, from their table (runner/search/search_strategies.c). */
static void strategies_help(FILE *f)
{
    fprintf(f, "\nstrategies:\n");
    for (int st = 0; st < search_nstrategies; st++) fprintf(f, "  %-21s %s\n", search_strategy_name(st), search_strategy_help(st));
}

typedef struct {
    const char *h5, *strategy, *budget, *objective, *trace;
    int better_higher, seeds, have_seed;
    unsigned long long seed;
} replay_opts;

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "runner search-replay: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (runner search-replay --help)\n");
    return -1;
}

static int set_better(void *opts, const char *v)
{
    if (strcmp(v, "higher") && strcmp(v, "lower")) return bad("--better takes higher or lower, not '%s'", v);
    ((replay_opts *)opts)->better_higher = !strcmp(v, "higher");
    return 1;
}

static int set_seed(void *opts, const char *v)
{
    replay_opts *o = opts;
    char *end;
    errno = 0;
    o->seed = strtoull(v, &end, 10);
    if (*end || end == v || !isdigit((unsigned char)*v) || errno == ERANGE)
        return bad("--seed takes a number 0 .. 18446744073709551615, not '%s'", v);
    o->have_seed = 1;
    return 1;
}

static const cmd_option table[] = {
    CMD_STR("--strategy", "S", replay_opts, strategy, "a strategy below, or all (default: the file's `search:`)"),
    CMD_STR("--budget", "B", replay_opts, budget,
            "N or cases:N, F% or fraction:F, Ns or seconds:S (the cases' wall time as\n"
            "the file recorded it); a search (default: the file's `search:`)"),
    CMD_STR("--objective", "O", replay_opts, objective,
            "time, energy or a counter the file holds (default: the file's, else time)"),
    CMD_FN("--better", "higher", set_better, "for a counter where higher is better"),
    CMD_FN("--seed", "N", set_seed, "the first seed (default: the file's search seed, else the experiment's)"),
    CMD_INT("--seeds", "K", replay_opts, seeds, 1, 10000, "seeds N .. N + K - 1, each a search of its own (default 1)"),
    CMD_STR("--trace", "FILE.csv", replay_opts, trace,
            "every evaluation: strategy, seed, search, step, case_id, params, objective,\n"
            "best so far, optimum, proposer"),
    CMD_END,
};
static const cmd_option *const options[] = {table, NULL};

static int parse_args(int argc, char **argv, replay_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seeds = 1;
    const char *words[2];
    int nw;
    if (cmd_parse("search-replay", options, argc, argv, o, words, 2, &nw)) return -1;
    if (nw == 2) return bad("one result file, not also '%s'", words[1]);
    if (nw == 0) return bad("%s", "which result file?");
    o->h5 = words[0];
    return 0;
}

/* --budget: "60", "cases:60", "5%", "fraction:0.05", "600s", "seconds:600". */
static int parse_budget(const char *b, search_spec *s)
{
    char *end;
    double v;
    const char *colon = strchr(b, ':');
    if (colon) {
        v = strtod(colon + 1, &end);
        if (*end) return -1;
        size_t k = (size_t)(colon - b);
        if (k == 5 && !strncmp(b, "cases", 5)) s->budget_kind = SEARCH_CASES;
        else if (k == 8 && !strncmp(b, "fraction", 8)) s->budget_kind = SEARCH_FRACTION;
        else if (k == 7 && !strncmp(b, "seconds", 7)) s->budget_kind = SEARCH_SECONDS;
        else return -1;
    } else {
        v = strtod(b, &end);
        if (!strcmp(end, "%")) s->budget_kind = SEARCH_FRACTION, v /= 100;
        else if (!strcmp(end, "s")) s->budget_kind = SEARCH_SECONDS;
        else if (!*end && v == floor(v)) s->budget_kind = SEARCH_CASES;
        else return -1;
    }
    if (!(v > 0) || (s->budget_kind == SEARCH_FRACTION && v > 1)) return -1;
    s->budget = v;
    return 0;
}

/* The spec the replay runs: the file's `search:`, with the options over it. */
static int make_spec(const replay_opts *o, tl_experiment *x, search_spec *s)
{
    if (x->search) {
        *s = *x->search;
        s->counter = x->search->counter ? tl_xstrdup(x->search->counter) : NULL;
    } else {
        memset(s, 0, sizeof *s);
        s->seed = x->seed;
        if (!o->budget) return bad("%s has no `search:`: say --budget", o->h5);
        if (!o->strategy) return bad("%s has no `search:`: say --strategy", o->h5);
    }
    if (o->budget && parse_budget(o->budget, s)) return bad("--budget '%s' is not N, cases:N, F%%, fraction:F, Ns or "
                                                            "seconds:S (more than 0; a fraction at most 1)", o->budget);
    if (o->objective) {
        free(s->counter), s->counter = NULL;
        if (!strcmp(o->objective, "time")) s->objective = SEARCH_TIME;
        else if (!strcmp(o->objective, "energy")) s->objective = SEARCH_ENERGY;
        else if (counters_name_ok(o->objective)) s->objective = SEARCH_COUNTER, s->counter = tl_xstrdup(o->objective);
        else return bad("--objective '%s' is not time, energy or a counter's metric name", o->objective);
    }
    if (o->better_higher && s->objective != SEARCH_COUNTER) return bad("%s", "--better higher is for a counter objective");
    s->higher_better = o->better_higher || (s->higher_better && !o->objective);
    if (o->have_seed) s->seed = (uint64_t)o->seed;
    return 0;
}

/* The best objective of search sc among the file's ok points (NAN when none). */
static double optimum(const search_space *sc, const search_held *held, int higher)
{
    double best = NAN;
    for (int k = 0; k < sc->npoints; k++) {
        const search_held *h = &held[sc->plan_index[k]];
        if (!h->status || strcmp(h->status, "ok") || !isfinite(h->objective)) continue;
        if (isnan(best) || (higher ? h->objective > best : h->objective < best)) best = h->objective;
    }
    return best;
}

static double quality(double found, double opt, int higher)
{
    if (!isfinite(found) || !isfinite(opt)) return 0;
    return higher ? found / opt : opt / found;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* One strategy over every search, each seed: the trace rows and, per search, the quality of each seed. */
static void replay_strategy(tl_experiment *x, const tl_plan *p, const search_plan *sp, const search_held *held,
                            const unsigned char *todo, int seeds, FILE *trace, double *q)
{
    search_spec *s = x->search;
    uint64_t seed0 = s->seed;
    for (int k = 0; k < seeds; k++) {
        s->seed = seed0 + (uint64_t)k;
        search_driver *d = search_driver_new(x, p, sp, todo, held);
        while (search_driver_next(d) >= 0) {} /* every case is the file's: none is handed out to run */
        for (int c = 0; c < sp->nspaces; c++) {
            const search_result *r = search_driver_result(d, c);
            double opt = optimum(&sp->spaces[c], held, s->higher_better);
            q[(size_t)c * seeds + k] = quality(r->best, opt, s->higher_better);
            if (!trace) continue;
            char *label = search_space_label(p, &sp->spaces[c]);
            for (int t = 0; t < search_driver_trace_len(d, c); t++) {
                search_trace_row row;
                search_driver_trace_row(d, c, t, &row);
                fprintf(trace, "%s,%llu,", search_strategy_name(s->strategy), (unsigned long long)s->seed);
                csv_field(trace, label);
                fprintf(trace, ",%d,%s,", row.step, p->cases[row.plan_index].id);
                csv_field(trace, p->cases[row.plan_index].params_text);
                fprintf(trace, ",%.9g,%.9g,%.9g,%.9g,", row.objective, row.best, opt, row.cost_s);
                csv_field(trace, row.why);
                fputc('\n', trace);
            }
            free(label);
        }
        search_driver_free(d);
    }
    s->seed = seed0;
}

static int replay(const replay_opts *o, tl_experiment *x, hid_t f)
{
    tl_plan p = {0};
    search_plan sp = {0};
    search_held *held = NULL;
    tl_err e;
    int rc = TL_EXIT_BAD_INPUT, first = 0, last = search_nstrategies - 1;
    FILE *trace = NULL;
    plan_limits lim = {0};
    if (plan_expand(x, &lim, &p, &e) || search_plan_make(x, &p, &sp, &e) ||
        search_held_read(f, o->h5, &p, x->search, &held, &e)) {
        fprintf(stderr, "runner search-replay: %s\n", e.msg);
        goto out;
    }
    if (o->strategy && strcmp(o->strategy, "all")) {
        if ((first = search_strategy_find(o->strategy)) < 0) {
            char names[512];
            search_strategy_list(", ", ", ", names, sizeof names);
            fprintf(stderr, "runner search-replay: --strategy '%s' is not %s or all (runner search-replay --help)\n",
                    o->strategy, names);
            goto out;
        }
        last = first;
    } else if (!o->strategy) {
        first = last = x->search->strategy;
    }
    if (o->trace && !(trace = fopen(o->trace, "w"))) {
        fprintf(stderr, "runner search-replay: %s: cannot write it\n", o->trace);
        goto out;
    }
    if (trace) fprintf(trace, "strategy,seed,search,step,case_id,params,objective,best,optimum,cost_s,proposer\n");
    int largest = 0, measured = 0;
    for (int c = 0; c < sp.nspaces; c++) {
        const search_space *sc = &sp.spaces[c];
        if (sc->npoints > largest) largest = sc->npoints;
        for (int k = 0; k < sc->npoints; k++) {
            const search_held *h = &held[sc->plan_index[k]];
            measured |= h->status && !strcmp(h->status, "ok") && isfinite(h->objective);
        }
    }
    if (!measured) {
        char *what = search_spec_text(x->search);
        fprintf(stderr, "runner search-replay: %s: none of its searches' points has a value of the objective (%s): "
                        "name one the file holds with --objective\n", o->h5, what);
        free(what);
        goto out;
    }
    if (x->search->budget_kind == SEARCH_CASES && x->search->budget > largest) {
        fprintf(stderr, "runner search-replay: --budget %g cases is over the space (the largest search has %d points)\n",
                x->search->budget, largest);
        goto out;
    }
    unsigned char *todo = tl_xcalloc((size_t)p.ncases + 1, 1); /* nothing to run: everything is the file's */
    double *q = tl_xcalloc((size_t)sp.nspaces * o->seeds + 1, sizeof *q);
    char *spec = search_spec_text(x->search);
    printf("%s: %d search%s, %d seed%s from %llu; %s\n", o->h5, sp.nspaces, sp.nspaces == 1 ? "" : "es", o->seeds,
           o->seeds == 1 ? "" : "s", (unsigned long long)x->search->seed, spec);
    printf("%-52s %-8s %7s %7s %9s %9s\n", "search", "strategy", "points", "budget", "median", "worst");
    free(spec);
    for (int st = first; st <= last; st++) {
        x->search->strategy = st;
        replay_strategy(x, &p, &sp, held, todo, o->seeds, trace, q);
        for (int c = 0; c < sp.nspaces; c++) {
            double *qs = q + (size_t)c * o->seeds;
            qsort(qs, (size_t)o->seeds, sizeof *qs, by_double);
            double med = o->seeds % 2 ? qs[o->seeds / 2] : 0.5 * (qs[o->seeds / 2 - 1] + qs[o->seeds / 2]);
            char *label = search_space_label(&p, &sp.spaces[c]);
            char budget[32]; /* a time budget is spent as the cases' measured wall time, not a count */
            if (x->search->budget_kind == SEARCH_SECONDS) snprintf(budget, sizeof budget, "%gs", x->search->budget);
            else snprintf(budget, sizeof budget, "%d", search_budget_cases(x->search, &sp.spaces[c]));
            printf("%-52s %-8s %7d %7s %9.4f %9.4f\n", label, search_strategy_name(st), sp.spaces[c].npoints, budget,
                   med, qs[0]);
            free(label);
        }
    }
    printf("(the best found over the file's optimum for that search: 1 is the optimum)\n");
    free(todo), free(q);
    rc = TL_EXIT_OK;
out:
    if (trace && fclose(trace)) {
        fprintf(stderr, "runner search-replay: %s: the write failed\n", o->trace);
        rc = TL_EXIT_BAD_INPUT;
    }
    free(held);
    if (sp.spaces) search_plan_free(&sp);
    plan_free(&p);
    return rc;
}

static int replay_main(int argc, char **argv, const cmd_line *line)
{
    (void)line;
    replay_opts o;
    if (parse_args(argc, argv, &o)) return TL_EXIT_BAD_INPUT;
    tl_err e;
    h5in_source src;
    source_store store;
    tl_experiment x = {0};
    search_spec spec = {0}, *was;
    int nfiles, rc = TL_EXIT_BAD_INPUT;
    char *h5 = tl_user_path(o.h5);
    hid_t f = h5in_open(h5, &e);
    if (f < 0 || h5in_read_source(f, h5, &src, &e)) {
        fprintf(stderr, "runner search-replay: %s\n", e.msg);
        if (f >= 0) H5Fclose(f);
        free(h5);
        return rc;
    }
    char *label = tl_xasprintf("%s:config_yaml", o.h5);
    if (h5src_load_store(f, h5, 0, &store, &nfiles, &e) ||
        config_parse_with(label, src.config_yaml, strlen(src.config_yaml), &store, &x, &e)) {
        fprintf(stderr, "runner search-replay: %s\n", e.msg);
    } else if (make_spec(&o, &x, &spec) == 0) {
        was = x.search;
        x.search = &spec;
        o.h5 = h5;
        rc = replay(&o, &x, f);
        x.search = was;
    }
    search_spec_free(&spec);
    free(label);
    H5Fclose(f);
    config_free(&x);
    h5in_source_free(&src);
    free(h5);
    return rc;
}

const cmd_def cmd_search_replay = {
    .name = "search-replay",
    .synopsis = "search-replay RESULT.h5 [--strategy S|all] [--budget B] [--seeds K] [--trace FILE.csv]",
    .summary = "run a search strategy against the measured cases of a result file, without a GPU",
    .help = help,
    .options = options,
    .notes = notes,
    .help_table = strategies_help,
    .main = replay_main,
};
