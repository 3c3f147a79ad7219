/* sgemm's rungs for sm_90 on the SIMT pipes: 11 hopper (the warp tiles with deep pipelines and the flags
 * that suit skinny, odd and split problems), 15 packed (hopper on operands packed into a workspace first),
 * 16 skinny (few rows or columns of C, the large operand streamed once). */
#include <stdio.h>

#include "kernels/sgemm/sgemm_rungs.h"

/* ---- 11_hopper ---------------------------------------------------------------------------------------- */

const reg_param sgemm_p11[P11_N] = {SGEMM_HOPPER(REG_PARAM_ROW, P11)};

/* The rules hopper and packed share, in the order the kernels' arithmetic needs them (a divisor before it
 * divides): the tiles, then the flags one by one and how they combine. */
#define WARPS "BM / WM * (BN / WN)"
#define PADDED "BM + BN + 8 * (SWIZZLE == 0)" /* both tiles' rows, padded by 4 floats each unless swizzled */
#define RULES_HOPPER_TILES                                                                                   \
    {"SWIZZLE == 0 || SWIZZLE == 1", "SWIZZLE = {SWIZZLE} is not 0 or 1"},                                     \
    RULE_TM_TN,                                                                                              \
    RULE_VEC,                                                                                                \
    {"SWIZZLE == 0 || (BM >= 4 && BN >= 4 && 1073741824 % BM == 0 && 1073741824 % BN == 0)",                  \
     "BM and BN must be powers of two (swizzled tiles)"},                                                     \
    RULES_WARPTILE,                                                                                          \
    {"STAGES >= 2 && STAGES <= 8", "STAGES must be 2 .. 8"}
#define RULE_SMEM                                                                                            \
    {"STAGES * BK * (" PADDED ") * 4 <= 232448", "{STAGES * BK * (" PADDED ") * 4} bytes of shared memory > 227 KiB"}
#define RULES_HOPPER_SPLIT                                                                                   \
    {"GROUP_M >= 1 && MINB >= 1", "GROUP_M and MINB must be >= 1"},                                           \
    {"SPLITK >= 1 && SPLITK <= 64", "SPLITK must be 1 .. 64"}
#define RULE_01(NAME) {NAME " == 0 || " NAME " == 1", NAME " must be 0 or 1"}
#define RULE_TLDG_WARPS                                                                                      \
    {"TLDG == 0 || (BK / 8 * (BM / 16) % (" WARPS ") == 0 && BK / 8 * (BN / 16) % (" WARPS ") == 0)",          \
     "TLDG = 1: the warps ({" WARPS "}) must divide the tiles' blocks of 8 k x 16 rows or columns "           \
     "(BK/8 x BM/16 = {BK / 8 * (BM / 16)}, BK/8 x BN/16 = {BK / 8 * (BN / 16)})"}
#define RULES_HOPPER_SCHEDULE                                                                                \
    {"GRID >= 0 && GRID <= 1073741824", "GRID must be 0 .. 2^30"},                                            \
    {"SK >= 0 && SK <= 65536", "SK must be 0 .. 65536"},                                                      \
    {"SK == 0 || (GRID == 0 && SPLITK == 1 && SKPAR == 0)",                                                   \
     "SK > 0 needs GRID = 0, SPLITK = 1 and SKPAR = 0 (it schedules tiles and k itself)"}

const reg_rule sgemm_hopper_rules[] = {
    RULES_HOPPER_TILES,
    {"KMAJ != 0 || STAGES * BK * (" PADDED ") * 4 <= 232448", /* k-major tiles: the check, by the layouts */
     "{STAGES * BK * (" PADDED ") * 4} bytes of shared memory > 227 KiB"},
    RULES_HOPPER_SPLIT,
    RULE_01("ODD"),
    RULE_01("TLDG"),
    RULE_01("SKPAR"),
    {"TLDG == 0 || (ODD == 0 && SWIZZLE == 0 && BK % 8 == 0 && BM % 16 == 0 && BN % 16 == 0)",
     "TLDG = 1 needs ODD = 0, SWIZZLE = 0, BK a multiple of 8, BM and BN of 16"},
    RULE_TLDG_WARPS,
    RULE_01("KMAJ"),
    RULES_HOPPER_SCHEDULE,
    {"KMAJ == 0 || (TLDG == 0 && SWIZZLE == 0)", "KMAJ = 1 needs TLDG = 0 and SWIZZLE = 0"},
    RULE_01("XPF"),
    {"XPF == 0 || KMAJ == 0", "XPF = 1 needs KMAJ = 0"},
    RULE_01("EDGE"),
    REG_RULES_END,
};

/* With KMAJ, the tiles of operands contiguous along k are k-major (11_hopper.cu's KM_A, KM_B). */
sgemm_tiles sgemm_hopper_tiles(const long *p, const reg_spec *s)
{
    long kmaj = p[P11_KMAJ];
    return (sgemm_tiles){.bm = p[P11_BM], .bn = p[P11_BN], .bk = p[P11_BK], .wm = p[P11_WM], .wn = p[P11_WN],
                         .wniter = p[P11_WNITER], .tm = p[P11_TM], .tn = p[P11_TN], .stages = p[P11_STAGES],
                         .group_m = p[P11_GROUP_M], .minb = p[P11_MINB], .threads = p[P11_THREADS],
                         .pad = p[P11_SWIZZLE] ? 0 : 4, .vec = 1, .swizzle = p[P11_SWIZZLE] != 0, .warptile = 1,
                         .dynamic = 1, .raster = 1, .splitk = p[P11_SPLITK], .skpar = p[P11_SKPAR], .kmaj = kmaj,
                         .grid = p[P11_GRID], .sk = p[P11_SK], .kma = kmaj && s->layouts[OP_A] != REG_COL,
                         .kmb = kmaj && s->layouts[OP_B] == REG_COL};
}

int sgemm_check11(const long *p, const reg_spec *s, char *why, size_t n)
{
    sgemm_tiles t = sgemm_hopper_tiles(p, s);
    return sgemm_tiles_check(&t, s, why, n);
}

void sgemm_geometry11(const long *p, const reg_spec *s, reg_launch *l)
{
    sgemm_tiles t = sgemm_hopper_tiles(p, s);
    sgemm_tiles_geometry(&t, s, l);
}

uint64_t sgemm_workspace11(const long *p, const reg_spec *s)
{
    sgemm_tiles t = sgemm_hopper_tiles(p, s);
    return (uint64_t)sgemm_tiles_partials(&t, s) * sizeof(float); /* the check kept each under 2^31 floats */
}

/* ---- 15_packed: hopper on A and B packed first, and the pack that runs before it ----------------------- */

const reg_param sgemm_p15[P15_N] = {SGEMM_PACKED(REG_PARAM_ROW, P15)};

const reg_rule sgemm_packed_rules[] = {
    RULES_HOPPER_TILES,
    RULE_SMEM,
    RULES_HOPPER_SPLIT,
    RULE_01("TLDG"),
    RULE_01("SKPAR"),
    {"TLDG == 0 || (SWIZZLE == 0 && BK % 8 == 0 && BM % 16 == 0 && BN % 16 == 0)",
     "TLDG = 1 needs ODD = 0, SWIZZLE = 0, BK a multiple of 8, BM and BN of 16"},
    RULE_TLDG_WARPS,
    RULES_HOPPER_SCHEDULE,
    RULE_01("XPF"),
    RULE_01("EDGE"),
    {"BM % 32 == 0 && BN % 32 == 0 && (32 % BK == 0 || BK % 32 == 0)",
     "BM and BN must be multiples of 32, BK divide 32 or be a multiple of it"},
    {"KEEP >= 0 && KEEP <= 2", "KEEP = {KEEP} is not 0, 1 or 2"},
    REG_RULES_END,
};

#define PACK_T 32 /* 15_packed.cu's PACK_T: the pack's tiles are 32 x 32 */
#define PACK_G 4  /* 15_packed.cu's PACK_G: tiles a block of the pack copies */

/* The packed operands' sizes (15_packed.cu): M, N rounded up to the tiles, K to 32 and BK. */
void sgemm_packed_dims(const long *p, const reg_spec *s, int64_t *mp, int64_t *np, int64_t *kp)
{
    long bm = p[P15_BM], bn = p[P15_BN], bk = p[P15_BK], pk = bk > PACK_T ? bk : PACK_T;
    *mp = (s->dims[M_] + bm - 1) / bm * bm;
    *np = (s->dims[N_] + bn - 1) / bn * bn;
    *kp = (s->dims[K_] + pk - 1) / pk * pk;
}

/* Whether the GEMM reads operand i (0: A, 1: B) in place, as 15_packed.cu's packed_a_in_place and
 * packed_b_in_place decide: the one KEEP names (the check refuses it unaligned), or one laid out and padded
 * as the packed copy would be. */
int sgemm_packed_in_place(const long *p, const reg_spec *s, int i)
{
    int64_t mp, np, kp;
    if (p[P15_KEEP] == (i == OP_A ? 1 : 2)) return 1;
    sgemm_packed_dims(p, s, &mp, &np, &kp);
    if (kp != s->dims[K_]) return 0;
    return i == OP_A ? s->layouts[OP_A] == REG_COL && mp == s->dims[M_]
                     : s->layouts[OP_B] != REG_COL && np == s->dims[N_];
}

/* packed's shape for a problem: hopper's tiles without ODD and KMAJ; SK's slices count its padded k tiles. */
sgemm_tiles sgemm_packed_tiles(const long *p, const reg_spec *s)
{
    int64_t mp, np, kp;
    sgemm_packed_dims(p, s, &mp, &np, &kp);
    return (sgemm_tiles){.bm = p[P15_BM], .bn = p[P15_BN], .bk = p[P15_BK], .wm = p[P15_WM], .wn = p[P15_WN],
                         .wniter = p[P15_WNITER], .tm = p[P15_TM], .tn = p[P15_TN], .stages = p[P15_STAGES],
                         .group_m = p[P15_GROUP_M], .minb = p[P15_MINB], .threads = p[P15_THREADS],
                         .pad = p[P15_SWIZZLE] ? 0 : 4, .vec = 1, .swizzle = p[P15_SWIZZLE] != 0, .warptile = 1,
                         .dynamic = 1, .raster = 1, .splitk = p[P15_SPLITK], .skpar = p[P15_SKPAR],
                         .grid = p[P15_GRID], .sk = p[P15_SK], .sk_kt = (long)(kp / p[P15_BK])};
}

int sgemm_check15(const long *p, const reg_spec *s, char *why, size_t n)
{
    sgemm_tiles t = sgemm_packed_tiles(p, s);
    if (!sgemm_tiles_check(&t, s, why, n)) return 0;
    int64_t mp, np, kp;
    sgemm_packed_dims(p, s, &mp, &np, &kp);
    if (mp * kp > MAX_ELEMS || np * kp > MAX_ELEMS)
        return snprintf(why, n, "a packed operand has more than 2^31-1 elements (the kernels index with int)"), 0;
    long keep = p[P15_KEEP];
    if (keep && (kp != s->dims[K_] || (keep == 1 ? mp != s->dims[M_] : np != s->dims[N_])))
        return snprintf(why, n, "KEEP = %ld reads %s as it lies: %s must be a multiple of %s = %ld and k of %ld", keep,
                        keep == 1 ? "A" : "B", keep == 1 ? "m" : "n", keep == 1 ? "BM" : "BN", keep == 1 ? t.bm : t.bn,
                        t.bk > PACK_T ? t.bk : PACK_T), 0;
    int kcontig = keep == 1 ? s->layouts[OP_A] != REG_COL : keep == 2 && s->layouts[OP_B] == REG_COL;
    if (p[P15_TLDG] && !kcontig)
        return snprintf(why, n, "TLDG = 1 is for the operand KEEP reads as it lies, when it is contiguous along k "
                                "(KEEP 1 with row-major A, KEEP 2 with column-major B)"), 0;
    return 1;
}

void sgemm_geometry15(const long *p, const reg_spec *s, reg_launch *l)
{
    sgemm_tiles t = sgemm_packed_tiles(p, s);
    sgemm_tiles_geometry(&t, s, l);
}

/* The pack's blocks for one operand of ld x kp packed floats (15_packed.cu's pack_blocks): PACK_G tiles side
 * by side along the source's contiguous side, k when kmajor. */
static int64_t pack_blocks(int kmajor, int64_t ld, int64_t kp)
{
    int64_t along = (kmajor ? kp : ld) / PACK_T, across = (kmajor ? ld : kp) / PACK_T;
    return across * ((along + PACK_G - 1) / PACK_G);
}

void sgemm_geometry15_pack(const long *p, const reg_spec *s, reg_launch *l)
{
    int64_t mp, np, kp;
    sgemm_packed_dims(p, s, &mp, &np, &kp);
    int64_t blocks = (sgemm_packed_in_place(p, s, OP_A) ? 0 : pack_blocks(s->layouts[OP_A] != REG_COL, mp, kp)) +
                     (sgemm_packed_in_place(p, s, OP_B) ? 0 : pack_blocks(s->layouts[OP_B] == REG_COL, np, kp));
    *l = (reg_launch){{(unsigned)(blocks > 0 ? blocks : 1), 1, 1}, {PACK_T, 8, 1}, 0};
}

uint64_t sgemm_workspace15(const long *p, const reg_spec *s)
{
    int64_t mp, np, kp;
    sgemm_packed_dims(p, s, &mp, &np, &kp);
    uint64_t rows = (uint64_t)(sgemm_packed_in_place(p, s, OP_A) ? 0 : mp) +
                    (uint64_t)(sgemm_packed_in_place(p, s, OP_B) ? 0 : np);
    sgemm_tiles t = sgemm_packed_tiles(p, s);
    return ((uint64_t)kp * rows + (uint64_t)sgemm_tiles_partials(&t, s)) * sizeof(float);
}

/* ---- 16_skinny: few rows or columns of C, the large operand streamed once ------------------------------ */

const reg_param sgemm_p16[P16_N] = {SGEMM_SKINNY(REG_PARAM_ROW, P16)};

const reg_rule sgemm_skinny_rules[] = {
    {"SIDE == 0 || SIDE == 1", "SIDE must be 0 (m small) or 1 (n small)"},
    {"SMAX == 1 || SMAX == 2 || SMAX == 4 || SMAX == 8 || SMAX == 16 || SMAX == 24 || SMAX == 32 || SMAX == 48 || "
     "SMAX == 64", "SMAX must be 1, 2, 4, 8, 16, 24, 32, 48 or 64"},
    {"LPT == 1 || LPT == 2 || LPT == 4", "LPT must be 1, 2 or 4"},
    {"SLICES >= 1 && SLICES <= 1024", "SLICES must be 1 .. 1024"},
    {"SPT == 4 || SPT == 6 || SPT == 8 || SPT == 12", "SPT must be 4, 6, 8 or 12"},
    {"(SMAX == 24 || SMAX == 48) == (SPT == 6 || SPT == 12)",
     "SMAX 24 and 48 take SPT 6 or 12, and SPT 6 and 12 are for SMAX 24 and 48 only (whole row groups)"},
    {"MINB >= 1 && MINB <= 4", "MINB must be 1 .. 4"},
    {"STAGES == 0 || (STAGES >= 2 && STAGES <= 8)", "STAGES must be 0 (through registers) or 2 .. 8"},
    RULE_01("KMAJ"),
    {"KMAJ == 0 || STAGES != 0", "KMAJ = 1 needs STAGES 2 .. 8 (the k-major chunk is copied by cp.async)"},
    REG_RULES_END,
};

/* 16_skinny.cu's SK_SPT: the small side's rows a thread. */
static long skinny_spt(const long *p)
{
    return p[P16_SMAX] < p[P16_SPT] ? p[P16_SMAX] : p[P16_SPT];
}

/* 16_skinny.cu's tile: LT columns of the large side a block, KT k a chunk, 256 threads. */
#define SKINNY_NT 256
static void skinny_tile(const long *p, long *lt, long *kt)
{
    *lt = SKINNY_NT * skinny_spt(p) / p[P16_SMAX] * p[P16_LPT];
    *kt = 16 * SKINNY_NT / *lt;
}

/* 16_skinny.cu's SK_KM: with KMAJ, the large operand (B where SIDE is 0, A where it is 1) contiguous along k. */
static int skinny_kmajor(const long *p, const reg_spec *s)
{
    return p[P16_KMAJ] && (p[P16_SIDE] ? s->layouts[OP_A] != REG_COL : s->layouts[OP_B] == REG_COL);
}

/* 16_skinny.cu's shared memory: two chunks of both operands (STAGES 0, static), or STAGES (dynamic); the
 * large chunk KT rows of LT + 4, or with SK_KM LT rows of SK_KPAD. */
static long skinny_smem(const long *p, const reg_spec *s)
{
    long lt, kt, smax = p[P16_SMAX];
    skinny_tile(p, &lt, &kt);
    long spad = smax < 4 ? smax : smax == 4 ? 12 : smax + 4; /* 16_skinny.cu's SK_SPAD */
    long large = skinny_kmajor(p, s) ? lt * (kt + (kt / 4 % 2 ? 8 : 4)) : kt * (lt + 4);
    return (p[P16_STAGES] ? p[P16_STAGES] : 2) * (large + kt * spad) * 4;
}

/* The launch's slices: at most SLICES and one a chunk, none empty (16_skinny.cu gives slice z the chunks
 * z * per .. of ceil(chunks / slices) each). */
static long skinny_slices(const long *p, const reg_spec *s)
{
    long lt, kt;
    skinny_tile(p, &lt, &kt);
    int64_t chunks = (s->dims[K_] + kt - 1) / kt;
    int64_t z = p[P16_SLICES] < chunks ? p[P16_SLICES] : chunks, per = (chunks + z - 1) / z;
    return (long)((chunks + per - 1) / per);
}

int sgemm_check16(const long *p, const reg_spec *s, char *why, size_t n)
{
    long side = p[P16_SIDE], smax = p[P16_SMAX], stages = p[P16_STAGES];
    if (p[P16_KMAJ] && !skinny_kmajor(p, s))
        return snprintf(why, n, "KMAJ = 1 is for a large operand contiguous along k (%s), this one is contiguous along %s",
                        side ? "row-major A" : "column-major B", side ? "m" : "n"), 0;
    long lt, kt;
    skinny_tile(p, &lt, &kt);
    if (stages == 0 && skinny_smem(p, s) > 48 * 1024)
        return snprintf(why, n, "SMAX %ld with LPT %ld and SPT %ld takes more than 48 KiB of shared memory through "
                        "registers (STAGES 2 .. 8: dynamic shared memory, up to 227 KiB)", smax, p[P16_LPT],
                        p[P16_SPT]), 0;
    if (skinny_smem(p, s) > SMEM_OPTIN_MAX)
        return snprintf(why, n, "%ld bytes of shared memory > 227 KiB (fewer STAGES)", skinny_smem(p, s)), 0;
    int64_t small = s->dims[side ? N_ : M_], large = s->dims[side ? M_ : N_];
    if (small > smax) return snprintf(why, n, "%s is more than SMAX = %ld", side ? "n" : "m", smax), 0;
    if (skinny_slices(p, s) > 1 && (large + lt - 1) / lt > 65536)
        return snprintf(why, n, "with SLICES > 1, at most 65536 blocks along %s (%ld each)", side ? "m" : "n", lt), 0;
    /* 16_skinny.cu rounds the large side and k up to its tiles in int arithmetic. */
    if (large > 2147483647 - lt || s->dims[K_] > 2147483647 - kt)
        return snprintf(why, n, "%s or k within a tile (%ld, %ld) of 2^31-1", side ? "m" : "n", lt, kt), 0;
    return sgemm_fits_int(s, why, n);
}

void sgemm_geometry16(const long *p, const reg_spec *s, reg_launch *l)
{
    long lt, kt;
    skinny_tile(p, &lt, &kt);
    unsigned cols = sgemm_ceil_div(s->dims[p[P16_SIDE] ? M_ : N_], lt);
    *l = (reg_launch){{cols, (unsigned)skinny_slices(p, s), 1}, {SKINNY_NT, 1, 1},
                      p[P16_STAGES] ? (size_t)skinny_smem(p, s) : 0};
}

uint64_t sgemm_workspace16(const long *p, const reg_spec *s)
{
    long lt, kt, z = skinny_slices(p, s);
    skinny_tile(p, &lt, &kt);
    if (z < 2) return 0;
    uint64_t cols = sgemm_ceil_div(s->dims[p[P16_SIDE] ? M_ : N_], lt);
    return cols * (uint64_t)z * SKINNY_NT * (uint64_t)(skinny_spt(p) * p[P16_LPT]) * sizeof(float);
}
