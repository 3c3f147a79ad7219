// 25_cute_pipeline: seed 003's last row, "single -> double buffering": 24_cute_threads_bk with STAGES
// (default 2) tiles in flight by cp.async, the next tiles' copies issued before the current tile's FMAs.
// The seed table's last row: how close it comes to cuBLAS FP32 is in docs/results/h100-seed003-cute.md.
#ifndef STAGES
#define STAGES 2
#endif
#define CUTE_ENTRY sgemm_cute_pipeline
#include "cute_blocked.cuh"
