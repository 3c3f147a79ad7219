/* sgemm's rungs, as the op's files share them (not a header of the runner's): each rung's params, written
 * once as a list (runner/ops/registry.h, REG_PARAM_INDEX / REG_PARAM_ROW), and what each family of rungs gives
 * the variants table (sgemm.c) and the dispatch model (sgemm_dispatch.c).
 *
 *   sgemm_simt.c      01 - 10: the SIMT ladder, and the tiles the ladder, hopper and packed share
 *   sgemm_hopper.c    11 hopper, 15 packed, 16 skinny: the ladder's top on sm_90
 *   sgemm_tc.c        12 mma_sync, 13 wgmma, 14 wgmma_tma, 17 tf32x3: the tensor cores
 *   sgemm_cute.c      20 - 25: seed 003's table in CuTe
 *   sgemm_dispatch.c  what `tuned`'s tables ask of the op (runner/ops/dispatch.h)
 *   sgemm.c           the problem (inputs, references, cuBLAS, host loops) and the variants table */
#ifndef TILELAB_SGEMM_RUNGS_H
#define TILELAB_SGEMM_RUNGS_H

#include <stdint.h>

#include "runner/ops/registry.h"

enum { M_, N_, K_ };      /* axes */
enum { OP_A, OP_B };      /* operands with a layout */
enum { ALPHA, BETA };     /* args */
enum { F32, TF32, BF16 }; /* dtypes, in the order of sgemm.c's sgemm_dtypes */
#define MAX_ELEMS 2147483647LL     /* the kernels index with 32-bit ints */
#define SMEM_OPTIN_MAX (227 * 1024) /* the largest per-block opt-in of any GPU so far (sm_90) */

/* Helpers every family uses (sgemm_simt.c). */
unsigned sgemm_ceil_div(int64_t a, long b);
int sgemm_pow2(long x);
long sgemm_round1024(long x);
long sgemm_elem_bytes(const reg_spec *s); /* A's and B's elements: 2 for bf16, else 4 */
/* 1 when every matrix has at most 2^31-1 elements, else 0 and why. */
int sgemm_fits_int(const reg_spec *s, char *why, size_t n);

/* ---- the params of each rung --------------------------------------------------------------------------- */

#define SGEMM_NAIVE(X, P)                                                                                   \
    X(P, BX, 32, "threads per block along M (threadIdx.x walks rows of C)")                               \
    X(P, BY, 32, "threads per block along N")
#define SGEMM_BLOCKSIZE(X, P) X(P, BLOCKSIZE, 32, "tile edge: BLOCKSIZE x BLOCKSIZE threads, one element of C each")
#define SGEMM_P04(X, P)                                                                                     \
    X(P, BM, 64, "block tile rows") X(P, BN, 64, "block tile columns") X(P, BK, 8, "k per tile")          \
    X(P, TM, 8, "results per thread (one column)")
#define SGEMM_P05(X, P)                                                                                     \
    X(P, BM, 128, "block tile rows") X(P, BN, 128, "block tile columns") X(P, BK, 8, "k per tile")        \
    X(P, TM, 8, "thread tile rows") X(P, TN, 8, "thread tile columns")
#define SGEMM_P07(X, P) SGEMM_P05(X, P) X(P, PAD, 4, "floats added to each tile row")
#define SGEMM_P09(X, P)                                                                                     \
    X(P, BM, 128, "block tile rows") X(P, BN, 128, "block tile columns") X(P, BK, 16, "k per tile")       \
    X(P, TM, 8, "thread tile rows") X(P, TN, 8, "thread tile columns")                                     \
    X(P, STAGES, 2, "tiles in flight (cp.async)") X(P, PAD, 4, "floats added to each tile row")
/* Defaults: the best warptile shape of experiments/sgemm_tune.yaml on the H100 (docs/results). */
#define SGEMM_P10(X, P)                                                                                     \
    X(P, BM, 128, "block tile rows") X(P, BN, 256, "block tile columns") X(P, BK, 16, "k per tile")       \
    X(P, WM, 64, "warp tile rows") X(P, WN, 64, "warp tile columns") X(P, WNITER, 2, "warp sub-tiles along n") \
    X(P, TM, 8, "thread tile rows") X(P, TN, 4, "thread tile columns")                                     \
    X(P, STAGES, 2, "tiles in flight (cp.async)") X(P, PAD, 4, "floats added to each tile row")             \
    X(P, THREADS, 0, "threads per block; 0 = derived from the tiles")

/* hopper's first params, which packed shares (its own list goes on with GRID). Defaults: the best shape of
 * experiments/sgemm_tune.yaml on the H100 (docs/results/h100-sgemm.md). */
#define SGEMM_HOPPER_TILES(X, P)                                                                            \
    X(P, BM, 128, "block tile rows") X(P, BN, 256, "block tile columns") X(P, BK, 16, "k per tile")       \
    X(P, WM, 64, "warp tile rows") X(P, WN, 64, "warp tile columns") X(P, WNITER, 4, "warp sub-tiles along n") \
    X(P, TM, 8, "thread tile rows") X(P, TN, 4, "thread tile columns")                                     \
    X(P, STAGES, 2, "tiles in flight (cp.async)")                                                          \
    X(P, GROUP_M, 8, "tile rows per rasterization group (L2 reuse)")                                       \
    X(P, MINB, 1, "__launch_bounds__ minimum blocks per SM")                                              \
    X(P, THREADS, 0, "threads per block; 0 = derived from the tiles")                                      \
    X(P, SWIZZLE, 0, "1: XOR-swizzled tiles (08); 0: padded by 4 floats (07)")                             \
    X(P, SPLITK, 1, "blocks per tile of C, each a slice of k, added in order (deterministic); 1: none")
#define SGEMM_PARAM_SKPAR(X, P)                                                                             \
    X(P, SKPAR, 0, "with SPLITK > 1, 1: slices write partial tiles to a workspace, the last to finish "   \
                   "adds them in slice order (no slice waits for another)")
#define SGEMM_PARAM_GRID(X, P)                                                                              \
    X(P, GRID, 0, "blocks launched, each computing tiles b, b + GRID, ... (a static schedule); 0: one a tile")
#define SGEMM_PARAM_SK(X, P)                                                                                \
    X(P, SK, 0, "blocks a wave (the GPU's SMs x the blocks an SM holds): the tiles past the whole waves are " \
                "cut into interleaved k slices to fill one, added in order; 0: none")
#define SGEMM_PARAM_EDGE(X, P)                                                                              \
    X(P, EDGE, 0, "1: on C's edge, a warp whose part of the tile lies wholly outside C copies its share "   \
                  "of the tiles and computes nothing (a second main loop in the kernel, which can slow "   \
                  "the first: `tuned` times it as a twin where a tile leaves whole warps empty)")
#define SGEMM_PARAM_XPF(X, P)                                                                               \
    X(P, XPF, 0, "1: the barrier before a tile's last k-slice, the next tile's first fragments loaded under " \
                 "its FMAs (needs KMAJ 0); 0: the barrier before the first")
#define SGEMM_HOPPER(X, P)                                                                                  \
    SGEMM_HOPPER_TILES(X, P)                                                                               \
    X(P, ODD, 0, "1: blocks inside C run the unchecked loop for any k and row alignment (a checked k tail, " \
                 "4-byte copies)")                                                                          \
    X(P, TLDG, 0, "1: k-contiguous tiles (row-major A, column-major B) copied 16 bytes at a time through " \
                  "registers")                                                                              \
    SGEMM_PARAM_SKPAR(X, P)                                                                                \
    X(P, KMAJ, 0, "1: k-contiguous operands (row-major A, column-major B) kept k-major in shared memory, " \
                  "read four k at a time; 0: transposed by the copy")                                       \
    SGEMM_PARAM_GRID(X, P) SGEMM_PARAM_SK(X, P) SGEMM_PARAM_XPF(X, P) SGEMM_PARAM_EDGE(X, P)
/* packed: hopper's params but ODD and KMAJ; KEEP: an operand read as it lies, not packed (with TLDG,
 * hopper's 16-byte copies through registers when it is contiguous along k). */
#define SGEMM_PACKED(X, P)                                                                                  \
    SGEMM_HOPPER_TILES(X, P)                                                                               \
    SGEMM_PARAM_GRID(X, P) SGEMM_PARAM_SK(X, P) SGEMM_PARAM_XPF(X, P) SGEMM_PARAM_SKPAR(X, P)              \
    X(P, KEEP, 0, "1: A read as it lies, not packed (M a multiple of BM, K of 32 and BK); 2: B likewise (N " \
                  "of BN); 0: both packed where not so laid out already")                                   \
    X(P, TLDG, 0, "with KEEP, 1: the kept operand, contiguous along k (row-major A, column-major B), copied " \
                  "16 bytes at a time through registers (hopper's TLDG); 0: 4 bytes at a time")             \
    SGEMM_PARAM_EDGE(X, P)
#define SGEMM_SKINNY(X, P)                                                                                  \
    X(P, SIDE, 0, "0: m is the small side (C's rows), 1: n is (its columns)")                             \
    X(P, SMAX, 8, "the small side at most: 1, 2, 4, 8, 16, 24, 32, 48 or 64 (sets the block's tile)")      \
    X(P, LPT, 4, "large-side columns a thread: 1, 2 or 4")                                                 \
    X(P, SLICES, 1, "k slices at most, 1 .. 1024 (> 1: partial results in a workspace, added in slice order)") \
    X(P, SPT, 4, "small-side rows a thread: 4 or 8 (SMAX below it: SMAX), 6 or 12 with SMAX 24 and 48; 8: " \
                 "fewer shared loads a multiply-add")                                                       \
    X(P, MINB, 1, "blocks an SM the registers must allow: 1 .. 4 (__launch_bounds__)")                     \
    X(P, STAGES, 0, "0: loads a chunk ahead through registers (two shared buffers); 2 .. 8: cp.async into a " \
                    "ring of STAGES chunks in dynamic shared memory, STAGES - 1 in flight")                 \
    X(P, KMAJ, 0, "1 (with STAGES, where the large operand is contiguous along k: row-major A at SIDE 1, " \
                  "column-major B at SIDE 0): its chunk kept k-major in the ring, copied 16 bytes at a time " \
                  "along k (K % 4 == 0)")
#define SGEMM_MMA_SYNC(X, P)                                                                                \
    X(P, BM, 128, "block tile rows") X(P, BN, 128, "block tile columns") X(P, BK, 32, "k per tile")       \
    X(P, WM, 64, "warp tile rows (16-row MMA tiles)") X(P, WN, 32, "warp tile columns (8-column MMA tiles)") \
    X(P, STAGES, 3, "tiles in flight (cp.async)")                                                          \
    X(P, GROUP_M, 8, "tile rows per rasterization group (L2 reuse)")
#define SGEMM_WGMMA(X, P)                                                                                   \
    X(P, BM, 128, "block tile rows: BM / 64 warpgroups") X(P, BN, 256, "block tile columns (the wgmma's N)") \
    X(P, BK, 32, "k per tile") X(P, STAGES, 3, "tiles in flight (cp.async)")                              \
    X(P, GROUP_M, 8, "tile rows per rasterization group (L2 reuse)")
#define SGEMM_WGMMA_TMA(X, P)                                                                               \
    X(P, BM, 0, "block tile rows, 64 .. 256 (wgmma's M: 64, 128 or 256; for TF32 NN its N); 0: 128 (TF32 NN " \
                "256)")                                                                                     \
    X(P, BN, 0, "block tile columns, 64 .. 256 (wgmma's N; for TF32 NN its M); 0: 256 (TF32 NN 128)")     \
    X(P, BK, 0, "k per stage, a multiple of 128 bytes; 0: 128 bytes (32 tf32, 64 bf16)")                  \
    X(P, STAGES, 4, "shared buffers in the producer / consumer ring")                                      \
    X(P, GROUP_M, 8, "tile rows per rasterization group (L2 reuse)")
#define SGEMM_TF32X3(X, P)                                                                                  \
    X(P, BM, 128, "block tile rows: 64, 128 or 256 (wgmma's M; 64: one consumer warpgroup, else two)")    \
    X(P, BN, 128, "block tile columns: 32 .. 256 by 32 (wgmma's N); a consumer warpgroup's rows (BM, or BM " \
                  "/ 2) x BN at most 64 x 128")                                                             \
    X(P, STAGES, 4, "shared buffers in the producer / consumer ring (A, B's hi and lo parts: 4 (BM + 2 BN) " \
                    "32 bytes each)")                                                                       \
    X(P, GROUP_M, 8, "tile rows per rasterization group (L2 reuse)")                                       \
    X(P, PROMOTE, 4, "k tiles (of 32) the tensor cores sum before the consumers add their sum into C's FP32 " \
                     "accumulators")                                                                        \
    X(P, SPLITK, 1, "blocks a tile of C, each a slice of k; the last to finish adds their parts in slice " \
                    "order (a workspace of SPLITK x BM x BN floats a tile)")                                \
    X(P, AIN, 0, "1: A read where it lies in either layout (zeros past its edges), not copied by the split, " \
                 "wherever its rows (row-major: K % 4 == 0) or columns (column-major: M % 4 == 0) are "    \
                 "16-byte aligned")                                                                         \
    X(P, SWAP, 0, "1: compute C^T = B^T A^T (B^T the A that is split in registers and, with AIN, read in " \
                  "place; tiles of BM along n and BN along m): for a small m and a large B")                \
    X(P, WAVE, 0, "with SPLITK 1: slices of k as SPLITK's, as many a tile as suit a GPU whose one wave is " \
                  "WAVE blocks (132: the H100's SMs), chosen per problem by the waves they make "          \
                  "(tf32x3_slices in sgemm_tc.c)")                                                          \
    X(P, A4, 0, "with AIN 1: A read in place also where its rows or columns are not 16-byte aligned, by "  \
                "4-byte copies (else the split copies it)")
#define SGEMM_CUTE(X, P)                                                                                    \
    X(P, BM, 64, "block tile rows") X(P, BN, 64, "block tile columns") X(P, BK, 16, "k per tile")         \
    X(P, THREADS, 64, "threads per block: 64, 128 or 256")
#define SGEMM_CUTE_SWIZZLE(X, P)                                                                            \
    SGEMM_CUTE(X, P) X(P, PAD, 0, "floats added to each shared tile row")                                 \
    X(P, SWIZZLE, 1, "1: XOR-swizzled shared tiles (PAD must be 0); 0: padded by PAD")
#define SGEMM_CUTE_BLOCKED(X, P, STAGES_DEFAULT)                                                           \
    X(P, BM, 128, "block tile rows") X(P, BN, 128, "block tile columns") X(P, BK, 32, "k per tile")       \
    X(P, THREADS, 256, "threads per block: 128 or 256 (16 x THREADS/16 of them over C)")                   \
    X(P, PAD, 4, "floats added to each shared tile row") X(P, STAGES, STAGES_DEFAULT, "tiles in flight (cp.async)")

/* The index of each param in its list: NAIVE_BX, P11_SPLITK, X3_AIN, ... and each list's length. */
enum { SGEMM_NAIVE(REG_PARAM_INDEX, NAIVE) NAIVE_N };
enum { SGEMM_BLOCKSIZE(REG_PARAM_INDEX, BS) BS_N };
enum { SGEMM_P04(REG_PARAM_INDEX, P04) P04_N };
enum { SGEMM_P05(REG_PARAM_INDEX, P05) P05_N };
enum { SGEMM_P07(REG_PARAM_INDEX, P07) P07_N };
enum { SGEMM_P09(REG_PARAM_INDEX, P09) P09_N };
enum { SGEMM_P10(REG_PARAM_INDEX, P10) P10_N };
enum { SGEMM_HOPPER(REG_PARAM_INDEX, P11) P11_N };
enum { SGEMM_PACKED(REG_PARAM_INDEX, P15) P15_N };
enum { SGEMM_SKINNY(REG_PARAM_INDEX, P16) P16_N };
enum { SGEMM_MMA_SYNC(REG_PARAM_INDEX, P12) P12_N };
enum { SGEMM_WGMMA(REG_PARAM_INDEX, P13) P13_N };
enum { SGEMM_WGMMA_TMA(REG_PARAM_INDEX, P14) P14_N };
enum { SGEMM_TF32X3(REG_PARAM_INDEX, X3) X3_N };
enum { SGEMM_CUTE(REG_PARAM_INDEX, P20) P20_N };
enum { SGEMM_CUTE_SWIZZLE(REG_PARAM_INDEX, P23) P23_N };
enum { SGEMM_CUTE_BLOCKED(REG_PARAM_INDEX, P24, 1) P24_N };

/* ---- what each family gives the variants table ------------------------------------------------------- */

typedef int sgemm_check_fn(const long *p, const reg_spec *s, char *why, size_t n);
typedef void sgemm_geometry_fn(const long *p, const reg_spec *s, reg_launch *l);
typedef uint64_t sgemm_workspace_fn(const long *p, const reg_spec *s);

/* Rule pieces the SIMT families share (sgemm_simt.c's ladder, sgemm_hopper.c's hopper and packed), as text
 * that each rung's list puts in the order its arithmetic needs (a divisor is checked before it divides). */
#define RULE_TM_TN {"BM >= 1 && BN >= 1 && BK >= 1 && TM >= 1 && TN >= 1 && BM % TM == 0 && BN % TN == 0", \
                    "TM must divide BM and TN divide BN"}
#define RULE_VEC {"TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0", "TM, TN and BK must be multiples of 4 (16-byte loads)"}
/* The warp tiles (10, 11, 15): WMITER = WM WN / (32 TM TN WNITER) warp sub-tiles along m, each of WM / WMITER
 * x WN / WNITER, 32 lanes of TM x TN. */
#define WMITER "WM * WN / (32 * TM * TN * WNITER)"
#define WARP_THREADS "BM / WM * (BN / WN) * 32"
#define RULES_WARPTILE                                                                                       \
    {"WM >= 1 && WN >= 1 && WNITER >= 1 && BM % WM == 0 && BN % WN == 0 && WN % WNITER == 0",                 \
     "WM must divide BM, WN divide BN, WNITER divide WN"},                                                    \
    {"WM * WN % (32 * TM * TN * WNITER) == 0", "WM * WN is not a multiple of 32 * TM * TN * WNITER"},          \
    {WMITER " >= 1 && WM % (" WMITER ") == 0", "WMITER = {" WMITER "} does not divide WM"},                  \
    {"WM / (" WMITER ") % TM == 0 && WN / WNITER % TN == 0 && WM / (" WMITER ") / TM * (WN / WNITER / TN) == 32", \
     "a warp sub-tile of {WM / (" WMITER ")} x {WN / WNITER} is not 32 lanes of TM x TN"},                   \
    {WARP_THREADS " >= 32 && " WARP_THREADS " <= 1024", "{" WARP_THREADS "} threads per block, not 32 .. 1024"}, \
    {"THREADS == 0 || THREADS == " WARP_THREADS, "THREADS = {THREADS}, the tiles need {" WARP_THREADS "} (0 = derived)"}

/* sgemm_simt.c */
extern const reg_param sgemm_naive_params[NAIVE_N], sgemm_blocksize_params[BS_N], sgemm_p04[P04_N],
    sgemm_p05[P05_N], sgemm_p07[P07_N], sgemm_p09[P09_N], sgemm_p10[P10_N];
extern const reg_rule sgemm_naive_rules[], sgemm_blocksize_rules[], sgemm_rules04[], sgemm_rules05[],
    sgemm_rules06[], sgemm_rules07[], sgemm_rules08[], sgemm_rules09[], sgemm_rules10[];
sgemm_check_fn sgemm_check_naive, sgemm_check_coalesced, sgemm_check_smem, sgemm_check04, sgemm_check05,
    sgemm_check06, sgemm_check07, sgemm_check08, sgemm_check09, sgemm_check10, sgemm_check_wrong;
sgemm_geometry_fn sgemm_geometry04, sgemm_geometry05, sgemm_geometry06, sgemm_geometry07, sgemm_geometry08,
    sgemm_geometry09, sgemm_geometry10, sgemm_geometry_wrong;

/* sgemm_hopper.c */
extern const reg_param sgemm_p11[P11_N], sgemm_p15[P15_N], sgemm_p16[P16_N];
extern const reg_rule sgemm_hopper_rules[], sgemm_packed_rules[], sgemm_skinny_rules[];
sgemm_check_fn sgemm_check11, sgemm_check15, sgemm_check16;
sgemm_geometry_fn sgemm_geometry11, sgemm_geometry15, sgemm_geometry15_pack, sgemm_geometry16;
sgemm_workspace_fn sgemm_workspace11, sgemm_workspace15, sgemm_workspace16;

/* sgemm_tc.c */
extern const reg_param sgemm_p12[P12_N], sgemm_p13[P13_N], sgemm_p14[P14_N], sgemm_p17[X3_N];
extern const reg_rule sgemm_mma_sync_rules[], sgemm_wgmma_rules[], sgemm_wgmma_tma_rules[], sgemm_tf32x3_rules[];
sgemm_check_fn sgemm_check12, sgemm_check13, sgemm_check14, sgemm_check17;
sgemm_geometry_fn sgemm_geometry12, sgemm_geometry13, sgemm_geometry14, sgemm_geometry17, sgemm_geometry17_split;
sgemm_workspace_fn sgemm_workspace17;

/* sgemm_cute.c */
extern const reg_param sgemm_p20[P20_N], sgemm_p23[P23_N], sgemm_p24[P24_N], sgemm_p25[P24_N];
extern const reg_rule sgemm_cute_rules[], sgemm_cute_vec_rules[], sgemm_cute_swizzle_rules[],
    sgemm_cute_blocked_rules[];
sgemm_check_fn sgemm_check20, sgemm_check21, sgemm_check23, sgemm_check24;
/* The blocked rungs' (24, 25) pipeline of STAGES (BM + PAD, BK) and (BN + PAD, BK) float tiles: their rule's
 * bound and their launch's dynamic shared memory. */
#define SGEMM_CUTE_BLOCKED_SMEM "STAGES * BK * (BM + PAD + BN + PAD) * 4"

extern const reg_op sgemm_op; /* sgemm.c */

/* ---- what the dispatch model reads of the rungs ---------------------------------------------------- */

/* A tiled rung's shape (04 .. 11, 15), gathered from its params (absent ones 0). */
typedef struct {
    long bm, bn, bk, tm, tn, wm, wn, wniter, stages, pad, group_m, minb, threads;
    int vec;      /* 16-byte loads: TM, TN, BK multiples of 4 */
    int swizzle;  /* swizzled tiles: BM, BN powers of two */
    int warptile; /* threads from the warp tiles */
    int dynamic;  /* pipelined: STAGES tiles in dynamic shared memory */
    int raster;   /* 1-D grid, rasterized in the kernel */
    long splitk;  /* hopper's SPLITK: blocks per tile of C, each a slice of k (0 or 1: none) */
    long skpar;   /* hopper's SKPAR: 0 or 1 */
    long kmaj;    /* hopper's KMAJ: 0 or 1 */
    long grid;    /* hopper's and packed's GRID: blocks launched (a static schedule of the tiles); 0: one a tile */
    long sk;      /* hopper's and packed's SK: blocks a wave, the last wave cut into k slices; 0: none */
    long sk_kt;   /* with SK, the kernel's k tiles (packed: K padded); 0: ceil(K / BK) */
    int kma, kmb; /* with KMAJ, A's and B's tiles k-major (the operand contiguous along k) */
} sgemm_tiles;

/* sgemm_simt.c: what a shape's rules cannot tell (1, or 0 and why), its launch, the floats of SKPAR's and
 * SK's partial tiles, and SK's launch (11_hopper.cu's sk_plan_of): blocks, and partial tiles. */
int sgemm_tiles_check(const sgemm_tiles *t, const reg_spec *s, char *why, size_t n);
void sgemm_tiles_geometry(const sgemm_tiles *t, const reg_spec *s, reg_launch *l);
double sgemm_tiles_partials(const sgemm_tiles *t, const reg_spec *s);
void sgemm_tiles_sk_launch(const sgemm_tiles *t, const reg_spec *s, double *blocks, double *partials);
/* sgemm_hopper.c: hopper's and packed's shapes for a problem. */
sgemm_tiles sgemm_hopper_tiles(const long *p, const reg_spec *s);
sgemm_tiles sgemm_packed_tiles(const long *p, const reg_spec *s);
/* packed's operands padded to its tiles (15_packed.cu), and whether it reads operand i (OP_A, OP_B) in place. */
void sgemm_packed_dims(const long *p, const reg_spec *s, int64_t *mp, int64_t *np, int64_t *kp);
int sgemm_packed_in_place(const long *p, const reg_spec *s, int i);
/* sgemm_tc.c: the product tf32x3 computes (with SWAP, C^T = B^T A^T), its workspace's padded sizes, and
 * whether it reads A in place. */
reg_spec sgemm_tf32x3_problem(const long *p, const reg_spec *s);
void sgemm_tf32x3_dims(const long *p, const reg_spec *s, int64_t *mp, int64_t *np, int64_t *kp);
int sgemm_tf32x3_a_in_place(const long *p, const reg_spec *s);

#endif
