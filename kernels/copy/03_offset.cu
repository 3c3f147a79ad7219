// 03_offset: coalesced, but O floats past the 128-byte alignment.
//
// Thread t copies element (t + O) % n: a warp's 128 bytes start O floats into a 128-byte line and
// straddle two, touching five 32-byte sectors instead of four when O % 8 != 0. The extra sector is
// the neighbouring warp's first, usually still in L2, so on recent GPUs the cost is small.
#ifndef O
#define O 1
#endif
#include "copy_common.cuh"

extern "C" __global__ void copy_offset(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    for (long long t = global_thread(); t < n; t += grid_threads()) {
        long long j = t + O;
        if (j >= n) j -= n;
        y[j] = x[j];
    }
}
