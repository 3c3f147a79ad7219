// 03_sequential: the tree with sequential addressing.
//
// 02's active threads are spread over every warp and diverge inside them. Here at each step the
// first s threads add element t + s into t, s halving from BLOCK / 2: the active threads are
// contiguous, so whole warps retire together, and consecutive threads read consecutive words of
// shared memory (no bank conflicts). Half the threads still idle from the first step on.
#ifndef BLOCK
#define BLOCK 256
#endif
#define REDUCE_PARTS(n) (((n) + BLOCK - 1) / BLOCK)
#include "reduce_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_sequential(const elem_t *__restrict__ x, long long n, float *__restrict__ partial, float *__restrict__ out)
{
    (void)out;
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    s[t] = i < n ? to_f(x[i]) : 0.0f;
    __syncthreads();
    for (int step = BLOCK / 2; step > 0; step >>= 1) {
        if (t < step) s[t] += s[t + step];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}
