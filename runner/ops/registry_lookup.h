/* registry_lookup: the registry's lookups over what tilelab ships (kernels/ops.c's table of ops and the kernel
 * sources embedded at build time). A target of its own above the kernels, which use runner/ops/registry.h
 * alone: the kernels never look an op up by name. */
#ifndef TILELAB_REGISTRY_LOOKUP_H
#define TILELAB_REGISTRY_LOOKUP_H

#include <stddef.h>

#include "runner/ops/registry.h"

/* The op this runner ships by that name, or NULL. */
const reg_op *reg_find_op(const char *name);
/* The embedded kernel source at path (under kernels/), or NULL. */
const reg_source *reg_find_source(const char *path);
/* The tables this runner carries for op (kernels/OP/ *.table), as "tilelab:OP/A.table, tilelab:OP/B.table"
 * ("none" without), cut to fit n bytes. */
void reg_list_tables(const char *op, char *out, size_t n);

#endif
