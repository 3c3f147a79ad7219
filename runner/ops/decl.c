#include "runner/ops/decl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0 with *v, 1 when it needs an unknown device fact, -1 with e on an evaluation error. */
static int eval(const decl_variant *d, const decl_expr *x, const expr_env *env, const char *case_text, int64_t *v,
                tl_err *e)
{
    char msg[512];
    int rc = expr_eval(&x->x, env, v, msg, sizeof msg);
    if (rc < 0)
        tl_err_set(e, "%s:%d:%d: %s: '%s': %s, for %s", d->path, x->line, x->col, x->field, x->x.text, msg, case_text);
    return rc;
}

static int requires_hold(const decl_variant *d, const expr_env *env, const char *case_text, decl_outcome *out,
                         tl_err *e)
{
    for (int i = 0; i < d->nrequires; i++) {
        int64_t v;
        int rc = eval(d, &d->requires[i], env, case_text, &v, e);
        if (rc < 0) return -1;
        if (rc > 0) {
            out->undecided = 1;
            continue;
        }
        if (!v) {
            out->skip = tl_xasprintf("requires %s", d->requires[i].x.text);
            out->device_skip = d->requires[i].x.uses_device;
            return 0;
        }
    }
    return 0;
}

/* One launch dimension list (block or grid) into dims[3] (missing ones 1). 1: undecided. */
static int eval_dims(const decl_variant *d, const decl_expr *xs, int n, const expr_env *env, const char *case_text,
                     int64_t *dims, tl_err *e)
{
    dims[0] = dims[1] = dims[2] = 1;
    for (int i = 0; i < n; i++) {
        int rc = eval(d, &xs[i], env, case_text, &dims[i], e);
        if (rc) return rc;
        if (dims[i] < 1) {
            tl_err_set(e, "%s:%d:%d: %s: '%s' is %lld for %s: a launch needs at least 1 (ceil_div rounds up)", d->path,
                       xs[i].line, xs[i].col, xs[i].field, xs[i].x.text, (long long)dims[i], case_text);
            return -1;
        }
    }
    return 0;
}

static int block_ok(const decl_variant *d, const decl_kernel *k, const int64_t *b, const char *case_text, tl_err *e)
{
    const decl_expr *x = &k->block[0];
    const char *what = NULL;
    if (b[0] > DECL_MAX_THREADS || b[1] > DECL_MAX_THREADS) what = "x and y may be 1024 at most";
    else if (b[2] > DECL_MAX_BLOCK_Z) what = "z may be 64 at most";
    else if (b[0] * b[1] * b[2] > DECL_MAX_THREADS) what = "a block has 1024 threads at most";
    if (!what) return 0;
    tl_err_set(e, "%s:%d:%d: %s: block [%lld, %lld, %lld] for %s: %s (CUDA's limit; a requires can rule such "
                  "params out)", d->path, x->line, x->col, x->field, (long long)b[0], (long long)b[1],
               (long long)b[2], case_text, what);
    return -1;
}

/* Kernel k's launch into *l; a skip or an undecided launch goes to out. */
static int launch_of(const decl_variant *d, const decl_kernel *k, const expr_env *env, const char *case_text,
                     decl_outcome *out, reg_launch *l, tl_err *e)
{
    int64_t block[3], grid[3], smem = 0;
    int rc;
    if ((rc = eval_dims(d, k->block, k->nblock, env, case_text, block, e)) ||
        (rc = eval_dims(d, k->grid, k->ngrid, env, case_text, grid, e)) ||
        (k->has_smem && (rc = eval(d, &k->smem, env, case_text, &smem, e)))) {
        if (rc > 0) out->undecided = 1;
        return rc < 0 ? -1 : 0;
    }
    if (block_ok(d, k, block, case_text, e)) return -1;
    if (smem < 0) {
        tl_err_set(e, "%s:%d:%d: %s: '%s' is %lld bytes for %s", d->path, k->smem.line, k->smem.col, k->smem.field,
                   k->smem.x.text, (long long)smem, case_text);
        return -1;
    }
    if (grid[0] > DECL_MAX_GRID_X || grid[1] > DECL_MAX_GRID_YZ || grid[2] > DECL_MAX_GRID_YZ) {
        out->skip = tl_xasprintf("%s%sgrid [%lld, %lld, %lld] is over CUDA's limits (2^31-1, 65535, 65535)",
                                 d->nkernels > 1 ? k->entry : "", d->nkernels > 1 ? "'s " : "", (long long)grid[0],
                                 (long long)grid[1], (long long)grid[2]);
        return 0;
    }
    if (env->device && smem > env->device[EXPR_SMEM_OPTIN]) {
        out->skip = tl_xasprintf("needs %lld bytes of dynamic shared memory per block, the device allows %lld",
                                 (long long)smem, (long long)env->device[EXPR_SMEM_OPTIN]);
        out->device_skip = 1;
        return 0;
    }
    for (int i = 0; i < 3; i++) l->block[i] = (unsigned)block[i], l->grid[i] = (unsigned)grid[i];
    l->smem = (size_t)smem;
    return 0;
}

/* The workspace's bytes: at most 2^40 (a TiB: a slip in the expression, not a scratch buffer). */
static int workspace_of(const decl_variant *d, const expr_env *env, const char *case_text, decl_outcome *out,
                        tl_err *e)
{
    int64_t w;
    int rc = eval(d, &d->workspace, env, case_text, &w, e);
    if (rc) {
        if (rc > 0) out->undecided = 1;
        return rc < 0 ? -1 : 0;
    }
    if (w < 0 || w > (1LL << 40)) {
        tl_err_set(e, "%s:%d:%d: %s: '%s' is %lld bytes for %s (0 .. 2^40)", d->path, d->workspace.line,
                   d->workspace.col, d->workspace.field, d->workspace.x.text, (long long)w, case_text);
        return -1;
    }
    out->workspace = (uint64_t)w;
    return 0;
}

int decl_evaluate(const decl_variant *d, const long *params, const reg_spec *s, const int64_t *device,
                  const char *case_text, decl_outcome *out, tl_err *e)
{
    expr_env env = {params, s->dims, device};
    memset(out, 0, sizeof *out);
    if (requires_hold(d, &env, case_text, out, e)) return -1;
    if (out->skip) return 0;
    for (int k = 0; k < d->nkernels && !out->skip; k++)
        if (launch_of(d, &d->kernels[k], &env, case_text, out, &out->launch[k], e)) return -1;
    if (!out->skip && d->has_workspace && workspace_of(d, &env, case_text, out, e)) return -1;
    return 0;
}

void decl_free(decl_variant *d)
{
    for (int k = 0; k < REG_MAX_KERNELS; k++) {
        decl_kernel *kn = &d->kernels[k];
        for (int i = 0; i < 3; i++) expr_free(&kn->block[i].x), expr_free(&kn->grid[i].x);
        expr_free(&kn->smem.x);
    }
    expr_free(&d->workspace.x);
    for (int i = 0; i < d->nrequires; i++) expr_free(&d->requires[i].x);
    free(d->requires);
    memset(d, 0, sizeof *d);
}

int decl_entries(const reg_variant *v, const char **out)
{
    if (v->decl) {
        for (int k = 0; k < v->decl->nkernels; k++) out[k] = v->decl->kernels[k].entry;
        return v->decl->nkernels;
    }
    out[0] = v->entry;
    if (v->entry2) out[1] = v->entry2;
    return v->entry2 ? 2 : 1;
}
