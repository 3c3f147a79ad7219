// 23_cute_swizzle: seed 003's third row, "a 2-way bank conflict in the partitioned smem tiles ->
// padding or a swizzle": 22_cute_cp_async's tiles with SWIZZLE = 1 (CuTe's Swizzle over 16-byte chunks,
// the default) or SWIZZLE = 0 and PAD floats added to each row.
// Both take the fragment loads' bank conflicts down by two orders; the cp.async writes' stay. Which of the
// two is faster depends on the size (docs/results/h100-seed003-cute.md).
#ifndef SWIZZLE
#define SWIZZLE 1
#endif
#define CUTE_COPY 2
#define CUTE_ENTRY sgemm_cute_swizzle
#include "cute_simt.cuh"
