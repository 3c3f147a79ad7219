// 21_cute_tiledcopy: seed 003's second row, "single-element GMEM access -> 128-bit vectorised loads":
// the tiles of A and B are copied by a TiledCopy of UniversalCopy<uint128_t> atoms, four floats per
// thread per copy (threads 16 x 4, values 4 x 1 for a 64-row tile whose rows are contiguous, as in the
// seed), through registers into shared tiles that keep global memory's contiguous dimension. Everything
// else is 20_cute_naive's: cute::gemm from shared memory, BM = BN = 64, BK = 16, 64 threads.
// Measured on the H100 (docs/results/h100-seed003-cute.md, 2026-11-23, column-major A and B): 1.54x over
// 20 at 4096^3 (4.03 ms, 0.686 x cuBLAS FP32). The counters say why besides the wider loads: 20's
// element-wise stores into the m-major tiles had 5.0e8 shared-store bank conflicts; the 16-byte ones 6.6e5.
#define CUTE_COPY 1
#define CUTE_ENTRY sgemm_cute_tiledcopy
#include "cute_simt.cuh"
