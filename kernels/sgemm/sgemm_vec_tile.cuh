// The block-tiled loop of rungs 06-08: 16-byte global and shared loads, A transposed in shared memory.
// The three rungs differ only in how the tiles are laid out: LDA / LDB floats per tile row (07 pads
// them) and T_SWIZZLE (08 XORs the 16-byte chunk index); each rung's file says why.
// Needs BM, BN, BK, TM, TN, NT defined by the rung.
#pragma once

#include "sgemm_tile.cuh"

template <int T_LDA, int T_LDB, bool T_SWIZZLE>
__device__ __forceinline__ void vec_tile_gemm(int M, int N, int K, float alpha, const float *__restrict__ A,
                                              const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ __align__(16) float As[BK * T_LDA];
    __shared__ __align__(16) float Bs[BK * T_LDB];
    const int tid = threadIdx.x, tc = tid % (BN / TN), tr = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM * TN] = {0.0f}, regM[TM], regN[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        tile_load_vec<BK, BM, T_LDA, NT, !A_COL, T_SWIZZLE>(As, A, A_COL ? M : K, K, M, k0, row0, tid);
        tile_load_vec<BK, BN, T_LDB, NT, B_COL, T_SWIZZLE>(Bs, B, B_COL ? K : N, K, N, k0, col0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            // 16-byte shared loads: TM / 4 + TN / 4 instructions per k instead of TM + TN.
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4 *>(&regM[i]) =
                    *reinterpret_cast<const float4 *>(&As[tile_at<T_LDA, T_SWIZZLE>(k, tr * TM + i)]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4 *>(&regN[j]) =
                    *reinterpret_cast<const float4 *>(&Bs[tile_at<T_LDB, T_SWIZZLE>(k, tc * TN + j)]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    store_tile<TM, TN>(C, M, N, row0 + tr * TM, col0 + tc * TN, acc, alpha, beta);
}
