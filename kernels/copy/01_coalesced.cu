// 01_coalesced: a grid-stride loop, one float per thread per step.
//
// Consecutive threads copy consecutive floats: a warp's load is 128 contiguous bytes, four 32-byte
// sectors, all of whose bytes are used. The reference pattern the others are measured against.
#include "copy_common.cuh"

extern "C" __global__ void copy_coalesced(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    for (long long j = global_thread(); j < n; j += grid_threads()) y[j] = x[j];
}
