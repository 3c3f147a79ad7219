// One thread per row, three passes over it: the row's max, the sum of exp(x - max), then y. Simple enough to
// be the truth; slow, since neighbouring threads read addresses a row apart (no coalescing).
#define NEG_INF __int_as_float(0xff800000) // NVRTC has no <math.h>: -infinity by its bits

extern "C" __global__ void naive(const float *x, float *y, long long rows, long long cols)
{
    long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float *in = x + r * cols;
    float *out = y + r * cols;
    float m = NEG_INF;
    for (long long c = 0; c < cols; c++) m = fmaxf(m, in[c]);
    double sum = 0.0; // double: the reference's sum should not be where the error comes from
    for (long long c = 0; c < cols; c++) sum += expf(in[c] - m);
    float inv = (float)(1.0 / sum);
    for (long long c = 0; c < cols; c++) out[c] = expf(in[c] - m) * inv;
}
