// The warp-tiled main loop shared by 10_warptile and 11_hopper.
//
// A block of NT threads owns BM x BN of C; each warp owns WM x WN of it, computed as WMITER x WNITER
// sub-tiles of WSUBM x WSUBN; within a sub-tile each lane owns TM x TN results. The 32 lanes of a warp
// then read A and B from a small, contiguous window of shared memory: lanes of one row of the warp's
// lane grid share A (broadcast) and consecutive lanes read consecutive 16-byte chunks of B, so the
// 16-byte shared loads are free of bank conflicts, which the thread layout of 05-09 was not.
#pragma once

#include "sgemm_tile.cuh"

#define WARPS_N (BN / WN)
#define WMITER ((WM * WN) / (32 * TM * TN * WNITER))
#define WSUBM (WM / WMITER)
#define WSUBN (WN / WNITER)
#define LANES_N (WSUBN / TN)

#if NT != (BM / WM) * (BN / WN) * 32
#error "warptile: NT must be (BM / WM) * (BN / WN) * 32 threads"
#endif
#if BM % WM || BN % WN || WN % WNITER || TM % 4 || TN % 4 || BK % 4 || WMITER < 1 || WM % WMITER || \
    WSUBN % TN || (WSUBM / TM) * (WSUBN / TN) != 32 || WSUBM % TM
#error "warptile: the warp tile must split into WMITER x WNITER sub-tiles of 32 lanes x TM x TN"
#endif

// One k-slice of the tile: fragments of A and B into registers, then the outer products.
template <int LDA_, int LDB_, bool SWZ>
__device__ __forceinline__ void warptile_fragments(const float *As, const float *Bs, int k, int wrow, int wcol,
                                                   int lrow, int lcol, float *regM, float *regN)
{
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; i += 4)
            *reinterpret_cast<float4 *>(&regM[wm * TM + i]) = *reinterpret_cast<const float4 *>(
                &As[tile_at<LDA_, SWZ>(k, wrow * WM + wm * WSUBM + lrow * TM + i)]);
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            *reinterpret_cast<float4 *>(&regN[wn * TN + j]) = *reinterpret_cast<const float4 *>(
                &Bs[tile_at<LDB_, SWZ>(k, wcol * WN + wn * WSUBN + lcol * TN + j)]);
}

__device__ __forceinline__ void warptile_fma(float *acc, const float *regM, const float *regN)
{
#pragma unroll
    for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i * (WNITER * TN) + j] += regM[i] * regN[j];
}

template <bool L2 = false>
__device__ __forceinline__ void warptile_store(float *C, int M, int N, int row0, int col0, int wrow, int wcol,
                                               int lrow, int lcol, const float *acc, float alpha, float beta)
{
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn)
            store_tile<TM, TN, WNITER * TN, L2>(C, M, N, row0 + wrow * WM + wm * WSUBM + lrow * TM,
                                            col0 + wcol * WN + wn * WSUBN + lcol * TN,
                                            acc + (wm * TM) * (WNITER * TN) + wn * TN, alpha, beta);
}
