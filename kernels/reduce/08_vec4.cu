// 08_vec4: packed 16-byte loads in a grid-stride loop, UNROLL of them in flight per thread.
//
// Up to 07 every element is its own 4-byte (or 2-byte) load. Here a thread loads 16 bytes at a time
// (LDG.128: 4 floats or 8 halves), with UNROLL independent loads issued before any is used, in a
// loop over the array with a stride of the whole grid: GRID blocks, a few per SM, stay resident and
// keep enough bytes in flight to cover the DRAM latency. Consecutive threads read consecutive packs,
// so a warp's load is 512 contiguous bytes. One partial sum per block: reduce_vec4 finishes with the
// one-block kernel, reduce_vec4_atomic with one atomicAdd per block (the order of GRID additions then
// varies from run to run, and so does the rounding of the result).
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef GRID
#define GRID 1056
#endif
#ifndef UNROLL
#define UNROLL 4
#endif
// Blocks actually launched: no more than the packs need.
#define REDUCE_PARTS(n) min((long long)GRID, ((n) / VEC + BLOCK - 1) / BLOCK > 0 ? ((n) / VEC + BLOCK - 1) / BLOCK : 1LL)
#include "reduce_common.cuh"

__device__ __forceinline__ float vec_thread_sum(const elem_t *__restrict__ x, long long n)
{
    const long long packs = n / VEC, stride = (long long)gridDim.x * BLOCK;
    long long p = (long long)blockIdx.x * BLOCK + threadIdx.x;
    float acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc[u] = 0.0f;
    // UNROLL loads issued back to back, then added: UNROLL x 16 bytes in flight per thread.
    for (; p + (UNROLL - 1) * stride < packs; p += UNROLL * stride) {
        float v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = pack_sum(x + (p + u * stride) * VEC);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc[u] += v[u];
    }
    for (; p < packs; p += stride) acc[0] += pack_sum(x + p * VEC);
    float s = 0.0f;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s += acc[u];
    // The n % VEC elements after the last pack: the grid's first threads take one each.
    const long long tail = packs * VEC + (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (tail < n) s += to_f(x[tail]);
    return s;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_vec4(const elem_t *__restrict__ x, long long n, float *__restrict__ partial, float *__restrict__ out)
{
    (void)out;
    const float v = block_sum(vec_thread_sum(x, n));
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_vec4_atomic(const elem_t *__restrict__ x, long long n, float *__restrict__ partial, float *__restrict__ out)
{
    (void)partial;
    const float v = block_sum(vec_thread_sum(x, n));
    if (threadIdx.x == 0) atomicAdd(out, v);
}
