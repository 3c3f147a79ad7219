// The block's own 256 bins in shared memory take the atomics (fast, and spread over 32 banks), then one atomic
// per bin and block adds them to the global bins: n / (BLOCK * grid) times fewer atomics in the L2.
#ifndef BLOCK
#define BLOCK 256
#endif
#if BLOCK < 256 || BLOCK % 32 != 0
#error "BLOCK must be whole warps, at least 256 (one thread per bin to clear and flush them)"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) shared(const unsigned char *data, unsigned *counts, long long n)
{
    __shared__ unsigned bins[256];
    if (threadIdx.x < 256) bins[threadIdx.x] = 0;
    __syncthreads();
    for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (long long)gridDim.x * BLOCK)
        atomicAdd(&bins[data[i]], 1u);
    __syncthreads();
    if (threadIdx.x < 256 && bins[threadIdx.x]) atomicAdd(&counts[threadIdx.x], bins[threadIdx.x]);
}
