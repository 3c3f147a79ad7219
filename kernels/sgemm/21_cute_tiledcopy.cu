// 21_cute_tiledcopy: seed 003's second row, "single-element GMEM access -> 128-bit vectorised loads":
// the tiles of A and B are copied by a TiledCopy of UniversalCopy<uint128_t> atoms, four floats per
// thread per copy (threads 16 x 4, values 4 x 1 for a 64-row tile whose rows are contiguous, as in the
// seed), through registers into shared tiles that keep global memory's contiguous dimension. Everything
// else is 20_cute_naive's: cute::gemm from shared memory, BM = BN = 64, BK = 16, 64 threads.
// Faster than 20 for more than the wider loads: 20's element-wise stores into the m-major tiles conflict in
// shared memory nearly every time, the 16-byte ones almost never (the counters: docs/results/h100-seed003-cute.md).
#define CUTE_COPY 1
#define CUTE_ENTRY sgemm_cute_tiledcopy
#include "cute_simt.cuh"
