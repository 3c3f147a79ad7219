// 05_blocktile_2d: each thread computes a TM x TN block of C.
//
// 04 reused each value of B TM times. With a TM x TN block per thread, a thread loads TM values of A
// and TN of B into registers per k and does TM * TN FMAs with them: shared-memory loads per FMA fall
// from ~1/TM to (TM + TN) / (TM * TN) (1/4 for 8 x 8), and each block does more work per global load.
#include "sgemm_tile.cuh"

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#define NT (BM * BN / (TM * TN))

extern "C" __global__ void __launch_bounds__(NT)
sgemm_blocktile_2d(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B,
                   float beta, float *__restrict__ C)
{
    __shared__ float As[BK * BM], Bs[BK * BN];
    const int tid = threadIdx.x, tc = tid % (BN / TN), tr = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM * TN] = {0.0f}, regM[TM], regN[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        tile_load_scalar<BK, BM, BM, NT, !A_COL, false>(As, A, A_COL ? M : K, K, M, k0, row0, tid);
        tile_load_scalar<BK, BN, BN, NT, B_COL, false>(Bs, B, B_COL ? K : N, K, N, k0, col0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) regM[i] = As[k * BM + tr * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) regN[j] = Bs[k * BN + tc * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    store_tile<TM, TN>(C, M, N, row0 + tr * TM, col0 + tc * TN, acc, alpha, beta);
}
