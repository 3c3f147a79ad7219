// A warp per row (ROWS rows per block): lanes read consecutive floats, so every load is coalesced, and the sum
// of squares is merged by shuffles with no shared memory.
#ifndef ROWS
#define ROWS 4
#endif
#if ROWS < 1 || ROWS > 32
#error "ROWS must be 1 .. 32"
#endif

extern "C" __global__ void __launch_bounds__(32 * ROWS)
    warp(const float *x, const float *g, float *y, float eps, long long rows, long long cols)
{
    long long r = (long long)blockIdx.x * ROWS + threadIdx.y;
    if (r >= rows) return; // the whole warp leaves: the shuffles stay full
    const float *in = x + r * cols;
    float ss = 0.0f;
    for (long long c = threadIdx.x; c < cols; c += 32) ss = fmaf(in[c], in[c], ss);
    for (int o = 16; o > 0; o /= 2) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    float inv = rsqrtf(ss / (float)cols + eps);
    for (long long c = threadIdx.x; c < cols; c += 32) y[r * cols + c] = in[c] * inv * g[c];
}
