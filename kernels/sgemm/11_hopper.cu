// 11_hopper: the warptile kernel (10) tuned for sm_90, with the flags that suit split, skinny and odd problems.
//
// What the earlier rungs taught, applied with Hopper's resources (227 KB of shared memory a block, 64K
// registers an SM, 50 MB of L2):
// - deeper pipelines: STAGES tiles in flight in dynamic shared memory above the 48 KB default;
// - fragment double buffering: the registers for k + 1 are loaded from shared memory while the FMAs of k
//   run, so the FMA pipe never waits on a shared load inside a tile;
// - padded tiles (07) by default, the swizzle of 08 as SWIZZLE = 1 (its XOR sits in every fragment load);
// - few instructions besides the FMAs: a block whose tiles all lie inside the matrices (checked once) runs a
//   main loop whose tile copies have no bounds checks, compile-time trip counts and one running address a
//   thread; the others run the checked loop. Two instantiations, not one loop with both paths: in one, the
//   compiler keeps the checked path's addresses live and spills;
// - A's transposing 4-byte copies go warp by warp in blocks of 8 k x 4 m: conflict-free shared stores and
//   full 32-byte sectors (sgemm_tile.cuh);
// - block rasterization: blocks run in groups of GROUP_M tile rows, so that the A and B tiles that
//   concurrently resident blocks need overlap and stay in L2; MINB, __launch_bounds__' minimum resident
//   blocks an SM, caps the registers a thread.
// The flags (0 is off; the registry's rules say which combine):
// - SPLITK: few tiles of C and a long k (512 x 512 x 8192 is 16 tiles for 132 SMs): SPLITK blocks share a
//   tile, each a slice of the k tiles, and add their slices into C in slice order (slice z waits for z - 1
//   through a per-tile turn counter), so the result is the same on every run; slice 0 applies beta. The
//   slices are the grid's y, dispatched after every block of the slice before: a waiting block never holds
//   the SM its predecessor needs. SKPAR = 1: no slice waits; each writes its partial tile to the workspace,
//   and the last of a tile's slices to finish (a per-tile arrival count) adds them in slice order and stores
//   C: one store a tile instead of SPLITK in a chain, which many slices (deep k on a small C) need.
// - ODD = 1: odd sizes at the speed of aligned ones. Every block runs the unchecked loop over the whole k
//   tiles and one checked tile for K's remainder, and copies rows that are not 16-byte aligned 4 bytes at a
//   time; a block on C's edge clamps its copies to the last rows and columns inside A and B (what the clamped
//   ones compute is never stored), so the edge blocks, which decide the time of a problem of one wave, are as
//   fast as the rest. Not the default: the extra paths cost the large default tiles registers.
// - TLDG = 1: an operand contiguous along k (row-major A, column-major B) goes to its transposed tile 16
//   bytes at a time through registers, loaded a tile ahead (sgemm_tile.cuh, tile_ldg_kmajor), instead of by
//   4-byte cp.async: a quarter of the L1 requests. Interior blocks of problems with K % BK == 0 only.
// - KMAJ = 1: the other way to a k-contiguous operand: its tile stays k-major in shared memory (rows of BK
//   floats and a pad, sgemm_tile.cuh's kmaj_at), copied 16 bytes at a time as it lies, and the inner loop
//   takes four k-slices at once, one 16-byte load along k a row of the fragment. Its fragments are
//   interleaved (a lane's rows or columns LANES_M or LANES_N apart), so that a quarter-warp's loads hit
//   consecutive rows, conflict-free; the lane's results are stored to match. For skinny problems whose large
//   operand is k-contiguous, where packing it (15) costs a quarter of the GEMM; four k-slices of fragments
//   cost registers, so it suits small warp tiles.
// - GRID: a static schedule of the tiles over min(GRID, tiles) blocks (sgemm_hopper below).
// - SK: the last, partial wave cut finer, for SK blocks a wave (the GPU's SMs x the blocks of the kernel an
//   SM takes): whole waves of tiles run as without SK; the tiles left are each cut into as many interleaved
//   k slices as a wave has room for, whose partial tiles the last slice to arrive adds up in slice order (as
//   SKPAR: no block waits, the same sum every run). For problems of 1.25 or 1.33 waves of tiles, whose last
//   wave otherwise runs partly empty.
// - XPF = 1: the barrier before a tile's last k-slice instead of before its first, and the next tile's
//   first fragments loaded while that slice's FMAs run, over stages unrolled to constant addresses (what
//   cuBLAS's own SIMT kernels do), so that warps do not wait at the top of each tile for its first fragments.
// - EDGE = 1: on C's edge, a warp whose WM x WN of the tile lies wholly outside C still copies its share of
//   each tile and meets every barrier, but loads no fragments and runs no FMAs, so that the SM's other warps
//   issue more. A param and not always on: the idle warps' loop, a second instantiation, changes how the
//   compiler allocates the main loop's registers; `tuned` times it as a twin of its candidates where their
//   tiles leave whole warps empty (kernels/sgemm/sgemm_dispatch.c).
// What each flag measured, and where, is in docs/gpu-runs.md. Defaults: the best shape of
// experiments/sgemm_tune.yaml on the H100 (docs/results/h100-sgemm.md): 128 x 256 x 16 tiles, 64 x 64 warp
// tiles in 1 x 4 sub-tiles of 8 x 4 a lane, 2 stages.
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef WNITER
#define WNITER 4
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 4
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef MINB
#define MINB 1
#endif
#ifndef SWIZZLE
#define SWIZZLE 0
#endif
#ifndef SPLITK
#define SPLITK 1
#endif
#ifndef ODD
#define ODD 0
#endif
#ifndef TLDG
#define TLDG 0
#endif
#ifndef SKPAR
#define SKPAR 0
#endif
#ifndef KMAJ
#define KMAJ 0
#endif
#ifndef GRID
#define GRID 0
#endif
#ifndef SK
#define SK 0
#endif
#ifndef XPF
#define XPF 0
#endif
#ifndef EDGE
#define EDGE 0
#endif
#define PAD (SWIZZLE ? 0 : 4)
#define NT ((BM / WM) * (BN / WN) * 32)
#include "sgemm_warptile.cuh"

#define LDA (BM + PAD)
#define LDB (BN + PAD)
// KMAJ: which tiles are k-major (kmaj_at): those of operands contiguous along k.
#define KM_A (KMAJ && !A_COL)
#define KM_B (KMAJ && B_COL)
#define LDK (BK + kmaj_pad(BK)) // floats per row of a k-major tile
#define A_FLOATS (KM_A ? BM * LDK : BK * LDA)
#define B_FLOATS (KM_B ? BN * LDK : BK * LDB)
#define STAGE_FLOATS (A_FLOATS + B_FLOATS)

// How a block copies its tiles: every copy checked; none (the block's tiles lie inside the operands,
// which the kernel checks once); or none along k, with m and n clamped (an edge block of C over whole
// k tiles: its rows and columns past M or N read the last ones, and their results are not stored).
enum { LOAD_CHECKED, LOAD_INTERIOR, LOAD_CLAMPED };

// One operand tile of stage s, copied as LOAD says; VEC16: the rows copied along m or n (with KMAJ, those
// of k-major tiles along k too) are 16-byte aligned (else those copies go 4 bytes at a time).
// REG_A, REG_B: that operand goes through registers (TLDG), not here.
template <int LOAD, bool VEC16, bool REG_A = false, bool REG_B = false>
__device__ __forceinline__ void hopper_load(float *stage, const float *__restrict__ A, const float *__restrict__ B,
                                            int M, int N, int K, int k0, int row0, int col0, int tid)
{
    float *As = stage, *Bs = stage + A_FLOATS;
    if (LOAD != LOAD_CHECKED) {
        constexpr bool CLAMP = LOAD == LOAD_CLAMPED;
        if (KM_A) tile_kmaj_interior<BK, LDK, BM, NT, VEC16, CLAMP>(As, A, K, k0, row0, tid, M);
        else if (!REG_A)
            tile_load_async_interior<BK, BM, LDA, NT, !A_COL, SWIZZLE, VEC16, CLAMP>(As, A, A_COL ? M : K, k0, row0, tid, M);
        if (KM_B) tile_kmaj_interior<BK, LDK, BN, NT, VEC16, CLAMP>(Bs, B, K, k0, col0, tid, N);
        else if (!REG_B)
            tile_load_async_interior<BK, BN, LDB, NT, B_COL, SWIZZLE, VEC16, CLAMP>(Bs, B, B_COL ? K : N, k0, col0, tid, N);
    } else {
        if (KM_A) tile_kmaj_checked<BK, LDK, BM, NT>(As, A, K, K, M, k0, row0, tid);
        else tile_load_async_checked<BK, BM, LDA, NT, !A_COL, SWIZZLE>(As, A, A_COL ? M : K, K, M, k0, row0, tid);
        if (KM_B) tile_kmaj_checked<BK, LDK, BN, NT>(Bs, B, K, K, N, k0, col0, tid);
        else tile_load_async_checked<BK, BN, LDB, NT, B_COL, SWIZZLE>(Bs, B, B_COL ? K : N, K, N, k0, col0, tid);
    }
}

// The FMAs of one stage's tiles: k-slice by k-slice, the fragments of k + 1 loaded while those of k are
// used; with KMAJ four k-slices at a time (a k-major tile's fragment is one 16-byte load for four k).
__device__ __forceinline__ void hopper_tile_fma(const float *As, const float *Bs, int wrow, int wcol, int lrow,
                                                int lcol, float *acc)
{
#if KMAJ
#pragma unroll
    for (int k = 0; k < BK; k += 4) {
        float regM[4][WMITER * TM], regN[4][WNITER * TN];
        warptile_fragments_k4<KM_A, KM_B, LDA, LDB, LDK>(As, Bs, k, wrow, wcol, lrow, lcol, regM, regN);
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) warptile_fma(acc, regM[kk], regN[kk]);
    }
#else
    float regM[2][WMITER * TM], regN[2][WNITER * TN];
    warptile_fragments<LDA, LDB, SWIZZLE>(As, Bs, 0, wrow, wcol, lrow, lcol, regM[0], regN[0]);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        if (k + 1 < BK)
            warptile_fragments<LDA, LDB, SWIZZLE>(As, Bs, k + 1, wrow, wcol, lrow, lcol, regM[(k + 1) & 1],
                                                  regN[(k + 1) & 1]);
        warptile_fma(acc, regM[k & 1], regN[k & 1]);
    }
#endif
}

// The pipelined main loop. Instantiated twice, for interior blocks and for the others: in one loop
// with both paths the compiler keeps the checked path's addresses live across the FMAs, and spills.
// k tiles t0, t0 + step, ... below t1 of the block's tile (step > 1: SK's interleaved slices).
// DEAD (EDGE, above): for a warp whose WM x WN of the tile lies wholly outside C (hopper_warp_dead): it
// copies its share of each tile and meets every barrier, but loads no fragments and runs no FMAs. (The
// block's other warps run the loop without DEAD: a CTA barrier counts the warps that arrive, wherever in
// the code they wait, and both loops meet the same barriers in the same order.)
template <int LOAD, bool VEC16, bool DEAD = false>
__device__ __forceinline__ void hopper_mainloop(float *smem, const float *__restrict__ A, const float *__restrict__ B,
                                                int M, int N, int K, int row0, int col0, int t0, int t1, float *acc,
                                                int step = 1)
{
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / WARPS_N, wcol = warp % WARPS_N, lrow = lane / LANES_N, lcol = lane % LANES_N;
    const int ntiles = (t1 - t0 + step - 1) / step; // t1 >= t0
    // TLDG: the k-contiguous operands of an interior block (rows 16-byte aligned: K % BK == 0) go through
    // registers, loaded one tile before they are stored into their stage.
    constexpr bool REG_A = TLDG && LOAD == LOAD_INTERIOR && !A_COL, REG_B = TLDG && LOAD == LOAD_INTERIOR && B_COL;
    // (Only a register path that is taken instantiates its copies: other tiles need not split into its blocks.)
    float4 ra[REG_A ? tile_kmajor<BK, BM, NT>::PER_THREAD : 1], rb[REG_B ? tile_kmajor<BK, BN, NT>::PER_THREAD : 1];
#define HOPPER_LDG(tile)                                                                                      \
    do {                                                                                                      \
        if constexpr (REG_A) tile_ldg_kmajor<BK, BM, NT>(ra, A, K, (t0 + (tile) * step) * BK, row0, tid);     \
        if constexpr (REG_B) tile_ldg_kmajor<BK, BN, NT>(rb, B, K, (t0 + (tile) * step) * BK, col0, tid);     \
    } while (0)
#define HOPPER_STS(stage)                                                                                     \
    do {                                                                                                      \
        if constexpr (REG_A) tile_sts_kmajor<BK, BM, LDA, NT>((stage), ra, tid);                              \
        if constexpr (REG_B) tile_sts_kmajor<BK, BN, LDB, NT>((stage) + A_FLOATS, rb, tid);                   \
    } while (0)
// Tile next's copies into stage (the registers hold tile next, loaded during the tile before; then the
// one after it goes into them), and the commit of its group (empty past the last tile).
#define HOPPER_NEXT(stage, next)                                                                              \
    do {                                                                                                      \
        const int next_tile = (next);                                                                         \
        if (next_tile < ntiles) {                                                                             \
            float *next_stage = (stage);                                                                      \
            hopper_load<LOAD, VEC16, REG_A, REG_B>(next_stage, A, B, M, N, K, (t0 + next_tile * step) * BK, row0, \
                                                   col0, tid);                                                \
            if (REG_A || REG_B) {                                                                             \
                HOPPER_STS(next_stage);                                                                       \
                if (next_tile + 1 < ntiles) HOPPER_LDG(next_tile + 1);                                        \
            }                                                                                                 \
        }                                                                                                     \
        cp_async_commit();                                                                                    \
    } while (0)

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) {
            hopper_load<LOAD, VEC16, REG_A, REG_B>(smem + s * STAGE_FLOATS, A, B, M, N, K, (t0 + s * step) * BK, row0, col0,
                                                   tid);
            if (REG_A || REG_B) {
                HOPPER_LDG(s);
                HOPPER_STS(smem + s * STAGE_FLOATS);
            }
        }
        cp_async_commit();
    }
    if ((REG_A || REG_B) && STAGES - 1 < ntiles) HOPPER_LDG(STAGES - 1);
#if XPF
    // The barrier before a tile's last k-slice instead of before its first: the next tile's first
    // fragments are loaded while the last slice's FMAs run. The stages go round in an unrolled loop, so
    // that every stage's address is a constant (the loop's code is STAGES tiles long; rolled, with a
    // running offset, it was 5 - 13% slower on the H100).
    if (ntiles > 0) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
    }
    float regM[2][WMITER * TM], regN[2][WNITER * TN];
    if constexpr (!DEAD)
        warptile_fragments<LDA, LDB, SWIZZLE>(smem, smem + A_FLOATS, 0, wrow, wcol, lrow, lcol, regM[0], regN[0]);
    for (int t0s = 0; t0s < ntiles; t0s += STAGES) {
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            const int t = t0s + s;
            if (t >= ntiles) break;
            const float *As = smem + s * STAGE_FLOATS, *An = smem + ((s + 1) % STAGES) * STAGE_FLOATS;
            float *stage = smem + ((s + STAGES - 1) % STAGES) * STAGE_FLOATS; // tile t + STAGES - 1's
#pragma unroll
            for (int k = 0; k < BK; ++k) {
                if (k + 1 < BK) {
                    if constexpr (!DEAD)
                        warptile_fragments<LDA, LDB, SWIZZLE>(As, As + A_FLOATS, k + 1, wrow, wcol, lrow, lcol,
                                                              regM[(k + 1) & 1], regN[(k + 1) & 1]);
                } else {
                    // Tile t + 1 has landed, and every warp has loaded its last fragments of this one.
                    cp_async_wait<STAGES - 2>();
                    __syncthreads();
                    if (!DEAD && t + 1 < ntiles) // BK is even: slice 0 goes to buffer 0
                        warptile_fragments<LDA, LDB, SWIZZLE>(An, An + A_FLOATS, 0, wrow, wcol, lrow, lcol, regM[0],
                                                              regN[0]);
                }
                if (k == 0) HOPPER_NEXT(stage, t + STAGES - 1);
                if constexpr (!DEAD) warptile_fma(acc, regM[k & 1], regN[k & 1]);
            }
        }
    }
#else
    for (int t = 0; t < ntiles; ++t) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        const int next = t + STAGES - 1;
        HOPPER_NEXT(smem + (next % STAGES) * STAGE_FLOATS, next);
        const float *As = smem + (t % STAGES) * STAGE_FLOATS;
        if constexpr (!DEAD) hopper_tile_fma(As, As + A_FLOATS, wrow, wcol, lrow, lcol, acc);
    }
#endif
    cp_async_wait<0>();
#undef HOPPER_LDG
#undef HOPPER_STS
#undef HOPPER_NEXT
}

// Whether the calling warp's WM x WN of the tile at (row0, col0) lies wholly outside the M x N of C.
__device__ __forceinline__ bool hopper_warp_dead(int M, int N, int row0, int col0)
{
    const int warp = threadIdx.x / 32;
    return row0 + (warp / WARPS_N) * WM >= M || col0 + (warp % WARPS_N) * WN >= N;
}

// hopper_mainloop for a block on C's edge: with EDGE, the warps with nothing of C run it DEAD; without,
// the kernel is the one it was before EDGE (the same machine code).
#if EDGE
#define HOPPER_MAINLOOP_EDGE(dead, LOAD, VEC16, ...)                                                           \
    do {                                                                                                      \
        if (dead) hopper_mainloop<LOAD, VEC16, true>(__VA_ARGS__);                                            \
        else hopper_mainloop<LOAD, VEC16, false>(__VA_ARGS__);                                                \
    } while (0)
#else
#define HOPPER_MAINLOOP_EDGE(dead, LOAD, VEC16, ...) hopper_mainloop<LOAD, VEC16, false>(__VA_ARGS__)
#endif

#if ODD
// The last k tile when K is no multiple of BK, for a block whose main loop ran without checks: one
// checked tile (zero past K) after the pipeline has drained.
template <bool DEAD = false>
__device__ __forceinline__ void hopper_tail(float *smem, const float *__restrict__ A, const float *__restrict__ B, int M,
                                            int N, int K, int row0, int col0, int kt, float *acc)
{
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / WARPS_N, wcol = warp % WARPS_N, lrow = lane / LANES_N, lcol = lane % LANES_N;
    __syncthreads(); // every warp is done with the stages
    hopper_load<LOAD_CHECKED, false>(smem, A, B, M, N, K, kt * BK, row0, col0, tid);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    if (DEAD) return;
    const float *As = smem, *Bs = As + A_FLOATS;
#if KMAJ
    hopper_tile_fma(As, Bs, wrow, wcol, lrow, lcol, acc);
#else
    float regM[WMITER * TM], regN[WNITER * TN];
#pragma unroll 1
    for (int k = 0; k < BK; ++k) {
        warptile_fragments<LDA, LDB, SWIZZLE>(As, Bs, k, wrow, wcol, lrow, lcol, regM, regN);
        warptile_fma(acc, regM, regN);
    }
#endif
}
#endif

// The runner's workspace (reg_variant.workspace in sgemm_hopper.c): with SPLITK > 1 and SKPAR, the slices'
// partial tiles; 15_packed.cu keeps its packed operands in front of them.
__device__ float *tilelab_workspace;

#if SPLITK > 1
// Per tile of C: the slice whose turn it is to add into it (SKPAR: how many slices have written their
// part). Zero at load; the last slice sets it back to zero, so every launch finds it so (one launch at
// a time per module: the runner's one stream).
#define SPLITK_MAX_TILES 65536
__device__ unsigned int hopper_splitk_turn[SPLITK_MAX_TILES];

__device__ __forceinline__ unsigned int turn_acquire(const unsigned int *p)
{
    unsigned int v;
    asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void turn_release(unsigned int *p, unsigned int v)
{
    asm volatile("st.global.release.gpu.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
#endif

// The tile of C that block bid computes. Rasterization: the blocks walk GROUP_M tile rows down before
// moving right, so that the A and B tiles of the blocks resident together overlap and stay in L2.
__device__ __forceinline__ void hopper_tile_of(int bid, int tiles_m, int tiles_n, int &tile_m, int &tile_n)
{
    const int per_group = GROUP_M * tiles_n, group = bid / per_group;
    const int first_m = group * GROUP_M, rows_here = min(tiles_m - first_m, GROUP_M);
    tile_m = first_m + (bid % per_group) % rows_here;
    tile_n = (bid % per_group) / rows_here;
}

// The lane's results into C (KMAJ: from interleaved fragments).
template <bool L2 = false>
__device__ __forceinline__ void hopper_store_acc(float *C, int M, int N, int row0, int col0, int wrow, int wcol, int lrow,
                                                 int lcol, const float *acc, float alpha, float beta)
{
#if KMAJ
    warptile_store_km<KM_A, KM_B, L2>(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, beta);
#else
    warptile_store<L2>(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, beta);
#endif
}

// C = alpha acc + beta C for the block's tile (tile: its index among the tiles_n-wide grid of tiles);
// with SPLITK, slice z (blockIdx.y) adds its part once slice z - 1 has stored, and slice 0 applies beta;
// with SKPAR, partials (SPLITK x BM x BN floats per tile) take the slices' parts, and the last slice to
// arrive adds them in slice order.
__device__ __forceinline__ void hopper_store(float *__restrict__ C, int M, int N, int row0, int col0, int tile,
                                             float *acc, float alpha, float beta, float *partials)
{
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / WARPS_N, wcol = warp % WARPS_N, lrow = lane / LANES_N, lcol = lane % LANES_N;
#if SPLITK > 1 && SKPAR
    // Each thread's accumulators in its own order, 16 bytes per thread side by side: coalesced both ways.
    constexpr int NACC = WMITER * TM * WNITER * TN, NV = NACC / 4;
    float4 *part = reinterpret_cast<float4 *>(partials) + (size_t)tile * SPLITK * NT * NV;
#pragma unroll
    for (int i = 0; i < NV; ++i)
        __stcg(&part[((size_t)blockIdx.y * NV + i) * NT + tid], make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]));
    __threadfence(); // the part is visible to the GPU before this slice counts as arrived
    __syncthreads();
    const int last = __syncthreads_or(tid == 0 && atomicAdd(&hopper_splitk_turn[tile], 1u) == SPLITK - 1);
    if (!last) return;
    __threadfence();
#pragma unroll
    for (int i = 0; i < NACC; ++i) acc[i] = 0.0f;
    for (int z = 0; z < SPLITK; ++z) // slice order, whichever slice arrived last: the same sum every run
#pragma unroll
        for (int i = 0; i < NV; ++i) {
            const float4 v = __ldcg(&part[((size_t)z * NV + i) * NT + tid]);
            acc[4 * i] += v.x, acc[4 * i + 1] += v.y, acc[4 * i + 2] += v.z, acc[4 * i + 3] += v.w;
        }
    hopper_store_acc(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, beta);
    if (tid == 0) hopper_splitk_turn[tile] = 0u;
#elif SPLITK > 1
    (void)partials;
    const int z = blockIdx.y;
    unsigned int *turn = &hopper_splitk_turn[tile];
    if (z == 0) {
        hopper_store_acc(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, beta);
    } else {
        if (tid == 0)
            while (turn_acquire(turn) != (unsigned int)z) __nanosleep(64);
        __syncthreads();
        hopper_store_acc<true>(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, 1.0f);
    }
    __syncthreads(); // every store of the block is issued before the turn passes on
    if (tid == 0) turn_release(turn, z + 1 == SPLITK ? 0u : (unsigned int)(z + 1));
#else
    (void)tile, (void)partials;
    hopper_store_acc(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, beta);
#endif
}

// The k tiles [t0, t1) of the block's slice (SPLITK: slice blockIdx.y), of ktiles.
__device__ __forceinline__ void hopper_slice(int ktiles, int &t0, int &t1)
{
#if SPLITK > 1
    const int z = blockIdx.y, per = (ktiles + SPLITK - 1) / SPLITK;
    t0 = min(z * per, ktiles), t1 = min(t0 + per, ktiles);
#else
    t0 = 0, t1 = ktiles;
#endif
}

#if SK
// SK (above), with G = SK: the whole waves of tiles, [0, D) with D = G floor(T / G), are blocks [0, D),
// one tile each, as without SK (the hardware's dynamic schedule). The R = T - D tiles left are cut into
// S = min(G / R, KT) slices each: block D + s takes slice z = s / R of tile D + s % R, its k tiles z,
// z + S, z + 2 S, ... (sgemm_simt.c launches D + R S blocks). The last wave is so R S <= G blocks of 1 / S of
// a tile instead of R whole tiles. Interleaved rather than contiguous slices keep the blocks near the
// same k at the same time, as a wave's blocks are: a first version (stream-K proper: persistent blocks,
// contiguous ranges of k tiles over the last two waves) saw L2's hit rate fall from 92% to 85% and DRAM
// reads double at 4096^3 (Nsight Compute, docs/gpu-runs.md), and its persistent blocks, a static
// schedule, lost 3% to the dynamic one where nothing was cut. A slice writes its partial tile to slot s
// of the workspace; the last of a tile's slices to arrive (a per-tile count) adds them in slice order and
// stores C: no block waits, the same sum every run.
__device__ unsigned int hopper_sk_count[SK]; // R < G

struct sk_plan {
    int D, R, S;
};

__device__ __forceinline__ sk_plan sk_plan_of(int tiles, int KT)
{
    sk_plan p;
    p.D = tiles / SK * SK, p.R = tiles - p.D;
    p.S = p.R ? min(SK / p.R, KT) : 0;
    return p;
}

// Slice s / R of the R tiles' tile j = s % R (s = blockIdx.x - D): into slot s; the last of the tile's
// slices to arrive adds the slots in slice order and stores C.
__device__ __forceinline__ void hopper_sk_part(float *__restrict__ C, int M, int N, int row0, int col0, const sk_plan &p,
                                               int s, float *acc, float alpha, float beta, float *partials)
{
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / WARPS_N, wcol = warp % WARPS_N, lrow = lane / LANES_N, lcol = lane % LANES_N;
    constexpr int NACC = WMITER * TM * WNITER * TN, NV = NACC / 4;
    const int j = s % p.R;
    float4 *part = reinterpret_cast<float4 *>(partials);
#pragma unroll
    for (int i = 0; i < NV; ++i)
        __stcg(&part[((size_t)s * NV + i) * NT + tid], make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]));
    __threadfence(); // the part is visible to the GPU before this slice counts as arrived
    __syncthreads();
    const int last = __syncthreads_or(tid == 0 && atomicAdd(&hopper_sk_count[j], 1u) == (unsigned)(p.S - 1));
    if (!last) return;
    __threadfence();
#pragma unroll
    for (int i = 0; i < NACC; ++i) acc[i] = 0.0f;
#pragma unroll 1
    for (int z = 0; z < p.S; ++z) { // slice order, whichever slice arrived last: the same sum every run
        const size_t slot = (size_t)z * p.R + j;
#pragma unroll
        for (int i = 0; i < NV; ++i) {
            const float4 v = __ldcg(&part[(slot * NV + i) * NT + tid]);
            acc[4 * i] += v.x, acc[4 * i + 1] += v.y, acc[4 * i + 2] += v.z, acc[4 * i + 3] += v.w;
        }
    }
    hopper_store_acc(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, beta);
    if (tid == 0) hopper_sk_count[j] = 0u; // for the next launch
}

// Block blockIdx.x's tile or slice. tile_k(row0, col0, t0, step, acc) adds k tiles t0, t0 + step, ... of
// the tile at (row0, col0) into acc. TWO: a whole tile's call has the constants of a launch without SK
// (the main loop inlined twice): with the slice's values in the one call, packed's whole tiles of 128 x
// 128 ran 6% slower on the H100. hopper's four main loops (ODD) twice need too many registers (spills
// at 168 with NVCC), so hopper makes the one call. (The slices' code in a function of its own, not
// inlined, made every tile 13% slower.)
template <bool TWO, class TileK>
__device__ __forceinline__ void hopper_sk_block(int M, int N, int tiles_m, int tiles_n, int KT, float alpha, float beta,
                                                float *__restrict__ C, float *partials, TileK tile_k)
{
    const sk_plan p = sk_plan_of(tiles_m * tiles_n, KT);
    const int s = (int)blockIdx.x - p.D; // >= 0: a slice
    int tile_m, tile_n;
    hopper_tile_of(s < 0 ? (int)blockIdx.x : p.D + s % p.R, tiles_m, tiles_n, tile_m, tile_n);
    float acc[WMITER * TM * WNITER * TN] = {0.0f};
    const bool cut = s >= 0 && p.S > 1;
    if (TWO && !cut) tile_k(tile_m * BM, tile_n * BN, 0, 1, acc);
    else tile_k(tile_m * BM, tile_n * BN, cut ? s / p.R : 0, cut ? p.S : 1, acc);
    if (cut) hopper_sk_part(C, M, N, tile_m * BM, tile_n * BN, p, s, acc, alpha, beta, partials);
    else hopper_store(C, M, N, tile_m * BM, tile_n * BN, 0, acc, alpha, beta, nullptr);
}
#endif

// GRID > 0: the launch has min(GRID, tiles) blocks along x, and block b computes tiles b, b + GRID, ...
// (a static schedule: with GRID the blocks resident at once, every SM gets the same number of tiles,
// where the hardware's dynamic one was seen to leave some SMs with far more work than others in a
// two-wave problem, docs/gpu-runs.md). Between two tiles the block waits for all its warps: the next
// tile's first copies go into the stages the last FMAs read. GRID = 0: one block per tile, and no loop
// at all (with a loop that ran once, the default tiles were 10% slower on the H100).
// 15_packed.cu reuses the above with its own kernel.
#ifndef HOPPER_NO_ENTRY
// K tiles t0, t0 + step, ... below t1 of the tile of C at (row0, col0) into acc; SLICE: those of the
// block's SPLITK slice instead (hopper_slice, computed here: where the kernel always had it).
template <bool SLICE>
__device__ __forceinline__ void hopper_tile_k(float *smem, int M, int N, int K, const float *__restrict__ A,
                                              const float *__restrict__ B, int row0, int col0, int t0, int t1,
                                              float *acc, int step = 1)
{
    // ODD: every block runs an unchecked main loop over the whole k tiles (then one checked tile for K's
    // remainder): inside C as it is, on C's edge with its copies' m and n clamped; copies along m or n
    // go 16 bytes at a time where those rows are 16-byte aligned (ld % 4 == 0), else 4 bytes. Without
    // ODD, only a block inside C of an aligned problem does; the others run the checked loop.
    // (With KMAJ, rows of a k-major tile are 16-byte aligned when K % 4 == 0.)
    const bool inside = row0 + BM <= M && col0 + BN <= N,
               vec16 = (KM_A ? K % 4 == 0 : !A_COL || M % 4 == 0) && (KM_B ? K % 4 == 0 : B_COL || N % 4 == 0);
    const int ktiles = (K + BK - 1) / BK, kfull = K / BK;
    if (SLICE) hopper_slice(ktiles, t0, t1);
#if ODD
    const int tend = min(t1, kfull);
    const bool dead = EDGE && !inside && hopper_warp_dead(M, N, row0, col0);
    if (inside && vec16) hopper_mainloop<LOAD_INTERIOR, true>(smem, A, B, M, N, K, row0, col0, t0, tend, acc, step);
    else if (inside) hopper_mainloop<LOAD_INTERIOR, false>(smem, A, B, M, N, K, row0, col0, t0, tend, acc, step);
    else if (vec16) HOPPER_MAINLOOP_EDGE(dead, LOAD_CLAMPED, true, smem, A, B, M, N, K, row0, col0, t0, tend, acc, step);
    else HOPPER_MAINLOOP_EDGE(dead, LOAD_CLAMPED, false, smem, A, B, M, N, K, row0, col0, t0, tend, acc, step);
    if (t0 <= kfull && t1 > kfull && (kfull - t0) % step == 0) { // the range has the remainder's tile
        if (EDGE && dead) hopper_tail<EDGE != 0>(smem, A, B, M, N, K, row0, col0, kfull, acc);
        else hopper_tail<false>(smem, A, B, M, N, K, row0, col0, kfull, acc);
    }
#else
    if (inside && vec16 && kfull == ktiles)
        hopper_mainloop<LOAD_INTERIOR, true>(smem, A, B, M, N, K, row0, col0, t0, t1, acc, step);
    else
        HOPPER_MAINLOOP_EDGE(!inside && hopper_warp_dead(M, N, row0, col0), LOAD_CHECKED, false, smem, A, B, M, N, K,
                             row0, col0, t0, t1, acc, step);
#endif
}

// Tile bid of C (hopper_tile_of), the whole of the block's work for it (SPLITK: its slice).
__device__ __forceinline__ void hopper_block(float *smem, int bid, int M, int N, int K, float alpha,
                                             const float *__restrict__ A, const float *__restrict__ B, float beta,
                                             float *__restrict__ C)
{
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    int tile_m, tile_n;
    hopper_tile_of(bid, tiles_m, tiles_n, tile_m, tile_n);
    const int row0 = tile_m * BM, col0 = tile_n * BN;
    float acc[WMITER * TM * WNITER * TN] = {0.0f};
    hopper_tile_k<true>(smem, M, N, K, A, B, row0, col0, 0, 0, acc);
    hopper_store(C, M, N, row0, col0, tile_m * tiles_n + tile_n, acc, alpha, beta, tilelab_workspace);
}

extern "C" __global__ void __launch_bounds__(NT, MINB)
sgemm_hopper(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B,
             float beta, float *__restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
#if SK
    hopper_sk_block<false>(M, N, (M + BM - 1) / BM, (N + BN - 1) / BN, (K + BK - 1) / BK, alpha, beta, C, tilelab_workspace,
                    [&](int row0, int col0, int t0, int step, float *acc) {
                        hopper_tile_k<false>(smem, M, N, K, A, B, row0, col0, t0, (K + BK - 1) / BK, acc, step);
                    });
#elif GRID
    const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    for (int bid = blockIdx.x; bid < tiles; bid += gridDim.x) {
        if (bid != (int)blockIdx.x) __syncthreads(); // the last tile's FMAs are done with the stages
        hopper_block(smem, bid, M, N, K, alpha, A, B, beta, C);
    }
#else
    hopper_block(smem, blockIdx.x, M, N, K, alpha, A, B, beta, C);
#endif
}
#endif
