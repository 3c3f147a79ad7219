// 04_blocktile_1d: each thread computes TM results of one column of C.
//
// After 03 every FMA needs two shared-memory loads. Here a block owns a BM x BN tile of C and each of
// its BM * BN / TM threads keeps TM accumulators in registers: one load of B feeds TM FMAs (A's values
// are read from shared memory as a broadcast), so shared-memory traffic per FMA falls by about TM/2
// and arithmetic intensity rises by TM. Tiles are stored k-major (As[k][m]: A transposed) from here on,
// so that a thread's TM values of A are consecutive.
#include "sgemm_tile.cuh"

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
#define NT (BM * BN / TM)

extern "C" __global__ void __launch_bounds__(NT)
sgemm_blocktile_1d(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B,
                   float beta, float *__restrict__ C)
{
    __shared__ float As[BK * BM], Bs[BK * BN];
    const int tid = threadIdx.x, tc = tid % BN, tr = tid / BN;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        tile_load_scalar<BK, BM, BM, NT, !A_COL, false>(As, A, A_COL ? M : K, K, M, k0, row0, tid);
        tile_load_scalar<BK, BN, BN, NT, B_COL, false>(Bs, B, B_COL ? K : N, K, N, k0, col0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k * BN + tc];
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i] += As[k * BM + tr * TM + i] * b;
        }
        __syncthreads();
    }
    const int col = col0 + tc;
    if (col >= N) return;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = row0 + tr * TM + i;
        if (r < M) C[(size_t)r * N + col] = sgemm_epilogue(acc[i], alpha, beta, &C[(size_t)r * N + col]);
    }
}
