/* cfg_op: `op:` as a mapping, an op declared in the experiment file (runner/ops/dop.h), checked whole before any GPU
 * work: every error names file:line:column and the field. */
#ifndef TILELAB_CFG_OP_H
#define TILELAB_CFG_OP_H

#include "runner/config/cfg_node.h"
#include "runner/ops/dlib.h"
#include "runner/ops/dop.h"

/* 0 with *out (a finished dop: dop_free it), or -1 with the context's error and *out NULL. */
int cfg_op_parse(cfg_node_ctx *c, yaml_node_t *n, dop **out);

/* A library variant of d: `library: NAME` (lib) with `args:` (args) mapping each of the call's arguments to a
 * buffer of the right role and type or to an expression of the axes. 0 with *out, or -1 (field names it). */
int cfg_op_library(cfg_node_ctx *c, yaml_node_t *lib, yaml_node_t *args, const char *field, const dop *d, dlib_call **out);

#endif
