// 10_warptile: a level of tiling between the block and the thread, the warp.
//
// 09's threads are laid out row by row over the block tile: the 32 lanes of a warp read B at
// addresses TN floats apart (16-byte loads with 2-way bank conflicts for TN = 8) and A from two
// rows. Here each warp owns a WM x WN sub-tile, computed WMITER x WNITER times in pieces, and lanes
// are laid out inside it so that their 16-byte reads of B are consecutive and those of A broadcast:
// no bank conflicts, and a warp's working set is small and local. Loads as in 09 (cp.async, STAGES).
// Threads: NT = (BM / WM) * (BN / WN) * 32.
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
#ifndef PAD
#define PAD 4
#endif
#define NT ((BM / WM) * (BN / WN) * 32)
#include "sgemm_warptile.cuh"

#define LDA (BM + PAD)
#define LDB (BN + PAD)
#define STAGE_FLOATS (BK * LDA + BK * LDB)

extern "C" __global__ void __launch_bounds__(NT)
sgemm_warptile(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B,
               float beta, float *__restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / WARPS_N, wcol = warp % WARPS_N, lrow = lane / LANES_N, lcol = lane % LANES_N;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int ntiles = (K + BK - 1) / BK;
    float acc[WMITER * TM * WNITER * TN] = {0.0f}, regM[WMITER * TM], regN[WNITER * TN];

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) {
            float *As = smem + s * STAGE_FLOATS, *Bs = As + BK * LDA;
            tile_load_async<BK, BM, LDA, NT, !A_COL, false>(As, A, A_COL ? M : K, K, M, s * BK, row0, tid);
            tile_load_async<BK, BN, LDB, NT, B_COL, false>(Bs, B, B_COL ? K : N, K, N, s * BK, col0, tid);
        }
        cp_async_commit();
    }
    for (int t = 0; t < ntiles; ++t) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        const int next = t + STAGES - 1;
        if (next < ntiles) {
            float *As = smem + (next % STAGES) * STAGE_FLOATS, *Bs = As + BK * LDA;
            tile_load_async<BK, BM, LDA, NT, !A_COL, false>(As, A, A_COL ? M : K, K, M, next * BK, row0, tid);
            tile_load_async<BK, BN, LDB, NT, B_COL, false>(Bs, B, B_COL ? K : N, K, N, next * BK, col0, tid);
        }
        cp_async_commit();
        const float *As = smem + (t % STAGES) * STAGE_FLOATS, *Bs = As + BK * LDA;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            warptile_fragments<LDA, LDB, false>(As, Bs, k, wrow, wcol, lrow, lcol, regM, regN);
            warptile_fma(acc, regM, regN);
        }
    }
    cp_async_wait<0>();
    warptile_store(C, M, N, row0, col0, wrow, wcol, lrow, lcol, acc, alpha, beta);
}
