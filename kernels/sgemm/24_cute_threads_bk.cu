// 24_cute_threads_bk: seed 003's rows 4 and 5, "64 threads -> 128-256; BK 16 -> 32-64; implicit ->
// explicit register blocking": 256 threads on a 128 x 128 tile with BK = 32, each thread's fragments
// of A and B copied from shared memory into registers once per k (16-byte loads: the threads own groups
// of 4 consecutive rows and columns), then cute::gemm on registers. One stage (cute_blocked.cuh).
// The fragment loads are LDS.128, a few for every hundred FFMA in the SASS. On small problems the larger
// tiles cost more than they save: at 1024^3, 64 tiles of 128 x 128 leave half of an H100's 132 SMs idle,
// where 23's 256 tiles of 64 x 64 fill them.
#define CUTE_ENTRY sgemm_cute_threads_bk
#include "cute_blocked.cuh"
