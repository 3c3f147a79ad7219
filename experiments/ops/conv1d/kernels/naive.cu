// The reference: one output a thread, the taps read from global memory, the sum in double.
extern "C" __global__ void naive(const float *x, const float *w, float *y, long long n, long long taps)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    double acc = 0.0;
    for (long long j = 0; j < taps; j++) acc += (double)w[j] * (double)x[i + j];
    y[i] = (float)acc;
}
