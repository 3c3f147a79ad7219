// copy_ilp: a user's copy kernel. 16-byte loads with ILP of them in flight per thread, in a grid-stride
// loop over as many blocks as the experiment's grid gives (there: a few waves of the device's SMs,
// `sms` in the grid expression), and a scalar loop for the last n % 4 floats.
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ILP
#define ILP 4
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
copy_ilp(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float4 *y4 = reinterpret_cast<float4 *>(y);
    const long long n4 = n / 4, stride = (long long)gridDim.x * BLOCK * ILP;
    for (long long base = (long long)blockIdx.x * BLOCK * ILP + threadIdx.x; base < n4; base += stride) {
        float4 v[ILP];
#pragma unroll
        for (int u = 0; u < ILP; ++u)
            if (base + u * BLOCK < n4) v[u] = x4[base + u * BLOCK];
#pragma unroll
        for (int u = 0; u < ILP; ++u)
            if (base + u * BLOCK < n4) y4[base + u * BLOCK] = v[u];
    }
    // The tail: at most three floats, for the first threads of block 0.
    const long long t = n4 * 4 + (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (blockIdx.x == 0 && t < n) y[t] = x[t];
}
