// 04_first_add: the first addition during the load.
//
// 03 lets half its threads idle from the first step. Here each thread loads two elements, BLOCK
// apart (both loads coalesced), and stores their sum: a block covers 2 * BLOCK elements, half as
// many blocks are launched, and the tree starts with every thread's work done.
#ifndef BLOCK
#define BLOCK 256
#endif
#define REDUCE_PARTS(n) (((n) + 2 * BLOCK - 1) / (2 * BLOCK))
#include "reduce_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_first_add(const elem_t *__restrict__ x, long long n, float *__restrict__ partial, float *__restrict__ out)
{
    (void)out;
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * (2 * BLOCK) + t;
    float v = i < n ? to_f(x[i]) : 0.0f;
    if (i + BLOCK < n) v += to_f(x[i + BLOCK]);
    s[t] = v;
    __syncthreads();
    for (int step = BLOCK / 2; step > 0; step >>= 1) {
        if (t < step) s[t] += s[t + step];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}
