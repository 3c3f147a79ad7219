/* cfg_node: reading libyaml's document nodes (runner/config/config.c, runner/config/cfg_op.c). Every function that can fail
 * sets the context's error to "file:line:column: field: what" at the node, and returns -1. */
#ifndef TILELAB_CFG_NODE_H
#define TILELAB_CFG_NODE_H

#include <yaml.h>

#include "runner/config/source.h"
#include "runner/ops/decl.h"
#include "runner/ops/expr.h"
#include "runner/util/util.h"

typedef struct {
    const char *path;
    yaml_document_t doc;
    tl_err *e;
    src_store *store; /* the experiment's files: a declared op's data files are read through it */
} cfgn_ctx;

__attribute__((format(printf, 4, 5))) int cfgn_fail(cfgn_ctx *c, const yaml_node_t *n, const char *field,
                                                    const char *fmt, ...);
/* "a scalar", "a list", "a mapping". */
const char *cfgn_kind_name(const yaml_node_t *n);
yaml_node_t *cfgn_node(cfgn_ctx *c, int id);
const char *cfgn_scalar(const yaml_node_t *n);
/* 0 when n is of type t, else -1 naming what was expected. */
int cfgn_expect(cfgn_ctx *c, const yaml_node_t *n, yaml_node_type_t t, const char *field);
/* An integer (C's notations: 12, 0x1f) in [lo, hi]. */
int cfgn_int(cfgn_ctx *c, const yaml_node_t *n, const char *field, long lo, long hi, long *out);
/* A finite number in [lo, hi]. */
int cfgn_double(cfgn_ctx *c, const yaml_node_t *n, const char *field, double lo, double hi, double *out);
int cfgn_bool(cfgn_ctx *c, const yaml_node_t *n, const char *field, int *out);
int cfgn_string(cfgn_ctx *c, const yaml_node_t *n, const char *field, char **out);
/* One of choices[0..nchoices); *out gets the index. */
int cfgn_choice(cfgn_ctx *c, const yaml_node_t *n, const char *field, const char *const *choices, int nchoices,
                int *out);

typedef struct {
    const char *key;
    yaml_node_t *value;
} cfgn_pair;

/* Splits a mapping into pairs, rejecting duplicate and (when allowed != NULL) unknown keys. */
int cfgn_pairs(cfgn_ctx *c, yaml_node_t *n, const char *field, const char *const *allowed, cfgn_pair *pairs,
               int maxpairs, int *npairs);
/* The value of key among pr, or NULL. */
yaml_node_t *cfgn_find(cfgn_pair *pr, int np, const char *key);
/* The number of items of a list (0 for any other node). */
int cfgn_count(const yaml_node_t *n);
/* Item i of a list. */
yaml_node_t *cfgn_item(cfgn_ctx *c, const yaml_node_t *n, int i);

#define CFGN_MAX_EXPR 512 /* characters of one expression */
/* An expression (runner/ops/expr.h) parsed against scope, its errors at its column; out records where it is. */
int cfgn_expr(cfgn_ctx *c, yaml_node_t *n, const char *field, const expr_scope *scope, decl_expr *out);
/* A list of min..max expressions (or one scalar); max 3: a launch's x, y, z. */
int cfgn_expr_list(cfgn_ctx *c, yaml_node_t *n, const char *field, int min, int max, const expr_scope *scope,
                   decl_expr *out, int *count);

#endif
