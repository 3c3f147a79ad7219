// Decoupled look-back, shared by chained.cu and striped.cu: a tile's status word in the workspace holds its
// own sum once its block has it ("A"), then its inclusive prefix ("P"); `clear`, a run's first kernel, resets
// the ticket counter and every status word. The including file defines TILE (elements a block scans).
#ifndef TILE
#error "define TILE before including lookback.cuh"
#endif
#define FLAG_A (1ull << 62) // the tile's own sum is in the low 32 bits
#define FLAG_P (2ull << 62) // the inclusive prefix up to this tile is in the low 32 bits

__device__ unsigned long long *tilelab_workspace; // [0]: the ticket counter; [1 + t]: tile t's status

extern "C" __global__ void clear(const int *x, int *y, long long n)
{
    long long words = (n + TILE - 1) / TILE + 1;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < words; i += (long long)gridDim.x * blockDim.x)
        tilelab_workspace[i] = 0;
}

__device__ __forceinline__ unsigned long long load_status(long long t)
{
    return *(volatile unsigned long long *)&tilelab_workspace[1 + t];
}

__device__ __forceinline__ void store_status(long long t, unsigned long long v)
{
    *(volatile unsigned long long *)&tilelab_workspace[1 + t] = v;
}

// The tile's exclusive prefix, from the status words of the tiles before t (warp 0, t > 0).
__device__ __forceinline__ int look_back(long long t)
{
    int lane = threadIdx.x % 32, prefix = 0;
    for (long long j = t - 1;; j -= 32) {
        long long k = j - lane;
        unsigned long long s = k >= 0 ? load_status(k) : FLAG_P; // before tile 0: a prefix of 0
        while (__any_sync(0xffffffffu, (s >> 62) == 0))
            if ((s >> 62) == 0) s = load_status(k);
        unsigned p = __ballot_sync(0xffffffffu, (s >> 62) == 2);
        int stop = p ? __ffs(p) - 1 : 31; // the nearest P, and the A's after it
        int v = lane <= stop ? (int)(unsigned)s : 0;
        for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
        prefix += v;
        if (p) return prefix;
    }
}
