// 03_smem_tile: shared-memory tiling.
//
// Each block owns a BLOCKSIZE x BLOCKSIZE tile of C. It walks along K one tile at a time: all
// threads load one element of A's tile and one of B's into shared memory (coalesced), sync, then
// each thread accumulates BLOCKSIZE products from shared memory, and syncs again before the next
// tile overwrites it. Every element loaded from global memory is now used BLOCKSIZE times, so
// global traffic falls by that factor against 02; the inner loop is bound by shared-memory loads
// (two per FMA), which is what register blocking (04, 05) attacks next.
// Sizes that are not tile multiples: out-of-range loads put 0 in the tile, out-of-range stores are
// skipped.
#include "sgemm_common.cuh"

#ifndef BLOCKSIZE
#define BLOCKSIZE 32
#endif

extern "C" __global__ void __launch_bounds__(BLOCKSIZE * BLOCKSIZE)
sgemm_smem_tile(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B,
                float beta, float *__restrict__ C)
{
    __shared__ float As[BLOCKSIZE * BLOCKSIZE];
    __shared__ float Bs[BLOCKSIZE * BLOCKSIZE];
    const int tr = threadIdx.x / BLOCKSIZE, tc = threadIdx.x % BLOCKSIZE;
    const int row = blockIdx.y * BLOCKSIZE + tr;
    const int col = blockIdx.x * BLOCKSIZE + tc;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BLOCKSIZE) {
        As[tr * BLOCKSIZE + tc] = (row < M && k0 + tc < K) ? A_AT(row, k0 + tc) : 0.0f;
        Bs[tr * BLOCKSIZE + tc] = (k0 + tr < K && col < N) ? B_AT(k0 + tr, col) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BLOCKSIZE; ++p) acc += As[tr * BLOCKSIZE + p] * Bs[p * BLOCKSIZE + tc];
        // The next iteration overwrites the tiles: wait until every thread is done reading them.
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = sgemm_epilogue(acc, alpha, beta, &C[row * N + col]);
}
