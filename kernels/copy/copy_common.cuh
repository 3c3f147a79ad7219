// Shared by the copy variants: every variant copies n floats, y[j] = x[j] for every j in [0, n),
// each element exactly once; what differs is which thread moves which element, and how. The runner
// checks y against x bit for bit.
#pragma once

// Thread t of the whole grid, and the grid's thread count.
__device__ __forceinline__ long long global_thread() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long grid_threads() { return (long long)gridDim.x * blockDim.x; }
