/* cfg_search: `search:` in an experiment file (runner/search/search.h says what a search is), every error at
 * file:line:column with the field. What needs the experiment's variants (something to search, a budget within a
 * space, the objective's counter collected) config.c checks once they are parsed. */
#ifndef TILELAB_CFG_SEARCH_H
#define TILELAB_CFG_SEARCH_H

#include "runner/config/cfg_node.h"
#include "runner/search/search.h"

/* *out (malloc'd; search_spec_free and free it) from n; seed is the experiment's, the default. 0, or -1 with the
 * context's error. */
int cfg_search_parse(cfg_node_ctx *c, yaml_node_t *n, uint64_t seed, search_spec **out);

#endif
