// 04_vec2: 8-byte loads and stores (float2), consecutive threads on consecutive pairs.
//
// Half the load and store instructions of 01 for the same bytes; a warp moves 256 contiguous bytes
// per instruction. The n % 2 odd float at the end is copied by thread 0.
#include "copy_common.cuh"

extern "C" __global__ void copy_vec2(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    const long long pairs = n / 2;
    const float2 *x2 = reinterpret_cast<const float2 *>(x);
    float2 *y2 = reinterpret_cast<float2 *>(y);
    for (long long i = global_thread(); i < pairs; i += grid_threads()) y2[i] = x2[i];
    if (global_thread() == 0 && (n & 1)) y[n - 1] = x[n - 1];
}
