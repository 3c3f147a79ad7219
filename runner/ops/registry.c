#include "runner/ops/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/ops/expr.h"

const reg_variant *reg_find_variant(const reg_op *op, const char *name)
{
    for (int i = 0; i < op->nvariants; i++)
        if (strcmp(op->variants[i].name, name) == 0) return &op->variants[i];
    return NULL;
}

int reg_find_param(const reg_variant *v, const char *name)
{
    for (int i = 0; i < v->nparams; i++)
        if (strcmp(v->params[i].name, name) == 0) return i;
    return -1;
}

int reg_find_axis(const reg_op *op, const char *name)
{
    for (int i = 0; i < op->naxes; i++)
        if (strcmp(op->axes[i], name) == 0) return i;
    return -1;
}

int reg_variant_takes(const reg_variant *v, int d)
{
    if (v->decl) return 1;
    return v->dtypes ? (v->dtypes >> d) & 1u : d == 0;
}

const char *reg_baseline(const reg_op *op)
{
    if (op->decl) return op->nreferences ? op->references[0] : NULL;
    for (int i = 0; i < op->nvariants; i++)
        if (op->variants[i].kind == REG_LIBRARY) return op->variants[i].name;
    return NULL;
}

const char *reg_kind_name(reg_kind k)
{
    switch (k) {
    case REG_NVRTC: return "nvrtc";
    case REG_LIBRARY: return "library";
    case REG_HOST: return "host";
    }
    return "?";
}

const char *const reg_dist_names[] = {"uniform", "normal", "int"};

const char *reg_target_name(reg_kind k)
{
    return k == REG_HOST ? "host" : "cuda";
}

int reg_is_table_of(const char *path, const char *op)
{
    size_t len = strlen(path), nop = strlen(op);
    return len > nop + 7 && !strncmp(path, op, nop) && path[nop] == '/' && !strcmp(path + len - 6, ".table");
}

/* ---- rules and launch expressions ------------------------------------------------------------------ */

/* A variant's rules, or its launch expressions, parsed once (a plan of 10^5 cases evaluates them 10^5 times):
 * by the param list they name and what they come from: the rules' array, or the launch's seven texts (string
 * constants, so a variant built elsewhere than in the registry's tables finds its own). */
#define LAUNCH_TEXTS 7
typedef struct {
    const reg_param *params;
    const reg_rule *rules;                 /* NULL for a launch */
    const char *launch[LAUNCH_TEXTS];
    expr *x;
} parsed_set;

static pthread_mutex_t parsed_mu = PTHREAD_MUTEX_INITIALIZER;
static parsed_set *parsed;
static int nparsed;

/* The variant's params (and the op's axes, when op is not NULL) as an expression scope. */
static expr_scope scope_of(const reg_variant *v, const reg_op *op, const char **names)
{
    for (int i = 0; i < v->nparams && i < REG_MAX_PARAMS; i++) names[i] = v->params[i].name;
    return (expr_scope){names, v->nparams, op ? op->axes : NULL, op ? op->naxes : 0};
}

/* texts[0 .. n) parsed in v's scope, cached by v's rules (rules) or by the texts (a launch: rules NULL). */
static const expr *parsed_of(const reg_rule *rules, const reg_variant *v, const reg_op *op, const char *const *texts,
                             int n)
{
    const char *launch[LAUNCH_TEXTS] = {0};
    if (!rules) memcpy(launch, texts, sizeof launch);
    pthread_mutex_lock(&parsed_mu);
    for (int i = 0; i < nparsed; i++)
        if (parsed[i].params == v->params && parsed[i].rules == rules &&
            !memcmp(parsed[i].launch, launch, sizeof launch)) {
            pthread_mutex_unlock(&parsed_mu);
            return parsed[i].x;
        }
    const char *names[REG_MAX_PARAMS];
    expr_scope scope = scope_of(v, op, names);
    expr *x = tl_xcalloc((size_t)n + 1, sizeof *x);
    for (int r = 0; r < n; r++) {
        char msg[128];
        int at = 0;
        if (expr_parse(texts[r], &scope, &x[r], &at, msg, sizeof msg)) {
            /* The registry's own text: a build that has such an expression is wrong, whatever the experiment. */
            fprintf(stderr, "tilelab: registry: variant %s: '%s': %s at %d\n", v->name, texts[r], msg, at);
            abort();
        }
    }
    parsed_set *grown = realloc(parsed, sizeof *parsed * (size_t)(nparsed + 1));
    if (!grown) abort();
    parsed = grown;
    parsed_set *ps = &parsed[nparsed++];
    *ps = (parsed_set){v->params, rules, {0}, x};
    memcpy(ps->launch, launch, sizeof launch);
    pthread_mutex_unlock(&parsed_mu);
    return x;
}

int reg_nrules(const reg_variant *v)
{
    int n = 0;
    while (v->rules && v->rules[n].expr) n++;
    return n;
}

static const expr *rules_of(const reg_variant *v)
{
    const char *texts[64];
    int n = reg_nrules(v);
    if (n > (int)(sizeof texts / sizeof *texts)) abort(); /* the registry's own tables */
    for (int r = 0; r < n; r++) texts[r] = v->rules[r].expr;
    return parsed_of(v->rules, v, NULL, texts, n);
}

void reg_rule_why(const reg_variant *v, const reg_rule *r, const long *params, char *why, size_t n)
{
    const char *names[REG_MAX_PARAMS];
    expr_scope scope = scope_of(v, NULL, names);
    expr_env env = {params, NULL, NULL};
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    for (const char *c = r->why; *c; c++) {
        const char *close = *c == '{' ? strchr(c, '}') : NULL;
        if (close) { /* {expression}: its value */
            char text[EXPR_MAX_LEN + 1], msg[128];
            snprintf(text, sizeof text, "%.*s", (int)(close - c - 1), c + 1);
            expr x;
            int at = 0;
            int64_t value = 0;
            if (expr_parse(text, &scope, &x, &at, msg, sizeof msg) == 0) {
                int rc = expr_eval(&x, &env, &value, msg, sizeof msg);
                expr_free(&x);
                if (rc == 0) {
                    tl_buf_long(&b, (long long)value);
                    c = close;
                    continue;
                }
            }
        }
        tl_buf_put(&b, c, 1);
    }
    snprintf(why, n, "%s", b.s);
    tl_buf_free(&b);
}

int reg_check(const reg_variant *v, const long *params, const reg_spec *s, char *why, size_t n)
{
    if (v->rules) {
        const expr *x = rules_of(v);
        expr_env env = {params, NULL, NULL};
        for (int r = 0; v->rules[r].expr; r++) {
            int64_t ok = 0;
            char msg[128];
            if (expr_eval(&x[r], &env, &ok, msg, sizeof msg) != 0 || !ok) {
                reg_rule_why(v, &v->rules[r], params, why, n);
                return 0;
            }
        }
    }
    return v->check ? v->check(params, s, why, n) : 1;
}

/* The launch expressions in grid, block, smem order; NULL ones as their defaults. */
static const expr *launch_of(const reg_op *op, const reg_variant *v)
{
    const reg_launch_exprs *le = &v->launch;
    const char *texts[LAUNCH_TEXTS];
    for (int d = 0; d < 3; d++) texts[d] = le->grid[d] ? le->grid[d] : "1";
    for (int d = 0; d < 3; d++) texts[3 + d] = le->block[d] ? le->block[d] : "1";
    texts[6] = le->smem ? le->smem : "0";
    return parsed_of(NULL, v, op, texts, LAUNCH_TEXTS);
}

int reg_geometry(const reg_op *op, const reg_variant *v, const long *params, const reg_spec *s, reg_launch *l,
                 char *why, size_t n)
{
    if (!v->launch.grid[0]) {
        v->geometry(params, s, l);
        return 0;
    }
    static const char *const what[LAUNCH_TEXTS] = {"grid x", "grid y", "grid z", "block x", "block y", "block z", "smem"};
    const expr *x = launch_of(op, v);
    expr_env env = {params, s->dims, NULL};
    int64_t value[LAUNCH_TEXTS];
    for (int i = 0; i < LAUNCH_TEXTS; i++) {
        char msg[128];
        if (expr_eval(&x[i], &env, &value[i], msg, sizeof msg) != 0)
            return snprintf(why, n, "launch %s '%s': %s", what[i], x[i].text, msg), -1;
        if (value[i] < (i < 6) || value[i] > 2147483647)
            return snprintf(why, n, "launch %s '%s' = %lld is not %d .. 2^31 - 1", what[i], x[i].text,
                            (long long)value[i], i < 6), -1;
    }
    *l = (reg_launch){{(unsigned)value[0], (unsigned)value[1], (unsigned)value[2]},
                      {(unsigned)value[3], (unsigned)value[4], (unsigned)value[5]}, (size_t)value[6]};
    return 0;
}
