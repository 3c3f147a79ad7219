// A block per row, and the max and the sum in one pass (the "online" softmax): each thread keeps a running max m
// and a sum s of exp(x - m), rescaling s when m grows; the block then merges the (m, s) pairs. Reads x twice
// instead of three times, and every read is coalesced.
#define NEG_INF __int_as_float(0xff800000) // NVRTC has no <math.h>: -infinity by its bits

#ifndef THREADS
#define THREADS 256
#endif
#if THREADS % 32 != 0 || THREADS > 1024
#error "THREADS must be whole warps, at most 1024"
#endif

struct ms { float m, s; };

__device__ __forceinline__ ms merge(ms a, ms b)
{
    float m = fmaxf(a.m, b.m);
    if (m == NEG_INF) return a;
    return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

extern "C" __global__ void __launch_bounds__(THREADS) online(const float *x, float *y, long long rows, long long cols)
{
    __shared__ ms part[THREADS / 32];
    long long r = blockIdx.x;
    const float *in = x + r * cols;
    float *out = y + r * cols;
    ms t = {NEG_INF, 0.0f};
    for (long long c = threadIdx.x; c < cols; c += THREADS) {
        float v = in[c];
        if (v > t.m) {
            t.s = t.s * expf(t.m - v) + 1.0f;
            t.m = v;
        } else {
            t.s += expf(v - t.m);
        }
    }
    for (int o = 16; o > 0; o /= 2) {
        ms u = {__shfl_xor_sync(0xffffffffu, t.m, o), __shfl_xor_sync(0xffffffffu, t.s, o)};
        t = merge(t, u);
    }
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = t;
    __syncthreads();
    t = part[0];
    for (int w = 1; w < THREADS / 32; w++) t = merge(t, part[w]);
    float inv = 1.0f / t.s;
    for (long long c = threadIdx.x; c < cols; c += THREADS) out[c] = expf(in[c] - t.m) * inv;
}
