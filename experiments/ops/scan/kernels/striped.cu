// The single pass of chained.cu (decoupled look-back, lookback.cuh: the same ticket, status words and `clear`) without
// staging the tile in shared memory: each thread loads ITEMS / 4 runs of 4 consecutive elements with 16-byte
// loads, run r of thread k at 4 (r THREADS + k) within the tile, so that a warp's loads are 512 contiguous
// bytes. The tile's order is then row by row (r), thread by thread within a row: each row is scanned by warp
// shuffles, the rows' per-warp sums in shared memory by warp 0, which also looks back; nothing else is shared.
#ifndef THREADS
#define THREADS 256
#endif
#ifndef ITEMS
#define ITEMS 16
#endif
#if THREADS % 32 != 0 || THREADS > 1024 || ITEMS % 4 != 0
#error "THREADS must be whole warps, at most 1024, and ITEMS a multiple of 4"
#endif
#define TILE (THREADS * ITEMS)
#define ROWS (ITEMS / 4)
#define WARPS (THREADS / 32)
#include "lookback.cuh"

__device__ __forceinline__ int warp_inclusive(int v, int lane)
{
    for (int o = 1; o < 32; o *= 2) {
        int u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += u;
    }
    return v;
}

extern "C" __global__ void __launch_bounds__(THREADS) striped(const int *x, int *y, long long n)
{
    __shared__ int sums[ROWS * WARPS]; // row r, warp w at r WARPS + w: the tile's order
    __shared__ long long ticket;
    __shared__ int tile_prefix;
    if (threadIdx.x == 0) ticket = (long long)atomicAdd(&tilelab_workspace[0], 1ull);
    __syncthreads();
    const long long t = ticket, base = t * TILE;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const bool full = base + TILE <= n; // x and y are 256-byte aligned, and base a multiple of 4
    int4 v[ROWS];
    int inc[ROWS], own[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        long long k = base + 4ll * (r * THREADS + threadIdx.x);
        if (full) {
            v[r] = *(const int4 *)(x + k);
        } else {
            v[r].x = k < n ? x[k] : 0, v[r].y = k + 1 < n ? x[k + 1] : 0;
            v[r].z = k + 2 < n ? x[k + 2] : 0, v[r].w = k + 3 < n ? x[k + 3] : 0;
        }
        own[r] = v[r].x + v[r].y + v[r].z + v[r].w;
        inc[r] = warp_inclusive(own[r], lane);
        if (lane == 31) sums[r * WARPS + warp] = inc[r];
    }
    __syncthreads();
    if (warp == 0) { // the rows' warp sums scanned in place, 32 at a time
        int carry = 0;
        for (int i = 0; i < ROWS * WARPS; i += 32) {
            int w = i + lane < ROWS * WARPS ? sums[i + lane] : 0;
            w = warp_inclusive(w, lane) + carry;
            if (i + lane < ROWS * WARPS) sums[i + lane] = w;
            carry = __shfl_sync(0xffffffffu, w, 31);
        }
        if (lane == 0) store_status(t, (t == 0 ? FLAG_P : FLAG_A) | (unsigned)carry);
        int prefix = t == 0 ? 0 : look_back(t);
        if (lane == 0) {
            if (t) store_status(t, FLAG_P | (unsigned)(prefix + carry));
            tile_prefix = prefix;
        }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        int idx = r * WARPS + warp;
        int run = tile_prefix + (idx ? sums[idx - 1] : 0) + inc[r] - own[r];
        int4 o;
        o.x = run += v[r].x, o.y = run += v[r].y, o.z = run += v[r].z, o.w = run += v[r].w;
        long long k = base + 4ll * (r * THREADS + threadIdx.x);
        if (full) {
            *(int4 *)(y + k) = o;
        } else {
            if (k < n) y[k] = o.x;
            if (k + 1 < n) y[k + 1] = o.y;
            if (k + 2 < n) y[k + 2] = o.z;
            if (k + 3 < n) y[k + 3] = o.w;
        }
    }
}
