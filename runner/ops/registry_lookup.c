/* Apart from registry.c, which the kernels' own files call (params, rules, launch), so that no file both calls
 * into the kernels' tables and is called from them. */
#include "runner/ops/registry_lookup.h"

#include <stdio.h>
#include <string.h>

const reg_op *reg_find_op(const char *name)
{
    for (int i = 0; i < reg_nops; i++)
        if (strcmp(reg_ops[i]->name, name) == 0) return reg_ops[i];
    return NULL;
}

void reg_list_tables(const char *op, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < reg_nsources && used + 1 < n; i++) {
        const char *p = reg_sources[i].path;
        if (!reg_is_table_of(p, op)) continue;
        int w = snprintf(out + used, n - used, "%s" TILELAB_TABLE_PREFIX "%s", used ? ", " : "", p);
        used = w < 0 || (size_t)w >= n - used ? n - 1 : used + (size_t)w;
    }
    if (!out[0]) snprintf(out, n, "none");
}

const reg_source *reg_find_source(const char *path)
{
    for (int i = 0; i < reg_nsources; i++)
        if (strcmp(reg_sources[i].path, path) == 0) return &reg_sources[i];
    return NULL;
}
