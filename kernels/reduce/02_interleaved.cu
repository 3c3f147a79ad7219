// 02_interleaved: a tree in shared memory, interleaved addressing (the first reduction kernel of the
// classic CUDA reduction talk).
//
// Each block loads BLOCK elements into shared memory and halves them log2(BLOCK) times: at step s,
// thread t adds element t + s into t when t is a multiple of 2s. Threads of a warp take different
// branches (divergence), and the % is slow; one partial sum per block, which reduce_finish adds up.
#ifndef BLOCK
#define BLOCK 256
#endif
#define REDUCE_PARTS(n) (((n) + BLOCK - 1) / BLOCK)
#include "reduce_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_interleaved(const elem_t *__restrict__ x, long long n, float *__restrict__ partial, float *__restrict__ out)
{
    (void)out;
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    s[t] = i < n ? to_f(x[i]) : 0.0f;
    __syncthreads();
    for (int step = 1; step < BLOCK; step *= 2) {
        if (t % (2 * step) == 0) s[t] += s[t + step];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}
