/* cfg_node: reading libyaml's document nodes for the config, with errors at file:line:column. */
#include "runner/config/cfg_node.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---------------------------------------------------------------------------- */

int cfg_node_fail(cfg_node_ctx *c, const yaml_node_t *n, const char *field, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    tl_err_set(c->e, "%s:%lu:%lu: %s: %s", c->path, (unsigned long)n->start_mark.line + 1,
               (unsigned long)n->start_mark.column + 1, field, what);
    return -1;
}

const char *cfg_node_kind_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

yaml_node_t *cfg_node_node(cfg_node_ctx *c, int id)
{
    return yaml_document_get_node(&c->doc, id);
}

const char *cfg_node_scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

int cfg_node_expect(cfg_node_ctx *c, const yaml_node_t *n, yaml_node_type_t t, const char *field)
{
    if (n->type == t) return 0;
    const char *want = t == YAML_SCALAR_NODE ? "a scalar" : t == YAML_SEQUENCE_NODE ? "a list" : "a mapping";
    return cfg_node_fail(c, n, field, "expected %s, got %s", want, cfg_node_kind_name(n));
}

/* ---- scalars --------------------------------------------------------------------------- */

int cfg_node_int(cfg_node_ctx *c, const yaml_node_t *n, const char *field, long lo, long hi, long *out)
{
    if (cfg_node_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    const char *s = cfg_node_scalar(n);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (!*s || *end || errno) return cfg_node_fail(c, n, field, "expected an integer, got '%s'", s);
    if (v < lo || v > hi) return cfg_node_fail(c, n, field, "%lld is out of range [%ld, %ld]", v, lo, hi);
    *out = (long)v;
    return 0;
}

int cfg_node_double(cfg_node_ctx *c, const yaml_node_t *n, const char *field, double lo, double hi,
                        double *out)
{
    if (cfg_node_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    const char *s = cfg_node_scalar(n);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v)) return cfg_node_fail(c, n, field, "expected a number, got '%s'", s);
    if (v < lo || v > hi) return cfg_node_fail(c, n, field, "%s is out of range [%g, %g]", cfg_node_scalar(n), lo, hi);
    *out = v;
    return 0;
}

int cfg_node_bool(cfg_node_ctx *c, const yaml_node_t *n, const char *field, int *out)
{
    if (cfg_node_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    const char *s = cfg_node_scalar(n);
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on")) *out = 1;
    else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off")) *out = 0;
    else return cfg_node_fail(c, n, field, "expected true or false, got '%s'", s);
    return 0;
}

int cfg_node_string(cfg_node_ctx *c, const yaml_node_t *n, const char *field, char **out)
{
    if (cfg_node_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    *out = tl_xstrdup(cfg_node_scalar(n));
    return 0;
}

/* One of choices[0..nchoices); *out gets the index. */
int cfg_node_choice(cfg_node_ctx *c, const yaml_node_t *n, const char *field, const char *const *choices,
                        int nchoices, int *out)
{
    if (cfg_node_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    for (int i = 0; i < nchoices; i++)
        if (!strcmp(cfg_node_scalar(n), choices[i])) return *out = i, 0;
    char list[512] = "";
    for (int i = 0; i < nchoices; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", choices[i]);
    return cfg_node_fail(c, n, field, "'%s' is not one of: %s", cfg_node_scalar(n), list);
}

/* ---- mappings -------------------------------------------------------------------------- */


/* Splits a mapping into pairs, rejecting duplicate and (when allowed != NULL) unknown keys. */
int cfg_node_pairs(cfg_node_ctx *c, yaml_node_t *n, const char *field, const char *const *allowed,
                         cfg_node_pair *pairs, int maxpairs, int *npairs)
{
    if (cfg_node_expect(c, n, YAML_MAPPING_NODE, field)) return -1;
    int k = 0;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = cfg_node_node(c, p->key), *vn = cfg_node_node(c, p->value);
        if (kn->type != YAML_SCALAR_NODE) return cfg_node_fail(c, kn, field, "keys must be plain names");
        const char *key = cfg_node_scalar(kn);
        for (int i = 0; i < k; i++)
            if (!strcmp(pairs[i].key, key)) return cfg_node_fail(c, kn, field, "key '%s' is given twice", key);
        if (allowed) {
            int ok = 0;
            for (int i = 0; allowed[i]; i++) ok |= !strcmp(allowed[i], key);
            if (!ok) {
                char list[512] = "";
                for (int i = 0; allowed[i]; i++)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                             allowed[i]);
                return cfg_node_fail(c, kn, field, "unknown key '%s' (expected one of: %s)", key, list);
            }
        }
        if (k == maxpairs) return cfg_node_fail(c, kn, field, "too many keys (at most %d)", maxpairs);
        pairs[k].key = key;
        pairs[k].value = vn;
        k++;
    }
    *npairs = k;
    return 0;
}

yaml_node_t *cfg_node_find(cfg_node_pair *pr, int np, const char *key)
{
    for (int i = 0; i < np; i++)
        if (!strcmp(pr[i].key, key)) return pr[i].value;
    return NULL;
}

/* One expression: its text, parsed against the variant's names, errors at its column. */
int cfg_node_expr(cfg_node_ctx *c, yaml_node_t *n, const char *field, const expr_scope *scope, decl_expr *out)
{
    char msg[768];
    int at;
    if (cfg_node_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    snprintf(out->field, sizeof out->field, "%s", field);
    out->line = (int)n->start_mark.line + 1;
    out->col = (int)n->start_mark.column + 1;
    int quoted = n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                 n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    /* Every message about an expression quotes it: one past this would push the reason out of the message. */
    if (strlen(cfg_node_scalar(n)) > CFG_NODE_MAX_EXPR)
        return cfg_node_fail(c, n, field, "an expression of %zu characters: at most %d (name a param for a part of it)",
                         strlen(cfg_node_scalar(n)), CFG_NODE_MAX_EXPR);
    if (expr_parse(cfg_node_scalar(n), scope, &out->x, &at, msg, sizeof msg) == 0) return 0;
    const char *hint = strchr(cfg_node_scalar(n), '(') && !strchr(cfg_node_scalar(n), ')') && !quoted
                           ? " (in a [...] list, quote an expression that holds a comma)" : "";
    tl_err_set(c->e, "%s:%d:%d: %s: '%s': %s%s", c->path, out->line, out->col + quoted + at, field, cfg_node_scalar(n), msg,
               hint);
    return -1;
}

/* A list of 1..max expressions (or one scalar). */
int cfg_node_expr_list(cfg_node_ctx *c, yaml_node_t *n, const char *field, int min, int max, const expr_scope *scope,
                           decl_expr *out, int *count)
{
    char f2[80];
    if (n->type == YAML_SCALAR_NODE) {
        snprintf(f2, sizeof f2, "%s[0]", field);
        *count = 1;
        return cfg_node_expr(c, n, f2, scope, &out[0]);
    }
    if (cfg_node_expect(c, n, YAML_SEQUENCE_NODE, field)) return -1;
    int k = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (k < min || k > max)
        return max == 3 ? cfg_node_fail(c, n, field, "expected 1 to 3 expressions (x, y, z), got %d", k)
                        : cfg_node_fail(c, n, field, "expected at least %d expressions, got %d", min, k);
    for (int i = 0; i < k; i++) {
        snprintf(f2, sizeof f2, "%s[%d]", field, i);
        *count = i;
        if (cfg_node_expr(c, cfg_node_node(c, n->data.sequence.items.start[i]), f2, scope, &out[i])) return -1;
    }
    *count = k;
    return 0;
}


int cfg_node_count(const yaml_node_t *n)
{
    return n->type == YAML_SEQUENCE_NODE ? (int)(n->data.sequence.items.top - n->data.sequence.items.start) : 0;
}

yaml_node_t *cfg_node_item(cfg_node_ctx *c, const yaml_node_t *n, int i)
{
    return cfg_node_node(c, n->data.sequence.items.start[i]);
}
