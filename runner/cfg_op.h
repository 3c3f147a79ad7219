/* cfg_op: `op:` as a mapping, an op declared in the experiment file (runner/dop.h), checked whole before any GPU
 * work: every error names file:line:column and the field. */
#ifndef TILELAB_CFG_OP_H
#define TILELAB_CFG_OP_H

#include "runner/cfg_node.h"
#include "runner/dop.h"

/* 0 with *out (a finished dop: dop_free it), or -1 with the context's error and *out NULL. */
int cfgop_parse(cfgn_ctx *c, yaml_node_t *n, dop **out);

#endif
