#include "runner/config/cfg_decl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/config/cfg_op.h"
#include "runner/config/cfg_values.h"

void cfg_decl_free(cfg_owned *o)
{
    if (!o) return;
    for (int k = 0; k < REG_MAX_PARAMS; k++) free(o->pnames[k]);
    dlib_call_free(o->d.lib);
    decl_free(&o->d);
    free(o->name), free(o->source), free(o->entry), free(o->summary);
    for (int k = 0; k < REG_MAX_KERNELS; k++) free(o->entries[k]);
    free(o);
}

static int is_identifier(const char *s)
{
    if (!*s || isdigit((unsigned char)*s)) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return 0;
    return 1;
}

/* Names a param's #define would take from the kernel's own C++: the language's keywords, CUDA's built-in
 * variables and the types every kernel may spell. */
static const char *const cxx_names[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char16_t", "char32_t", "class", "compl", "const", "constexpr", "const_cast", "continue", "decltype", "default",
    "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "return",
    "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
    "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
    "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "NULL", "threadIdx", "blockIdx", "blockDim", "gridDim",
    "warpSize", "dim3", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t", "uintptr_t", "intptr_t", "half", "nv_bfloat16", "float2", "float4", "int2", "int4", NULL};

/* A name a declared variant's param may not take: the runner's own macros, names its expressions
 * already give a meaning, C++'s and CUDA's own, and a declared op's buffers and scalars (its signature's names). */
static const char *reserved_param(const reg_op *op, const char *name)
{
    if (!strncmp(name, "TL_", 3) || !strncmp(name, "__", 2)) return "TL_ and __ names are the runner's and the compiler's";
    for (int i = 0; cxx_names[i]; i++)
        if (!strcmp(name, cxx_names[i])) return "C++ or CUDA gives that name a meaning of its own";
    for (int b = 0; op->decl && b < op->decl->nbuffers; b++)
        if (!strcmp(name, op->decl->buffers[b].name)) return "a buffer of the op has that name";
    for (int k = 0; op->decl && k < op->decl->nscalars; k++)
        if (!strcmp(name, op->decl->scalars[k].name)) return "a scalar of the op has that name";
    for (int o = 0; o < op->noperands; o++) {
        char col[32];
        snprintf(col, sizeof col, "%s_COL", op->operands[o]);
        if (!strcasecmp(name, col)) return "the runner defines <OPERAND>_COL from the layout";
    }
    if (reg_find_axis(op, name) >= 0) return "an axis of the op has that name";
    for (int i = 0; i < EXPR_NDEVICE; i++)
        if (!strcmp(name, expr_device_names[i])) return "a device fact has that name";
    if (!strcmp(name, "ceil_div") || !strcmp(name, "min") || !strcmp(name, "max")) return "a function has that name";
    return NULL;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const cfg_node_pair *)a)->key, ((const cfg_node_pair *)b)->key);
}

/* A declared variant's params: every one is a macro, swept over its values; sorted by name, so that
 * the case's text (and id) does not depend on the order they are written in. */
static int parse_declared_params(cfg_node_ctx *c, yaml_node_t *n, const char *field, cfg_owned *o, cfg_variant *cv,
                                 const reg_op *op)
{
    cfg_node_pair pr[REG_MAX_PARAMS];
    int np;
    if (n->type == YAML_MAPPING_NODE && n->data.mapping.pairs.top - n->data.mapping.pairs.start > REG_MAX_PARAMS)
        return cfg_node_fail(c, n, field, "more than %d params", REG_MAX_PARAMS);
    if (cfg_node_pairs(c, n, field, NULL, pr, REG_MAX_PARAMS, &np)) return -1;
    qsort(pr, (size_t)np, sizeof *pr, by_key);
    for (int k = 0; k < np; k++) {
        char f2[128];
        const char *why = reserved_param(op, pr[k].key);
        snprintf(f2, sizeof f2, "%s.%s", field, pr[k].key);
        if (!is_identifier(pr[k].key) || strlen(pr[k].key) > 64)
            return cfg_node_fail(c, pr[k].value, field, "'%s' is not a macro name (letters, digits and _, not first a digit)",
                           pr[k].key);
        if (why) return cfg_node_fail(c, pr[k].value, field, "'%s' cannot be a param: %s", pr[k].key, why);
        if (cfg_values_parse(c, pr[k].value, f2, -(1L << 62), 1L << 62, &cv->values[k], &cv->nvalues[k])) return -1;
        o->pnames[k] = tl_xstrdup(pr[k].key);
        o->params[k] = (reg_param){o->pnames[k], cv->values[k][0], "declared in the experiment file"};
    }
    o->v.params = o->params;
    o->v.nparams = np;
    return 0;
}

/* One kernel's launch: block and grid (1 to 3 expressions each), smem (bytes, optional). */
static int parse_kernel_launch(cfg_node_ctx *c, yaml_node_t *at, yaml_node_t *block, yaml_node_t *grid, yaml_node_t *smem,
                               const char *field, const expr_scope *scope, decl_kernel *k)
{
    char f2[96];
    if (!block || !grid)
        return cfg_node_fail(c, at, field, "%s needs `block:` and `grid:` (expressions of its params, the op's axes and "
                                       "sms, smem_optin, warp)", strstr(field, ".kernels[") ? "a kernel" :
                                                                   "a variant with `source:`");
    snprintf(f2, sizeof f2, "%s.block", field);
    if (cfg_node_expr_list(c, block, f2, 1, 3, scope, k->block, &k->nblock)) return -1;
    snprintf(f2, sizeof f2, "%s.grid", field);
    if (cfg_node_expr_list(c, grid, f2, 1, 3, scope, k->grid, &k->ngrid)) return -1;
    snprintf(f2, sizeof f2, "%s.smem", field);
    if (smem && cfg_node_expr(c, smem, f2, scope, &k->smem)) return -1;
    k->has_smem = smem != NULL;
    return 0;
}

/* `kernels:`, the kernels one run launches in order, each {entry, block, grid, smem}. */
static int parse_kernels(cfg_node_ctx *c, yaml_node_t *n, const char *field, const expr_scope *scope, cfg_owned *o)
{
    static const char *const keys[] = {"entry", "block", "grid", "smem", NULL};
    char f[80], f2[96];
    snprintf(f, sizeof f, "%s.kernels", field);
    if (cfg_node_expect(c, n, YAML_SEQUENCE_NODE, f)) return -1;
    int nk = cfg_node_count(n);
    if (nk < 1 || nk > REG_MAX_KERNELS) return cfg_node_fail(c, n, f, "expected 1 to %d kernels, got %d", REG_MAX_KERNELS, nk);
    for (int k = 0; k < nk; k++) {
        yaml_node_t *kn = cfg_node_item(c, n, k);
        cfg_node_pair pr[4];
        int np;
        snprintf(f2, sizeof f2, "%s[%d]", f, k);
        if (cfg_node_pairs(c, kn, f2, keys, pr, 4, &np)) return -1;
        yaml_node_t *entry = cfg_node_find(pr, np, "entry");
        if (!entry) return cfg_node_fail(c, kn, f2, "a kernel needs `entry:` (its extern \"C\" name)");
        char f3[112];
        snprintf(f3, sizeof f3, "%s.entry", f2);
        if (cfg_node_expect(c, entry, YAML_SCALAR_NODE, f3)) return -1;
        if (!is_identifier(cfg_node_scalar(entry))) return cfg_node_fail(c, entry, f3, "'%s' is not a kernel name", cfg_node_scalar(entry));
        for (int j = 0; j < k; j++)
            if (!strcmp(o->entries[j], cfg_node_scalar(entry)))
                return cfg_node_fail(c, entry, f3, "'%s' is kernel %d already: a run launches each kernel once",
                                 cfg_node_scalar(entry), j);
        o->entries[k] = tl_xstrdup(cfg_node_scalar(entry));
        o->d.kernels[k].entry = o->entries[k];
        if (parse_kernel_launch(c, kn, cfg_node_find(pr, np, "block"), cfg_node_find(pr, np, "grid"), cfg_node_find(pr, np, "smem"),
                                f2, scope, &o->d.kernels[k]))
            return -1;
        o->d.nkernels = k + 1;
    }
    return 0;
}

static int parse_launch(cfg_node_ctx *c, const cfg_decl_nodes *dn, const char *field, cfg_owned *o, const reg_op *op)
{
    expr_scope scope = {(const char *const *)o->pnames, o->v.nparams, op->axes, op->naxes};
    char f2[80];
    decl_variant *d = &o->d;
    if (dn->kernels) {
        yaml_node_t *one = dn->entry ? dn->entry : dn->block ? dn->block : dn->grid ? dn->grid : dn->smem;
        if (one) return cfg_node_fail(c, one, field, "with `kernels:`, each kernel has its own entry, block, grid and smem");
        if (parse_kernels(c, dn->kernels, field, &scope, o)) return -1;
        o->v.entry = o->entries[0];
    } else {
        d->kernels[0].entry = o->entry;
        d->nkernels = 1;
        if (parse_kernel_launch(c, dn->name, dn->block, dn->grid, dn->smem, field, &scope, &d->kernels[0])) return -1;
    }
    snprintf(f2, sizeof f2, "%s.workspace", field);
    if (dn->workspace && cfg_node_expr(c, dn->workspace, f2, &scope, &d->workspace)) return -1;
    d->has_workspace = dn->workspace != NULL;
    if (dn->requires) {
        int k = dn->requires->type == YAML_SEQUENCE_NODE
                    ? (int)(dn->requires->data.sequence.items.top - dn->requires->data.sequence.items.start) : 1;
        d->requires = tl_xcalloc((size_t)k + 1, sizeof *d->requires);
        snprintf(f2, sizeof f2, "%s.requires", field);
        if (cfg_node_expr_list(c, dn->requires, f2, 1, 1 << 20, &scope, d->requires, &d->nrequires)) return -1;
    }
    return 0;
}

/* name, source and entry of a declared variant. */
static int parse_declared_names(cfg_node_ctx *c, const cfg_decl_nodes *dn, const char *field, int index, cfg_owned *o,
                                tl_experiment *x)
{
    const char *name = cfg_node_scalar(dn->name);
    if (!is_identifier(name) || strlen(name) > 64)
        return cfg_node_fail(c, dn->name, field, "'%s': a declared variant's name is letters, digits and _ (at most 64)", name);
    if (reg_find_variant(x->op, name))
        return cfg_node_fail(c, dn->name, field, "'%s' is a registered variant of %s: a variant with `source:` needs a name "
                                           "of its own", name, x->op->name);
    for (int i = 0; i < index; i++)
        if (x->variants[i].own && !strcmp(x->variants[i].v->name, name))
            return cfg_node_fail(c, dn->name, field, "'%s' is declared twice (first at line %d)", name, x->variants[i].line);
    char f2[80];
    snprintf(f2, sizeof f2, "%s.source", field);
    if (cfg_node_expect(c, dn->source, YAML_SCALAR_NODE, f2)) return -1;
    snprintf(f2, sizeof f2, "%s.entry", field);
    if (dn->entry && cfg_node_expect(c, dn->entry, YAML_SCALAR_NODE, f2)) return -1;
    const char *entry = dn->entry ? cfg_node_scalar(dn->entry) : name;
    if (!is_identifier(entry))
        return cfg_node_fail(c, dn->entry ? dn->entry : dn->name, f2, "'%s' is not a kernel name", entry);
    o->name = tl_xstrdup(name);
    o->source = tl_xstrdup(cfg_node_scalar(dn->source));
    o->entry = tl_xstrdup(entry);
    o->summary = tl_xasprintf("declared in %s: %s, %s", x->path, o->source, entry);
    o->v = (reg_variant){.name = o->name, .summary = o->summary, .kind = REG_NVRTC, .source = o->source,
                         .entry = o->entry, .constraints = "its requires", .decl = &o->d};
    o->d = (decl_variant){.path = x->path, .op = x->op, .v = &o->v};
    return 0;
}

int cfg_decl_source(cfg_node_ctx *c, const cfg_decl_nodes *dn, const char *field, int index, cfg_variant *cv, tl_experiment *x)
{
    cfg_owned *o = tl_xcalloc(1, sizeof *o);
    cv->own = o;
    cv->origin = SOURCE_EXPERIMENT;
    if (parse_declared_names(c, dn, field, index, o, x)) return -1;
    cv->v = &o->v;
    char f2[80];
    snprintf(f2, sizeof f2, "%s.params", field);
    if (dn->params && parse_declared_params(c, dn->params, f2, o, cv, x->op)) return -1;
    if (parse_launch(c, dn, field, o, x->op)) return -1;
    if (source_resolve(&x->store, SOURCE_EXPERIMENT, o->source, &cv->src, c->e)) {
        tl_err_wrap(c->e, "%s:%lu:%lu: %s.source", c->path, (unsigned long)dn->source->start_mark.line + 1,
                    (unsigned long)dn->source->start_mark.column + 1, field);
        return -1;
    }
    return 0;
}

int cfg_decl_library(cfg_node_ctx *c, const cfg_decl_nodes *dn, yaml_node_t *library, yaml_node_t *args, const char *field,
                     int index, cfg_variant *cv, tl_experiment *x)
{
    yaml_node_t *at = library ? library : args;
    if (!x->dop)
        return cfg_node_fail(c, at, field, "library: belongs to a variant of an op declared in the file; op %s's own "
                                       "library variants are listed by `runner list %s`", x->op->name, x->op->name);
    yaml_node_t *other = dn->source ? dn->source : dn->entry ? dn->entry : dn->block ? dn->block : dn->grid ? dn->grid
                         : dn->smem ? dn->smem : dn->kernels ? dn->kernels : dn->workspace ? dn->workspace : dn->params;
    if (other) return cfg_node_fail(c, other, field, "a library variant takes `library:` and `args:`, not a kernel's keys");
    if (!library) return cfg_node_fail(c, args, field, "args: belongs to a library variant (`library: cub.inclusive_sum`)");
    const char *name = cfg_node_scalar(dn->name);
    if (!is_identifier(name) || strlen(name) > 64)
        return cfg_node_fail(c, dn->name, field, "'%s': a declared variant's name is letters, digits and _ (at most 64)", name);
    for (int i = 0; i < index; i++)
        if (!strcmp(x->variants[i].v->name, name))
            return cfg_node_fail(c, dn->name, field, "'%s' is declared twice (first at line %d)", name, x->variants[i].line);
    cfg_owned *o = tl_xcalloc(1, sizeof *o);
    cv->own = o;
    cv->origin = SOURCE_EXPERIMENT;
    if (cfg_op_library(c, library, args, field, x->dop, &o->d.lib)) return -1;
    o->name = tl_xstrdup(name);
    o->summary = tl_xstrdup(o->d.lib->fn->doc);
    o->v = (reg_variant){.name = o->name, .summary = o->summary, .kind = REG_LIBRARY, .run = dlib_run,
                         .constraints = "its args' counts", .decl = &o->d};
    o->d.path = x->path, o->d.op = x->op, o->d.v = &o->v;
    if (dn->requires) {
        expr_scope scope = {NULL, 0, x->op->axes, x->op->naxes};
        int k = dn->requires->type == YAML_SEQUENCE_NODE ? cfg_node_count(dn->requires) : 1;
        char f2[80];
        o->d.requires = tl_xcalloc((size_t)k + 1, sizeof *o->d.requires);
        snprintf(f2, sizeof f2, "%s.requires", field);
        if (cfg_node_expr_list(c, dn->requires, f2, 1, 1 << 20, &scope, o->d.requires, &o->d.nrequires)) return -1;
    }
    cv->v = &o->v;
    return 0;
}
