/* copy: y = x for n floats, with the access patterns of the coalescing posts (coalesced, strided,
 * misaligned, vectorised right and wrong) against cudaMemcpy. Verified exactly against the source. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "runner/ops/data.h"
#include "runner/ops/registry.h"
#include "runner/ops/verify.h"
#include "runner/util/cuda_check.h"

enum { N_ };

struct reg_problem {
    reg_spec s;
    const reg_ctx *ctx;
    int on_device;
    long long n;
    float *hx, *hy; /* source; destination (host variants) or its copy back */
    float *dx, *dy;
};

static double copy_flop(const reg_op *op, const reg_spec *s)
{
    (void)op;
    (void)s;
    return 0.0;
}

static double copy_bytes(const reg_op *op, const reg_spec *s)
{
    (void)op;
    return 8.0 * (double)s->dims[N_]; /* each float read once and written once */
}

static uint64_t copy_mem_bytes(const reg_op *op, const reg_spec *s, int on_device)
{
    (void)op;
    (void)on_device;
    uint64_t b;
    return tl_mul_u64((uint64_t)s->dims[N_], 8, &b) ? b : 0;
}

/* ---- params, constraints, geometry ------------------------------------------------------ */

/* Each variant's params, written once (runner/ops/registry.h): their rows and their indices by name. */
#define BLOCK_P(X, P) X(P, BLOCK, 256, "threads per block")
#define GRID_P(X, P) X(P, GRID, 0, "blocks; 0 = enough for one step of the loop per thread")
#define COPY_PLAIN(X, P) BLOCK_P(X, P) GRID_P(X, P)
#define COPY_STRIDED(X, P)                                                                                  \
    X(P, S, 2, "floats between the elements of neighbouring lanes") BLOCK_P(X, P)                         \
    X(P, GRID, 1056, "blocks (1056: one full wave on an H100); each thread's loop divides once")
#define COPY_OFFSET(X, P) X(P, O, 1, "floats past the 128-byte alignment") BLOCK_P(X, P) GRID_P(X, P)
#define COPY_VEC4(X, P) BLOCK_P(X, P) GRID_P(X, P) X(P, UNROLL, 4, "float4 loads in flight per thread")
enum { COPY_PLAIN(REG_PARAM_INDEX, PL) PL_N };
enum { COPY_STRIDED(REG_PARAM_INDEX, ST) ST_N };
enum { COPY_OFFSET(REG_PARAM_INDEX, OF) OF_N };
enum { COPY_VEC4(REG_PARAM_INDEX, V4) V4_N };
#define COPY_LANDSCAPE(F, P) F(P, X, 0, "a place on the test landscape, 0 .. 7") F(P, Y, 0, "likewise") \
    F(P, Z, 0, "likewise") F(P, W, 0, "likewise")
enum { COPY_LANDSCAPE(REG_PARAM_INDEX, LS) LS_N };
static const reg_param plain_params[] = {COPY_PLAIN(REG_PARAM_ROW, PL)};
static const reg_param strided_params[] = {COPY_STRIDED(REG_PARAM_ROW, ST)};
static const reg_param offset_params[] = {COPY_OFFSET(REG_PARAM_ROW, OF)};
static const reg_param vec4_params[] = {COPY_VEC4(REG_PARAM_ROW, V4)};
static const reg_param landscape_params[] = {COPY_LANDSCAPE(REG_PARAM_ROW, LS)};

/* Blocks for `work` steps of BLOCK threads each (GRID = 0), or GRID. */
static long long blocks_for(long long work, long block, long grid)
{
    if (grid > 0) return grid;
    long long b = (work + block - 1) / block;
    return b > 0 ? b : 1;
}

/* Each variant's rules (runner/ops/registry.h): BLOCK whole warps a block can hold, GRID 0 (enough blocks) or
 * a count. What depends on n stays in the checks below. */
#define SHAPE_RULES                                                                                       \
    {"BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0", "BLOCK = {BLOCK} is not a multiple of 32 in 32 .. 1024"}, \
    {"GRID >= 0", "GRID = {GRID} is negative"}
static const reg_rule plain_rules[] = {SHAPE_RULES, REG_RULES_END};
static const reg_rule strided_rules[] = {{"S >= 1 && S <= 1048576", "S = {S} is not 1 .. 2^20"}, SHAPE_RULES, REG_RULES_END};
static const reg_rule offset_rules[] = {{"O >= 0", "O = {O} is not 0 .. n - 1"}, SHAPE_RULES, REG_RULES_END};
static const reg_rule vec4_rules[] = {{"UNROLL >= 1 && UNROLL <= 16", "UNROLL = {UNROLL} is not 1 .. 16"}, SHAPE_RULES,
                                      REG_RULES_END};

static int grid_fits(long long work, long block, long grid, char *why, size_t n)
{
    if (blocks_for(work, block, grid) > 2147483647LL) return snprintf(why, n, "more than 2^31 - 1 blocks"), 0;
    return 1;
}

static int plain_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    return grid_fits(s->dims[N_], p[PL_BLOCK], p[PL_GRID], why, n);
}

static int strided_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    long stride = p[ST_S];
    return grid_fits((s->dims[N_] + stride - 1) / stride * stride, p[ST_BLOCK], p[ST_GRID], why, n);
}

static int offset_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    if (p[OF_O] >= s->dims[N_]) return snprintf(why, n, "O = %ld is not 0 .. n - 1", p[OF_O]), 0;
    return grid_fits(s->dims[N_], p[OF_BLOCK], p[OF_GRID], why, n);
}

static int vec4_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    return grid_fits(s->dims[N_] / 4 / p[V4_UNROLL], p[V4_BLOCK], p[V4_GRID], why, n);
}

static void launch(long long work, long block, long grid, reg_launch *l)
{
    *l = (reg_launch){{(unsigned)blocks_for(work, block, grid), 1, 1}, {(unsigned)block, 1, 1}, 0};
}

static void plain_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    launch(s->dims[N_], p[PL_BLOCK], p[PL_GRID], l);
}

static void strided_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    launch((s->dims[N_] + p[ST_S] - 1) / p[ST_S] * p[ST_S], p[ST_BLOCK], p[ST_GRID], l);
}

static void offset_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    launch(s->dims[N_], p[OF_BLOCK], p[OF_GRID], l);
}

static void vec2_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    launch(s->dims[N_] / 2, p[PL_BLOCK], p[PL_GRID], l);
}

static void misvec_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    launch((s->dims[N_] + 1) / 2, p[PL_BLOCK], p[PL_GRID], l);
}

static void vec4_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    launch(s->dims[N_] / 4 / p[V4_UNROLL], p[V4_BLOCK], p[V4_GRID], l);
}

/* ---- library and host variants ---------------------------------------------------------- */

static int memcpy_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params;
    CUDA_CHECK(cudaMemcpyAsync(p->dy, p->dx, (size_t)p->n * sizeof(float), cudaMemcpyDeviceToDevice,
                               (cudaStream_t)p->ctx->stream));
    return 0;
fail:
    return -1;
}

static int host_memcpy_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params, (void)e;
    memcpy(p->hy, p->hx, (size_t)p->n * sizeof(float));
    return 0;
}

/* Deliberately wrong: leaves the last float unwritten; the poisoned verified run must catch it. */
static int host_skip_last_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params, (void)e;
    memcpy(p->hy, p->hx, (size_t)(p->n - 1) * sizeof(float));
    return 0;
}

/* The search tests' landscape (host_landscape_for_tests): a copy, wrong at X = 0, Y = 7 (a point that fails
 * verification), whose simulated time (TILELAB_TEST_HOST_TIMING) is least at X = 5, Y = 2, Z = 3, W = 0. */
static int host_landscape_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    return params[LS_X] == 0 && params[LS_Y] == 7 ? host_skip_last_run(v, p, params, e)
                                                  : host_memcpy_run(v, p, params, e);
}

static double landscape_scale(const long *q)
{
    double x = (double)q[LS_X] - 5, y = (double)q[LS_Y] - 2;
    return 1 + (x * x + y * y) / 8 + fabs((double)q[LS_Z] - 3) / 4 + (double)q[LS_W] / 16;
}

static const reg_rule landscape_rules[] = {
    {"X >= 0 && X <= 7 && Y >= 0 && Y <= 7 && Z >= 0 && Z <= 7 && W >= 0 && W <= 7", "a param is not 0 .. 7"},
    {"X + Y + Z + W <= 20", "X + Y + Z + W = {X} + {Y} + {Z} + {W} is over 20"}, REG_RULES_END};

/* Never returns (it sleeps, burning nothing): the watchdog's tests, as a kernel spinning on a flag would. */
static int host_hang_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v, (void)p, (void)params, (void)e;
    for (;;) sleep(1);
    return 0;
}

/* ---- problem life cycle ------------------------------------------------------------------- */

static void copy_problem_free(reg_problem *p)
{
    if (!p) return;
    free(p->hx), free(p->hy);
    if (p->dx) cudaFree(p->dx);
    if (p->dy) cudaFree(p->dy);
    free(p);
}

static int copy_problem_new(const reg_op *op, reg_problem **out, const reg_spec *s, const reg_ctx *ctx,
                            int on_device, tl_err *e)
{
    (void)op;
    reg_problem *p = tl_xcalloc(1, sizeof *p);
    p->s = *s;
    p->ctx = ctx;
    p->on_device = on_device;
    p->n = s->dims[N_];
    size_t bytes = (size_t)p->n * sizeof(float);
    p->hx = tl_xmalloc(bytes);
    p->hy = tl_xmalloc(bytes);
    data_fill_f32(s->dist, p->hx, (size_t)p->n, s->seed, 1);
    if (on_device) {
        CUDA_CHECK(cudaMalloc((void **)&p->dx, bytes));
        CUDA_CHECK(cudaMalloc((void **)&p->dy, bytes));
        CUDA_CHECK(cudaMemcpy(p->dx, p->hx, bytes, cudaMemcpyHostToDevice));
    }
    *out = p;
    return 0;
fail:
    copy_problem_free(p);
    return -1;
}

/* The source is the reference: nothing to compute. */
static int copy_reference(reg_problem *p, const char *name, tl_err *e)
{
    (void)p, (void)name, (void)e;
    return 0;
}

/* Every run writes all of y; poisoned, y is NaN, so an element no thread copied fails. */
static int copy_reset_output(reg_problem *p, int poison, tl_err *e)
{
    if (!poison) return 0;
    if (!p->on_device) {
        memset(p->hy, 0xff, (size_t)p->n * sizeof(float));
        return 0;
    }
    CUDA_CHECK(cudaMemsetAsync(p->dy, 0xff, (size_t)p->n * sizeof(float), (cudaStream_t)p->ctx->stream));
    return 0;
fail:
    return -1;
}

static int copy_kernel_args(reg_problem *p, void **argv, int max)
{
    if (max < 3) return -1;
    void *args[] = {&p->dx, &p->dy, &p->n};
    memcpy(argv, args, sizeof args);
    return 3;
}

static int copy_inputs(reg_problem *p, reg_input *in, int max)
{
    if (max < 1) return -1;
    in[0] = (reg_input){"x", p->on_device ? p->dx : p->hx, (size_t)p->n * sizeof(float), (int)sizeof(float)};
    return 1;
}

static int copy_check_output(reg_problem *p, const reg_tolerance *t, reg_verify *v, tl_err *e)
{
    if (p->on_device) CUDA_CHECK(cudaMemcpy(p->hy, p->dy, (size_t)p->n * sizeof(float), cudaMemcpyDeviceToHost));
    verify_f32(p->hy, p->hx, NULL, (size_t)p->n, t, v);
    return 0;
fail:
    return -1;
}

/* ---- the table ------------------------------------------------------------------------- */

static const reg_variant copy_variants[] = {
    {.name = "coalesced", .summary = "grid-stride, consecutive threads on consecutive floats",
     .kind = REG_NVRTC, .source = "copy/01_coalesced.cu", .entry = "copy_coalesced", .params = plain_params,
     .nparams = PL_N, .rules = plain_rules, .constraints = "at most 2^31 - 1 blocks", .check = plain_check, .geometry = plain_geometry},
    {.name = "strided", .summary = "lanes S floats apart: a sector per lane once S >= 8",
     .kind = REG_NVRTC, .source = "copy/02_strided.cu", .entry = "copy_strided", .params = strided_params,
     .nparams = ST_N, .rules = strided_rules, .constraints = "at most 2^31 - 1 blocks", .check = strided_check,
     .geometry = strided_geometry},
    {.name = "offset", .summary = "coalesced, O floats past the 128-byte alignment",
     .kind = REG_NVRTC, .source = "copy/03_offset.cu", .entry = "copy_offset", .params = offset_params,
     .nparams = OF_N, .rules = offset_rules, .constraints = "O < n; at most 2^31 - 1 blocks", .check = offset_check,
     .geometry = offset_geometry},
    {.name = "vec2", .summary = "float2 loads and stores, consecutive threads on consecutive pairs",
     .kind = REG_NVRTC, .source = "copy/04_vec2.cu", .entry = "copy_vec2", .params = plain_params, .nparams = PL_N,
     .rules = plain_rules, .constraints = "at most 2^31 - 1 blocks", .check = plain_check, .geometry = vec2_geometry},
    {.name = "vec4", .summary = "float4 loads and stores, UNROLL in flight per thread",
     .kind = REG_NVRTC, .source = "copy/05_vec4.cu", .entry = "copy_vec4", .params = vec4_params, .nparams = V4_N,
     .rules = vec4_rules, .constraints = "at most 2^31 - 1 blocks", .check = vec4_check,
     .geometry = vec4_geometry},
    {.name = "misvectorized", .summary = "thread t copies floats 2t and 2t+1: half-used sectors per instruction",
     .kind = REG_NVRTC, .source = "copy/06_misvectorized.cu", .entry = "copy_misvectorized",
     .params = plain_params, .nparams = PL_N, .rules = plain_rules, .constraints = "at most 2^31 - 1 blocks", .check = plain_check,
     .geometry = misvec_geometry},
    {.name = "memcpy", .summary = "cudaMemcpyAsync device to device: the bar", .kind = REG_LIBRARY,
     .run = memcpy_run},
    {.name = "host_memcpy", .summary = "C memcpy (host target)", .kind = REG_HOST, .run = host_memcpy_run},
    {.name = "host_wrong_for_tests", .summary = "leaves the last float unwritten: verification must fail",
     .kind = REG_HOST, .run = host_skip_last_run, .test_only = 1},
    {.name = "host_hang_for_tests", .summary = "never returns: the watchdog must end the case (timeout tests)",
     .kind = REG_HOST, .run = host_hang_run, .test_only = 1},
    {.name = "host_landscape_for_tests", .summary = "a copy whose simulated time depends on its params (search tests)",
     .kind = REG_HOST, .run = host_landscape_run, .params = landscape_params, .nparams = LS_N, .rules = landscape_rules,
     .sim_scale = landscape_scale, .test_only = 1},
    {.name = "fault_for_tests", .summary = "stores to an illegal address: the CUDA context is lost (fault tests)",
     .kind = REG_NVRTC, .source = "copy/99_fault_for_tests.cu", .entry = "copy_fault_for_tests",
     .params = plain_params, .nparams = PL_N, .rules = plain_rules, .constraints = "at most 2^31 - 1 blocks", .check = plain_check,
     .geometry = plain_geometry, .test_only = 1},
};

static const char *const copy_axes[] = {"n"};
static const char *const copy_dtypes[] = {"f32"};
static const char *const copy_references[] = {"source"};

/* The order copy_kernel_args passes them in. */
static const reg_karg copy_kargs[] = {
    {"const float *", "x", 'p', "n floats to copy"},
    {"float *", "y", 'p', "n floats, NaN before the verified run: y[i] = x[i] for every i"},
    {"long long", "n", 'l', "number of floats"},
};
#define COPY_KERNEL_DOC "the runner defines each param (#define NAME value) before the source; x and y are 256-byte aligned"

const reg_op copy_op = {
    .name = "copy",
    .summary = "y = x, n floats, with different access patterns",
    .axes = copy_axes, .naxes = 1,
    .dtypes = copy_dtypes, .ndtypes = 1,
    .references = copy_references, .nreferences = 1,
    .host_reference = "source",
    .tol = {.rtol = 0.0, .atol = 0.0},
    .tol_exact = {.rtol = 0.0, .atol = 0.0},
    .tol_doc = "exact: every float of y equals the one of x",
    .variants = copy_variants, .nvariants = sizeof copy_variants / sizeof *copy_variants,
    .kargs = copy_kargs, .nkargs = sizeof copy_kargs / sizeof *copy_kargs,
    .kernel_doc = COPY_KERNEL_DOC,
    .rate = "GB/s",
    .flop = copy_flop, .bytes = copy_bytes, .mem_bytes = copy_mem_bytes,
    .problem_new = copy_problem_new, .problem_free = copy_problem_free,
    .reference = copy_reference, .reset_output = copy_reset_output,
    .kernel_args = copy_kernel_args, .inputs = copy_inputs, .check_output = copy_check_output,
};
