/* cfg_values: what an experiment sweeps: the values of a param or an axis (8 | [8, 16] | {pow2: [3, 5]} |
 * {range: [start, stop, step]}) and `sizes:` (axes alone, tied as mnk, zipped, or a list of such mappings), every
 * error at file:line:column (runner/config/config.c reads the rest). */
#ifndef TILELAB_CFG_VALUES_H
#define TILELAB_CFG_VALUES_H

#include "runner/config/cfg_node.h"
#include "runner/config/experiment.h"

/* A value list, each value in [lo, hi], into *vals (the caller frees it) and *nvals; -1 naming field. */
int cfg_values_parse(cfg_node_ctx *c, yaml_node_t *n, const char *field, long lo, long hi, long **vals, int *nvals);
/* `sizes:` into x->sizes and x->nsizes. */
int cfg_values_sizes(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x);

#endif
