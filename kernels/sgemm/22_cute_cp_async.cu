// 22_cute_cp_async: seed 003's second row, its second half: the 128-bit copies as cp.async atoms
// (SM80_CP_ASYNC_CACHEALWAYS<uint128_t>), global memory straight into shared memory without a trip
// through registers; one stage, waited for before the compute (the pipeline is a later row).
// Measured on the H100 (docs/results/h100-seed003-cute.md, 2026-11-23): 1.06x over 21 at 4096^3 (3.82 ms,
// 0.724 x cuBLAS FP32). Its fragment loads conflict 2.0e6 times; the cp.async writes into shared memory
// another 3.5e7 (total 3.7e7 against loads' and stores' 2.0e6 + 0).
#define CUTE_COPY 2
#define CUTE_ENTRY sgemm_cute_cp_async
#include "cute_simt.cuh"
