/* sgemm: C = alpha * A * B + beta * C with FP32 accumulation, C row-major, A and B row- or column-major;
 * dtype f32 (FP32 SIMT), tf32 (FP32 data, TF32 multiply: tensor cores) or bf16 (BF16 A and B).
 * The op's registry: variants, params, constraints, launch geometry, flop/byte model, data, the
 * host references and the cuBLAS calls. */
#include <cublas_v2.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cuda_check.h"
#include "runner/data.h"
#include "runner/data_gen.h"
#include "runner/devdata.h"
#include "runner/registry.h"
#include "runner/verify.h"

enum { M_, N_, K_ };     /* axes */
enum { OP_A, OP_B };     /* operands with a layout */
enum { ALPHA, BETA };    /* args */
enum { F32, TF32, BF16 }; /* dtypes, in the order of sgemm_dtypes */
#define ALL_DTYPES 0x7u
#define MAX_ELEMS 2147483647LL /* the kernels index with 32-bit ints */

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
#define DEV_CHECK(call) CUDA_CHECK((cudaError_t)(call))

/* ---- dtypes ------------------------------------------------------------------------------ */

#define to_bf16 tl_to_bf16     /* runner/data_gen.h: the device rounds the same way */
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

static size_t ab_size(const reg_spec *s)
{
    return s->dtype == BF16 ? 2 : 4;
}

/* ---- model ------------------------------------------------------------------------------ */

static double sgemm_flop(const reg_spec *s)
{
    return 2.0 * (double)s->dims[M_] * (double)s->dims[N_] * (double)s->dims[K_];
}

static double sgemm_bytes(const reg_spec *s)
{
    double m = (double)s->dims[M_], n = (double)s->dims[N_], k = (double)s->dims[K_];
    double c = s->args[BETA] != 0.0 ? 2.0 * m * n : m * n; /* C read too when beta != 0 */
    return (double)ab_size(s) * (m * k + k * n) + 4.0 * c;
}

/* A, B, C and the initial C, on the device (bf16: A and B in BF16, and FP32 copies while the
 * reference is computed); on the host also the reference and its error scale. */
static uint64_t sgemm_mem_bytes(const reg_spec *s, int on_device)
{
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

static int fits_int(const reg_spec *s, char *why, size_t n)
{
    long long m = s->dims[M_], nn = s->dims[N_], k = s->dims[K_];
    if (m * k > MAX_ELEMS || k * nn > MAX_ELEMS || m * nn > MAX_ELEMS) {
        snprintf(why, n, "a matrix has more than 2^31-1 elements (the kernels index with int)");
        return 0;
    }
    return 1;
}

static unsigned ceil_div(int64_t a, long b)
{
    return (unsigned)((a + b - 1) / b);
}

/* ---- 01_naive --------------------------------------------------------------------------- */

static const reg_param naive_params[] = {
    {"BX", 32, "threads per block along M (threadIdx.x walks rows of C)"},
    {"BY", 32, "threads per block along N"},
};

static int naive_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    if (p[0] < 1 || p[1] < 1 || p[0] * p[1] > 1024)
        return snprintf(why, n, "BX * BY = %ld is not 1 .. 1024 threads", p[0] * p[1]), 0;
    if (ceil_div(s->dims[N_], p[1]) > 65535)
        return snprintf(why, n, "n / BY needs more than 65535 blocks in y"), 0;
    return fits_int(s, why, n);
}

static void naive_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    *l = (reg_launch){{ceil_div(s->dims[M_], p[0]), ceil_div(s->dims[N_], p[1]), 1}, {(unsigned)p[0], (unsigned)p[1], 1}, 0};
}

/* ---- 02_gmem_coalesced, 03_smem_tile ------------------------------------------------------ */

static const reg_param blocksize_params[] = {
    {"BLOCKSIZE", 32, "tile edge: BLOCKSIZE x BLOCKSIZE threads, one element of C each"},
};

static int blocksize_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    if (p[0] < 1 || p[0] > 32) return snprintf(why, n, "BLOCKSIZE = %ld is not 1 .. 32", p[0]), 0;
    return fits_int(s, why, n);
}

static int coalesced_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    if (!blocksize_check(p, s, why, n)) return 0;
    if (ceil_div(s->dims[N_], p[0]) > 65535) return snprintf(why, n, "n / BLOCKSIZE needs more than 65535 blocks in y"), 0;
    return 1;
}

static void coalesced_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    *l = (reg_launch){{ceil_div(s->dims[M_], p[0]), ceil_div(s->dims[N_], p[0]), 1}, {(unsigned)(p[0] * p[0]), 1, 1}, 0};
}

static int smem_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    if (!blocksize_check(p, s, why, n)) return 0;
    if (ceil_div(s->dims[M_], p[0]) > 65535) return snprintf(why, n, "m / BLOCKSIZE needs more than 65535 blocks in y"), 0;
    return 1;
}

static void smem_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    *l = (reg_launch){{ceil_div(s->dims[N_], p[0]), ceil_div(s->dims[M_], p[0]), 1}, {(unsigned)(p[0] * p[0]), 1, 1}, 0};
}

/* ---- 04 .. 11: tiled rungs -------------------------------------------------------------- */

/* A tiled rung's shape, gathered from its params (absent ones 0). */
typedef struct {
    long bm, bn, bk, tm, tn, wm, wn, wniter, stages, pad, group_m, minb, threads;
    int vec;      /* 16-byte loads: TM, TN, BK multiples of 4 */
    int swizzle;  /* swizzled tiles: BM, BN powers of two */
    int warptile; /* threads from the warp tiles */
    int dynamic;  /* pipelined: STAGES tiles in dynamic shared memory */
    int raster;   /* 1-D grid, rasterized in the kernel */
    long swizzle_param; /* hopper's SWIZZLE as written: must be 0 or 1 */
    long splitk;        /* hopper's SPLITK: blocks per tile of C, each a slice of k (0 or 1: none) */
    long odd;           /* hopper's ODD: 0 or 1 */
    long tldg;          /* hopper's TLDG: 0 or 1 */
    long skpar;         /* hopper's SKPAR: 0 or 1 */
    long kmaj;          /* hopper's KMAJ: 0 or 1 */
    long grid;          /* hopper's and packed's GRID: blocks launched (a static schedule of the tiles); 0: one a tile */
    long sk;            /* hopper's and packed's SK: blocks a wave, the last wave cut into k slices; 0: none */
    long sk_kt;         /* with SK, the kernel's k tiles (packed: K padded); 0: ceil(K / BK) */
    long xpf;           /* hopper's and packed's XPF: 0 or 1 */
    int kma, kmb;       /* with KMAJ, A's and B's tiles k-major (the operand contiguous along k) */
} tile_shape;

/* What the problem's layouts make of a shape: with KMAJ, the tiles of operands contiguous along k are
 * k-major (11_hopper.cu's KM_A, KM_B). */
static tile_shape tile_for(tile_shape t, const reg_spec *s)
{
    t.kma = t.kmaj && s->layouts[OP_A] != REG_COL;
    t.kmb = t.kmaj && s->layouts[OP_B] == REG_COL;
    return t;
}

#define SMEM_OPTIN_MAX (227 * 1024) /* the largest per-block opt-in of any GPU so far (sm_90) */

static long tile_threads(const tile_shape *t)
{
    return t->warptile ? (t->bm / t->wm) * (t->bn / t->wn) * 32 : t->bm * t->bn / (t->tm * t->tn);
}

static long tile_smem(const tile_shape *t)
{
    /* A k-major tile's rows are BK floats and a pad that makes them an odd number of 16-byte chunks
     * (sgemm_tile.cuh, kmaj_pad). */
    long ldk = t->bk + ((t->bk / 4) % 2 == 0 ? 4 : 8);
    long per_stage = (t->kma ? t->bm * ldk : t->bk * (t->bm + t->pad)) + (t->kmb ? t->bn * ldk : t->bk * (t->bn + t->pad));
    return (t->dynamic ? t->stages : 1) * per_stage * (long)sizeof(float);
}

static int pow2(long x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

static int warptile_check(const tile_shape *t, char *why, size_t n)
{
    if (t->wm < 1 || t->wn < 1 || t->wniter < 1 || t->bm % t->wm || t->bn % t->wn || t->wn % t->wniter)
        return snprintf(why, n, "WM must divide BM, WN divide BN, WNITER divide WN"), 0;
    long per_iter = 32 * t->tm * t->tn * t->wniter;
    if ((t->wm * t->wn) % per_iter) return snprintf(why, n, "WM * WN is not a multiple of 32 * TM * TN * WNITER"), 0;
    long wmiter = t->wm * t->wn / per_iter;
    if (wmiter < 1 || t->wm % wmiter) return snprintf(why, n, "WMITER = %ld does not divide WM", wmiter), 0;
    long wsubm = t->wm / wmiter, wsubn = t->wn / t->wniter;
    if (wsubm % t->tm || wsubn % t->tn || (wsubm / t->tm) * (wsubn / t->tn) != 32)
        return snprintf(why, n, "a warp sub-tile of %ld x %ld is not 32 lanes of TM x TN", wsubm, wsubn), 0;
    return 1;
}

/* SKPAR's partial tiles: SPLITK x BM x BN floats per tile of C (11_hopper.cu's hopper_store); 0 without. */
static double skpar_floats(const tile_shape *t, const reg_spec *s)
{
    if (!t->skpar || t->splitk < 2) return 0;
    return (double)ceil_div(s->dims[M_], t->bm) * (double)ceil_div(s->dims[N_], t->bn) * (double)t->splitk *
           (double)(t->bm * t->bn);
}

/* SK's launch (11_hopper.cu's sk_plan_of): the D = SK floor(T / SK) tiles of the whole waves, one block
 * each, then the R = T - D tiles left in S = min(SK / R, k tiles) slices each: D + R S blocks, and R S
 * partial tiles when S > 1. */
static void sk_launch(const tile_shape *t, const reg_spec *s, double *blocks, double *partials)
{
    double tiles = (double)ceil_div(s->dims[M_], t->bm) * (double)ceil_div(s->dims[N_], t->bn);
    double kt = t->sk_kt ? (double)t->sk_kt : (double)ceil_div(s->dims[K_], t->bk);
    double d = floor(tiles / (double)t->sk) * (double)t->sk, r = tiles - d;
    double slices = r > 0 ? fmin(floor((double)t->sk / r), kt) : 0;
    *blocks = d + r * slices;
    *partials = slices > 1 ? r * slices : 0;
}

/* SK's partial tiles: BM x BN floats each; 0 without SK. */
static double sk_floats(const tile_shape *t, const reg_spec *s)
{
    double blocks, partials;
    if (t->sk < 1) return 0;
    sk_launch(t, s, &blocks, &partials);
    return partials * (double)(t->bm * t->bn);
}

static int tile_check(const tile_shape *t, const reg_spec *s, char *why, size_t n)
{
    if (t->swizzle_param < 0 || t->swizzle_param > 1)
        return snprintf(why, n, "SWIZZLE = %ld is not 0 or 1", t->swizzle_param), 0;
    if (t->bm < 1 || t->bn < 1 || t->bk < 1 || t->tm < 1 || t->tn < 1 || t->bm % t->tm || t->bn % t->tn)
        return snprintf(why, n, "TM must divide BM and TN divide BN"), 0;
    if (t->vec && (t->tm % 4 || t->tn % 4 || t->bk % 4))
        return snprintf(why, n, "TM, TN and BK must be multiples of 4 (16-byte loads)"), 0;
    if (t->pad < 0 || t->pad % 4) return snprintf(why, n, "PAD must be a non-negative multiple of 4"), 0;
    if (t->swizzle && (!pow2(t->bm) || !pow2(t->bn) || t->bm < 4 || t->bn < 4))
        return snprintf(why, n, "BM and BN must be powers of two (swizzled tiles)"), 0;
    if (t->warptile && !warptile_check(t, why, n)) return 0;
    long threads = tile_threads(t);
    if (threads < 32 || threads > 1024) return snprintf(why, n, "%ld threads per block, not 32 .. 1024", threads), 0;
    if (t->threads && t->threads != threads)
        return snprintf(why, n, "THREADS = %ld, the tiles need %ld (0 = derived)", t->threads, threads), 0;
    if (t->dynamic && (t->stages < 2 || t->stages > 8)) return snprintf(why, n, "STAGES must be 2 .. 8"), 0;
    long smem = tile_smem(t);
    if (!t->dynamic && smem > 48 * 1024) return snprintf(why, n, "%ld bytes of static shared memory > 48 KiB", smem), 0;
    if (smem > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", smem), 0;
    if (t->raster && (t->group_m < 1 || t->minb < 1)) return snprintf(why, n, "GROUP_M and MINB must be >= 1"), 0;
    if (!t->raster && ceil_div(s->dims[M_], t->bm) > 65535)
        return snprintf(why, n, "m / BM needs more than 65535 blocks in y"), 0;
    if (t->raster && (t->splitk < 1 || t->splitk > 64)) return snprintf(why, n, "SPLITK must be 1 .. 64"), 0;
    if (t->odd < 0 || t->odd > 1) return snprintf(why, n, "ODD must be 0 or 1"), 0;
    if (t->tldg < 0 || t->tldg > 1) return snprintf(why, n, "TLDG must be 0 or 1"), 0;
    if (t->skpar < 0 || t->skpar > 1) return snprintf(why, n, "SKPAR must be 0 or 1"), 0;
    if (skpar_floats(t, s) > 2147483647.0)
        return snprintf(why, n, "SKPAR = 1: SPLITK partial copies of C (padded to the tiles) exceed 2^31-1 floats"), 0;
    if (t->tldg && (t->odd || t->swizzle_param || t->bk % 8 || t->bm % 16 || t->bn % 16))
        return snprintf(why, n, "TLDG = 1 needs ODD = 0, SWIZZLE = 0, BK a multiple of 8, BM and BN of 16"), 0;
    if (t->tldg && ((t->bk / 8) * (t->bm / 16) % (threads / 32) || (t->bk / 8) * (t->bn / 16) % (threads / 32)))
        return snprintf(why, n, "TLDG = 1: the warps (%ld) must divide the tiles' blocks of 8 k x 16 rows or columns "
                                "(BK/8 x BM/16 = %ld, BK/8 x BN/16 = %ld)", threads / 32, (t->bk / 8) * (t->bm / 16),
                        (t->bk / 8) * (t->bn / 16)), 0;
    if (t->kmaj < 0 || t->kmaj > 1) return snprintf(why, n, "KMAJ must be 0 or 1"), 0;
    if (t->grid < 0 || t->grid > 1 << 30) return snprintf(why, n, "GRID must be 0 .. 2^30"), 0;
    if (t->sk < 0 || t->sk > 65536) return snprintf(why, n, "SK must be 0 .. 65536"), 0;
    if (t->sk && (t->grid || t->splitk > 1 || t->skpar))
        return snprintf(why, n, "SK > 0 needs GRID = 0, SPLITK = 1 and SKPAR = 0 (it schedules tiles and k itself)"), 0;
    if (sk_floats(t, s) > 2147483647.0)
        return snprintf(why, n, "SK = %ld: the partial tiles (BM x BN floats a slice) exceed 2^31-1 floats", t->sk), 0;
    if (t->kmaj && (t->tldg || t->swizzle_param))
        return snprintf(why, n, "KMAJ = 1 needs TLDG = 0 and SWIZZLE = 0"), 0;
    if (t->xpf < 0 || t->xpf > 1) return snprintf(why, n, "XPF must be 0 or 1"), 0;
    if (t->xpf && t->kmaj) return snprintf(why, n, "XPF = 1 needs KMAJ = 0"), 0;
    if (t->splitk > 1 && (double)ceil_div(s->dims[M_], t->bm) * ceil_div(s->dims[N_], t->bn) > 65536)
        return snprintf(why, n, "SPLITK > 1 takes at most 65536 tiles of C (its turn counters)"), 0;
    return fits_int(s, why, n);
}

static void tile_geometry(const tile_shape *t, const reg_spec *s, reg_launch *l)
{
    unsigned tm = ceil_div(s->dims[M_], t->bm), tn = ceil_div(s->dims[N_], t->bn);
    unsigned slices = t->splitk > 1 ? (unsigned)t->splitk : 1;
    unsigned blocks = t->raster ? tm * tn : tn;
    if (t->grid > 0 && (unsigned)t->grid < blocks) blocks = (unsigned)t->grid;
    if (t->sk > 0) {
        double b, partials;
        sk_launch(t, s, &b, &partials);
        blocks = (unsigned)b;
    }
    *l = (reg_launch){{blocks, t->raster ? slices : tm, 1}, {(unsigned)tile_threads(t), 1, 1},
                      t->dynamic ? (size_t)tile_smem(t) : 0};
}

/* Param tables and, per rung, how its params map onto a tile_shape. */
static const reg_param p04[] = {
    {"BM", 64, "block tile rows"}, {"BN", 64, "block tile columns"}, {"BK", 8, "k per tile"},
    {"TM", 8, "results per thread (one column)"},
};
static tile_shape shape04(const long *p)
{
    return (tile_shape){.bm = p[0], .bn = p[1], .bk = p[2], .tm = p[3], .tn = 1};
}

static const reg_param p05[] = {
    {"BM", 128, "block tile rows"}, {"BN", 128, "block tile columns"}, {"BK", 8, "k per tile"},
    {"TM", 8, "thread tile rows"}, {"TN", 8, "thread tile columns"},
};
static tile_shape shape05(const long *p)
{
    return (tile_shape){.bm = p[0], .bn = p[1], .bk = p[2], .tm = p[3], .tn = p[4]};
}
static tile_shape shape06(const long *p)
{
    tile_shape t = shape05(p);
    t.vec = 1;
    return t;
}

static const reg_param p07[] = {
    {"BM", 128, "block tile rows"}, {"BN", 128, "block tile columns"}, {"BK", 8, "k per tile"},
    {"TM", 8, "thread tile rows"}, {"TN", 8, "thread tile columns"}, {"PAD", 4, "floats added to each tile row"},
};
static tile_shape shape07(const long *p)
{
    return (tile_shape){.bm = p[0], .bn = p[1], .bk = p[2], .tm = p[3], .tn = p[4], .pad = p[5], .vec = 1};
}
static tile_shape shape08(const long *p)
{
    tile_shape t = shape06(p);
    t.swizzle = 1;
    return t;
}

static const reg_param p09[] = {
    {"BM", 128, "block tile rows"}, {"BN", 128, "block tile columns"}, {"BK", 16, "k per tile"},
    {"TM", 8, "thread tile rows"}, {"TN", 8, "thread tile columns"}, {"STAGES", 2, "tiles in flight (cp.async)"},
    {"PAD", 4, "floats added to each tile row"},
};
static tile_shape shape09(const long *p)
{
    return (tile_shape){.bm = p[0], .bn = p[1], .bk = p[2], .tm = p[3], .tn = p[4], .stages = p[5], .pad = p[6],
                        .vec = 1, .dynamic = 1};
}

/* Defaults: the best warptile shape of experiments/sgemm_tune.yaml on the H100 (docs/results). */
static const reg_param p10[] = {
    {"BM", 128, "block tile rows"}, {"BN", 256, "block tile columns"}, {"BK", 16, "k per tile"},
    {"WM", 64, "warp tile rows"}, {"WN", 64, "warp tile columns"}, {"WNITER", 2, "warp sub-tiles along n"},
    {"TM", 8, "thread tile rows"}, {"TN", 4, "thread tile columns"}, {"STAGES", 2, "tiles in flight (cp.async)"},
    {"PAD", 4, "floats added to each tile row"}, {"THREADS", 0, "threads per block; 0 = derived from the tiles"},
};
static tile_shape shape10(const long *p)
{
    return (tile_shape){.bm = p[0], .bn = p[1], .bk = p[2], .wm = p[3], .wn = p[4], .wniter = p[5], .tm = p[6],
                        .tn = p[7], .stages = p[8], .pad = p[9], .threads = p[10], .vec = 1, .warptile = 1,
                        .dynamic = 1};
}

/* hopper's first params, which packed shares (its own list goes on with GRID). Defaults: the best shape of
 * experiments/sgemm_tune.yaml on the H100 (docs/results/h100-sgemm.md). */
#define P11_TILES \
    {"BM", 128, "block tile rows"}, {"BN", 256, "block tile columns"}, {"BK", 16, "k per tile"}, \
    {"WM", 64, "warp tile rows"}, {"WN", 64, "warp tile columns"}, {"WNITER", 4, "warp sub-tiles along n"}, \
    {"TM", 8, "thread tile rows"}, {"TN", 4, "thread tile columns"}, {"STAGES", 2, "tiles in flight (cp.async)"}, \
    {"GROUP_M", 8, "tile rows per rasterization group (L2 reuse)"}, \
    {"MINB", 1, "__launch_bounds__ minimum blocks per SM"}, \
    {"THREADS", 0, "threads per block; 0 = derived from the tiles"}, \
    {"SWIZZLE", 0, "1: XOR-swizzled tiles (08); 0: padded by 4 floats (07)"}, \
    {"SPLITK", 1, "blocks per tile of C, each a slice of k, added in order (deterministic); 1: none"},

#define PARAM_SKPAR {"SKPAR", 0, "with SPLITK > 1, 1: slices write partial tiles to a workspace, the last to finish " \
                                 "adds them in slice order (no slice waits for another)"}
#define PARAM_GRID {"GRID", 0, "blocks launched, each computing tiles b, b + GRID, ... (a static schedule); 0: one a tile"}
#define PARAM_SK {"SK", 0, "blocks a wave (the GPU's SMs x the blocks an SM holds): the tiles past the whole waves are " \
                           "cut into interleaved k slices to fill one, added in order; 0: none"}
#define PARAM_EDGE {"EDGE", 0, "1: on C's edge, a warp whose part of the tile lies wholly outside C copies its share " \
                               "of the tiles and computes nothing (a second main loop in the kernel, which can slow " \
                               "the first: `tuned` times it as a twin where a tile leaves whole warps empty)"}
#define PARAM_XPF {"XPF", 0, "1: the barrier before a tile's last k-slice, the next tile's first fragments loaded under " \
                             "its FMAs (needs KMAJ 0); 0: the barrier before the first"}

static const reg_param p11[] = {
    P11_TILES
    {"ODD", 0, "1: blocks inside C run the unchecked loop for any k and row alignment (a checked k tail, 4-byte copies)"},
    {"TLDG", 0, "1: k-contiguous tiles (row-major A, column-major B) copied 16 bytes at a time through registers"},
    PARAM_SKPAR,
    {"KMAJ", 0, "1: k-contiguous operands (row-major A, column-major B) kept k-major in shared memory, read four k "
                "at a time; 0: transposed by the copy"},
    PARAM_GRID,
    PARAM_SK,
    PARAM_XPF,
    PARAM_EDGE,
};
static tile_shape shape11(const long *p)
{
    return (tile_shape){.bm = p[0], .bn = p[1], .bk = p[2], .wm = p[3], .wn = p[4], .wniter = p[5], .tm = p[6],
                        .tn = p[7], .stages = p[8], .group_m = p[9], .minb = p[10], .threads = p[11],
                        .pad = p[12] ? 0 : 4, .vec = 1, .swizzle = p[12] != 0, .warptile = 1, .dynamic = 1,
                        .raster = 1, .swizzle_param = p[12], .splitk = p[13], .odd = p[14], .tldg = p[15],
                        .skpar = p[16], .kmaj = p[17], .grid = p[18], .sk = p[19], .xpf = p[20]};
}

static uint64_t workspace11(const long *p, const reg_spec *s)
{
    tile_shape t = shape11(p);
    return (uint64_t)(skpar_floats(&t, s) + sk_floats(&t, s)) * sizeof(float); /* check11: each under 2^31 floats */
}

#define TILED_RUNG(id)                                                                                     \
    static int check##id(const long *p, const reg_spec *s, char *why, size_t n)                            \
    {                                                                                                      \
        tile_shape t = tile_for(shape##id(p), s);                                                          \
        return tile_check(&t, s, why, n);                                                                  \
    }                                                                                                      \
    static void geometry##id(const long *p, const reg_spec *s, reg_launch *l)                              \
    {                                                                                                      \
        tile_shape t = tile_for(shape##id(p), s);                                                          \
        tile_geometry(&t, s, l);                                                                           \
    }
TILED_RUNG(04)
TILED_RUNG(05)
TILED_RUNG(06)
TILED_RUNG(07)
TILED_RUNG(08)
TILED_RUNG(09)
TILED_RUNG(10)
TILED_RUNG(11)

/* 15_packed: hopper's params but ODD and KMAJ, and the pack that runs before it; KEEP: an operand read as
 * it lies, not packed (with TLDG, hopper's 16-byte copies through registers when it is contiguous along k). */
static const reg_param p15[] = {
    P11_TILES
    PARAM_GRID,
    PARAM_SK,
    PARAM_XPF,
    PARAM_SKPAR,
    {"KEEP", 0, "1: A read as it lies, not packed (M a multiple of BM, K of 32 and BK); 2: B likewise (N of BN); "
                "0: both packed where not so laid out already"},
    {"TLDG", 0, "with KEEP, 1: the kept operand, contiguous along k (row-major A, column-major B), copied 16 bytes at "
                "a time through registers (hopper's TLDG); 0: 4 bytes at a time"},
    PARAM_EDGE,
};
#define NP15 14 /* p11's first: BM .. SPLITK; then GRID, SK, XPF, SKPAR, KEEP, TLDG and EDGE */
#define P15_KEEP (NP15 + 4)
static tile_shape shape15(const long *p)
{
    long q[sizeof p11 / sizeof *p11] = {0};
    memcpy(q, p, NP15 * sizeof *p);
    q[18] = p[NP15];     /* GRID */
    q[19] = p[NP15 + 1]; /* SK */
    q[20] = p[NP15 + 2]; /* XPF */
    q[16] = p[NP15 + 3]; /* SKPAR */
    q[15] = p[NP15 + 5]; /* TLDG */
    return shape11(q);
}

#define PACK_T 32 /* 15_packed.cu's PACK_T: the pack's tiles are 32 x 32 */
#define PACK_G 4  /* 15_packed.cu's PACK_G: tiles a block of the pack copies */

/* The packed operands' sizes (15_packed.cu): M, N rounded up to the tiles, K to 32 and BK. */
static void packed_dims(const long *p, const reg_spec *s, int64_t *mp, int64_t *np, int64_t *kp)
{
    long bm = p[0], bn = p[1], bk = p[2], pk = bk > PACK_T ? bk : PACK_T;
    *mp = (s->dims[M_] + bm - 1) / bm * bm;
    *np = (s->dims[N_] + bn - 1) / bn * bn;
    *kp = (s->dims[K_] + pk - 1) / pk * pk;
}

/* Whether the GEMM reads operand i (0: A, 1: B) in place, as 15_packed.cu's packed_a_in_place and
 * packed_b_in_place decide: the one KEEP names (check15 refuses it unaligned), or one laid out and padded
 * as the packed copy would be. */
static int packed_in_place(const long *p, const reg_spec *s, int i)
{
    int64_t mp, np, kp;
    if (p[P15_KEEP] == (i == OP_A ? 1 : 2)) return 1;
    packed_dims(p, s, &mp, &np, &kp);
    if (kp != s->dims[K_]) return 0;
    return i == OP_A ? s->layouts[OP_A] == REG_COL && mp == s->dims[M_]
                     : s->layouts[OP_B] != REG_COL && np == s->dims[N_];
}

/* packed's shape for a problem: SK's slices count its padded k tiles. */
static tile_shape packed_shape(const long *p, const reg_spec *s)
{
    int64_t mp, np, kp;
    tile_shape t = shape15(p);
    packed_dims(p, s, &mp, &np, &kp);
    t.sk_kt = (long)(kp / t.bk);
    return t;
}

static int check15(const long *p, const reg_spec *s, char *why, size_t n)
{
    tile_shape t = packed_shape(p, s);
    if (!tile_check(&t, s, why, n)) return 0;
    if (t.bm % PACK_T || t.bn % PACK_T || (PACK_T % t.bk && t.bk % PACK_T))
        return snprintf(why, n, "BM and BN must be multiples of 32, BK divide 32 or be a multiple of it"), 0;
    int64_t mp, np, kp;
    packed_dims(p, s, &mp, &np, &kp);
    if (mp * kp > MAX_ELEMS || np * kp > MAX_ELEMS)
        return snprintf(why, n, "a packed operand has more than 2^31-1 elements (the kernels index with int)"), 0;
    long keep = p[P15_KEEP];
    if (keep < 0 || keep > 2) return snprintf(why, n, "KEEP = %ld is not 0, 1 or 2", keep), 0;
    if (keep && (kp != s->dims[K_] || (keep == 1 ? mp != s->dims[M_] : np != s->dims[N_])))
        return snprintf(why, n, "KEEP = %ld reads %s as it lies: %s must be a multiple of %s = %ld and k of %ld", keep,
                        keep == 1 ? "A" : "B", keep == 1 ? "m" : "n", keep == 1 ? "BM" : "BN", keep == 1 ? t.bm : t.bn,
                        t.bk > PACK_T ? t.bk : PACK_T), 0;
    int kcontig = keep == 1 ? s->layouts[OP_A] != REG_COL : keep == 2 && s->layouts[OP_B] == REG_COL;
    if (t.tldg && !kcontig)
        return snprintf(why, n, "TLDG = 1 is for the operand KEEP reads as it lies, when it is contiguous along k "
                                "(KEEP 1 with row-major A, KEEP 2 with column-major B)"), 0;
    return 1;
}

static void geometry15(const long *p, const reg_spec *s, reg_launch *l)
{
    tile_shape t = packed_shape(p, s);
    tile_geometry(&t, s, l);
}

/* The pack's blocks for one operand of ld x kp packed floats (15_packed.cu's pack_blocks): PACK_G tiles side
 * by side along the source's contiguous side, k when kmajor. */
static int64_t pack_blocks(int kmajor, int64_t ld, int64_t kp)
{
    int64_t along = (kmajor ? kp : ld) / PACK_T, across = (kmajor ? ld : kp) / PACK_T;
    return across * ((along + PACK_G - 1) / PACK_G);
}

static void geometry15_pack(const long *p, const reg_spec *s, reg_launch *l)
{
    int64_t mp, np, kp;
    packed_dims(p, s, &mp, &np, &kp);
    int64_t blocks = (packed_in_place(p, s, OP_A) ? 0 : pack_blocks(s->layouts[OP_A] != REG_COL, mp, kp)) +
                     (packed_in_place(p, s, OP_B) ? 0 : pack_blocks(s->layouts[OP_B] == REG_COL, np, kp));
    *l = (reg_launch){{(unsigned)(blocks > 0 ? blocks : 1), 1, 1}, {PACK_T, 8, 1}, 0};
}

static uint64_t workspace15(const long *p, const reg_spec *s)
{
    int64_t mp, np, kp;
    packed_dims(p, s, &mp, &np, &kp);
    uint64_t rows = (uint64_t)(packed_in_place(p, s, OP_A) ? 0 : mp) + (uint64_t)(packed_in_place(p, s, OP_B) ? 0 : np);
    tile_shape t = packed_shape(p, s);
    return ((uint64_t)kp * rows + (uint64_t)(sk_floats(&t, s) + skpar_floats(&t, s))) * sizeof(float);
}

#define NPARAMS(a) ((int)(sizeof a / sizeof *a))

/* ---- 16_skinny: few rows or columns of C, the large operand streamed once ------------------ */

static const reg_param p16[] = {
    {"SIDE", 0, "0: m is the small side (C's rows), 1: n is (its columns)"},
    {"SMAX", 8, "the small side at most: 1, 2, 4, 8, 16, 24, 32, 48 or 64 (sets the block's tile)"},
    {"LPT", 4, "large-side columns a thread: 1, 2 or 4"},
    {"SLICES", 1, "k slices at most, 1 .. 1024 (> 1: partial results in a workspace, added in slice order)"},
    {"SPT", 4, "small-side rows a thread: 4 or 8 (SMAX below it: SMAX), 6 or 12 with SMAX 24 and 48; 8: fewer shared loads a "
               "multiply-add"},
    {"MINB", 1, "blocks an SM the registers must allow: 1 .. 4 (__launch_bounds__)"},
    {"STAGES", 0, "0: loads a chunk ahead through registers (two shared buffers); 2 .. 8: cp.async into a ring of STAGES "
                  "chunks in dynamic shared memory, STAGES - 1 in flight"},
    {"KMAJ", 0, "1 (with STAGES, where the large operand is contiguous along k: row-major A at SIDE 1, column-major B "
                "at SIDE 0): its chunk kept k-major in the ring, copied 16 bytes at a time along k (K % 4 == 0)"},
};

/* 16_skinny.cu's SK_SPT: the small side's rows a thread. */
static long skinny_spt(const long *p)
{
    return p[1] < p[4] ? p[1] : p[4];
}

/* 16_skinny.cu's tile: LT columns of the large side a block, KT k a chunk, 256 threads. */
#define SKINNY_NT 256
static void skinny_tile(const long *p, long *lt, long *kt)
{
    *lt = SKINNY_NT * skinny_spt(p) / p[1] * p[2];
    *kt = 16 * SKINNY_NT / *lt;
}

/* 16_skinny.cu's SK_KM: with KMAJ, the large operand (B where SIDE is 0, A where it is 1) contiguous along k. */
static int skinny_kmajor(const long *p, const reg_spec *s)
{
    return p[7] && (p[0] ? s->layouts[OP_A] != REG_COL : s->layouts[OP_B] == REG_COL);
}

/* 16_skinny.cu's shared memory: two chunks of both operands (STAGES 0, static), or STAGES (dynamic); the
 * large chunk KT rows of LT + 4, or with SK_KM LT rows of SK_KPAD. */
static long skinny_smem(const long *p, const reg_spec *s)
{
    long lt, kt, smax = p[1];
    skinny_tile(p, &lt, &kt);
    long spad = smax < 4 ? smax : smax == 4 ? 12 : smax + 4; /* 16_skinny.cu's SK_SPAD */
    long large = skinny_kmajor(p, s) ? lt * (kt + (kt / 4 % 2 ? 8 : 4)) : kt * (lt + 4);
    return (p[6] ? p[6] : 2) * (large + kt * spad) * 4;
}

/* The launch's slices: at most SLICES and one a chunk, none empty (16_skinny.cu gives slice z the chunks
 * z * per .. of ceil(chunks / slices) each). */
static long skinny_slices(const long *p, const reg_spec *s)
{
    long lt, kt;
    skinny_tile(p, &lt, &kt);
    int64_t chunks = (s->dims[K_] + kt - 1) / kt;
    int64_t z = p[3] < chunks ? p[3] : chunks, per = (chunks + z - 1) / z;
    return (long)((chunks + per - 1) / per);
}

static int check16(const long *p, const reg_spec *s, char *why, size_t n)
{
    long side = p[0], smax = p[1], lpt = p[2], slices = p[3], spt = p[4];
    if (side != 0 && side != 1) return snprintf(why, n, "SIDE must be 0 (m small) or 1 (n small)"), 0;
    if (smax != 1 && smax != 2 && smax != 4 && smax != 8 && smax != 16 && smax != 24 && smax != 32 && smax != 48 &&
        smax != 64)
        return snprintf(why, n, "SMAX must be 1, 2, 4, 8, 16, 24, 32, 48 or 64"), 0;
    if (lpt != 1 && lpt != 2 && lpt != 4) return snprintf(why, n, "LPT must be 1, 2 or 4"), 0;
    if (slices < 1 || slices > 1024) return snprintf(why, n, "SLICES must be 1 .. 1024"), 0;
    if (spt != 4 && spt != 6 && spt != 8 && spt != 12) return snprintf(why, n, "SPT must be 4, 6, 8 or 12"), 0;
    if ((smax == 24 || smax == 48) != (spt == 6 || spt == 12))
        return snprintf(why, n, "SMAX 24 and 48 take SPT 6 or 12, and SPT 6 and 12 are for SMAX 24 and 48 only (whole "
                        "row groups)"), 0;
    if (p[5] < 1 || p[5] > 4) return snprintf(why, n, "MINB must be 1 .. 4"), 0;
    if (p[6] != 0 && (p[6] < 2 || p[6] > 8)) return snprintf(why, n, "STAGES must be 0 (through registers) or 2 .. 8"), 0;
    if (p[7] != 0 && p[7] != 1) return snprintf(why, n, "KMAJ must be 0 or 1"), 0;
    if (p[7] && p[6] == 0) return snprintf(why, n, "KMAJ = 1 needs STAGES 2 .. 8 (the k-major chunk is copied by cp.async)"), 0;
    if (p[7] && !skinny_kmajor(p, s))
        return snprintf(why, n, "KMAJ = 1 is for a large operand contiguous along k (%s), this one is contiguous along %s",
                        p[0] ? "row-major A" : "column-major B", p[0] ? "m" : "n"), 0;
    long lt, kt;
    skinny_tile(p, &lt, &kt);
    if (p[6] == 0 && skinny_smem(p, s) > 48 * 1024)
        return snprintf(why, n, "SMAX %ld with LPT %ld and SPT %ld takes more than 48 KiB of shared memory through "
                        "registers (STAGES 2 .. 8: dynamic shared memory, up to 227 KiB)", smax, lpt, spt), 0;
    if (skinny_smem(p, s) > SMEM_OPTIN_MAX)
        return snprintf(why, n, "%ld bytes of shared memory > 227 KiB (fewer STAGES)", skinny_smem(p, s)), 0;
    int64_t small = s->dims[side ? N_ : M_], large = s->dims[side ? M_ : N_];
    if (small > smax)
        return snprintf(why, n, "%s is more than SMAX = %ld", side ? "n" : "m", smax), 0;
    if (skinny_slices(p, s) > 1 && (large + lt - 1) / lt > 65536)
        return snprintf(why, n, "with SLICES > 1, at most 65536 blocks along %s (%ld each)", side ? "m" : "n", lt), 0;
    /* 16_skinny.cu rounds the large side and k up to its tiles in int arithmetic. */
    if (large > 2147483647 - lt || s->dims[K_] > 2147483647 - kt)
        return snprintf(why, n, "%s or k within a tile (%ld, %ld) of 2^31-1", side ? "m" : "n", lt, kt), 0;
    return fits_int(s, why, n);
}

static void geometry16(const long *p, const reg_spec *s, reg_launch *l)
{
    long lt, kt;
    skinny_tile(p, &lt, &kt);
    unsigned cols = ceil_div(s->dims[p[0] ? M_ : N_], lt);
    *l = (reg_launch){{cols, (unsigned)skinny_slices(p, s), 1}, {SKINNY_NT, 1, 1}, p[6] ? (size_t)skinny_smem(p, s) : 0};
}

static uint64_t workspace16(const long *p, const reg_spec *s)
{
    long lt, kt, z = skinny_slices(p, s);
    skinny_tile(p, &lt, &kt);
    if (z < 2) return 0;
    long spt = skinny_spt(p);
    uint64_t cols = ceil_div(s->dims[p[0] ? M_ : N_], lt);
    return cols * (uint64_t)z * SKINNY_NT * (uint64_t)(spt * p[2]) * sizeof(float);
}

/* ---- 12_mma_sync: tensor cores, warp-level MMA ---------------------------------------------- */

static const reg_param p12[] = {
    {"BM", 128, "block tile rows"}, {"BN", 128, "block tile columns"}, {"BK", 32, "k per tile"},
    {"WM", 64, "warp tile rows (16-row MMA tiles)"}, {"WN", 32, "warp tile columns (8-column MMA tiles)"},
    {"STAGES", 3, "tiles in flight (cp.async)"}, {"GROUP_M", 8, "tile rows per rasterization group (L2 reuse)"},
};

/* The shared memory 12_mma_sync.cu's macros give: STAGES x (A tile + B tile), padded rows. */
static long mma_smem(const long *p, const reg_spec *s)
{
    long bm = p[0], bn = p[1], bk = p[2], stages = p[5], es = (long)ab_size(s), vec = 16 / es;
    int acol = s->layouts[OP_A] == REG_COL, bcol = s->layouts[OP_B] == REG_COL;
    long pad_mn = s->dtype == BF16 ? vec : 2 * vec; /* 12_mma_sync.cu's PAD_MN */
    long a = acol ? bk * (bm + pad_mn) : bm * (bk + vec), b = bcol ? bn * (bk + vec) : bk * (bn + pad_mn);
    return stages * (a + b) * es;
}

static int check12(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bm = p[0], bn = p[1], bk = p[2], wm = p[3], wn = p[4], stages = p[5], group_m = p[6];
    long kstep = s->dtype == BF16 ? 16 : 8, vec = 16 / (long)ab_size(s);
    if (s->dtype == F32) return snprintf(why, n, "a tensor-core rung: dtype tf32 or bf16"), 0;
    if (bm < 1 || bn < 1 || wm < 1 || wn < 1 || bm % wm || bn % wn || wm % 16 || wn % 8)
        return snprintf(why, n, "WM must divide BM and be a multiple of 16, WN divide BN and be a multiple of 8"), 0;
    if (bk < 1 || bk % kstep || bk % vec || bm % vec || bn % vec)
        return snprintf(why, n, "BK must be a multiple of %ld (the MMA's k) and BM, BN, BK of %ld (16-byte copies)",
                        kstep > vec ? kstep : vec, vec), 0;
    long threads = (bm / wm) * (bn / wn) * 32;
    if (threads > 1024) return snprintf(why, n, "%ld threads per block > 1024", threads), 0;
    if (stages < 2 || stages > 8 || group_m < 1) return snprintf(why, n, "STAGES must be 2 .. 8, GROUP_M >= 1"), 0;
    long smem = mma_smem(p, s);
    if (smem > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", smem), 0;
    if ((double)ceil_div(s->dims[M_], bm) * ceil_div(s->dims[N_], bn) > 2147483647.0)
        return snprintf(why, n, "more than 2^31-1 tiles"), 0;
    return fits_int(s, why, n);
}

static void geometry12(const long *p, const reg_spec *s, reg_launch *l)
{
    unsigned tiles = ceil_div(s->dims[M_], p[0]) * ceil_div(s->dims[N_], p[1]);
    *l = (reg_launch){{tiles, 1, 1}, {(unsigned)((p[0] / p[3]) * (p[1] / p[4]) * 32), 1, 1}, (size_t)mma_smem(p, s)};
}

/* ---- 13_wgmma: tensor cores, warpgroup MMA from shared memory (CuTe, sm_90a) -------------------- */

static const reg_param p13[] = {
    {"BM", 128, "block tile rows: BM / 64 warpgroups"}, {"BN", 256, "block tile columns (the wgmma's N)"},
    {"BK", 32, "k per tile"}, {"STAGES", 3, "tiles in flight (cp.async)"},
    {"GROUP_M", 8, "tile rows per rasterization group (L2 reuse)"},
};

static long round1024(long x)
{
    return (x + 1023) / 1024 * 1024;
}

/* 13_wgmma.cu's Shared struct (1024-byte aligned tiles) and the 1024 bytes it may need to align. */
static long wgmma_smem(const long *p, const reg_spec *s)
{
    long es = (long)ab_size(s);
    return round1024(p[0] * p[2] * p[3] * es) + round1024(p[1] * p[2] * p[3] * es) + 1024;
}

/* A cp.async tile copy of 13_wgmma.cu tiles (rows, BK) with nt threads: 16 bytes along the contiguous
 * dimension (k when kmajor), or 4-byte transposing copies (gmem_k differs from kmajor). */
static int wgmma_copy_fits(long rows, long bk, long nt, long vec, int gmem_k, int kmajor)
{
    if (gmem_k && kmajor) return bk % vec == 0 && nt % (bk / vec) == 0 && rows % (nt / (bk / vec)) == 0;
    if (!gmem_k && !kmajor) return rows % vec == 0 && nt % (rows / vec) == 0 && bk % (nt / (rows / vec)) == 0;
    long tr = rows < nt ? rows : nt;
    return nt % tr == 0 && rows % tr == 0 && bk % (nt / tr) == 0;
}

static int check13(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bm = p[0], bn = p[1], bk = p[2], stages = p[3], group_m = p[4], es = (long)ab_size(s), vec = 16 / es;
    if (s->dtype == F32) return snprintf(why, n, "a tensor-core rung: dtype tf32 or bf16"), 0;
    if (bm < 64 || bm > 256 || bm % 64 || bn < 64 || bn > 256 || bn % 64)
        return snprintf(why, n, "BM and BN must be 64, 128, 192 or 256"), 0;
    if (bk < 1 || (bk * es) % 32) return snprintf(why, n, "BK must be a multiple of %ld (32-byte rows)", 32 / es), 0;
    if (stages < 2 || stages > 8 || group_m < 1) return snprintf(why, n, "STAGES must be 2 .. 8, GROUP_M >= 1"), 0;
    int acol = s->layouts[OP_A] == REG_COL, bcol = s->layouts[OP_B] == REG_COL, tf32 = s->dtype == TF32;
    long nt = bm / 64 * 128;
    if (!wgmma_copy_fits(bm, bk, nt, vec, !acol, tf32 || !acol) || !wgmma_copy_fits(bn, bk, nt, vec, bcol, tf32 || bcol))
        return snprintf(why, n, "the copy threads (%ld) do not tile BM x BK and BN x BK", nt), 0;
    long smem = wgmma_smem(p, s);
    if (smem > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", smem), 0;
    if ((double)ceil_div(s->dims[M_], bm) * ceil_div(s->dims[N_], bn) > 2147483647.0)
        return snprintf(why, n, "more than 2^31-1 tiles"), 0;
    return fits_int(s, why, n);
}

static void geometry13(const long *p, const reg_spec *s, reg_launch *l)
{
    unsigned tiles = ceil_div(s->dims[M_], p[0]) * ceil_div(s->dims[N_], p[1]);
    *l = (reg_launch){{tiles, 1, 1}, {(unsigned)(p[0] / 64 * 128), 1, 1}, (size_t)wgmma_smem(p, s)};
}

/* ---- 14_wgmma_tma: the same math fed by TMA and a producer warpgroup ---------------------------- */

static const reg_param p14[] = {
    {"BM", 0, "block tile rows, 64 .. 256 (wgmma's M: 64, 128 or 256; for TF32 NN its N); 0: 128 (TF32 NN 256)"},
    {"BN", 0, "block tile columns, 64 .. 256 (wgmma's N; for TF32 NN its M); 0: 256 (TF32 NN 128)"},
    {"BK", 0, "k per stage, a multiple of 128 bytes; 0: 128 bytes (32 tf32, 64 bf16)"},
    {"STAGES", 4, "shared buffers in the producer / consumer ring"},
    {"GROUP_M", 8, "tile rows per rasterization group (L2 reuse)"},
};

static long bk14(const long *p, const reg_spec *s)
{
    return p[2] ? p[2] : 128 / (long)ab_size(s);
}

static int swap14(const reg_spec *s)
{
    return s->dtype == TF32 && s->layouts[OP_A] == REG_ROW && s->layouts[OP_B] == REG_ROW;
}

/* BM and BN, 0 resolved: 128 x 256 for the tensor cores. */
static long bm14(const long *p, const reg_spec *s)
{
    return p[0] ? p[0] : swap14(s) ? 256 : 128;
}

static long bn14(const long *p, const reg_spec *s)
{
    return p[1] ? p[1] : swap14(s) ? 128 : 256;
}

/* 14_wgmma_tma.cu's Shared struct: the tiles, the barriers (rounded to 1024), and 1024 to align. */
static long wgmma_tma_smem(const long *p, const reg_spec *s)
{
    long es = (long)ab_size(s), bk = bk14(p, s);
    return round1024(bm14(p, s) * bk * p[3] * es) + round1024(bn14(p, s) * bk * p[3] * es) + 2048;
}

/* The tile of the tensor cores' A (X) and B (Y): BM x BN, or BN x BM where 14_wgmma_tma.cu computes
 * C^T = B^T A^T (TF32 with A and B row-major: B^T goes through registers, which must be wgmma's A). */
static void tiles14(const long *p, const reg_spec *s, long *xt, long *yt)
{
    *xt = swap14(s) ? bn14(p, s) : bm14(p, s);
    *yt = swap14(s) ? bm14(p, s) : bn14(p, s);
}

static int check14(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bk = bk14(p, s), stages = p[3], group_m = p[4], es = (long)ab_size(s), xt, yt;
    if (s->dtype == F32) return snprintf(why, n, "a tensor-core rung: dtype tf32 or bf16"), 0;
    tiles14(p, s, &xt, &yt);
    const char *xn = swap14(s) ? "BN" : "BM", *yn = swap14(s) ? "BM" : "BN";
    if (xt != 64 && xt != 128 && xt != 256)
        return snprintf(why, n, "%s must be 64, 128 or 256 (the rows of wgmma's A in this layout and dtype)", xn), 0;
    if (yt < 64 || yt > 256 || yt % 64) return snprintf(why, n, "%s must be 64, 128, 192 or 256", yn), 0;
    if (xt * yt > 256 * 128)
        return snprintf(why, n, "BM x BN at most 32768 (128 accumulators a thread): %ld x %ld", bm14(p, s), bn14(p, s)),
               0;
    if (bk < 1 || (bk * es) % 128) return snprintf(why, n, "BK must be a multiple of %ld (128-byte rows)", 128 / es), 0;
    if (stages < 2 || stages > 8 || group_m < 1) return snprintf(why, n, "STAGES must be 2 .. 8, GROUP_M >= 1"), 0;
    long smem = wgmma_tma_smem(p, s);
    if (smem > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", smem), 0;
    if ((double)ceil_div(s->dims[M_], bm14(p, s)) * ceil_div(s->dims[N_], bn14(p, s)) > 2147483647.0)
        return snprintf(why, n, "more than 2^31-1 tiles"), 0;
    return fits_int(s, why, n);
}

static void geometry14(const long *p, const reg_spec *s, reg_launch *l)
{
    long xt, yt;
    tiles14(p, s, &xt, &yt);
    unsigned tiles = ceil_div(s->dims[M_], bm14(p, s)) * ceil_div(s->dims[N_], bn14(p, s));
    unsigned consumers = xt >= 128 ? 2 : 1;
    *l = (reg_launch){{tiles, 1, 1}, {(consumers + 1) * 128, 1, 1}, (size_t)wgmma_tma_smem(p, s)};
}

/* ---- 17_tf32x3: FP32 on the tensor cores, each product in three TF32 parts ---------------------- */

static const reg_param p17[] = {
    {"BM", 128, "block tile rows: 64, 128 or 256 (wgmma's M; 64: one consumer warpgroup, else two)"},
    {"BN", 128, "block tile columns: 32 .. 256 by 32 (wgmma's N); a consumer warpgroup's rows (BM, or BM / 2) x BN at "
                "most 64 x 128"},
    {"STAGES", 4, "shared buffers in the producer / consumer ring (A, B's hi and lo parts: 4 (BM + 2 BN) 32 bytes each)"},
    {"GROUP_M", 8, "tile rows per rasterization group (L2 reuse)"},
    {"PROMOTE", 4, "k tiles (of 32) the tensor cores sum before the consumers add their sum into C's FP32 accumulators"},
    {"SPLITK", 1, "blocks a tile of C, each a slice of k; the last to finish adds their parts in slice order (a "
                  "workspace of SPLITK x BM x BN floats a tile)"},
    {"AIN", 0, "1: A read where it lies in either layout (zeros past its edges), not copied by the split, wherever its "
               "rows (row-major: K % 4 == 0) or columns (column-major: M % 4 == 0) are 16-byte aligned"},
    {"SWAP", 0, "1: compute C^T = B^T A^T (B^T the A that is split in registers and, with AIN, read in place; tiles of "
                "BM along n and BN along m): for a small m and a large B"},
    {"WAVE", 0, "with SPLITK 1: slices of k as SPLITK's, as many a tile as suit a GPU whose one wave is WAVE blocks (132: "
               "the H100's SMs), chosen per problem by the waves they make (tf32x3_slices in sgemm.c)"},
    {"A4", 0, "with AIN 1: A read in place also where its rows or columns are not 16-byte aligned, by 4-byte copies "
              "(else the split copies it)"},
};
#define BK17 32L    /* 17_tf32x3.cu's BK: one 128-byte swizzle span of FP32 */
#define SPLIT_T 32L /* 17_tf32x3.cu's SPLIT_T: the split's tiles are 32 x 32 */

/* The product 17_tf32x3.cu computes: s's, or with SWAP (p[7]) C^T = B^T A^T: m and n swapped, its A B^T
 * (column-major where B is row-major) and its B A^T. Every tf32x3 function below takes this one. */
static reg_spec tf32x3_problem(const long *p, const reg_spec *s)
{
    reg_spec x = *s;
    if (p[7]) {
        x.dims[M_] = s->dims[N_];
        x.dims[N_] = s->dims[M_];
        x.layouts[OP_A] = s->layouts[OP_B] == REG_COL ? REG_ROW : REG_COL;
        x.layouts[OP_B] = s->layouts[OP_A] == REG_COL ? REG_ROW : REG_COL;
    }
    return x;
}

/* The workspace's padded sizes (17_tf32x3.cu's x3_work): M to BM, N to BN, K to 32. */
static void tf32x3_dims(const long *p, const reg_spec *s, int64_t *mp, int64_t *np, int64_t *kp)
{
    *mp = (s->dims[M_] + p[0] - 1) / p[0] * p[0];
    *np = (s->dims[N_] + p[1] - 1) / p[1] * p[1];
    *kp = (s->dims[K_] + BK17 - 1) / BK17 * BK17;
}

/* Whether the main kernel reads A in place (17_tf32x3.cu's x3_a_in_place): with AIN, wherever A's rows
 * (row-major, K % 4 == 0) or columns (column-major, M % 4 == 0) are 16-byte aligned, and with A4 (p[9]) where
 * they are not too; else with SPLITK > 1 or
 * WAVE, A column-major, M a multiple of BM and K of 32. Then the split copies B alone and the workspace holds
 * no A. */
static int tf32x3_a_in_place(const long *p, const reg_spec *s)
{
    int col = s->layouts[OP_A] == REG_COL;
    if (p[6]) return p[9] || (col ? s->dims[M_] % 4 == 0 : s->dims[K_] % 4 == 0);
    return (p[5] > 1 || p[8] > 0) && col && s->dims[M_] % p[0] == 0 && s->dims[K_] % BK17 == 0;
}

/* The tiles of C and the slices of k a tile (17_tf32x3.cu's slices): SPLITK, or with WAVE the S of 1 .. 64
 * (and at most K's tiles of 32) that makes the least of
 *     ceil(tiles S / WAVE) (KT / S + X3_BLOCK_KT) + X3_PART_KT S   (the last term for S > 1),
 * the waves of blocks times a block's k tiles and what a block costs besides (its pipeline's fill, its part
 * or its tile written), and the parts that the last slice of a tile adds, in k tiles' time. On the H100
 * (thirty-third session, docs/gpu-runs.md) a block's 128 x 128 x 32 k tile took about 2.2 us, a 64 KB part
 * read back by one block about 0.5 us: these put SPLITK's measured best where it is (16 tiles of 512 x 512 x
 * 8192: 8; 144 of 1536 x 1536 x 2048: 4; 256 of 2048^3: 1; 48 of 1024 x 768 x 4096: 5, faster than the 2
 * that fill one wave), where a fixed SPLITK leaves SMs idle or adds a wave: 9 tiles of 384 x 384 x 12288
 * make 72 blocks with SPLITK 8 and 36 of 768 x 768 x 4096 make 144 with SPLITK 4. */
#define X3_BLOCK_KT 3.0
#define X3_PART_KT 0.25
static double tf32x3_tiles(const long *p, const reg_spec *s)
{
    return (double)ceil_div(s->dims[M_], p[0]) * ceil_div(s->dims[N_], p[1]);
}

static long tf32x3_slices(const long *p, const reg_spec *s)
{
    if (p[8] <= 0) return p[5];
    double tiles = tf32x3_tiles(p, s), kt = (double)ceil_div(s->dims[K_], BK17), best = 0.0;
    long pick = 1;
    for (long n = 1; n <= 64 && n <= kt; n++) {
        double t = ceil(tiles * n / p[8]) * (kt / n + X3_BLOCK_KT) + (n > 1 ? X3_PART_KT * n : 0.0);
        if (n == 1 || t < best) best = t, pick = n;
    }
    return pick;
}

/* The split's blocks (17_tf32x3.cu's sgemm_tf32x3_split): a 32 x 32 tile each of A (unless in place), then
 * of B. */
static double tf32x3_split_blocks(const long *p, const reg_spec *s)
{
    int64_t mp, np, kp;
    tf32x3_dims(p, s, &mp, &np, &kp);
    return (double)(kp / SPLIT_T) * (double)((tf32x3_a_in_place(p, s) ? 0 : mp / SPLIT_T) + np / SPLIT_T);
}

/* 17_tf32x3.cu's Shared struct: three 1024-aligned tiles a stage, the barriers, 1024 to align. */
static long tf32x3_smem(const long *p)
{
    return round1024(p[0] * BK17 * p[2] * 4) + 2 * round1024(p[1] * BK17 * p[2] * 4) + 2048;
}

/* With SPLITK > 1 or WAVE, the floats of the tiles' counts (rounded to 4) and of the parts (a slice's tile
 * each; none with WAVE when the tiles take one slice each). */
static double tf32x3_split_floats(const long *p, const reg_spec *s)
{
    if (p[5] <= 1 && p[8] <= 0) return 0.0;
    double tiles = tf32x3_tiles(p, s), slices = (double)tf32x3_slices(p, s);
    return ceil(tiles / 4) * 4 + (slices > 1 ? tiles * slices * p[0] * p[1] : 0.0);
}

static int check17(const long *p, const reg_spec *s0, char *why, size_t n)
{
    const reg_spec x = tf32x3_problem(p, s0), *s = &x;
    long bm = p[0], bn = p[1], stages = p[2], group_m = p[3], promote = p[4], splitk = p[5];
    if (bm != 64 && bm != 128 && bm != 256) return snprintf(why, n, "BM must be 64, 128 or 256 (wgmma's M)"), 0;
    if (bn < 32 || bn > 256 || bn % 32) return snprintf(why, n, "BN must be 32 .. 256, a multiple of 32"), 0;
    if ((bm >= 128 ? bm / 2 : bm) * bn > 64 * 128)
        return snprintf(why, n, "a consumer warpgroup's tile (BM / 2 from 128 on, else BM) x BN at most 64 x 128 (two sets "
                                "of 64 accumulators a thread): %ld x %ld", bm, bn), 0;
    if (stages < 2 || stages > 8 || group_m < 1 || promote < 1 || splitk < 1 || splitk > 64 || (p[6] != 0 && p[6] != 1) ||
        (p[7] != 0 && p[7] != 1))
        return snprintf(why, n, "STAGES must be 2 .. 8, GROUP_M >= 1, PROMOTE >= 1, SPLITK 1 .. 64, AIN and SWAP 0 or 1"), 0;
    if (p[8] < 0 || p[8] > 65536 || (p[8] > 0 && splitk > 1))
        return snprintf(why, n, "WAVE must be 0 .. 65536, and goes with SPLITK 1 (it sets the slices itself)"), 0;
    if ((p[9] != 0 && p[9] != 1) || (p[9] && !p[6]))
        return snprintf(why, n, "A4 must be 0 or 1, and 1 only with AIN 1 (it reads the A that AIN reads in place)"), 0;
    long smem = tf32x3_smem(p);
    if (smem > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", smem), 0;
    int64_t mp, np, kp;
    tf32x3_dims(p, s, &mp, &np, &kp);
    if (mp > INT32_MAX || np > INT32_MAX || kp > INT32_MAX)
        return snprintf(why, n, "a side rounded up to its tile is over 2^31-1 (the kernels index with int)"), 0;
    if (tf32x3_split_blocks(p, s) > 2147483647.0)
        return snprintf(why, n, "the split's blocks are over 2^31-1"), 0;
    if (tf32x3_tiles(p, s) * tf32x3_slices(p, s) > 2147483647.0)
        return snprintf(why, n, "more than 2^31-1 blocks (tiles x slices)"), 0;
    if (tf32x3_split_floats(p, s) > 2147483647.0)
        return snprintf(why, n, "%ld slices of k: their parts, the slices x C padded to the tiles, are over 2^31-1 floats",
                        tf32x3_slices(p, s)), 0;
    return fits_int(s, why, n);
}

static void geometry17(const long *p, const reg_spec *s0, reg_launch *l)
{
    const reg_spec x = tf32x3_problem(p, s0), *s = &x;
    unsigned tiles = (unsigned)tf32x3_tiles(p, s), consumers = p[0] >= 128 ? 2 : 1;
    *l = (reg_launch){{tiles * (unsigned)tf32x3_slices(p, s), 1, 1}, {(consumers + 1) * 128, 1, 1}, (size_t)tf32x3_smem(p)};
}

/* The split: a block of 32 x 8 threads a 32 x 32 tile. */
static void geometry17_split(const long *p, const reg_spec *s0, reg_launch *l)
{
    const reg_spec x = tf32x3_problem(p, s0), *s = &x;
    *l = (reg_launch){{(unsigned)tf32x3_split_blocks(p, s), 1, 1}, {SPLIT_T, 8, 1}, 0};
}

/* A padded (unless read in place), then B's hi and lo parts padded; with SPLITK, the tiles' counts and the
 * slices' parts. */
static uint64_t workspace17(const long *p, const reg_spec *s0)
{
    const reg_spec x = tf32x3_problem(p, s0), *s = &x;
    int64_t mp, np, kp;
    tf32x3_dims(p, s, &mp, &np, &kp);
    uint64_t rows = (uint64_t)(tf32x3_a_in_place(p, s) ? 0 : mp) + 2 * (uint64_t)np;
    return ((uint64_t)kp * rows + (uint64_t)tf32x3_split_floats(p, s)) * sizeof(float);
}

/* ---- 20 ..: CuTe rungs (seed 003's table) ------------------------------------------------- */

static const reg_param p20[] = {
    {"BM", 64, "block tile rows"}, {"BN", 64, "block tile columns"}, {"BK", 16, "k per tile"},
    {"THREADS", 64, "threads per block: 64, 128 or 256"},
};

/* A copy's thread layout divides a (rows, BK) tile, along either dimension (20_cute_naive.cu). */
static int cute_copy_fits(long rows, long bk, long threads)
{
    long r = rows < threads ? rows : threads, k = bk < threads ? bk : threads;
    return threads % r == 0 && rows % r == 0 && bk % (threads / r) == 0 && threads % k == 0 && bk % k == 0 &&
           rows % (threads / k) == 0;
}

static int check20(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bm = p[0], bn = p[1], bk = p[2], threads = p[3];
    if (threads != 64 && threads != 128 && threads != 256) return snprintf(why, n, "THREADS must be 64, 128 or 256"), 0;
    long tcn = threads >= 256 ? 16 : 8, tcm = threads / tcn;
    if (bm < 1 || bn < 1 || bk < 1 || bm % tcm || bn % tcn)
        return snprintf(why, n, "BM must be a multiple of %ld and BN of %ld (C's %ld x %ld threads)", tcm, tcn, tcm, tcn), 0;
    if (!cute_copy_fits(bm, bk, threads) || !cute_copy_fits(bn, bk, threads))
        return snprintf(why, n, "the copy threads do not tile BM x BK and BN x BK (%ld threads)", threads), 0;
    if ((bm + bn) * bk * 4 > 48 * 1024) return snprintf(why, n, "%ld bytes of static shared memory > 48 KiB", (bm + bn) * bk * 4), 0;
    if (ceil_div(s->dims[N_], bn) > 65535) return snprintf(why, n, "n / BN needs more than 65535 blocks in y"), 0;
    return fits_int(s, why, n);
}

static void geometry20(const long *p, const reg_spec *s, reg_launch *l)
{
    *l = (reg_launch){{ceil_div(s->dims[M_], p[0]), ceil_div(s->dims[N_], p[1]), 1}, {(unsigned)p[3], 1, 1}, 0};
}

/* 21 .. 23 (cute_simt.cuh): 16-byte copies of (rows, BK) tiles, threads along the contiguous dimension. */
static int cute_vector_fits(long rows, long bk, long threads, int gmem_k)
{
    if (gmem_k) {
        long tk = bk / 4 < threads ? bk / 4 : threads;
        return threads % tk == 0 && rows % (threads / tk) == 0;
    }
    long tr = rows / 4 < threads ? rows / 4 : threads;
    return threads % tr == 0 && bk % (threads / tr) == 0;
}

static const reg_param p23[] = {
    {"BM", 64, "block tile rows"}, {"BN", 64, "block tile columns"}, {"BK", 16, "k per tile"},
    {"THREADS", 64, "threads per block: 64, 128 or 256"}, {"PAD", 0, "floats added to each shared tile row"},
    {"SWIZZLE", 1, "1: XOR-swizzled shared tiles (PAD must be 0); 0: padded by PAD"},
};

static int check_cute_simt(const long *p, long pad, long swizzle, const reg_spec *s, char *why, size_t n)
{
    long bm = p[0], bn = p[1], bk = p[2], threads = p[3];
    if (!check20(p, s, why, n)) return 0;
    if (bm % 4 || bn % 4 || bk % 4) return snprintf(why, n, "BM, BN and BK must be multiples of 4 (16-byte copies)"), 0;
    if (pad < 0 || pad % 4 || swizzle < 0 || swizzle > 1 || (swizzle && pad))
        return snprintf(why, n, "PAD must be a multiple of 4, SWIZZLE 0 or 1, and not both"), 0;
    if (swizzle && (!pow2(bm) || !pow2(bn) || !pow2(bk))) return snprintf(why, n, "SWIZZLE needs BM, BN, BK powers of two"), 0;
    int acol = s->layouts[OP_A] == REG_COL, bcol = s->layouts[OP_B] == REG_COL;
    if (!cute_vector_fits(bm, bk, threads, !acol) || !cute_vector_fits(bn, bk, threads, bcol))
        return snprintf(why, n, "the 16-byte copy threads do not tile BM x BK and BN x BK (%ld threads)", threads), 0;
    long smem = ((bm + pad) + (bn + pad)) * (bk + pad) * 4;
    if (smem > 48 * 1024) return snprintf(why, n, "%ld bytes of static shared memory > 48 KiB", smem), 0;
    return 1;
}

static int check21(const long *p, const reg_spec *s, char *why, size_t n)
{
    return check_cute_simt(p, 0, 0, s, why, n);
}

static int check23(const long *p, const reg_spec *s, char *why, size_t n)
{
    return check_cute_simt(p, p[4], p[5], s, why, n);
}

/* 24, 25 (cute_blocked.cuh): register-blocked CuTe rungs with rows-contiguous shared tiles. */
static const reg_param p24[] = {
    {"BM", 128, "block tile rows"}, {"BN", 128, "block tile columns"}, {"BK", 32, "k per tile"},
    {"THREADS", 256, "threads per block: 128 or 256 (16 x THREADS/16 of them over C)"},
    {"PAD", 4, "floats added to each shared tile row"}, {"STAGES", 1, "tiles in flight (cp.async)"},
};

static long blocked_smem(const long *p)
{
    return p[5] * p[2] * (p[0] + p[4] + p[1] + p[4]) * 4;
}

/* cute_blocked.cuh's copies into a rows-contiguous (rows, BK) tile. */
static int blocked_copy_fits(long rows, long bk, long threads, int gmem_k)
{
    if (!gmem_k) {
        long tr = rows / 4 < threads ? rows / 4 : threads;
        return threads % tr == 0 && bk % (threads / tr) == 0;
    }
    long tk = bk < threads ? bk : threads;
    return threads % tk == 0 && rows % (threads / tk) == 0;
}

static int check24(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bm = p[0], bn = p[1], bk = p[2], threads = p[3], pad = p[4], stages = p[5];
    if (threads != 128 && threads != 256) return snprintf(why, n, "THREADS must be 128 or 256"), 0;
    if (bm < 64 || bm % 64 || bn < 1 || bn % (threads / 4))
        return snprintf(why, n, "BM must be a multiple of 64 and BN of %ld (4 columns per thread)", threads / 4), 0;
    if (bk < 4 || bk % 4 || pad < 0 || pad % 4) return snprintf(why, n, "BK and PAD must be multiples of 4"), 0;
    if (stages < 1 || stages > 4) return snprintf(why, n, "STAGES must be 1 .. 4"), 0;
    int acol = s->layouts[OP_A] == REG_COL, bcol = s->layouts[OP_B] == REG_COL;
    if (!blocked_copy_fits(bm, bk, threads, !acol) || !blocked_copy_fits(bn, bk, threads, bcol))
        return snprintf(why, n, "the copy threads do not tile BM x BK and BN x BK (%ld threads)", threads), 0;
    if (blocked_smem(p) > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", blocked_smem(p)), 0;
    if (ceil_div(s->dims[N_], bn) > 65535) return snprintf(why, n, "n / BN needs more than 65535 blocks in y"), 0;
    return fits_int(s, why, n);
}

static void geometry24(const long *p, const reg_spec *s, reg_launch *l)
{
    *l = (reg_launch){{ceil_div(s->dims[M_], p[0]), ceil_div(s->dims[N_], p[1]), 1}, {(unsigned)p[3], 1, 1},
                      (size_t)blocked_smem(p)};
}

static const reg_param p25[] = {
    {"BM", 128, "block tile rows"}, {"BN", 128, "block tile columns"}, {"BK", 32, "k per tile"},
    {"THREADS", 256, "threads per block: 128 or 256 (16 x THREADS/16 of them over C)"},
    {"PAD", 4, "floats added to each shared tile row"}, {"STAGES", 2, "tiles in flight (cp.async)"},
};

/* ---- 99_wrong_for_tests ------------------------------------------------------------------ */

static void wrong_geometry(const long *p, const reg_spec *s, reg_launch *l)
{
    (void)p;
    *l = (reg_launch){{ceil_div(s->dims[N_], 16), ceil_div(s->dims[M_], 16), 1}, {256, 1, 1}, 0};
}

static int wrong_check(const long *p, const reg_spec *s, char *why, size_t n)
{
    (void)p;
    if (ceil_div(s->dims[M_], 16) > 65535) return snprintf(why, n, "m / 16 needs more than 65535 blocks in y"), 0;
    return fits_int(s, why, n);
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
static int cublas_run(reg_problem *p, const long *params, tl_err *e)
{
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
static int host_naive_run(reg_problem *p, const long *params, tl_err *e)
{
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
static int host_ikj_run(reg_problem *p, const long *params, tl_err *e)
{
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
        DEV_CHECK(tl_dev_fill_f32(*fa, p->na, p->s.dist, p->s.seed, 1, st));
        DEV_CHECK(tl_dev_fill_f32(*fb, p->nb, p->s.dist, p->s.seed, 2, st));
        DEV_CHECK(tl_dev_round_bf16(p->da, *fa, p->na, st));
        DEV_CHECK(tl_dev_round_bf16(p->db, *fb, p->nb, st));
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
        DEV_CHECK(tl_dev_fill_f32(p->da, p->na, p->s.dist, p->s.seed, 1, st));
        DEV_CHECK(tl_dev_fill_f32(p->db, p->nb, p->s.dist, p->s.seed, 2, st));
    }
    return 0;
fail:
    return -1;
}

/* On the device, inputs the device can make are made there (nothing crosses the bus); the host makes
 * the others (normal) and copies them up. */
static int sgemm_problem_new(reg_problem **out, const reg_spec *s, const reg_ctx *ctx, int on_device, tl_err *e)
{
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
    size_t es = ab_size(s);
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
            DEV_CHECK(tl_dev_fill_f32(p->da, p->na, s->dist, s->seed, 1, st));
            DEV_CHECK(tl_dev_fill_f32(p->db, p->nb, s->dist, s->seed, 2, st));
        }
        DEV_CHECK(tl_dev_fill_f32(p->dc0, p->nc, s->dist, s->seed, 3, st));
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
    DEV_CHECK(tl_dev_abs_f32(fa, p->na, st));
    DEV_CHECK(tl_dev_abs_f32(fb, p->nb, st));
    CUDA_CHECK(cudaMemcpyAsync(p->dscale, p->dc0, p->nc * sizeof(float), cudaMemcpyDeviceToDevice, st));
    DEV_CHECK(tl_dev_abs_f32(p->dscale, p->nc, st));
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
        DEV_CHECK(tl_dev_verify_f32(p->dc, p->dref, p->dscale, p->nc, t->atol, t->rtol, p->dscratch, &d,
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

/* ---- the table ------------------------------------------------------------------------- */

static const reg_variant sgemm_variants[] = {
    {.name = "naive", .summary = "one thread per element of C; threadIdx.x walks rows (uncoalesced)",
     .kind = REG_NVRTC, .source = "sgemm/01_naive.cu", .entry = "sgemm_naive",
     .params = naive_params, .nparams = 2, .constraints = "BX * BY <= 1024",
     .check = naive_check, .geometry = naive_geometry},
    {.name = "gmem_coalesced", .summary = "consecutive threads own consecutive columns of C (coalesced)",
     .kind = REG_NVRTC, .source = "sgemm/02_gmem_coalesced.cu", .entry = "sgemm_gmem_coalesced",
     .params = blocksize_params, .nparams = 1, .constraints = "1 <= BLOCKSIZE <= 32",
     .check = coalesced_check, .geometry = coalesced_geometry},
    {.name = "smem_tile", .summary = "BLOCKSIZE x BLOCKSIZE tiles of A and B staged in shared memory",
     .kind = REG_NVRTC, .source = "sgemm/03_smem_tile.cu", .entry = "sgemm_smem_tile",
     .params = blocksize_params, .nparams = 1, .constraints = "1 <= BLOCKSIZE <= 32",
     .check = smem_check, .geometry = smem_geometry},
    {.name = "blocktile_1d", .summary = "TM results per thread (a column): each B load feeds TM FMAs",
     .kind = REG_NVRTC, .source = "sgemm/04_blocktile_1d.cu", .entry = "sgemm_blocktile_1d", .params = p04,
     .nparams = NPARAMS(p04), .constraints = "TM | BM; threads = BM*BN/TM in 32..1024; smem <= 48 KiB",
     .check = check04, .geometry = geometry04},
    {.name = "blocktile_2d", .summary = "TM x TN results per thread: (TM+TN) shared loads per TM*TN FMAs",
     .kind = REG_NVRTC, .source = "sgemm/05_blocktile_2d.cu", .entry = "sgemm_blocktile_2d", .params = p05,
     .nparams = NPARAMS(p05), .constraints = "TM | BM, TN | BN; threads = BM*BN/(TM*TN) in 32..1024",
     .check = check05, .geometry = geometry05},
    {.name = "vectorized", .summary = "16-byte global and shared loads, A transposed in shared memory",
     .kind = REG_NVRTC, .source = "sgemm/06_vectorized.cu", .entry = "sgemm_vectorized", .params = p05,
     .nparams = NPARAMS(p05), .constraints = "as blocktile_2d; TM, TN, BK multiples of 4",
     .check = check06, .geometry = geometry06},
    {.name = "bank_padding", .summary = "tile rows padded by PAD floats: the transposing store is conflict-free",
     .kind = REG_NVRTC, .source = "sgemm/07_bank_padding.cu", .entry = "sgemm_bank_padding", .params = p07,
     .nparams = NPARAMS(p07), .constraints = "as vectorized; PAD a multiple of 4",
     .check = check07, .geometry = geometry07},
    {.name = "bank_swizzle", .summary = "XOR-swizzled tiles instead of padding: conflict-free, no extra smem",
     .kind = REG_NVRTC, .source = "sgemm/08_bank_swizzle.cu", .entry = "sgemm_bank_swizzle", .params = p05,
     .nparams = NPARAMS(p05), .constraints = "as vectorized; BM, BN powers of two",
     .check = check08, .geometry = geometry08},
    {.name = "double_buffer", .summary = "cp.async, STAGES tiles in flight: loads overlap the FMAs",
     .kind = REG_NVRTC, .source = "sgemm/09_double_buffer.cu", .entry = "sgemm_double_buffer", .params = p09,
     .nparams = NPARAMS(p09), .constraints = "as bank_padding; STAGES 2..8; STAGES tiles <= 227 KiB",
     .check = check09, .geometry = geometry09},
    {.name = "warptile", .summary = "warp-level tiles (WM x WN, WNITER): conflict-free fragment loads",
     .kind = REG_NVRTC, .source = "sgemm/10_warptile.cu", .entry = "sgemm_warptile", .params = p10,
     .nparams = NPARAMS(p10),
     .constraints = "WM | BM, WN | BN, warp sub-tile = 32 lanes x TM x TN; threads = (BM/WM)(BN/WN)32",
     .check = check10, .geometry = geometry10},
    {.name = "hopper", .summary = "warptile for sm_90: deep pipeline, fragment double buffering, swizzle, raster",
     .kind = REG_NVRTC, .source = "sgemm/11_hopper.cu", .entry = "sgemm_hopper", .params = p11,
     .nparams = NPARAMS(p11), .nid_params = 15 /* TLDG, SKPAR, KMAJ, GRID, SK, XPF and EDGE came later */,
     .constraints = "as warptile; SWIZZLE 0 or 1 (1: BM, BN powers of two); STAGES tiles <= 227 KiB; "
                    "SPLITK 1 .. 64 (> 1: at most 65536 tiles of C); ODD 0 or 1; TLDG 0 or 1 (1: ODD 0, SWIZZLE 0, "
                    "BK % 8, BM and BN % 16, the warps dividing BK/8 x BM/16 and BK/8 x BN/16); SKPAR 0 or 1 "
                    "(1 with SPLITK > 1: a workspace of SPLITK x C padded to the tiles, under 2^31 floats); KMAJ 0 or 1 "
                    "(1: TLDG 0, SWIZZLE 0); GRID >= 0; SK 0 .. 65536 (> 0: GRID 0, SPLITK 1, SKPAR 0; a workspace "
                    "of BM x BN floats a slice)",
     .workspace = workspace11, .check = check11, .geometry = geometry11},
    {.name = "packed", .summary = "hopper on A and B packed first into a workspace: column-major A, row-major B, "
                                  "zero-padded to whole tiles (odd sizes, k-contiguous operands)",
     .kind = REG_NVRTC, .source = "sgemm/15_packed.cu", .entry = "sgemm_packed", .entry2 = "sgemm_pack",
     .entry2_first = 1, .params = p15, .nparams = NPARAMS(p15), .nid_params = NP15 /* GRID, SK, XPF, SKPAR, KEEP, TLDG and EDGE came later */,
     .workspace = workspace15,
     .constraints = "as hopper; BM, BN multiples of 32; BK divides 32 or is a multiple of it; workspace "
                    "at most 4 KP (MP + NP) bytes (an operand read in place takes none), with SK 4 BM BN bytes a slice more, "
                    "with SKPAR (SPLITK > 1) 4 SPLITK BM BN bytes a tile of C more; KEEP: the kept operand "
                    "tile-aligned (M or N a multiple of BM or BN, K of 32 and BK); TLDG: only with KEEP, for a kept "
                    "operand contiguous along k",
     .check = check15, .geometry = geometry15, .geometry2 = geometry15_pack},
    {.name = "skinny", .summary = "few rows or columns of C (m or n <= 64): the large operand read once at DRAM "
                                  "speed, any sizes and layouts, k split in slices added in order",
     .kind = REG_NVRTC, .source = "sgemm/16_skinny.cu", .entry = "sgemm_skinny", .params = p16,
     .nparams = NPARAMS(p16), .nid_params = 4 /* SPT, MINB, STAGES and KMAJ came later */, .workspace = workspace16,
     .constraints = "SIDE 0 (m <= SMAX) or 1 (n <= SMAX); SMAX 1, 2, 4, 8, 16, 24, 32, 48, 64; LPT 1, 2, 4; SPT 4, 8 "
                    "(6, 12: SMAX 24 and 48, which take one of them); MINB 1 .. 4; STAGES 0, 2 .. 8; KMAJ 0, 1 (1: STAGES 2 .. 8, a large operand contiguous along k) "
                    "(STAGES 0: two chunks within 48 KiB, so SMAX 32 needs SPT x LPT >= 16; shared memory <= 227 KiB); SLICES 1 .. 1024 (> 1: at most 65536 blocks along the large "
                    "side, a workspace of 4 x 256 x min(SMAX, SPT) x LPT bytes a block)",
     .check = check16, .geometry = geometry16},
    {.name = "mma_sync", .summary = "tensor cores (tf32, bf16): warp mma.sync 16x8 tiles, ldmatrix fragments, cp.async multistage",
     .kind = REG_NVRTC, .source = "sgemm/12_mma_sync.cu", .entry = "sgemm_mma_sync", .params = p12,
     .nparams = NPARAMS(p12), .dtypes = (1u << TF32) | (1u << BF16),
     .constraints = "WM | BM, WN | BN, 16 | WM, 8 | WN; BK a multiple of 8 (tf32) / 16 (bf16); STAGES 2..8; "
                    "smem <= 227 KiB",
     .check = check12, .geometry = geometry12},
    {.name = "wgmma", .summary = "tensor cores (tf32, bf16) on sm_90a: warpgroup MMA from swizzled smem, cp.async "
                                 "multistage (CuTe)",
     .kind = REG_NVRTC, .source = "sgemm/13_wgmma.cu", .entry = "sgemm_wgmma", .params = p13,
     .nparams = NPARAMS(p13), .dtypes = (1u << TF32) | (1u << BF16), .arch_specific = 1,
     .constraints = "BM, BN in 64..256 by 64; BK rows of 32-byte multiples; STAGES 2..8; smem <= 227 KiB; "
                    "Hopper only (sm_90a)",
     .check = check13, .geometry = geometry13},
    {.name = "wgmma_tma", .summary = "tensor cores (tf32, bf16) on sm_90a: wgmma fed by TMA, a producer warpgroup "
                                     "and an mbarrier ring (warp-specialised)",
     .kind = REG_NVRTC, .source = "sgemm/14_wgmma_tma.cu", .entry = "sgemm_wgmma_tma", .params = p14,
     .nparams = NPARAMS(p14), .dtypes = (1u << TF32) | (1u << BF16), .arch_specific = 1,
     .constraints = "wgmma's M tile (BM; BN for TF32 NN) 64, 128 or 256, the other 64..256 by 64; BM x BN <= 32768; "
                    "BK rows of 128-byte multiples; STAGES 2..8; smem <= 227 KiB; Hopper only (sm_90a)",
     .check = check14, .geometry = geometry14},
    {.name = "tf32x3", .summary = "FP32 on the tensor cores (sm_90a): each operand split in TF32 hi and lo parts, "
                                  "three wgmma products (3xTF32), FP32 accumulation; B (and A unless read in place) split "
                                  "into a workspace first",
     .kind = REG_NVRTC, .source = "sgemm/17_tf32x3.cu", .entry = "sgemm_tf32x3", .entry2 = "sgemm_tf32x3_split",
     .entry2_first = 1, .params = p17, .nparams = NPARAMS(p17), .nid_params = 5 /* SPLITK, AIN, SWAP and WAVE came later */,
     .arch_specific = 1, .workspace = workspace17,
     .constraints = "dtype f32; BM 64, 128 or 256; BN 32 .. 256 by 32; (BM from 128 on: BM / 2) x BN <= 8192; STAGES 2 .. 8; "
                    "PROMOTE >= 1; SPLITK 1 .. 64 (> 1: its parts under 2^31 floats); AIN and SWAP 0 or 1; WAVE 0 .. 65536, "
                    "with SPLITK 1; A4 0 or 1, 1 with AIN 1; "
                    "smem 4 x 32 x (BM + 2 BN) x STAGES bytes <= 227 KiB; workspace 4 KP (MP + 2 NP) bytes, 4 KP 2 NP "
                    "with A in place (sides rounded up to BM, BN and 32; with SWAP, of C^T = B^T A^T); Hopper only (sm_90a)",
     .check = check17, .geometry = geometry17, .geometry2 = geometry17_split},
    {.name = "cute_naive", .summary = "CuTe (seed 003, row 1): local_partition element copies to smem, cute::gemm",
     .kind = REG_NVRTC, .source = "sgemm/20_cute_naive.cu", .entry = "sgemm_cute_naive", .params = p20,
     .nparams = NPARAMS(p20), .constraints = "THREADS 64, 128, 256; C's threads and the copies tile BM, BN, BK",
     .check = check20, .geometry = geometry20},
    {.name = "cute_tiledcopy", .summary = "CuTe (seed 003, row 2): 128-bit TiledCopy of the tiles through registers",
     .kind = REG_NVRTC, .source = "sgemm/21_cute_tiledcopy.cu", .entry = "sgemm_cute_tiledcopy", .params = p20,
     .nparams = NPARAMS(p20), .constraints = "as cute_naive; BM, BN, BK multiples of 4; the 16-byte copies tile them",
     .check = check21, .geometry = geometry20},
    {.name = "cute_cp_async", .summary = "CuTe (seed 003, row 2): the 128-bit copies as cp.async, no register trip",
     .kind = REG_NVRTC, .source = "sgemm/22_cute_cp_async.cu", .entry = "sgemm_cute_cp_async", .params = p20,
     .nparams = NPARAMS(p20), .constraints = "as cute_tiledcopy", .check = check21, .geometry = geometry20},
    {.name = "cute_swizzle", .summary = "CuTe (seed 003, row 3): swizzled (or padded) shared tiles against bank conflicts",
     .kind = REG_NVRTC, .source = "sgemm/23_cute_swizzle.cu", .entry = "sgemm_cute_swizzle", .params = p23,
     .nparams = NPARAMS(p23), .constraints = "as cute_tiledcopy; SWIZZLE: BM, BN, BK powers of two; PAD a multiple of 4",
     .check = check23, .geometry = geometry20},
    {.name = "cute_threads_bk", .summary = "CuTe (seed 003, rows 4-5): 256 threads, BK 32, explicit register blocks",
     .kind = REG_NVRTC, .source = "sgemm/24_cute_threads_bk.cu", .entry = "sgemm_cute_threads_bk", .params = p24,
     .nparams = NPARAMS(p24),
     .constraints = "THREADS 128, 256; 64 | BM, THREADS/4 | BN; BK, PAD multiples of 4; STAGES 1..4; smem <= 227 KiB",
     .check = check24, .geometry = geometry24},
    {.name = "cute_pipeline", .summary = "CuTe (seed 003, row 6): cute_threads_bk with STAGES tiles in flight (cp.async)",
     .kind = REG_NVRTC, .source = "sgemm/25_cute_pipeline.cu", .entry = "sgemm_cute_pipeline", .params = p25,
     .nparams = NPARAMS(p25), .constraints = "as cute_threads_bk", .check = check24, .geometry = geometry24},
    {.name = "tuned", .summary = "dispatches: per problem, the rung and params that a table measured on the device "
                                 "picks (runner/dispatch.h; `table:` names another: a file of the experiment's folder, or one the "
                                 "runner carries, tilelab:sgemm/tuned_h200.table), the fastest of the candidates it "
                                 "ranks first, timed on the problem (`trials:`, default 8; 1: the table's pick)",
     .kind = REG_NVRTC, .table = "sgemm/tuned_h100.table", .dtypes = ALL_DTYPES,
     .constraints = "those of the rung the table picks; a problem no rung of the table takes is skipped"},
    {.name = "cublas", .summary = "the bar: f32 cublasSgemm, default math (no TF32); tf32 and bf16 cublasGemmEx with "
                                  "TF32 tensor cores / BF16 inputs, FP32 compute",
     .kind = REG_LIBRARY, .run = cublas_run, .dtypes = ALL_DTYPES},
    {.name = "wrong_for_tests", .summary = "deliberately wrong (drops the last k): verification must fail",
     .kind = REG_NVRTC, .source = "sgemm/99_wrong_for_tests.cu", .entry = "sgemm_wrong_for_tests",
     .check = wrong_check, .geometry = wrong_geometry, .test_only = 1},
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
    "the runner passes -DA_COL=0|1 -DB_COL=0|1 (the YAML's layout), -DTL_DTYPE_F32|TF32|BF16=1 (its dtype), " \
    "-DTL_BETA_NONZERO=0|1 (whether the case's beta is not 0: a hint, the kernel still gets beta) "         \
    "and -DNAME=value per param; M, N, K "                                                                 \
    "are any sizes >= 1, so a kernel checks its edges (kernels/sgemm/sgemm_common.cuh shows A_AT and B_AT)"

/* What a float that packed's pack copies costs, in flops of the GEMM: 8 bytes moved against the ~40
 * TFLOP/s of the H100's best SIMT rungs at ~3 TB/s is some 100; measured, 9000 x 128 x 6000 (A copied: 55 M
 * floats) took packed 64 x 64 1.31 x the time of the fastest rung that copies nothing, where at 9216 x 128
 * x 6144 (A read in place) it was the fastest, and 128 x 12000 x 2560 (B copied) 1.38 x: about 80. */
#define PACK_FLOPS 80.0
/* tf32x3's split, for each float of A (read, written) or B (read, its two parts written: 1.5 floats of A),
 * against its GEMM's ~1.5 x the SIMT rate: 120 (`runner table-check` on tuned_h100.table, each problem
 * predicted from the others: 1.040 x the fastest with 0, 1.038 with 60 - 120, 39 -> 35 problems above 1.2). */
#define X3_SPLIT_FLOPS 120.0

/* What a shape costs a tiled rung beyond its flops: the blocks (split-k slices included) dealt out over
 * the SMs, whose busiest SM sets the time (an SM's throughput is shared by the blocks it holds, so it
 * is the count over the SMs that matters, not over the resident slots: the better model on the H100
 * table's problems, each left out and predicted from the others); the tiles BM x BN past the matrix,
 * where the rung has those params; and packed's copy of the operands it does not read in place, a pass
 * over them that a skinny problem's few flops an element do not hide (the tuning measured packed at
 * problems whose tile-multiple sizes it reads in place, and it lost 30% at their unaligned neighbours),
 * and tf32x3's split of both. */
static double sgemm_dispatch_overhead(const reg_variant *v, const long *params, const reg_spec *s, int sms)
{
    double f = 1.0;
    int bm = reg_find_param(v, "BM"), bn = reg_find_param(v, "BN"), swap = reg_find_param(v, "SWAP");
    if (bm >= 0 && bn >= 0 && params[bm] > 0 && params[bn] > 0) {
        double m = (double)s->dims[M_], n = (double)s->dims[N_];
        if (swap >= 0 && params[swap]) { /* C^T's tiles: BM along n, BN along m */
            double t = m;
            m = n;
            n = t;
        }
        f *= ceil(m / params[bm]) * params[bm] * ceil(n / params[bn]) * params[bn] / (m * n);
    }
    if (v->geometry && sms > 0) {
        reg_launch l;
        v->geometry(params, s, &l);
        double blocks = (double)l.grid[0] * l.grid[1] * l.grid[2];
        if (blocks > 0) f *= ceil(blocks / sms) * sms / blocks;
    }
    if (!strcmp(v->name, "packed")) {
        int64_t mp, np, kp;
        packed_dims(params, s, &mp, &np, &kp);
        double copied = (packed_in_place(params, s, OP_A) ? 0.0 : (double)mp * kp) +
                        (packed_in_place(params, s, OP_B) ? 0.0 : (double)np * kp);
        f *= 1.0 + PACK_FLOPS * copied / (2.0 * s->dims[M_] * s->dims[N_] * s->dims[K_]);
    }
    if (!strcmp(v->name, "tf32x3")) {
        const reg_spec x = tf32x3_problem(params, s);
        int64_t mp, np, kp;
        tf32x3_dims(params, &x, &mp, &np, &kp);
        double copied = (double)kp * ((tf32x3_a_in_place(params, &x) ? 0.0 : (double)mp) + 1.5 * (double)np);
        f *= 1.0 + X3_SPLIT_FLOPS * copied / (2.0 * s->dims[M_] * s->dims[N_] * s->dims[K_]);
    }
    return f;
}

/* The dispatch's switch: SK where it cuts the last wave (at least two slices a tile left) of a problem
 * of under two waves of tiles, its twin without SK elsewhere. The tuning measured it so (tuned_h100.table,
 * packed 128 x 64 and 64 x 128): SK's rel 1.00 - 1.16 against 1.12 - 1.47 under one wave, within 1% at
 * 1.3 waves, 2% either way at 5 - 6 waves (where the last wave is a small part of the time, and the
 * hardware's schedule runs its few blocks faster than a wave's share), 1 - 8% above where it cuts nothing
 * (its code alone). */
static int sgemm_sk_cuts(const reg_variant *v, const long *params, const reg_spec *s)
{
    tile_shape t;
    if (!strcmp(v->name, "packed")) t = packed_shape(params, s);
    else if (!strcmp(v->name, "hopper")) t = tile_for(shape11(params), s);
    else return 0;
    if (t.sk < 1) return 0;
    double blocks, partials;
    sk_launch(&t, s, &blocks, &partials);
    return partials > 0 && (double)ceil_div(s->dims[M_], t.bm) * (double)ceil_div(s->dims[N_], t.bn) < 2.0 * (double)t.sk;
}

/* The dispatch's second switch: hopper's ODD on where K is not a multiple of BK (with ODD 0 every block
 * then runs its checked loop: 9000 x 128 x 6000 with A row-major, 64 x 64 tiles split 4, took 1.21 - 1.29 x
 * the fastest candidate's time with ODD 0 and 1.05 - 1.06 x with ODD 1, where at 9216 x 128 x 6144 ODD 0 was
 * the fastest); elsewhere as picked (ODD 1 also keeps edge blocks off the checked loop). */
static int sgemm_odd_needed(const reg_variant *v, const long *params, const reg_spec *s)
{
    int bk = reg_find_param(v, "BK");
    if (strcmp(v->name, "hopper") || bk < 0 || params[bk] < 1) return -1;
    return s->dims[K_] % params[bk] ? 1 : -1;
}

/* The dispatch's third switch: tf32x3's AIN off where a row-major A (C^T's A with SWAP) has rows that are not
 * 16-byte aligned (K % 4 != 0): AIN then copies A all the same, into k-major stages, which cost 15 % at
 * 4096^3 against the m-major ones of AIN 0 (H100, docs/gpu-runs.md, thirty-second session); the table's
 * rows say how AIN does where A is read in place, at neighbours that may be aligned. A column-major A
 * AIN copies into the same stages as AIN 0: as picked (switching there only followed the tuning's noise).
 * `runner table-check` on tuned_h100.table: 1.038 -> 1.036 x the fastest (37 -> 35 of 664 above 1.2);
 * against the held-out table 1.132 -> 1.122 with the first pick, 1.039 -> 1.037 with 4 trials, 1.010
 * with 8 either way. */
static int sgemm_ain_aligned(const reg_variant *v, const long *params, const reg_spec *s)
{
    if (strcmp(v->name, "tf32x3")) return -1;
    const reg_spec x = tf32x3_problem(params, s);
    return x.layouts[OP_A] == REG_ROW && !tf32x3_a_in_place(params, &x) ? 0 : -1;
}

/* `tuned`'s trial twin: a hopper or packed candidate whose tiles leave whole warp tiles past C's edge (the
 * last tile's rows past M at least WM, or its columns past N at least WN) is also timed with EDGE 1, which
 * the table never measured: those warps then compute nothing, and the others of the SM issue more (the
 * H100: 92 x 4382 x 13487 col/row, hopper 64 x 64, 0.565 -> 0.639 x cuBLAS), where the kernel's second
 * loop can cost its main one a few percent (docs/gpu-runs.md): the trial decides. */
static int sgemm_trial_twin(const reg_variant *v, const long *params, const reg_spec *s, long *twin)
{
    int e = reg_find_param(v, "EDGE");
    if (e < 0 || params[e]) return 0;
    tile_shape t = !strcmp(v->name, "packed") ? packed_shape(params, s) : tile_for(shape11(params), s);
    if (t.bm < 1 || t.bn < 1 || t.wm < 1 || t.wn < 1) return 0;
    int64_t m = s->dims[M_], n = s->dims[N_];
    if ((int64_t)ceil_div(m, t.bm) * t.bm - m < t.wm && (int64_t)ceil_div(n, t.bn) * t.bn - n < t.wn) return 0;
    memcpy(twin, params, sizeof *twin * REG_MAX_PARAMS);
    twin[e] = 1;
    return 1;
}

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
    .kernel_args = sgemm_kernel_args, .check_output = sgemm_check_output,
    .operand_tensor = sgemm_operand_tensor,
    .dispatch_overhead = sgemm_dispatch_overhead,
    .dispatch_switch = {{"SK", sgemm_sk_cuts}, {"ODD", sgemm_odd_needed}, {"AIN", sgemm_ain_aligned}},
    .trial_twin = sgemm_trial_twin,
};
