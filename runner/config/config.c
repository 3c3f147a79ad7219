#include "runner/config/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <yaml.h>

#include "runner/config/cfg_decl.h"
#include "runner/config/cfg_node.h"
#include "runner/config/cfg_op.h"
#include "runner/config/cfg_search.h"
#include "runner/config/cfg_values.h"
#include "runner/ops/decl.h"
#include "runner/ops/dispatch.h"
#include "runner/ops/registry_lookup.h"

/* ---- variants -------------------------------------------------------------------------- */

static int parse_measure(cfg_node_ctx *c, yaml_node_t *n, const char *prefix, measure_protocol *m);

/* `counters:` at the top (field "counters") or in a variant: a set or metric name, or a list of them. */
static int parse_counters(cfg_node_ctx *c, yaml_node_t *n, const char *field, counters_list *l)
{
    counters_list_free(l);
    l->text = tl_xstrdup("");
    yaml_node_item_t one = 0, *items = &one, *top = &one + 1;
    if (n->type == YAML_SEQUENCE_NODE) {
        items = n->data.sequence.items.start;
        top = n->data.sequence.items.top;
    } else if (n->type != YAML_SCALAR_NODE) {
        return cfg_node_fail(c, n, field, "expected a metric or set name, or a list of them, like [memory, "
                                    "dram__bytes_read.sum], got %s", cfg_node_kind_name(n));
    }
    for (yaml_node_item_t *it = items; it < top; it++) {
        yaml_node_t *item = it == &one ? n : cfg_node_node(c, *it);
        if (item->type != YAML_SCALAR_NODE)
            return cfg_node_fail(c, item, field, "each item must be a metric or set name, got %s", cfg_node_kind_name(item));
        tl_err why;
        if (counters_list_add(l, cfg_node_scalar(item), (int)item->start_mark.line + 1, (int)item->start_mark.column + 1, &why))
            return cfg_node_fail(c, item, field, "%s", why.msg);
    }
    return 0;
}

static int parse_params(cfg_node_ctx *c, yaml_node_t *n, const char *field, cfg_variant *cv)
{
    const reg_variant *v = cv->v;
    cfg_node_pair pr[REG_MAX_PARAMS];
    int np;
    if (n->type == YAML_MAPPING_NODE && n->data.mapping.pairs.top - n->data.mapping.pairs.start > REG_MAX_PARAMS)
        return cfg_node_fail(c, n, field, "too many params");
    if (cfg_node_pairs(c, n, field, NULL, pr, REG_MAX_PARAMS, &np)) return -1;
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    for (int i = 0; i < np; i++, p++) {
        int k = reg_find_param(v, pr[i].key);
        if (k < 0) {
            char list[256] = "";
            for (int j = 0; j < v->nparams; j++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "", v->params[j].name);
            return cfg_node_fail(c, cfg_node_node(c, p->key), field, "variant '%s' has no param '%s' (its params: %s)", v->name,
                           pr[i].key, v->nparams ? list : "none");
        }
        char f2[128];
        snprintf(f2, sizeof f2, "%s.%s", field, pr[i].key);
        free(cv->values[k]);
        if (cfg_values_parse(c, pr[i].value, f2, -(1L << 30), 1L << 30, &cv->values[k], &cv->nvalues[k])) return -1;
    }
    return 0;
}

/* The keys both kinds of variant take. */
static int parse_variant_common(cfg_node_ctx *c, yaml_node_t *n, yaml_node_t *measure, yaml_node_t *counters,
                                const char *field, cfg_variant *cv, tl_experiment *x)
{
    counters_list_copy(&cv->counters, &x->counters);
    if (counters) {
        char f2[80];
        snprintf(f2, sizeof f2, "%s.counters", field);
        if (parse_counters(c, counters, f2, &cv->counters)) return -1;
    }
    if (measure) {
        char f2[80];
        snprintf(f2, sizeof f2, "%s.measure", field);
        if (parse_measure(c, measure, f2, &cv->protocol)) return -1;
    }
    if (x->verify == CFG_VERIFY_EVERY && cv->protocol.batch > 1)
        return cfg_node_fail(c, measure ? measure : n, field,
                       "verify: every checks each run, so it needs batch: 1 (a batch repeats runs on one output)");
    return 0;
}

/* A dispatching variant's table: the registry's (kernels/), or `table:`, a file of the experiment's
 * folder, or `table: tilelab:OP/NAME.table`, another of the tables this runner carries (kernels/OP/,
 * e.g. one measured on another GPU). Read through the store, so the result file carries it; so are the
 * rungs it names. */
static int load_table(cfg_node_ctx *c, yaml_node_t *node, const char *field, cfg_variant *cv, tl_experiment *x)
{
    char f2[80];
    snprintf(f2, sizeof f2, "%s.table", field);
    if (node && cfg_node_expect(c, node, YAML_SCALAR_NODE, f2)) return -1;
    const char *origin = node ? SOURCE_EXPERIMENT : SOURCE_TILELAB, *path = node ? cfg_node_scalar(node) : cv->v->table;
    if (node && !strncmp(path, TILELAB_TABLE_PREFIX, strlen(TILELAB_TABLE_PREFIX))) {
        origin = SOURCE_TILELAB;
        path += strlen(TILELAB_TABLE_PREFIX);
        if (!reg_is_table_of(path, x->op->name)) {
            char list[1024];
            reg_list_tables(x->op->name, list, sizeof list);
            return cfg_node_fail(c, node, f2, "'%s' names no table this runner carries for op %s (%s)", cfg_node_scalar(node),
                           x->op->name, list);
        }
        if (!x->store.tilelab_preloaded && !reg_find_source(path)) { /* rerun: the file's copy */
            char list[1024];
            reg_list_tables(x->op->name, list, sizeof list);
            return cfg_node_fail(c, node, f2, "this runner carries no table kernels/%s (%s)", path, list);
        }
    }
    if (source_resolve_table(&x->store, origin, path, &cv->src, c->e)) {
        if (node)
            tl_err_wrap(c->e, "%s:%lu:%lu: %s", c->path, (unsigned long)node->start_mark.line + 1,
                        (unsigned long)node->start_mark.column + 1, f2);
        return -1;
    }
    const source_file *f = &x->store.files[cv->src.files[0]];
    char *name = source_display(&x->store, f);
    cv->table = tl_xcalloc(1, sizeof *cv->table);
    int rc = dispatch_parse(x->op, name, f->text, f->len, cv->table, c->e);
    free(name);
    if (rc && node)
        tl_err_wrap(c->e, "%s:%lu:%lu: %s", c->path, (unsigned long)node->start_mark.line + 1,
                    (unsigned long)node->start_mark.column + 1, f2);
    if (rc) {
        free(cv->table);
        cv->table = NULL;
        return -1;
    }
    cv->run_src = tl_xcalloc((size_t)x->op->nvariants, sizeof *cv->run_src);
    for (int i = 0; i < cv->table->n; i++) {
        const reg_variant *v = cv->table->rows[i].v;
        source_set *s = &cv->run_src[v - x->op->variants];
        if (s->n == 0 && source_resolve(&x->store, SOURCE_TILELAB, v->source, s, c->e)) return -1;
    }
    return 0;
}

static int parse_registered(cfg_node_ctx *c, yaml_node_t *name, yaml_node_t *params, yaml_node_t *table, yaml_node_t *trials,
                            const char *field, cfg_variant *cv, tl_experiment *x)
{
    cv->v = reg_find_variant(x->op, cfg_node_scalar(name));
    if (!cv->v && x->dop)
        return cfg_node_fail(c, name, field, "'%s': op %s is declared in this file, so its variants are too: each needs "
                                         "`source:`, `block:` and `grid:`", cfg_node_scalar(name), x->op->name);
    if (!cv->v) {
        char list[1024] = "";
        for (int i = 0; i < x->op->nvariants; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", x->op->variants[i].name);
        return cfg_node_fail(c, name, field, "op '%s' has no variant '%s' (variants: %s; a variant of your own needs "
                                       "`source:`)", x->op->name, cfg_node_scalar(name), list);
    }
    cv->origin = SOURCE_TILELAB;
    for (int k = 0; k < cv->v->nparams; k++) {
        cv->values[k] = tl_xmalloc(sizeof(long));
        cv->values[k][0] = cv->v->params[k].def;
        cv->nvalues[k] = 1;
    }
    if (params) {
        char f2[80];
        snprintf(f2, sizeof f2, "%s.params", field);
        if (parse_params(c, params, f2, cv)) return -1;
    }
    if (table && !cv->v->table)
        return cfg_node_fail(c, table, field, "table: belongs to a dispatching variant; %s is not one", cv->v->name);
    if (trials && !cv->v->table)
        return cfg_node_fail(c, trials, field, "trials: belongs to a dispatching variant; %s is not one", cv->v->name);
    if (cv->v->table) {
        long k = CFG_TRIALS;
        char f2[80];
        snprintf(f2, sizeof f2, "%s.trials", field);
        if (trials && cfg_node_int(c, trials, f2, 1, CFG_MAX_TRIALS, &k)) return -1;
        cv->trials = (int)k;
        return load_table(c, table, field, cv, x);
    }
    if (cv->v->kind == REG_NVRTC && source_resolve(&x->store, SOURCE_TILELAB, cv->v->source, &cv->src, c->e)) {
        tl_err_wrap(c->e, "%s:%lu: %s", c->path, (unsigned long)name->start_mark.line + 1, field);
        return -1;
    }
    return 0;
}

static int parse_variant(cfg_node_ctx *c, yaml_node_t *n, int index, tl_experiment *x)
{
    static const char *const keys[] = {"name", "params", "measure", "counters", "source", "entry", "block", "grid",
                                        "smem", "requires", "table", "trials", "kernels", "workspace", "library",
                                        "args", NULL};
    char field[64];
    snprintf(field, sizeof field, "variants[%d]", index);
    cfg_variant *cv = &x->variants[index];
    cv->line = (int)n->start_mark.line + 1, cv->col = (int)n->start_mark.column + 1;
    cv->protocol = x->protocol;
    cfg_decl_nodes dn = {.name = n};
    yaml_node_t *measure = NULL, *counters = NULL, *table = NULL, *trials = NULL, *library = NULL, *args = NULL;
    if (n->type == YAML_MAPPING_NODE) {
        cfg_node_pair pr[16];
        int np;
        if (cfg_node_pairs(c, n, field, keys, pr, 16, &np)) return -1;
        yaml_node_t **slot[] = {&dn.name, &dn.params, &measure, &counters, &dn.source, &dn.entry, &dn.block, &dn.grid,
                                &dn.smem, &dn.requires, &table, &trials, &dn.kernels, &dn.workspace, &library, &args};
        dn.name = NULL;
        for (int i = 0; i < np; i++)
            for (int k = 0; keys[k]; k++)
                if (!strcmp(pr[i].key, keys[k])) *slot[k] = pr[i].value;
        if (!dn.name) return cfg_node_fail(c, n, field, "'name' is required");
    }
    if (dn.name->type != YAML_SCALAR_NODE)
        return cfg_node_fail(c, dn.name, field, "expected a variant name or {name: ..., params: {...}}, got %s",
                       cfg_node_kind_name(dn.name));
    if (library || args) {
        if (cfg_decl_library(c, &dn, library, args, field, index, cv, x)) return -1;
    } else if (!dn.source) {
        yaml_node_t *only = dn.entry ? dn.entry : dn.block ? dn.block : dn.grid ? dn.grid : dn.smem ? dn.smem
                            : dn.requires ? dn.requires : dn.kernels ? dn.kernels : dn.workspace;
        if (only)
            return cfg_node_fail(c, only, field, "entry, block, grid, smem, requires, kernels and workspace belong to a variant "
                                             "with `source:`");
        if (parse_registered(c, dn.name, dn.params, table, trials, field, cv, x)) return -1;
    } else if (table || trials) {
        return cfg_node_fail(c, table ? table : trials, field, "%s: belongs to a dispatching variant (e.g. tuned), not one "
                       "with `source:`", table ? "table" : "trials");
    } else if (cfg_decl_source(c, &dn, field, index, cv, x)) {
        return -1;
    }
    return parse_variant_common(c, n, measure, counters, field, cv, x);
}

static int parse_variants(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x)
{
    if (cfg_node_expect(c, n, YAML_SEQUENCE_NODE, "variants")) return -1;
    int count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (count == 0) return cfg_node_fail(c, n, "variants", "the list is empty");
    x->variants = tl_xcalloc((size_t)count, sizeof *x->variants);
    x->nvariants = count;
    for (int i = 0; i < count; i++)
        if (parse_variant(c, cfg_node_node(c, n->data.sequence.items.start[i]), i, x)) return -1;
    return 0;
}

/* ---- the small sections ---------------------------------------------------------------- */

static int parse_layout(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x)
{
    static const char *const names[] = {"row", "col"};
    cfg_node_pair pr[REG_MAX_OPERANDS];
    int np;
    if (cfg_node_pairs(c, n, "layout", NULL, pr, REG_MAX_OPERANDS, &np)) return -1;
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    for (int i = 0; i < np; i++, p++) {
        int o = -1;
        for (int j = 0; j < x->op->noperands; j++)
            if (!strcmp(x->op->operands[j], pr[i].key)) o = j;
        if (o < 0) return cfg_node_fail(c, cfg_node_node(c, p->key), "layout", "op '%s' has no operand '%s'", x->op->name, pr[i].key);
        char field[64];
        snprintf(field, sizeof field, "layout.%s", pr[i].key);
        yaml_node_t *v = pr[i].value;
        x->nlayouts[o] = 0;
        if (v->type == YAML_SEQUENCE_NODE) {
            int cnt = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
            if (cnt < 1 || cnt > 2) return cfg_node_fail(c, v, field, "expected row, col or [row, col]");
            for (int k = 0; k < cnt; k++) {
                int which;
                if (cfg_node_choice(c, cfg_node_node(c, v->data.sequence.items.start[k]), field, names, 2, &which)) return -1;
                x->layouts[o][x->nlayouts[o]++] = which;
            }
        } else {
            int which;
            if (cfg_node_choice(c, v, field, names, 2, &which)) return -1;
            x->layouts[o][x->nlayouts[o]++] = which;
        }
    }
    return 0;
}

/* dtype: one of the op's, or a list of them (a sweep axis). */
static int parse_dtypes(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x)
{
    const reg_op *op = x->op;
    if (n->type != YAML_SEQUENCE_NODE) return cfg_node_choice(c, n, "dtype", op->dtypes, op->ndtypes, &x->dtypes[0]);
    int cnt = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (cnt < 1 || cnt > op->ndtypes) return cfg_node_fail(c, n, "dtype", "expected 1 to %d of the op's dtypes", op->ndtypes);
    x->ndtypes = 0;
    for (int k = 0; k < cnt; k++) {
        yaml_node_t *item = cfg_node_node(c, n->data.sequence.items.start[k]);
        int which;
        if (cfg_node_choice(c, item, "dtype", op->dtypes, op->ndtypes, &which)) return -1;
        for (int j = 0; j < x->ndtypes; j++)
            if (x->dtypes[j] == which) return cfg_node_fail(c, item, "dtype", "'%s' is listed twice", op->dtypes[which]);
        x->dtypes[x->ndtypes++] = which;
    }
    return 0;
}

/* Every variant takes at least one of the dtypes swept (a case is planned for each it takes). */
static int check_variant_dtypes(cfg_node_ctx *c, tl_experiment *x)
{
    const reg_op *op = x->op;
    for (int i = 0; i < x->nvariants; i++) {
        const reg_variant *v = x->variants[i].v;
        int any = 0;
        for (int j = 0; j < x->ndtypes; j++) any |= reg_variant_takes(v, x->dtypes[j]);
        if (any) continue;
        char takes[64] = "", swept[64] = "";
        for (int d = 0; d < op->ndtypes; d++)
            if (reg_variant_takes(v, d)) snprintf(takes + strlen(takes), sizeof takes - strlen(takes), "%s%s", takes[0] ? ", " : "", op->dtypes[d]);
        for (int j = 0; j < x->ndtypes; j++)
            snprintf(swept + strlen(swept), sizeof swept - strlen(swept), "%s%s", j ? ", " : "", op->dtypes[x->dtypes[j]]);
        tl_err_set(c->e, "%s:%d: variants: %s takes dtype %s, not %s (runner list %s shows each variant's)", c->path,
                   x->variants[i].line, v->name, takes, swept, op->name);
        return -1;
    }
    return 0;
}

static int parse_args(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x)
{
    cfg_node_pair pr[REG_MAX_ARGS];
    int np;
    if (cfg_node_pairs(c, n, "args", NULL, pr, REG_MAX_ARGS, &np)) return -1;
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    for (int i = 0; i < np; i++, p++) {
        int a = -1;
        for (int j = 0; j < x->op->nargs; j++)
            if (!strcmp(x->op->args[j].name, pr[i].key)) a = j;
        if (a < 0) return cfg_node_fail(c, cfg_node_node(c, p->key), "args", "op '%s' has no arg '%s'", x->op->name, pr[i].key);
        char field[64];
        snprintf(field, sizeof field, "args.%s", pr[i].key);
        if (cfg_node_double(c, pr[i].value, field, -1e30, 1e30, &x->args[a])) return -1;
    }
    return 0;
}

static int parse_tolerance(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x)
{
    static const char *const keys[] = {"rtol", "atol", NULL};
    cfg_node_pair pr[2];
    int np;
    if (cfg_node_pairs(c, n, "tolerance", keys, pr, 2, &np)) return -1;
    for (int i = 0; i < np; i++) {
        double *dst = !strcmp(pr[i].key, "rtol") ? &x->tol.rtol : &x->tol.atol;
        char field[32];
        snprintf(field, sizeof field, "tolerance.%s", pr[i].key);
        if (cfg_node_double(c, pr[i].value, field, 0, 1, dst)) return -1;
    }
    return 0;
}

const char *const cfg_verify_names[] = {"off", "once", "every"};

/* `measure:` at the top (prefix "measure") or in a variant (prefix "variants[i].measure"). */
static int parse_measure(cfg_node_ctx *c, yaml_node_t *n, const char *prefix, measure_protocol *m)
{
    static const char *const keys[] = {"warmup", "warmup_s", "min_reps", "max_reps", "max_noise", "max_time_s",
                                       "l2_flush", "batch", "energy_s", NULL};
    cfg_node_pair pr[9];
    int np;
    long v;
    if (cfg_node_pairs(c, n, prefix, keys, pr, 9, &np)) return -1;
    for (int i = 0; i < np; i++) {
        const char *k = pr[i].key;
        char field[96];
        snprintf(field, sizeof field, "%s.%s", prefix, k);
        int rc;
        if (!strcmp(k, "warmup")) rc = cfg_node_int(c, pr[i].value, field, 0, 100000, &v), m->warmup = (int)v;
        else if (!strcmp(k, "warmup_s")) rc = cfg_node_double(c, pr[i].value, field, 0, 3600, &m->warmup_s);
        else if (!strcmp(k, "batch")) rc = cfg_node_int(c, pr[i].value, field, 1, 100000, &v), m->batch = (int)v;
        else if (!strcmp(k, "min_reps")) rc = cfg_node_int(c, pr[i].value, field, 1, 1000000, &v), m->min_reps = (int)v;
        else if (!strcmp(k, "max_reps")) rc = cfg_node_int(c, pr[i].value, field, 1, 1000000, &v), m->max_reps = (int)v;
        else if (!strcmp(k, "max_noise")) rc = cfg_node_double(c, pr[i].value, field, 0, 1, &m->max_noise);
        else if (!strcmp(k, "max_time_s")) rc = cfg_node_double(c, pr[i].value, field, 0, 86400, &m->max_time_s);
        else if (!strcmp(k, "energy_s")) rc = cfg_node_double(c, pr[i].value, field, 0, 3600, &m->energy_s);
        else rc = cfg_node_bool(c, pr[i].value, field, &m->l2_flush);
        if (rc) return -1;
    }
    if (m->min_reps > m->max_reps)
        return cfg_node_fail(c, n, prefix, "min_reps (%d) is above max_reps (%d)", m->min_reps, m->max_reps);
    return 0;
}

static int parse_name(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x)
{
    if (cfg_node_string(c, n, "name", &x->name)) return -1;
    if (!*x->name) return cfg_node_fail(c, n, "name", "must not be empty");
    for (const char *p = x->name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '-'))
            return cfg_node_fail(c, n, "name", "'%s' may hold only letters, digits, '_' and '-' (it names the output file)",
                           x->name);
    if (strlen(x->name) > CFG_MAX_NAME) /* results/<name>-<utc>.h5.tmp within a file name's 255 bytes */
        return cfg_node_fail(c, n, "name", "%zu characters, more than the %d a name may have (it names the output file)",
                         strlen(x->name), CFG_MAX_NAME);
    return 0;
}

/* ---- `search:` against the variants (runner/config/cfg_search.c parses it) ----------------------------- */

/* The points of variant entry cv's search before the rules: the product of its lists (1: nothing to search). */
static long long search_points(const cfg_variant *cv)
{
    long long n = 1;
    for (int k = 0; k < cv->v->nparams; k++)
        if (cv->nvalues[k] > 1 && (n *= cv->nvalues[k]) > (1LL << 50)) return 1LL << 50;
    return n;
}

/* Something to search, a budget of cases within a space, the objective's counter collected by every searched
 * variant; `objective: energy` gives the searched variants energy runs (SEARCH_ENERGY_S) where they have none. */
static int check_search(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x)
{
    const search_spec *s = x->search;
    long long largest = 1;
    for (int v = 0; v < x->nvariants; v++) {
        cfg_variant *cv = &x->variants[v];
        long long points = search_points(cv);
        if (points == 1) continue;
        if (points > largest) largest = points;
        if (s->objective == SEARCH_ENERGY && !(cv->protocol.energy_s > 0)) cv->protocol.energy_s = SEARCH_ENERGY_S;
        int found = s->objective != SEARCH_COUNTER;
        for (int k = 0; k < cv->counters.n && !found; k++) found = !strcmp(cv->counters.names[k], s->counter);
        if (!found) {
            tl_err_set(c->e, "%s:%d:%d: search.objective: '%s' is not among the counters variant '%s' collects (%s): "
                             "add it to `counters:`", c->path, s->objective_line, s->objective_col, s->counter,
                       cv->v->name, cv->counters.n ? cv->counters.text : "none");
            return -1;
        }
    }
    if (largest == 1)
        return cfg_node_fail(c, n, "search", "nothing to search: no variant has a param with a list of values (a search "
                                         "chooses among them)");
    if (s->budget_kind == SEARCH_CASES && s->budget > (double)largest) {
        tl_err_set(c->e, "%s:%d:%d: search.budget.cases: %.0f is over the space (the largest search has %lld points "
                         "before the rules); without `search:` the sweep measures every point",
                   c->path, s->budget_line, s->budget_col, s->budget, largest);
        return -1;
    }
    return 0;
}

/* ---- the document ---------------------------------------------------------------------- */

/* `op:` names a registered op, or declares one (a mapping: runner/config/cfg_op.h), whose buffers then say what the
 * registered ops' dtype, layout, args, data, reference and tolerance keys say. */
static int parse_op(cfg_node_ctx *c, yaml_node_t *n, cfg_node_pair *pr, int np, tl_experiment *x)
{
    if (n->type == YAML_MAPPING_NODE) {
        static const char *const keys[] = {"dtype", "layout", "args", "data", "reference", "tolerance"};
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
            yaml_node_t *k = cfg_node_find(pr, np, keys[i]);
            if (k) return cfg_node_fail(c, k, keys[i], "belongs to a registered op; a declared op's buffers give their types "
                                                   "and inits, and `op:` its reference and tolerance");
        }
        if (cfg_op_parse(c, n, &x->dop)) return -1;
        x->op = &x->dop->op;
        return 0;
    }
    if (cfg_node_expect(c, n, YAML_SCALAR_NODE, "op")) return -1;
    if (!(x->op = reg_find_op(cfg_node_scalar(n)))) {
        char list[256] = "";
        for (int i = 0; i < reg_nops; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", reg_ops[i]->name);
        return cfg_node_fail(c, n, "op", "unknown op '%s' (ops: %s; or declare one: `op: {name: ..., axes: [...], "
                                     "buffers: {...}, ...}`)", cfg_node_scalar(n), list);
    }
    return 0;
}

/* A declared op's reference is one of the experiment's variants. */
static int check_reference(cfg_node_ctx *c, tl_experiment *x)
{
    char list[1024] = "";
    for (int v = 0; v < x->nvariants; v++) {
        if (!strcmp(x->variants[v].v->name, x->dop->reference)) return 0;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", v ? ", " : "", x->variants[v].v->name);
    }
    tl_err_set(c->e, "%s:%d:%d: op.reference: '%s' is not a variant of this experiment (variants: %s)", c->path,
               x->dop->reference_line, x->dop->reference_col, x->dop->reference, list);
    return -1;
}

static int parse_root(cfg_node_ctx *c, yaml_node_t *root, tl_experiment *x)
{
    static const char *const keys[] = {"name", "description", "op", "seed", "dtype", "layout", "args", "sizes",
                                       "variants", "reference", "tolerance", "measure", "counters", "data", "verify",
                                       "case_timeout_s", "compile_timeout_s", "search", NULL};
    cfg_node_pair pr[20];
    int np;
    if (root->type != YAML_MAPPING_NODE)
        return cfg_node_fail(c, root, "experiment", "expected a mapping of fields (name, op, sizes, variants, ...), got %s",
                       cfg_node_kind_name(root));
    if (cfg_node_pairs(c, root, "experiment", keys, pr, 19, &np)) return -1;
    static const char *const required[] = {"name", "op", "seed", "sizes", "variants"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (!cfg_node_find(pr, np, required[i]))
            return cfg_node_fail(c, root, required[i], "required field is missing");

    yaml_node_t *n;
    if (parse_name(c, cfg_node_find(pr, np, "name"), x)) return -1;
    if ((n = cfg_node_find(pr, np, "description")) && cfg_node_string(c, n, "description", &x->description)) return -1;
    if (parse_op(c, cfg_node_find(pr, np, "op"), pr, np, x)) return -1;
    const reg_op *op = x->op;
    long seed;
    if (cfg_node_int(c, cfg_node_find(pr, np, "seed"), "seed", 0, 0x7fffffffffffffffL, &seed)) return -1;
    x->seed = (uint64_t)seed;
    x->dtypes[0] = 0, x->ndtypes = 1;
    int which;
    if ((n = cfg_node_find(pr, np, "dtype")) && parse_dtypes(c, n, x)) return -1;
    for (int o = 0; o < op->noperands; o++) x->layouts[o][0] = REG_ROW, x->nlayouts[o] = 1;
    if ((n = cfg_node_find(pr, np, "layout")) && parse_layout(c, n, x)) return -1;
    for (int a = 0; a < op->nargs; a++) x->args[a] = op->args[a].def;
    if ((n = cfg_node_find(pr, np, "args")) && parse_args(c, n, x)) return -1;
    if ((n = cfg_node_find(pr, np, "data"))) {
        if (cfg_node_choice(c, n, "data", reg_dist_names, REG_NDISTS, &which)) return -1;
        x->dist = (reg_dist)which;
    }
    x->verify = CFG_VERIFY_ONCE;
    if ((n = cfg_node_find(pr, np, "verify"))) {
        if (cfg_node_choice(c, n, "verify", cfg_verify_names, 3, &which)) return -1;
        x->verify = (cfg_verify)which;
    }
    if ((n = cfg_node_find(pr, np, "case_timeout_s")) && cfg_node_double(c, n, "case_timeout_s", 1, 86400, &x->case_timeout_s))
        return -1;
    if ((n = cfg_node_find(pr, np, "compile_timeout_s")) &&
        cfg_node_double(c, n, "compile_timeout_s", 1, 86400, &x->compile_timeout_s))
        return -1;
    if (cfg_values_sizes(c, cfg_node_find(pr, np, "sizes"), x)) return -1;
    x->protocol = measure_defaults;
    if ((n = cfg_node_find(pr, np, "measure")) && parse_measure(c, n, "measure", &x->protocol)) return -1;
    if ((n = cfg_node_find(pr, np, "counters")) && parse_counters(c, n, "counters", &x->counters)) return -1;
    if (parse_variants(c, cfg_node_find(pr, np, "variants"), x)) return -1;
    if (check_variant_dtypes(c, x)) return -1;
    if ((n = cfg_node_find(pr, np, "search")) && (cfg_search_parse(c, n, x->seed, &x->search) || check_search(c, n, x)))
        return -1;
    x->reference = op->references[0];
    if (x->dop && check_reference(c, x)) return -1;
    if ((n = cfg_node_find(pr, np, "reference"))) {
        if (cfg_node_choice(c, n, "reference", op->references, op->nreferences, &which)) return -1;
        x->reference = op->references[which];
    }
    /* Integer inputs give exact results: checked exactly unless the file says otherwise. */
    x->tol = config_tolerance(x, &(reg_spec){.dtype = x->dtypes[0]});
    if ((n = cfg_node_find(pr, np, "tolerance"))) {
        if (parse_tolerance(c, n, x)) return -1;
        x->tol_given = 1;
    }
    return 0;
}

reg_tolerance config_tolerance(const tl_experiment *x, const reg_spec *s)
{
    if (x->tol_given) return x->tol;
    if (x->dist == REG_INT) return x->op->tol_exact;
    return x->op->dtype_tol ? x->op->dtype_tol[s->dtype] : x->op->tol;
}

/* An experiment nests a few levels (op: buffers: x: init: normal: mean); libyaml's scanner takes time quadratic in
 * the depth, so a crafted file nested 100,000 deep would take minutes to be refused. The events are read once
 * first, and the first collection past the limit stops it at its place; so does a value with a NUL character
 * ("t\u0000x"), which every C string after this would cut short. */
static int check_events(const char *path, const char *text, size_t len, tl_err *e)
{
    yaml_parser_t p;
    yaml_event_t ev;
    int depth = 0, rc = 0, done = 0;
    if (!yaml_parser_initialize(&p)) {
        tl_err_set(e, "%s: libyaml could not initialise its parser", path);
        return -1;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    while (!done && !rc) {
        if (!yaml_parser_parse(&p, &ev)) break; /* the load below reports the syntax error */
        if (ev.type == YAML_SCALAR_EVENT && strlen((const char *)ev.data.scalar.value) != ev.data.scalar.length) {
            tl_err_set(e, "%s:%lu:%lu: experiment: a value holds a NUL character (\\0), which no name or text may hold",
                       path, (unsigned long)ev.start_mark.line + 1, (unsigned long)ev.start_mark.column + 1);
            rc = -1;
        } else if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
            if (++depth > CFG_MAX_DEPTH) {
                tl_err_set(e, "%s:%lu:%lu: experiment: nested more than %d deep: an experiment nests a few levels",
                           path, (unsigned long)ev.start_mark.line + 1, (unsigned long)ev.start_mark.column + 1,
                           CFG_MAX_DEPTH);
                rc = -1;
            }
        } else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return rc;
}

int config_parse_with(const char *path, const char *text, size_t len, source_store *store, tl_experiment *x, tl_err *e)
{
    yaml_parser_t parser;
    cfg_node_ctx c = {.path = path, .e = e};
    int rc = -1, have_doc = 0;
    memset(x, 0, sizeof *x);
    x->store = *store;
    memset(store, 0, sizeof *store); /* x owns it now */
    x->path = tl_xstrdup(path);
    c.path = x->path; /* a declared op keeps it for its messages */
    c.store = &x->store;
    x->yaml = tl_xmalloc(len + 1);
    memcpy(x->yaml, text, len);
    x->yaml[len] = '\0';
    x->yaml_len = len;
    tl_sha256_hex(text, len, x->sha256);

    if (len > CFG_MAX_BYTES) {
        tl_err_set(e, "%s:1:1: experiment: %zu bytes, more than the %d MiB an experiment file may take (data belong "
                   "in data files beside it)", path, len, CFG_MAX_BYTES >> 20);
        config_free(x);
        return -1;
    }
    if (check_events(path, text, len, e)) {
        config_free(x);
        return -1;
    }
    if (!yaml_parser_initialize(&parser)) {
        tl_err_set(e, "%s: libyaml could not initialise its parser", path);
        config_free(x);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &c.doc)) {
        unsigned long line = (unsigned long)parser.problem_mark.line + 1, col = (unsigned long)parser.problem_mark.column + 1;
        if (parser.error == YAML_READER_ERROR) { /* bad UTF-8: libyaml gives the byte's offset, not a mark */
            line = 1, col = 1;
            for (size_t i = 0; i < parser.problem_offset && i < len; i++) {
                if (text[i] == '\n') line++, col = 1;
                else if (((unsigned char)text[i] & 0xc0) != 0x80) col++;
            }
        }
        tl_err_set(e, "%s:%lu:%lu: YAML syntax: %s%s%s", path, line, col, parser.problem ? parser.problem : "invalid YAML",
                   parser.context ? " " : "", parser.context ? parser.context : "");
        goto out;
    }
    have_doc = 1;
    yaml_node_t *root = yaml_document_get_root_node(&c.doc);
    if (!root) {
        tl_err_set(e, "%s:1:1: experiment: the file is empty", path);
        goto out;
    }
    rc = parse_root(&c, root, x);
out:
    if (have_doc) yaml_document_delete(&c.doc);
    yaml_parser_delete(&parser);
    if (rc) config_free(x); /* nothing half-made is handed back */
    return rc;
}

int config_parse(const char *path, const char *text, size_t len, tl_experiment *x, tl_err *e)
{
    source_store store;
    source_store_init(&store, path);
    return config_parse_with(path, text, len, &store, x, e);
}

int config_load(const char *path, tl_experiment *x, tl_err *e)
{
    size_t len;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > CFG_MAX_BYTES) { /* not read to be refused */
        tl_err_set(e, "%s:1:1: experiment: %lld bytes, more than the %d MiB an experiment file may take (data belong "
                   "in data files beside it)", path, (long long)st.st_size, CFG_MAX_BYTES >> 20);
        memset(x, 0, sizeof *x);
        return -1;
    }
    char *text = tl_read_file(path, &len, e);
    if (!text) {
        memset(x, 0, sizeof *x);
        return -1;
    }
    if (memchr(text, '\0', len)) {
        tl_err_set(e, "%s: not a text file (it holds a NUL byte)", path);
        free(text);
        memset(x, 0, sizeof *x);
        return -1;
    }
    int rc = config_parse(path, text, len, x, e);
    free(text);
    return rc;
}

void config_free(tl_experiment *x)
{
    free(x->path);
    free(x->yaml);
    free(x->name);
    free(x->description);
    free(x->sizes);
    for (int i = 0; i < x->nvariants; i++) {
        for (int k = 0; k < REG_MAX_PARAMS; k++) free(x->variants[i].values[k]);
        source_set_free(&x->variants[i].src);
        if (x->variants[i].table) {
            for (int k = 0; k < x->op->nvariants; k++) source_set_free(&x->variants[i].run_src[k]);
            dispatch_free(x->variants[i].table);
        }
        free(x->variants[i].table);
        free(x->variants[i].run_src);
        counters_list_free(&x->variants[i].counters);
        cfg_decl_free(x->variants[i].own);
    }
    free(x->variants);
    counters_list_free(&x->counters);
    source_store_free(&x->store);
    dop_free(x->dop);
    if (x->search) search_spec_free(x->search), free(x->search);
    memset(x, 0, sizeof *x);
}

int config_check_counters(counters_session *s, const tl_experiment *x, tl_err *e)
{
    if (counters_check(s, &x->counters, x->path, e)) return -1;
    for (int v = 0; v < x->nvariants; v++)
        if (counters_check(s, &x->variants[v].counters, x->path, e)) return -1;
    return 0;
}
