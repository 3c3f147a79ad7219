// 06_warp_shuffle: the last warp's steps with __shfl_down_sync instead of shared memory.
//
// 05's last warp still goes through shared memory five times. A shuffle moves a register from lane
// l + o to lane l directly: five shuffles, no shared memory, no __syncwarp. The tree above the last
// warp is 05's.
#ifndef BLOCK
#define BLOCK 256
#endif
#define REDUCE_PARTS(n) (((n) + 2 * BLOCK - 1) / (2 * BLOCK))
#include "reduce_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_warp_shuffle(const elem_t *__restrict__ x, long long n, float *__restrict__ partial, float *__restrict__ out)
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
        v = warp_sum(s[t] + s[t + 32]);
        if (t == 0) partial[blockIdx.x] = v;
    }
}
