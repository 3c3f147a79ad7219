// The tiled transpose of 02 and 03: x is m x n, y n x m, both row-major; a block of TILE x ROWS
// threads moves one TILE x TILE tile through shared memory, each thread TILE / ROWS elements.
// T_PAD floats pad each row of the shared tile.
#pragma once

#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS
#define ROWS 8
#endif

template <int T_PAD>
__device__ __forceinline__ void transpose_tile(const float *__restrict__ x, float *__restrict__ y, int m, int n)
{
    __shared__ float tile[TILE][TILE + T_PAD];
    const int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE;
    // Read: threads along x's rows, coalesced.
#pragma unroll
    for (int r = 0; r < TILE; r += ROWS) {
        const int i = i0 + threadIdx.y + r, j = j0 + threadIdx.x;
        if (i < m && j < n) tile[threadIdx.y + r][threadIdx.x] = x[(size_t)i * n + j];
    }
    __syncthreads();
    // Write: threads along y's rows, coalesced; the tile is read down a column.
#pragma unroll
    for (int r = 0; r < TILE; r += ROWS) {
        const int j = j0 + threadIdx.y + r, i = i0 + threadIdx.x; // y's row j, column i
        if (j < n && i < m) y[(size_t)j * m + i] = tile[threadIdx.x][threadIdx.y + r];
    }
}
