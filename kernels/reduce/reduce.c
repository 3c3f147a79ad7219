/* reduce: the sum of n elements (float, or half summed in float), from atomics per element to
 * packed grid-stride loads, against CUB. Verified against a double-precision host sum. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/reduce/cub_sum.h"
#include "runner/ops/data.h"
#include "runner/ops/registry.h"
#include "runner/ops/verify.h"
#include "runner/util/cuda_check.h"

enum { N_ };         /* the one axis */
enum { F32, F16 };   /* dtypes, in the order of reduce_dtypes */
#define MAX_GRID 65535L
#define FINISH_THREADS 1024 /* reduce_common.cuh */

struct reg_problem {
    reg_spec s;
    const reg_ctx *ctx;
    int on_device;
    long long n;
    size_t elem;      /* bytes per element */
    float *hx;        /* the inputs as floats (for f16: the half values, exactly) */
    double ref, mag;  /* sum and sum of |x|, in double */
    float hout;       /* host variants' result */
    void *dx;         /* device inputs, in the dtype */
    float *dpartial;  /* per-block partial sums of the two-pass variants */
    size_t nparts;    /* its capacity */
    float *dout;      /* the result */
    void *dtemp;      /* CUB's scratch */
    size_t temp_bytes;
};

/* ---- model ------------------------------------------------------------------------------ */

static size_t elem_bytes(const reg_spec *s)
{
    return s->dtype == F16 ? 2 : 4;
}

static double reduce_flop(const reg_op *op, const reg_spec *s)
{
    (void)op;
    return (double)s->dims[N_]; /* one addition per element */
}

static double reduce_bytes(const reg_op *op, const reg_spec *s)
{
    (void)op;
    return (double)s->dims[N_] * (double)elem_bytes(s) + 4.0; /* every element read once, one float out */
}

/* Partial sums a variant may write: a block covers at least 32 elements, and at most MAX_GRID blocks
 * run a grid-stride loop. */
static size_t parts_capacity(long long n)
{
    size_t p = (size_t)((n + 31) / 32);
    return p > (size_t)MAX_GRID ? p : (size_t)MAX_GRID;
}

static uint64_t reduce_mem_bytes(const reg_op *op, const reg_spec *s, int on_device)
{
    (void)op;
    uint64_t n = (uint64_t)s->dims[N_], x, total;
    if (!tl_mul_u64(n, on_device ? elem_bytes(s) : 4, &x)) return 0;
    if (!on_device) return x;
    if (!tl_add_u64(x, (uint64_t)parts_capacity(s->dims[N_]) * 4, &total)) return 0;
    return total;
}

/* ---- params, constraints, geometry ------------------------------------------------------ */

/* Each variant's params, written once (runner/ops/registry.h): their rows and their indices by name. */
#define REDUCE_BLOCK(X, P) X(P, BLOCK, 256, "threads per block")
#define REDUCE_WARP(X, P) REDUCE_BLOCK(X, P) X(P, ITEMS, 4, "elements each thread adds before the block reduction")
#define REDUCE_VEC(X, P)                                                                                    \
    REDUCE_BLOCK(X, P) X(P, GRID, 1056, "blocks of the grid-stride loop (1056: 8 per SM of an H100)")     \
    X(P, UNROLL, 4, "16-byte loads in flight per thread")
enum { REDUCE_BLOCK(REG_PARAM_INDEX, BL) BL_N };
enum { REDUCE_WARP(REG_PARAM_INDEX, WP) WP_N };
enum { REDUCE_VEC(REG_PARAM_INDEX, VC) VC_N };
static const reg_param block_params[] = {REDUCE_BLOCK(REG_PARAM_ROW, BL)};
static const reg_param warp_params[] = {REDUCE_WARP(REG_PARAM_ROW, WP)};
static const reg_param vec_params[] = {REDUCE_VEC(REG_PARAM_ROW, VC)};

static int grid_fits(long long blocks, char *why, size_t n)
{
    if (blocks > 2147483647LL) return snprintf(why, n, "needs %lld blocks, more than 2^31 - 1", blocks), 0;
    return 1;
}

/* Each variant's rules (runner/ops/registry.h). The shared-memory trees halve BLOCK elements, so BLOCK is a
 * power of two, from 64 for those whose last steps read past the block's first half. GRID's bound is
 * MAX_GRID. What depends on n stays in the checks below. */
#define WARPS_RULE {"BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0", "BLOCK = {BLOCK} is not a multiple of 32 in 32 .. 1024"}
#define POW2_64 "BLOCK == 64 || BLOCK == 128 || BLOCK == 256 || BLOCK == 512 || BLOCK == 1024"
static const reg_rule atomic_rules[] = {WARPS_RULE, REG_RULES_END};
static const reg_rule tree1_rules[] = {{"BLOCK == 32 || " POW2_64, "BLOCK = {BLOCK} is not a power of two in 32 .. 1024"},
                                       REG_RULES_END};
static const reg_rule tree2_rules[] = {{POW2_64, "BLOCK = {BLOCK} is not a power of two in 64 .. 1024"}, REG_RULES_END};
static const reg_rule warp_rules[] = {WARPS_RULE, {"ITEMS >= 1 && ITEMS <= 64", "ITEMS = {ITEMS} is not 1 .. 64"},
                                      REG_RULES_END};
static const reg_rule vec_rules[] = {WARPS_RULE, {"GRID >= 1 && GRID <= 65535", "GRID = {GRID} is not 1 .. 65535"},
                                     {"UNROLL >= 1 && UNROLL <= 16", "UNROLL = {UNROLL} is not 1 .. 16"}, REG_RULES_END};

/* Blocks of `per_block` elements each cover n in at most 2^31 - 1 of them. */
static int blocks_fit(const reg_spec *s, long long per_block, char *why, size_t n)
{
    return grid_fits((s->dims[N_] + per_block - 1) / per_block, why, n);
}

static int block_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    return blocks_fit(s, p[BL_BLOCK], why, n);
}

static int pair_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    return blocks_fit(s, 2LL * p[BL_BLOCK], why, n);
}

static int items_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    return blocks_fit(s, (long long)p[WP_BLOCK] * p[WP_ITEMS], why, n);
}

/* As REDUCE_PARTS in 08_vec4.cu: no more blocks than the 16-byte packs need. */
static void vec_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    long long packs = s->dims[N_] / (16 / (long long)elem_bytes(s));
    long long blocks = (packs + p[VC_BLOCK] - 1) / p[VC_BLOCK];
    if (blocks < 1) blocks = 1;
    if (blocks > p[VC_GRID]) blocks = p[VC_GRID];
    *l = (reg_launch){{(unsigned)blocks, 1, 1}, {(unsigned)p[VC_BLOCK], 1, 1}, 0};
}

static void finish_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    (void)p, (void)s;
    *l = (reg_launch){{1, 1, 1}, {FINISH_THREADS, 1, 1}, 0};
}

/* ---- library and host variants ---------------------------------------------------------- */

static int cub_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params;
    size_t bytes = p->temp_bytes;
    CUDA_CHECK((cudaError_t)tl_cub_sum(p->dx, p->s.dtype == F16, p->dout, p->n, p->dtemp, &bytes, p->ctx->stream));
    return 0;
fail:
    return -1;
}

/* Left to right in float: the order a C loop adds in. */
static int host_sum_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params, (void)e;
    float acc = 0.0f;
    for (long long i = 0; i < p->n; i++) acc += p->hx[i];
    p->hout = acc;
    return 0;
}

/* Deliberately wrong: drops the last element; verification must catch it. */
static int host_drop_last_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params, (void)e;
    float acc = 0.0f;
    for (long long i = 0; i + 1 < p->n; i++) acc += p->hx[i];
    p->hout = acc;
    return 0;
}

/* Deliberately wrong: sums right, then halves its input; the input guard (runner/exec/inguard.h) must fail it and
 * put the input back, so that the cases after it sum what the reference summed. */
static int host_writes_input_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    host_sum_run(v, p, params, e);
    for (long long i = 0; i < p->n; i++) p->hx[i] *= 0.5f;
    return 0;
}

/* ---- problem life cycle ------------------------------------------------------------------- */

static void reduce_problem_free(reg_problem *p)
{
    if (!p) return;
    free(p->hx);
    if (p->dx) cudaFree(p->dx);
    if (p->dpartial) cudaFree(p->dpartial);
    if (p->dout) cudaFree(p->dout);
    if (p->dtemp) cudaFree(p->dtemp);
    free(p);
}

/* clang before 15 has no _Float16 on x86 (the fuzz build); its __fp16 converts the same way. */
#if defined(__clang__) && __clang_major__ < 15
typedef __fp16 host_half;
#else
typedef _Float16 host_half;
#endif

/* The inputs rounded to half (to nearest even, by the compiler's half type), as floats and as bits. */
static uint16_t *to_half(float *x, long long n)
{
    uint16_t *bits = tl_xmalloc((size_t)n * sizeof *bits);
    for (long long i = 0; i < n; i++) {
        host_half h = (host_half)x[i];
        x[i] = (float)h;
        memcpy(&bits[i], &h, sizeof h);
    }
    return bits;
}

static int reduce_problem_new(const reg_op *op, reg_problem **out, const reg_spec *s, const reg_ctx *ctx,
                              int on_device, tl_err *e)
{
    (void)op;
    reg_problem *p = tl_xcalloc(1, sizeof *p);
    uint16_t *bits = NULL;
    p->s = *s;
    p->ctx = ctx;
    p->on_device = on_device;
    p->n = s->dims[N_];
    p->elem = elem_bytes(s);
    p->hx = tl_xmalloc((size_t)p->n * sizeof(float));
    data_fill_f32(s->dist, p->hx, (size_t)p->n, s->seed, 1);
    if (s->dtype == F16) bits = to_half(p->hx, p->n);
    if (on_device) {
        CUDA_CHECK(cudaMalloc(&p->dx, (size_t)p->n * p->elem));
        CUDA_CHECK(cudaMemcpy(p->dx, bits ? (const void *)bits : (const void *)p->hx, (size_t)p->n * p->elem,
                              cudaMemcpyHostToDevice));
        p->nparts = parts_capacity(p->n);
        CUDA_CHECK(cudaMalloc((void **)&p->dpartial, p->nparts * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&p->dout, sizeof(float)));
        CUDA_CHECK((cudaError_t)tl_cub_sum(p->dx, s->dtype == F16, p->dout, p->n, NULL, &p->temp_bytes, ctx->stream));
        CUDA_CHECK(cudaMalloc(&p->dtemp, p->temp_bytes ? p->temp_bytes : 1));
    }
    free(bits);
    *out = p;
    return 0;
fail:
    free(bits);
    reduce_problem_free(p);
    return -1;
}

static int reduce_reference(reg_problem *p, const char *name, tl_err *e)
{
    (void)name, (void)e;
    double sum = 0.0, mag = 0.0;
    for (long long i = 0; i < p->n; i++) {
        sum += p->hx[i];
        mag += fabs((double)p->hx[i]);
    }
    p->ref = sum, p->mag = mag;
    return 0;
}

/* The result starts at 0 (the atomic variants add into it); poisoned, the partial sums are NaN, so
 * a second pass that reads one its first pass did not write fails. */
static int reduce_reset_output(reg_problem *p, int poison, tl_err *e)
{
    if (!p->on_device) {
        p->hout = poison ? NAN : 0.0f;
        return 0;
    }
    cudaStream_t st = p->ctx->stream;
    CUDA_CHECK(cudaMemsetAsync(p->dout, 0, sizeof(float), st));
    if (poison) CUDA_CHECK(cudaMemsetAsync(p->dpartial, 0xff, p->nparts * sizeof(float), st));
    return 0;
fail:
    return -1;
}

static int reduce_kernel_args(reg_problem *p, void **argv, int max)
{
    if (max < 4) return -1;
    void *args[] = {&p->dx, &p->n, &p->dpartial, &p->dout};
    memcpy(argv, args, sizeof args);
    return 4;
}

static int reduce_inputs(reg_problem *p, reg_input *in, int max)
{
    if (max < 1) return -1;
    in[0] = p->on_device ? (reg_input){"x", p->dx, (size_t)p->n * p->elem, (int)p->elem}
                         : (reg_input){"x", p->hx, (size_t)p->n * sizeof(float), (int)sizeof(float)};
    return 1;
}

/* Summation error grows with the depth of the addition tree: the bound is log2(n) roundings of
 * sum |x_i| (a sequential sum's worst case is n of them; random rounding stays far below). */
static int reduce_check_output(reg_problem *p, const reg_tolerance *t, reg_verify *v, tl_err *e)
{
    float got = p->hout;
    if (p->on_device) CUDA_CHECK(cudaMemcpy(&got, p->dout, sizeof got, cudaMemcpyDeviceToHost));
    float want = (float)p->ref;
    float scale = (float)(log2(2.0 * (double)p->n) * p->mag);
    verify_f32(&got, &want, &scale, 1, t, v);
    return 0;
fail:
    return -1;
}

/* ---- the table ------------------------------------------------------------------------- */

#define F32_F16 ((1u << F32) | (1u << F16)) /* every variant sums both */
/* A block BLOCK threads on BLOCK, 2 BLOCK or ITEMS BLOCK elements (REDUCE_PARTS in the kernels). */
#define ONE_LAUNCH {.grid = {"ceil_div(n, BLOCK)"}, .block = {"BLOCK"}}
#define TWO_LAUNCH {.grid = {"ceil_div(n, 2 * BLOCK)"}, .block = {"BLOCK"}}
#define ITEMS_LAUNCH {.grid = {"ceil_div(n, BLOCK * ITEMS)"}, .block = {"BLOCK"}}
#define FITS "n in at most 2^31 - 1 blocks" /* what the checks test beyond the rules */
#define TWO_PASS .entry2 = "reduce_finish", .geometry2 = finish_geometry

static const reg_variant reduce_variants[] = {
    {.name = "atomic", .summary = "atomicAdd of every element into the result: serialised in L2",
     .kind = REG_NVRTC, .dtypes = F32_F16, .source = "reduce/01_atomic.cu", .entry = "reduce_atomic", .params = block_params,
     .nparams = BL_N, .rules = atomic_rules, .constraints = FITS, .check = block_check, .launch = ONE_LAUNCH},
    {.name = "interleaved", .summary = "shared-memory tree, interleaved addressing (divergent warps)",
     .kind = REG_NVRTC, .dtypes = F32_F16, .source = "reduce/02_interleaved.cu", .entry = "reduce_interleaved", .params = block_params,
     .nparams = BL_N, .rules = tree1_rules, .constraints = FITS, .check = block_check, .launch = ONE_LAUNCH, TWO_PASS},
    {.name = "sequential", .summary = "shared-memory tree, sequential addressing (contiguous active threads)",
     .kind = REG_NVRTC, .dtypes = F32_F16, .source = "reduce/03_sequential.cu", .entry = "reduce_sequential", .params = block_params,
     .nparams = BL_N, .rules = tree1_rules, .constraints = FITS, .check = block_check, .launch = ONE_LAUNCH, TWO_PASS},
    {.name = "first_add", .summary = "two elements per thread, added during the load",
     .kind = REG_NVRTC, .dtypes = F32_F16, .source = "reduce/04_first_add.cu", .entry = "reduce_first_add", .params = block_params,
     .nparams = BL_N, .rules = tree2_rules, .constraints = FITS, .check = pair_check, .launch = TWO_LAUNCH, TWO_PASS},
    {.name = "unroll_last_warp", .summary = "the last warp's steps unrolled, without barriers",
     .kind = REG_NVRTC, .dtypes = F32_F16, .source = "reduce/05_unroll_last_warp.cu", .entry = "reduce_unroll_last_warp",
     .params = block_params, .nparams = BL_N, .rules = tree2_rules, .constraints = FITS, .check = pair_check,
     .launch = TWO_LAUNCH, TWO_PASS},
    {.name = "warp_shuffle", .summary = "the last warp's steps with __shfl_down_sync",
     .kind = REG_NVRTC, .dtypes = F32_F16, .source = "reduce/06_warp_shuffle.cu", .entry = "reduce_warp_shuffle", .params = block_params,
     .nparams = BL_N, .rules = tree2_rules, .constraints = FITS, .check = pair_check, .launch = TWO_LAUNCH, TWO_PASS},
    {.name = "block_warp_reduce", .summary = "block sum from warp sums only; ITEMS elements per thread",
     .kind = REG_NVRTC, .dtypes = F32_F16, .source = "reduce/07_block_warp_reduce.cu", .entry = "reduce_block_warp_reduce",
     .params = warp_params, .nparams = WP_N, .rules = warp_rules, .constraints = FITS, .check = items_check,
     .launch = ITEMS_LAUNCH, TWO_PASS},
    {.name = "vec4", .summary = "16-byte grid-stride loads, UNROLL in flight; finished by a one-block kernel",
     .kind = REG_NVRTC, .dtypes = F32_F16, .source = "reduce/08_vec4.cu", .entry = "reduce_vec4", .params = vec_params, .nparams = VC_N,
     .rules = vec_rules, .geometry = vec_geometry, TWO_PASS},
    {.name = "vec4_atomic", .summary = "vec4, finished by one atomicAdd per block",
     .kind = REG_NVRTC, .dtypes = F32_F16, .source = "reduce/08_vec4.cu", .entry = "reduce_vec4_atomic", .params = vec_params,
     .nparams = VC_N, .rules = vec_rules, .geometry = vec_geometry},
    {.name = "cub", .summary = "cub::DeviceReduce (Sum; Reduce with a float accumulator for f16): the bar",
     .kind = REG_LIBRARY, .dtypes = F32_F16, .run = cub_run},
    {.name = "host_sum", .summary = "a C loop, left to right, float accumulator (host target)",
     .kind = REG_HOST, .dtypes = F32_F16, .run = host_sum_run},
    {.name = "host_wrong_for_tests", .summary = "drops the last element: verification must fail",
     .kind = REG_HOST, .dtypes = F32_F16, .run = host_drop_last_run, .test_only = 1},
    {.name = "host_writes_input_for_tests", .summary = "sums right, then halves its input: the input guard must fail it",
     .kind = REG_HOST, .dtypes = F32_F16, .run = host_writes_input_run, .test_only = 1},
};

static const char *const reduce_axes[] = {"n"};
static const char *const reduce_dtypes[] = {"f32", "f16"};
static const char *const reduce_references[] = {"host"};

/* The order reduce_kernel_args passes them in. */
static const reg_karg reduce_kargs[] = {
    {"const float *", "x", 'p', "n inputs: floats, or with TL_DTYPE_F16 = 1 IEEE halves (as unsigned short bits)"},
    {"long long", "n", 'l', "number of inputs"},
    {"float *", "partial", 'p', "scratch for per-block sums: max(ceil(n / 32), 65535) floats, NaN before the "
                                "verified run"},
    {"float *", "out", 'p', "one float, zeroed before every run: the sum goes here (atomicAdd, or a second kernel)"},
};
#define REDUCE_KERNEL_DOC                                                                                  \
    "the runner defines TL_DTYPE_F32 or TL_DTYPE_F16 as 1 (the YAML's dtype) and each param (#define NAME value) before the source"

const reg_op reduce_op = {
    .name = "reduce",
    .summary = "out = sum of n elements (f32, or f16 summed in f32)",
    .axes = reduce_axes, .naxes = 1,
    .dtypes = reduce_dtypes, .ndtypes = 2,
    .references = reduce_references, .nreferences = 1,
    .host_reference = "host",
    .tol = {.rtol = 1.2e-7, .atol = 0.0},
    .tol_exact = {.rtol = 0.0, .atol = 0.0},
    .tol_doc = "|got - want| <= atol + rtol * log2(2n) * sum |x_i|, want the sum in double",
    .variants = reduce_variants, .nvariants = sizeof reduce_variants / sizeof *reduce_variants,
    .kargs = reduce_kargs, .nkargs = sizeof reduce_kargs / sizeof *reduce_kargs,
    .kernel_doc = REDUCE_KERNEL_DOC,
    .rate = "GB/s",
    .flop = reduce_flop, .bytes = reduce_bytes, .mem_bytes = reduce_mem_bytes,
    .problem_new = reduce_problem_new, .problem_free = reduce_problem_free,
    .reference = reduce_reference, .reset_output = reduce_reset_output,
    .kernel_args = reduce_kernel_args, .inputs = reduce_inputs, .check_output = reduce_check_output,
};
