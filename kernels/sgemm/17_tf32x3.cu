// 17_tf32x3: an FP32 GEMM on the tensor cores: each operand split in two TF32 parts, three products
// (3xTF32), FP32 accumulation. sm_90a: wgmma, a producer warpgroup, an mbarrier ring (as 14_wgmma_tma).
//
// TF32 keeps 10 of FP32's 23 fraction bits, so one TF32 product (the tf32 dtype) is within about 2^-10
// of the FP32 one. Here each FP32 value x is split as hi = x rounded to TF32 and lo = (x - hi) rounded
// to TF32 (x - hi is exact in FP32, and |x - hi| <= 2^-11 |x|): hi + lo is within 2^-22 |x| of x. A
// product a b is then hi_a hi_b + hi_a lo_b + lo_a hi_b, each exact on the tensor cores (TF32 x TF32
// fits FP32), leaving out lo_a lo_b (at most 2^-22 |a b|) and the parts' rounding: about 2^-21 |a b| in
// all, a few units of FP32's last place, against the 2^-10 of one TF32 product. So the dtype is f32 and
// the bar is cuBLAS's FP32 SIMT GEMM, with the f32 tolerance; each case's max_rel_err in the result file
// says how close it came. Three TF32 products cost three times one, and TF32 runs Hopper's tensor cores
// at about 7 x FP32's SIMT rate: a third of that is still twice the SIMT ladder's ceiling. Small and skinny
// problems pay the split's pass and 128-row tiles: `tuned`'s table says where it wins (docs/gpu-runs.md
// has what it measured, and docs/results/h100-sgemm-shapes.md where `tuned` stands).
//
// Two kernels, one after the other on the stream:
// - sgemm_tf32x3_split copies A and B once into the workspace, A column-major (m contiguous: it goes to
//   the tensor cores through registers, where each consumer splits it) and B's hi and lo parts
//   column-major (k contiguous: wgmma's B, read from shared memory), zero-padded to whole tiles: MP = M
//   rounded up to BM, NP = N to BN, KP = K to 32. Any layout and size of A and B, read once: 4 (M K + 2
//   K N) bytes written. With SPLITK > 1, a column-major A with M a multiple of BM and K of 32 is already
//   what the workspace would hold, and the main kernel reads it in place (x3_a_in_place);
// - sgemm_tf32x3: per tile of C, the producer warpgroup copies the stage's three tiles (A, B hi, B lo)
//   with 16-byte cp.async from the padded workspace (no edge to check, no tensor map); each consumer
//   warpgroup loads its rows of A a k-block (8) at a time into registers, splits them, and issues the
//   three wgmmas as one batch: lo_a hi_b, hi_a lo_b, hi_a hi_b. The producer works each copy's place in the
//   swizzled stage out once a kernel (x3_producer), not anew each k tile: the consumers otherwise wait for
//   full stages. Tried and dropped (docs/gpu-runs.md, 2026-11-27): a column-major B copied as it lies and
//   split by the producer in its stages, without the split's pass (the stage's larger shared-memory traffic
//   cost more than the pass); the consumers' A loads as ld.shared instead of CuTe's generic loads (no
//   faster: the consumers wait for the producer, not for their loads); A read in place by TMA (no faster).
//
// Params: BM (64, 128 or 256: wgmma's M, one consumer warpgroup for 64, else two), BN (32 .. 256 by 32:
// wgmma's N, a multiple of the split's 32-wide tiles; narrow ones for a narrow C; a warpgroup's rows x BN at
// most 64 x 128: two sets of accumulators, below), STAGES, GROUP_M, PROMOTE (k tiles the tensor cores sum
// before FP32 adds take over), SPLITK, AIN (1: A read where it lies in either layout, its stages k-major for
// a row-major A, zeros past its edges, wherever its rows or columns are 16-byte aligned; the split copies B
// alone), SWAP (1: C^T = B^T A^T, below), WAVE (in place of SPLITK: the slices a tile chosen per problem for
// a GPU whose one wave is WAVE blocks, 132 for the H100's SMs; sgemm_tc.c's tf32x3_slices), A4 (with AIN: A
// read in place also where its rows or columns are not 16-byte aligned, by 4-byte copies, instead of the
// split's copy of it: for skinny problems with such an A). BK is 32 (one 128-byte swizzle span of FP32).
// The workspace is the runner's (reg_variant.workspace in sgemm_tc.c): 4 KP (MP + 2 NP) bytes (4 KP 2 NP
// with A in place), and the slices' parts.
#include <cute/tensor.hpp>

#include "sgemm_common.cuh"
#include "sgemm_cute_store.cuh"
#include "sm90_ring.cuh"

#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "17_tf32x3: needs sm_90a (wgmma, setmaxnreg); the runner compiles it so on an sm_90 GPU"
#endif
#if defined(TL_DTYPE_TF32) || defined(TL_DTYPE_BF16)
#error "17_tf32x3: dtype f32 (FP32 data and FP32-accurate products; tf32 and bf16 are 14_wgmma_tma's)"
#endif

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef PROMOTE
#define PROMOTE 4
#endif
#ifndef SPLITK
#define SPLITK 1
#endif
#ifndef AIN
#define AIN 0
#endif
#ifndef SWAP
#define SWAP 0
#endif
#ifndef WAVE
#define WAVE 0
#endif
#ifndef A4
#define A4 0
#endif
#define BK 32                   // k per stage: 128 bytes of FP32
#define NC (BM >= 128 ? 2 : 1)  // consumer warpgroups, BM / NC rows each
#define NT ((NC + 1) * 128)     // threads
#define SPLIT_T 32              // the split's tiles: 32 x 32 elements, 32 x 8 threads

// Slices of k a tile: SPLITK, or with WAVE those that sgemm_tc.c's tf32x3_slices chose for the problem (the fewest
// waves of blocks for their length), which the grid carries: tiles x slices blocks. X3_SPLIT: the slices' sum
// is compiled in.
#define X3_SPLIT (WAVE > 0 || SPLITK > 1)
// The product the kernels compute: C = A B, or with SWAP C^T = B^T A^T, whose A is B^T (column-major where B
// is row-major) and whose B is A^T: a small m becomes the tile's n side (BN by 32, where BM goes by 64) and
// a large B is read by the consumers (in place with AIN) instead of split into two parts in the workspace.
// Below, A, B, M, N, XA_COL and XB_COL are that product's (each kernel swaps its arguments first).
#define XA_COL (SWAP ? !B_COL : A_COL)
#define XB_COL (SWAP ? !A_COL : B_COL)
// A's stages: k-major (as it lies when row-major) where AIN reads a row-major A, else m-major.
#define A_KMAJ (AIN && !XA_COL)

using namespace cute;
using T = tfloat32_t;

__device__ float *tilelab_workspace;

__device__ __forceinline__ int x3_round(int x, int to)
{
    return (x + to - 1) / to * to;
}

// x rounded to TF32 (to nearest, ties away from zero): an FP32 value with 10 fraction bits.
__device__ __forceinline__ uint32_t x3_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

// The workspace: A as KP rows of MP (m contiguous; MP rows of KP with A_KMAJ; none when A is read in place),
// then B's hi and lo parts as NP rows of KP each; with slices (SPLITK > 1 or WAVE) then a count a tile of C (the
// slices done, zeroed by the split) and a partial tile a slice, BM x BN floats each in the consumers' fragment
// order.
// The stages read A at a, lda floats between its rows (A_KMAJ: rows m) or columns (else: columns k), and
// zero past am rows m and ak columns k (MP and KP for the workspace's copy, which is padded already).
struct X3Work {
    int MP, NP, KP, tiles, lda, am, ak;
    const float *a;
    float *bh, *bl, *part;
    unsigned *done;
};

// Whether the main kernel reads A where it is (sgemm_tc.c's sgemm_tf32x3_a_in_place says the same). Only with
// SPLITK > 1, where the split's pass is a large part of a short product: measured on the H100 (2026-11-27),
// 512 x 512 x 8192 with SPLITK 8 0.123 -> 0.109 ms and 1024^2 x 32768 with SPLITK 4 1.28 ->
// 1.23 ms, but without SPLITK 4096^3 1 % slower, and 3333 x 2222 x 1111 (copied all the same) 3 % slower
// for the decision made at run time, which SPLITK = 1 leaves out of its code. AIN = 1 reads A in place in
// either layout wherever its rows or columns start 16-byte aligned (K % 4 == 0 row-major, M % 4 == 0
// column-major), the stages zero-filling past its edges: the split copies B alone. Elsewhere the split
// copies A: 4-byte cp.async from A in place, tried on the H100 (2026-11-27), was slower than
// that copy and the 16-byte stages after it (6758 x 66 x 7490 col/col, 128 x 96 SPLITK 4: 0.368 -> 0.438 ms;
// without SPLITK 0.56 -> 0.86 ms; 1.31 x the time, geometric mean, over sgemm_random's problems with m or k
// not a multiple of 4).
__device__ __forceinline__ bool x3_a_in_place(int M, int K)
{
    if (AIN) return A4 || (XA_COL ? M % 4 == 0 : K % 4 == 0);
    return X3_SPLIT && XA_COL && M % BM == 0 && K % BK == 0;
}

__device__ __forceinline__ X3Work x3_work(int M, int N, int K, const float *A)
{
    X3Work w;
    w.MP = x3_round(M, BM);
    w.NP = x3_round(N, BN);
    w.KP = x3_round(K, BK);
    const bool in_place = x3_a_in_place(M, K);
    w.a = in_place ? A : tilelab_workspace;
    // (Without AIN, A in place is column-major with M a multiple of BM: M is MP.)
    w.lda = AIN && in_place ? (XA_COL ? M : K) : (A_KMAJ ? w.KP : w.MP);
    w.am = in_place ? M : w.MP;
    w.ak = in_place ? K : w.KP;
    w.bh = in_place ? tilelab_workspace : const_cast<float *>(w.a) + (size_t)w.KP * w.MP;
    w.bl = w.bh + (size_t)w.NP * w.KP;
    w.tiles = (w.MP / BM) * (w.NP / BN);
    w.done = reinterpret_cast<unsigned *>(w.bl + (size_t)w.NP * w.KP);
    w.part = reinterpret_cast<float *>(w.done) + (w.tiles + 3) / 4 * 4;
    return w;
}

// One 32 x 32 tile of a packed operand, rows r0.. and columns c0.. of dst (columns contiguous, rows of
// ld floats), from src, whose element (r, c) is src[r * lds + c] (C_CONTIG) or src[c * lds + r]; zero
// past R rows or C columns. With lo, dst gets the hi parts and lo the lo parts.
__device__ __forceinline__ void x3_split_tile(float *__restrict__ dst, float *__restrict__ lo, int ld,
                                              const float *__restrict__ src, int lds, bool c_contig, int R, int C,
                                              int r0, int c0)
{
    __shared__ float t[SPLIT_T][SPLIT_T + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float v[SPLIT_T / 8];
    if (c_contig) {
#pragma unroll
        for (int y = 0; y < SPLIT_T / 8; y++) {
            const int r = r0 + ty + 8 * y, c = c0 + tx;
            v[y] = r < R && c < C ? __ldg(&src[(size_t)r * lds + c]) : 0.0f;
        }
    } else {
        // Read along r (contiguous in src), write along c: through shared memory, rows padded.
#pragma unroll
        for (int y = 0; y < SPLIT_T / 8; y++) {
            const int r = r0 + tx, c = c0 + ty + 8 * y;
            t[ty + 8 * y][tx] = r < R && c < C ? __ldg(&src[(size_t)c * lds + r]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int y = 0; y < SPLIT_T / 8; y++) v[y] = t[tx][ty + 8 * y];
    }
#pragma unroll
    for (int y = 0; y < SPLIT_T / 8; y++) {
        const size_t at = (size_t)(r0 + ty + 8 * y) * ld + c0 + tx;
        if (lo) {
            const float hi = __uint_as_float(x3_tf32(v[y]));
            dst[at] = hi;
            lo[at] = __uint_as_float(x3_tf32(v[y] - hi));
        } else {
            dst[at] = v[y];
        }
    }
}

// The first kernel: a block a tile, A's (KP / 32) x (MP / 32) first (none when A is read in place), then
// B's (NP / 32) x (KP / 32). sgemm_tc.c's sgemm_geometry17_split launches as many.
extern "C" __global__ void __launch_bounds__(SPLIT_T * 8)
    sgemm_tf32x3_split(int M0, int N0, int K, float alpha, const float *A0, const float *B0, float beta, float *C)
{
    const int M = SWAP ? N0 : M0, N = SWAP ? M0 : N0;
    const float *A = SWAP ? B0 : A0, *B = SWAP ? A0 : B0;
    const X3Work w = x3_work(M, N, K, A);
    const int a_tiles = x3_a_in_place(M, K) ? 0 : (w.KP / SPLIT_T) * (w.MP / SPLIT_T);
    int b = blockIdx.x;
    if (X3_SPLIT) // every launch starts its tiles' counts from zero (the runner fills a workspace with NaN)
        for (int i = b * SPLIT_T * 8 + threadIdx.y * SPLIT_T + threadIdx.x; i < w.tiles; i += gridDim.x * SPLIT_T * 8)
            w.done[i] = 0;
    if (b < a_tiles) {
        float *a = const_cast<float *>(w.a);
        if (A_KMAJ) {
            // A's rows m, columns k (a row-major A whose rows are not 16-byte aligned): A(m, k) is A[m K + k].
            const int across = w.KP / SPLIT_T;
            x3_split_tile(a, nullptr, w.KP, A, K, true, M, K, b / across * SPLIT_T, b % across * SPLIT_T);
        } else {
            // A's rows k, columns m: A(m, k) is A[k M + m] column-major, A[m K + k] row-major.
            const int across = w.MP / SPLIT_T;
            x3_split_tile(a, nullptr, w.MP, A, XA_COL ? M : K, XA_COL, K, M, b / across * SPLIT_T, b % across * SPLIT_T);
        }
    } else {
        // B's rows n, columns k: B(k, n) is B[n K + k] column-major, B[k N + n] row-major.
        b -= a_tiles;
        const int across = w.KP / SPLIT_T;
        x3_split_tile(w.bh, w.bl, w.KP, B, XB_COL ? K : N, XB_COL, N, K, b / across * SPLIT_T, b % across * SPLIT_T);
    }
}

// The stages (sm90_ring.cuh): A m-major (it keeps the workspace's layout; to registers), B k-major (wgmma's
// shared-memory B).
template <bool KMAJOR, int ROWS>
__device__ constexpr auto x3_layout()
{
    return ring_sw128_stages<T, KMAJOR, ROWS, BK, STAGES>();
}

struct Shared {
    alignas(1024) T a[cosize_v<decltype(x3_layout<A_KMAJ, BM>())>];
    alignas(1024) T bh[cosize_v<decltype(x3_layout<true, BN>())>];
    alignas(1024) T bl[cosize_v<decltype(x3_layout<true, BN>())>];
    alignas(8) uint64_t full[STAGES], empty[STAGES];
};

// The producer warpgroup's copies (thread ptid 0 .. 127): 16 bytes each, 4 elements along each tile's
// contiguous side, which 128-byte swizzling keeps together. Where each lands and what it reads is worked out
// once, from the thread's first copy; a stage and a k tile add offsets (before, the loop worked each copy's
// place out anew through the swizzled layout, and ncu found the producer's integer arithmetic, some 25
// instructions a copy, holding the consumers up on a narrow C).
// - K-major tiles (A_KMAJ's A, B's parts; rows of 32 k, 128 bytes): the thread copies k 4 (ptid % 8) .. of rows
//   ptid / 8 + 16 j. The swizzle (128-byte rows in atoms of 8) depends on a row's index mod 8 only, so row + 16
//   lands 2 KB further.
// - M-major tiles (A otherwise; rows of BM m, 32 of them, one per k): the thread copies m 4 (ptid % (BM / 4)) ..
//   at k = ptid / (BM / 4) + X3_MSTEP j. Its 16-byte piece within the 128 bytes of its m-atom is XORed with k mod
//   8: k + X3_MSTEP j is the first k ORed with X3_MSTEP j mod 8 (the first k is below X3_MSTEP), so its place is
//   the first's plus X3_MSTEP j rows of 128 bytes, XORed with that j's bits at the piece's index.
// With AIN, A's copies are predicated (zeros past its edges: whole 16-byte pieces, the side along them being a
// multiple of 4).
#define X3_MSTEP (512 / BM)
// A4's M-major copies: X3_TM consecutive m a pass, 128 / X3_TM k rows.
#define X3_TM (BM < 128 ? BM : 128)
struct X3Producer {
    uint32_t sa, sb;      // the thread's first copy of A and of B's hi part, stage 0 (shared addresses)
    const float *ga, *gb; // their sources at k = 0 (with A m-major, at the thread's first k)
    int ar, ac;           // A: the first copy's row and column in the tile (K-major: m and k; else k and m)
    int arows;            // A K-major: its copies j < arows are of rows inside A (with AIN; BM / 16 without)
    bool a4;              // A4: A read in place by 4-byte copies (its rows or columns not 16-byte aligned)
};

// The closed forms above against CuTe's layout of the stages, checked when the kernel compiles (NVRTC's front
// end evaluates them; nvrtc_test compiles each layout of A). The layout is a swizzle of the byte address
// (Sw<3,4,3>: a 16-byte piece's index XORed with its 128-byte row's index mod 8) over an unswizzled layout; the
// stages start on 1024-byte boundaries, so the swizzle of an offset from stage 0 is that of the address. A
// sample of the threads (every 13th) and of the copies (the first four rows) keeps the compile's cost down:
// the strides and every XOR pattern are among them.
template <bool KMAJOR, int ROWS>
__device__ constexpr int x3_place(int r, int k, int s)
{
    constexpr auto L = x3_layout<KMAJOR, ROWS>();
    return int(L.layout_a()(4 * int(L.layout_b()(r, k, s))));
}

template <bool KMAJOR, int ROWS>
__device__ constexpr bool x3_places_hold()
{
    if (x3_place<KMAJOR, ROWS>(0, 0, 1) != ROWS * BK * 4) return false; // a stage's bytes
    for (int t = 0; t < 128; t += 13) {
        if (KMAJOR) {
            const int r = t / 8, k = t % 8 * 4, first = x3_place<KMAJOR, ROWS>(r, k, 0);
            for (int j = 0; j < ROWS / 16 && j < 4; j++)
                if (x3_place<KMAJOR, ROWS>(r + 16 * j, k, 0) != first + j * 2048) return false;
        } else {
            const int k = t / (ROWS / 4), m = t % (ROWS / 4) * 4, first = x3_place<KMAJOR, ROWS>(m, k, 0);
            for (int d = 0; d < BK; d += 512 / ROWS)
                if (x3_place<KMAJOR, ROWS>(m, k + d, 0) != ((first + d * 128) ^ ((d & 7) << 4))) return false;
        }
    }
    return true;
}
// A4's 4-byte copies of A likewise.
template <bool KMAJOR, int ROWS>
__device__ constexpr bool x3_places4_hold()
{
    constexpr int TM = ROWS < 128 ? ROWS : 128, KS = 128 / TM;
    for (int t = 0; t < 128; t += 13) {
        if (KMAJOR) {
            const int r = t / 32, k = t % 32, first = x3_place<KMAJOR, ROWS>(r, k, 0);
            for (int j = 0; j < 8; j++)
                if (x3_place<KMAJOR, ROWS>(r + 4 * j, k, 0) != ((first + j * 512) ^ ((j & 1) << 6))) return false;
        } else {
            const int m = t % TM, k = t / TM, first = x3_place<KMAJOR, ROWS>(m, k, 0);
            for (int i = 0; i < ROWS / TM; i++)
                for (int d = 0; d < BK; d += KS)
                    if (x3_place<KMAJOR, ROWS>(m + TM * i, k + d, 0) != ((first + i * TM * 128 + d * 128) ^ ((d & 7) << 4)))
                        return false;
        }
    }
    return true;
}
static_assert(x3_places_hold<A_KMAJ, BM>(), "17_tf32x3: the producer's places of A's copies are not the stage layout's");
static_assert(!A4 || x3_places4_hold<A_KMAJ, BM>(), "17_tf32x3: A4's places of A's copies are not the stage layout's");
static_assert(x3_places_hold<true, BN>(), "17_tf32x3: the producer's places of B's copies are not the stage layout's");

template <class SA, class SB>
__device__ __forceinline__ X3Producer x3_producer(SA sa, SB sbh, const X3Work &w, int m0, int n0, int ptid)
{
    X3Producer p;
    p.sb = smem_u32(&sbh(ptid / 8, ptid % 8 * 4, 0));
    p.gb = w.bh + (size_t)(n0 + ptid / 8) * w.KP + ptid % 8 * 4;
    p.a4 = A4 && w.a != tilelab_workspace && (XA_COL ? w.am % 4 : w.ak % 4);
    if (A4 && p.a4) {
        // 4-byte copies, consecutive threads along A's contiguous side (below, x3_stage).
        if (A_KMAJ) {
            p.ar = ptid / 32;
            p.ac = ptid % 32;
            p.sa = smem_u32(&sa(p.ar, p.ac, 0));
            p.ga = w.a + (size_t)(m0 + p.ar) * w.lda + p.ac;
            p.arows = max(0, (w.am - m0 - p.ar + 3) / 4);
        } else {
            p.ar = ptid / X3_TM;
            p.ac = ptid % X3_TM;
            p.sa = smem_u32(&sa(p.ac, p.ar, 0));
            p.ga = w.a + (size_t)p.ar * w.lda + m0 + p.ac;
            p.arows = 0;
        }
    } else if (A_KMAJ) {
        p.ar = ptid / 8;
        p.ac = ptid % 8 * 4;
        p.sa = smem_u32(&sa(p.ar, p.ac, 0));
        p.ga = w.a + (size_t)(m0 + p.ar) * w.lda + p.ac;
        p.arows = max(0, (w.am - m0 - p.ar + 15) / 16);
    } else {
        p.ar = ptid / (BM / 4);
        p.ac = ptid % (BM / 4) * 4;
        p.sa = smem_u32(&sa(p.ac, p.ar, 0));
        p.ga = w.a + (size_t)p.ar * w.lda + m0 + p.ac;
        p.arows = BM / 16;
    }
    return p;
}

// A K-major A's copies of a stage at shared address sa (rows of 128 bytes), W bytes each (16, or A4's 4): 128 / W
// threads along a row, so a thread's rows are W apart (W * 128 bytes of the stage), each row's 16-byte piece XORed
// with the row mod 8, which a step of 16 rows keeps and a step of 4 flips by 4 for odd j.
template <int W>
__device__ __forceinline__ void x3_stage_a_rows(const X3Producer &p, const X3Work &w, uint32_t sa, int k0)
{
    const bool kin = k0 + p.ac < w.ak;
    const float *g = p.ga + k0;
    const size_t step = (size_t)W * w.lda;
    CUTE_UNROLL
    for (int j = 0; j < BM / W; j++, g += step) {
        const bool in = kin && j < p.arows;
        const uint32_t dst = (sa + j * W * 128) ^ (((j * W) & 7) << 4);
        if (W == 16) ring_cp_async16z(dst, in ? g : w.a, in);
        else ring_cp_async4(dst, in ? g : w.a, in);
    }
}

// One stage s of the k tile at k0 (the thread's share). The sources advance by a pointer step a copy, the tests
// are against limits worked out once a stage.
__device__ __forceinline__ void x3_stage(const X3Producer &p, const X3Work &w, int m0, int s, int k0)
{
    constexpr uint32_t A_STAGE = BM * BK * sizeof(float), B_STAGE = BN * BK * sizeof(float);
    constexpr uint32_t LO = sizeof(Shared::bh); // B's lo stages right after its hi ones (whole KB: BN 128 STAGES bytes)
    static_assert(sizeof(Shared::bh) % 1024 == 0, "17_tf32x3: B's hi stages end where its lo ones start");
    const uint32_t sa = p.sa + s * A_STAGE;
    if (A4 && p.a4) {
        // A4: 4-byte copies of an A whose rows (K-major) or columns are not 16-byte aligned, 32 of them a thread
        // (BM 128). K-major: k ptid % 32 of rows ptid / 32 + 4 j (x3_stage_a_rows). M-major: m ptid % X3_TM
        // (+ 128 i) at k = ptid / X3_TM + (128 / X3_TM) j, placed as the 16-byte copies' k.
        if (A_KMAJ) {
            x3_stage_a_rows<4>(p, w, sa, k0);
        } else {
            constexpr int KS = 128 / X3_TM;
            const int klim = w.ak - k0 - p.ar;
            CUTE_UNROLL
            for (int i = 0; i < BM / X3_TM; i++) {
                const bool min = m0 + p.ac + X3_TM * i < w.am;
                const float *g = p.ga + (size_t)k0 * w.lda + X3_TM * i;
                const size_t step = (size_t)KS * w.lda;
                CUTE_UNROLL
                for (int j = 0; j < BK / KS; j++, g += step) {
                    const int d = KS * j;
                    const bool in = min && d < klim;
                    ring_cp_async4(((sa + i * X3_TM * 128) + d * 128) ^ ((d & 7) << 4), in ? g : w.a, in);
                }
            }
        }
    } else if (A_KMAJ) {
        x3_stage_a_rows<16>(p, w, sa, k0);
    } else {
        // With AIN, an m piece past A's edge is zero-filled; k past it is tested a copy.
        const bool min = !AIN || m0 + p.ac < w.am;
        const int klim = w.ak - k0 - p.ar; // copy j is inside A's k while X3_MSTEP j < klim
        const float *g = p.ga + (size_t)k0 * w.lda;
        const size_t step = (size_t)X3_MSTEP * w.lda;
        CUTE_UNROLL
        for (int j = 0; j < BK / X3_MSTEP; j++, g += step) {
            const int d = X3_MSTEP * j;
            const bool in = min && (!AIN || d < klim);
            ring_cp_async16z((sa + d * 128) ^ ((d & 7) << 4), in ? g : w.a, in);
        }
    }
    const uint32_t sb = p.sb + s * B_STAGE;
    const float *g = p.gb + k0;
    const size_t lo = w.bl - w.bh, step = (size_t)16 * w.KP;
    CUTE_UNROLL
    for (int j = 0; j < BN / 16; j++, g += step) {
        ring_cp_async16z(sb + j * 2048, g, true);
        ring_cp_async16z(sb + j * 2048 + LO, g + lo, true);
    }
}

extern "C" __global__ void __launch_bounds__(NT, 1)
    sgemm_tf32x3(int M0, int N0, int K, float alpha, const float *A0, const float *B0, float beta, float *C)
{
    const int M = SWAP ? N0 : M0, N = SWAP ? M0 : N0;
    const float *A = SWAP ? B0 : A0; // B only through the split's parts
    extern __shared__ unsigned char smem_raw[];
    Shared &sh = *reinterpret_cast<Shared *>((reinterpret_cast<size_t>(smem_raw) + 1023) & ~size_t(1023));
    const int tid = threadIdx.x, wg = tid / 128;
    const X3Work w = x3_work(M, N, K, A);
    // Slice z of the tile's slices takes k tiles kt0 .. kt1 - 1 (none when the slices are more than K's tiles).
    const int slices = WAVE ? gridDim.x / w.tiles : SPLITK;
    const int tile = blockIdx.x % w.tiles, z = blockIdx.x / w.tiles, per = (w.KP / BK + slices - 1) / slices;
    const int kt0 = min(z * per, w.KP / BK), kt1 = min(kt0 + per, w.KP / BK), ktiles = kt1 - kt0;

    int tm, tn;
    sgemm_raster<BM, BN, GROUP_M>(M, N, tile, tm, tn);

    Tensor sA = make_tensor(make_smem_ptr(sh.a), x3_layout<A_KMAJ, BM>());  // (BM, BK, STAGES)
    Tensor sBh = make_tensor(make_smem_ptr(sh.bh), x3_layout<true, BN>()); // (BN, BK, STAGES)
    Tensor sBl = make_tensor(make_smem_ptr(sh.bl), x3_layout<true, BN>());

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(&sh.full[s], 128);
            bar_init(&sh.empty[s], NC * 4);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        // The producer: registers to the consumers.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        const X3Producer p = x3_producer(sA, sBh, w, tm * BM, tn * BN, tid);
        for (int kt = 0; kt < ktiles; kt++) {
            const int s = kt % STAGES;
            bar_wait(&sh.empty[s], ((kt / STAGES) & 1) ^ 1);
            x3_stage(p, w, tm * BM, s, (kt0 + kt) * BK);
            bar_arrive_cp_async(&sh.full[s]);
        }
        return;
    }

    // The consumers: warpgroup c multiplies rows c * BM / NC .. of the tile.
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    const int ctid = tid - 128;
#if SWAP
    auto mC = make_tensor(make_gmem_ptr(C), make_shape(M, N), make_stride(Int<1>{}, M)); // C^T: C's columns
#else
    auto mC = make_tensor(make_gmem_ptr(C), make_shape(M, N), make_stride(N, Int<1>{}));
#endif
    Tensor gC = local_tile(mC, make_shape(Int<BM>{}, Int<BN>{}), make_coord(tm, tn)); // (BM, BN)
    TiledMMA mma = make_tiled_mma(GMMA::rs_op_selector<T, T, float, Shape<_64, Int<BN>, Int<BK>>>(),
                                  Layout<Shape<Int<NC>, _1, _1>>{});
    ThrMMA thr_mma = mma.get_slice(ctid);
    Tensor tCsA = thr_mma.partition_A(sA);                                    // (MMA, MMA_M, MMA_K, STAGES)
    Tensor tCrBh = thr_mma.make_fragment_B(thr_mma.partition_B(sBh));         // descriptors
    Tensor tCrBl = thr_mma.make_fragment_B(thr_mma.partition_B(sBl));
    Tensor tCgC = thr_mma.partition_C(gC);
    Tensor tCcC = thr_mma.partition_C(make_identity_tensor(make_shape(Int<BM>{}, Int<BN>{})));
    Tensor acc = thr_mma.make_fragment_C(tCgC);
    clear(acc);

    // A a k-block at a time: loaded as it lies (FP32 bits), split into the hi and lo registers that the
    // batch reads. With one batch left in flight, the k-block before it is done: its registers are free.
    Tensor rA = thr_mma.partition_fragment_A(sA(_, _, 0)); // (MMA, MMA_M, MMA_K)
    Tensor rH = make_fragment_like(rA);
    Tensor rL = make_fragment_like(rA);
    Tensor uA = recast<uint32_t>(rA), uH = recast<uint32_t>(rH), uL = recast<uint32_t>(rL);
    // The tensor cores' own sums are less exact than FP32 adds: summing all of k there, the error was
    // 3.4e-6 of the error scale from cuBLAS's FP32 result at 4096^3 and 5.3e-6 at 8192^3, growing as
    // sqrt(k), where SIMT rungs read 3 - 4e-7 (H100, docs/gpu-runs.md); the f32 tolerance is 1e-5. So
    // they sum PROMOTE k tiles at a time into part, which each group's first wgmma starts from zero, and
    // the consumers add part into acc with FP32 adds: 2.4 - 4.6e-7 at 4096^3, 1.0e-7 at 1024 x 1024 x
    // 131072 (PROMOTE 1 - 8: 2.30, 2.26, 2.23 and 2.22 ms at 4096^3), at the price of a second set of
    // accumulators (the tile limit).
    Tensor part = make_fragment_like(acc);
    // A group of PROMOTE k tiles, then its sum into acc: unconditional at the end of each group, so that no
    // path reaches the FP32 adds with a batch in flight (a conditional add made ptxas wait for every batch
    // at each k tile: C7517). Not faster for it on the H100 (within 0.5 %; 2026-11-27), so that
    // wait was not what limits this kernel.
    for (int g0 = 0; g0 < ktiles; g0 += PROMOTE) {
        const int g1 = min(g0 + PROMOTE, ktiles);
        for (int kt = g0; kt < g1; kt++) {
            const int s = kt % STAGES;
            bar_wait(&sh.full[s], (kt / STAGES) & 1);
            // The producer's cp.async wrote the stage (the generic proxy); wgmma reads it through the async one.
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
            CUTE_UNROLL
            for (int kb = 0; kb < size<2>(rA); kb++) {
                copy(tCsA(_, _, kb, s), rA(_, _, kb));
                auto a = uA(_, _, kb);
                auto h = uH(_, _, kb);
                auto l = uL(_, _, kb);
                CUTE_UNROLL
                for (int i = 0; i < size(a); i++) {
                    const float x = __uint_as_float(a(i));
                    h(i) = x3_tf32(x);
                    l(i) = x3_tf32(x - __uint_as_float(h(i)));
                }
                warpgroup_fence_operand(h);
                warpgroup_fence_operand(l);
                warpgroup_fence_operand(part);
                warpgroup_arrive();
                mma.accumulate_ = kb == 0 && kt == g0 ? GMMA::ScaleOut::Zero : GMMA::ScaleOut::One;
                gemm(mma, rL(_, _, kb), tCrBh(_, _, kb, s), part);
                mma.accumulate_ = GMMA::ScaleOut::One;
                gemm(mma, rH(_, _, kb), tCrBl(_, _, kb, s), part);
                gemm(mma, rH(_, _, kb), tCrBh(_, _, kb, s), part);
                warpgroup_commit_batch();
                warpgroup_wait<1>();
                warpgroup_fence_operand(part);
                warpgroup_fence_operand(h);
                warpgroup_fence_operand(l);
            }
            if (kt > 0 && ctid % 32 == 0) bar_arrive(&sh.empty[(kt - 1) % STAGES]);
        }
        warpgroup_wait<0>();
        warpgroup_fence_operand(part);
        CUTE_UNROLL
        for (int i = 0; i < size(acc); i++) acc(i) += part(i);
    }

    if (X3_SPLIT && slices > 1) {
        // Each slice writes its part; the last to finish adds the parts in slice order (the same sum
        // whichever finishes last) into acc. Consecutive consumers write consecutive floats.
        constexpr int NCT = NC * 128, NA = decltype(size(acc))::value;
        float *mine = w.part + ((size_t)tile * slices + z) * (BM * BN);
        CUTE_UNROLL
        for (int i = 0; i < NA; i++) mine[i * NCT + ctid] = acc(i);
        __threadfence();
        asm volatile("bar.sync 1, %0;\n" ::"r"(NCT) : "memory"); // the consumers only: the producer has left
        __shared__ unsigned last;
        if (ctid == 0) last = atomicAdd(&w.done[tile], 1u) == slices - 1u;
        asm volatile("bar.sync 1, %0;\n" ::"r"(NCT) : "memory");
        if (!last) return;
        __threadfence();
        const float *parts = w.part + (size_t)tile * slices * (BM * BN);
        if (WAVE) {
            // The slices known at run time: a part at a time, its NA loads in flight together (the loop below,
            // with the part innermost, would wait for each load in turn); the same sums in the same order.
            clear(acc);
            for (int q = 0; q < slices; q++) {
                CUTE_UNROLL
                for (int i = 0; i < NA; i++) acc(i) += __ldcg(&parts[(size_t)q * (BM * BN) + i * NCT + ctid]);
            }
        } else {
            CUTE_UNROLL
            for (int i = 0; i < NA; i++) {
                float v = 0.0f;
                for (int q = 0; q < slices; q++) v += __ldcg(&parts[(size_t)q * (BM * BN) + i * NCT + ctid]);
                acc(i) = v;
            }
        }
    }

    const int m0 = tm * BM, n0 = tn * BN;
#if defined(TL_BETA_NONZERO) && TL_BETA_NONZERO
    sgemm_store_c_cute(acc, tCcC, tCgC, m0, n0, M, N, alpha, beta);
#else
    CUTE_UNROLL
    for (int i = 0; i < size(acc); i++) {
        auto rc = tCcC(i);
        if (m0 + get<0>(rc) < M && n0 + get<1>(rc) < N) {
            float *c = &tCgC(i);
            *c = sgemm_epilogue(acc(i), alpha, beta, c);
        }
    }
#endif
}
