#include "runner/exec/execute.h"

#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/exec/watchdog.h"
#include "runner/jit/jit.h"
#include "runner/jit/tma.h"
#include "runner/ops/decl.h"
#include "runner/util/cuda_check.h"

/* The registry's modules a run keeps loaded (jit_modules): a tuning's distinct kernels (some 100 of
 * tf32x3's in four layouts), a few MB of device memory for their code and globals. */
#define KEPT_MODULES 256

int execute_init(execute_ctx *c, const tl_experiment *x, const env_info *env, int use_gpu, tl_err *e)
{
    memset(c, 0, sizeof *c);
    c->x = x;
    c->env = env;
    if (!use_gpu) return 0;
    c->gpu = nvml_open(env->pci_bus_id);
    cublasHandle_t h = NULL;
    cudaStream_t st = NULL;
    /* A created stream (graphs cannot be captured on stream 0); blocking, so that the synchronous
     * copies of the ops stay ordered with it. */
    CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamDefault));
    c->ctx.stream = st;
    CUBLAS_CHECK(cublasCreate(&h));
    c->ctx.cublas = h;
    CUBLAS_CHECK(cublasSetStream(h, st));
    /* Twice the L2: whatever the replacement policy, nothing of the last run survives. */
    c->l2_bytes = 2 * (size_t)env->l2_bytes;
    CUDA_CHECK(cudaMalloc(&c->l2_buf, c->l2_bytes));
    c->mods.cap = KEPT_MODULES;
    return 0;
fail:
    execute_free(c);
    return -1;
}

int execute_health_check(tl_err *e)
{
    enum { N = 1 << 20 };
    unsigned char *d = NULL, *h = tl_xmalloc(N);
    int bad = -1;
    if (getenv("TILELAB_TEST_SICK_GPU")) { /* the tests' stand-in for a GPU that stays broken */
        tl_err_set(e, "TILELAB_TEST_SICK_GPU is set");
        free(h);
        return -1;
    }
    CUDA_CHECK(cudaMalloc((void **)&d, N));
    CUDA_CHECK(cudaMemset(d, 0x5a, N));
    CUDA_CHECK(cudaMemcpy(h, d, N, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < N && !bad; i++)
        if (h[i] != 0x5a) {
            tl_err_set(e, "a 1 MiB buffer set on the GPU reads back wrong at byte %d (0x%02x)", i, h[i]);
            bad = -1;
        }
fail:
    if (d) cudaFree(d);
    free(h);
    return bad;
}

void execute_free(execute_ctx *c)
{
    jit_modules_free(&c->mods);
    inguard_free(&c->guard);
    if (c->prob) c->x->op->problem_free(c->prob);
    if (c->ctx.cublas) cublasDestroy(c->ctx.cublas);
    if (c->ctx.stream) cudaStreamDestroy(c->ctx.stream);
    if (c->l2_buf) cudaFree(c->l2_buf);
    if (c->ws_buf) cudaFree(c->ws_buf);
    nvml_close(c->gpu);
    free(c->prob_key);
    free(c->cache_dir);
    jit_memo_free(&c->memo);
    memset(c, 0, sizeof *c);
}

/* ---- what the timed loop calls ---------------------------------------------------------- */

typedef struct {
    const tl_case *tc;
    reg_problem *prob;
    const jit_kernel *k[REG_MAX_KERNELS]; /* REG_NVRTC: the run's kernels, in decl_entries' order */
    reg_launch geo[REG_MAX_KERNELS];
    int nk;
    void *stream;           /* cudaStream_t */
    int verify_every;       /* poison before and check after every timed run */
    tl_result *r;           /* where a failed check is reported */
    void *l2_buf;           /* what the L2 flush overwrites (the counters pass flushes like a timed run) */
    size_t l2_bytes;
    double sim_ms, sim_noise; /* TILELAB_TEST_HOST_TIMING: simulated host timings (tests only) */
    uint64_t sim_seed;
} run_ctx;

static int run_reset(void *ctx, tl_err *e)
{
    run_ctx *r = ctx;
    return r->tc->op->reset_output(r->prob, r->verify_every, e);
}

static int run_launch(void *ctx, tl_err *e)
{
    run_ctx *r = ctx;
    const tl_case *tc = r->tc;
    if (tc->run->kind != REG_NVRTC) return tc->run->run(tc->run, r->prob, tc->run_params, e);
    void *argv[32];
    if (tc->op->kernel_args(r->prob, argv, 32) < 0) {
        tl_err_set(e, "op %s: kernel arguments do not fit", tc->op->name);
        return -1;
    }
    /* In order, but for entry2_first: the second kernel, then the first. */
    for (int i = 0; i < r->nk; i++) {
        int j = r->nk == 2 && tc->run->entry2_first ? 1 - i : i;
        const reg_launch *g = &r->geo[j];
        dim3 grid = {g->grid[0], g->grid[1], g->grid[2]}, block = {g->block[0], g->block[1], g->block[2]};
        CUDA_CHECK(cudaLaunchKernel((const void *)r->k[j]->kernel, grid, block, argv, g->smem, (cudaStream_t)r->stream));
        CUDA_CHECK(cudaGetLastError());
    }
    return 0;
fail:
    return -1;
}

/* TILELAB_TEST_HOST_TIMING=MS:NOISE:SEED replaces the clock of host-target cases by samples
 * MS * (1 + NOISE * z), z standard normal from (SEED, case id, repetition): for the analysis tests,
 * which need runs whose noise is known (a shared CI machine's clock drifts by tens of percent between
 * runs). The variant still runs and is verified; only its time is simulated. Never set otherwise. */
static int sim_timing(run_ctx *rc)
{
    const char *v = getenv("TILELAB_TEST_HOST_TIMING");
    unsigned long long seed;
    if (!v || rc->tc->run->kind != REG_HOST) return 0;
    if (sscanf(v, "%lf:%lf:%llu", &rc->sim_ms, &rc->sim_noise, &seed) != 3 || rc->sim_ms <= 0) return 0;
    rc->sim_seed = seed ^ strtoull(rc->tc->id, NULL, 16);
    if (rc->tc->run->sim_scale) rc->sim_ms *= rc->tc->run->sim_scale(rc->tc->run_params);
    return 1;
}

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static double sim_ms(void *ctx, int i)
{
    const run_ctx *rc = ctx;
    uint64_t a = splitmix(rc->sim_seed * 2 + (uint64_t)(i + 1) * 0x10001ULL), b = splitmix(a);
    double u1 = ((double)(a >> 11) + 0.5) / 9007199254740992.0, u2 = (double)(b >> 11) / 9007199254740992.0;
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    return rc->sim_ms * (1.0 + rc->sim_noise * z);
}

/* Tests only: TILELAB_TEST_HOST_ENERGY_W=W gives host cases an energy counter at W watts that moves every 0.1 s,
 * as NVML's does, so the energy runs and `objective: energy` are tested without a GPU. */
#define FAKE_ENERGY_ENV "TILELAB_TEST_HOST_ENERGY_W"

static int fake_energy_mj(void *ctx, unsigned long long *mj)
{
    (void)ctx;
    double w = atof(getenv(FAKE_ENERGY_ENV));
    if (!(w > 0)) return -1;
    *mj = (unsigned long long)(floor(tl_now_s() / 0.1) * 0.1 * w * 1e3);
    return 0;
}

/* ---- steps ------------------------------------------------------------------------------ */

static int prepare_kernel(execute_ctx *c, const tl_case *tc, run_ctx *rc, jit_kernel *ks, jit_cubin *cb, tl_result *r,
                          tl_err *e);
static int run_launch(void *ctx, tl_err *e);
static void release_kernels(execute_ctx *c, jit_kernel *ks, int failed);

/* A declared op's reference: its reference variant's case for the problem (tc->ref) run once on the poisoned
 * outputs, which op->reference then takes as the truth. Outside any timing. */
static int run_reference(execute_ctx *c, const tl_case *tc, tl_err *e)
{
    const tl_case *ref = tc->ref;
    if (!ref) {
        tl_err_set(e, "the reference variant %s has no case for %s", c->x->reference, tc->sizes_text);
        return -1;
    }
    if (ref->skipped) {
        tl_err_set(e, "the reference variant %s cannot run %s: %s", ref->variant->name, tc->sizes_text, ref->reason);
        return -1;
    }
    jit_kernel ks[REG_MAX_KERNELS] = {{0}};
    jit_cubin cb = {0};
    tl_result tr = {.status = "ok"};
    run_ctx rt = {.tc = ref, .prob = c->prob, .stream = c->ctx.stream, .r = &tr};
    int bad = ref->run->kind == REG_NVRTC ? prepare_kernel(c, ref, &rt, ks, &cb, &tr, e) : 0; /* a library's runs as is */
    if (!bad && strcmp(tr.status, "ok")) {
        tl_err_set(e, "the reference variant %s cannot run %s: %s", ref->variant->name, tc->sizes_text,
                   tr.reason ? tr.reason : tr.status);
        bad = -1;
    }
    if (!bad) bad = ref->op->reset_output(c->prob, 1, e) || run_launch(&rt, e);
    if (bad) tl_err_wrap(e, "reference %s %s", ref->variant->name, ref->params_text);
    free(tr.reason), free(tr.nvrtc_options);
    release_kernels(c, ks, bad != 0);
    jit_cubin_free(&cb);
    return bad ? -1 : 0;
}

/* The inputs are dropped: the next case makes its problem afresh. */
static void drop_problem(execute_ctx *c, const reg_op *op)
{
    inguard_free(&c->guard);
    if (c->prob) op->problem_free(c->prob);
    c->prob = NULL;
    free(c->prob_key);
    c->prob_key = NULL;
    c->prob_ref = NULL;
}

/* After runs of tc's kernels: an input they changed is put back (or the problem dropped, to be made again), and
 * reported. 1 when one changed (*why says which), 0 when none did, -1 with e. */
static int inputs_changed(execute_ctx *c, const tl_case *tc, char **why, tl_err *e)
{
    int which;
    long long elem;
    int changed = inguard_check(&c->guard, &which, &elem, e);
    if (changed <= 0) return changed;
    *why = inguard_reason(&c->guard, which, elem);
    for (int i = 0; i < c->guard.n; i++) { /* any of them may have changed */
        int rc = inguard_restore(&c->guard, i, e);
        if (rc < 0) return -1;
        if (rc > 0) {
            drop_problem(c, tc->op);
            break;
        }
    }
    return 1;
}

static int ensure_problem(execute_ctx *c, const tl_case *tc, int on_device, const char *ref, tl_result *r, tl_err *e)
{
    const reg_op *op = tc->op;
    char *key = plan_problem_key(tc);
    double t0 = tl_now_s();
    if (!c->prob_key || strcmp(key, c->prob_key)) {
        drop_problem(c, op);
        c->prob_key = key;
        int rc = op->problem_new(op, &c->prob, &tc->spec, &c->ctx, on_device, e);
        if (!rc) rc = inguard_take(&c->guard, op, c->prob, on_device, c->ctx.stream, e);
        r->phase_s[PH_INPUTS] += tl_now_s() - t0;
        if (rc) return -1;
    } else {
        free(key);
    }
    if (!ref || (c->prob_ref && !strcmp(c->prob_ref, ref))) return 0;
    t0 = tl_now_s();
    watchdog_phase(PH_REFERENCE);
    int decl_ref = tc->ref || op->decl;
    int rc = decl_ref && run_reference(c, tc, e) ? -1 : op->reference(c->prob, ref, e);
    char *why = NULL;
    if (!rc && decl_ref && inputs_changed(c, tc, &why, e)) { /* a truth made from changed inputs is none */
        if (why) tl_err_set(e, "the reference variant %s %s", tc->ref ? tc->ref->variant->name : ref, why);
        free(why);
        rc = -1;
    }
    r->phase_s[PH_REFERENCE] += tl_now_s() - t0;
    if (rc) return -1;
    c->prob_ref = ref;
    return 0;
}

/* A launch the compiled kernel cannot take is a skip, with the reason. 1: it can. */
static int launch_fits(const execute_ctx *c, const jit_kernel *k, const reg_launch *g, tl_result *r)
{
    unsigned threads = g->block[0] * g->block[1] * g->block[2];
    if ((int)threads > k->max_threads) {
        r->status = "skipped";
        r->reason = tl_xasprintf("the compiled kernel allows %d threads per block, the launch needs %u", k->max_threads,
                                 threads);
        return 0;
    }
    if (g->smem > c->env->smem_per_block_optin - k->smem_static) {
        r->status = "skipped";
        r->reason = tl_xasprintf("needs %zu bytes of shared memory per block, the device allows %zu",
                                 g->smem + k->smem_static, c->env->smem_per_block_optin);
        return 0;
    }
    return 1;
}

/* The case's workspace (reg_variant.workspace), NaN-filled: the buffer grows to the largest a case
 * has needed. */
static int workspace_ready(execute_ctx *c, uint64_t bytes, tl_err *e)
{
    if (bytes > c->ws_bytes) {
        if (c->ws_buf) CUDA_CHECK(cudaFree(c->ws_buf));
        c->ws_buf = NULL;
        c->ws_bytes = 0;
        CUDA_CHECK(cudaMalloc(&c->ws_buf, bytes));
        c->ws_bytes = bytes;
    }
    CUDA_CHECK(cudaMemsetAsync(c->ws_buf, 0xff, bytes, (cudaStream_t)c->ctx.stream));
    return 0;
fail:
    return -1;
}

/* Points the module's REG_WORKSPACE_SYMBOL at the workspace. */
static int workspace_bind(const jit_kernel *k, void *ws, const char *entry, tl_err *e)
{
    void *sym = NULL;
    size_t bytes = 0;
    if (cudaLibraryGetGlobal(&sym, &bytes, k->lib, REG_WORKSPACE_SYMBOL) != cudaSuccess || bytes != sizeof ws) {
        cudaGetLastError();
        tl_err_set(e, "the variant has a workspace, but the module of %s defines no `__device__ void *%s`", entry,
                   REG_WORKSPACE_SYMBOL);
        return -1;
    }
    CUDA_CHECK(cudaMemcpy(sym, &ws, sizeof ws, cudaMemcpyHostToDevice));
    return 0;
fail:
    return -1;
}

static int load_kernel(execute_ctx *c, const tl_case *tc, run_ctx *rc, jit_kernel *ks, const jit_cubin *cb, tl_result *r,
                       tl_err *e);

/* The case's kernels (one module) compiled or from the cache, then loaded into ks[0 .. REG_MAX_KERNELS): r's
 * compile and load phases. */
static int prepare_kernel(execute_ctx *c, const tl_case *tc, run_ctx *rc, jit_kernel *ks, jit_cubin *cb, tl_result *r,
                          tl_err *e)
{
    jit_request rq;
    const char *entries[REG_MAX_KERNELS];
    jit_request_of_case(c->x, tc, c->env->cc_major * 10 + c->env->cc_minor, &rq);
    if (tc->nlaunch < decl_entries(tc->run, entries)) {
        tl_err_set(e, "the launch of %s is not known (the plan had no device facts)", tc->variant->name);
        return -1;
    }
    double t0 = tl_now_s();
    int bad = jit_compile(&rq, c->cache_dir, &c->memo, cb, e);
    double t1 = tl_now_s();
    r->phase_s[PH_COMPILE] += t1 - t0;
    if (bad) return -1;
    bad = load_kernel(c, tc, rc, ks, cb, r, e);
    r->phase_s[PH_LOAD] += tl_now_s() - t1;
    return bad;
}

/* Loads cb's module, binds its TMA maps and workspace, and sets the launches' shared memory; a launch a
 * kernel cannot take makes r a skip. */
static int load_kernel(execute_ctx *c, const tl_case *tc, run_ctx *rc, jit_kernel *ks, const jit_cubin *cb, tl_result *r,
                       tl_err *e)
{
    const char *entries[REG_MAX_KERNELS];
    int nk = decl_entries(tc->run, entries);
    /* The registry's kernels reset what they keep in globals for their next launch, so a later case may
     * run a module an earlier one loaded; a declared kernel gets a fresh module each case. */
    if (tc->cv->own ? jit_load(cb, entries[0], &ks[0], e) : jit_load_kept(&c->mods, cb, entries[0], &ks[0], e))
        return -1;
    /* TMA tensor maps for kernels that ask for them: they name the problem's buffers (runner/jit/tma.h). */
    if (tma_bind(tc->op, cb, &ks[0], rc->prob, r->tensor_maps, sizeof r->tensor_maps, e)) return -1;
    for (int i = 1; i < nk; i++) /* from the first's module: its TMA maps and workspace are bound already */
        if (jit_load_also(&ks[0], entries[i], &ks[i], e)) return -1;
    rc->nk = nk;
    for (int i = 0; i < nk; i++) rc->k[i] = &ks[i], rc->geo[i] = tc->launch[i];
    r->workspace_bytes = (long long)tc->workspace;
    if (tc->workspace && (workspace_ready(c, tc->workspace, e) || workspace_bind(&ks[0], c->ws_buf, entries[0], e)))
        return -1;
    const jit_kernel *k = &ks[0];
    r->regs = k->regs;
    r->smem_bytes = (long)(k->smem_static + rc->geo[0].smem);
    r->smem_static_bytes = (long)k->smem_static;
    r->smem_dynamic_bytes = (long)rc->geo[0].smem;
    r->local_bytes = (long)k->local_bytes;
    memcpy(r->cubin_sha256, cb->cubin_sha256, sizeof r->cubin_sha256);
    r->nvrtc_options = tl_xstrdup(cb->options);
    memcpy(r->cutlass_version, cb->cutlass_version, sizeof r->cutlass_version);
    memcpy(r->grid, rc->geo[0].grid, sizeof r->grid);
    memcpy(r->block, rc->geo[0].block, sizeof r->block);
    /* Registers and shared memory are the first kernel's; spills count if any kernel spills. */
    for (int i = 1; i < nk; i++)
        if ((long)ks[i].local_bytes > r->local_bytes) r->local_bytes = (long)ks[i].local_bytes;
    for (int i = 0; i < nk; i++) {
        if (!launch_fits(c, &ks[i], &rc->geo[i], r)) return 0;
        if (rc->geo[i].smem > 48 * 1024)
            CUDA_CHECK(cudaFuncSetAttribute((const void *)ks[i].kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)rc->geo[i].smem));
    }
    return 0;
fail:
    return -1;
}

/* Done with a case's kernels: a module the run keeps stays loaded for the next cases, unless the case
 * failed with it (failed): then it is unloaded, and a later case loads it afresh. */
static void release_kernels(execute_ctx *c, jit_kernel *ks, int failed)
{
    if (failed && ks[0].lib && !ks[0].owns_lib) jit_modules_drop(&c->mods, ks[0].lib);
    for (int i = REG_MAX_KERNELS - 1; i >= 0; i--) jit_unload(&ks[i]); /* the first, whose module it is, last */
}

/* Compares the output of the last run; keeps the largest errors seen. 1: it failed. */
static int compare(run_ctx *rc, tl_err *e)
{
    const tl_case *tc = rc->tc;
    tl_result *r = rc->r;
    reg_verify v;
    if (tc->run->kind != REG_HOST) {
        CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)rc->stream));
        CUDA_CHECK(cudaGetLastError());
    }
    if (tc->op->check_output(rc->prob, &r->tol, &v, e)) return -1;
    if (isnan(r->max_abs_err) || v.max_abs_err > r->max_abs_err) r->max_abs_err = v.max_abs_err;
    if (isnan(r->max_rel_err) || v.max_rel_err > r->max_rel_err) r->max_rel_err = v.max_rel_err;
    if (v.ok) return 0;
    r->status = "verify_failed";
    free(r->reason);
    r->reason = tl_xasprintf("%lld elements of %s out of tolerance (max err %.3g of the error scale, rtol %.3g): %s",
                             (long long)v.bad, tc->sizes_text, v.max_rel_err, r->tol.rtol, v.detail);
    return 1;
fail:
    return -1;
}

static int check_after_run(void *ctx, tl_err *e)
{
    return compare(ctx, e);
}

/* The verified run: output poisoned, one launch, every element compared. */
static int verified_run(run_ctx *rc, tl_err *e)
{
    if (rc->tc->op->reset_output(rc->prob, 1, e) || run_launch(rc, e)) return -1;
    return compare(rc, e) < 0 ? -1 : 0;
}

/* ---- the counters pass ------------------------------------------------------------------ */

/* Before each replay, outside the profiled range: the L2 as a timed run finds it. Cold (l2_flush), the
 * outputs reset and the L2 flushed; hot, a run before the reset, so that what the profiler's set-up
 * left in the L2 is gone as a timed run's predecessor would have displaced it. */
static int prepare_counters(void *ctx, tl_err *e)
{
    run_ctx *rc = ctx;
    int flush = rc->l2_buf && rc->tc->protocol.l2_flush;
    if (!flush && (run_reset(rc, e) || run_launch(rc, e))) return -1;
    if (run_reset(rc, e)) return -1;
    if (flush) CUDA_CHECK(cudaMemsetAsync(rc->l2_buf, 0x5a, rc->l2_bytes, (cudaStream_t)rc->stream));
    CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)rc->stream));
    return 0;
fail:
    return -1;
}

/* One run, finished before the range closes. */
static int run_counters(void *ctx, tl_err *e)
{
    run_ctx *rc = ctx;
    if (run_launch(rc, e)) return -1;
    CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)rc->stream));
    return 0;
fail:
    return -1;
}

/* After the timed repetitions, so that no timed run is ever profiled. */
static int collect_counters(execute_ctx *c, run_ctx *rc, tl_result *r, tl_err *e)
{
    const tl_case *tc = rc->tc;
    if (tc->run->kind == REG_HOST) {
        counters_result_unavailable(&r->counters, "unavailable", "host target: hardware counters are the GPU's");
        return 0;
    }
    if (!c->ctr) {
        counters_result_unavailable(&r->counters, "unavailable", "no counter session");
        return 0;
    }
    rc->l2_buf = c->l2_buf;
    rc->l2_bytes = c->l2_bytes;
    int kernels = tc->run->kind == REG_NVRTC ? rc->nk : 0; /* a library's: counted */
    return counters_collect(c->ctr, &tc->cv->counters, kernels, prepare_counters, run_counters, rc, &r->counters, e);
}

static void finish_stats(tl_result *r)
{
    if (r->samples.n == 0) return;
    measure_stats_compute(r->samples.time_ms, r->samples.n, &r->st);
    double s = r->st.median_ms * 1e-3;
    r->gflops = r->flop / s * 1e-9;
    r->gbs = r->bytes / s * 1e-9;
}

/* A case with trials: each candidate (tc->trial) prepared and timed on the problem as measure_trial says,
 * in order; *pick = the fastest by median (ties: the earlier, the table's order). r->trials lists them,
 * "* " before the one that runs the case. A candidate the device cannot launch (launch_fits) is listed
 * and left out; -1 with e on an error. */
static int run_trials(execute_ctx *c, const tl_case *tc, tl_result *r, int *pick, tl_err *e)
{
    double med[CFG_MAX_TRIALS];
    int runs[CFG_MAX_TRIALS] = {0}, rc = 0;
    char *why[CFG_MAX_TRIALS] = {0};
    measure_protocol p = measure_trial;
    p.l2_flush = tc->protocol.l2_flush;
    *pick = -1;
    for (int i = 0; i < tc->ntrials && !rc; i++) {
        const tl_case *t = &tc->trial[i];
        jit_kernel ks[REG_MAX_KERNELS] = {{0}};
        jit_cubin cb = {0};
        tl_result tr = {.status = "ok"};
        run_ctx rt = {.tc = t, .prob = c->prob, .stream = c->ctx.stream, .r = &tr};
        measure_samples sm = {0};
        rc = prepare_kernel(c, t, &rt, ks, &cb, &tr, e);
        r->trial_compiled += cb.cubin_len > 0 && cb.cached == 0; /* NVRTC compiled it here, not ahead */
        if (!rc && !strcmp(tr.status, "ok")) {
            measure_target mt = {.on_device = 1, .stream = c->ctx.stream, .reset = run_reset, .launch = run_launch,
                                 .ctx = &rt, .l2_buf = c->l2_buf, .l2_bytes = c->l2_bytes};
            rc = measure_run(&p, &mt, &sm, e);
        }
        if (rc) tl_err_wrap(e, "trial of %s", t->dispatch);
        if (!rc && sm.n > 0) {
            measure_stats st;
            measure_stats_compute(sm.time_ms, sm.n, &st);
            med[i] = st.median_ms, runs[i] = sm.n;
            if (*pick < 0 || med[i] < med[*pick]) *pick = i;
        } else if (!rc) {
            why[i] = tl_xstrdup(tr.reason ? tr.reason : tr.status);
        }
        measure_samples_free(&sm);
        free(tr.reason), free(tr.nvrtc_options);
        release_kernels(c, ks, rc != 0);
        jit_cubin_free(&cb);
    }
    tl_buf text = {0};
    for (int i = 0; i < tc->ntrials && !rc; i++) {
        if (runs[i]) tl_buf_printf(&text, "%s%s: %.4f ms (%d runs)\n", i == *pick ? "* " : "  ", tc->trial[i].dispatch,
                                   med[i], runs[i]);
        else tl_buf_printf(&text, "  %s: not run: %s\n", tc->trial[i].dispatch, why[i] ? why[i] : "?");
    }
    for (int i = 0; i < tc->ntrials; i++) free(why[i]);
    if (!rc && *pick < 0) {
        tl_err_set(e, "none of the %d candidates its table ranks first can run here: %s", tc->ntrials, text.s);
        rc = -1;
    }
    if (rc) {
        free(text.s);
        return -1;
    }
    r->trials = text.s;
    return 0;
}

void execute_result_init(const execute_ctx *c, const tl_case *tc, tl_result *r)
{
    const tl_experiment *x = c->x;
    int on_device = tc->run->kind != REG_HOST;
    memset(r, 0, sizeof *r);
    r->c = tc;
    r->status = "ok";
    r->compile_cached = -1;
    r->regs = -1, r->smem_bytes = -1, r->local_bytes = -1, r->smem_static_bytes = -1, r->smem_dynamic_bytes = -1;
    r->max_abs_err = r->max_rel_err = NAN;
    r->gflops = r->gbs = NAN;
    r->st.median_ms = r->st.mean_ms = r->st.stdev_ms = r->st.min_ms = r->st.max_ms = NAN;
    r->st.p10_ms = r->st.p90_ms = NAN;
    r->flop = tc->op->flop(tc->op, &tc->spec);
    r->bytes = tc->op->bytes(tc->op, &tc->spec);
    r->tol = config_tolerance(x, &tc->spec);
    r->protocol = measure_protocol_text(&tc->protocol);
    r->verify = cfg_verify_names[x->verify];
    r->data = reg_dist_names[tc->spec.dist];
    r->reference = x->verify == CFG_VERIFY_OFF ? "none" : on_device ? x->reference : tc->op->host_reference;
}

/* A case whose runs changed an input fails verification, with which input and where (when, after `when`);
 * the inputs are put back for the cases after it. 0 (whether or not one changed), or -1 with e. */
static int guard_case(execute_ctx *c, const tl_case *tc, tl_result *r, const char *when, tl_err *e)
{
    char *why = NULL;
    int changed = inputs_changed(c, tc, &why, e);
    if (changed <= 0) return changed;
    char *was = r->reason;
    if (!strcmp(r->status, "ok")) r->reason = tl_xasprintf("%s%s", why, when);
    else r->reason = tl_xasprintf("%s; it also %s%s", was ? was : r->status, why, when);
    if (!strcmp(r->status, "ok")) r->status = "verify_failed";
    free(was), free(why);
    return 0;
}

static int sync_stream(execute_ctx *c, tl_err *e)
{
    CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)c->ctx.stream));
    CUDA_CHECK(cudaGetLastError());
    return 0;
fail:
    return -1;
}

int execute_case(execute_ctx *c, const tl_case *tc, tl_result *r, tl_err *e)
{
    const tl_experiment *x = c->x;
    int on_device = tc->run->kind != REG_HOST;
    jit_kernel ks[REG_MAX_KERNELS] = {{0}};
    jit_cubin cb = {0};
    run_ctx rc = {.tc = tc, .stream = c->ctx.stream, .r = r, .verify_every = x->verify == CFG_VERIFY_EVERY};
    int ran = 0; /* the case's kernels ran on the problem */
    execute_result_init(c, tc, r);
    if (tc->skipped) {
        r->status = "skipped";
        r->reason = tl_xstrdup(tc->reason);
        return 0;
    }
    watchdog_phase(PH_INPUTS);
    if (ensure_problem(c, tc, on_device, x->verify == CFG_VERIFY_OFF ? NULL : r->reference, r, e)) goto error;
    rc.prob = c->prob;
    double t0 = tl_now_s();
    watchdog_phase(PH_TRIALS);
    if (tc->ntrials > 1) { /* the fastest of the table's first candidates runs the case, as that case */
        int pick, bad = run_trials(c, tc, r, &pick, e);
        r->phase_s[PH_TRIALS] = tl_now_s() - t0;
        if (bad) goto error;
        tc = rc.tc = r->c = &tc->trial[pick];
        t0 = tl_now_s();
    }
    watchdog_phase(PH_COMPILE);
    if (tc->run->kind == REG_NVRTC) {
        int bad = prepare_kernel(c, tc, &rc, ks, &cb, r, e);
        r->compile_cached = cb.cached;
        if (bad) goto error;
    }
    if (strcmp(r->status, "ok")) goto done;
    t0 = tl_now_s();
    watchdog_phase(PH_VERIFY);
    ran = 1;
    if (x->verify != CFG_VERIFY_OFF) {
        int bad = verified_run(&rc, e);
        if (!bad) bad = guard_case(c, tc, r, "", e);
        r->phase_s[PH_VERIFY] = tl_now_s() - t0;
        if (bad) goto error;
    } else if (c->verify_only) {
        if (run_reset(&rc, e) || run_launch(&rc, e) || (on_device && sync_stream(c, e))) goto error;
    }
    if (strcmp(r->status, "ok") || c->verify_only) goto done;
    measure_target t = {.on_device = on_device, .stream = c->ctx.stream, .reset = run_reset, .launch = run_launch,
                        .check = rc.verify_every ? check_after_run : NULL, .ctx = &rc, .l2_buf = c->l2_buf,
                        .l2_bytes = c->l2_bytes, .gpu = on_device ? c->gpu : NULL};
    if (sim_timing(&rc)) t.fake_ms = sim_ms;
    watchdog_phase(PH_TIMED);
    int bad = measure_run(&tc->protocol, &t, &r->samples, e);
    const measure_samples *sm = &r->samples;
    r->phase_s[PH_WARMUP] = sm->warmup_s;
    r->phase_s[PH_TIMED] = sm->timed_s;
    r->phase_s[PH_TELEMETRY] = sm->telemetry_s;
    r->phase_s[PH_LOOP] = fmax(0.0, sm->loop_s - sm->timed_s - sm->telemetry_s);
    if (bad) goto error;
    finish_stats(r);
    if (tc->protocol.energy_s > 0) {
        t0 = tl_now_s();
        watchdog_phase(PH_ENERGY);
        if (!on_device && getenv(FAKE_ENERGY_ENV)) t.energy_mj = fake_energy_mj;
        bad = measure_energy_run(&tc->protocol, &t, r->st.median_ms, &r->energy, e);
        r->phase_s[PH_ENERGY] = tl_now_s() - t0;
        if (bad) goto error;
    }
    t0 = tl_now_s();
    watchdog_phase(PH_COUNTERS);
    if (tc->cv->counters.n) {
        bad = collect_counters(c, &rc, r, e);
        r->phase_s[PH_COUNTERS] = tl_now_s() - t0;
        if (bad) goto error;
    }
    goto done;
error:
    /* The case failed; the run goes on. A broken CUDA context shows up in the next cases too. */
    r->status = "error";
    free(r->reason);
    r->reason = tl_xstrdup(e->msg);
    measure_samples_free(&r->samples);
    if (on_device) cudaGetLastError();
    /* Inputs may be half-made or changed: start afresh for the next case. */
    drop_problem(c, tc->op);
    ran = 0;
done:
    /* Whatever ran after the verified run (timed runs, counters, a failing run) leaves the inputs as made; the
     * check counts as verification. */
    if (ran && c->prob) {
        t0 = tl_now_s();
        if (guard_case(c, tc, r, x->verify == CFG_VERIFY_OFF ? " in its runs" : " after its verified run", e)) {
            free(r->reason);
            r->status = "error";
            r->reason = tl_xstrdup(e->msg);
            drop_problem(c, tc->op);
        }
        r->phase_s[PH_VERIFY] += tl_now_s() - t0;
    }
    if (tc->cv->counters.n && !r->counters.status) {
        char *why = tl_xasprintf("the case is %s", r->status);
        counters_result_unavailable(&r->counters, "not_run", why);
        free(why);
    }
    if (ks[0].lib) {
        t0 = tl_now_s();
        release_kernels(c, ks, !strcmp(r->status, "error") || !strcmp(r->status, "verify_failed"));
        r->phase_s[PH_LOAD] += tl_now_s() - t0;
    }
    jit_cubin_free(&cb);
    return 0;
}

int execute_context_lost(execute_ctx *c, tl_result *r)
{
    if (!c->ctx.stream) return 0; /* no GPU in use */
    cudaError_t first = cudaDeviceSynchronize();
    cudaGetLastError();
    cudaError_t again = cudaDeviceSynchronize();
    if (first == cudaSuccess || again == cudaSuccess) return 0;
    char *was = r->reason;
    r->reason = tl_xasprintf("%s [the CUDA context is lost: %s]", was ? was : "error", cudaGetErrorString(again));
    free(was);
    return 1;
}

