// A warp per row (ROWS rows per block): the online max and sum per lane, merged by shuffles, with no shared
// memory and no block barrier. Short rows (a few hundred floats) leave a block-per-row kernel's threads idle;
// a warp fits them.
#define NEG_INF __int_as_float(0xff800000) // NVRTC has no <math.h>: -infinity by its bits

#ifndef ROWS
#define ROWS 4
#endif
#if ROWS < 1 || ROWS > 32
#error "ROWS must be 1 .. 32"
#endif

extern "C" __global__ void __launch_bounds__(32 * ROWS) warp(const float *x, float *y, long long rows, long long cols)
{
    long long r = (long long)blockIdx.x * ROWS + threadIdx.y;
    if (r >= rows) return; // a whole warp leaves together: the shuffles below stay full
    const float *in = x + r * cols;
    float *out = y + r * cols;
    float m = NEG_INF, s = 0.0f;
    for (long long c = threadIdx.x; c < cols; c += 32) {
        float v = in[c];
        if (v > m) {
            s = s * expf(m - v) + 1.0f;
            m = v;
        } else {
            s += expf(v - m);
        }
    }
    for (int o = 16; o > 0; o /= 2) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
        float mm = fmaxf(m, m2);
        s = (m == NEG_INF ? 0.0f : s * expf(m - mm)) + (m2 == NEG_INF ? 0.0f : s2 * expf(m2 - mm));
        m = mm;
    }
    float inv = 1.0f / s;
    for (long long c = threadIdx.x; c < cols; c += 32) out[c] = expf(in[c] - m) * inv;
}
