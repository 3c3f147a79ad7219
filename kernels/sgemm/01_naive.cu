// 01_naive: one thread per element of C, the simplest correct SGEMM.
//
// threadIdx.x walks down the rows of C. The 32 threads of a warp therefore read 32 different rows
// of A (addresses K floats apart) and write C with a stride of N floats: every access costs its own
// 32-byte sector, so the memory system moves up to 8x the bytes it uses. Only B is read well (all
// threads of a warp ask for the same element: a broadcast). 02_gmem_coalesced fixes the mapping.
#include "sgemm_common.cuh"

#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 32
#endif

extern "C" __global__ void __launch_bounds__(BX * BY)
sgemm_naive(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B,
            float beta, float *__restrict__ C)
{
    const int row = blockIdx.x * BX + threadIdx.x;
    const int col = blockIdx.y * BY + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int p = 0; p < K; ++p) acc += A_AT(row, p) * B_AT(p, col);
    C[row * N + col] = sgemm_epilogue(acc, alpha, beta, &C[row * N + col]);
}
