/* cfg_decl: a variant declared in the experiment file: with `source:`, a kernel of the folder (its params, launch,
 * kernels, requires), or with `library:`, a library call of an op declared in the file. Every error names
 * file:line:column and the field (runner/config/config.c reads the entry's other keys). */
#ifndef TILELAB_CFG_DECL_H
#define TILELAB_CFG_DECL_H

#include "runner/config/cfg_node.h"
#include "runner/config/experiment.h"

/* A declared variant, with what config owns for it (cfg_variant.own). */
typedef struct cfg_owned {
    reg_variant v;
    reg_param params[REG_MAX_PARAMS];
    char *pnames[REG_MAX_PARAMS];
    decl_variant d;
    char *name, *source, *entry, *summary;
    char *entries[REG_MAX_KERNELS]; /* `kernels:`' entries */
} cfg_owned;
void cfg_decl_free(cfg_owned *o);

/* The keys of a `variants:` entry that a declared variant may have (NULL: absent). */
typedef struct {
    yaml_node_t *name, *params, *source, *entry, *block, *grid, *smem, *requires, *kernels, *workspace;
} cfg_decl_nodes;

/* Entry index (field names it) with `source:`: cv from its nodes; -1 with the context's error. */
int cfg_decl_source(cfg_node_ctx *c, const cfg_decl_nodes *dn, const char *field, int index, cfg_variant *cv, tl_experiment *x);
/* Entry index with `library:` and `args:`: cv a library variant of x's declared op. */
int cfg_decl_library(cfg_node_ctx *c, const cfg_decl_nodes *dn, yaml_node_t *library, yaml_node_t *args, const char *field,
                     int index, cfg_variant *cv, tl_experiment *x);

#endif
