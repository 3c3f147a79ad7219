/* sgemm's SIMT ladder, 01 - 10: each rung's params, rules and launch; and the tiles the ladder, hopper and
 * packed share (sgemm_tiles: what a shape needs of the GPU, its launch, SK's schedule). */
#include <math.h>
#include <stdio.h>

#include "kernels/sgemm/sgemm_rungs.h"

/* ---- helpers every family uses ------------------------------------------------------------------------ */

unsigned sgemm_ceil_div(int64_t a, long b)
{
    return (unsigned)((a + b - 1) / b);
}

int sgemm_pow2(long x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

long sgemm_round1024(long x)
{
    return (x + 1023) / 1024 * 1024;
}

long sgemm_elem_bytes(const reg_spec *s)
{
    return s->dtype == BF16 ? 2 : 4;
}

int sgemm_fits_int(const reg_spec *s, char *why, size_t n)
{
    long long m = s->dims[M_], nn = s->dims[N_], k = s->dims[K_];
    if (m * k > MAX_ELEMS || k * nn > MAX_ELEMS || m * nn > MAX_ELEMS) {
        snprintf(why, n, "a matrix has more than 2^31-1 elements (the kernels index with int)");
        return 0;
    }
    return 1;
}

/* A check's tail that every rung with a grid of blocks along m (or n) in y has: CUDA's 65535. */
static int grid_y_fits(int64_t side, long tile, const char *what, char *why, size_t n)
{
    if (sgemm_ceil_div(side, tile) > 65535) return snprintf(why, n, "%s needs more than 65535 blocks in y", what), 0;
    return 1;
}

/* ---- 01_naive, 02_gmem_coalesced, 03_smem_tile ---------------------------------------------------------- */

const reg_param sgemm_naive_params[NAIVE_N] = {SGEMM_NAIVE(REG_PARAM_ROW, NAIVE)};
const reg_rule sgemm_naive_rules[] = {
    {"BX >= 1 && BY >= 1 && BX * BY <= 1024", "BX * BY = {BX * BY} is not 1 .. 1024 threads"},
    REG_RULES_END,
};

int sgemm_check_naive(const long *p, const reg_spec *s, char *why, size_t n)
{
    return grid_y_fits(s->dims[N_], p[NAIVE_BY], "n / BY", why, n) && sgemm_fits_int(s, why, n);
}

const reg_param sgemm_blocksize_params[BS_N] = {SGEMM_BLOCKSIZE(REG_PARAM_ROW, BS)};
const reg_rule sgemm_blocksize_rules[] = {
    {"BLOCKSIZE >= 1 && BLOCKSIZE <= 32", "BLOCKSIZE = {BLOCKSIZE} is not 1 .. 32"},
    REG_RULES_END,
};

int sgemm_check_coalesced(const long *p, const reg_spec *s, char *why, size_t n)
{
    return sgemm_fits_int(s, why, n) && grid_y_fits(s->dims[N_], p[BS_BLOCKSIZE], "n / BLOCKSIZE", why, n);
}

int sgemm_check_smem(const long *p, const reg_spec *s, char *why, size_t n)
{
    return sgemm_fits_int(s, why, n) && grid_y_fits(s->dims[M_], p[BS_BLOCKSIZE], "m / BLOCKSIZE", why, n);
}

/* ---- the tiles of 04 .. 11 and 15 ----------------------------------------------------------------------- */

static long tile_threads(const sgemm_tiles *t)
{
    return t->warptile ? (t->bm / t->wm) * (t->bn / t->wn) * 32 : t->bm * t->bn / (t->tm * t->tn);
}

/* The shared memory of a shape's stages (the rules bound it where it does not depend on the layouts). A
 * k-major tile's rows are BK floats and a pad that makes them an odd number of 16-byte chunks
 * (sgemm_tile.cuh, kmaj_pad). */
static long tile_smem(const sgemm_tiles *t)
{
    long ldk = t->bk + ((t->bk / 4) % 2 == 0 ? 4 : 8);
    long per_stage = (t->kma ? t->bm * ldk : t->bk * (t->bm + t->pad)) + (t->kmb ? t->bn * ldk : t->bk * (t->bn + t->pad));
    return (t->dynamic ? t->stages : 1) * per_stage * (long)sizeof(float);
}

/* SKPAR's partial tiles: SPLITK x BM x BN floats per tile of C (11_hopper.cu's hopper_store); 0 without. */
static double skpar_floats(const sgemm_tiles *t, const reg_spec *s)
{
    if (!t->skpar || t->splitk < 2) return 0;
    return (double)sgemm_ceil_div(s->dims[M_], t->bm) * (double)sgemm_ceil_div(s->dims[N_], t->bn) *
           (double)t->splitk * (double)(t->bm * t->bn);
}

/* SK's launch (11_hopper.cu's sk_plan_of): the D = SK floor(T / SK) tiles of the whole waves, one block
 * each, then the R = T - D tiles left in S = min(SK / R, k tiles) slices each: D + R S blocks, and R S
 * partial tiles when S > 1. */
void sgemm_tiles_sk_launch(const sgemm_tiles *t, const reg_spec *s, double *blocks, double *partials)
{
    double tiles = (double)sgemm_ceil_div(s->dims[M_], t->bm) * (double)sgemm_ceil_div(s->dims[N_], t->bn);
    double kt = t->sk_kt ? (double)t->sk_kt : (double)sgemm_ceil_div(s->dims[K_], t->bk);
    double d = floor(tiles / (double)t->sk) * (double)t->sk, r = tiles - d;
    double slices = r > 0 ? fmin(floor((double)t->sk / r), kt) : 0;
    *blocks = d + r * slices;
    *partials = slices > 1 ? r * slices : 0;
}

/* SK's partial tiles: BM x BN floats each; 0 without SK. */
static double sk_floats(const sgemm_tiles *t, const reg_spec *s)
{
    double blocks, partials;
    if (t->sk < 1) return 0;
    sgemm_tiles_sk_launch(t, s, &blocks, &partials);
    return partials * (double)(t->bm * t->bn);
}

/* The workspace hopper and packed take beyond their operands: SKPAR's and SK's partial tiles, floats. */
double sgemm_tiles_partials(const sgemm_tiles *t, const reg_spec *s)
{
    return skpar_floats(t, s) + sk_floats(t, s);
}

/* What a shape's rules cannot tell: its shared memory where k-major tiles make it depend on the layouts,
 * its grid, its workspaces, the sizes. */
int sgemm_tiles_check(const sgemm_tiles *t, const reg_spec *s, char *why, size_t n)
{
    long smem = tile_smem(t);
    if (t->kmaj && smem > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", smem), 0;
    if (!t->raster && !grid_y_fits(s->dims[M_], t->bm, "m / BM", why, n)) return 0;
    if (skpar_floats(t, s) > 2147483647.0)
        return snprintf(why, n, "SKPAR = 1: SPLITK partial copies of C (padded to the tiles) exceed 2^31-1 floats"), 0;
    if (sk_floats(t, s) > 2147483647.0)
        return snprintf(why, n, "SK = %ld: the partial tiles (BM x BN floats a slice) exceed 2^31-1 floats", t->sk), 0;
    if (t->splitk > 1 && (double)sgemm_ceil_div(s->dims[M_], t->bm) * sgemm_ceil_div(s->dims[N_], t->bn) > 65536)
        return snprintf(why, n, "SPLITK > 1 takes at most 65536 tiles of C (its turn counters)"), 0;
    return sgemm_fits_int(s, why, n);
}

void sgemm_tiles_geometry(const sgemm_tiles *t, const reg_spec *s, reg_launch *l)
{
    unsigned tm = sgemm_ceil_div(s->dims[M_], t->bm), tn = sgemm_ceil_div(s->dims[N_], t->bn);
    unsigned slices = t->splitk > 1 ? (unsigned)t->splitk : 1;
    unsigned blocks = t->raster ? tm * tn : tn;
    if (t->grid > 0 && (unsigned)t->grid < blocks) blocks = (unsigned)t->grid;
    if (t->sk > 0) {
        double b, partials;
        sgemm_tiles_sk_launch(t, s, &b, &partials);
        blocks = (unsigned)b;
    }
    *l = (reg_launch){{blocks, t->raster ? slices : tm, 1}, {(unsigned)tile_threads(t), 1, 1},
                      t->dynamic ? (size_t)tile_smem(t) : 0};
}

/* ---- 04 .. 10: each rung's params as a tile shape, and its rules --------------------------------------- */

/* The rules the ladder's tiled rungs have in common beyond sgemm_rungs.h's (RULE_TM_TN, RULE_VEC,
 * RULES_WARPTILE), written once as text pieces: the rung's own lists below put them together in the order
 * the kernels' arithmetic needs (a divisor is checked before it divides). */
#define RULE_PAD {"PAD >= 0 && PAD % 4 == 0", "PAD must be a non-negative multiple of 4"}
#define RULE_THREADS_2D {"BM * BN / (TM * TN) >= 32 && BM * BN / (TM * TN) <= 1024", \
                         "{BM * BN / (TM * TN)} threads per block, not 32 .. 1024"}
#define RULE_STATIC_SMEM(PADDED) {"BK * (" PADDED ") * 4 <= 49152", \
                                  "{BK * (" PADDED ") * 4} bytes of static shared memory > 48 KiB"}
#define RULE_STAGES {"STAGES >= 2 && STAGES <= 8", "STAGES must be 2 .. 8"}
#define RULE_DYNAMIC_SMEM(PADDED) {"STAGES * BK * (" PADDED ") * 4 <= 232448", \
                                   "{STAGES * BK * (" PADDED ") * 4} bytes of shared memory > 227 KiB"}

const reg_param sgemm_p04[P04_N] = {SGEMM_P04(REG_PARAM_ROW, P04)};
const reg_param sgemm_p05[P05_N] = {SGEMM_P05(REG_PARAM_ROW, P05)};
const reg_param sgemm_p07[P07_N] = {SGEMM_P07(REG_PARAM_ROW, P07)};
const reg_param sgemm_p09[P09_N] = {SGEMM_P09(REG_PARAM_ROW, P09)};
const reg_param sgemm_p10[P10_N] = {SGEMM_P10(REG_PARAM_ROW, P10)};

const reg_rule sgemm_rules04[] = {
    {"BM >= 1 && BN >= 1 && BK >= 1 && TM >= 1 && BM % TM == 0", "TM must divide BM and TN divide BN"},
    {"BM * BN / TM >= 32 && BM * BN / TM <= 1024", "{BM * BN / TM} threads per block, not 32 .. 1024"},
    RULE_STATIC_SMEM("BM + BN"),
    REG_RULES_END,
};
const reg_rule sgemm_rules05[] = {RULE_TM_TN, RULE_THREADS_2D, RULE_STATIC_SMEM("BM + BN"), REG_RULES_END};
const reg_rule sgemm_rules06[] = {RULE_TM_TN, RULE_VEC, RULE_THREADS_2D, RULE_STATIC_SMEM("BM + BN"), REG_RULES_END};
const reg_rule sgemm_rules07[] = {
    RULE_TM_TN, RULE_VEC, RULE_PAD, RULE_THREADS_2D, RULE_STATIC_SMEM("BM + PAD + BN + PAD"), REG_RULES_END,
};
const reg_rule sgemm_rules08[] = {
    RULE_TM_TN, RULE_VEC,
    {"BM >= 4 && BN >= 4 && 1073741824 % BM == 0 && 1073741824 % BN == 0", "BM and BN must be powers of two (swizzled tiles)"},
    RULE_THREADS_2D, RULE_STATIC_SMEM("BM + BN"),
    REG_RULES_END,
};
const reg_rule sgemm_rules09[] = {
    RULE_TM_TN, RULE_VEC, RULE_PAD, RULE_THREADS_2D, RULE_STAGES, RULE_DYNAMIC_SMEM("BM + PAD + BN + PAD"),
    REG_RULES_END,
};
const reg_rule sgemm_rules10[] = {
    RULE_TM_TN, RULE_VEC, RULE_PAD, RULES_WARPTILE, RULE_STAGES, RULE_DYNAMIC_SMEM("BM + PAD + BN + PAD"),
    REG_RULES_END,
};

static sgemm_tiles tiles04(const long *p)
{
    return (sgemm_tiles){.bm = p[P04_BM], .bn = p[P04_BN], .bk = p[P04_BK], .tm = p[P04_TM], .tn = 1};
}

static sgemm_tiles tiles05(const long *p)
{
    return (sgemm_tiles){.bm = p[P05_BM], .bn = p[P05_BN], .bk = p[P05_BK], .tm = p[P05_TM], .tn = p[P05_TN]};
}

static sgemm_tiles tiles06(const long *p)
{
    sgemm_tiles t = tiles05(p);
    t.vec = 1;
    return t;
}

static sgemm_tiles tiles07(const long *p)
{
    return (sgemm_tiles){.bm = p[P07_BM], .bn = p[P07_BN], .bk = p[P07_BK], .tm = p[P07_TM], .tn = p[P07_TN],
                         .pad = p[P07_PAD], .vec = 1};
}

static sgemm_tiles tiles08(const long *p)
{
    sgemm_tiles t = tiles06(p);
    t.swizzle = 1;
    return t;
}

static sgemm_tiles tiles09(const long *p)
{
    return (sgemm_tiles){.bm = p[P09_BM], .bn = p[P09_BN], .bk = p[P09_BK], .tm = p[P09_TM], .tn = p[P09_TN],
                         .stages = p[P09_STAGES], .pad = p[P09_PAD], .vec = 1, .dynamic = 1};
}

static sgemm_tiles tiles10(const long *p)
{
    return (sgemm_tiles){.bm = p[P10_BM], .bn = p[P10_BN], .bk = p[P10_BK], .wm = p[P10_WM], .wn = p[P10_WN],
                         .wniter = p[P10_WNITER], .tm = p[P10_TM], .tn = p[P10_TN], .stages = p[P10_STAGES],
                         .pad = p[P10_PAD], .threads = p[P10_THREADS], .vec = 1, .warptile = 1, .dynamic = 1};
}

#define TILED_RUNG(id)                                                                                     \
    int sgemm_check##id(const long *p, const reg_spec *s, char *why, size_t n)                             \
    {                                                                                                      \
        sgemm_tiles t = tiles##id(p);                                                                      \
        return sgemm_tiles_check(&t, s, why, n);                                                           \
    }                                                                                                      \
    void sgemm_geometry##id(const long *p, const reg_spec *s, reg_launch *l)                               \
    {                                                                                                      \
        sgemm_tiles t = tiles##id(p);                                                                      \
        sgemm_tiles_geometry(&t, s, l);                                                                    \
    }
TILED_RUNG(04)
TILED_RUNG(05)
TILED_RUNG(06)
TILED_RUNG(07)
TILED_RUNG(08)
TILED_RUNG(09)
TILED_RUNG(10)

/* ---- 99_wrong_for_tests ------------------------------------------------------------------------------- */

int sgemm_check_wrong(const long *p, const reg_spec *s, char *why, size_t n)
{
    (void)p;
    return grid_y_fits(s->dims[M_], 16, "m / 16", why, n) && sgemm_fits_int(s, why, n);
}

void sgemm_geometry_wrong(const long *p, const reg_spec *s, reg_launch *l)
{
    (void)p;
    *l = (reg_launch){{sgemm_ceil_div(s->dims[N_], 16), sgemm_ceil_div(s->dims[M_], 16), 1}, {256, 1, 1}, 0};
}
