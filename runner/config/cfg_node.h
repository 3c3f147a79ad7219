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
    source_store *store; /* the experiment's files: a declared op's data files are read through it */
} cfg_node_ctx;

__attribute__((format(printf, 4, 5))) int cfg_node_fail(cfg_node_ctx *c, const yaml_node_t *n, const char *field,
                                                    const char *fmt, ...);
/* "a scalar", "a list", "a mapping". */
const char *cfg_node_kind_name(const yaml_node_t *n);
yaml_node_t *cfg_node_node(cfg_node_ctx *c, int id);
const char *cfg_node_scalar(const yaml_node_t *n);
/* 0 when n is of type t, else -1 naming what was expected. */
int cfg_node_expect(cfg_node_ctx *c, const yaml_node_t *n, yaml_node_type_t t, const char *field);
/* An integer (C's notations: 12, 0x1f) in [lo, hi]. */
int cfg_node_int(cfg_node_ctx *c, const yaml_node_t *n, const char *field, long lo, long hi, long *out);
/* A finite number in [lo, hi]. */
int cfg_node_double(cfg_node_ctx *c, const yaml_node_t *n, const char *field, double lo, double hi, double *out);
int cfg_node_bool(cfg_node_ctx *c, const yaml_node_t *n, const char *field, int *out);
int cfg_node_string(cfg_node_ctx *c, const yaml_node_t *n, const char *field, char **out);
/* One of choices[0..nchoices); *out gets the index. */
int cfg_node_choice(cfg_node_ctx *c, const yaml_node_t *n, const char *field, const char *const *choices, int nchoices,
                int *out);

typedef struct {
    const char *key;
    yaml_node_t *value;
} cfg_node_pair;

/* Splits a mapping into pairs, rejecting duplicate and (when allowed != NULL) unknown keys. */
int cfg_node_pairs(cfg_node_ctx *c, yaml_node_t *n, const char *field, const char *const *allowed, cfg_node_pair *pairs,
               int maxpairs, int *npairs);
/* The value of key among pr, or NULL. */
yaml_node_t *cfg_node_find(cfg_node_pair *pr, int np, const char *key);
/* The number of items of a list (0 for any other node). */
int cfg_node_count(const yaml_node_t *n);
/* Item i of a list. */
yaml_node_t *cfg_node_item(cfg_node_ctx *c, const yaml_node_t *n, int i);

#define CFG_NODE_MAX_EXPR 512 /* characters of one expression */
/* An expression (runner/ops/expr.h) parsed against scope, its errors at its column; out records where it is. */
int cfg_node_expr(cfg_node_ctx *c, yaml_node_t *n, const char *field, const expr_scope *scope, decl_expr *out);
/* A list of min..max expressions (or one scalar); max 3: a launch's x, y, z. */
int cfg_node_expr_list(cfg_node_ctx *c, yaml_node_t *n, const char *field, int min, int max, const expr_scope *scope,
                   decl_expr *out, int *count);

#endif
