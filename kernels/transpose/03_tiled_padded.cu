// 03_tiled_padded: 02 with each tile row padded by one float.
//
// With TILE + 1 floats per row, element [t][c] of a column read sits in bank (t * (TILE + 1) + c) % 32:
// consecutive t in consecutive banks, no conflicts, for one float of shared memory per row.
#include "transpose_tile.cuh"

extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose_tiled_padded(const float *__restrict__ x, float *__restrict__ y, int m, int n)
{
    transpose_tile<1>(x, y, m, n);
}
