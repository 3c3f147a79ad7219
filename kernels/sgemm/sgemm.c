/* sgemm: C = alpha * A * B + beta * C with FP32 accumulation, C row-major, A and B row- or column-major;
 * dtype f32 (FP32 SIMT), tf32 (FP32 data, TF32 multiply: tensor cores) or bf16 (BF16 A and B).
 *
 * The op: its problem (inputs from the seed, on the device where it can make them), its references (cuBLAS
 * in pedantic FP32, or double precision on the host), the cuBLAS bar, the host loops, and the table of its
 * variants, one entry a rung in the ladder's order. Each rung's params, rules and launch are in the file of
 * its family (sgemm_rungs.h lists them); what `tuned` asks of the op, in sgemm_dispatch.c. */
#include <cublas_v2.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/sgemm/sgemm_rungs.h"
#include "runner/ops/data.h"
#include "runner/ops/data_gen.h"
#include "runner/ops/devdata.h"
#include "runner/ops/dispatch.h"
#include "runner/ops/verify.h"
#include "runner/util/cuda_check.h"

extern const dispatch_model sgemm_dispatch_model; /* sgemm_dispatch.c */

/* What the rules of the tiled SIMT rungs (04 .. 10) and the CuTe ones leave to their checks. */
#define TILED_CONSTRAINTS "m / BM at most 65535 blocks; matrices under 2^31 elements"
#define CUTE_CONSTRAINTS "the copy threads tile BM x BK and BN x BK; (BM + BN) BK 4 bytes <= 48 KiB; n / BN at most 65535 blocks"
#define CUTE_VEC_CONSTRAINTS CUTE_CONSTRAINTS "; the 16-byte copies tile them (with PAD, 48 KiB)"
#define CUTE_BLOCKED_CONSTRAINTS "the copy threads tile BM x BK and BN x BK; n / BN at most 65535 blocks"

struct reg_problem {
    reg_spec s;
    const reg_ctx *ctx;
    int on_device;
    int m, n, k;
    float alpha, beta;
    size_t na, nb, nc;          /* elements */
    /* Host inputs (bf16: the BF16 values) and initial C: a host problem's, or a device problem's whose
     * distribution the device cannot make (normal), or made when the host reference needs them. */
    float *ha, *hb, *hc0;
    float *hc, *href, *hscale;  /* host output, reference and error scale (a device problem's: on failure) */
    void *da, *db;              /* device A and B: FP32, or BF16 for dtype bf16 */
    float *dc, *dc0;            /* device C and its initial value */
    float *dref, *dscale;       /* device reference and error scale */
    void *dscratch;             /* the device verdict */
};

/* A devdata.h call, checked like a CUDA one. */
#define DEVICES_CHECK(call) CUDA_CHECK((cudaError_t)(call))

/* ---- dtypes ------------------------------------------------------------------------------ */

#define to_bf16 tl_to_bf16     /* runner/ops/data_gen.h: the device rounds the same way */
#define from_bf16 tl_from_bf16

/* FP32 -> TF32 (10 fraction bits), round to nearest with ties away from zero, as cvt.rna.tf32.f32. */
static float to_tf32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- model ------------------------------------------------------------------------------ */

static double sgemm_flop(const reg_op *op, const reg_spec *s)
{
    (void)op;
    return 2.0 * (double)s->dims[M_] * (double)s->dims[N_] * (double)s->dims[K_];
}

static double sgemm_bytes(const reg_op *op, const reg_spec *s)
{
    (void)op;
    double m = (double)s->dims[M_], n = (double)s->dims[N_], k = (double)s->dims[K_];
    double c = s->args[BETA] != 0.0 ? 2.0 * m * n : m * n; /* C read too when beta != 0 */
    return (double)sgemm_elem_bytes(s) * (m * k + k * n) + 4.0 * c;
}

/* A, B, C and the initial C, on the device (bf16: A and B in BF16, and FP32 copies while the
 * reference is computed); on the host also the reference and its error scale. */
static uint64_t sgemm_mem_bytes(const reg_op *op, const reg_spec *s, int on_device)
{
    (void)op;
    uint64_t ak, kn, mn, sum, total;
    uint64_t m = (uint64_t)s->dims[M_], n = (uint64_t)s->dims[N_], k = (uint64_t)s->dims[K_];
    if (!tl_mul_u64(m, k, &ak) || !tl_mul_u64(k, n, &kn) || !tl_mul_u64(m, n, &mn)) return 0;
    /* bytes per element: device C, its initial value, reference and scale; host the same four. bf16 A
     * and B on the device: BF16 and FP32 scratch for the reference. */
    uint64_t cs = 4, ab = on_device && s->dtype == BF16 ? 6 : 4;
    if (!tl_add_u64(ak, kn, &sum) || !tl_mul_u64(sum, ab, &sum) || !tl_mul_u64(mn, cs * sizeof(float), &mn) ||
        !tl_add_u64(sum, mn, &total))
        return 0;
    return total;
}

/* ---- cuBLAS ------------------------------------------------------------------------------ */

/* Row-major C = A B is column-major C^T = B^T A^T: swap the operands and let the layouts pick the
 * transposes. */
static int cublas_gemm(reg_problem *p, float alpha, const float *a, const float *b, float beta, float *c,
                       cublasMath_t math, tl_err *e)
{
    cublasHandle_t h = p->ctx->cublas;
    int acol = p->s.layouts[OP_A] == REG_COL, bcol = p->s.layouts[OP_B] == REG_COL;
    cublasOperation_t opb = bcol ? CUBLAS_OP_T : CUBLAS_OP_N, opa = acol ? CUBLAS_OP_T : CUBLAS_OP_N;
    int ldb = bcol ? p->k : p->n, lda = acol ? p->m : p->k;
    CUBLAS_CHECK(cublasSetMathMode(h, math));
    CUBLAS_CHECK(cublasSgemm(h, opb, opa, p->n, p->m, p->k, &alpha, b, ldb, a, lda, &beta, c, p->n));
    return 0;
fail:
    return -1;
}

/* The same through cublasGemmEx: A and B of type ab, C FP32, computed as compute says. */
static int cublas_gemm_ex(reg_problem *p, cudaDataType ab, cublasComputeType_t compute, tl_err *e)
{
    cublasHandle_t h = p->ctx->cublas;
    int acol = p->s.layouts[OP_A] == REG_COL, bcol = p->s.layouts[OP_B] == REG_COL;
    cublasOperation_t opb = bcol ? CUBLAS_OP_T : CUBLAS_OP_N, opa = acol ? CUBLAS_OP_T : CUBLAS_OP_N;
    int ldb = bcol ? p->k : p->n, lda = acol ? p->m : p->k;
    CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    CUBLAS_CHECK(cublasGemmEx(h, opb, opa, p->n, p->m, p->k, &p->alpha, p->db, ab, ldb, p->da, ab, lda, &p->beta,
                              p->dc, CUDA_R_32F, p->n, compute, CUBLAS_GEMM_DEFAULT));
    return 0;
fail:
    return -1;
}

/* The bar, per dtype: f32 cuBLAS's default FP32 path, which never uses TF32 tensor cores; tf32 FP32
 * data with TF32 tensor cores; bf16 BF16 A and B, FP32 C and accumulation. */
static int cublas_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params;
    if (p->s.dtype == TF32) return cublas_gemm_ex(p, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, e);
    if (p->s.dtype == BF16) return cublas_gemm_ex(p, CUDA_R_16BF, CUBLAS_COMPUTE_32F, e);
    return cublas_gemm(p, p->alpha, p->da, p->db, p->beta, p->dc, CUBLAS_DEFAULT_MATH, e);
}

/* ---- host target ------------------------------------------------------------------------- */

static float host_a(const reg_problem *p, int i, int q)
{
    return p->s.layouts[OP_A] == REG_COL ? p->ha[(size_t)q * p->m + i] : p->ha[(size_t)i * p->k + q];
}

static float host_b(const reg_problem *p, int q, int j)
{
    return p->s.layouts[OP_B] == REG_COL ? p->hb[(size_t)j * p->k + q] : p->hb[(size_t)q * p->n + j];
}

/* The operands as the dtype multiplies them: tf32 rounds them, bf16 data are BF16 values already. */
static float mul_a(const reg_problem *p, int i, int q)
{
    return p->s.dtype == TF32 ? to_tf32(host_a(p, i, q)) : host_a(p, i, q);
}

static float mul_b(const reg_problem *p, int q, int j)
{
    return p->s.dtype == TF32 ? to_tf32(host_b(p, q, j)) : host_b(p, q, j);
}

static float epilogue(const reg_problem *p, float acc, size_t idx)
{
    return p->beta == 0.0f ? p->alpha * acc : p->alpha * acc + p->beta * p->hc[idx];
}

/* The textbook triple loop, FP32 accumulation. */
static int host_naive_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params, (void)e;
    for (int i = 0; i < p->m; i++)
        for (int j = 0; j < p->n; j++) {
            float acc = 0.0f;
            for (int q = 0; q < p->k; q++) acc += mul_a(p, i, q) * mul_b(p, q, j);
            p->hc[(size_t)i * p->n + j] = epilogue(p, acc, (size_t)i * p->n + j);
        }
    return 0;
}

/* i-k-j order: the inner loop streams a row of B and a row of C, which the cache likes. */
static int host_ikj_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e)
{
    (void)v;
    (void)params, (void)e;
    float *row = tl_xmalloc(sizeof *row * (size_t)p->n);
    for (int i = 0; i < p->m; i++) {
        memset(row, 0, sizeof *row * (size_t)p->n);
        for (int q = 0; q < p->k; q++) {
            float a = mul_a(p, i, q);
            for (int j = 0; j < p->n; j++) row[j] += a * mul_b(p, q, j);
        }
        for (int j = 0; j < p->n; j++) p->hc[(size_t)i * p->n + j] = epilogue(p, row[j], (size_t)i * p->n + j);
    }
    free(row);
    return 0;
}

/* ---- problem life cycle ------------------------------------------------------------------- */

static void sgemm_problem_free(reg_problem *p)
{
    if (!p) return;
    free(p->ha), free(p->hb), free(p->hc0), free(p->hc), free(p->href), free(p->hscale);
    if (p->dref) cudaFree(p->dref);
    if (p->dscale) cudaFree(p->dscale);
    if (p->dscratch) cudaFree(p->dscratch);
    if (p->da) cudaFree(p->da);
    if (p->db) cudaFree(p->db);
    if (p->dc) cudaFree(p->dc);
    if (p->dc0) cudaFree(p->dc0);
    free(p);
}

/* The host's inputs (bf16: rounded), made from the seed: the same values the device makes. */
static void host_inputs(reg_problem *p, uint16_t *a16, uint16_t *b16)
{
    const reg_spec *s = &p->s;
    p->ha = tl_xmalloc(p->na * sizeof(float));
    p->hb = tl_xmalloc(p->nb * sizeof(float));
    p->hc0 = tl_xmalloc(p->nc * sizeof(float));
    data_fill_f32(s->dist, p->ha, p->na, s->seed, 1);
    data_fill_f32(s->dist, p->hb, p->nb, s->seed, 2);
    data_fill_f32(s->dist, p->hc0, p->nc, s->seed, 3);
    if (s->dtype == BF16) { /* the data are the BF16 values: the host keeps them as floats (exact) */
        for (size_t i = 0; i < p->na; i++) {
            uint16_t h = to_bf16(p->ha[i]);
            if (a16) a16[i] = h;
            p->ha[i] = from_bf16(h);
        }
        for (size_t i = 0; i < p->nb; i++) {
            uint16_t h = to_bf16(p->hb[i]);
            if (b16) b16[i] = h;
            p->hb[i] = from_bf16(h);
        }
    }
}

/* A and B on the device as FP32 (fa, fb): the inputs themselves, or for bf16 new buffers with the BF16
 * values (made again: the rounding writes the same BF16 data into da and db). */
static int device_operands(reg_problem *p, float **fa, float **fb, tl_err *e)
{
    cudaStream_t st = p->ctx->stream;
    *fa = p->da, *fb = p->db;
    if (p->s.dtype != BF16) return 0;
    *fa = *fb = NULL;
    CUDA_CHECK(cudaMalloc((void **)fa, p->na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)fb, p->nb * sizeof(float)));
    if (p->ha) {
        CUDA_CHECK(cudaMemcpy(*fa, p->ha, p->na * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(*fb, p->hb, p->nb * sizeof(float), cudaMemcpyHostToDevice));
    } else {
        DEVICES_CHECK(tl_dev_fill_f32(*fa, p->na, p->s.dist, p->s.seed, 1, st));
        DEVICES_CHECK(tl_dev_fill_f32(*fb, p->nb, p->s.dist, p->s.seed, 2, st));
        DEVICES_CHECK(tl_dev_round_bf16(p->da, *fa, p->na, st));
        DEVICES_CHECK(tl_dev_round_bf16(p->db, *fb, p->nb, st));
    }
    return 0;
fail:
    if (*fa) cudaFree(*fa);
    if (*fb) cudaFree(*fb);
    *fa = *fb = NULL;
    return -1;
}

/* The device's A and B as the case starts (after device_operands' buffers were changed). */
static int restore_operands(reg_problem *p, float *fa, float *fb, tl_err *e)
{
    cudaStream_t st = p->ctx->stream;
    if (p->s.dtype == BF16) {
        CUDA_CHECK(cudaFree(fa));
        CUDA_CHECK(cudaFree(fb));
    } else if (p->ha) {
        CUDA_CHECK(cudaMemcpy(p->da, p->ha, p->na * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(p->db, p->hb, p->nb * sizeof(float), cudaMemcpyHostToDevice));
    } else {
        DEVICES_CHECK(tl_dev_fill_f32(p->da, p->na, p->s.dist, p->s.seed, 1, st));
        DEVICES_CHECK(tl_dev_fill_f32(p->db, p->nb, p->s.dist, p->s.seed, 2, st));
    }
    return 0;
fail:
    return -1;
}

/* On the device, inputs the device can make are made there (nothing crosses the bus); the host makes
 * the others (normal) and copies them up. */
static int sgemm_problem_new(const reg_op *op, reg_problem **out, const reg_spec *s, const reg_ctx *ctx,
                             int on_device, tl_err *e)
{
    (void)op;
    reg_problem *p = tl_xcalloc(1, sizeof *p);
    p->s = *s;
    p->ctx = ctx;
    p->on_device = on_device;
    p->m = (int)s->dims[M_], p->n = (int)s->dims[N_], p->k = (int)s->dims[K_];
    p->alpha = (float)s->args[ALPHA], p->beta = (float)s->args[BETA];
    p->na = (size_t)p->m * p->k, p->nb = (size_t)p->k * p->n, p->nc = (size_t)p->m * p->n;
    uint16_t *a16 = NULL, *b16 = NULL;
    if (!on_device || !tl_dev_can_fill(s->dist)) {
        if (on_device && s->dtype == BF16)
            a16 = tl_xmalloc(p->na * sizeof *a16), b16 = tl_xmalloc(p->nb * sizeof *b16);
        host_inputs(p, a16, b16);
    }
    if (!on_device) {
        p->hc = tl_xmalloc(p->nc * sizeof(float));
        memcpy(p->hc, p->hc0, p->nc * sizeof(float));
        *out = p;
        return 0;
    }
    size_t es = (size_t)sgemm_elem_bytes(s);
    cudaStream_t st = ctx->stream;
    CUDA_CHECK(cudaMalloc(&p->da, p->na * es));
    CUDA_CHECK(cudaMalloc(&p->db, p->nb * es));
    CUDA_CHECK(cudaMalloc((void **)&p->dc, p->nc * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&p->dc0, p->nc * sizeof(float)));
    if (p->ha) {
        CUDA_CHECK(cudaMemcpy(p->da, a16 ? (void *)a16 : p->ha, p->na * es, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(p->db, b16 ? (void *)b16 : p->hb, p->nb * es, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(p->dc0, p->hc0, p->nc * sizeof(float), cudaMemcpyHostToDevice));
    } else {
        if (s->dtype == BF16) { /* rounded through FP32 buffers, which go again */
            float *fa, *fb;
            if (device_operands(p, &fa, &fb, e) || restore_operands(p, fa, fb, e)) goto fail;
        } else {
            DEVICES_CHECK(tl_dev_fill_f32(p->da, p->na, s->dist, s->seed, 1, st));
            DEVICES_CHECK(tl_dev_fill_f32(p->db, p->nb, s->dist, s->seed, 2, st));
        }
        DEVICES_CHECK(tl_dev_fill_f32(p->dc0, p->nc, s->dist, s->seed, 3, st));
    }
    CUDA_CHECK(cudaMemcpyAsync(p->dc, p->dc0, p->nc * sizeof(float), cudaMemcpyDeviceToDevice, st));
    CUDA_CHECK(cudaStreamSynchronize(st));
    free(a16), free(b16);
    *out = p;
    return 0;
fail:
    free(a16), free(b16);
    sgemm_problem_free(p);
    return -1;
}

/* Double-precision reference and error scale on the host: O(mnk), meant for small sizes. */
static void reference_host(reg_problem *p)
{
    double aa = fabs((double)p->alpha), ab = fabs((double)p->beta);
    for (int i = 0; i < p->m; i++)
        for (int j = 0; j < p->n; j++) {
            double acc = 0.0, mag = 0.0;
            for (int q = 0; q < p->k; q++) {
                double x = (double)host_a(p, i, q) * host_b(p, q, j);
                acc += x;
                mag += fabs(x);
            }
            size_t idx = (size_t)i * p->n + j;
            double c0 = p->hc0[idx];
            p->href[idx] = (float)(p->alpha * acc + (p->beta != 0.0f ? p->beta * c0 : 0.0));
            p->hscale[idx] = (float)(aa * mag + ab * fabs(c0));
        }
}

/* cuBLAS in pedantic FP32 (never TF32) on the FP32 values of the inputs (for bf16, the BF16 values as
 * FP32, in scratch buffers), kept on the device. The error scale |alpha||A||B| + |beta||C| is one more
 * product, of the absolute values, made in the same buffers, which are then made again. */
static int reference_cublas(reg_problem *p, tl_err *e)
{
    float *fa = NULL, *fb = NULL;
    cudaStream_t st = p->ctx->stream;
    if (!p->on_device) {
        tl_err_set(e, "the cublas reference needs a GPU; use reference: host");
        return -1;
    }
    if (device_operands(p, &fa, &fb, e)) return -1;
    CUDA_CHECK(cudaMemcpyAsync(p->dc, p->dc0, p->nc * sizeof(float), cudaMemcpyDeviceToDevice, st));
    if (cublas_gemm(p, p->alpha, fa, fb, p->beta, p->dc, CUBLAS_PEDANTIC_MATH, e)) goto fail;
    CUDA_CHECK(cudaMemcpyAsync(p->dref, p->dc, p->nc * sizeof(float), cudaMemcpyDeviceToDevice, st));
    DEVICES_CHECK(tl_dev_abs_f32(fa, p->na, st));
    DEVICES_CHECK(tl_dev_abs_f32(fb, p->nb, st));
    CUDA_CHECK(cudaMemcpyAsync(p->dscale, p->dc0, p->nc * sizeof(float), cudaMemcpyDeviceToDevice, st));
    DEVICES_CHECK(tl_dev_abs_f32(p->dscale, p->nc, st));
    if (cublas_gemm(p, fabsf(p->alpha), fa, fb, fabsf(p->beta), p->dscale, CUBLAS_PEDANTIC_MATH, e)) goto fail;
    if (restore_operands(p, fa, fb, e)) return -1;
    CUDA_CHECK(cudaStreamSynchronize(st));
    return 0;
fail:
    if (p->s.dtype == BF16) cudaFree(fa), cudaFree(fb);
    return -1;
}

static int sgemm_reference(reg_problem *p, const char *name, tl_err *e)
{
    if (p->on_device) {
        if (!p->dref) CUDA_CHECK(cudaMalloc((void **)&p->dref, p->nc * sizeof(float)));
        if (!p->dscale) CUDA_CHECK(cudaMalloc((void **)&p->dscale, p->nc * sizeof(float)));
        if (!p->dscratch) CUDA_CHECK(cudaMalloc(&p->dscratch, 32));
    }
    if (strcmp(name, "host")) return reference_cublas(p, e);
    if (!p->ha) host_inputs(p, NULL, NULL);
    if (!p->href) p->href = tl_xmalloc(p->nc * sizeof(float));
    if (!p->hscale) p->hscale = tl_xmalloc(p->nc * sizeof(float));
    reference_host(p);
    if (p->on_device) { /* verification is on the device */
        CUDA_CHECK(cudaMemcpy(p->dref, p->href, p->nc * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(p->dscale, p->hscale, p->nc * sizeof(float), cudaMemcpyHostToDevice));
    }
    return 0;
fail:
    return -1;
}

static int sgemm_reset_output(reg_problem *p, int poison, tl_err *e)
{
    /* With beta == 0 C is write-only: poison it so that an unwritten element shows as NaN. */
    int nan_fill = poison && p->beta == 0.0f;
    if (!p->on_device) {
        if (nan_fill) memset(p->hc, 0xff, p->nc * sizeof(float));
        else if (p->beta != 0.0f) memcpy(p->hc, p->hc0, p->nc * sizeof(float));
        return 0;
    }
    cudaStream_t st = p->ctx->stream;
    if (nan_fill) CUDA_CHECK(cudaMemsetAsync(p->dc, 0xff, p->nc * sizeof(float), st));
    else if (p->beta != 0.0f) CUDA_CHECK(cudaMemcpyAsync(p->dc, p->dc0, p->nc * sizeof(float), cudaMemcpyDeviceToDevice, st));
    return 0;
fail:
    return -1;
}

static int sgemm_kernel_args(reg_problem *p, void **argv, int max)
{
    if (max < 8) return -1;
    void *args[] = {&p->m, &p->n, &p->k, &p->alpha, &p->da, &p->db, &p->beta, &p->dc};
    memcpy(argv, args, sizeof args);
    return 8;
}

static int sgemm_inputs(reg_problem *p, reg_input *in, int max)
{
    if (max < 2) return -1;
    int elem = p->on_device && p->s.dtype == BF16 ? 2 : 4;
    in[0] = (reg_input){"A", p->on_device ? p->da : (void *)p->ha, p->na * (size_t)elem, elem};
    in[1] = (reg_input){"B", p->on_device ? p->db : (void *)p->hb, p->nb * (size_t)elem, elem};
    return 2; /* C, read where beta != 0, is put back before every run */
}

/* A (M x K) and B (K x N) as stored: row-major A has M rows of K, column-major A K rows of M. */
static int sgemm_operand_tensor(const reg_problem *p, int i, reg_tensor *t)
{
    if (!p->on_device || i < 0 || i > 1) return -1;
    int col = p->s.layouts[i] == REG_COL;
    uint64_t rows = (uint64_t)(i == 0 ? p->m : p->k), cols = (uint64_t)(i == 0 ? p->k : p->n);
    t->ptr = i == 0 ? p->da : p->db;
    t->elem = p->s.dtype == BF16 ? REG_ELEM_BF16 : REG_ELEM_F32;
    t->inner = col ? rows : cols;
    t->outer = col ? cols : rows;
    t->row_bytes = t->inner * (p->s.dtype == BF16 ? 2 : 4);
    return 0;
}

/* On the device the comparison runs there; output, reference and scale come to the host only when an
 * element failed, for the host's account of the first mismatches (the same verdict, by construction). */
static int sgemm_check_output(reg_problem *p, const reg_tolerance *t, reg_verify *v, tl_err *e)
{
    if (p->on_device) {
        tl_dev_verdict d;
        DEVICES_CHECK(tl_dev_verify_f32(p->dc, p->dref, p->dscale, p->nc, t->atol, t->rtol, p->dscratch, &d,
                                    p->ctx->stream));
        if (d.bad == 0) {
            memset(v, 0, sizeof *v);
            v->ok = 1, v->max_abs_err = d.max_abs_err, v->max_rel_err = d.max_rel_err;
            return 0;
        }
        if (!p->hc) p->hc = tl_xmalloc(p->nc * sizeof(float));
        if (!p->href) p->href = tl_xmalloc(p->nc * sizeof(float));
        if (!p->hscale) p->hscale = tl_xmalloc(p->nc * sizeof(float));
        CUDA_CHECK(cudaMemcpy(p->hc, p->dc, p->nc * sizeof(float), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(p->href, p->dref, p->nc * sizeof(float), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(p->hscale, p->dscale, p->nc * sizeof(float), cudaMemcpyDeviceToHost));
    }
    verify_f32(p->hc, p->href, p->hscale, p->nc, t, v);
    return 0;
fail:
    return -1;
}

/* ---- the variants, in the ladder's order: one entry a rung --------------------------------------------- */

#define ALL_DTYPES 0x7u
#define PARAMS(list) .params = list, .nparams = (int)(sizeof list / sizeof *list)
#define RULES(list) .rules = list
/* CuTe's rungs: a block a BM x BN tile of C, THREADS threads; the blocked ones' pipeline in dynamic smem. */
#define CUTE_LAUNCH {.grid = {"ceil_div(m, BM)", "ceil_div(n, BN)"}, .block = {"THREADS"}}
#define CUTE_BLOCKED_LAUNCH                                                                                 \
    {.grid = {"ceil_div(m, BM)", "ceil_div(n, BN)"}, .block = {"THREADS"}, .smem = SGEMM_CUTE_BLOCKED_SMEM}

static const reg_variant sgemm_variants[] = {
    {.name = "naive", .summary = "one thread per element of C; threadIdx.x walks rows (uncoalesced)",
     .kind = REG_NVRTC, .source = "sgemm/01_naive.cu", .entry = "sgemm_naive", PARAMS(sgemm_naive_params),
     RULES(sgemm_naive_rules), .constraints = "n / BY at most 65535 blocks",
     .check = sgemm_check_naive, .launch = {.grid = {"ceil_div(m, BX)", "ceil_div(n, BY)"}, .block = {"BX", "BY"}}},
    {.name = "gmem_coalesced", .summary = "consecutive threads own consecutive columns of C (coalesced)",
     .kind = REG_NVRTC, .source = "sgemm/02_gmem_coalesced.cu", .entry = "sgemm_gmem_coalesced",
     PARAMS(sgemm_blocksize_params), RULES(sgemm_blocksize_rules),
     .constraints = "n / BLOCKSIZE at most 65535 blocks", .check = sgemm_check_coalesced,
     .launch = {.grid = {"ceil_div(m, BLOCKSIZE)", "ceil_div(n, BLOCKSIZE)"}, .block = {"BLOCKSIZE * BLOCKSIZE"}}},
    {.name = "smem_tile", .summary = "BLOCKSIZE x BLOCKSIZE tiles of A and B staged in shared memory",
     .kind = REG_NVRTC, .source = "sgemm/03_smem_tile.cu", .entry = "sgemm_smem_tile", PARAMS(sgemm_blocksize_params),
     RULES(sgemm_blocksize_rules), .constraints = "m / BLOCKSIZE at most 65535 blocks",
     .check = sgemm_check_smem,
     .launch = {.grid = {"ceil_div(n, BLOCKSIZE)", "ceil_div(m, BLOCKSIZE)"}, .block = {"BLOCKSIZE * BLOCKSIZE"}}},
    {.name = "blocktile_1d", .summary = "TM results per thread (a column): each B load feeds TM FMAs",
     .kind = REG_NVRTC, .source = "sgemm/04_blocktile_1d.cu", .entry = "sgemm_blocktile_1d", PARAMS(sgemm_p04),
     RULES(sgemm_rules04), .constraints = TILED_CONSTRAINTS, .check = sgemm_check04,
     .geometry = sgemm_geometry04},
    {.name = "blocktile_2d", .summary = "TM x TN results per thread: (TM+TN) shared loads per TM*TN FMAs",
     .kind = REG_NVRTC, .source = "sgemm/05_blocktile_2d.cu", .entry = "sgemm_blocktile_2d", PARAMS(sgemm_p05),
     RULES(sgemm_rules05), .constraints = TILED_CONSTRAINTS, .check = sgemm_check05,
     .geometry = sgemm_geometry05},
    {.name = "vectorized", .summary = "16-byte global and shared loads, A transposed in shared memory",
     .kind = REG_NVRTC, .source = "sgemm/06_vectorized.cu", .entry = "sgemm_vectorized", PARAMS(sgemm_p05),
     RULES(sgemm_rules06), .constraints = TILED_CONSTRAINTS, .check = sgemm_check06,
     .geometry = sgemm_geometry06},
    {.name = "bank_padding", .summary = "tile rows padded by PAD floats: the transposing store is conflict-free",
     .kind = REG_NVRTC, .source = "sgemm/07_bank_padding.cu", .entry = "sgemm_bank_padding", PARAMS(sgemm_p07),
     RULES(sgemm_rules07), .constraints = TILED_CONSTRAINTS, .check = sgemm_check07,
     .geometry = sgemm_geometry07},
    {.name = "bank_swizzle", .summary = "XOR-swizzled tiles instead of padding: conflict-free, no extra smem",
     .kind = REG_NVRTC, .source = "sgemm/08_bank_swizzle.cu", .entry = "sgemm_bank_swizzle", PARAMS(sgemm_p05),
     RULES(sgemm_rules08), .constraints = TILED_CONSTRAINTS, .check = sgemm_check08,
     .geometry = sgemm_geometry08},
    {.name = "double_buffer", .summary = "cp.async, STAGES tiles in flight: loads overlap the FMAs",
     .kind = REG_NVRTC, .source = "sgemm/09_double_buffer.cu", .entry = "sgemm_double_buffer", PARAMS(sgemm_p09),
     RULES(sgemm_rules09), .constraints = TILED_CONSTRAINTS, .check = sgemm_check09,
     .geometry = sgemm_geometry09},
    {.name = "warptile", .summary = "warp-level tiles (WM x WN, WNITER): conflict-free fragment loads",
     .kind = REG_NVRTC, .source = "sgemm/10_warptile.cu", .entry = "sgemm_warptile", PARAMS(sgemm_p10),
     RULES(sgemm_rules10), .constraints = TILED_CONSTRAINTS, .check = sgemm_check10,
     .geometry = sgemm_geometry10},
    {.name = "hopper", .summary = "warptile for sm_90: deep pipeline, fragment double buffering, swizzle, raster",
     .kind = REG_NVRTC, .source = "sgemm/11_hopper.cu", .entry = "sgemm_hopper", PARAMS(sgemm_p11),
     .nid_params = P11_TLDG /* TLDG, SKPAR, KMAJ, GRID, SK, XPF and EDGE came later */,
     RULES(sgemm_hopper_rules),
     .constraints = "with KMAJ, the k-major tiles' shared memory <= 227 KiB; SKPAR's workspace (SPLITK x C padded to "
                    "the tiles) and SK's (BM x BN floats a slice) under 2^31 floats; with SPLITK > 1 at most 65536 "
                    "tiles of C; matrices under 2^31 elements",
     .workspace = sgemm_workspace11, .check = sgemm_check11, .geometry = sgemm_geometry11},
    {.name = "packed", .summary = "hopper on A and B packed first into a workspace: column-major A, row-major B, "
                                  "zero-padded to whole tiles (odd sizes, k-contiguous operands)",
     .kind = REG_NVRTC, .source = "sgemm/15_packed.cu", .entry = "sgemm_packed", .entry2 = "sgemm_pack",
     .entry2_first = 1, PARAMS(sgemm_p15), .nid_params = P15_GRID /* GRID, SK, XPF, SKPAR, KEEP, TLDG and EDGE came later */,
     RULES(sgemm_packed_rules), .workspace = sgemm_workspace15,
     .constraints = "as hopper's; workspace at most 4 KP (MP + NP) bytes (an operand read in place takes none); "
                    "KEEP: the kept operand tile-aligned (M or N a multiple of BM or BN, K of 32 and BK); TLDG: only "
                    "with KEEP, for a kept operand contiguous along k",
     .check = sgemm_check15, .geometry = sgemm_geometry15, .geometry2 = sgemm_geometry15_pack},
    {.name = "skinny", .summary = "few rows or columns of C (m or n <= 64): the large operand read once at DRAM "
                                  "speed, any sizes and layouts, k split in slices added in order",
     .kind = REG_NVRTC, .source = "sgemm/16_skinny.cu", .entry = "sgemm_skinny", PARAMS(sgemm_p16),
     .nid_params = P16_SPT /* SPT, MINB, STAGES and KMAJ came later */, RULES(sgemm_skinny_rules),
     .workspace = sgemm_workspace16,
     .constraints = "the small side (m at SIDE 0, n at SIDE 1) at most SMAX; KMAJ: a large operand contiguous along "
                    "k; STAGES 0: two chunks within 48 KiB (SMAX 32 needs SPT x LPT >= 16); shared memory <= 227 KiB; "
                    "SLICES > 1: at most 65536 blocks along the large side, a workspace of 4 x 256 x min(SMAX, SPT) "
                    "x LPT bytes a block",
     .check = sgemm_check16, .geometry = sgemm_geometry16},
    {.name = "mma_sync", .summary = "tensor cores (tf32, bf16): warp mma.sync 16x8 tiles, ldmatrix fragments, cp.async multistage",
     .kind = REG_NVRTC, .source = "sgemm/12_mma_sync.cu", .entry = "sgemm_mma_sync", PARAMS(sgemm_p12),
     RULES(sgemm_mma_sync_rules), .dtypes = (1u << TF32) | (1u << BF16),
     .constraints = "BK a multiple of 8 (tf32) / 16 (bf16), BM, BN and BK of the elements in 16 bytes; smem <= 227 KiB",
     .check = sgemm_check12, .geometry = sgemm_geometry12},
    {.name = "wgmma", .summary = "tensor cores (tf32, bf16) on sm_90a: warpgroup MMA from swizzled smem, cp.async "
                                 "multistage (CuTe)",
     .kind = REG_NVRTC, .source = "sgemm/13_wgmma.cu", .entry = "sgemm_wgmma", PARAMS(sgemm_p13),
     RULES(sgemm_wgmma_rules), .dtypes = (1u << TF32) | (1u << BF16), .arch_specific = 1,
     .constraints = "BK rows of 32-byte multiples; the copy threads tile BM x BK and BN x BK; smem <= 227 KiB; "
                    "Hopper only (sm_90a)",
     .check = sgemm_check13, .geometry = sgemm_geometry13},
    {.name = "wgmma_tma", .summary = "tensor cores (tf32, bf16) on sm_90a: wgmma fed by TMA, a producer warpgroup "
                                     "and an mbarrier ring (warp-specialised)",
     .kind = REG_NVRTC, .source = "sgemm/14_wgmma_tma.cu", .entry = "sgemm_wgmma_tma", PARAMS(sgemm_p14),
     RULES(sgemm_wgmma_tma_rules), .dtypes = (1u << TF32) | (1u << BF16), .arch_specific = 1,
     .constraints = "wgmma's M tile (BM; BN for TF32 NN) 64, 128 or 256, the other 64..256 by 64; BM x BN <= 32768; "
                    "BK rows of 128-byte multiples; smem <= 227 KiB; Hopper only (sm_90a)",
     .check = sgemm_check14, .geometry = sgemm_geometry14},
    {.name = "tf32x3", .summary = "FP32 on the tensor cores (sm_90a): each operand split in TF32 hi and lo parts, "
                                  "three wgmma products (3xTF32), FP32 accumulation; B (and A unless read in place) split "
                                  "into a workspace first",
     .kind = REG_NVRTC, .source = "sgemm/17_tf32x3.cu", .entry = "sgemm_tf32x3", .entry2 = "sgemm_tf32x3_split",
     .entry2_first = 1, PARAMS(sgemm_p17), .nid_params = X3_SPLITK /* SPLITK, AIN, SWAP and WAVE came later */,
     RULES(sgemm_tf32x3_rules), .arch_specific = 1, .workspace = sgemm_workspace17,
     .constraints = "dtype f32; with SPLITK > 1 its parts under 2^31 floats; workspace 4 KP (MP + 2 NP) bytes, 4 KP 2 NP "
                    "with A in place (sides rounded up to BM, BN and 32; with SWAP, of C^T = B^T A^T); Hopper only "
                    "(sm_90a)",
     .check = sgemm_check17, .geometry = sgemm_geometry17, .geometry2 = sgemm_geometry17_split},
    {.name = "cute_naive", .summary = "CuTe (seed 003, row 1): local_partition element copies to smem, cute::gemm",
     .kind = REG_NVRTC, .source = "sgemm/20_cute_naive.cu", .entry = "sgemm_cute_naive", PARAMS(sgemm_p20),
     RULES(sgemm_cute_rules), .constraints = CUTE_CONSTRAINTS, .check = sgemm_check20,
     .launch = CUTE_LAUNCH},
    {.name = "cute_tiledcopy", .summary = "CuTe (seed 003, row 2): 128-bit TiledCopy of the tiles through registers",
     .kind = REG_NVRTC, .source = "sgemm/21_cute_tiledcopy.cu", .entry = "sgemm_cute_tiledcopy", PARAMS(sgemm_p20),
     RULES(sgemm_cute_vec_rules), .constraints = CUTE_VEC_CONSTRAINTS, .check = sgemm_check21,
     .launch = CUTE_LAUNCH},
    {.name = "cute_cp_async", .summary = "CuTe (seed 003, row 2): the 128-bit copies as cp.async, no register trip",
     .kind = REG_NVRTC, .source = "sgemm/22_cute_cp_async.cu", .entry = "sgemm_cute_cp_async", PARAMS(sgemm_p20),
     RULES(sgemm_cute_vec_rules), .constraints = CUTE_VEC_CONSTRAINTS, .check = sgemm_check21,
     .launch = CUTE_LAUNCH},
    {.name = "cute_swizzle", .summary = "CuTe (seed 003, row 3): swizzled (or padded) shared tiles against bank conflicts",
     .kind = REG_NVRTC, .source = "sgemm/23_cute_swizzle.cu", .entry = "sgemm_cute_swizzle", PARAMS(sgemm_p23),
     RULES(sgemm_cute_swizzle_rules), .constraints = CUTE_VEC_CONSTRAINTS,
     .check = sgemm_check23, .launch = CUTE_LAUNCH},
    {.name = "cute_threads_bk", .summary = "CuTe (seed 003, rows 4-5): 256 threads, BK 32, explicit register blocks",
     .kind = REG_NVRTC, .source = "sgemm/24_cute_threads_bk.cu", .entry = "sgemm_cute_threads_bk", PARAMS(sgemm_p24),
     RULES(sgemm_cute_blocked_rules), .constraints = CUTE_BLOCKED_CONSTRAINTS,
     .check = sgemm_check24, .launch = CUTE_BLOCKED_LAUNCH},
    {.name = "cute_pipeline", .summary = "CuTe (seed 003, row 6): cute_threads_bk with STAGES tiles in flight (cp.async)",
     .kind = REG_NVRTC, .source = "sgemm/25_cute_pipeline.cu", .entry = "sgemm_cute_pipeline", PARAMS(sgemm_p25),
     RULES(sgemm_cute_blocked_rules), .constraints = CUTE_BLOCKED_CONSTRAINTS,
     .check = sgemm_check24, .launch = CUTE_BLOCKED_LAUNCH},
    {.name = "tuned", .summary = "dispatches: per problem, the rung and params that a table measured on the device "
                                 "picks (runner/ops/dispatch.h; `table:` names another: a file of the experiment's folder, or one the "
                                 "runner carries, tilelab:sgemm/tuned_h200.table), the fastest of the candidates it "
                                 "ranks first, timed on the problem (`trials:`, default 8; 1: the table's pick)",
     .kind = REG_NVRTC, .table = "sgemm/tuned_h100.table", .dtypes = ALL_DTYPES,
     .constraints = "those of the rung the table picks; a problem no rung of the table takes is skipped"},
    {.name = "cublas", .summary = "the bar: f32 cublasSgemm, default math (no TF32); tf32 and bf16 cublasGemmEx with "
                                  "TF32 tensor cores / BF16 inputs, FP32 compute",
     .kind = REG_LIBRARY, .run = cublas_run, .dtypes = ALL_DTYPES},
    {.name = "wrong_for_tests", .summary = "deliberately wrong (drops the last k): verification must fail",
     .kind = REG_NVRTC, .source = "sgemm/99_wrong_for_tests.cu", .entry = "sgemm_wrong_for_tests",
     .check = sgemm_check_wrong, .geometry = sgemm_geometry_wrong, .test_only = 1},
    {.name = "host_naive", .summary = "C triple loop i-j-k, FP32 accumulation (host target)",
     .kind = REG_HOST, .run = host_naive_run, .dtypes = ALL_DTYPES},
    {.name = "host_ikj", .summary = "C loops in i-k-j order, row of C accumulated in place (host target)",
     .kind = REG_HOST, .run = host_ikj_run, .dtypes = ALL_DTYPES},
};

static const char *const sgemm_axes[] = {"m", "n", "k"};
static const char *const sgemm_operands[] = {"a", "b"};
static const reg_arg sgemm_args[] = {{"alpha", 1.0, NULL}, {"beta", 0.0, "TL_BETA_NONZERO"}};
static const char *const sgemm_dtypes[] = {"f32", "tf32", "bf16"};
static const char *const sgemm_dtype_docs[] = {
    "A, B, C FP32; FP32-accurate products: FP32 multiply-adds (the SIMT ladder) or three TF32 products (tf32x3)",
    ("A, B, C FP32 in memory; A and B rounded to TF32 (10 fraction bits) for the multiply (tensor cores), "
     "FP32 accumulation"),
    "A and B BF16 in memory (the FP32 data rounded to nearest even), C FP32; FP32 accumulation",
};
/* f32: FP32 accumulation of FP32 products. tf32: each operand rounded to TF32 is within 2^-10 of
 * itself (truncated; 2^-11 rounded), so each product within 2^-9 + 2^-20 of the exact one: 2^-9 more
 * on top of f32's. bf16: the data are the BF16 values, whose products FP32 holds exactly (8 + 8
 * significant bits): f32's. atol keeps exact zeros of the scale from demanding an exact result. */
static const reg_tolerance sgemm_dtype_tol[] = {
    {.rtol = 1e-5, .atol = 1e-6},
    {.rtol = 1e-5 + 0x1p-9, .atol = 1e-6},
    {.rtol = 1e-5, .atol = 1e-6},
};
static const char *const sgemm_references[] = {"cublas", "host"};

/* The order sgemm_kernel_args passes them in. */
static const reg_karg sgemm_kargs[] = {
    {"int", "M", 'i', "rows of A and C"},
    {"int", "N", 'i', "columns of B and C"},
    {"int", "K", 'i', "columns of A, rows of B"},
    {"float", "alpha", 'f', "C = alpha A B + beta C"},
    {"const float *", "A", 'p', "M x K; row-major A[i*K + p] (leading dimension K), or with A_COL = 1 column-major "
                               "A[p*M + i] (leading dimension M); with dtype bf16 its elements are __nv_bfloat16"},
    {"const float *", "B", 'p', "K x N; row-major B[p*N + j] (leading dimension N), or with B_COL = 1 column-major "
                               "B[j*K + p] (leading dimension K); with dtype bf16 its elements are __nv_bfloat16"},
    {"float", "beta", 'f', "with beta == 0, C is write-only: it holds NaN before the verified run (BLAS semantics)"},
    {"float *", "C", 'p', "M x N, row-major C[i*N + j] (leading dimension N)"},
};
#define SGEMM_KERNEL_DOC                                                                                   \
    "the runner defines A_COL=0|1 B_COL=0|1 (the YAML's layout), TL_DTYPE_F32|TF32|BF16=1 (its dtype), " \
    "TL_BETA_NONZERO=0|1 (whether the case's beta is not 0: a hint, the kernel still gets beta) "         \
    "and each param (#define NAME value, before the source); M, N, K "                                                                 \
    "are any sizes >= 1, so a kernel checks its edges (kernels/sgemm/sgemm_common.cuh shows A_AT and B_AT)"

const reg_op sgemm_op = {
    .name = "sgemm",
    .summary = "C = alpha A B + beta C, FP32 accumulation (f32, tf32 or bf16 inputs); C row-major, A and B row- or "
               "column-major",
    .axes = sgemm_axes, .naxes = 3,
    .operands = sgemm_operands, .noperands = 2,
    .args = sgemm_args, .nargs = 2,
    .dtypes = sgemm_dtypes, .ndtypes = 3, .dtype_docs = sgemm_dtype_docs, .dtype_tol = sgemm_dtype_tol,
    .references = sgemm_references, .nreferences = 2,
    .host_reference = "host",
    .tol = {.rtol = 1e-5, .atol = 1e-6},
    .tol_exact = {.rtol = 0.0, .atol = 0.0},
    .tol_doc = "|got - want| <= atol + rtol * (|alpha| (|A||B|)_ij + |beta| |C_ij|), want from the FP32 (bf16: "
               "BF16) inputs; tf32 adds 2^-9 (each operand within 2^-10 when rounded to TF32)",
    .variants = sgemm_variants, .nvariants = sizeof sgemm_variants / sizeof *sgemm_variants,
    .kargs = sgemm_kargs, .nkargs = sizeof sgemm_kargs / sizeof *sgemm_kargs,
    .kernel_doc = SGEMM_KERNEL_DOC,
    .flop = sgemm_flop, .bytes = sgemm_bytes, .mem_bytes = sgemm_mem_bytes,
    .problem_new = sgemm_problem_new, .problem_free = sgemm_problem_free,
    .reference = sgemm_reference, .reset_output = sgemm_reset_output,
    .kernel_args = sgemm_kernel_args, .inputs = sgemm_inputs, .check_output = sgemm_check_output,
    .operand_tensor = sgemm_operand_tensor,
    .dispatch = &sgemm_dispatch_model,
};
