// Two kernels a run: `stats` puts each row's max and sum of exp(x - max) into the workspace (a block per row,
// the online merge of online.cu), then `normalize` writes y from them with the whole grid, so the write pass
// is spread over every SM however few the rows are. The runner allocates the workspace (rows pairs of floats,
// NaN-filled before each case) and points tilelab_workspace at it.
#ifndef THREADS
#define THREADS 256
#endif
#if THREADS % 32 != 0 || THREADS > 1024
#error "THREADS must be whole warps, at most 1024"
#endif
#define NEG_INF __int_as_float(0xff800000) // NVRTC has no <math.h>: -infinity by its bits

__device__ float2 *tilelab_workspace; // per row: (max, sum)

__device__ __forceinline__ float2 merge(float2 a, float2 b)
{
    float m = fmaxf(a.x, b.x);
    if (m == NEG_INF) return a;
    return make_float2(m, a.y * expf(a.x - m) + b.y * expf(b.x - m));
}

extern "C" __global__ void __launch_bounds__(THREADS) stats(const float *x, float *y, long long rows, long long cols)
{
    __shared__ float2 part[THREADS / 32];
    const float *in = x + (long long)blockIdx.x * cols;
    float2 t = make_float2(NEG_INF, 0.0f);
    for (long long c = threadIdx.x; c < cols; c += THREADS) t = merge(t, make_float2(in[c], 1.0f));
    for (int o = 16; o > 0; o /= 2)
        t = merge(t, make_float2(__shfl_xor_sync(0xffffffffu, t.x, o), __shfl_xor_sync(0xffffffffu, t.y, o)));
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = t;
    __syncthreads();
    if (threadIdx.x) return;
    for (int w = 1; w < THREADS / 32; w++) t = merge(t, part[w]);
    tilelab_workspace[blockIdx.x] = t;
}

extern "C" __global__ void normalize(const float *x, float *y, long long rows, long long cols)
{
    long long n = rows * cols;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        float2 s = tilelab_workspace[i / cols];
        y[i] = expf(x[i] - s.x) / s.y;
    }
}
