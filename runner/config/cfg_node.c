/* cfg_node: reading libyaml's document nodes for the config, with errors at file:line:column. */
#include "runner/config/cfg_node.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---------------------------------------------------------------------------- */

int cfgn_fail(cfgn_ctx *c, const yaml_node_t *n, const char *field, const char *fmt, ...)
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

const char *cfgn_kind_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

yaml_node_t *cfgn_node(cfgn_ctx *c, int id)
{
    return yaml_document_get_node(&c->doc, id);
}

const char *cfgn_scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

int cfgn_expect(cfgn_ctx *c, const yaml_node_t *n, yaml_node_type_t t, const char *field)
{
    if (n->type == t) return 0;
    const char *want = t == YAML_SCALAR_NODE ? "a scalar" : t == YAML_SEQUENCE_NODE ? "a list" : "a mapping";
    return cfgn_fail(c, n, field, "expected %s, got %s", want, cfgn_kind_name(n));
}

/* ---- scalars --------------------------------------------------------------------------- */

int cfgn_int(cfgn_ctx *c, const yaml_node_t *n, const char *field, long lo, long hi, long *out)
{
    if (cfgn_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    const char *s = cfgn_scalar(n);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (!*s || *end || errno) return cfgn_fail(c, n, field, "expected an integer, got '%s'", s);
    if (v < lo || v > hi) return cfgn_fail(c, n, field, "%lld is out of range [%ld, %ld]", v, lo, hi);
    *out = (long)v;
    return 0;
}

int cfgn_double(cfgn_ctx *c, const yaml_node_t *n, const char *field, double lo, double hi,
                        double *out)
{
    if (cfgn_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    const char *s = cfgn_scalar(n);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v)) return cfgn_fail(c, n, field, "expected a number, got '%s'", s);
    if (v < lo || v > hi) return cfgn_fail(c, n, field, "%s is out of range [%g, %g]", cfgn_scalar(n), lo, hi);
    *out = v;
    return 0;
}

int cfgn_bool(cfgn_ctx *c, const yaml_node_t *n, const char *field, int *out)
{
    if (cfgn_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    const char *s = cfgn_scalar(n);
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on")) *out = 1;
    else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off")) *out = 0;
    else return cfgn_fail(c, n, field, "expected true or false, got '%s'", s);
    return 0;
}

int cfgn_string(cfgn_ctx *c, const yaml_node_t *n, const char *field, char **out)
{
    if (cfgn_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    *out = tl_xstrdup(cfgn_scalar(n));
    return 0;
}

/* One of choices[0..nchoices); *out gets the index. */
int cfgn_choice(cfgn_ctx *c, const yaml_node_t *n, const char *field, const char *const *choices,
                        int nchoices, int *out)
{
    if (cfgn_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    for (int i = 0; i < nchoices; i++)
        if (!strcmp(cfgn_scalar(n), choices[i])) return *out = i, 0;
    char list[512] = "";
    for (int i = 0; i < nchoices; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", choices[i]);
    return cfgn_fail(c, n, field, "'%s' is not one of: %s", cfgn_scalar(n), list);
}

/* ---- mappings -------------------------------------------------------------------------- */


/* Splits a mapping into pairs, rejecting duplicate and (when allowed != NULL) unknown keys. */
int cfgn_pairs(cfgn_ctx *c, yaml_node_t *n, const char *field, const char *const *allowed,
                         cfgn_pair *pairs, int maxpairs, int *npairs)
{
    if (cfgn_expect(c, n, YAML_MAPPING_NODE, field)) return -1;
    int k = 0;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = cfgn_node(c, p->key), *vn = cfgn_node(c, p->value);
        if (kn->type != YAML_SCALAR_NODE) return cfgn_fail(c, kn, field, "keys must be plain names");
        const char *key = cfgn_scalar(kn);
        for (int i = 0; i < k; i++)
            if (!strcmp(pairs[i].key, key)) return cfgn_fail(c, kn, field, "key '%s' is given twice", key);
        if (allowed) {
            int ok = 0;
            for (int i = 0; allowed[i]; i++) ok |= !strcmp(allowed[i], key);
            if (!ok) {
                char list[512] = "";
                for (int i = 0; allowed[i]; i++)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                             allowed[i]);
                return cfgn_fail(c, kn, field, "unknown key '%s' (expected one of: %s)", key, list);
            }
        }
        if (k == maxpairs) return cfgn_fail(c, kn, field, "too many keys (at most %d)", maxpairs);
        pairs[k].key = key;
        pairs[k].value = vn;
        k++;
    }
    *npairs = k;
    return 0;
}

yaml_node_t *cfgn_find(cfgn_pair *pr, int np, const char *key)
{
    for (int i = 0; i < np; i++)
        if (!strcmp(pr[i].key, key)) return pr[i].value;
    return NULL;
}

/* One expression: its text, parsed against the variant's names, errors at its column. */
int cfgn_expr(cfgn_ctx *c, yaml_node_t *n, const char *field, const expr_scope *scope, decl_expr *out)
{
    char msg[768];
    int at;
    if (cfgn_expect(c, n, YAML_SCALAR_NODE, field)) return -1;
    snprintf(out->field, sizeof out->field, "%s", field);
    out->line = (int)n->start_mark.line + 1;
    out->col = (int)n->start_mark.column + 1;
    int quoted = n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                 n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    /* Every message about an expression quotes it: one past this would push the reason out of the message. */
    if (strlen(cfgn_scalar(n)) > CFGN_MAX_EXPR)
        return cfgn_fail(c, n, field, "an expression of %zu characters: at most %d (name a param for a part of it)",
                         strlen(cfgn_scalar(n)), CFGN_MAX_EXPR);
    if (expr_parse(cfgn_scalar(n), scope, &out->x, &at, msg, sizeof msg) == 0) return 0;
    const char *hint = strchr(cfgn_scalar(n), '(') && !strchr(cfgn_scalar(n), ')') && !quoted
                           ? " (in a [...] list, quote an expression that holds a comma)" : "";
    tl_err_set(c->e, "%s:%d:%d: %s: '%s': %s%s", c->path, out->line, out->col + quoted + at, field, cfgn_scalar(n), msg,
               hint);
    return -1;
}

/* A list of 1..max expressions (or one scalar). */
int cfgn_expr_list(cfgn_ctx *c, yaml_node_t *n, const char *field, int min, int max, const expr_scope *scope,
                           decl_expr *out, int *count)
{
    char f2[80];
    if (n->type == YAML_SCALAR_NODE) {
        snprintf(f2, sizeof f2, "%s[0]", field);
        *count = 1;
        return cfgn_expr(c, n, f2, scope, &out[0]);
    }
    if (cfgn_expect(c, n, YAML_SEQUENCE_NODE, field)) return -1;
    int k = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (k < min || k > max)
        return max == 3 ? cfgn_fail(c, n, field, "expected 1 to 3 expressions (x, y, z), got %d", k)
                        : cfgn_fail(c, n, field, "expected at least %d expressions, got %d", min, k);
    for (int i = 0; i < k; i++) {
        snprintf(f2, sizeof f2, "%s[%d]", field, i);
        *count = i;
        if (cfgn_expr(c, cfgn_node(c, n->data.sequence.items.start[i]), f2, scope, &out[i])) return -1;
    }
    *count = k;
    return 0;
}


int cfgn_count(const yaml_node_t *n)
{
    return n->type == YAML_SEQUENCE_NODE ? (int)(n->data.sequence.items.top - n->data.sequence.items.start) : 0;
}

yaml_node_t *cfgn_item(cfgn_ctx *c, const yaml_node_t *n, int i)
{
    return cfgn_node(c, n->data.sequence.items.start[i]);
}
