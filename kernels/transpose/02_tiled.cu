// 02_tiled: a TILE x TILE tile through shared memory, so both global sides are coalesced.
//
// A block reads a tile of x row by row (coalesced), and writes it to y row by row too, reading the
// tile column-wise from shared memory (transpose_tile.cuh). With TILE = 32 floats per row, that
// column read hits one bank 32 times: a 32-way bank conflict on every read, which 03 removes.
#include "transpose_tile.cuh"

extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose_tiled(const float *__restrict__ x, float *__restrict__ y, int m, int n)
{
    transpose_tile<0>(x, y, m, n);
}
