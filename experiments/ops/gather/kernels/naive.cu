// One element per thread: the index load is coalesced, the gathered load is not (a sector per element).
extern "C" __global__ void naive(const float *x, const unsigned *idx, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[idx[i]];
}
