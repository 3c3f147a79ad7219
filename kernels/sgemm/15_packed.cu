// 15_packed: hopper (11) on operands packed first into the layout its main loop copies fastest.
//
// What 11 leaves slow is copying operands that are not laid out as its tiles want. Rows that are not
// 16-byte aligned (M, N or K not a multiple of 4, as the leading dimension) go 4 bytes at a time, and
// so does an operand contiguous along k (row-major A, column-major B), into its transposed tile: each
// of those costs hopper's tile copies a quarter of their width, and odd sizes every copy. And those
// copies are repeated: each element of A goes to shared memory once per tile column of C, each of B once per row.
// Here a first pass (sgemm_pack) copies A and B once into a workspace, A column-major and B row-major
// (contiguous along m and n: the tile copies that need no transpose), zero-padded to whole tiles: MP =
// M rounded up to BM, NP = N to BN, KP = K to 32 (and to BK); an operand that is so already is read in
// place. Then every block of the GEMM
// (sgemm_packed) runs hopper's unchecked main loop over whole k tiles with 16-byte copies; only its
// stores into C check the edges. The pass reads and writes A and B once: 2 (M K + K N) x 4 bytes of
// DRAM traffic, a few microseconds, which wins where every tile copy was 4 bytes wide and loses a little
// where 11 copied 16 bytes anyway: the dispatch table (`tuned`) measures which.
// The workspace, 4 KP (MP + NP) bytes at most, is the runner's (reg_variant.workspace in sgemm_hopper.c).
//
// Params: hopper's, except ODD and KMAJ (the packed operands never need them); GRID, SK, SKPAR and EDGE as
// hopper's (SK's and SKPAR's partial tiles go in the workspace after the packed operands; EDGE's idle
// warps are those wholly outside C, not outside the padded operands).
//
// KEEP = 1 (A) or 2 (B): that operand is not packed but read as it lies, which must be tile-aligned (M a
// multiple of BM for A, N of BN for B, K of 32 and BK: sgemm_hopper.c checks it). For a skinny problem whose
// small operand is contiguous along k and whose large one is not, or the other way round: the pass copies
// only the small one (a few MB), and the large one, contiguous along k, goes to its transposed tiles with
// TLDG = 1 as in hopper (16 bytes at a time through registers) or by 4-byte copies; in hopper both such
// operands would go that way, and packing the large one costs as much as a quarter of the GEMM. TLDG = 1 only for a kept operand contiguous along k (row-major A, column-major B).

// The operands as the YAML lays them out; the GEMM below reads the packed ones (A_COL 1, B_COL 0).
#if defined(A_COL) && A_COL
#define SOURCE_A_COL 1
#else
#define SOURCE_A_COL 0
#endif
#if defined(B_COL) && B_COL
#define SOURCE_B_COL 1
#else
#define SOURCE_B_COL 0
#endif
#undef A_COL
#undef B_COL
#ifndef KEEP
#define KEEP 0
#endif
#define KEEP_A (KEEP == 1)
#define KEEP_B (KEEP == 2)
#define A_COL (KEEP_A ? SOURCE_A_COL : 1)
#define B_COL (KEEP_B ? SOURCE_B_COL : 0)
#if defined(ODD) || defined(KMAJ)
#error "15_packed: ODD and KMAJ are hopper's params (a packed problem needs neither)"
#endif
#if defined(TLDG) && TLDG && !((KEEP_A && !SOURCE_A_COL) || (KEEP_B && SOURCE_B_COL))
#error "15_packed: TLDG = 1 is for the operand KEEP reads as it lies, when it is contiguous along k"
#endif
#define HOPPER_NO_ENTRY 1
#include "11_hopper.cu"

#define PACK_T 32 // the pack's tile: 32 x 32 elements, 32 x 8 threads
#define PACK_G 4  // tiles a block of the pack copies
#define PACK_K (BK > PACK_T ? BK : PACK_T)

// The workspace (tilelab_workspace, 11_hopper.cu): A's KP x MP floats (unless A is read in place),
// then B's KP x NP (unless B is), then with SK BM x BN floats a slice of the last wave (its partial tile),
// with SKPAR (and SPLITK > 1) SPLITK x BM x BN floats a tile of C (its slices' partial tiles).

__device__ __forceinline__ int packed_round(int x, int to)
{
    return (x + to - 1) / to * to;
}

// An operand already laid out and padded as the GEMM reads it is not copied: column-major A with M a
// multiple of BM and K of PACK_K, row-major B with N a multiple of BN (and the same K); nor is the one
// KEEP names (whose sizes sgemm_hopper.c's sgemm_check15 has found aligned so). sgemm_hopper.c's sgemm_packed_in_place says the
// same for the launch and the workspace.
__device__ __forceinline__ bool packed_a_in_place(int M, int K)
{
    return KEEP_A || (SOURCE_A_COL && M % BM == 0 && K % PACK_K == 0);
}

__device__ __forceinline__ bool packed_b_in_place(int N, int K)
{
    return KEEP_B || (!SOURCE_B_COL && N % BN == 0 && K % PACK_K == 0);
}

// The pack's blocks for one operand of ld x KP packed floats: each covers PACK_G tiles of 32 x 32 side by
// side along the source's contiguous side (k when KMAJOR, else r). sgemm_hopper.c's pack_blocks says the same.
template <bool KMAJOR>
__device__ __forceinline__ int pack_blocks(int ld, int KP)
{
    const int along = (KMAJOR ? KP : ld) / PACK_T, across = (KMAJOR ? ld : KP) / PACK_T;
    return across * ((along + PACK_G - 1) / PACK_G);
}

// Block b's tiles of a packed operand: dst[p][r] (p < KP along k, r < ld along m or n, rows of ld) from the
// source operand, whose element (r, p) is src[p * R + r] or, k-contiguous (KMAJOR), src[r * K + p]; zero
// past R or K. Every load of the block's PACK_G tiles is issued before its first store: 4 PACK_G loads in
// flight a thread. (With one tile a block, 4 loads a thread, the pack read 1.35 TB/s on the H100 and took
// 5 - 6% of the GEMM's time where it copied the large operand: Nsight Compute, docs/gpu-runs.md.)
template <bool KMAJOR>
__device__ __forceinline__ void pack_tiles(float *__restrict__ dst, int ld, int KP, const float *__restrict__ src, int R,
                                           int K, int b)
{
    const int tx = threadIdx.x, ty = threadIdx.y, along = (KMAJOR ? KP : ld) / PACK_T;
    const int groups = (along + PACK_G - 1) / PACK_G, a0 = (b % groups) * PACK_G, c0 = (b / groups) * PACK_T;
    if (!KMAJOR) {
        // Along r on both sides: a warp reads and writes 128 contiguous bytes a tile, PACK_G of them in a row.
        const int p0 = c0;
        float v[PACK_G][PACK_T / 8];
#pragma unroll
        for (int g = 0; g < PACK_G; ++g)
#pragma unroll
            for (int y = 0; y < PACK_T / 8; ++y) {
                const int p = p0 + ty + 8 * y, r = (a0 + g) * PACK_T + tx;
                v[g][y] = p < K && r < R ? src[(size_t)p * R + r] : 0.0f;
            }
#pragma unroll
        for (int g = 0; g < PACK_G; ++g)
            if (a0 + g < along)
#pragma unroll
                for (int y = 0; y < PACK_T / 8; ++y)
                    dst[(size_t)(p0 + ty + 8 * y) * ld + (a0 + g) * PACK_T + tx] = v[g][y];
    } else {
        // Read along p, write along r: through shared memory, its rows padded against bank conflicts.
        const int r0 = c0;
        __shared__ float t[PACK_G][PACK_T][PACK_T + 1];
#pragma unroll
        for (int g = 0; g < PACK_G; ++g)
#pragma unroll
            for (int y = 0; y < PACK_T / 8; ++y) {
                const int r = r0 + ty + 8 * y, p = (a0 + g) * PACK_T + tx;
                t[g][ty + 8 * y][tx] = p < K && r < R ? src[(size_t)r * K + p] : 0.0f;
            }
        __syncthreads();
#pragma unroll
        for (int g = 0; g < PACK_G; ++g)
            if (a0 + g < along)
#pragma unroll
                for (int y = 0; y < PACK_T / 8; ++y)
                    dst[(size_t)((a0 + g) * PACK_T + ty + 8 * y) * ld + r0 + tx] = t[g][tx][ty + 8 * y];
    }
}

// The pack: blocks of 32 x 8 threads, A's first, then B's (the runner's geometry2).
extern "C" __global__ void __launch_bounds__(256)
sgemm_pack(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B, float beta,
           float *__restrict__ C)
{
    (void)alpha, (void)beta, (void)C;
    const int MP = packed_round(M, BM), NP = packed_round(N, BN), KP = packed_round(K, PACK_K);
    const bool a_here = packed_a_in_place(M, K), b_here = packed_b_in_place(N, K);
    float *Ap = tilelab_workspace, *Bp = Ap + (a_here ? 0 : (size_t)KP * MP);
    const int a_blocks = a_here ? 0 : pack_blocks<!SOURCE_A_COL>(MP, KP), b_blocks = b_here ? 0 : pack_blocks<SOURCE_B_COL>(NP, KP);
    int b = blockIdx.x;
    if (b < a_blocks) pack_tiles<!SOURCE_A_COL>(Ap, MP, KP, A, M, K, b);
    else if ((b -= a_blocks) < b_blocks) pack_tiles<SOURCE_B_COL>(Bp, NP, KP, B, N, K, b); // (nothing to copy: one idle block)
}

// The GEMM on the packed operands: every block's tiles lie inside them.
extern "C" __global__ void __launch_bounds__(NT, MINB)
sgemm_packed(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B, float beta,
             float *__restrict__ C)
{
    extern __shared__ __align__(16) float smem[];
    const int MP = packed_round(M, BM), NP = packed_round(N, BN), KP = packed_round(K, PACK_K);
    const bool a_here = packed_a_in_place(M, K), b_here = packed_b_in_place(N, K);
    const float *Ap = a_here ? A : tilelab_workspace;
    const float *Bp = b_here ? B : tilelab_workspace + (a_here ? 0 : (size_t)KP * MP);
    const int tiles_m = MP / BM, tiles_n = NP / BN;
    // SK's or SKPAR's partial tiles, after the packed operands.
    float *partials = tilelab_workspace + (size_t)KP * ((a_here ? 0 : MP) + (b_here ? 0 : NP));
#if SK
    hopper_sk_block<true>(M, N, tiles_m, tiles_n, KP / BK, alpha, beta, C, partials,
                    [&](int row0, int col0, int t0, int step, float *acc) {
                        HOPPER_MAINLOOP_EDGE(hopper_warp_dead(M, N, row0, col0), LOAD_INTERIOR, true, smem, Ap, Bp, MP,
                                             NP, KP, row0, col0, t0, KP / BK, acc, step);
                    });
#else
#if GRID
    for (int bid = blockIdx.x; bid < tiles_m * tiles_n; bid += gridDim.x) {
        if (bid != (int)blockIdx.x) __syncthreads(); // the last tile's FMAs are done with the stages
#else
    {
        const int bid = blockIdx.x;
#endif
        int tile_m, tile_n, t0, t1;
        hopper_tile_of(bid, tiles_m, tiles_n, tile_m, tile_n);
        hopper_slice(KP / BK, t0, t1);
        const int row0 = tile_m * BM, col0 = tile_n * BN;
        float acc[WMITER * TM * WNITER * TN] = {0.0f};
        // (A warp wholly outside C, on its edge, copies its share of the tiles and computes nothing.)
        HOPPER_MAINLOOP_EDGE(hopper_warp_dead(M, N, row0, col0), LOAD_INTERIOR, true, smem, Ap, Bp, MP, NP, KP, row0, col0,
                             t0, t1, acc);
        hopper_store(C, M, N, row0, col0, tile_m * tiles_n + tile_n, acc, alpha, beta, partials);
    }
#endif
}
