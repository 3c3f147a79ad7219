// 02_strided: lanes of a warp S floats apart.
//
// Thread t copies element (t % rows) * S + t / rows, rows = n / S rounded up: every element once, but the 32 lanes of a
// warp touch addresses 4 S bytes apart. DRAM moves whole 32-byte sectors: for S >= 8 every lane
// needs a sector of its own, so a warp moves 32 x 32 = 1024 bytes to use 128 (12.5%), and the
// bandwidth seen by the copy falls to about 1/8 of 01's (1/S for S < 8). The other floats of each
// sector are needed by later threads, long after the sector has left the L2 for a large n.
#ifndef S
#define S 2
#endif
#include "copy_common.cuh"

extern "C" __global__ void copy_strided(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    // t -> j is a bijection of [0, rows * S); the j past n (when S does not divide n) are skipped.
    const long long rows = (n + S - 1) / S;
    for (long long t = global_thread(); t < rows * S; t += grid_threads()) {
        const long long j = (t % rows) * S + t / rows;
        if (j < n) y[j] = x[j];
    }
}
