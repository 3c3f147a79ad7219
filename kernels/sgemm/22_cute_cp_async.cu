// 22_cute_cp_async: seed 003's second row, its second half: the 128-bit copies as cp.async atoms
// (SM80_CP_ASYNC_CACHEALWAYS<uint128_t>), global memory straight into shared memory without a trip
// through registers; one stage, waited for before the compute (the pipeline is a later row).
// The copies no longer stall the registers; what is left is bank conflicts: a few in the fragment loads,
// many more in the cp.async writes into the shared tiles (docs/results/h100-seed003-cute.md).
#define CUTE_COPY 2
#define CUTE_ENTRY sgemm_cute_cp_async
#include "cute_simt.cuh"
