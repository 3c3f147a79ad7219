// A block makes THREADS * ITEMS outputs: it stages their THREADS * ITEMS + taps - 1 inputs and the taps in
// shared memory, then each thread sums ITEMS outputs THREADS apart, so that a warp reads 32 neighbouring words
// (no bank conflicts) and every tap, one broadcast, feeds ITEMS FMAs.
extern "C" __global__ void tiled(const float *x, const float *w, float *y, long long n, long long taps)
{
    extern __shared__ float sm[];
    const int tile = THREADS * ITEMS;
    float *xs = sm, *ws = sm + tile + taps;
    long long base = blockIdx.x * (long long)tile;
    long long have = n + taps - 1 - base; // inputs left from base
    for (int k = threadIdx.x; k < tile + taps - 1; k += THREADS) xs[k] = k < have ? x[base + k] : 0.0f;
    for (int k = threadIdx.x; k < taps; k += THREADS) ws[k] = w[k];
    __syncthreads();
    float acc[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; r++) acc[r] = 0.0f;
    for (int j = 0; j < taps; j++) {
        float wj = ws[j];
#pragma unroll
        for (int r = 0; r < ITEMS; r++) acc[r] = fmaf(wj, xs[r * THREADS + threadIdx.x + j], acc[r]);
    }
#pragma unroll
    for (int r = 0; r < ITEMS; r++) {
        long long i = base + r * THREADS + threadIdx.x;
        if (i < n) y[i] = acc[r];
    }
}
