// 06_misvectorized: thread t copies elements 2t and 2t + 1 with two 4-byte accesses.
//
// The "vectorised by hand" pattern that is not: each of the two load instructions of a warp spans
// 256 bytes with a 4-byte hole after every float, so each touches 8 sectors to use half of each;
// the second instruction finds the same sectors again (in L1 at best). Twice the instructions of a
// float2 copy and half-used sectors per instruction: compare with 04.
#include "copy_common.cuh"

extern "C" __global__ void copy_misvectorized(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    const long long pairs = (n + 1) / 2;
    for (long long t = global_thread(); t < pairs; t += grid_threads()) {
        const long long j = 2 * t;
        y[j] = x[j];
        if (j + 1 < n) y[j + 1] = x[j + 1];
    }
}
