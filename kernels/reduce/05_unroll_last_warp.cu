// 05_unroll_last_warp: no barriers once one warp is left.
//
// In 04 the last five steps (32 .. 1 active threads) each pay a __syncthreads for one warp's work.
// Here the tree stops at 64 elements and the first warp finishes alone, unrolled. The classic code
// relied on implicit warp-synchronous execution through a volatile pointer; since Volta, threads of
// a warp may diverge, so each step is followed by __syncwarp() to keep the reads after the writes.
#ifndef BLOCK
#define BLOCK 256
#endif
#define REDUCE_PARTS(n) (((n) + 2 * BLOCK - 1) / (2 * BLOCK))
#include "reduce_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_unroll_last_warp(const elem_t *__restrict__ x, long long n, float *__restrict__ partial,
                        float *__restrict__ out)
{
    (void)out;
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * (2 * BLOCK) + t;
    float v = i < n ? to_f(x[i]) : 0.0f;
    if (i + BLOCK < n) v += to_f(x[i + BLOCK]);
    s[t] = v;
    __syncthreads();
    for (int step = BLOCK / 2; step > 32; step >>= 1) {
        if (t < step) s[t] += s[t + step];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *vs = s;
        v = vs[t] + vs[t + 32];
#pragma unroll
        for (int step = 16; step > 0; step >>= 1) {
            vs[t] = v;
            __syncwarp();
            v += vs[t + step];
            __syncwarp();
        }
        if (t == 0) partial[blockIdx.x] = v;
    }
}
