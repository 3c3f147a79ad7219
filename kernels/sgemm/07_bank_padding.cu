// 07_bank_padding: remove 06's bank conflicts by padding the tiles' rows.
//
// 06's transposing store writes A's four consecutive k values into one column of As: addresses BM
// floats apart, all in one bank when BM % 32 == 0, so a warp's stores serialise. Padding each row
// by PAD floats (a multiple of 4, to keep the 16-byte reads aligned) shifts row k by PAD * k banks:
// with PAD = 4 the four stores land in four banks. Costs BK * PAD floats of shared memory per tile.
//
// On the H100 no faster than 06 (4096^3: 4.48 ms against 4.50 ms): the conflicting stores are 4 per
// 64 FMAs of a thread per k; the inner loop, not the tile store, is what limits this rung.
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
#ifndef PAD
#define PAD 4
#endif
#if PAD % 4 != 0 || PAD < 0
#error "07_bank_padding: PAD must be a non-negative multiple of 4 (16-byte reads)"
#endif
#define NT (BM * BN / (TM * TN))
#if BM % TM != 0 || BN % TN != 0 || NT > 1024 || NT < 32 || TM % 4 != 0 || TN % 4 != 0 || BK % 4 != 0
#error "07_bank_padding: TM, TN and BK multiples of 4, BM % TM == 0, BN % TN == 0, BM * BN / (TM * TN) = 32 .. 1024 threads"
#endif
#define LDA (BM + PAD)
#define LDB (BN + PAD)

extern "C" __global__ void __launch_bounds__(NT)
sgemm_bank_padding(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B, float beta,
     float *__restrict__ C)
{
    __shared__ __align__(16) float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * LDB];
    const int tid = threadIdx.x, tc = tid % (BN / TN), tr = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM * TN] = {0.0f}, regM[TM], regN[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        tile_load_vec<BK, BM, LDA, NT, !A_COL, false>(As, A, A_COL ? M : K, K, M, k0, row0, tid);
        tile_load_vec<BK, BN, LDB, NT, B_COL, false>(Bs, B, B_COL ? K : N, K, N, k0, col0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            // 16-byte shared loads: TM / 4 + TN / 4 instructions per k instead of TM + TN.
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4 *>(&regM[i]) =
                    *reinterpret_cast<const float4 *>(&As[tile_at<LDA, false>(k, tr * TM + i)]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4 *>(&regN[j]) =
                    *reinterpret_cast<const float4 *>(&Bs[tile_at<LDB, false>(k, tc * TN + j)]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    store_tile<TM, TN>(C, M, N, row0 + tr * TM, col0 + tc * TN, acc, alpha, beta);
}
