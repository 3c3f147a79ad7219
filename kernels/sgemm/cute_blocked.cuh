// Seed 003's last rows in CuTe (24_cute_threads_bk, 25_cute_pipeline): more threads and a deeper k tile
// per block, explicit register blocking, and (STAGES >= 2) a cp.async pipeline.
//
// - A TiledMMA of UniversalFMA atoms, TM x TN threads (16 x 16 at 256 threads, 16 x 8 at 128), permuted
//   so that each thread owns groups of 4 consecutive rows and columns of C: its fragments of A and B are
//   16-byte shared loads, copied into registers once per k (explicit register blocks), then
//   cute::gemm on registers.
// - Shared tiles are m-major (A) and n-major (B) whatever the operands' layouts, so that those
//   fragments are contiguous: an operand whose global layout agrees is copied 16 bytes at a time by
//   cp.async, one that does not 4 bytes at a time (the copy transposes); rows padded by PAD floats.
// - STAGES tiles in flight (1: load, wait, compute). Edge tiles, and operands whose rows are not 16-byte
//   aligned, are copied element by element with zero fill; the epilogue checks every store.
// The params BM, BN, BK, THREADS, STAGES, PAD are the runner's.
#pragma once
#include <cute/tensor.hpp>

#include "sgemm_common.cuh"
#include "sgemm_cute_store.cuh"

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef THREADS
#define THREADS 256
#endif
#ifndef STAGES
#define STAGES 1
#endif
#ifndef PAD
#define PAD 4
#endif

#define TM 16
#define TN (THREADS / 16)
#if (THREADS != 128 && THREADS != 256) || BM % (TM * 4) || BN % (TN * 4) || BK % 4 || PAD % 4 || PAD < 0 || \
    STAGES < 1 || STAGES > 4
#error "cute_blocked: THREADS 128 or 256; BM a multiple of 64, BN of 4 * THREADS / 16; BK, PAD multiples of 4; STAGES 1 .. 4"
#endif

#define SA (BM + PAD) // floats per k row of the A tile
#define SB (BN + PAD)
#define STAGE_FLOATS (BK * SA + BK * SB)

namespace tl_blocked {
using namespace cute;

template <bool GMEM_K>
__device__ __forceinline__ auto operand(const float *p, int rows, int K)
{
    if constexpr (GMEM_K) return make_tensor(make_gmem_ptr(p), make_shape(rows, K), make_stride(K, Int<1>{}));
    else return make_tensor(make_gmem_ptr(p), make_shape(rows, K), make_stride(Int<1>{}, rows));
}

// (ROWS, BK), rows contiguous, each k row padded.
template <int ROWS>
__device__ constexpr auto smem_layout()
{
    return make_layout(make_shape(Int<ROWS>{}, Int<BK>{}), make_stride(_1{}, Int<ROWS + PAD>{}));
}

// cp.async copies into a rows-contiguous tile: 16 bytes along the rows when global memory has them
// contiguous, else 4 bytes with threads along k (global memory's contiguous dimension).
template <bool GMEM_K, int ROWS>
__device__ constexpr auto tile_copy()
{
    if constexpr (!GMEM_K) {
        constexpr int tr = ROWS / 4 < THREADS ? ROWS / 4 : THREADS;
        return make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, float>{},
                               Layout<Shape<Int<tr>, Int<THREADS / tr>>>{}, Layout<Shape<_4, _1>>{});
    } else {
        constexpr int tk = BK < THREADS ? BK : THREADS;
        return make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint32_t>, float>{},
                               Layout<Shape<Int<THREADS / tk>, Int<tk>>, Stride<Int<tk>, _1>>{}, Layout<Shape<_1, _1>>{});
    }
}

template <bool GMEM_K, int ROWS, class S>
__device__ __forceinline__ void load(S s, const float *p, int rows, int K, int row0, int kt, int tid, bool whole)
{
    if (whole) {
        auto tc = tile_copy<GMEM_K, ROWS>();
        auto thr = tc.get_slice(tid);
        Tensor g = local_tile(operand<GMEM_K>(p, rows, K), make_shape(Int<ROWS>{}, Int<BK>{}), make_coord(row0 / ROWS, kt));
        cute::copy(tc, thr.partition_S(g), thr.partition_D(s));
    } else {
        for (int i = tid; i < ROWS * BK; i += THREADS) {
            int r = GMEM_K ? i / BK : i % ROWS, k = GMEM_K ? i % BK : i / ROWS;
            int gr = row0 + r, gk = kt * BK + k;
            s(r, k) = gr < rows && gk < K ? p[GMEM_K ? (long long)gr * K + gk : (long long)gk * rows + gr] : 0.0f;
        }
    }
}
} // namespace tl_blocked

extern "C" __global__ void __launch_bounds__(THREADS)
    CUTE_ENTRY(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
{
    using namespace cute;
    using namespace tl_blocked;
    constexpr bool A_K = !A_COL, B_K = B_COL; // k contiguous in global memory
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;

    // Thread (tm, tn) owns rows 4 tm + 64 i + {0..3} and columns 4 tn + 4 TN j + {0..3} of the tile.
    TiledMMA mma = make_tiled_mma(UniversalFMA<float, float, float, float>{}, Layout<Shape<Int<TM>, Int<TN>, _1>>{},
                                  Tile<Layout<Shape<Int<TM>, _4>, Stride<_4, _1>>,
                                       Layout<Shape<Int<TN>, _4>, Stride<_4, _1>>, _1>{});
    ThrMMA thr = mma.get_slice(tid);
    Tensor sA0 = make_tensor(make_smem_ptr(smem), smem_layout<BM>());
    Tensor sB0 = make_tensor(make_smem_ptr(smem + BK * SA), smem_layout<BN>());
    // One k of the fragments at a time, (1, BM / TM) and (1, BN / TN) registers: a (.., BK) fragment
    // indexed by k ends up in local memory wherever the compiler does not unroll the k loop whole
    // (A row-major and B column-major did not: 2048 bytes of stack, 10 x slower).
    Tensor tCrA = make_fragment_like(thr.partition_A(sA0)(_, _, 0));
    Tensor tCrB = make_fragment_like(thr.partition_B(sB0)(_, _, 0));

    Tensor mC = make_tensor(make_gmem_ptr(C), make_shape(M, N), make_stride(N, Int<1>{}));
    Tensor gC = local_tile(mC, make_shape(Int<BM>{}, Int<BN>{}), make_coord(blockIdx.x, blockIdx.y));
    Tensor tCgC = thr.partition_C(gC);
    Tensor tCcC = thr.partition_C(make_identity_tensor(make_shape(Int<BM>{}, Int<BN>{})));
    Tensor acc = thr.partition_fragment_C(gC);
    clear(acc);

    const bool a_aligned = A_K || M % 4 == 0, b_aligned = B_K || N % 4 == 0; // 16-byte copies only
    const bool inside = m0 + BM <= M && n0 + BN <= N;
    auto stage_a = [&](int s) { return make_tensor(make_smem_ptr(smem + s * STAGE_FLOATS), smem_layout<BM>()); };
    auto stage_b = [&](int s) { return make_tensor(make_smem_ptr(smem + s * STAGE_FLOATS + BK * SA), smem_layout<BN>()); };
    auto fetch = [&](int kt, int s) {
        const bool whole = inside && (kt + 1) * BK <= K;
        load<A_K, BM>(stage_a(s), A, M, K, m0, kt, tid, whole && a_aligned);
        load<B_K, BN>(stage_b(s), B, N, K, n0, kt, tid, whole && b_aligned);
    };
    auto compute = [&](int s) {
        Tensor tCsA = thr.partition_A(stage_a(s));
        Tensor tCsB = thr.partition_B(stage_b(s));
        CUTE_UNROLL
        for (int k = 0; k < BK; k++) {
            copy(tCsA(_, _, k), tCrA); // 16-byte shared loads: the explicit register blocks
            copy(tCsB(_, _, k), tCrB);
            gemm(mma, tCrA, tCrB, acc);
        }
    };

    const int ktiles = (K + BK - 1) / BK;
#if STAGES == 1
    for (int kt = 0; kt < ktiles; kt++) {
        fetch(kt, 0);
        cp_async_fence();
        cp_async_wait<0>();
        __syncthreads();
        compute(0);
        __syncthreads();
    }
#else
    CUTE_UNROLL
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles) fetch(s, s);
        cp_async_fence();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        cp_async_wait<STAGES - 2>();
        __syncthreads(); // tile kt is in; the stage the next fetch overwrites is no longer read
        if (kt + STAGES - 1 < ktiles) fetch(kt + STAGES - 1, (kt + STAGES - 1) % STAGES);
        cp_async_fence();
        compute(kt % STAGES);
    }
#endif

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
