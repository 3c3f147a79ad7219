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

// Four k-slices (k0 .. k0 + 3) at once, for tiles of which some are k-major (kmaj_at, rows T_LDK floats
// apart; T_KMA: A's, T_KMB: B's): a k-major operand's fragment is one 16-byte load along k per row, the
// other's four loads as above. A k-major operand's fragment is interleaved: a lane's TM rows (TN columns)
// are LANES_M (LANES_N) apart instead of consecutive, so that the lanes of a quarter-warp read
// consecutive rows (conflict-free, kmaj_pad), and the lane's results are C's rows and columns as
// warptile_row and warptile_col say. regM[kk], regN[kk]: the fragments of k-slice k0 + kk.
#define LANES_M (WSUBM / TM)

template <bool T_KM>
__device__ __forceinline__ int warptile_row(int wrow, int wm, int lrow, int i)
{
    return wrow * WM + wm * WSUBM + (T_KM ? lrow + i * LANES_M : lrow * TM + i);
}

template <bool T_KM>
__device__ __forceinline__ int warptile_col(int wcol, int wn, int lcol, int j)
{
    return wcol * WN + wn * WSUBN + (T_KM ? lcol + j * LANES_N : lcol * TN + j);
}

template <bool T_KMA, bool T_KMB, int LDA_, int LDB_, int T_LDK>
__device__ __forceinline__ void warptile_fragments_k4(const float *As, const float *Bs, int k0, int wrow, int wcol,
                                                      int lrow, int lcol, float (*regM)[WMITER * TM],
                                                      float (*regN)[WNITER * TN])
{
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; i += T_KMA ? 1 : 4) {
            const int r = warptile_row<T_KMA>(wrow, wm, lrow, i);
            if (T_KMA) {
                const float4 v = *reinterpret_cast<const float4 *>(&As[kmaj_at<T_LDK>(r, k0)]);
                regM[0][wm * TM + i] = v.x, regM[1][wm * TM + i] = v.y, regM[2][wm * TM + i] = v.z,
                regM[3][wm * TM + i] = v.w;
            } else {
#pragma unroll
                for (int kk = 0; kk < 4; ++kk)
                    *reinterpret_cast<float4 *>(&regM[kk][wm * TM + i]) =
                        *reinterpret_cast<const float4 *>(&As[tile_at<LDA_, false>(k0 + kk, r)]);
            }
        }
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += T_KMB ? 1 : 4) {
            const int c = warptile_col<T_KMB>(wcol, wn, lcol, j);
            if (T_KMB) {
                const float4 v = *reinterpret_cast<const float4 *>(&Bs[kmaj_at<T_LDK>(c, k0)]);
                regN[0][wn * TN + j] = v.x, regN[1][wn * TN + j] = v.y, regN[2][wn * TN + j] = v.z,
                regN[3][wn * TN + j] = v.w;
            } else {
#pragma unroll
                for (int kk = 0; kk < 4; ++kk)
                    *reinterpret_cast<float4 *>(&regN[kk][wn * TN + j]) =
                        *reinterpret_cast<const float4 *>(&Bs[tile_at<LDB_, false>(k0 + kk, c)]);
            }
        }
}

__device__ __forceinline__ void warptile_fma(float *acc, const float *regM, const float *regN)
{
#pragma unroll
    for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i * (WNITER * TN) + j] += regM[i] * regN[j];
}

// The store of a lane whose fragments are interleaved (warptile_fragments_k4): rows T_KMA, columns T_KMB.
// Columns that are consecutive go as 16-byte stores, interleaved ones one by one: the lanes of a warp's row
// then store consecutive floats. As store_tile: with TL_BETA_NONZERO a sub-tile's old values are all loaded
// before its first store; without it, the code the table was tuned with.
template <bool T_KMA, bool T_KMB, bool L2 = false>
__device__ __forceinline__ void warptile_store_km(float *C, int M, int N, int row0, int col0, int wrow, int wcol,
                                                  int lrow, int lcol, const float *acc, float alpha, float beta)
{
#if defined(TL_BETA_NONZERO) && TL_BETA_NONZERO
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn) {
            if (!T_KMB) { // rows of TN consecutive columns
                store_rows<TM, TN, WNITER * TN, L2>(
                    C, M, N, [=](int i) { return row0 + warptile_row<T_KMA>(wrow, wm, lrow, i); },
                    col0 + warptile_col<false>(wcol, wn, lcol, 0), acc + wm * TM * (WNITER * TN) + wn * TN, alpha, beta);
                continue;
            }
            // Interleaved columns: the old values first, then one float at a time.
            float old[TM * TN];
            if (beta != 0.0f)
#pragma unroll
                for (int i = 0; i < TM; ++i) {
                    const int r = row0 + warptile_row<T_KMA>(wrow, wm, lrow, i);
#pragma unroll
                    for (int j = 0; j < TN; ++j) {
                        const int cc = col0 + warptile_col<T_KMB>(wcol, wn, lcol, j);
                        if (r < M && cc < N) old[i * TN + j] = load_c<L2>(C + (size_t)r * N + cc);
                    }
                }
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                const int r = row0 + warptile_row<T_KMA>(wrow, wm, lrow, i);
                if (r >= M) continue;
                const float *a = acc + (wm * TM + i) * (WNITER * TN) + wn * TN;
#pragma unroll
                for (int j = 0; j < TN; ++j) {
                    const int cc = col0 + warptile_col<T_KMB>(wcol, wn, lcol, j);
                    if (cc < N)
                        C[(size_t)r * N + cc] = beta != 0.0f ? alpha * a[j] + beta * old[i * TN + j] : alpha * a[j];
                }
            }
        }
#else
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                const int r = row0 + warptile_row<T_KMA>(wrow, wm, lrow, i);
                if (r >= M) continue;
                const float *a = acc + (wm * TM + i) * (WNITER * TN) + wn * TN;
                float *c = C + (size_t)r * N;
                if (!T_KMB) { // one row of TN consecutive columns
                    store_tile<1, TN, TN, L2>(c, 1, N, 0, col0 + warptile_col<false>(wcol, wn, lcol, 0), a, alpha, beta);
                    continue;
                }
#pragma unroll
                for (int j = 0; j < TN; ++j) {
                    const int cc = col0 + warptile_col<true>(wcol, wn, lcol, j);
                    if (cc < N)
                        c[cc] = L2 ? alpha * a[j] + beta * __ldcg(c + cc) : sgemm_epilogue(a[j], alpha, beta, c + cc);
                }
            }
#endif
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
