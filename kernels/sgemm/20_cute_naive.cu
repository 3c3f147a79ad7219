// 20_cute_naive: the seed post's starting point in CuTe (seed 003, "GEMM optimisation 2: GMEM and SMEM
// access", the first row of its table): a BM x BN tile of C per block, BK-deep tiles of A and B copied
// element by element into shared memory with local_partition (one element per thread per step,
// consecutive threads on consecutive addresses of the operand's contiguous dimension), then every
// thread accumulates its (BM / TCM) x (BN / TCN) share of C with cute::gemm from shared memory.
// Defaults as the seed: BM = BN = 64, BK = 16, 64 threads; A and B column-major in seed003_cute.yaml, as in
// the seed. Each row's figures: docs/results/h100-seed003-cute.md.
//
// CuTe views the operands as (M, K) and (N, K) tensors whose strides say the layout: A row-major
// (K, 1), column-major (1, M); B row-major (1, N), column-major (K, 1). C is (M, N), stride (N, 1).
// Tiles past an edge are read through an identity tensor's coordinates: elements outside are zeros,
// stores outside are skipped, so any M, N, K works.
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

using namespace cute;

// C's thread layout: TCM x TCN threads, each owning a strided (BM / TCM) x (BN / TCN) share of the tile.
#define TCN (THREADS >= 256 ? 16 : 8)
#define TCM (THREADS / TCN)

// A copy's thread layout over a (ROWS, BK) tile: along the rows when they are the contiguous dimension
// (MAJOR_ROWS), else along k.
template <int ROWS, bool MAJOR_ROWS>
__device__ constexpr auto copy_threads()
{
    if constexpr (MAJOR_ROWS) {
        constexpr int r = ROWS < THREADS ? ROWS : THREADS;
        return make_layout(make_shape(Int<r>{}, Int<THREADS / r>{}));
    } else {
        constexpr int k = BK < THREADS ? BK : THREADS;
        return make_layout(make_shape(Int<THREADS / k>{}, Int<k>{}), LayoutRight{});
    }
}

// One (ROWS, BK) tile of an operand into shared memory, zeros past (rows, K).
template <class TG, class TS, class TC>
__device__ __forceinline__ void copy_tile(TG const &g, TS &s, TC const &c, int row0, int k0, int rows, int K)
{
    CUTE_UNROLL
    for (int i = 0; i < size(s); i++) {
        auto rc = c(i);
        s(i) = get<0>(rc) + row0 < rows && get<1>(rc) + k0 < K ? g(i) : 0.0f;
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemm_cute_naive(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
{
    auto mA = make_tensor(make_gmem_ptr(A), make_shape(M, K), A_COL ? make_stride(1, M) : make_stride(K, 1));
    auto mB = make_tensor(make_gmem_ptr(B), make_shape(N, K), B_COL ? make_stride(K, 1) : make_stride(1, N));
    auto mC = make_tensor(make_gmem_ptr(C), make_shape(M, N), make_stride(N, 1));

    auto tiler = make_shape(Int<BM>{}, Int<BN>{}, Int<BK>{});
    auto coord = make_coord(blockIdx.x, blockIdx.y, _);
    Tensor gA = local_tile(mA, tiler, coord, Step<_1, X, _1>{}); // (BM, BK, k tiles)
    Tensor gB = local_tile(mB, tiler, coord, Step<X, _1, _1>{}); // (BN, BK, k tiles)
    Tensor gC = local_tile(mC, tiler, coord, Step<_1, _1, X>{}); // (BM, BN)

    __shared__ float smem_a[BM * BK], smem_b[BN * BK];
    Tensor sA = make_tensor(make_smem_ptr(smem_a), make_layout(make_shape(Int<BM>{}, Int<BK>{}))); // m fastest
    Tensor sB = make_tensor(make_smem_ptr(smem_b), make_layout(make_shape(Int<BN>{}, Int<BK>{}))); // n fastest

    const int tid = threadIdx.x, m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    auto tA = copy_threads<BM, A_COL == 1>();
    auto tB = copy_threads<BN, B_COL == 0>();
    Tensor tAgA = local_partition(gA, tA, tid); // (BM/tA, BK/tA, k tiles)
    Tensor tAsA = local_partition(sA, tA, tid);
    Tensor tAcA = local_partition(make_identity_tensor(shape(sA)), tA, tid);
    Tensor tBgB = local_partition(gB, tB, tid);
    Tensor tBsB = local_partition(sB, tB, tid);
    Tensor tBcB = local_partition(make_identity_tensor(shape(sB)), tB, tid);

    auto tC = make_layout(make_shape(Int<TCM>{}, Int<TCN>{}));
    Tensor tCsA = local_partition(sA, tC, tid, Step<_1, X>{});     // (BM/TCM, BK)
    Tensor tCsB = local_partition(sB, tC, tid, Step<X, _1>{});     // (BN/TCN, BK)
    Tensor tCgC = local_partition(gC, tC, tid, Step<_1, _1>{});    // (BM/TCM, BN/TCN)
    Tensor tCcC = local_partition(make_identity_tensor(shape(gC)), tC, tid, Step<_1, _1>{});
    Tensor tCrC = make_tensor_like(tCgC);
    clear(tCrC);

    const int ktiles = (K + BK - 1) / BK;
    for (int kt = 0; kt < ktiles; kt++) {
        copy_tile(tAgA(_, _, kt), tAsA, tAcA, m0, kt * BK, M, K);
        copy_tile(tBgB(_, _, kt), tBsB, tBcB, n0, kt * BK, N, K);
        __syncthreads();
        gemm(tCsA, tCsB, tCrC);
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
