// 23_cute_swizzle: seed 003's third row, "a 2-way bank conflict in the partitioned smem tiles ->
// padding or a swizzle": 22_cute_cp_async's tiles with SWIZZLE = 1 (CuTe's Swizzle over 16-byte chunks,
// the default) or SWIZZLE = 0 and PAD floats added to each row.
// Measured on the H100 (docs/results/h100-seed003-cute.md, 2026-11-23): 1.05x (swizzle, 3.63 ms) and 1.07x
// (PAD 4, 3.57 ms, 0.774 x cuBLAS FP32) over 22 at 4096^3. Both take the fragment loads' bank conflicts
// from 2.0e6 to 2-6e4; the cp.async writes' 3.5e7 stay. At 2048^3 the swizzle wins (0.465 against
// 0.575 ms for the padding).
#ifndef SWIZZLE
#define SWIZZLE 1
#endif
#define CUTE_COPY 2
#define CUTE_ENTRY sgemm_cute_swizzle
#include "cute_simt.cuh"
