// 99_wrong_for_tests: a deliberately wrong SGEMM, for the runner's own tests (test-only variant).
//
// The classic off-by-one: the loop over K stops one element early. Every element of C misses one
// product, which verification must catch at every size.
#include "sgemm_common.cuh"

extern "C" __global__ void __launch_bounds__(256)
sgemm_wrong_for_tests(int M, int N, int K, float alpha, const float *__restrict__ A,
                      const float *__restrict__ B, float beta, float *__restrict__ C)
{
    const int row = blockIdx.y * 16 + threadIdx.x / 16;
    const int col = blockIdx.x * 16 + threadIdx.x % 16;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int p = 0; p < K - 1; ++p) acc += A_AT(row, p) * B_AT(p, col);
    C[row * N + col] = sgemm_epilogue(acc, alpha, beta, &C[row * N + col]);
}
