#include "runner/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/expr.h"

const reg_op *reg_find_op(const char *name)
{
    for (int i = 0; i < reg_nops; i++)
        if (strcmp(reg_ops[i]->name, name) == 0) return reg_ops[i];
    return NULL;
}

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

void reg_list_tables(const char *op, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < reg_nsources && used + 1 < n; i++) {
        const char *p = reg_sources[i].path;
        if (!reg_is_table_of(p, op)) continue;
        int w = snprintf(out + used, n - used, "%s" TILELAB_TABLE_PREFIX "%s", used ? ", " : "", p);
        used = w < 0 || (size_t)w >= n - used ? n - 1 : used + (size_t)w;
    }
    if (!out[0]) snprintf(out, n, "none");
}

const reg_source *reg_find_source(const char *path)
{
    for (int i = 0; i < reg_nsources; i++)
        if (strcmp(reg_sources[i].path, path) == 0) return &reg_sources[i];
    return NULL;
}

/* ---- rules ------------------------------------------------------------------------------------------ */

/* Each variant's rules, parsed once against its params (a plan of 10^5 cases checks them 10^5 times): by the
 * rules and the param list they name, both the registry's static tables. */
typedef struct {
    const reg_rule *rules;
    const reg_param *params;
    expr *x; /* one a rule */
} parsed_rules;

static pthread_mutex_t rules_mu = PTHREAD_MUTEX_INITIALIZER;
static parsed_rules *parsed;
static int nparsed;

/* The variant's params as an expression scope. */
static expr_scope scope_of(const reg_variant *v, const char **names)
{
    for (int i = 0; i < v->nparams && i < REG_MAX_PARAMS; i++) names[i] = v->params[i].name;
    return (expr_scope){names, v->nparams, NULL, 0};
}

int reg_nrules(const reg_variant *v)
{
    int n = 0;
    while (v->rules && v->rules[n].expr) n++;
    return n;
}

static const expr *rules_of(const reg_variant *v)
{
    pthread_mutex_lock(&rules_mu);
    for (int i = 0; i < nparsed; i++)
        if (parsed[i].rules == v->rules && parsed[i].params == v->params) {
            pthread_mutex_unlock(&rules_mu);
            return parsed[i].x;
        }
    const char *names[REG_MAX_PARAMS];
    expr_scope scope = scope_of(v, names);
    int nrules = reg_nrules(v);
    expr *x = tl_xcalloc((size_t)nrules + 1, sizeof *x);
    for (int r = 0; r < nrules; r++) {
        char msg[256];
        int at = 0;
        if (expr_parse(v->rules[r].expr, &scope, &x[r], &at, msg, sizeof msg)) {
            /* The registry's own text: a build that has such a rule is wrong, whatever the experiment. */
            fprintf(stderr, "tilelab: registry: variant %s: rule '%s': %s at %d\n", v->name, v->rules[r].expr, msg, at);
            abort();
        }
    }
    parsed_rules *grown = realloc(parsed, sizeof *parsed * (size_t)(nparsed + 1));
    if (!grown) abort();
    parsed = grown;
    parsed[nparsed++] = (parsed_rules){v->rules, v->params, x};
    pthread_mutex_unlock(&rules_mu);
    return x;
}

void reg_rule_why(const reg_variant *v, const reg_rule *r, const long *params, char *why, size_t n)
{
    const char *names[REG_MAX_PARAMS];
    expr_scope scope = scope_of(v, names);
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
