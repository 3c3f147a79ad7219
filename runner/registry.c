#include "runner/registry.h"

#include <stdio.h>
#include <string.h>

const reg_op *reg_find_op(const char *name)
{
    for (int i = 0; i < reg_nops; i++)
        if (strcmp(reg_ops[i]->name, name) == 0) return reg_ops[i];
    return NULL;
}

const reg_variant *reg_find_variant(const reg_op *op, const char *name)
{
    for (int i = 0; i < op->nvariants; i++)
        if (strcmp(op->variants[i].name, name) == 0) return &op->variants[i];
    return NULL;
}

int reg_find_param(const reg_variant *v, const char *name)
{
    for (int i = 0; i < v->nparams; i++)
        if (strcmp(v->params[i].name, name) == 0) return i;
    return -1;
}

int reg_find_axis(const reg_op *op, const char *name)
{
    for (int i = 0; i < op->naxes; i++)
        if (strcmp(op->axes[i], name) == 0) return i;
    return -1;
}

int reg_variant_takes(const reg_variant *v, int d)
{
    if (v->decl) return 1;
    return v->dtypes ? (v->dtypes >> d) & 1u : d == 0;
}

const char *reg_kind_name(reg_kind k)
{
    switch (k) {
    case REG_NVRTC: return "nvrtc";
    case REG_LIBRARY: return "library";
    case REG_HOST: return "host";
    }
    return "?";
}

const char *const reg_dist_names[] = {"uniform", "normal", "int"};

const char *reg_target_name(reg_kind k)
{
    return k == REG_HOST ? "host" : "cuda";
}

int reg_is_table_of(const char *path, const char *op)
{
    size_t len = strlen(path), nop = strlen(op);
    return len > nop + 7 && !strncmp(path, op, nop) && path[nop] == '/' && !strcmp(path + len - 6, ".table");
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
