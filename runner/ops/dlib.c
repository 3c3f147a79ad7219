#include "runner/ops/dlib.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/ops/dlib_cub.h"
#include "runner/util/cuda_check.h"

/* The types CUB's wrappers take (all but the half types), and the floats cuBLAS's. */
#define CUB_TYPES (((1u << DOP_NTYPES) - 1) & ~(1u << DOP_F16) & ~(1u << DOP_BF16))
#define BLAS_TYPES ((1u << DOP_F32) | (1u << DOP_F64))
#define ANY_TYPE ((1u << DOP_NTYPES) - 1)

/* Buffer arg a's count is at least need: 1, else 0 with why. */
static int at_least(const dlib_call *c, int a, const int64_t *counts, int64_t need, char *why, size_t n)
{
    int b = c->buffer[a];
    if (counts[b] >= need) return 1;
    snprintf(why, n, "%s: %s (%s) holds %lld elements, the call reaches %lld", c->fn->name, c->fn->args[a].name,
             c->d->buffers[b].name, (long long)counts[b], (long long)need);
    return 0;
}

static int positive(const dlib_call *c, int a, const int64_t *v, char *why, size_t n)
{
    if (v[a] >= 1) return 1;
    snprintf(why, n, "%s: %s is %lld (at least 1)", c->fn->name, c->fn->args[a].name, (long long)v[a]);
    return 0;
}

static int ptype(const dlib_call *c, int a)
{
    return (int)c->d->buffers[c->buffer[a]].type;
}

/* ---- the calls ----------------------------------------------------------------------------- */

/* args: in, out, n */
static int fits_n_n(const dlib_call *c, const int64_t *v, const int64_t *k, char *why, size_t n)
{
    return positive(c, 2, v, why, n) && at_least(c, 0, k, v[2], why, n) && at_least(c, 1, k, v[2], why, n);
}

static int fits_reduce(const dlib_call *c, const int64_t *v, const int64_t *k, char *why, size_t n)
{
    return positive(c, 2, v, why, n) && at_least(c, 0, k, v[2], why, n) && at_least(c, 1, k, 1, why, n);
}

/* CUB's protocol: the scratch's size, then the call with it. */
#define CUB_RUN(call_with)                                                                                           \
    do {                                                                                                             \
        size_t bytes = 0;                                                                                            \
        void *temp = NULL;                                                                                           \
        CUDA_CHECK((cudaError_t)call_with);                                                                          \
        if (!(temp = dop_scratch(p, bytes, e))) goto fail;                                                           \
        CUDA_CHECK((cudaError_t)call_with);                                                                          \
    } while (0)

static int run_reduce(const dlib_call *c, const int64_t *v, reg_problem *p, tl_err *e)
{
    void *st = dop_ctx(p)->stream;
    CUB_RUN(tl_cub_reduce_sum(ptype(c, 0), dop_ptr(p, c->buffer[0]), dop_ptr(p, c->buffer[1]), v[2], temp, &bytes, st));
    return 0;
fail:
    return -1;
}

static int run_scan(const dlib_call *c, const int64_t *v, reg_problem *p, tl_err *e, int inclusive)
{
    void *st = dop_ctx(p)->stream;
    CUB_RUN(tl_cub_scan_sum(ptype(c, 0), inclusive, dop_ptr(p, c->buffer[0]), dop_ptr(p, c->buffer[1]), v[2], temp,
                            &bytes, st));
    return 0;
fail:
    return -1;
}

static int run_inclusive(const dlib_call *c, const int64_t *v, reg_problem *p, tl_err *e)
{
    return run_scan(c, v, p, e, 1);
}

static int run_exclusive(const dlib_call *c, const int64_t *v, reg_problem *p, tl_err *e)
{
    return run_scan(c, v, p, e, 0);
}

static int run_sort(const dlib_call *c, const int64_t *v, reg_problem *p, tl_err *e)
{
    void *st = dop_ctx(p)->stream;
    CUB_RUN(tl_cub_sort_keys(ptype(c, 0), dop_ptr(p, c->buffer[0]), dop_ptr(p, c->buffer[1]), v[2], temp, &bytes, st));
    return 0;
fail:
    return -1;
}

/* args: samples, histogram, n, bins, lower, upper */
static int fits_histogram(const dlib_call *c, const int64_t *v, const int64_t *k, char *why, size_t n)
{
    if (!positive(c, 2, v, why, n) || !positive(c, 3, v, why, n) || !at_least(c, 0, k, v[2], why, n) ||
        !at_least(c, 1, k, v[3], why, n))
        return 0;
    if (v[4] < v[5] && v[3] < (1 << 24)) return 1;
    snprintf(why, n, "%s: lower %lld must be below upper %lld, bins under 2^24", c->fn->name, (long long)v[4],
             (long long)v[5]);
    return 0;
}

static int run_histogram(const dlib_call *c, const int64_t *v, reg_problem *p, tl_err *e)
{
    void *st = dop_ctx(p)->stream;
    CUB_RUN(tl_cub_histogram_even(ptype(c, 0), dop_ptr(p, c->buffer[0]), dop_ptr(p, c->buffer[1]), (int)v[3], v[4],
                                  v[5], v[2], temp, &bytes, st));
    return 0;
fail:
    return -1;
}

/* args: src, dst, n */
static int run_memcpy(const dlib_call *c, const int64_t *v, reg_problem *p, tl_err *e)
{
    size_t bytes = (size_t)v[2] * (size_t)dop_types[ptype(c, 0)].size;
    CUDA_CHECK(cudaMemcpyAsync(dop_ptr(p, c->buffer[1]), dop_ptr(p, c->buffer[0]), bytes, cudaMemcpyDeviceToDevice,
                               (cudaStream_t)dop_ctx(p)->stream));
    return 0;
fail:
    return -1;
}

/* args: A, B, C, m, n, k[, batch]: row-major C (m x n) = A (m x k) B (k x n), each of `batch` matrices one after
 * the other. cuBLAS is column-major: a row-major C is the column-major C^T = B^T A^T, so B and A trade places. */
static int fits_gemm(const dlib_call *c, const int64_t *v, const int64_t *k, char *why, size_t n)
{
    int64_t batch = c->fn->nargs > 6 ? v[6] : 1;
    for (int a = 3; a < c->fn->nargs; a++)
        if (!positive(c, a, v, why, n)) return 0;
    if (v[3] > 2147483647 || v[4] > 2147483647 || v[5] > 2147483647 || batch > 2147483647) {
        snprintf(why, n, "%s: m, n, k and batch are cuBLAS ints (under 2^31)", c->fn->name);
        return 0;
    }
    return at_least(c, 0, k, v[3] * v[5] * batch, why, n) && at_least(c, 1, k, v[5] * v[4] * batch, why, n) &&
           at_least(c, 2, k, v[3] * v[4] * batch, why, n);
}

static int run_gemm(const dlib_call *c, const int64_t *v, reg_problem *p, tl_err *e)
{
    cublasHandle_t h = (cublasHandle_t)dop_ctx(p)->cublas;
    int m = (int)v[3], n = (int)v[4], k = (int)v[5], batch = c->fn->nargs > 6 ? (int)v[6] : 1;
    const void *A = dop_ptr(p, c->buffer[0]), *B = dop_ptr(p, c->buffer[1]);
    void *C = dop_ptr(p, c->buffer[2]);
    long long sa = (long long)m * k, sb = (long long)k * n, sc = (long long)m * n;
    if (ptype(c, 0) == DOP_F32) {
        const float one = 1, zero = 0;
        CUBLAS_CHECK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, sb, A, k, sa, &zero, C,
                                               n, sc, batch));
    } else {
        const double one = 1, zero = 0;
        CUBLAS_CHECK(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, sb, A, k, sa, &zero, C,
                                               n, sc, batch));
    }
    return 0;
fail:
    return -1;
}

/* args: A, x, y, m, n: y (m) = A (m x n, row-major) x (n); a row-major A is the column-major A^T. */
static int fits_gemv(const dlib_call *c, const int64_t *v, const int64_t *k, char *why, size_t n)
{
    if (!positive(c, 3, v, why, n) || !positive(c, 4, v, why, n)) return 0;
    if (v[3] > 2147483647 || v[4] > 2147483647) {
        snprintf(why, n, "%s: m and n are cuBLAS ints (under 2^31)", c->fn->name);
        return 0;
    }
    return at_least(c, 0, k, v[3] * v[4], why, n) && at_least(c, 1, k, v[4], why, n) && at_least(c, 2, k, v[3], why, n);
}

static int run_gemv(const dlib_call *c, const int64_t *v, reg_problem *p, tl_err *e)
{
    cublasHandle_t h = (cublasHandle_t)dop_ctx(p)->cublas;
    int m = (int)v[3], n = (int)v[4];
    const void *A = dop_ptr(p, c->buffer[0]), *x = dop_ptr(p, c->buffer[1]);
    void *y = dop_ptr(p, c->buffer[2]);
    if (ptype(c, 0) == DOP_F32) {
        const float one = 1, zero = 0;
        CUBLAS_CHECK(cublasSgemv(h, CUBLAS_OP_T, n, m, &one, A, n, x, 1, &zero, y, 1));
    } else {
        const double one = 1, zero = 0;
        CUBLAS_CHECK(cublasDgemv(h, CUBLAS_OP_T, n, m, &one, A, n, x, 1, &zero, y, 1));
    }
    return 0;
fail:
    return -1;
}

#define IN(n, doc) {n, DLIB_IN, doc}
#define OUT(n, doc) {n, DLIB_OUT, doc}
#define VAL(n, doc) {n, DLIB_VALUE, doc}
#define N_ARG VAL("n", "elements")

const dlib_fn dlib_fns[] = {
    {"cub.reduce_sum", "out[0] = in[0] + ... + in[n - 1] (cub::DeviceReduce::Sum)",
     {IN("in", "the elements"), OUT("out", "the sum"), N_ARG}, 3, CUB_TYPES, 1, 0, fits_reduce, run_reduce},
    {"cub.inclusive_sum", "out[i] = in[0] + ... + in[i] (cub::DeviceScan::InclusiveSum)",
     {IN("in", "the elements"), OUT("out", "their prefix sums"), N_ARG}, 3, CUB_TYPES, 1, 0, fits_n_n, run_inclusive},
    {"cub.exclusive_sum", "out[i] = in[0] + ... + in[i - 1], out[0] = 0 (cub::DeviceScan::ExclusiveSum)",
     {IN("in", "the elements"), OUT("out", "their prefix sums"), N_ARG}, 3, CUB_TYPES, 1, 0, fits_n_n, run_exclusive},
    {"cub.sort_keys", "out = in sorted ascending (cub::DeviceRadixSort::SortKeys)",
     {IN("in", "the keys"), OUT("out", "the keys sorted"), N_ARG}, 3, CUB_TYPES, 1, 0, fits_n_n, run_sort},
    {"cub.histogram_even", "histogram[b] = how many samples fall in bin b of bins equal bins of [lower, upper) "
                           "(cub::DeviceHistogram::HistogramEven)",
     {IN("samples", "the samples"), OUT("histogram", "u32 counts, one a bin"), N_ARG, VAL("bins", "how many bins"),
      VAL("lower", "the first bin's lower bound"), VAL("upper", "the last bin's upper bound (exclusive)")},
     6, CUB_TYPES, 0, DOP_U32, fits_histogram, run_histogram},
    {"cublas.gemm", "C = A B, row-major, A m x k, B k x n, C m x n (cublasSgemm / cublasDgemm)",
     {IN("A", "m x k"), IN("B", "k x n"), OUT("C", "m x n"), VAL("m", "rows of A and C"), VAL("n", "columns of B and C"),
      VAL("k", "columns of A, rows of B")}, 6, BLAS_TYPES, 1, 0, fits_gemm, run_gemm},
    {"cublas.gemm_strided_batched", "C_i = A_i B_i for batch matrices one after another (cublas<t>gemmStridedBatched)",
     {IN("A", "batch x m x k"), IN("B", "batch x k x n"), OUT("C", "batch x m x n"), VAL("m", "rows of A and C"),
      VAL("n", "columns of B and C"), VAL("k", "columns of A, rows of B"), VAL("batch", "how many products")},
     7, BLAS_TYPES, 1, 0, fits_gemm, run_gemm},
    {"cublas.gemv", "y = A x, A m x n row-major (cublasSgemv / cublasDgemv)",
     {IN("A", "m x n"), IN("x", "n"), OUT("y", "m"), VAL("m", "rows of A"), VAL("n", "columns of A")}, 5, BLAS_TYPES, 1,
     0, fits_gemv, run_gemv},
    {"memcpy", "dst = src (cudaMemcpyAsync, device to device)",
     {IN("src", "the elements"), OUT("dst", "their copy"), N_ARG}, 3, ANY_TYPE, 1, 0, fits_n_n, run_memcpy},
};
const int dlib_nfns = sizeof dlib_fns / sizeof *dlib_fns;

const dlib_fn *dlib_find(const char *name)
{
    for (int i = 0; i < dlib_nfns; i++)
        if (!strcmp(dlib_fns[i].name, name)) return &dlib_fns[i];
    return NULL;
}

int dlib_values(const dlib_call *c, const reg_spec *s, int64_t *values, tl_err *e)
{
    for (int a = 0; a < c->fn->nargs; a++) {
        values[a] = 0;
        if (c->fn->args[a].role != DLIB_VALUE) continue;
        char msg[512];
        const decl_expr *x = &c->value[a];
        expr_env env = {.dims = s->dims};
        if (expr_eval(&x->x, &env, &values[a], msg, sizeof msg)) {
            tl_err_set(e, "%s:%d:%d: %s: '%s': %s", c->d->path, x->line, x->col, x->field, x->x.text, msg);
            return -1;
        }
    }
    return 0;
}

int dlib_check(const dlib_call *c, const reg_spec *s, char *why, size_t n, tl_err *e)
{
    int64_t values[DLIB_MAX_ARGS], counts[DOP_MAX_BUFFERS];
    why[0] = '\0';
    if (dlib_values(c, s, values, e) || dop_counts(c->d, s, counts, e)) return -1;
    c->fn->fits(c, values, counts, why, n);
    return 0;
}

int dlib_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)params;
    const dlib_call *c = v->decl->lib;
    int64_t values[DLIB_MAX_ARGS];
    if (dlib_values(c, dop_spec(p), values, e)) return -1;
    return c->fn->run(c, values, p, e);
}

void dlib_call_free(dlib_call *c)
{
    if (!c) return;
    for (int a = 0; a < DLIB_MAX_ARGS; a++) expr_free(&c->value[a].x);
    free(c);
}
