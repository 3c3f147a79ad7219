// 01_naive: one thread per element, y[j][i] = x[i][j].
//
// x is m x n and y n x m, both row-major. Consecutive threads take consecutive j: the reads of a
// warp are 128 contiguous bytes, but its writes land m floats apart, a 32-byte sector per float.
// One side of a transpose is always strided in global memory unless the data goes through shared
// memory (02).
#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS
#define ROWS 8
#endif

extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose_naive(const float *__restrict__ x, float *__restrict__ y, int m, int n)
{
    const int j = blockIdx.x * TILE + threadIdx.x;
#pragma unroll
    for (int r = 0; r < TILE; r += ROWS) {
        const int i = blockIdx.y * TILE + threadIdx.y + r;
        if (i < m && j < n) y[(size_t)j * m + i] = x[(size_t)i * n + j];
    }
}
