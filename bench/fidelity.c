/* fidelity: does the runner's timing agree with the simplest possible timing of the same call?
 *
 * In one process, on one problem (cuBLAS SGEMM, m = n = k = 4096 unless given), it takes
 *   a) the runner's measure_run median (hot L2, so that both sides see the same cache state),
 *   b) a bare loop: one event pair around each call, median,
 *   c) a bare loop: one event pair around N back-to-back calls, mean,
 * and prints the ratios. The bar: a) within 2% of b) and of c). Prints figures; not a timed test.
 *
 * usage: fidelity [SIZE] [REPS] */
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/exec/env.h"
#include "runner/measure/measure.h"
#include "runner/ops/registry.h"
#include "runner/ops/registry_lookup.h"
#include "runner/util/cuda_check.h"

typedef struct {
    const reg_op *op;
    const reg_variant *v;
    reg_problem *p;
} bench;

static int noop(void *ctx, tl_err *e)
{
    (void)ctx, (void)e;
    return 0;
}

static int call(void *ctx, tl_err *e)
{
    bench *b = ctx;
    return b->v->run(b->v, b->p, NULL, e);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int bare_loops(bench *b, cudaStream_t st, int reps, double *per_pair_median, double *back_to_back_mean,
                      tl_err *e)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *t = calloc((size_t)reps, sizeof *t);
    float ms;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    for (int i = 0; i < reps; i++) {
        CUDA_CHECK(cudaEventRecord(e0, st));
        if (call(b, e)) goto fail;
        CUDA_CHECK(cudaEventRecord(e1, st));
        CUDA_CHECK(cudaEventSynchronize(e1));
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        t[i] = ms;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    *per_pair_median = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    CUDA_CHECK(cudaEventRecord(e0, st));
    for (int i = 0; i < reps; i++)
        if (call(b, e)) goto fail;
    CUDA_CHECK(cudaEventRecord(e1, st));
    CUDA_CHECK(cudaEventSynchronize(e1));
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    *back_to_back_mean = ms / reps;
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    free(t);
    return 0;
fail:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    free(t);
    return -1;
}

int main(int argc, char **argv)
{
    int size = argc > 1 ? atoi(argv[1]) : 4096, reps = argc > 2 ? atoi(argv[2]) : 100;
    env_info env = {0};
    tl_err err, *e = &err;
    cublasHandle_t h = NULL;
    cudaStream_t st = NULL;
    bench b = {.op = reg_find_op("sgemm")};
    b.v = reg_find_variant(b.op, "cublas");
    if (size < 1 || reps < 3) {
        fprintf(stderr, "usage: fidelity [SIZE >= 1] [REPS >= 3]\n");
        return 2;
    }
    if (env_gpu(&env, e)) {
        fprintf(stderr, "fidelity: %s\n", e->msg);
        return 2;
    }
    CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamDefault));
    CUBLAS_CHECK(cublasCreate(&h));
    CUBLAS_CHECK(cublasSetStream(h, st));
    reg_ctx ctx = {.cublas = h, .stream = st};
    reg_spec s = {.dims = {size, size, size}, .args = {1.0, 0.0}, .seed = 1};
    if (b.op->problem_new(b.op, &b.p, &s, &ctx, 1, e)) goto fail;

    measure_protocol p = measure_defaults;
    p.warmup = 10, p.min_reps = reps, p.max_reps = reps, p.max_time_s = 1e9, p.l2_flush = 0;
    measure_target t = {.on_device = 1, .stream = st, .reset = noop, .launch = call, .ctx = &b};
    measure_samples ms;
    measure_stats stats;
    if (measure_run(&p, &t, &ms, e)) goto fail;
    measure_stats_compute(ms.time_ms, ms.n, &stats);
    measure_samples_free(&ms);
    double pair, b2b;
    if (bare_loops(&b, st, reps, &pair, &b2b, e)) goto fail;

    double flop = 2.0 * size * (double)size * size;
    printf("fidelity on %s, cuBLAS SGEMM %d^3, %d repetitions each, hot L2\n", env.gpu_name, size, reps);
    printf("  runner measure_run median   %8.4f ms  %8.1f GFLOP/s\n", stats.median_ms, flop / stats.median_ms * 1e-6);
    printf("  bare event pair per call    %8.4f ms  (runner/bare %.4f)\n", pair, stats.median_ms / pair);
    printf("  bare back-to-back mean      %8.4f ms  (runner/bare %.4f)\n", b2b, stats.median_ms / b2b);
    int ok = fabs(stats.median_ms / pair - 1) <= 0.02 && fabs(stats.median_ms / b2b - 1) <= 0.02;
    printf("FIDELITY %s (bar: within 2%% of both)\n", ok ? "PASSED" : "FAILED");
    b.op->problem_free(b.p);
    cublasDestroy(h);
    cudaStreamDestroy(st);
    return ok ? 0 : 1;
fail:
    fprintf(stderr, "fidelity: %s\n", e->msg);
    return 1;
}
