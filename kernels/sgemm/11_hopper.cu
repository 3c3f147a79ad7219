// 11_hopper: the warptile kernel (10) tuned for sm_90.
//
// What the earlier rungs taught, applied with Hopper's resources (227 KB of shared memory per block,
// 64K registers per SM, 50 MB of L2):
// - deeper pipelines: STAGES tiles in flight in dynamic shared memory above the 48 KB default;
// - fragment double buffering: the registers for k + 1 are loaded from shared memory while the FMAs
//   of k run, so the FMA pipe never waits on a shared load inside a tile;
// - padded tiles (07) by default: the swizzle of 08 (SWIZZLE = 1) costs an XOR per fragment load,
//   since each lane's offset is only known at run time, and measured slower on the H100;
// - interior tiles load without bounds checks (sgemm_tile.cuh);
// - block rasterization: blocks run in groups of GROUP_M tile rows, so that the A and B tiles that
//   concurrently resident blocks need overlap and stay in L2;
// - MINB: __launch_bounds__' minimum resident blocks per SM, which caps registers per thread.
// Defaults: the best shape of experiments/sgemm_tune.yaml on the project's H100 (0.80 x cuBLAS at
// 4096^3, docs/results/h100-sgemm.md): 128 x 256 x 32 tiles, 64 x 64 warp tiles, 2 stages.
// With column-major A (no transposing load: 16-byte cp.async for both tiles) it reaches 0.84 x
// cuBLAS: A's 4-byte transposing copies cost about 5% in the row-major case.
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef WNITER
#define WNITER 2
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
#define PAD (SWIZZLE ? 0 : 4)
#define NT ((BM / WM) * (BN / WN) * 32)
#if STAGES < 2 || STAGES > 8 || NT > 1024 || GROUP_M < 1 || MINB < 1
#error "11_hopper: STAGES 2 .. 8, at most 1024 threads, GROUP_M >= 1, MINB >= 1"
#endif
#if SWIZZLE && ((BM & (BM - 1)) != 0 || (BN & (BN - 1)) != 0)
#error "11_hopper: with SWIZZLE = 1, BM and BN must be powers of two"
#endif
#include "sgemm_warptile.cuh"

#define LDA (BM + PAD)
#define LDB (BN + PAD)
#define STAGE_FLOATS (BK * LDA + BK * LDB)

extern "C" __global__ void __launch_bounds__(NT, MINB)
sgemm_hopper(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B,
             float beta, float *__restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / WARPS_N, wcol = warp % WARPS_N, lrow = lane / LANES_N, lcol = lane % LANES_N;
    // Rasterization: walk the grid down GROUP_M tile rows before moving right.
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int bid = blockIdx.x, per_group = GROUP_M * tiles_n, group = bid / per_group;
    const int first_m = group * GROUP_M, rows_here = min(tiles_m - first_m, GROUP_M);
    const int tile_m = first_m + (bid % per_group) % rows_here, tile_n = (bid % per_group) / rows_here;
    const int row0 = tile_m * BM, col0 = tile_n * BN;
    const int ntiles = (K + BK - 1) / BK;
    float acc[WMITER * TM * WNITER * TN] = {0.0f};
    float regM[2][WMITER * TM], regN[2][WNITER * TN];

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) {
            float *As = smem + s * STAGE_FLOATS, *Bs = As + BK * LDA;
            tile_load_async<BK, BM, LDA, NT, !A_COL, SWIZZLE>(As, A, A_COL ? M : K, K, M, s * BK, row0, tid);
            tile_load_async<BK, BN, LDB, NT, B_COL, SWIZZLE>(Bs, B, B_COL ? K : N, K, N, s * BK, col0, tid);
        }
        cp_async_commit();
    }
    for (int t = 0; t < ntiles; ++t) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        const int next = t + STAGES - 1;
        if (next < ntiles) {
            float *As = smem + (next % STAGES) * STAGE_FLOATS, *Bs = As + BK * LDA;
            tile_load_async<BK, BM, LDA, NT, !A_COL, SWIZZLE>(As, A, A_COL ? M : K, K, M, next * BK, row0, tid);
            tile_load_async<BK, BN, LDB, NT, B_COL, SWIZZLE>(Bs, B, B_COL ? K : N, K, N, next * BK, col0, tid);
        }
        cp_async_commit();
        const float *As = smem + (t % STAGES) * STAGE_FLOATS, *Bs = As + BK * LDA;
        warptile_fragments<LDA, LDB, SWIZZLE>(As, Bs, 0, wrow, wcol, lrow, lcol, regM[0], regN[0]);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k + 1 < BK)
                warptile_fragments<LDA, LDB, SWIZZLE>(As, Bs, k + 1, wrow, wcol, lrow, lcol, regM[(k + 1) & 1],
                                                 regN[(k + 1) & 1]);
            warptile_fma(acc, regM[k & 1], regN[k & 1]);
        }
    }
    cp_async_wait<0>();
    warptile_store(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, beta);
}
