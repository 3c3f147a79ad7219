/* jit: every NVRTC variant compiles for sm_90 with every param set and layout that the experiment files
 * name (NVRTC needs no GPU), and a shape its #if checks reject fails with the kernel's own message. */
#include <glob.h>
#include <stdlib.h>

#include "runner/jit.h"
#include "runner/plan.h"
#include "runner/testutil.h"

#define ARCH 90

/* Bazel test sharding: this shard compiles kernels shard, shard + nshards, ... */
static int shard = 0, nshards = 1;

/* One compile per distinct (source, options): sizes do not change the code. */
static int seen(char **done, int ndone, const char *key)
{
    for (int i = 0; i < ndone; i++)
        if (!strcmp(done[i], key)) return 1;
    return 0;
}

static int compile_experiment(const char *path, char ***done, int *ndone, int *compiled)
{
    tl_experiment x;
    tl_plan p;
    tl_err e;
    plan_limits lim = {0, 0};
    if (config_load(path, &x, &e) || plan_expand(&x, &lim, &p, &e)) {
        CHECK(0, "%s", e.msg);
        config_free(&x);
        return 1;
    }
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        if (c->variant->kind != REG_NVRTC || c->skipped) continue;
        char *key = tl_xasprintf("%s|%s|%s", c->variant->source, c->params_text, c->layout_text);
        if (seen(*done, *ndone, key)) {
            free(key);
            continue;
        }
        *done = realloc(*done, sizeof **done * (size_t)(*ndone + 1));
        (*done)[(*ndone)++] = key;
        if ((*ndone - 1) % nshards != shard) continue;
        jit_cubin cb;
        int rc = jit_compile(c->op, c->variant, c->params, &c->spec, ARCH, NULL, &cb, &e);
        CHECK(rc == 0, "%s: %s %s: %s", path, c->variant->name, c->params_text, e.msg);
        if (rc == 0) {
            CHECK(cb.cubin_len > 0 && strlen(cb.cubin_sha256) == 64, "%s: empty cubin", c->variant->name);
            CHECK(strstr(cb.options, "--gpu-architecture=sm_90") != NULL, "options: %s", cb.options);
            jit_cubin_free(&cb);
        }
        (*compiled)++;
    }
    plan_free(&p);
    config_free(&x);
    return 1;
}

/* Bypassing the registry's check, a bad BLOCKSIZE hits the kernel's #error. */
static int check_kernel_rejects_bad_shape(void)
{
    const reg_op *op = reg_find_op("sgemm");
    const reg_variant *v = reg_find_variant(op, "smem_tile");
    long params[REG_MAX_PARAMS] = {33};
    reg_spec s = {.dims = {64, 64, 64}};
    jit_cubin cb;
    tl_err e;
    int rc = jit_compile(op, v, params, &s, ARCH, NULL, &cb, &e);
    CHECK(rc != 0, "BLOCKSIZE=33 compiled");
    CHECK(strstr(e.msg, "BLOCKSIZE must be 1 .. 32") != NULL, "got: %s", e.msg);
    if (rc == 0) jit_cubin_free(&cb);
    return 1;
}

/* Every NVRTC variant of the registry compiles with its defaults (test-only ones too). */
static int check_registry_defaults(void)
{
    for (int i = 0; i < reg_nops; i++)
        for (int j = 0; j < reg_ops[i]->nvariants; j++) {
            const reg_variant *v = &reg_ops[i]->variants[j];
            if (v->kind != REG_NVRTC) continue;
            long params[REG_MAX_PARAMS] = {0};
            for (int k = 0; k < v->nparams; k++) params[k] = v->params[k].def;
            reg_spec s = {.dims = {64, 64, 64}};
            jit_cubin cb;
            tl_err e;
            int rc = jit_compile(reg_ops[i], v, params, &s, ARCH, NULL, &cb, &e);
            CHECK(rc == 0, "%s/%s with defaults: %s", reg_ops[i]->name, v->name, e.msg);
            if (rc == 0) jit_cubin_free(&cb);
        }
    return 1;
}

/* The disk cache returns the same cubin and says it did. */
static int check_cache(void)
{
    const reg_op *op = reg_find_op("sgemm");
    const reg_variant *v = reg_find_variant(op, "gmem_coalesced");
    long params[REG_MAX_PARAMS] = {16};
    reg_spec s = {.dims = {64, 64, 64}};
    const char *tmp = getenv("TEST_TMPDIR");
    char *dir = tl_xasprintf("%s/cubin-cache", tmp ? tmp : "/tmp");
    jit_cubin a, b;
    tl_err e;
    CHECK(jit_compile(op, v, params, &s, ARCH, dir, &a, &e) == 0, "%s", e.msg);
    CHECK(jit_compile(op, v, params, &s, ARCH, dir, &b, &e) == 0, "%s", e.msg);
    CHECK(!a.cached && b.cached, "cache flags %d %d", a.cached, b.cached);
    CHECK(!strcmp(a.cubin_sha256, b.cubin_sha256), "cached cubin differs");
    jit_cubin_free(&a);
    jit_cubin_free(&b);
    free(dir);
    return 1;
}

int main(void)
{
    const char *si = getenv("TEST_SHARD_INDEX"), *sn = getenv("TEST_TOTAL_SHARDS"), *status = getenv("TEST_SHARD_STATUS_FILE");
    if (si && sn) shard = atoi(si), nshards = atoi(sn);
    if (status) fclose(fopen(status, "w")); /* tells Bazel this test shards */
    glob_t g;
    char **done = NULL;
    int ndone = 0, compiled = 0, total = 0;
    CHECK(glob("experiments/*.yaml", 0, NULL, &g) == 0 && g.gl_pathc > 0, "no experiments/*.yaml in runfiles");
    for (size_t i = 0; i < g.gl_pathc; i++) total += compile_experiment(g.gl_pathv[i], &done, &ndone, &compiled);
    printf("shard %d of %d: compiled %d of %d distinct kernels from %zu experiment files\n", shard, nshards, compiled,
           ndone, g.gl_pathc);
    CHECK(ndone >= 11, "expected every sgemm rung, got %d kernels", ndone);
    CHECK(compiled >= ndone / nshards, "this shard compiled %d of %d", compiled, ndone);
    globfree(&g);
    for (int i = 0; i < ndone; i++) free(done[i]);
    free(done);
    if (shard == 0) {
        total += check_registry_defaults();
        total += check_kernel_rejects_bad_shape();
        total += check_cache();
    }
    return TEST_REPORT(total);
}
