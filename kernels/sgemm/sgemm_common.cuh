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
