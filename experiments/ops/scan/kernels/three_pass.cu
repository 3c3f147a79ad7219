// Reduce-then-scan in three kernels, each block owning a tile of THREADS * ITEMS elements: tile_sums writes each
// tile's sum to the workspace; scan_sums (one block) turns those sums into exclusive prefixes in place;
// scan_tiles scans each tile again, starting from its prefix. Each thread keeps ITEMS consecutive elements in
// registers, so a tile's scan is ITEMS sequential adds per thread plus one block-wide scan of the threads' sums.
#ifndef THREADS
#define THREADS 256
#endif
#ifndef ITEMS
#define ITEMS 8
#endif
#if THREADS % 32 != 0 || THREADS > 1024
#error "THREADS must be whole warps, at most 1024"
#endif

__device__ int *tilelab_workspace; // one int per tile

// The inclusive scan of v over the block's threads, and the block's total in *total.
__device__ __forceinline__ int block_scan(int v, int *total)
{
    __shared__ int warp_sums[THREADS / 32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int o = 1; o < 32; o *= 2) {
        int u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += u;
    }
    if (lane == 31) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int s = lane < THREADS / 32 ? warp_sums[lane] : 0;
        for (int o = 1; o < 32; o *= 2) {
            int u = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o) s += u;
        }
        if (lane < THREADS / 32) warp_sums[lane] = s;
    }
    __syncthreads();
    if (warp) v += warp_sums[warp - 1];
    *total = warp_sums[THREADS / 32 - 1];
    __syncthreads(); // warp_sums is read again by the next call
    return v;
}

extern "C" __global__ void __launch_bounds__(THREADS) tile_sums(const int *x, int *y, long long n)
{
    long long base = (long long)blockIdx.x * THREADS * ITEMS;
    int s = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) { // strided by THREADS: coalesced
        long long j = base + (long long)i * THREADS + threadIdx.x;
        if (j < n) s += x[j];
    }
    int total;
    block_scan(s, &total);
    if (threadIdx.x == 0) tilelab_workspace[blockIdx.x] = total;
}

extern "C" __global__ void __launch_bounds__(1024) scan_sums(const int *x, int *y, long long n)
{
    __shared__ int warp_sums[32];
    long long tiles = (n + THREADS * ITEMS - 1) / (THREADS * ITEMS);
    long long per = (tiles + 1023) / 1024, first = threadIdx.x * per; // each thread a run of consecutive tiles
    int s = 0;
    for (long long t = first; t < first + per && t < tiles; t++) s += tilelab_workspace[t];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, v = s;
    for (int o = 1; o < 32; o *= 2) {
        int u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += u;
    }
    if (lane == 31) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int w = warp_sums[lane];
        for (int o = 1; o < 32; o *= 2) {
            int u = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += u;
        }
        warp_sums[lane] = w;
    }
    __syncthreads();
    int run = v - s + (warp ? warp_sums[warp - 1] : 0); // exclusive prefix of this thread's run
    for (long long t = first; t < first + per && t < tiles; t++) {
        int here = tilelab_workspace[t];
        tilelab_workspace[t] = run;
        run += here;
    }
}

extern "C" __global__ void __launch_bounds__(THREADS) scan_tiles(const int *x, int *y, long long n)
{
    __shared__ int tile[THREADS * ITEMS];
    long long base = (long long)blockIdx.x * THREADS * ITEMS;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) { // coalesced in, then each thread scans ITEMS consecutive ones
        long long j = base + (long long)i * THREADS + threadIdx.x;
        tile[i * THREADS + threadIdx.x] = j < n ? x[j] : 0;
    }
    __syncthreads();
    int v[ITEMS], s = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) s += v[i] = tile[threadIdx.x * ITEMS + i];
    int total, before = block_scan(s, &total) - s + tilelab_workspace[blockIdx.x];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) tile[threadIdx.x * ITEMS + i] = before += v[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        long long j = base + (long long)i * THREADS + threadIdx.x;
        if (j < n) y[j] = tile[i * THREADS + threadIdx.x];
    }
}
