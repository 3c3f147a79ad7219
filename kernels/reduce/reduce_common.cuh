// Shared by the reduce variants: the element type, packed loads, warp and block reductions, and the
// one-block kernel that finishes a two-pass reduction.
//
// Every variant takes (x, n, partial, out): x holds n elements (float, or half with -DTL_DTYPE_F16=1,
// summed in float), out is one float that the runner zeroes before each run, partial is scratch of at
// least REDUCE_PARTS(n) floats (the runner fills it with NaN before the verified run, so a partial
// that is read before it is written shows). A two-pass variant writes one partial sum per block and
// its second kernel, reduce_finish, adds REDUCE_PARTS(n) of them into out; a one-pass variant adds
// into out with atomicAdd.
#pragma once

#if TL_DTYPE_F16
typedef unsigned short elem_t; // IEEE half, as bits: converted with one cvt instruction
__device__ __forceinline__ float to_f(elem_t h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
#else
typedef float elem_t;
__device__ __forceinline__ float to_f(elem_t v) { return v; }
#endif

// Elements per 16-byte pack: 4 floats or 8 halves.
#define VEC (16 / (int)sizeof(elem_t))

// The sum of the VEC elements of the 16-byte pack at p (16-byte aligned), with one LDG.128.
__device__ __forceinline__ float pack_sum(const elem_t *p)
{
    const uint4 v = __ldg(reinterpret_cast<const uint4 *>(p));
#if TL_DTYPE_F16
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) s += to_f((elem_t)(w[i] & 0xffffu)) + to_f((elem_t)(w[i] >> 16));
    return s;
#else
    return (__uint_as_float(v.x) + __uint_as_float(v.y)) + (__uint_as_float(v.z) + __uint_as_float(v.w));
#endif
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v; // lane 0 holds the warp's sum
}

// The sum of v over the block (blockDim.x a multiple of 32, at most 1024), in thread 0; a warp-level
// reduction in registers, then one across the warps' sums in shared memory.
__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warp_sums[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

#define FINISH_THREADS 1024

// Second pass: one block adds the REDUCE_PARTS(n) partial sums (REDUCE_PARTS is the variant's).
extern "C" __global__ void __launch_bounds__(FINISH_THREADS)
reduce_finish(const elem_t *__restrict__ x, long long n, float *__restrict__ partial, float *__restrict__ out)
{
    (void)x;
    const long long parts = REDUCE_PARTS(n);
    float v = 0.0f;
    for (long long i = threadIdx.x; i < parts; i += FINISH_THREADS) v += partial[i];
    v = block_sum(v);
    if (threadIdx.x == 0) *out = v;
}
