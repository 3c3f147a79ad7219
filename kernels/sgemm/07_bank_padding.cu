// 07_bank_padding: remove 06's bank conflicts: padding for the tile store, spread columns for the reads.
//
// 06's transposing store writes A's four consecutive k values into one column of As: addresses BM
// floats apart, all in one bank when BM % 32 == 0, so a warp's stores serialise. Padding each row
// by PAD floats (a multiple of 4, to keep the 16-byte reads aligned) shifts row k by PAD * k banks:
// with PAD = 4 the four stores land in four banks. Costs BK * PAD floats of shared memory per tile.
//
// Padding alone was no faster than 06 (4.48 ms against 4.50 at 4096^3), and the counters said why:
// 93% of 06's conflicts are in the inner loop's B reads, which padding cannot touch (a row shift moves
// every column of a row alike). So a thread's TN columns are also spread: TN / 4 groups of 4, the
// groups BN / TN * 4 columns apart (sgemm_vec_tile.cuh, T_SPREAD), and a warp's 16-byte B reads cover
// one contiguous stretch of a row. Measured on the H100 at 4096^3: 2.9e6 bank conflicts against 06's
// 2.88e8 (1.0%), 4.14 ms against 06's 4.50 (0.64 x cuBLAS).
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
