// 24_cute_threads_bk: seed 003's rows 4 and 5, "64 threads -> 128-256; BK 16 -> 32-64; implicit ->
// explicit register blocking": 256 threads on a 128 x 128 tile with BK = 32, each thread's fragments
// of A and B copied from shared memory into registers once per k (16-byte loads: the threads own groups
// of 4 consecutive rows and columns), then cute::gemm on registers. One stage (cute_blocked.cuh).
// Measured on the H100 (docs/results/h100-seed003-cute.md, 2026-11-23, column-major A and B): 1.19x over
// 23 at 4096^3 (3.004 ms, 0.933 x cuBLAS FP32) and 1.18x at 2048^3; the fragment loads are LDS.128 (128
// of them against 2112 FFMA in the SASS). At 1024^3 it is 0.75x of 23: 64 tiles of 128 x 128 leave half
// of the 132 SMs idle, where 23's 256 tiles of 64 x 64 fill them.
#define CUTE_ENTRY sgemm_cute_threads_bk
#include "cute_blocked.cuh"
