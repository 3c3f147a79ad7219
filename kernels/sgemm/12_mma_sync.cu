// 12_mma_sync: the first tensor-core rung (dtype tf32 or bf16): warp-level mma.sync (SM80 MMA, which
// sm_90 still runs) with a cp.async multistage pipeline.
//
// - Each warp owns a WM x WN tile of C as (WM/16) x (WN/8) MMA tiles of 16 x 8, in registers, FP32.
//   tf32: mma.m16n8k8 on FP32 bits (the tensor core reads the top 19 bits: TF32 by truncation, which
//   the tf32 tolerance covers); bf16: mma.m16n8k16 on BF16 pairs.
// - Tiles go to shared memory as they lie in global memory (k-contiguous or m/n-contiguous, per
//   layout), 16 bytes per cp.async, STAGES tiles in flight; rows are padded by 16 bytes so that the
//   8 rows an ldmatrix reads land on 32 banks.
// - Fragments by ldmatrix (8 x 8 blocks of 16-bit elements, four per A fragment, two per B): as they
//   are from k-contiguous tiles, transposed (.trans) from BF16's m/n-contiguous ones. TF32's 32-bit
//   elements cannot be transposed that way: its m/n-contiguous tiles are read word by word.
// - Edges and leading dimensions that are not a multiple of 16 bytes take an element-wise copy with
//   zero fill; the epilogue checks every store.
// - Blocks are rasterized in groups of GROUP_M tile rows (as 11_hopper) for L2 reuse.
// Why it stays far below cuBLAS (docs/results/h100-tensor-core.md): cuBLAS runs wgmma (13_wgmma,
// 14_wgmma_tma); one warp's mma.sync covers 16 x 8, its fragments go through registers, two warps a
// scheduler (the tuned shapes take most of the shared memory: one block an SM). On odd sizes its light edge
// path makes it the best of the tensor-core rungs.
#include "sgemm_common.cuh"

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 32
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif

#if defined(TL_DTYPE_BF16)
typedef unsigned short elem_t; // BF16 bits
#define KSTEP 16
#define VEC 8 // elements per 16-byte copy
#else
typedef float elem_t;
#define KSTEP 8
#define VEC 4
#endif
#define NT ((BM / WM) * (BN / WN) * 32)
#define MI (WM / 16)
#define NI (WN / 8)

#if defined(TL_DTYPE_F32)
#error "12_mma_sync: a tensor-core rung: dtype tf32 or bf16"
#endif
// What the dtype decides (the params alone: the registry's rules, which the runner's compile checks).
#if BK % KSTEP || BK % VEC || BM % VEC || BN % VEC
#error "12_mma_sync: BK a multiple of the MMA's k, and BM, BN, BK of the elements in 16 bytes"
#endif

// Shared tiles, as they lie in global memory. Strides (elements) padded by 16 bytes, so that the 8
// rows of 16 bytes an ldmatrix reads (or a warp's 8 rows x 4 words) land on 32 banks; TF32's
// m/n-contiguous tiles, read word by word, by 32 bytes.
#if defined(TL_DTYPE_BF16)
#define PAD_MN VEC
#else
#define PAD_MN (2 * VEC)
#endif
#define SA (A_COL ? BM + PAD_MN : BK + VEC) // A: [k][m] when column-major, else [m][k]
#define SB (B_COL ? BK + VEC : BN + PAD_MN) // B: [n][k] when column-major, else [k][n]
#define A_ELEMS (A_COL ? BK * SA : BM * SA)
#define B_ELEMS (B_COL ? BN * SB : BK * SB)
#define STAGE_ELEMS (A_ELEMS + B_ELEMS)

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem, bool fill)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(fill ? 16 : 0));
}

// Rows x COLS of a matrix whose rows are contiguous (leading dimension ld, rows_total x cols_total),
// from (row0, col0), into s[r * S + c]. 16-byte chunks by cp.async where the chunk is inside and
// aligned, else element by element with zeros past the edges.
template <int ROWS, int COLS, int S>
__device__ __forceinline__ void tile_copy(elem_t *s, const elem_t *__restrict__ g, int ld, int rows_total,
                                          int cols_total, int row0, int col0, int tid)
{
    const bool aligned = ld % VEC == 0;
#pragma unroll
    for (int i = tid; i < ROWS * COLS / VEC; i += NT) {
        int r = i / (COLS / VEC), c = (i % (COLS / VEC)) * VEC;
        int gr = row0 + r, gc = col0 + c;
        elem_t *dst = s + r * S + c;
        if (aligned && gc + VEC <= cols_total) {
            bool in = gr < rows_total;
            cp_async16(dst, in ? g + (long long)gr * ld + gc : g, in);
        } else {
#pragma unroll
            for (int e = 0; e < VEC; e++)
                dst[e] = gr < rows_total && gc + e < cols_total ? g[(long long)gr * ld + gc + e] : elem_t(0);
        }
    }
}

__device__ __forceinline__ void load_stage(elem_t *st, const elem_t *A, const elem_t *B, int M, int N, int K, int m0,
                                           int n0, int k0, int tid)
{
    elem_t *As = st, *Bs = st + A_ELEMS;
#if A_COL
    tile_copy<BK, BM, SA>(As, A, M, K, M, k0, m0, tid);
#else
    tile_copy<BM, BK, SA>(As, A, K, M, K, m0, k0, tid);
#endif
#if B_COL
    tile_copy<BN, BK, SB>(Bs, B, K, N, K, n0, k0, tid);
#else
    tile_copy<BK, BN, SB>(Bs, B, N, K, N, k0, n0, tid);
#endif
}

// ldmatrix: each of 8 (x2: 16, x4: 32) lanes names a 16-byte row of one 8 x 8 matrix of 16-bit
// elements; lane l gets the 32 bits at row l / 4, word l % 4 of each matrix (.trans: of its transpose).
// A k-contiguous tile's 8 x 16-byte blocks are fragment quarters as they are: 8 rows by 4 TF32 or 8
// BF16 k's. An m/n-contiguous BF16 tile's blocks (8 k rows by 8 m's) are quarters once transposed;
// TF32's 32-bit elements cannot be transposed this way, so those tiles are read word by word.
__device__ __forceinline__ void ldsm_x4(unsigned *r, const void *p, bool trans)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(p);
    if (trans)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(s));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(s));
}

__device__ __forceinline__ void ldsm_x2(unsigned *r, const void *p, bool trans)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(p);
    if (trans)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
}

// Where ldmatrix serves: k-contiguous tiles, and BF16's m/n-contiguous ones.
#if defined(TL_DTYPE_BF16)
#define A_LDSM 1
#define B_LDSM 1
#else
#define A_LDSM (!A_COL)
#define B_LDSM (B_COL)
#endif

#if !defined(TL_DTYPE_BF16)
// TF32 fragment words read one by one (FP32 bits), where ldmatrix cannot serve.
__device__ __forceinline__ unsigned a_word(const elem_t *As, int m, int k)
{
    return __float_as_uint(A_COL ? As[k * SA + m] : As[m * SA + k]);
}

__device__ __forceinline__ unsigned b_word(const elem_t *Bs, int k, int n)
{
    return __float_as_uint(B_COL ? Bs[n * SB + k] : Bs[k * SB + n]);
}
#endif

// The A fragment of the 16 rows from m, k from kk: quarters (rows + 0 / 8) x (k + 0 / half the MMA's k).
__device__ __forceinline__ void load_a(unsigned *af, const elem_t *As, int m, int kk, int lane)
{
    const int r8 = lane % 8, q = lane / 8, half = KSTEP / 2;
#if A_LDSM
#if A_COL
    ldsm_x4(af, &As[(kk + r8 + half * (q >> 1)) * SA + m + 8 * (q & 1)], true);
#else
    ldsm_x4(af, &As[(m + r8 + 8 * (q & 1)) * SA + kk + half * (q >> 1)], false);
#endif
#else
    const int g = lane / 4, t = lane % 4; // tf32, m-contiguous
    af[0] = a_word(As, m + g, kk + t);
    af[1] = a_word(As, m + g + 8, kk + t);
    af[2] = a_word(As, m + g, kk + t + 4);
    af[3] = a_word(As, m + g + 8, kk + t + 4);
#endif
}

// The B fragment of the 8 columns from n: halves k + 0 / half the MMA's k (lanes 16-31 name nothing).
__device__ __forceinline__ void load_b(unsigned *bf, const elem_t *Bs, int n, int kk, int lane)
{
    const int r8 = lane % 8, q = (lane / 8) & 1, half = KSTEP / 2;
#if B_LDSM
#if B_COL
    ldsm_x2(bf, &Bs[(n + r8) * SB + kk + half * q], false);
#else
    ldsm_x2(bf, &Bs[(kk + r8 + half * q) * SB + n], true);
#endif
#else
    const int g = lane / 4, t = lane % 4; // tf32, n-contiguous
    bf[0] = b_word(Bs, kk + t, n + g);
    bf[1] = b_word(Bs, kk + t + 4, n + g);
#endif
}

__device__ __forceinline__ void mma(float *d, const unsigned *a, const unsigned *b)
{
#if defined(TL_DTYPE_BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

extern "C" __global__ void __launch_bounds__(NT) sgemm_mma_sync(int M, int N, int K, float alpha, const elem_t *A,
                                                                const elem_t *B, float beta, float *C)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    elem_t *smem = (elem_t *)smem_raw;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;

    int tm, tn;
    sgemm_raster<BM, BN, GROUP_M>(M, N, blockIdx.x, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0f;

    const int ktiles = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles) load_stage(smem + s * STAGE_ELEMS, A, B, M, N, K, m0, n0, s * BK, tid);
        asm volatile("cp.async.commit_group;\n");
    }
    for (int kt = 0; kt < ktiles; kt++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads(); // tile kt has landed; the stage the next load overwrites is no longer read
        int next = kt + STAGES - 1;
        if (next < ktiles) load_stage(smem + (next % STAGES) * STAGE_ELEMS, A, B, M, N, K, m0, n0, next * BK, tid);
        asm volatile("cp.async.commit_group;\n");
        const elem_t *As = smem + (kt % STAGES) * STAGE_ELEMS, *Bs = As + A_ELEMS;
#pragma unroll
        for (int kk = 0; kk < BK; kk += KSTEP) {
            unsigned af[MI][4], bf[NI][2];
#pragma unroll
            for (int i = 0; i < MI; i++) load_a(af[i], As, wm0 + i * 16, kk, lane);
#pragma unroll
            for (int j = 0; j < NI; j++) load_b(bf[j], Bs, wn0 + j * 8, kk, lane);
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int j = 0; j < NI; j++) mma(acc[i][j], af[i], bf[j]);
        }
    }
    asm volatile("cp.async.wait_group 0;\n");

    // Epilogue: c0, c1 at (g, 2t), (g, 2t + 1); c2, c3 eight rows below. Element e is acc[i][j][r] for
    // e = (i * NI + j) * 4 + r.
#if defined(TL_BETA_NONZERO) && TL_BETA_NONZERO
    const auto row = [&](int e) { return m0 + wm0 + e / (NI * 4) * 16 + g + e % 4 / 2 * 8; };
    const auto col = [&](int e) { return n0 + wn0 + e / 4 % NI * 8 + 2 * t + e % 2; };
    sgemm_store_c<MI * NI * 4>([&](int e) { return row(e) < M && col(e) < N; },
                               [&](int e) { return C + (long long)row(e) * N + col(e); },
                               [&](int e) { return acc[e / (NI * 4)][e / 4 % NI][e % 4]; }, alpha, beta);
#else
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                int row = m0 + wm0 + i * 16 + g + (r / 2) * 8, col = n0 + wn0 + j * 8 + 2 * t + r % 2;
                if (row < M && col < N) {
                    float *c = C + (long long)row * N + col;
                    *c = sgemm_epilogue(acc[i][j][r], alpha, beta, c);
                }
            }
#endif
}
