// 07_block_warp_reduce: the block's sum built from warp sums only.
//
// 06 still runs a shared-memory tree down to 64 elements. Here every warp reduces its own values with
// shuffles, warp leaders write BLOCK / 32 sums to shared memory, and the first warp reduces those:
// one barrier per block instead of log2(BLOCK) - 5 (block_sum in reduce_common.cuh). Each thread
// first adds ITEMS elements, BLOCK apart, so blocks are fewer and each does more.
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 4
#endif
#define REDUCE_PARTS(n) (((n) + (long long)ITEMS * BLOCK - 1) / ((long long)ITEMS * BLOCK))
#include "reduce_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_block_warp_reduce(const elem_t *__restrict__ x, long long n, float *__restrict__ partial,
                         float *__restrict__ out)
{
    (void)out;
    const long long base = (long long)blockIdx.x * ITEMS * BLOCK + threadIdx.x;
    float v = 0.0f;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
        if (base + (long long)j * BLOCK < n) v += to_f(x[base + (long long)j * BLOCK]);
    v = block_sum(v);
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}
