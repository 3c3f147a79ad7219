// 05_vec4: 16-byte loads and stores (float4) done right, UNROLL of them in flight per thread.
//
// Consecutive threads on consecutive float4s: a warp's instruction moves 512 contiguous bytes. Each
// thread issues UNROLL loads before its first store, so enough bytes are in flight to cover the DRAM
// latency with a grid of a few blocks per SM. The n % 4 floats at the end go one per thread.
#ifndef UNROLL
#define UNROLL 4
#endif
#include "copy_common.cuh"

extern "C" __global__ void copy_vec4(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    const long long quads = n / 4, stride = grid_threads();
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float4 *y4 = reinterpret_cast<float4 *>(y);
    long long i = global_thread();
    for (; i + (UNROLL - 1) * stride < quads; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = __ldg(&x4[i + u * stride]);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) y4[i + u * stride] = v[u];
    }
    for (; i < quads; i += stride) y4[i] = x4[i];
    const long long tail = quads * 4 + global_thread();
    if (tail < n) y[tail] = x[tail];
}
