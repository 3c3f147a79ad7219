// The block-tiled loop of rungs 06-08: 16-byte global and shared loads, A transposed in shared memory.
// The three rungs differ only in how the tiles are laid out: LDA / LDB floats per tile row (07 pads
// them), T_SWIZZLE (08 XORs the 16-byte chunk index) and T_SPREAD (07 and 08: which columns of B a
// thread reads); each rung's file says why.
//
// T_SPREAD: a thread's TN columns of B (and of C) are TN / 4 groups of 4, the groups 4 * BN / TN columns
// apart, so that the 16-byte reads of a warp's BN / TN column threads cover one contiguous stretch of a
// Bs row. Without it a thread's columns are contiguous, threads TN floats apart: with TN = 8 every
// fourth thread's float4 falls on the same four banks, a 4-way conflict in every B read.
// Needs BM, BN, BK, TM, TN, NT defined by the rung.
#pragma once

#include "sgemm_tile.cuh"

template <int T_LDA, int T_LDB, bool T_SWIZZLE, bool T_SPREAD = false>
__device__ __forceinline__ void vec_tile_gemm(int M, int N, int K, float alpha, const float *__restrict__ A,
                                              const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ __align__(16) float As[BK * T_LDA];
    __shared__ __align__(16) float Bs[BK * T_LDB];
    const int tid = threadIdx.x, tc = tid % (BN / TN), tr = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    constexpr int GROUP_GAP = T_SPREAD ? 4 * (BN / TN) : 4; // columns between a thread's groups of 4
    const int col_t = T_SPREAD ? tc * 4 : tc * TN;          // the thread's first column in the tile
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
                    *reinterpret_cast<const float4 *>(&Bs[tile_at<T_LDB, T_SWIZZLE>(k, col_t + j / 4 * GROUP_GAP)]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    if (T_SPREAD) {
#pragma unroll
        for (int g = 0; g < TN / 4; ++g)
            store_tile<TM, 4, TN>(C, M, N, row0 + tr * TM, col0 + col_t + g * GROUP_GAP, acc + 4 * g, alpha, beta);
    } else {
        store_tile<TM, TN>(C, M, N, row0 + tr * TM, col0 + col_t, acc, alpha, beta);
    }
}
