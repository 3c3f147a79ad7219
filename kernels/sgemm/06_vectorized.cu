// 06_vectorized: 16-byte loads, global and shared.
//
// 05 moves every float with its own instruction. Here global loads are float4 along the operand's
// contiguous dimension (LDG.128; rows must be 16-byte aligned, ld % 4 == 0, else the scalar path), and
// the inner loop reads its TM values of A and TN of B from shared memory as float4 (LDS.128): a
// quarter of the load instructions, so more issue slots for FMAs. A is stored transposed (As[k][m]),
// which makes the 16-byte reads of A possible; the price is a transposing store, four 4-byte stores
// into one column of As, which hit the same bank (As rows are BM floats apart): 07 and 08 fix that.
//
// Why it gains less than it should (docs/results/h100-sgemm.md): 05's scalar tile copies are unrolled
// with constant offsets too, so the instructions 06 saves are few; both rungs wait at two barriers a tile,
// which 09 removes; and its shared-memory bank conflicts (`counters: [smem]`) are mostly in the inner
// loop's B reads (a thread's TN = 8 columns are contiguous, so threads are 8 floats apart and every fourth
// one reads the same four banks), the rest in A's transposing store.
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
sgemm_vectorized(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B, float beta,
     float *__restrict__ C)
{
    vec_tile_gemm<LDA, LDB, false>(M, N, K, alpha, A, B, beta, C);
}
