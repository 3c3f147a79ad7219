// 09_double_buffer: overlap the next tiles' loads with this tile's FMAs (cp.async, STAGES deep).
//
// Up to 08 a block loads a tile, waits at a barrier, computes, waits again: while it loads, its FMA
// units idle (other resident blocks fill some of the gap). Here shared memory holds STAGES tiles;
// cp.async copies global -> shared without going through registers, STAGES - 1 tiles ahead of the
// one being computed, so memory latency hides behind arithmetic and one barrier per tile is enough.
// Rows of B (and of column-major A) are copied 16 bytes at a time; A's transposing load is 4 bytes
// per element (cp.async cannot scatter a vector). Tiles padded as in 07.
#include "sgemm_tile.cuh"

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef PAD
#define PAD 4
#endif
#define NT (BM * BN / (TM * TN))
#define LDA (BM + PAD)
#define LDB (BN + PAD)
#define STAGE_FLOATS (BK * LDA + BK * LDB)

extern "C" __global__ void __launch_bounds__(NT)
sgemm_double_buffer(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B,
                    float beta, float *__restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, tc = tid % (BN / TN), tr = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int ntiles = (K + BK - 1) / BK;
    float acc[TM * TN] = {0.0f}, regM[TM], regN[TN];

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) {
            float *As = smem + s * STAGE_FLOATS, *Bs = As + BK * LDA;
            tile_load_async<BK, BM, LDA, NT, !A_COL, false>(As, A, A_COL ? M : K, K, M, s * BK, row0, tid);
            tile_load_async<BK, BN, LDB, NT, B_COL, false>(Bs, B, B_COL ? K : N, K, N, s * BK, col0, tid);
        }
        cp_async_commit(); // one group per stage, even an empty one: the wait below counts groups
    }
    for (int t = 0; t < ntiles; ++t) {
        cp_async_wait<STAGES - 2>(); // tile t has landed (for this thread) ...
        __syncthreads();             // ... for every thread, and tile t - 1 is no longer read
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
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4 *>(&regM[i]) = *reinterpret_cast<const float4 *>(&As[k * LDA + tr * TM + i]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4 *>(&regN[j]) = *reinterpret_cast<const float4 *>(&Bs[k * LDB + tc * TN + j]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
        }
    }
    cp_async_wait<0>();
    store_tile<TM, TN>(C, M, N, row0 + tr * TM, col0 + tc * TN, acc, alpha, beta);
}
