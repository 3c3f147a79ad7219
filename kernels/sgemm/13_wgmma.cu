// 13_wgmma: Hopper's warpgroup MMA (wgmma, sm_90a) from shared memory, in CuTe (dtype tf32 or bf16).
//
// What changes from 12_mma_sync:
// - the tensor cores read both operands straight from shared memory (GMMA descriptors): no fragment
//   loads through registers, and one instruction covers a 64 x BN x k tile per warpgroup; BM / 64
//   warpgroups share a BM x BN tile of C (the accumulators stay in registers, FP32);
// - shared tiles in the layouts wgmma reads (CuTe's GMMA atoms, 128/64/32-byte swizzles), filled by
//   cp.async, STAGES deep: 16-byte copies where the operand's contiguous dimension is the one the tile
//   keeps contiguous, 4-byte copies that transpose where it is not (TF32 wgmma takes K-major A and B
//   only; BF16 takes either, so BF16 never transposes);
// - tiles at an edge, or of operands whose leading dimension is not a multiple of 16 bytes, are
//   filled element by element with zeros past the edge, then fenced for the async proxy.
// What limits it (docs/results/h100-tensor-core.md) is the copies, not the math: keeping one wgmma batch
// in flight while the next tile is waited for changes nothing, since every thread computes swizzled
// addresses for its cp.async chunks, and TF32 with row-major B (the NN case) copies B 4 bytes at a time to
// transpose it; on sizes whose rows are not 16-byte aligned (k = 777) every tile takes the element path.
// 14_wgmma_tma does the next step: TMA (the copy engine computes the swizzle) and a producer warpgroup.
#include <cute/tensor.hpp>

#include "sgemm_common.cuh"
#include "sgemm_cute_store.cuh"

#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "13_wgmma: needs sm_90a (Hopper's wgmma); the runner compiles it so on an sm_90 GPU"
#endif
#if !defined(TL_DTYPE_TF32) && !defined(TL_DTYPE_BF16)
#error "13_wgmma: a tensor-core rung: dtype tf32 or bf16"
#endif

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef BK
#define BK 32
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif

using namespace cute;

#if defined(TL_DTYPE_BF16)
using T = bfloat16_t;
#define TF32 0
#else
using T = tfloat32_t;
#define TF32 1
#endif
#define VEC (16 / (int)sizeof(T))
#define NT (BM / 64 * 128)


// A is (M, K), B is (N, K). K-major: k contiguous in the shared tile.
constexpr bool A_KMAJOR = TF32 || !A_COL;
constexpr bool B_KMAJOR = TF32 || B_COL;
constexpr bool A_GMEM_K = !A_COL; // k contiguous in global memory
constexpr bool B_GMEM_K = B_COL;

// The widest swizzle atom the tile's contiguous extent holds.
template <bool KMAJOR, int ROWS>
__device__ constexpr auto smem_layout()
{
    constexpr int kbytes = BK * (int)sizeof(T);
    if constexpr (KMAJOR) {
        if constexpr (kbytes % 128 == 0)
            return tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, make_shape(Int<ROWS>{}, Int<BK>{}, Int<STAGES>{}));
        else if constexpr (kbytes % 64 == 0)
            return tile_to_shape(GMMA::Layout_K_SW64_Atom<T>{}, make_shape(Int<ROWS>{}, Int<BK>{}, Int<STAGES>{}));
        else
            return tile_to_shape(GMMA::Layout_K_SW32_Atom<T>{}, make_shape(Int<ROWS>{}, Int<BK>{}, Int<STAGES>{}));
    } else {
        return tile_to_shape(GMMA::Layout_MN_SW128_Atom<T>{}, make_shape(Int<ROWS>{}, Int<BK>{}, Int<STAGES>{}));
    }
}

// cp.async copies of a (ROWS, BK) tile: 16 bytes along the dimension contiguous in both global and
// shared memory, else 4 bytes (one TF32 element), threads along global memory's contiguous dimension.
template <bool GMEM_K, bool KMAJOR, int ROWS>
__device__ constexpr auto tile_copy()
{
    if constexpr (GMEM_K && KMAJOR) {
        constexpr int tk = BK / VEC;
        return make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, T>{},
                               Layout<Shape<Int<NT / tk>, Int<tk>>, Stride<Int<tk>, _1>>{}, Layout<Shape<_1, Int<VEC>>>{});
    } else if constexpr (!GMEM_K && !KMAJOR) {
        constexpr int tr = ROWS / VEC;
        return make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, T>{},
                               Layout<Shape<Int<tr>, Int<NT / tr>>>{}, Layout<Shape<Int<VEC>, _1>>{});
    } else {
        static_assert(!GMEM_K && KMAJOR && sizeof(T) == 4, "13_wgmma: only TF32 transposes in its copies");
        constexpr int tr = ROWS < NT ? ROWS : NT;
        return make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint32_t>, T>{},
                               Layout<Shape<Int<tr>, Int<NT / tr>>>{}, Layout<Shape<_1, _1>>{});
    }
}

// An edge tile (or one whose rows are not 16-byte aligned), element by element, zeros outside
// (rows, K); threads walk global memory's contiguous dimension.
template <bool GMEM_K, int ROWS, class S>
__device__ __forceinline__ void fill_tile(S s, const T *g, int ld, int rows, int K, int row0, int k0, int tid)
{
    for (int i = tid; i < ROWS * BK; i += NT) {
        int r = GMEM_K ? i / BK : i % ROWS, k = GMEM_K ? i % BK : i / ROWS;
        int gr = row0 + r, gk = k0 + k;
        bool in = gr < rows && gk < K;
        s(r, k) = in ? g[GMEM_K ? (long long)gr * ld + gk : (long long)gk * ld + gr] : T(0.0f);
    }
}

// An operand as a (rows, K) tensor; its contiguous stride static, so that copies can vectorize.
template <bool GMEM_K>
__device__ __forceinline__ auto operand(const T *p, int rows, int K, int ld)
{
    if constexpr (GMEM_K) return make_tensor(make_gmem_ptr(p), make_shape(rows, K), make_stride(ld, Int<1>{}));
    else return make_tensor(make_gmem_ptr(p), make_shape(rows, K), make_stride(Int<1>{}, ld));
}

struct Shared {
    alignas(1024) T a[cosize_v<decltype(smem_layout<A_KMAJOR, BM>())>];
    alignas(1024) T b[cosize_v<decltype(smem_layout<B_KMAJOR, BN>())>];
};

extern "C" __global__ void __launch_bounds__(NT, 1)
    sgemm_wgmma(int M, int N, int K, float alpha, const void *A_, const void *B_, float beta, float *C)
{
    extern __shared__ unsigned char smem_raw[];
    Shared &sh = *reinterpret_cast<Shared *>((reinterpret_cast<size_t>(smem_raw) + 1023) & ~size_t(1023));
    const T *A = static_cast<const T *>(A_), *B = static_cast<const T *>(B_);
    const int tid = threadIdx.x;

    int tm, tn;
    sgemm_raster<BM, BN, GROUP_M>(M, N, blockIdx.x, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;

    const int lda = A_GMEM_K ? K : M, ldb = B_GMEM_K ? K : N;
    Tensor mA = operand<A_GMEM_K>(A, M, K, lda);
    Tensor mB = operand<B_GMEM_K>(B, N, K, ldb);
    Tensor mC = make_tensor(make_gmem_ptr(C), make_shape(M, N), make_stride(N, Int<1>{}));
    auto tiler = make_shape(Int<BM>{}, Int<BN>{}, Int<BK>{});
    auto coord = make_coord(tm, tn, _);
    Tensor gA = local_tile(mA, tiler, coord, Step<_1, X, _1>{}); // (BM, BK, k)
    Tensor gB = local_tile(mB, tiler, coord, Step<X, _1, _1>{}); // (BN, BK, k)
    Tensor gC = local_tile(mC, tiler, coord, Step<_1, _1, X>{}); // (BM, BN)

    Tensor sA = make_tensor(make_smem_ptr(sh.a), smem_layout<A_KMAJOR, BM>()); // (BM, BK, STAGES)
    Tensor sB = make_tensor(make_smem_ptr(sh.b), smem_layout<B_KMAJOR, BN>()); // (BN, BK, STAGES)

    auto copy_a = tile_copy<A_GMEM_K, A_KMAJOR, BM>();
    auto copy_b = tile_copy<B_GMEM_K, B_KMAJOR, BN>();
    auto thr_a = copy_a.get_slice(tid);
    auto thr_b = copy_b.get_slice(tid);
    Tensor tAgA = thr_a.partition_S(gA);
    Tensor tAsA = thr_a.partition_D(as_position_independent_swizzle_tensor(sA));
    Tensor tBgB = thr_b.partition_S(gB);
    Tensor tBsB = thr_b.partition_D(as_position_independent_swizzle_tensor(sB));

    constexpr GMMA::Major MA = A_KMAJOR ? GMMA::Major::K : GMMA::Major::MN;
    constexpr GMMA::Major MB = B_KMAJOR ? GMMA::Major::K : GMMA::Major::MN;
    TiledMMA mma = make_tiled_mma(GMMA::ss_op_selector<T, T, float, Shape<_64, Int<BN>, Int<BK>>, MA, MB>(),
                                  Layout<Shape<Int<BM / 64>, _1, _1>>{});
    ThrMMA thr_mma = mma.get_slice(tid);
    Tensor tCrA = thr_mma.make_fragment_A(thr_mma.partition_A(sA)); // descriptors (MMA, MMA_M, MMA_K, STAGES)
    Tensor tCrB = thr_mma.make_fragment_B(thr_mma.partition_B(sB));
    Tensor tCgC = thr_mma.partition_C(gC);
    Tensor tCcC = thr_mma.partition_C(make_identity_tensor(make_shape(Int<BM>{}, Int<BN>{})));
    Tensor acc = thr_mma.make_fragment_C(tCgC);
    clear(acc);

    // A tile is copied whole by cp.async when it lies inside the operands with 16-byte aligned rows.
    const bool inside_mn = m0 + BM <= M && n0 + BN <= N;
    // (The 4-byte transposing copies need no alignment.)
    const bool aligned = ((!A_GMEM_K && A_KMAJOR) || lda % VEC == 0) && ((!B_GMEM_K && B_KMAJOR) || ldb % VEC == 0);
    auto load = [&](int kt, int s) {
        if (inside_mn && aligned && (kt + 1) * BK <= K) {
            copy(copy_a, tAgA(_, _, _, kt), tAsA(_, _, _, s));
            copy(copy_b, tBgB(_, _, _, kt), tBsB(_, _, _, s));
        } else {
            fill_tile<A_GMEM_K, BM>(sA(_, _, s), A, lda, M, K, m0, kt * BK, tid);
            fill_tile<B_GMEM_K, BN>(sB(_, _, s), B, ldb, N, K, n0, kt * BK, tid);
        }
    };

    // With 3+ stages one wgmma batch stays in flight while the next tile is waited for: tiles are then
    // loaded STAGES - 2 ahead, so the stage a load overwrites was read by a batch known to be done.
    constexpr int INFLIGHT = STAGES >= 3 ? 1 : 0, AHEAD = STAGES - 1 - INFLIGHT;
    const int ktiles = (K + BK - 1) / BK;
    CUTE_UNROLL
    for (int s = 0; s < AHEAD; s++) {
        if (s < ktiles) load(s, s);
        cp_async_fence();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        cp_async_wait<AHEAD - 1>();
        // Shared memory written by cp.async or by stores is read next by the tensor cores (async proxy).
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads(); // tile kt is in every thread's view; every batch before kt - INFLIGHT is done
        const int next = kt + AHEAD;
        if (next < ktiles) load(next, next % STAGES);
        cp_async_fence();
        const int s = kt % STAGES;
        warpgroup_fence_operand(acc);
        warpgroup_arrive();
        gemm(mma, tCrA(_, _, _, s), tCrB(_, _, _, s), acc);
        warpgroup_commit_batch();
        warpgroup_wait<INFLIGHT>();
        warpgroup_fence_operand(acc);
    }
    warpgroup_wait<0>();
    warpgroup_fence_operand(acc);

#if defined(TL_BETA_NONZERO) && TL_BETA_NONZERO
    sgemm_store_c_cute(acc, tCcC, tCgC, m0, n0, M, N, alpha, beta);
#else
    CUTE_UNROLL
    for (int i = 0; i < size(acc); i++) {
        auto rc = tCcC(i);
        int row = m0 + get<0>(rc), col = n0 + get<1>(rc);
        if (row < M && col < N) {
            float *c = &tCgC(i);
            *c = sgemm_epilogue(acc(i), alpha, beta, c);
        }
    }
#endif
}
