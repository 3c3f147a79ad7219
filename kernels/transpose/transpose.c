/* transpose: y (n x m) = x^T for x m x n, both row-major, FP32: naive, tiled through shared memory,
 * tiled with padding; cuBLAS geam as the bar. Verified exactly against a host transpose. */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/ops/data.h"
#include "runner/ops/registry.h"
#include "runner/ops/verify.h"
#include "runner/util/cuda_check.h"

enum { M_, N_ };
#define MAX_ELEMS 2147483647LL /* the kernels index rows and columns with int */

struct reg_problem {
    reg_spec s;
    const reg_ctx *ctx;
    int on_device;
    int m, n;
    size_t count;
    float *hx, *hy, *href; /* source, result (host variants or copied back), x^T */
    float *dx, *dy;
};

static double transpose_flop(const reg_op *op, const reg_spec *s)
{
    (void)op;
    (void)s;
    return 0.0;
}

static double transpose_bytes(const reg_op *op, const reg_spec *s)
{
    (void)op;
    return 8.0 * (double)s->dims[M_] * (double)s->dims[N_];
}

static uint64_t transpose_mem_bytes(const reg_op *op, const reg_spec *s, int on_device)
{
    (void)op;
    (void)on_device;
    uint64_t mn, b;
    if (!tl_mul_u64((uint64_t)s->dims[M_], (uint64_t)s->dims[N_], &mn) || !tl_mul_u64(mn, 12, &b)) return 0;
    return b;
}

/* The params, written once (runner/ops/registry.h): their rows and their indices by name. */
#define TRANSPOSE_TILE(X, P)                                                                                \
    X(P, TILE, 32, "tile side: a block moves TILE x TILE elements")                                      \
    X(P, ROWS, 8, "thread rows per block: TILE x ROWS threads, TILE / ROWS elements each")
enum { TRANSPOSE_TILE(REG_PARAM_INDEX, TT) TT_N };
static const reg_param tile_params[] = {TRANSPOSE_TILE(REG_PARAM_ROW, TT)};

/* The rules (runner/ops/registry.h): TILE x ROWS threads, each moving TILE / ROWS elements of a column; the
 * shared tile, padded by one float per row, in the 48 KiB a block gets without opting in. What depends on
 * m and n stays in the check below. */
static const reg_rule tile_rules[] = {
    {"TILE >= 1 && ROWS >= 1 && TILE % ROWS == 0 && TILE * ROWS <= 1024",
     "ROWS = {ROWS} must divide TILE = {TILE}, and TILE * ROWS <= 1024 threads"},
    {"TILE * (TILE + 1) * 4 <= 48 * 1024", "a {TILE} x {TILE} tile needs more than 48 KiB"},
    REG_RULES_END,
};

static int tile_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    if (s->dims[M_] * s->dims[N_] > MAX_ELEMS)
        return snprintf(why, n, "more than 2^31 - 1 elements (the kernels index with int)"), 0;
    if ((s->dims[M_] + p[TT_TILE] - 1) / p[TT_TILE] > 65535)
        return snprintf(why, n, "m / TILE needs more than 65535 blocks in y"), 0;
    return 1;
}

/* Row-major x (m x n) is column-major x^T (n x m, ld n); row-major y (n x m) is column-major y^T
 * (m x n, ld m) = (x^T)^T: geam's C = op(A) with op = T. B is C itself, with beta = 0 never read. */
static int geam_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params;
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgeam((cublasHandle_t)p->ctx->cublas, CUBLAS_OP_T, CUBLAS_OP_N, p->m, p->n, &one, p->dx, p->n,
                             &zero, p->dy, p->m, p->dy, p->m));
    return 0;
fail:
    return -1;
}

static void host_transpose(const float *x, float *y, int m, int n)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) y[(size_t)j * m + i] = x[(size_t)i * n + j];
}

static int host_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params, (void)e;
    host_transpose(p->hx, p->hy, p->m, p->n);
    return 0;
}

/* Deliberately wrong: copies instead of transposing; verification must catch it. */
static int host_copy_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params, (void)e;
    memcpy(p->hy, p->hx, p->count * sizeof(float));
    return 0;
}

static void transpose_problem_free(reg_problem *p)
{
    if (!p) return;
    free(p->hx), free(p->hy), free(p->href);
    if (p->dx) cudaFree(p->dx);
    if (p->dy) cudaFree(p->dy);
    free(p);
}

static int transpose_problem_new(const reg_op *op, reg_problem **out, const reg_spec *s, const reg_ctx *ctx,
                                 int on_device, tl_err *e)
{
    (void)op;
    reg_problem *p = tl_xcalloc(1, sizeof *p);
    p->s = *s;
    p->ctx = ctx;
    p->on_device = on_device;
    p->m = (int)s->dims[M_], p->n = (int)s->dims[N_];
    p->count = (size_t)p->m * (size_t)p->n;
    p->hx = tl_xmalloc(p->count * sizeof(float));
    p->hy = tl_xmalloc(p->count * sizeof(float));
    data_fill_f32(s->dist, p->hx, p->count, s->seed, 1);
    if (on_device) {
        CUDA_CHECK(cudaMalloc((void **)&p->dx, p->count * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&p->dy, p->count * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(p->dx, p->hx, p->count * sizeof(float), cudaMemcpyHostToDevice));
    }
    *out = p;
    return 0;
fail:
    transpose_problem_free(p);
    return -1;
}

static int transpose_reference(reg_problem *p, const char *name, tl_err *e)
{
    (void)name, (void)e;
    if (!p->href) p->href = tl_xmalloc(p->count * sizeof(float));
    host_transpose(p->hx, p->href, p->m, p->n);
    return 0;
}

/* Every run writes all of y; poisoned, y is NaN, so an element no thread wrote fails. */
static int transpose_reset_output(reg_problem *p, int poison, tl_err *e)
{
    if (!poison) return 0;
    if (!p->on_device) {
        memset(p->hy, 0xff, p->count * sizeof(float));
        return 0;
    }
    CUDA_CHECK(cudaMemsetAsync(p->dy, 0xff, p->count * sizeof(float), (cudaStream_t)p->ctx->stream));
    return 0;
fail:
    return -1;
}

static int transpose_inputs(reg_problem *p, reg_input *in, int max)
{
    if (max < 1) return -1;
    in[0] = (reg_input){"x", p->on_device ? p->dx : p->hx, p->count * sizeof(float), (int)sizeof(float)};
    return 1;
}

static int transpose_kernel_args(reg_problem *p, void **argv, int max)
{
    if (max < 4) return -1;
    void *args[] = {&p->dx, &p->dy, &p->m, &p->n};
    memcpy(argv, args, sizeof args);
    return 4;
}

static int transpose_check_output(reg_problem *p, const reg_tolerance *t, reg_verify *v, tl_err *e)
{
    if (p->on_device) CUDA_CHECK(cudaMemcpy(p->hy, p->dy, p->count * sizeof(float), cudaMemcpyDeviceToHost));
    verify_f32(p->hy, p->href, NULL, p->count, t, v);
    return 0;
fail:
    return -1;
}

/* A block a TILE x TILE tile, TILE x ROWS threads. */
#define TILE_CHECK                                                                                         \
    .constraints = "m n at most 2^31 - 1 elements; m / TILE at most 65535 blocks", .check = tile_check,  \
    .launch = {.grid = {"ceil_div(n, TILE)", "ceil_div(m, TILE)"}, .block = {"TILE", "ROWS"}}

static const reg_variant transpose_variants[] = {
    {.name = "naive", .summary = "one thread per element: coalesced reads, writes m floats apart",
     .kind = REG_NVRTC, .source = "transpose/01_naive.cu", .entry = "transpose_naive", .params = tile_params,
     .nparams = TT_N, .rules = tile_rules, TILE_CHECK},
    {.name = "tiled", .summary = "TILE x TILE tiles through shared memory: both sides coalesced, bank conflicts",
     .kind = REG_NVRTC, .source = "transpose/02_tiled.cu", .entry = "transpose_tiled", .params = tile_params,
     .nparams = TT_N, .rules = tile_rules, TILE_CHECK},
    {.name = "tiled_padded", .summary = "tiled with one float of padding per row: no bank conflicts",
     .kind = REG_NVRTC, .source = "transpose/03_tiled_padded.cu", .entry = "transpose_tiled_padded",
     .params = tile_params, .nparams = TT_N, .rules = tile_rules, TILE_CHECK},
    {.name = "cublas_geam", .summary = "cublasSgeam with op(A) = A^T: the bar", .kind = REG_LIBRARY, .run = geam_run},
    {.name = "host_transpose", .summary = "C double loop (host target)", .kind = REG_HOST, .run = host_run},
    {.name = "host_wrong_for_tests", .summary = "copies instead of transposing: verification must fail",
     .kind = REG_HOST, .run = host_copy_run, .test_only = 1},
};

static const char *const transpose_axes[] = {"m", "n"};
static const char *const transpose_dtypes[] = {"f32"};
static const char *const transpose_references[] = {"host"};

/* The order transpose_kernel_args passes them in. */
static const reg_karg transpose_kargs[] = {
    {"const float *", "x", 'p', "m x n, row-major x[i*n + j]"},
    {"float *", "y", 'p', "n x m, row-major: y[j*m + i] = x[i*n + j]"},
    {"int", "m", 'i', "rows of x"},
    {"int", "n", 'i', "columns of x"},
};
#define TRANSPOSE_KERNEL_DOC "the runner defines each param (#define NAME value) before the source"

const reg_op transpose_op = {
    .name = "transpose",
    .summary = "y (n x m) = x^T for x m x n, row-major, FP32",
    .axes = transpose_axes, .naxes = 2,
    .dtypes = transpose_dtypes, .ndtypes = 1,
    .references = transpose_references, .nreferences = 1,
    .host_reference = "host",
    .tol = {.rtol = 0.0, .atol = 0.0},
    .tol_exact = {.rtol = 0.0, .atol = 0.0},
    .tol_doc = "exact: y[j][i] equals x[i][j]",
    .variants = transpose_variants, .nvariants = sizeof transpose_variants / sizeof *transpose_variants,
    .kargs = transpose_kargs, .nkargs = sizeof transpose_kargs / sizeof *transpose_kargs,
    .kernel_doc = TRANSPOSE_KERNEL_DOC,
    .rate = "GB/s",
    .flop = transpose_flop, .bytes = transpose_bytes, .mem_bytes = transpose_mem_bytes,
    .problem_new = transpose_problem_new, .problem_free = transpose_problem_free,
    .reference = transpose_reference, .reset_output = transpose_reset_output,
    .kernel_args = transpose_kernel_args, .inputs = transpose_inputs, .check_output = transpose_check_output,
};
