/* sgemm's tensor-core rungs: 12 mma_sync (warp MMA), 13 wgmma (warpgroup MMA from shared memory, CuTe),
 * 14 wgmma_tma (the same fed by TMA and a producer warpgroup), 17 tf32x3 (FP32 accuracy from three TF32
 * products). Most of what they take depends on the dtype and the layouts (the element size, the copies'
 * directions), which the checks test; what the params alone decide are rules. */
#include <math.h>
#include <stdio.h>

#include "kernels/sgemm/sgemm_rungs.h"

#define STAGES_GROUP_M {"STAGES >= 2 && STAGES <= 8 && GROUP_M >= 1", "STAGES must be 2 .. 8, GROUP_M >= 1"}

/* The tiles of C: an int's worth at most (every rung here launches one block a tile along x). */
static int tiles_fit(int64_t m, int64_t n, long bm, long bn, char *why, size_t len)
{
    if ((double)sgemm_ceil_div(m, bm) * sgemm_ceil_div(n, bn) > 2147483647.0)
        return snprintf(why, len, "more than 2^31-1 tiles"), 0;
    return 1;
}

static int not_f32(const reg_spec *s, char *why, size_t n)
{
    if (s->dtype == F32) return snprintf(why, n, "a tensor-core rung: dtype tf32 or bf16"), 0;
    return 1;
}

/* ---- 12_mma_sync: tensor cores, warp-level MMA --------------------------------------------------------- */

const reg_param sgemm_p12[P12_N] = {SGEMM_MMA_SYNC(REG_PARAM_ROW, P12)};
const reg_rule sgemm_mma_sync_rules[] = {
    {"BM >= 1 && BN >= 1 && WM >= 1 && WN >= 1 && BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0",
     "WM must divide BM and be a multiple of 16, WN divide BN and be a multiple of 8"},
    {"BM / WM * (BN / WN) * 32 <= 1024", "{BM / WM * (BN / WN) * 32} threads per block > 1024"},
    STAGES_GROUP_M,
    REG_RULES_END,
};

/* The shared memory 12_mma_sync.cu's macros give: STAGES x (A tile + B tile), padded rows. */
static long mma_smem(const long *p, const reg_spec *s)
{
    long bm = p[P12_BM], bn = p[P12_BN], bk = p[P12_BK], es = sgemm_elem_bytes(s), vec = 16 / es;
    int acol = s->layouts[OP_A] == REG_COL, bcol = s->layouts[OP_B] == REG_COL;
    long pad_mn = s->dtype == BF16 ? vec : 2 * vec; /* 12_mma_sync.cu's PAD_MN */
    long a = acol ? bk * (bm + pad_mn) : bm * (bk + vec), b = bcol ? bn * (bk + vec) : bk * (bn + pad_mn);
    return p[P12_STAGES] * (a + b) * es;
}

int sgemm_check12(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bm = p[P12_BM], bn = p[P12_BN], bk = p[P12_BK];
    long kstep = s->dtype == BF16 ? 16 : 8, vec = 16 / sgemm_elem_bytes(s);
    if (!not_f32(s, why, n)) return 0;
    if (bk < 1 || bk % kstep || bk % vec || bm % vec || bn % vec)
        return snprintf(why, n, "BK must be a multiple of %ld (the MMA's k) and BM, BN, BK of %ld (16-byte copies)",
                        kstep > vec ? kstep : vec, vec), 0;
    long smem = mma_smem(p, s);
    if (smem > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", smem), 0;
    return tiles_fit(s->dims[M_], s->dims[N_], bm, bn, why, n) && sgemm_fits_int(s, why, n);
}

void sgemm_geometry12(const long *p, const reg_spec *s, reg_launch *l)
{
    unsigned tiles = sgemm_ceil_div(s->dims[M_], p[P12_BM]) * sgemm_ceil_div(s->dims[N_], p[P12_BN]);
    unsigned threads = (unsigned)((p[P12_BM] / p[P12_WM]) * (p[P12_BN] / p[P12_WN]) * 32);
    *l = (reg_launch){{tiles, 1, 1}, {threads, 1, 1}, (size_t)mma_smem(p, s)};
}

/* ---- 13_wgmma: tensor cores, warpgroup MMA from shared memory (CuTe, sm_90a) ------------------------------ */

const reg_param sgemm_p13[P13_N] = {SGEMM_WGMMA(REG_PARAM_ROW, P13)};
const reg_rule sgemm_wgmma_rules[] = {
    {"BM >= 64 && BM <= 256 && BM % 64 == 0 && BN >= 64 && BN <= 256 && BN % 64 == 0",
     "BM and BN must be 64, 128, 192 or 256"},
    STAGES_GROUP_M,
    REG_RULES_END,
};

/* 13_wgmma.cu's Shared struct (1024-byte aligned tiles) and the 1024 bytes it may need to align. */
static long wgmma_smem(const long *p, const reg_spec *s)
{
    long es = sgemm_elem_bytes(s), bk = p[P13_BK], stages = p[P13_STAGES];
    return sgemm_round1024(p[P13_BM] * bk * stages * es) + sgemm_round1024(p[P13_BN] * bk * stages * es) + 1024;
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

int sgemm_check13(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bm = p[P13_BM], bn = p[P13_BN], bk = p[P13_BK], es = sgemm_elem_bytes(s), vec = 16 / es;
    if (!not_f32(s, why, n)) return 0;
    if (bk < 1 || (bk * es) % 32) return snprintf(why, n, "BK must be a multiple of %ld (32-byte rows)", 32 / es), 0;
    int acol = s->layouts[OP_A] == REG_COL, bcol = s->layouts[OP_B] == REG_COL, tf32 = s->dtype == TF32;
    long nt = bm / 64 * 128;
    if (!wgmma_copy_fits(bm, bk, nt, vec, !acol, tf32 || !acol) || !wgmma_copy_fits(bn, bk, nt, vec, bcol, tf32 || bcol))
        return snprintf(why, n, "the copy threads (%ld) do not tile BM x BK and BN x BK", nt), 0;
    long smem = wgmma_smem(p, s);
    if (smem > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", smem), 0;
    return tiles_fit(s->dims[M_], s->dims[N_], bm, bn, why, n) && sgemm_fits_int(s, why, n);
}

void sgemm_geometry13(const long *p, const reg_spec *s, reg_launch *l)
{
    unsigned tiles = sgemm_ceil_div(s->dims[M_], p[P13_BM]) * sgemm_ceil_div(s->dims[N_], p[P13_BN]);
    *l = (reg_launch){{tiles, 1, 1}, {(unsigned)(p[P13_BM] / 64 * 128), 1, 1}, (size_t)wgmma_smem(p, s)};
}

/* ---- 14_wgmma_tma: the same math fed by TMA and a producer warpgroup ------------------------------------ */

const reg_param sgemm_p14[P14_N] = {SGEMM_WGMMA_TMA(REG_PARAM_ROW, P14)};
const reg_rule sgemm_wgmma_tma_rules[] = {STAGES_GROUP_M, REG_RULES_END};

static long bk14(const long *p, const reg_spec *s)
{
    return p[P14_BK] ? p[P14_BK] : 128 / sgemm_elem_bytes(s);
}

static int swap14(const reg_spec *s)
{
    return s->dtype == TF32 && s->layouts[OP_A] == REG_ROW && s->layouts[OP_B] == REG_ROW;
}

/* BM and BN, 0 resolved: 128 x 256 for the tensor cores. */
static long bm14(const long *p, const reg_spec *s)
{
    return p[P14_BM] ? p[P14_BM] : swap14(s) ? 256 : 128;
}

static long bn14(const long *p, const reg_spec *s)
{
    return p[P14_BN] ? p[P14_BN] : swap14(s) ? 128 : 256;
}

/* 14_wgmma_tma.cu's Shared struct: the tiles, the barriers (rounded to 1024), and 1024 to align. */
static long wgmma_tma_smem(const long *p, const reg_spec *s)
{
    long es = sgemm_elem_bytes(s), bk = bk14(p, s), stages = p[P14_STAGES];
    return sgemm_round1024(bm14(p, s) * bk * stages * es) + sgemm_round1024(bn14(p, s) * bk * stages * es) + 2048;
}

/* The tile of the tensor cores' A (X) and B (Y): BM x BN, or BN x BM where 14_wgmma_tma.cu computes
 * C^T = B^T A^T (TF32 with A and B row-major: B^T goes through registers, which must be wgmma's A). */
static void tiles14(const long *p, const reg_spec *s, long *xt, long *yt)
{
    *xt = swap14(s) ? bn14(p, s) : bm14(p, s);
    *yt = swap14(s) ? bm14(p, s) : bn14(p, s);
}

int sgemm_check14(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bk = bk14(p, s), es = sgemm_elem_bytes(s), xt, yt;
    if (!not_f32(s, why, n)) return 0;
    tiles14(p, s, &xt, &yt);
    const char *xn = swap14(s) ? "BN" : "BM", *yn = swap14(s) ? "BM" : "BN";
    if (xt != 64 && xt != 128 && xt != 256)
        return snprintf(why, n, "%s must be 64, 128 or 256 (the rows of wgmma's A in this layout and dtype)", xn), 0;
    if (yt < 64 || yt > 256 || yt % 64) return snprintf(why, n, "%s must be 64, 128, 192 or 256", yn), 0;
    if (xt * yt > 256 * 128)
        return snprintf(why, n, "BM x BN at most 32768 (128 accumulators a thread): %ld x %ld", bm14(p, s), bn14(p, s)),
               0;
    if (bk < 1 || (bk * es) % 128) return snprintf(why, n, "BK must be a multiple of %ld (128-byte rows)", 128 / es), 0;
    long smem = wgmma_tma_smem(p, s);
    if (smem > SMEM_OPTIN_MAX) return snprintf(why, n, "%ld bytes of shared memory > 227 KiB", smem), 0;
    return tiles_fit(s->dims[M_], s->dims[N_], bm14(p, s), bn14(p, s), why, n) && sgemm_fits_int(s, why, n);
}

void sgemm_geometry14(const long *p, const reg_spec *s, reg_launch *l)
{
    long xt, yt;
    tiles14(p, s, &xt, &yt);
    unsigned tiles = sgemm_ceil_div(s->dims[M_], bm14(p, s)) * sgemm_ceil_div(s->dims[N_], bn14(p, s));
    unsigned consumers = xt >= 128 ? 2 : 1;
    *l = (reg_launch){{tiles, 1, 1}, {(consumers + 1) * 128, 1, 1}, (size_t)wgmma_tma_smem(p, s)};
}

/* ---- 17_tf32x3: FP32 on the tensor cores, each product in three TF32 parts ------------------------------- */

const reg_param sgemm_p17[X3_N] = {SGEMM_TF32X3(REG_PARAM_ROW, X3)};
/* 17_tf32x3.cu's Shared struct: three 1024-aligned tiles a stage (A, B's hi and lo parts; BK = 32 floats),
 * the barriers, 1024 to align. */
#define X3_SMEM "(BM * 128 * STAGES + 1023) / 1024 * 1024 + 2 * ((BN * 128 * STAGES + 1023) / 1024 * 1024) + 2048"
const reg_rule sgemm_tf32x3_rules[] = {
    {"BM == 64 || BM == 128 || BM == 256", "BM must be 64, 128 or 256 (wgmma's M)"},
    {"BN >= 32 && BN <= 256 && BN % 32 == 0", "BN must be 32 .. 256, a multiple of 32"},
    {"BM / (1 + (BM >= 128)) * BN <= 8192",
     "a consumer warpgroup's tile (BM / 2 from 128 on, else BM) x BN at most 64 x 128 (two sets of 64 accumulators "
     "a thread): {BM} x {BN}"},
    {"STAGES >= 2 && STAGES <= 8 && GROUP_M >= 1 && PROMOTE >= 1 && SPLITK >= 1 && SPLITK <= 64 && "
     "(AIN == 0 || AIN == 1) && (SWAP == 0 || SWAP == 1)",
     "STAGES must be 2 .. 8, GROUP_M >= 1, PROMOTE >= 1, SPLITK 1 .. 64, AIN and SWAP 0 or 1"},
    {"WAVE >= 0 && WAVE <= 65536 && (WAVE == 0 || SPLITK == 1)",
     "WAVE must be 0 .. 65536, and goes with SPLITK 1 (it sets the slices itself)"},
    {"(A4 == 0 || A4 == 1) && (A4 == 0 || AIN == 1)",
     "A4 must be 0 or 1, and 1 only with AIN 1 (it reads the A that AIN reads in place)"},
    {X3_SMEM " <= 232448", "{" X3_SMEM "} bytes of shared memory > 227 KiB"},
    REG_RULES_END,
};

#define BK17 32L    /* 17_tf32x3.cu's BK: one 128-byte swizzle span of FP32 */
#define SPLIT_T 32L /* 17_tf32x3.cu's SPLIT_T: the split's tiles are 32 x 32 */

/* The product 17_tf32x3.cu computes: s's, or with SWAP C^T = B^T A^T: m and n swapped, its A B^T
 * (column-major where B is row-major) and its B A^T. Every tf32x3 function below takes this one. */
reg_spec sgemm_tf32x3_problem(const long *p, const reg_spec *s)
{
    reg_spec x = *s;
    if (p[X3_SWAP]) {
        x.dims[M_] = s->dims[N_];
        x.dims[N_] = s->dims[M_];
        x.layouts[OP_A] = s->layouts[OP_B] == REG_COL ? REG_ROW : REG_COL;
        x.layouts[OP_B] = s->layouts[OP_A] == REG_COL ? REG_ROW : REG_COL;
    }
    return x;
}

/* The workspace's padded sizes (17_tf32x3.cu's x3_work): M to BM, N to BN, K to 32. */
void sgemm_tf32x3_dims(const long *p, const reg_spec *s, int64_t *mp, int64_t *np, int64_t *kp)
{
    *mp = (s->dims[M_] + p[X3_BM] - 1) / p[X3_BM] * p[X3_BM];
    *np = (s->dims[N_] + p[X3_BN] - 1) / p[X3_BN] * p[X3_BN];
    *kp = (s->dims[K_] + BK17 - 1) / BK17 * BK17;
}

/* Whether the main kernel reads A in place (17_tf32x3.cu's x3_a_in_place): with AIN, wherever A's rows
 * (row-major, K % 4 == 0) or columns (column-major, M % 4 == 0) are 16-byte aligned, and with A4 where they
 * are not too; else with SPLITK > 1 or WAVE, A column-major, M a multiple of BM and K of 32. Then the split
 * copies B alone and the workspace holds no A. */
int sgemm_tf32x3_a_in_place(const long *p, const reg_spec *s)
{
    int col = s->layouts[OP_A] == REG_COL;
    if (p[X3_AIN]) return p[X3_A4] || (col ? s->dims[M_] % 4 == 0 : s->dims[K_] % 4 == 0);
    return (p[X3_SPLITK] > 1 || p[X3_WAVE] > 0) && col && s->dims[M_] % p[X3_BM] == 0 && s->dims[K_] % BK17 == 0;
}

/* The tiles of C and the slices of k a tile (17_tf32x3.cu's slices): SPLITK, or with WAVE the S of 1 .. 64
 * (and at most K's tiles of 32) that makes the least of
 *     ceil(tiles S / WAVE) (KT / S + X3_BLOCK_KT) + X3_PART_KT S   (the last term for S > 1),
 * the waves of blocks times a block's k tiles and what a block costs besides (its pipeline's fill, its part
 * or its tile written), and the parts that the last slice of a tile adds, in k tiles' time. On the H100
 * (docs/gpu-runs.md, 2026-11-25) a block's 128 x 128 x 32 k tile took about 2.2 us, a 64 KB part read back by
 * one block about 0.5 us: these put SPLITK's measured best where it is (16 tiles of 512 x 512 x 8192: 8; 144
 * of 1536 x 1536 x 2048: 4; 256 of 2048^3: 1; 48 of 1024 x 768 x 4096: 5, faster than the 2 that fill one
 * wave), where a fixed SPLITK leaves SMs idle or adds a wave: 9 tiles of 384 x 384 x 12288 make 72 blocks
 * with SPLITK 8 and 36 of 768 x 768 x 4096 make 144 with SPLITK 4. */
#define X3_BLOCK_KT 3.0
#define X3_PART_KT 0.25
static double tf32x3_tiles(const long *p, const reg_spec *s)
{
    return (double)sgemm_ceil_div(s->dims[M_], p[X3_BM]) * sgemm_ceil_div(s->dims[N_], p[X3_BN]);
}

static long tf32x3_slices(const long *p, const reg_spec *s)
{
    long wave = p[X3_WAVE];
    if (wave <= 0) return p[X3_SPLITK];
    double tiles = tf32x3_tiles(p, s), kt = (double)sgemm_ceil_div(s->dims[K_], BK17), best = 0.0;
    long pick = 1;
    for (long n = 1; n <= 64 && n <= kt; n++) {
        double t = ceil(tiles * n / wave) * (kt / n + X3_BLOCK_KT) + (n > 1 ? X3_PART_KT * n : 0.0);
        if (n == 1 || t < best) best = t, pick = n;
    }
    return pick;
}

/* The split's blocks (17_tf32x3.cu's sgemm_tf32x3_split): a 32 x 32 tile each of A (unless in place), then
 * of B. */
static double tf32x3_split_blocks(const long *p, const reg_spec *s)
{
    int64_t mp, np, kp;
    sgemm_tf32x3_dims(p, s, &mp, &np, &kp);
    return (double)(kp / SPLIT_T) * (double)((sgemm_tf32x3_a_in_place(p, s) ? 0 : mp / SPLIT_T) + np / SPLIT_T);
}

static long tf32x3_smem(const long *p)
{
    long bm = p[X3_BM], bn = p[X3_BN], stages = p[X3_STAGES];
    return sgemm_round1024(bm * BK17 * stages * 4) + 2 * sgemm_round1024(bn * BK17 * stages * 4) + 2048;
}

/* With SPLITK > 1 or WAVE, the floats of the tiles' counts (rounded to 4) and of the parts (a slice's tile
 * each; none with WAVE when the tiles take one slice each). */
static double tf32x3_split_floats(const long *p, const reg_spec *s)
{
    if (p[X3_SPLITK] <= 1 && p[X3_WAVE] <= 0) return 0.0;
    double tiles = tf32x3_tiles(p, s), slices = (double)tf32x3_slices(p, s);
    return ceil(tiles / 4) * 4 + (slices > 1 ? tiles * slices * p[X3_BM] * p[X3_BN] : 0.0);
}

int sgemm_check17(const long *p, const reg_spec *s0, char *why, size_t n)
{
    const reg_spec x = sgemm_tf32x3_problem(p, s0), *s = &x;
    int64_t mp, np, kp;
    sgemm_tf32x3_dims(p, s, &mp, &np, &kp);
    if (mp > INT32_MAX || np > INT32_MAX || kp > INT32_MAX)
        return snprintf(why, n, "a side rounded up to its tile is over 2^31-1 (the kernels index with int)"), 0;
    if (tf32x3_split_blocks(p, s) > 2147483647.0) return snprintf(why, n, "the split's blocks are over 2^31-1"), 0;
    if (tf32x3_tiles(p, s) * tf32x3_slices(p, s) > 2147483647.0)
        return snprintf(why, n, "more than 2^31-1 blocks (tiles x slices)"), 0;
    if (tf32x3_split_floats(p, s) > 2147483647.0)
        return snprintf(why, n, "%ld slices of k: their parts, the slices x C padded to the tiles, are over 2^31-1 floats",
                        tf32x3_slices(p, s)), 0;
    return sgemm_fits_int(s, why, n);
}

void sgemm_geometry17(const long *p, const reg_spec *s0, reg_launch *l)
{
    const reg_spec x = sgemm_tf32x3_problem(p, s0), *s = &x;
    unsigned tiles = (unsigned)tf32x3_tiles(p, s), consumers = p[X3_BM] >= 128 ? 2 : 1;
    *l = (reg_launch){{tiles * (unsigned)tf32x3_slices(p, s), 1, 1}, {(consumers + 1) * 128, 1, 1},
                      (size_t)tf32x3_smem(p)};
}

/* The split: a block of 32 x 8 threads a 32 x 32 tile. */
void sgemm_geometry17_split(const long *p, const reg_spec *s0, reg_launch *l)
{
    const reg_spec x = sgemm_tf32x3_problem(p, s0), *s = &x;
    *l = (reg_launch){{(unsigned)tf32x3_split_blocks(p, s), 1, 1}, {SPLIT_T, 8, 1}, 0};
}

/* A padded (unless read in place), then B's hi and lo parts padded; with SPLITK, the tiles' counts and the
 * slices' parts. */
uint64_t sgemm_workspace17(const long *p, const reg_spec *s0)
{
    const reg_spec x = sgemm_tf32x3_problem(p, s0), *s = &x;
    int64_t mp, np, kp;
    sgemm_tf32x3_dims(p, s, &mp, &np, &kp);
    uint64_t rows = (uint64_t)(sgemm_tf32x3_a_in_place(p, s) ? 0 : mp) + 2 * (uint64_t)np;
    return ((uint64_t)kp * rows + (uint64_t)tf32x3_split_floats(p, s)) * sizeof(float);
}
