// 07_bank_padding: remove 06's bank conflicts by padding the tiles' rows.
//
// 06's transposing store writes A's four consecutive k values into one column of As: addresses BM
// floats apart, all in one bank when BM % 32 == 0, so a warp's stores serialise. Padding each row
// by PAD floats (a multiple of 4, to keep the 16-byte reads aligned) shifts row k by PAD * k banks:
// with PAD = 4 the four stores land in four banks. Costs BK * PAD floats of shared memory per tile.
//
// On the H100 no faster than 06 (4096^3: 4.48 ms against 4.50 ms): the conflicting stores are 4 per
// 64 FMAs of a thread per k; the inner loop, not the tile store, is what limits this rung.
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
#include "sgemm_vec_tile.cuh"

extern "C" __global__ void __launch_bounds__(NT)
sgemm_bank_padding(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B, float beta,
     float *__restrict__ C)
{
    vec_tile_gemm<LDA, LDB, false, true>(M, N, K, alpha, A, B, beta, C);
}
