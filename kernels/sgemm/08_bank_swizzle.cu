// 08_bank_swizzle: remove 06's bank conflicts with an XOR swizzle instead of padding.
//
// Instead of padding (07), the 16-byte chunk index of column x in row k is XORed with k: the four
// k rows of a transposing store land in different chunks, so in different banks, and a 16-byte read
// along x in one row is still contiguous. No shared memory is spent; the index costs an XOR. Needs
// BM and BN powers of two (the XOR stays inside a row).
//
// The B reads are spread as in 07. Once the conflicts are gone the XOR is not free: it cannot fold into the
// shared loads' immediate offsets, because a lane's offset is known only at run time, so 08 ends a little
// behind 07 (docs/results/h100-sgemm.md). Its registers matter more: a build of the loader whose unrolled
// fallback path took it past 128 a thread lost its second block an SM.
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
#define LDA (BM)
#define LDB (BN)
#include "sgemm_vec_tile.cuh"

extern "C" __global__ void __launch_bounds__(NT)
sgemm_bank_swizzle(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B, float beta,
     float *__restrict__ C)
{
    vec_tile_gemm<LDA, LDB, true, true>(M, N, K, alpha, A, B, beta, C);
}
