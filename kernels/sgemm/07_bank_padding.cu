// 07_bank_padding: remove 06's bank conflicts: padding for the tile store, spread columns for the reads.
//
// 06's transposing store writes A's four consecutive k values into one column of As: addresses BM
// floats apart, all in one bank when BM % 32 == 0, so a warp's stores serialise. Padding each row
// by PAD floats (a multiple of 4, to keep the 16-byte reads aligned) shifts row k by PAD * k banks:
// with PAD = 4 the four stores land in four banks. Costs BK * PAD floats of shared memory per tile.
//
// Padding alone cannot touch most of 06's conflicts, those of the inner loop's B reads (a row shift moves
// every column of a row alike). So a thread's TN columns are also spread: TN / 4 groups of 4, the groups
// BN / TN * 4 columns apart (sgemm_vec_tile.cuh, T_SPREAD), and a warp's 16-byte B reads cover one
// contiguous stretch of a row: about a hundredth of 06's conflicts are left (docs/results/h100-sgemm.md).
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
#define NT (BM * BN / (TM * TN))
#define LDA (BM + PAD)
#define LDB (BN + PAD)
#include "sgemm_vec_tile.cuh"

extern "C" __global__ void __launch_bounds__(NT)
sgemm_bank_padding(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B, float beta,
     float *__restrict__ C)
{
    vec_tile_gemm<LDA, LDB, false, true>(M, N, K, alpha, A, B, beta, C);
}
