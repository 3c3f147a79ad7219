// A single-pass scan (chained, with decoupled look-back): x is read once and y written once, as in CUB. Blocks
// take tiles in the order they start (a ticket from an atomic counter), so a block waits only on tiles whose
// blocks are already running. Each block publishes its tile's sum as soon as it has it ("A"), and its inclusive
// prefix once it knows it ("P"); a block finds its exclusive prefix by walking back, 32 predecessors at a time
// with one warp, adding the A's until it meets a P. `clear`, the run's first kernel, resets the ticket and the
// tiles' status words in the workspace.
#ifndef THREADS
#define THREADS 256
#endif
#ifndef ITEMS
#define ITEMS 16
#endif
#if THREADS % 32 != 0 || THREADS > 1024
#error "THREADS must be whole warps, at most 1024"
#endif
#define TILE (THREADS * ITEMS)
#include "lookback.cuh"

extern "C" __global__ void __launch_bounds__(THREADS) chained(const int *x, int *y, long long n)
{
    __shared__ int tile[TILE];
    __shared__ int warp_sums[THREADS / 32];
    __shared__ long long ticket;
    __shared__ int tile_prefix;
    if (threadIdx.x == 0) ticket = (long long)atomicAdd(&tilelab_workspace[0], 1ull);
    __syncthreads();
    const long long t = ticket, base = t * TILE;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) { // coalesced in; each thread then owns ITEMS consecutive elements
        long long j = base + (long long)i * THREADS + threadIdx.x;
        tile[i * THREADS + threadIdx.x] = j < n ? x[j] : 0;
    }
    __syncthreads();
    int v[ITEMS], s = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) s += v[i] = tile[threadIdx.x * ITEMS + i];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, inc = s;
    for (int o = 1; o < 32; o *= 2) {
        int u = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= o) inc += u;
    }
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        int w = lane < THREADS / 32 ? warp_sums[lane] : 0;
        for (int o = 1; o < 32; o *= 2) {
            int u = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += u;
        }
        if (lane < THREADS / 32) warp_sums[lane] = w;
        int total = __shfl_sync(0xffffffffu, w, THREADS / 32 - 1);
        if (lane == 0) store_status(t, (t == 0 ? FLAG_P : FLAG_A) | (unsigned)total);
        int prefix = t == 0 ? 0 : look_back(t);
        if (lane == 0) {
            if (t) store_status(t, FLAG_P | (unsigned)(prefix + total));
            tile_prefix = prefix;
        }
    }
    __syncthreads();
    int run = tile_prefix + (warp ? warp_sums[warp - 1] : 0) + inc - s;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) tile[threadIdx.x * ITEMS + i] = run += v[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        long long j = base + (long long)i * THREADS + threadIdx.x;
        if (j < n) y[j] = tile[i * THREADS + threadIdx.x];
    }
}
