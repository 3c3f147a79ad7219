/* jit: every NVRTC variant compiles for sm_90 (sm_90a where it asks) with every param set, layout and dtype
 * that the experiment files name (CuTe kernels: every layout and dtype; the example folders' own variants
 * too; NVRTC needs no GPU), and a shape its #if checks reject fails with the kernel's own message. The first
 * param set of each layout is compiled to a cubin (of a CuTe kernel, the first layout of each source and
 * dtype); the others go through NVRTC's front end only (the C++, its templates, #if and static_assert
 * checks: what a param set can break short of ptxas, about 0.1 s where PTX took 1). A CuTe kernel's cubin is
 * checked for its LTO link: few globals, its kernels, the workspace and TMA symbols its sources declare. */
#include <glob.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "runner/jit/jit.h"
#include "runner/jit/tma.h"
#include "runner/ops/registry_lookup.h"
#include "runner/plan/plan.h"
#include "runner/testing/testutil.h"

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

/* An example folder (experiments/<x>/<x>.yaml) is copied out of the runfiles first: its files there
 * are links out of the folder, which the runner refuses to read. */
static char *local_copy(const char *path)
{
    const char *tmp = getenv("TEST_TMPDIR");
    char *dir = tl_xstrdup(path), *slash = strrchr(dir, '/');
    if (!slash || strncmp(path, "experiments/", 12) || !strchr(path + 12, '/')) {
        free(dir);
        return tl_xstrdup(path);
    }
    *slash = '\0';
    char *to = tl_xasprintf("%s/%s", tmp ? tmp : "/tmp", dir), *cmd = tl_xasprintf("mkdir -p '%s' && cp -rL '%s/.' '%s'", to, dir, to);
    CHECK(system(cmd) == 0, "%s", cmd);
    char *copy = tl_xasprintf("%s/%s", to, slash + 1);
    free(dir), free(to), free(cmd);
    return copy;
}

/* 1 when one of the request's source files names sym. */
static int sources_name(const jit_request *rq, const char *sym)
{
    for (int i = 0; i < rq->src->n; i++)
        if (strstr(rq->store->files[rq->src->files[i]].text, sym)) return 1;
    return 0;
}

/* A CuTe kernel's cubin is NVRTC's LTO IR linked by nvJitLink keeping the entries and the globals the runner
 * binds (jit.c, build_options): a few globals where NVRTC's own build kept every unannotated variable of
 * CUTLASS's headers (~3000 in tf32x3, 680 KB that the driver took ~23 ms to load), and still its kernels,
 * the workspace pointer and the TMA requests and maps where its sources declare them. */
static void check_lto_cubin(const char *what, const jit_request *rq, const jit_cubin *cb)
{
    char kernels[4096];
    int globals = jit_cubin_globals(cb->cubin, cb->cubin_len);
    CHECK(strstr(cb->options, "-dlto") != NULL, "%s: a CuTe kernel not built as LTO IR: %s", what, cb->options);
    CHECK(globals >= 0 && globals < 64, "%s: %d globals in a cubin of %zu bytes", what, globals, cb->cubin_len);
    const char *entries[] = {rq->entry, rq->also[0]};
    for (int i = 0; i < 2; i++)
        if (entries[i])
            CHECK(jit_cubin_has_kernel(cb->cubin, cb->cubin_len, entries[i], kernels, sizeof kernels) == 1,
                  "%s: no kernel %s (it has %s)", what, entries[i], kernels);
    const char *syms[] = {REG_WORKSPACE_SYMBOL, REG_TMA_REQUESTS_SYMBOL, REG_TMA_MAPS_SYMBOL};
    for (int i = 0; i < 3; i++)
        if (sources_name(rq, syms[i]))
            CHECK(jit_cubin_has_global(cb->cubin, cb->cubin_len, syms[i], NULL) == 1, "%s: the link dropped %s", what,
                  syms[i]);
}

/* What the experiments' compiles covered so far: (source, params, dtype) and (source, layout, dtype). */
static char **by_params, **by_layout, **by_source;
static int nby_params, nby_layout, nby_source;

static int compile_experiment(const char *given, char ***done, int *ndone, int *compiled, int *front_end, int lto[2])
{
    char *path = local_copy(given);
    tl_experiment x;
    tl_plan p;
    tl_err e;
    plan_limits lim = {0};
    if (config_load(path, &x, &e) || plan_expand(&x, &lim, &p, &e)) {
        CHECK(0, "%s", e.msg);
        config_free(&x);
        free(path);
        return 1;
    }
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        if (c->variant->kind != REG_NVRTC || c->skipped) continue;
        /* The registry's kernels are the same in every experiment; declared ones are the experiment's.
         * A CuTe kernel takes about 10 s where the others take 1: it compiles once per layout and dtype
         * (its params only size its templates; the GPU runs compile every shape). */
        /* A dispatching variant's case compiles the rung its table picked. */
        tl_buf run_params = {0};
        tl_buf_printf(&run_params, "%s", "");
        for (int k = 0; k < c->run->nparams; k++) tl_buf_printf(&run_params, "%s%ld", k ? "," : "", c->run_params[k]);
        const char *params = c->run_src->cutlass ? "cute" : run_params.s;
        const char *prefix = c->variant->decl ? given : "";
        char *key = tl_xasprintf("%s|%s|%s|%s|%s", prefix, c->run->source, params, c->layout_text, c->dtype);
        /* A param sweep over four layouts: every param set compiles in one layout and every layout with
         * one param set (a failure of params and layout together would be rare, and the GPU runs
         * compile every case); that keeps CI's 2 cores at a few minutes. */
        char *pkey = tl_xasprintf("%s|%s|%s|%s", prefix, c->run->source, params, c->dtype);
        char *lkey = tl_xasprintf("%s|%s|%s|%s", prefix, c->run->source, c->layout_text, c->dtype);
        tl_buf_free(&run_params);
        int new_layout = !seen(by_layout, nby_layout, lkey);
        int covered = seen(by_params, nby_params, pkey) && !new_layout;
        /* A CuTe kernel goes through ptxas once per source and dtype, its other layouts through the front end
         * only (7 - 9 s of the 9 - 18 s a ptxas compile of one takes): its compiles to a cubin per layout were
         * some 90 of a shard's 105 s of NVRTC on CI's 2 cores, and the shards' 877 s are 692 s so
         * (2026-11-27). */
        char *skey = tl_xasprintf("%s|%s|%s", prefix, c->run->source, c->dtype);
        int new_source = !seen(by_source, nby_source, skey);
        if (new_source && !covered && !seen(*done, *ndone, key)) {
            by_source = realloc(by_source, sizeof *by_source * (size_t)(nby_source + 1));
            by_source[nby_source++] = skey;
        } else {
            free(skey);
        }
        if (!seen(by_params, nby_params, pkey)) {
            by_params = realloc(by_params, sizeof *by_params * (size_t)(nby_params + 1));
            by_params[nby_params++] = pkey;
        } else {
            free(pkey);
        }
        if (!seen(by_layout, nby_layout, lkey)) {
            by_layout = realloc(by_layout, sizeof *by_layout * (size_t)(nby_layout + 1));
            by_layout[nby_layout++] = lkey;
        } else {
            free(lkey);
        }
        if (covered || seen(*done, *ndone, key)) {
            free(key);
            continue;
        }
        *done = realloc(*done, sizeof **done * (size_t)(*ndone + 1));
        (*done)[(*ndone)++] = key;
        lto[1] += c->run_src->cutlass && new_source; /* a CuTe cubin, of this shard or another */
        if ((*ndone - 1) % nshards != shard) continue;
        jit_cubin cb;
        jit_request rq;
        jit_request_of_case(&x, c, ARCH, &rq);
        /* A param set of a layout that an earlier one took through ptxas stops after the front end: what
         * it can get wrong is the C++ and the kernel's checks (the GPU runs assemble every case). */
        rq.front_end_only = c->run_src->cutlass ? !new_source : !new_layout;
        int rc = jit_compile(&rq, NULL, NULL, &cb, &e);
        CHECK(rc == 0, "%s: %s %s: %s", path, c->variant->name, c->params_text, e.msg);
        if (rc == 0) {
            if (rq.front_end_only)
                CHECK(!cb.cubin && strstr(cb.options, "--fdevice-syntax-only"), "%s: front end only: %s", c->variant->name,
                      cb.options);
            else
                CHECK(cb.cubin_len > 0 && strlen(cb.cubin_sha256) == 64 && strstr(cb.options, "--gpu-architecture=sm_90") &&
                          !strstr(cb.options, "--fdevice-syntax-only"),
                      "%s: no cubin: %s", c->variant->name, cb.options);
            if (!rq.front_end_only && c->run_src->cutlass) {
                char *what = tl_xasprintf("%s: %s", path, c->variant->name);
                check_lto_cubin(what, &rq, &cb);
                free(what);
                lto[0]++;
            }
            jit_cubin_free(&cb);
        }
        (*compiled)++;
        *front_end += rq.front_end_only;
    }
    plan_free(&p);
    config_free(&x);
    free(path);
    return 1;
}

/* A registry variant compiled outside any experiment: its sources resolved from this runner's kernels
 * (front_end_only: see jit_request). A CuTe kernel's cubin is checked for its LTO link. */
static int compile_registry_for(const reg_op *op, const reg_variant *v, const long *params, const reg_spec *s,
                                int arch, int front_end_only, const char *cache, jit_cubin *cb, tl_err *e, int *cute)
{
    source_store st;
    source_set set;
    source_store_init(&st, "registry.yaml");
    int rc = source_resolve(&st, SOURCE_TILELAB, v->source, &set, e);
    if (rc == 0) {
        jit_request rq = {.op = op, .store = &st, .src = &set, .entry = v->entry, .also = {v->entry2},
                          .params = v->params, .nparams = v->nparams, .values = params, .spec = s, .variant = v,
                          .arch = arch, .arch_specific = v->arch_specific, .front_end_only = front_end_only};
        if (cute) *cute = set.cutlass != NULL;
        rc = jit_compile(&rq, cache, NULL, cb, e);
        if (rc == 0 && set.cutlass && cb->cubin && arch == ARCH) {
            char *what = tl_xasprintf("%s/%s, %s", op->name, v->name, op->dtypes[s->dtype]);
            check_lto_cubin(what, &rq, cb);
            free(what);
        }
        source_set_free(&set);
    }
    source_store_free(&st);
    return rc;
}

/* The bytes of v's own sources when they include CuTe (10 - 30 s of NVRTC a cubin where the others take 1),
 * else 0. */
static size_t cute_source_bytes(const reg_variant *v)
{
    source_store st;
    source_set set;
    tl_err e;
    source_store_init(&st, "registry.yaml");
    size_t bytes = 0;
    if (source_resolve(&st, SOURCE_TILELAB, v->source, &set, &e) == 0) {
        for (int i = 0; set.cutlass && i < set.n; i++) bytes += strlen(st.files[set.files[i]].text);
        source_set_free(&set);
    }
    source_store_free(&st);
    return bytes;
}

/* The registry's CuTe variant of the shortest sources: quick's one CuTe compile (cute_naive, about 10 s). */
static const reg_variant *smallest_cute(void)
{
    const reg_variant *best = NULL;
    size_t least = 0;
    for (int i = 0; i < reg_nops; i++)
        for (int j = 0; j < reg_ops[i]->nvariants; j++) {
            const reg_variant *v = &reg_ops[i]->variants[j];
            size_t n = v->kind == REG_NVRTC && !v->table ? cute_source_bytes(v) : 0;
            if (n && (!best || n < least)) best = v, least = n;
        }
    return best;
}

static int compile_registry(const reg_op *op, const reg_variant *v, const long *params, const reg_spec *s,
                            const char *cache, jit_cubin *cb, tl_err *e)
{
    return compile_registry_for(op, v, params, s, ARCH, 0, cache, cb, e, NULL);
}

/* sgemm's smem_tile at 64^3 with this BLOCKSIZE, past the registry's check (front_end_only: see jit_request). */
static int compile_smem_tile(long blocksize, int front_end_only, jit_cubin *cb, tl_err *e)
{
    const reg_op *op = reg_find_op("sgemm");
    long params[REG_MAX_PARAMS] = {blocksize};
    reg_spec s = {.dims = {64, 64, 64}};
    return compile_registry_for(op, reg_find_variant(op, "smem_tile"), params, &s, ARCH, front_end_only, NULL, cb, e, NULL);
}

/* Bypassing the plan's check, a bad BLOCKSIZE hits the registry's rule in the compile (reg_rule's #error). */
static int check_kernel_rejects_bad_shape(void)
{
    jit_cubin cb;
    tl_err e;
    int rc = compile_smem_tile(33, 0, &cb, &e);
    CHECK(rc != 0, "BLOCKSIZE=33 compiled");
    CHECK(rc != 0 && strstr(e.msg, "smem_tile: BLOCKSIZE = 33 is not 1 .. 32") != NULL, "got: %s", rc ? e.msg : "");
    if (rc == 0) jit_cubin_free(&cb);
    return 1;
}

/* sgemm's beta hint: TL_BETA_NONZERO=1 where the case's beta is not 0, =0 where it is, and the two builds
 * of a kernel's epilogue both compile and differ: store_tile (blocktile_2d), hopper's KMAJ stores of rows
 * (B row-major) and of interleaved columns (B column-major), and sgemm_store_c's loads of old values before
 * the stores (skinny, tf32x3; quick: skinny's alone, tf32x3 is CuTe's 15 s a build). */
static int check_beta_builds(int quick)
{
    const reg_op *op = reg_find_op("sgemm");
    const struct {
        const char *name;
        int kmaj, bcol;
        long m;
    } k[] = {{"blocktile_2d", 0, 0, 1001}, {"hopper", 1, 0, 1001}, {"hopper", 1, 1, 1001},
             {"skinny", 0, 0, 7},          {"tf32x3", 0, 1, 1001}};
    const int nk = (int)(sizeof k / sizeof k[0]) - quick; /* tf32x3 last */
    int n = 0;
    for (int i = 0; i < nk; i++) {
        const reg_variant *v = reg_find_variant(op, k[i].name);
        long params[REG_MAX_PARAMS] = {0};
        for (int p = 0; p < v->nparams; p++) params[p] = v->params[p].def;
        if (k[i].kmaj) params[reg_find_param(v, "KMAJ")] = 1;
        char sha[2][65] = {"", ""};
        for (int b = 0; b < 2; b++) {
            reg_spec s = {.dims = {k[i].m, 999, 1003}, .layouts = {REG_ROW, k[i].bcol ? REG_COL : REG_ROW},
                          .args = {0.75, b ? -1.25 : 0.0}};
            jit_cubin cb;
            tl_err e;
            char want[32];
            snprintf(want, sizeof want, "TL_BETA_NONZERO=%d", b);
            int rc = compile_registry(op, v, params, &s, NULL, &cb, &e);
            CHECK(rc == 0, "%s b=%s beta %g: %s", k[i].name, k[i].bcol ? "col" : "row", s.args[1], rc ? e.msg : "");
            if (rc) continue;
            CHECK(strstr(cb.options, want) != NULL, "%s beta %g: no %s in %s", k[i].name, s.args[1], want, cb.options);
            snprintf(sha[b], sizeof sha[b], "%s", cb.cubin_sha256);
            jit_cubin_free(&cb);
            n++;
        }
        CHECK(strcmp(sha[0], sha[1]) != 0, "%s b=%s: the same cubin with beta 0 and -1.25", k[i].name,
              k[i].bcol ? "col" : "row");
    }
    CHECK(n == 2 * nk, "compiled %d of %d", n, 2 * nk);
    return 1;
}

/* Every NVRTC variant of the registry compiles with its defaults (test-only ones too), in every dtype
 * it takes, for its target (sm_90a for the arch-specific ones); the variants spread over the shards. A
 * CuTe kernel that an experiment already compiles row-major in that dtype (done: the keys of every
 * shard's experiment compiles) is not compiled again for sm_90: it takes about 10 s. quick: the CuTe kernel of
 * the shortest sources, in one dtype, stands for the others, and no Ampere builds (the exhaustive test has
 * them). */
static int check_registry_defaults(char **done, int ndone, int quick)
{
    int item = 0;
    const reg_variant *one_cute = quick ? smallest_cute() : NULL;
    for (int i = 0; i < reg_nops; i++)
        for (int j = 0; j < reg_ops[i]->nvariants; j++) {
            const reg_variant *v = &reg_ops[i]->variants[j];
            if (v->kind != REG_NVRTC || v->table || item++ % nshards != shard) continue;
            int is_cute = cute_source_bytes(v) > 0;
            if (quick && is_cute && v != one_cute) continue;
            long params[REG_MAX_PARAMS] = {0};
            for (int k = 0; k < v->nparams; k++) params[k] = v->params[k].def;
            for (int d = 0; d < reg_ops[i]->ndtypes; d++) {
                if (!reg_variant_takes(v, d)) continue;
                reg_spec s = {.dims = {64, 64, 64}, .dtype = d};
                jit_cubin cb;
                tl_err e;
                char *key = tl_xasprintf("|%s|cute|a=row,b=row|%s", v->source, reg_ops[i]->dtypes[d]);
                int skip = is_cute && seen(done, ndone, key), rc = 0;
                free(key);
                if (!skip) {
                    double t0 = tl_now_s();
                    rc = compile_registry_for(reg_ops[i], v, params, &s, ARCH, 0, NULL, &cb, &e, NULL);
                    printf("%s/%s, %s: %.1f s\n", reg_ops[i]->name, v->name, reg_ops[i]->dtypes[d], tl_now_s() - t0);
                    CHECK(rc == 0, "%s/%s with defaults, %s: %s", reg_ops[i]->name, v->name, reg_ops[i]->dtypes[d], e.msg);
                    if (rc == 0) jit_cubin_free(&cb);
                }
                if (quick && is_cute) break;
                /* The CuTe and tensor-core kernels that need no sm_90a target Ampere (sm_80) too. */
                if (quick || v->arch_specific || !(is_cute || d > 0) || strcmp(reg_ops[i]->name, "sgemm")) continue;
                rc = compile_registry_for(reg_ops[i], v, params, &s, 80, 0, NULL, &cb, &e, NULL);
                CHECK(rc == 0, "%s/%s with defaults, %s, sm_80: %s", reg_ops[i]->name, v->name, reg_ops[i]->dtypes[d],
                      e.msg);
                if (rc == 0) {
                    CHECK(strstr(cb.options, "--gpu-architecture=sm_80 ") != NULL, "options: %s", cb.options);
                    jit_cubin_free(&cb);
                }
            }
        }
    CHECK(one_cute || !quick, "no CuTe kernel in the registry");
    return 1;
}

/* front_end_only: a sound kernel passes with no output and no cache; a shape its #if checks reject,
 * or a template its params break, fails with NVRTC's message, as the full compile does. */
static int check_front_end_only(void)
{
    jit_cubin cb;
    tl_err e;
    int rc = compile_smem_tile(32, 1, &cb, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc == 0) {
        CHECK(!cb.cubin && cb.cubin_len == 0 && !cb.cached && strstr(cb.options, "--gpu-architecture=sm_90 ") &&
                  strstr(cb.options, "--fdevice-syntax-only"),
              "front end only: %s", cb.options);
        jit_cubin_free(&cb);
    }
    rc = compile_smem_tile(33, 1, &cb, &e);
    CHECK(rc != 0 && strstr(e.msg, "smem_tile: BLOCKSIZE = 33 is not 1 .. 32"), "BLOCKSIZE=33, front end only: %s",
          rc ? e.msg : "compiled");
    if (rc == 0) jit_cubin_free(&cb);
    /* A static_assert of a template that only its instantiation reaches. */
    static const char tmpl[] = "template <int N> __device__ float f(float x) { static_assert(N < 4, \"N past 3\"); return x * N; }\n"
                               "extern \"C\" __global__ void k(const float *x, float *y, long long n) { y[0] = f<5>(x[0]); }\n";
    const reg_op *copy = reg_find_op("copy");
    source_store st;
    source_set set;
    source_store_init_preloaded(&st, "t.yaml", 0);
    CHECK(source_store_add(&st, SOURCE_EXPERIMENT, "k.cu", tmpl, sizeof tmpl - 1, NULL, &e) == 0, "%s", e.msg);
    CHECK(source_resolve(&st, SOURCE_EXPERIMENT, "k.cu", &set, &e) == 0, "%s", e.msg);
    reg_spec cs = {.dims = {1024}};
    jit_request rq = {.op = copy, .store = &st, .src = &set, .entry = "k", .spec = &cs, .arch = ARCH, .front_end_only = 1};
    CHECK(jit_compile(&rq, NULL, NULL, &cb, &e) != 0 && strstr(e.msg, "N past 3") && strstr(e.msg, "N=5"),
          "a template's static_assert, front end only: %s", e.msg);
    source_set_free(&set);
    source_store_free(&st);
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
    mkdir(dir, 0700); /* as cache_dir() makes it */
    jit_cubin a, b;
    tl_err e;
    CHECK(compile_registry(op, v, params, &s, dir, &a, &e) == 0, "%s", e.msg);
    CHECK(compile_registry(op, v, params, &s, dir, &b, &e) == 0, "%s", e.msg);
    CHECK(!a.cached && b.cached, "cache flags %d %d", a.cached, b.cached);
    CHECK(!strcmp(a.cubin_sha256, b.cubin_sha256), "cached cubin differs");
    jit_cubin_free(&a);
    jit_cubin_free(&b);
    free(dir);
    return 1;
}

/* --quick (the README's test command): the registry's kernels with their defaults, one CuTe kernel for all,
 * and the compile checks below, in about a minute of one core. Without it (tag exhaustive, .ci/run): every
 * param set, layout and dtype that the experiment files name, and Ampere builds. */
int main(int argc, char **argv)
{
    const char *si = getenv("TEST_SHARD_INDEX"), *sn = getenv("TEST_TOTAL_SHARDS"), *status = getenv("TEST_SHARD_STATUS_FILE");
    if (si && sn) shard = atoi(si), nshards = atoi(sn);
    if (status) fclose(fopen(status, "w")); /* tells Bazel this test shards */
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    char **done = NULL;
    int ndone = 0, compiled = 0, front_end = 0, lto[2] = {0, 0}, total = 0;
    if (!quick) {
        glob_t g;
        CHECK(glob("experiments/*.yaml", 0, NULL, &g) == 0 && g.gl_pathc > 0, "no experiments/*.yaml in runfiles");
        /* The example folders: experiments with variants of their own. */
        CHECK(glob("experiments/*/*.yaml", GLOB_APPEND, NULL, &g) == 0, "no experiments/*/*.yaml in runfiles");
        for (size_t i = 0; i < g.gl_pathc; i++)
            total += compile_experiment(g.gl_pathv[i], &done, &ndone, &compiled, &front_end, lto);
        printf("shard %d of %d: compiled %d of %d distinct kernels from %zu experiment files (%d of them by the front end "
               "only; %d of the %d CuTe cubins, each checked for its LTO link)\n",
               shard, nshards, compiled, ndone, g.gl_pathc, front_end, lto[0], lto[1]);
        CHECK(lto[1] >= 4, "the experiments compile %d CuTe kernels to a cubin (tf32x3, wgmma_tma, the CuTe rungs)", lto[1]);
        CHECK(ndone >= 11, "expected every sgemm rung, got %d kernels", ndone);
        CHECK(compiled >= ndone / nshards, "this shard compiled %d of %d", compiled, ndone);
        globfree(&g);
    }
    total += check_registry_defaults(done, ndone, quick);
    for (int i = 0; i < ndone; i++) free(done[i]);
    free(done);
    if (shard == 0) {
        total += check_kernel_rejects_bad_shape();
        total += check_front_end_only();
        total += check_cache();
        total += check_beta_builds(quick);
    }
    return TEST_REPORT(total);
}
