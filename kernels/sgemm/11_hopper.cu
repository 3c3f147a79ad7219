// 11_hopper: the warptile kernel (10) tuned for sm_90.
//
// What the earlier rungs taught, applied with Hopper's resources (227 KB of shared memory per block,
// 64K registers per SM, 50 MB of L2):
// - deeper pipelines: STAGES tiles in flight in dynamic shared memory above the 48 KB default;
// - fragment double buffering: the registers for k + 1 are loaded from shared memory while the FMAs
//   of k run, so the FMA pipe never waits on a shared load inside a tile;
// - swizzled (08) instead of padded tiles: no shared memory spent, 16-byte reads stay contiguous;
// - block rasterization: blocks run in groups of GROUP_M tile rows, so that the A and B tiles that
//   concurrently resident blocks need overlap and stay in L2;
// - MINB: __launch_bounds__' minimum resident blocks per SM, which caps registers per thread.
// Defaults: the best shape of experiments/sgemm_tune.yaml on the project's H100.
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 32
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
#define STAGES 3
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef MINB
#define MINB 1
#endif
#define NT ((BM / WM) * (BN / WN) * 32)
#if STAGES < 2 || STAGES > 8 || NT > 1024 || GROUP_M < 1 || MINB < 1
#error "11_hopper: STAGES 2 .. 8, at most 1024 threads, GROUP_M >= 1, MINB >= 1"
#endif
#if (BM & (BM - 1)) != 0 || (BN & (BN - 1)) != 0
#error "11_hopper: BM and BN must be powers of two (swizzled tiles)"
#endif
#include "sgemm_warptile.cuh"

#define STAGE_FLOATS (BK * BM + BK * BN)

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
            float *As = smem + s * STAGE_FLOATS, *Bs = As + BK * BM;
            tile_load_async<BK, BM, BM, NT, !A_COL, true>(As, A, A_COL ? M : K, K, M, s * BK, row0, tid);
            tile_load_async<BK, BN, BN, NT, B_COL, true>(Bs, B, B_COL ? K : N, K, N, s * BK, col0, tid);
        }
        cp_async_commit();
    }
    for (int t = 0; t < ntiles; ++t) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        const int next = t + STAGES - 1;
        if (next < ntiles) {
            float *As = smem + (next % STAGES) * STAGE_FLOATS, *Bs = As + BK * BM;
            tile_load_async<BK, BM, BM, NT, !A_COL, true>(As, A, A_COL ? M : K, K, M, next * BK, row0, tid);
            tile_load_async<BK, BN, BN, NT, B_COL, true>(Bs, B, B_COL ? K : N, K, N, next * BK, col0, tid);
        }
        cp_async_commit();
        const float *As = smem + (t % STAGES) * STAGE_FLOATS, *Bs = As + BK * BM;
        warptile_fragments<BM, BN, true>(As, Bs, 0, wrow, wcol, lrow, lcol, regM[0], regN[0]);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k + 1 < BK)
                warptile_fragments<BM, BN, true>(As, Bs, k + 1, wrow, wcol, lrow, lcol, regM[(k + 1) & 1],
                                                 regN[(k + 1) & 1]);
            warptile_fma(acc, regM[k & 1], regN[k & 1]);
        }
    }
    cp_async_wait<0>();
    warptile_store(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, beta);
}
