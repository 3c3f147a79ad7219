#include "runner/registry.h"

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

const reg_source *reg_find_source(const char *path)
{
    for (int i = 0; i < reg_nsources; i++)
        if (strcmp(reg_sources[i].path, path) == 0) return &reg_sources[i];
    return NULL;
}
