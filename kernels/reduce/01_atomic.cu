// 01_atomic: every thread adds its element into the result with atomicAdd.
//
// The obvious first version and the slowest: n atomic additions to one address serialise in the
// L2 slice that owns it, whatever the memory bandwidth. The order of the additions is whatever the
// hardware makes it, so the result's rounding changes from run to run.
#ifndef BLOCK
#define BLOCK 256
#endif
#define REDUCE_PARTS(n) 1LL
#include "reduce_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_atomic(const elem_t *__restrict__ x, long long n, float *__restrict__ partial, float *__restrict__ out)
{
    (void)partial;
    const long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) atomicAdd(out, to_f(x[i]));
}
