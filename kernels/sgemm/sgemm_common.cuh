// Shared by every SGEMM variant: operand layouts and the epilogue.
// C (M x N) = alpha * A (M x K) * B (K x N) + beta * C, C row-major.
// A_COL / B_COL (0 or 1, set by the runner from the YAML's layout) pick each operand's layout.
#pragma once

#ifndef A_COL
#define A_COL 0
#endif
#ifndef B_COL
#define B_COL 0
#endif

#if A_COL
#define A_AT(i, p) A[(p) * M + (i)]
#else
#define A_AT(i, p) A[(i) * K + (p)]
#endif
#if B_COL
#define B_AT(p, j) B[(j) * K + (p)]
#else
#define B_AT(p, j) B[(p) * N + (j)]
#endif

// BLAS semantics: with beta == 0, C is not read (it may hold NaN; the runner checks that it is ignored).
__device__ __forceinline__ float sgemm_epilogue(float acc, float alpha, float beta, const float *c)
{
    return beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

// The epilogue of a thread's NE elements of C: element i, of product val(i), goes to at(i) where in(i) (it
// lies inside C). The old values of up to 32 elements are all loaded before the first of them is stored:
// element by element, the compiler cannot tell a store from the next element's load (C's leading dimension
// could be 0), so each load waits for the store before it, one trip to memory an element (tf32x3 128 x 128
// SWAP 1, 64 elements a thread, at 3749 x 4843 x 80 with beta -1.25 on an H200: 0.44 ms element by element,
// 0.12 loading first, 0.08 with beta 0; chunks of 8 or 16 were slower than 32 over such problems).
// Kernels call it where the runner's hint TL_BETA_NONZERO says the case's beta is not 0 (it is right for
// any beta) and keep their element-by-element loop without it: the code every case of beta 0 was tuned
// with (the same loop through this template moves ptxas's registers in the whole kernel).
template <int NE, class In, class At, class Val>
__device__ __forceinline__ void sgemm_store_c(In in, At at, Val val, float alpha, float beta)
{
    if (beta != 0.0f) {
        constexpr int CHUNK = NE < 32 ? NE : 32;
#pragma unroll
        for (int i0 = 0; i0 < NE; i0 += CHUNK) {
            float old[CHUNK];
#pragma unroll
            for (int i = 0; i < CHUNK; i++) old[i] = i0 + i < NE && in(i0 + i) ? *at(i0 + i) : 0.0f;
#pragma unroll
            for (int i = 0; i < CHUNK; i++)
                if (i0 + i < NE && in(i0 + i)) *at(i0 + i) = alpha * val(i0 + i) + beta * old[i];
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < NE; i++) // C is write-only (BLAS): not read, whatever it holds
        if (in(i)) *at(i) = alpha * val(i);
}

// Grouped rasterization of a 1-D grid (L2 reuse): block b takes tile (tm, tn), the blocks walking
// GROUP tile rows down before moving one tile column right.
template <int TILE_M, int TILE_N, int GROUP>
__device__ __forceinline__ void sgemm_raster(int M, int N, int b, int &tm, int &tn)
{
    const int tiles_m = (M + TILE_M - 1) / TILE_M, tiles_n = (N + TILE_N - 1) / TILE_N;
    const int per_group = GROUP * tiles_n, first_m = b / per_group * GROUP;
    const int rows = min(tiles_m - first_m, GROUP);
    tm = first_m + (b % per_group) % rows;
    tn = (b % per_group) / rows;
}
