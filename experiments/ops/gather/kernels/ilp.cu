// ILP elements per thread, BLOCK apart, their index loads issued first and then their gathers: the random
// reads of one thread overlap instead of waiting for each other, which is what a latency-bound gather needs.
#ifndef ILP
#define ILP 4
#endif
#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) ilp(const float *x, const unsigned *idx, float *y, long long n)
{
    long long base = (long long)blockIdx.x * BLOCK * ILP + threadIdx.x;
    unsigned j[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) {
        long long i = base + (long long)k * BLOCK;
        j[k] = i < n ? __ldg(idx + i) : 0u;
    }
    float v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++) v[k] = base + (long long)k * BLOCK < n ? __ldg(x + j[k]) : 0.0f;
#pragma unroll
    for (int k = 0; k < ILP; k++)
        if (base + (long long)k * BLOCK < n) y[base + (long long)k * BLOCK] = v[k];
}
