// 02_strided: lanes of a warp S floats apart.
//
// Thread t copies element (t % rows) * S + t / rows, rows = n / S rounded up: every element once,
// but the 32 lanes of a warp touch addresses 4 S bytes apart. DRAM moves whole 32-byte sectors: a
// warp uses 128 of the 32 x 4 S bytes its sectors hold for S <= 8 (1/S), and 128 of 1024 beyond,
// where every lane needs a sector of its own (1/8): the seed's arithmetic. The other floats of each
// sector are needed by later threads, long after the sector has left the L2 for a large n.
// What the H100 does beyond S = 8 is in docs/results/README.md.
#ifndef S
#define S 2
#endif
#include "copy_common.cuh"

extern "C" __global__ void copy_strided(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    // t -> j is a bijection of [0, rows * S); the j past n (when S does not divide n) are skipped.
    // The quotient and remainder of t by rows advance by constants along the grid-stride loop, so
    // there is no division per element (S = 1 then costs what 01 costs).
    const long long rows = (n + S - 1) / S, stride = grid_threads(), dq = stride / rows, dr = stride % rows;
    long long t = global_thread(), q = t / rows, r = t % rows;
    for (; t < rows * S; t += stride) {
        const long long j = r * S + q;
        if (j < n) y[j] = x[j];
        q += dq, r += dr;
        if (r >= rows) r -= rows, ++q;
    }
}
