// 02_gmem_coalesced: the same arithmetic as 01_naive, with the thread-to-element mapping flipped.
//
// Consecutive threads now own consecutive columns of one row of C. A warp reads one element of A
// (a broadcast), 32 consecutive floats of B (one 128-byte line) and writes 32 consecutive floats of
// C: every byte moved is used. Expected: several times faster than 01 at large sizes, still far from
// cuBLAS because each element of A and B is fetched from global memory K times (no reuse on chip).
#include "sgemm_common.cuh"

#ifndef BLOCKSIZE
#define BLOCKSIZE 32
#endif

extern "C" __global__ void __launch_bounds__(BLOCKSIZE * BLOCKSIZE)
sgemm_gmem_coalesced(int M, int N, int K, float alpha, const float *__restrict__ A,
                     const float *__restrict__ B, float beta, float *__restrict__ C)
{
    const int row = blockIdx.x * BLOCKSIZE + threadIdx.x / BLOCKSIZE;
    const int col = blockIdx.y * BLOCKSIZE + threadIdx.x % BLOCKSIZE;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int p = 0; p < K; ++p) acc += A_AT(row, p) * B_AT(p, col);
    C[row * N + col] = sgemm_epilogue(acc, alpha, beta, &C[row * N + col]);
}
