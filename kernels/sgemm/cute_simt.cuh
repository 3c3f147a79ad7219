// The CuTe SIMT rungs after 20_cute_naive (seed 003's table, rows 2 onwards), one kernel with the
// row's choices as macros that each rung's file sets:
//   CUTE_COPY    1: 128-bit TiledCopy (UniversalCopy<uint128_t>) through registers; 2: cp.async
//                (SM80_CP_ASYNC_CACHEALWAYS<uint128_t>) straight into shared memory;
//   PAD          floats added to each shared tile row (a multiple of 4: 16-byte copies stay aligned);
//   SWIZZLE      1: the shared tiles XOR-swizzled (CuTe Swizzle<3,2,3> over 4-float chunks) instead.
// The params BM, BN, BK, THREADS are the runner's. Shared tiles keep the dimension that is contiguous
// in global memory contiguous, so a 16-byte chunk is one vector on both sides. A tile that is not
// whole inside the operands, or whose rows are not 16-byte aligned, is copied element by element with
// zeros past the edges; the epilogue checks every store.
#pragma once
#include <cute/tensor.hpp>

#include "sgemm_common.cuh"
#include "sgemm_cute_store.cuh"

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 16
#endif
#ifndef THREADS
#define THREADS 64
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef SWIZZLE
#define SWIZZLE 0
#endif

#define TCN (THREADS >= 256 ? 16 : 8)
#define TCM (THREADS / TCN)
#if (THREADS != 64 && THREADS != 128 && THREADS != 256) || BM % TCM || BN % TCN || BM % 4 || BN % 4 || BK % 4 || \
    PAD % 4 || PAD < 0 || (SWIZZLE && PAD)
#error "cute_simt: THREADS 64, 128 or 256; BM, BN, BK multiples of 4 that C's threads tile; PAD a multiple of 4, not with SWIZZLE"
#endif

namespace tl_cute {
using namespace cute;

// An operand as a (rows, K) tensor, its contiguous stride static (GMEM_K: k contiguous).
template <bool GMEM_K>
__device__ __forceinline__ auto operand(const float *p, int rows, int K)
{
    if constexpr (GMEM_K) return make_tensor(make_gmem_ptr(p), make_shape(rows, K), make_stride(K, Int<1>{}));
    else return make_tensor(make_gmem_ptr(p), make_shape(rows, K), make_stride(Int<1>{}, rows));
}

__host__ __device__ constexpr int log2i(int x)
{
    return x > 1 ? 1 + log2i(x / 2) : 0;
}

// A (ROWS, BK) shared tile, contiguous along k when GMEM_K, else along the rows; its rows padded by
// PAD floats, or XOR-swizzled in 16-byte chunks (up to 8 chunks of a row permuted by the row index).
template <bool GMEM_K, int ROWS>
__device__ constexpr auto smem_layout()
{
    constexpr int inner = GMEM_K ? BK : ROWS;
    auto plain = [] {
        if constexpr (GMEM_K) return make_layout(make_shape(Int<ROWS>{}, Int<BK>{}), make_stride(Int<BK + PAD>{}, _1{}));
        else return make_layout(make_shape(Int<ROWS>{}, Int<BK>{}), make_stride(_1{}, Int<ROWS + PAD>{}));
    }();
    constexpr int bits = log2i(inner / 4) < 3 ? log2i(inner / 4) : 3;
    if constexpr (SWIZZLE && bits > 0) return composition(Swizzle<bits, 2, log2i(inner) - 2>{}, plain);
    else return plain;
}

// Floats a tile of either orientation takes.
#define SMEM_FLOATS(ROWS) (((ROWS) + PAD) * (BK + PAD))

// 16-byte copies of a (ROWS, BK) tile, threads along global memory's contiguous dimension.
template <bool GMEM_K, int ROWS>
__device__ constexpr auto vector_copy()
{
#if CUTE_COPY == 2
    using Atom = Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, float>;
#else
    using Atom = Copy_Atom<UniversalCopy<uint128_t>, float>;
#endif
    if constexpr (GMEM_K) {
        constexpr int tk = BK / 4 < THREADS ? BK / 4 : THREADS;
        return make_tiled_copy(Atom{}, Layout<Shape<Int<THREADS / tk>, Int<tk>>, Stride<Int<tk>, _1>>{},
                               Layout<Shape<_1, _4>>{});
    } else {
        constexpr int tr = ROWS / 4 < THREADS ? ROWS / 4 : THREADS;
        return make_tiled_copy(Atom{}, Layout<Shape<Int<tr>, Int<THREADS / tr>>>{}, Layout<Shape<_4, _1>>{});
    }
}

// Element by element, zeros outside (rows, K); threads walk global memory's contiguous dimension.
template <bool GMEM_K, int ROWS, class S>
__device__ __forceinline__ void fill_tile(S &s, const float *g, int rows, int K, int row0, int k0, int tid)
{
    for (int i = tid; i < ROWS * BK; i += THREADS) {
        int r = GMEM_K ? i / BK : i % ROWS, k = GMEM_K ? i % BK : i / ROWS;
        int gr = row0 + r, gk = k0 + k;
        s(r, k) = gr < rows && gk < K ? g[GMEM_K ? (long long)gr * K + gk : (long long)gk * rows + gr] : 0.0f;
    }
}

} // namespace tl_cute

template <bool GMEM_K, int ROWS, class S>
__device__ __forceinline__ void tl_cute_load(S &s, const float *p, int rows, int K, int row0, int kt, int tid,
                                             bool whole)
{
    using namespace cute;
    if (whole) {
        auto tc = tl_cute::vector_copy<GMEM_K, ROWS>();
        auto thr = tc.get_slice(tid);
        Tensor g = local_tile(tl_cute::operand<GMEM_K>(p, rows, K), make_shape(Int<ROWS>{}, Int<BK>{}),
                              make_coord(row0 / ROWS, kt));
        Tensor src = thr.partition_S(g);
        Tensor dst = thr.partition_D(s);
#if CUTE_COPY == 2
        cute::copy(tc, src, dst);
#else
        Tensor reg = make_fragment_like(src); // through registers: every load issued before the stores
        cute::copy(tc, src, reg);
        cute::copy(tc, reg, dst);
#endif
    } else {
        tl_cute::fill_tile<GMEM_K, ROWS>(s, p, rows, K, row0, kt * BK, tid);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    CUTE_ENTRY(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
{
    using namespace cute;
    constexpr bool A_K = !A_COL, B_K = B_COL; // k contiguous in global memory
    __shared__ __align__(16) float smem_a[SMEM_FLOATS(BM)], smem_b[SMEM_FLOATS(BN)];
    Tensor sA = make_tensor(make_smem_ptr(smem_a), tl_cute::smem_layout<A_K, BM>());
    Tensor sB = make_tensor(make_smem_ptr(smem_b), tl_cute::smem_layout<B_K, BN>());

    const int tid = threadIdx.x, m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    Tensor mC = make_tensor(make_gmem_ptr(C), make_shape(M, N), make_stride(N, Int<1>{}));
    Tensor gC = local_tile(mC, make_shape(Int<BM>{}, Int<BN>{}), make_coord(blockIdx.x, blockIdx.y));

    auto tC = make_layout(make_shape(Int<TCM>{}, Int<TCN>{}));
    Tensor tCsA = local_partition(sA, tC, tid, Step<_1, X>{}); // (BM/TCM, BK)
    Tensor tCsB = local_partition(sB, tC, tid, Step<X, _1>{}); // (BN/TCN, BK)
    Tensor tCgC = local_partition(gC, tC, tid, Step<_1, _1>{});
    Tensor tCcC = local_partition(make_identity_tensor(shape(gC)), tC, tid, Step<_1, _1>{});
    Tensor tCrC = make_tensor_like(tCgC);
    clear(tCrC);

    // 16-byte copies need 16-byte aligned rows: the leading dimension a multiple of 4 floats.
    const bool a_aligned = (A_K ? K : M) % 4 == 0, b_aligned = (B_K ? K : N) % 4 == 0;
    const bool inside = m0 + BM <= M && n0 + BN <= N;
    const int ktiles = (K + BK - 1) / BK;
    for (int kt = 0; kt < ktiles; kt++) {
        const bool whole = inside && (kt + 1) * BK <= K;
        tl_cute_load<A_K, BM>(sA, A, M, K, m0, kt, tid, whole && a_aligned);
        tl_cute_load<B_K, BN>(sB, B, N, K, n0, kt, tid, whole && b_aligned);
#if CUTE_COPY == 2
        cp_async_fence();
        cp_async_wait<0>();
#endif
        __syncthreads();
#if SWIZZLE
        // cute::gemm takes no swizzled (composed) shared layout: each k's fragments go through registers.
        CUTE_UNROLL
        for (int k = 0; k < BK; k++) {
            Tensor a = make_tensor<float>(make_shape(size<0>(tCsA)));
            Tensor b = make_tensor<float>(make_shape(size<0>(tCsB)));
            copy(tCsA(_, k), a);
            copy(tCsB(_, k), b);
            gemm(a, b, tCrC); // (M) x (N) => (M, N)
        }
#else
        gemm(tCsA, tCsB, tCrC);
#endif
        __syncthreads();
    }

#if defined(TL_BETA_NONZERO) && TL_BETA_NONZERO
    sgemm_store_c_cute(tCrC, tCcC, tCgC, m0, n0, M, N, alpha, beta);
#else
    CUTE_UNROLL
    for (int i = 0; i < size(tCrC); i++) {
        auto rc = tCcC(i);
        if (get<0>(rc) + m0 < M && get<1>(rc) + n0 < N) {
            float *c = &tCgC(i);
            *c = sgemm_epilogue(tCrC(i), alpha, beta, c);
        }
    }
#endif
}
