// Loads of one BK-deep slab of A and B into shared memory, for my_tiled.cu: every thread of the
// block takes a share, with zero fill past the matrix edges, so M, N and K may be any sizes.
#pragma once

// tilelab passes -DA_COL=0|1 and -DB_COL=0|1 from the experiment's layout.
#if A_COL
#define A_AT(i, p) A[(size_t)(p) * M + (i)]
#else
#define A_AT(i, p) A[(size_t)(i) * K + (p)]
#endif
#if B_COL
#define B_AT(p, j) B[(size_t)(j) * K + (p)]
#else
#define B_AT(p, j) B[(size_t)(p) * N + (j)]
#endif

// As is stored transposed (As[p * BM + i]): the inner loop then reads TM consecutive floats of a row.
// The fastest index follows the operand's contiguous dimension, so the global loads coalesce.
__device__ __forceinline__ void load_a(float *As, const float *__restrict__ A, int M, int K, int row0, int k0)
{
    for (int idx = threadIdx.x; idx < BM * BK; idx += blockDim.x) {
#if A_COL
        const int i = idx % BM, p = idx / BM;
#else
        const int i = idx / BK, p = idx % BK;
#endif
        const int gi = row0 + i, gp = k0 + p;
        As[p * BM + i] = gi < M && gp < K ? A_AT(gi, gp) : 0.0f;
    }
}

__device__ __forceinline__ void load_b(float *Bs, const float *__restrict__ B, int N, int K, int col0, int k0)
{
    for (int idx = threadIdx.x; idx < BK * BN; idx += blockDim.x) {
#if B_COL
        const int p = idx % BK, j = idx / BK;
#else
        const int p = idx / BN, j = idx % BN;
#endif
        const int gp = k0 + p, gj = col0 + j;
        Bs[p * BN + j] = gp < K && gj < N ? B_AT(gp, gj) : 0.0f;
    }
}
