// 25_cute_pipeline: seed 003's last row, "single -> double buffering": 24_cute_threads_bk with STAGES
// (default 2) tiles in flight by cp.async, the next tiles' copies issued before the current tile's FMAs.
// Measured on the H100 (docs/results/h100-seed003-cute.md, 2026-11-23, column-major A and B): 1.03x over
// 24 at 4096^3 and 2048^3: 2.902 ms, 0.965 x cuBLAS FP32 (2.802 ms), the seed table's last row.
#ifndef STAGES
#define STAGES 2
#endif
#define CUTE_ENTRY sgemm_cute_pipeline
#include "cute_blocked.cuh"
