// 14_wgmma_tma: 13_wgmma's tensor-core math fed by TMA and a producer warpgroup (sm_90a; tf32, bf16).
//
// What changes from 13_wgmma:
// - the copy engine moves the tiles: one thread issues a TMA copy per operand and stage (a
//   cp.async.bulk.tensor that swizzles as it writes, and zero-fills past the operand's edge); the
//   tensor maps it reads are made by the runner per case (runner/jit/tma.h): this file asks for them in
//   tilelab_tensor_map_requests;
// - warp specialisation: warpgroup 0 produces (gives its registers up: setmaxnreg), one or two
//   consumer warpgroups only wait and multiply, so copies and math overlap without a __syncthreads;
//   STAGES shared buffers go round a ring of mbarriers: `full` (the copies landed: TMA's byte count,
//   or the producer threads' cp.async arrivals) and `empty` (every consumer warp's wgmma batch that
//   read it is done);
// - TF32 wgmma reads K-major tiles only, from shared memory. An operand whose memory keeps M or N
//   contiguous (A column-major, B row-major) is copied as it is by TMA and given to the tensor cores
//   from registers (wgmma's register-A form, loaded from the swizzled tile one k-block at a time, the
//   next loading while one batch is in flight). That operand must be wgmma's A: for
//   row-major A and B (NN) the kernel computes C^T = B^T A^T (its C view is transposed, so stores land
//   where C wants them). Only when both are M/N-contiguous (A column-, B row-major) is B transposed by
//   the producer's 4-byte cp.async. BF16 wgmma reads either major from shared memory: no registers;
// - what TMA cannot take (rows not a multiple of 16 bytes, e.g. k = 777) the producer warpgroup's
//   128 threads copy: 4-byte cp.async for TF32 (lanes laid out so that a warp's 32 stores hit 32
//   banks; completion tracked by the mbarrier: cp.async.mbarrier.arrive.noinc), element by element
//   for BF16 (fenced for the async proxy).
// docs/results/h100-tensor-core.md has what it reaches in each layout and dtype. Not yet: a persistent grid
// with the epilogue under the next tile's loads, clusters with TMA multicast, and a faster path for
// k = 777-like rows than the producer's copies.
#include <cute/tensor.hpp>

#include "sgemm_common.cuh"
#include "sgemm_cute_store.cuh"
#include "sm90_ring.cuh"

#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "14_wgmma_tma: needs sm_90a (wgmma, TMA, setmaxnreg); the runner compiles it so on an sm_90 GPU"
#endif
#if !defined(TL_DTYPE_TF32) && !defined(TL_DTYPE_BF16)
#error "14_wgmma_tma: a tensor-core rung: dtype tf32 or bf16"
#endif

#if !defined(BK) || BK == 0
#undef BK
#define BK (128 / TL_ESIZE) // one 128-byte swizzle span of k
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif

using namespace cute;

#if defined(TL_DTYPE_BF16)
using T = bfloat16_t;
#define TF32 0
#define TL_ESIZE 2
#else
using T = tfloat32_t;
#define TF32 1
#define TL_ESIZE 4
#endif
#define KBOX (128 / TL_ESIZE) // elements of a 128-byte row

// X is wgmma's A (XT rows of the tile), Y its B (YT rows): A and B, or B^T and A^T for TF32 NN.
#define SWAP (TF32 && !A_COL && !B_COL)
// 0: a 128 x 256 tile for the tensor cores, which is BM x BN = 256 x 128 when they compute C^T.
#if !defined(BM) || BM == 0
#undef BM
#define BM (SWAP ? 256 : 128)
#endif
#if !defined(BN) || BN == 0
#undef BN
#define BN (SWAP ? 128 : 256)
#endif
#if SWAP
#define XT BN
#define YT BM
#else
#define XT BM
#define YT BN
#endif
#define NC (XT >= 128 ? 2 : 1) // consumer warpgroups, XT / NC rows each
#define NT ((NC + 1) * 128)    // threads

// What the dtype and layouts decide (the params alone: the registry's rules, which the runner's compile checks;
// sgemm_tc.c's check names the params: X is BM, or BN for TF32 NN).
#if (XT != 64 && XT != 128 && XT != 256) || YT % 64 || YT > 256 || XT * YT > 256 * 128 || BK % KBOX
#error "14_wgmma_tma: X tiles of 64, 128 or 256 rows, Y of 64 .. 256 by 64, at most 256 x 128, BK of 128-byte rows"
#endif

constexpr bool A_GMEM_K = !A_COL; // k contiguous in global memory
constexpr bool B_GMEM_K = B_COL;
constexpr bool X_GMEM_K = SWAP ? B_GMEM_K : A_GMEM_K;
constexpr bool Y_GMEM_K = SWAP ? A_GMEM_K : B_GMEM_K;
// X from registers: TF32 with M/N contiguous; its shared tile then keeps memory's layout.
constexpr bool X_REG = TF32 && !X_GMEM_K;
constexpr bool X_KMAJOR = X_REG ? false : TF32 || X_GMEM_K;
constexpr bool Y_KMAJOR = TF32 || Y_GMEM_K;

// The stages (sm90_ring.cuh): K-major, or M/N-major as memory keeps them.
template <bool KMAJOR, int ROWS>
__device__ constexpr auto smem_layout()
{
    return ring_sw128_stages<T, KMAJOR, ROWS, BK, STAGES>();
}

// The runner's tensor maps (runner/jit/tma.h): a as stored, then b; boxes of one 128-byte swizzle span
// (KBOX elements) by the tile's rows (k contiguous in memory) or by BK (M or N contiguous).
struct tilelab_tensor_map_request {
    int operand, box_inner, box_outer, swizzle, encoded;
};
__device__ tilelab_tensor_map_request tilelab_tensor_map_requests[2] = {
    {0, KBOX, A_GMEM_K ? BM : BK, 128, 0},
    {1, KBOX, B_GMEM_K ? BN : BK, 128, 0},
};
struct alignas(64) tensor_map_bytes {
    unsigned long long v[16];
};
__constant__ tensor_map_bytes tilelab_tensor_maps[2];

struct Shared {
    alignas(1024) T x[cosize_v<decltype(smem_layout<X_KMAJOR, XT>())>];
    alignas(1024) T y[cosize_v<decltype(smem_layout<Y_KMAJOR, YT>())>];
    alignas(8) uint64_t full[STAGES], empty[STAGES];
};

__device__ __forceinline__ void tma_load(const void *map, uint64_t *bar, void *dst, int inner, int outer)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
                 ::"r"(smem_u32(dst)), "l"(map), "r"(smem_u32(bar)), "r"(inner), "r"(outer)
                 : "memory");
}

// One stage of an operand (ROWS, BK) by TMA: 128-byte boxes, in the order smem_layout keeps them.
template <bool KMAJOR, int ROWS, class S>
__device__ __forceinline__ void tma_tile(const void *map, uint64_t *bar, S s, int row0, int k0)
{
    if constexpr (KMAJOR) {
        CUTE_UNROLL
        for (int j = 0; j < BK / KBOX; j++) tma_load(map, bar, &s(0, j * KBOX), k0 + j * KBOX, row0);
    } else {
        CUTE_UNROLL
        for (int j = 0; j < ROWS / KBOX; j++) tma_load(map, bar, &s(j * KBOX, 0), row0 + j * KBOX, k0);
    }
}

// One stage of a TF32 operand by the producer warpgroup's 4-byte cp.async, zeros past (rows, K). A
// warp copies 32 elements whose swizzled places fall in 32 different banks: 32 consecutive elements
// of the dimension contiguous in both memories, or (transposing) 8 consecutive rows by 4 consecutive k.
template <bool GMEM_K, bool KMAJOR, int ROWS, class S>
__device__ __forceinline__ void cp_async_tile(S s, const T *g, int ld, int rows, int K, int row0, int k0, int ptid)
{
    static_assert(!GMEM_K || KMAJOR, "14_wgmma_tma: a k-contiguous operand is never kept M/N-major");
    const int lane = ptid % 32, warp = ptid / 32;
    if constexpr (GMEM_K) {
        for (int i = warp; i < ROWS * (BK / 32); i += 4) {
            int r = i % ROWS, k = (i / ROWS) * 32 + lane;
            int gr = row0 + r, gk = k0 + k;
            bool in = gr < rows && gk < K;
            ring_cp_async4(&s(r, k), in ? g + (long long)gr * ld + gk : g, in);
        }
    } else if constexpr (!KMAJOR) {
        for (int i = warp; i < (ROWS / 32) * BK; i += 4) {
            int r = (i % (ROWS / 32)) * 32 + lane, k = i / (ROWS / 32);
            int gr = row0 + r, gk = k0 + k;
            bool in = gr < rows && gk < K;
            ring_cp_async4(&s(r, k), in ? g + (long long)gk * ld + gr : g, in);
        }
    } else {
        for (int i = warp; i < (ROWS / 8) * (BK / 4); i += 4) {
            int r = (i % (ROWS / 8)) * 8 + lane % 8, k = (i / (ROWS / 8)) * 4 + lane / 8;
            int gr = row0 + r, gk = k0 + k;
            bool in = gr < rows && gk < K;
            ring_cp_async4(&s(r, k), in ? g + (long long)gk * ld + gr : g, in);
        }
    }
}

// One stage element by element (BF16 rows that 4-byte copies cannot take), zeros past (rows, K).
template <bool GMEM_K, int ROWS, class S>
__device__ __forceinline__ void element_tile(S s, const T *g, int ld, int rows, int K, int row0, int k0, int ptid)
{
    for (int i = ptid; i < ROWS * BK; i += 128) {
        int r = GMEM_K ? i / BK : i % ROWS, k = GMEM_K ? i % BK : i / ROWS;
        int gr = row0 + r, gk = k0 + k;
        bool in = gr < rows && gk < K;
        s(r, k) = in ? g[GMEM_K ? (long long)gr * ld + gk : (long long)gk * ld + gr] : T(0.0f);
    }
}

// An operand's stage: by TMA where the runner made its map and the tile keeps memory's contiguous
// dimension, else by the producer's threads.
enum { BY_TMA, BY_CP_ASYNC, BY_ELEMENT };

template <bool GMEM_K, bool KMAJOR, int ROWS>
struct Operand {
    const T *g;
    int ld, rows, row0, by;
    const void *map;
    template <class S>
    __device__ __forceinline__ void tma(uint64_t *bar, S s, int k0) const
    {
        if (by == BY_TMA) tma_tile<KMAJOR, ROWS>(map, bar, s, row0, k0);
    }
    template <class S>
    __device__ __forceinline__ void threads(S s, int K, int k0, int ptid) const
    {
        if constexpr (TF32) {
            if (by == BY_CP_ASYNC) cp_async_tile<GMEM_K, KMAJOR, ROWS>(s, g, ld, rows, K, row0, k0, ptid);
        } else {
            if (by == BY_ELEMENT) element_tile<GMEM_K, ROWS>(s, g, ld, rows, K, row0, k0, ptid);
        }
    }
};

template <bool GMEM_K, bool KMAJOR, int ROWS>
__device__ __forceinline__ Operand<GMEM_K, KMAJOR, ROWS> operand(const T *g, int ld, int rows, int row0, int i)
{
    int by = GMEM_K == KMAJOR && tilelab_tensor_map_requests[i].encoded ? BY_TMA : TF32 ? BY_CP_ASYNC : BY_ELEMENT;
    return {g, ld, rows, row0, by, &tilelab_tensor_maps[i]};
}

// A and B as X and Y.
using OpA = Operand<A_GMEM_K, SWAP ? Y_KMAJOR : X_KMAJOR, BM>;
using OpB = Operand<B_GMEM_K, SWAP ? X_KMAJOR : Y_KMAJOR, BN>;
template <bool S>
__device__ __forceinline__ const auto &pick(const OpA &a, const OpB &b)
{
    if constexpr (S) return b;
    else return a;
}

// The tensor cores' instruction: X from registers or from shared memory.
template <bool REG>
__device__ constexpr auto mma_atom()
{
    // (Both branches are instantiated: with X in registers the unused one names K, which compiles.)
    constexpr GMMA::Major MX = X_KMAJOR || REG ? GMMA::Major::K : GMMA::Major::MN;
    constexpr GMMA::Major MY = Y_KMAJOR ? GMMA::Major::K : GMMA::Major::MN;
    if constexpr (REG) return GMMA::rs_op_selector<T, T, float, Shape<_64, Int<YT>, Int<BK>>>();
    else return GMMA::ss_op_selector<T, T, float, Shape<_64, Int<YT>, Int<BK>>, MX, MY>();
}

// C, or C^T when X is B^T.
template <bool S>
__device__ __forceinline__ auto c_view(float *C, int M, int N)
{
    if constexpr (S) return make_tensor(make_gmem_ptr(C), make_shape(N, M), make_stride(Int<1>{}, N));
    else return make_tensor(make_gmem_ptr(C), make_shape(M, N), make_stride(N, Int<1>{}));
}

// One k-block of the consumers with X through registers: its slice of the stage loaded into rX, then
// multiplied. With one batch left in flight, the k-block before it is done: its registers are free.
template <class MMA, class SX, class RX, class DY, class ACC>
__device__ __forceinline__ void reg_step(MMA &mma, SX const &sx, RX &&rX, DY const &dy, ACC &acc)
{
    copy(sx, rX);
    auto bits = recast<uint32_t>(rX);
    warpgroup_fence_operand(bits);
    warpgroup_fence_operand(acc);
    warpgroup_arrive();
    gemm(mma, rX, dy, acc);
    warpgroup_commit_batch();
    warpgroup_wait<1>();
    warpgroup_fence_operand(acc);
    warpgroup_fence_operand(bits);
}

extern "C" __global__ void __launch_bounds__(NT, 1)
    sgemm_wgmma_tma(int M, int N, int K, float alpha, const void *A_, const void *B_, float beta, float *C)
{
    extern __shared__ unsigned char smem_raw[];
    Shared &sh = *reinterpret_cast<Shared *>((reinterpret_cast<size_t>(smem_raw) + 1023) & ~size_t(1023));
    const T *A = static_cast<const T *>(A_), *B = static_cast<const T *>(B_);
    const int tid = threadIdx.x, wg = tid / 128;

    int tm, tn;
    sgemm_raster<BM, BN, GROUP_M>(M, N, blockIdx.x, tm, tn);
    const int lda = A_GMEM_K ? K : M, ldb = B_GMEM_K ? K : N;
    const int ktiles = (K + BK - 1) / BK;
    const OpA opA = operand<A_GMEM_K, SWAP ? Y_KMAJOR : X_KMAJOR, BM>(A, lda, M, tm * BM, 0);
    const OpB opB = operand<B_GMEM_K, SWAP ? X_KMAJOR : Y_KMAJOR, BN>(B, ldb, N, tn * BN, 1);
    const auto &opX = pick<SWAP>(opA, opB);
    const auto &opY = pick<!SWAP>(opA, opB);
    constexpr unsigned X_BYTES = XT * BK * sizeof(T), Y_BYTES = YT * BK * sizeof(T);
    const unsigned tma_bytes = (opX.by == BY_TMA ? X_BYTES : 0) + (opY.by == BY_TMA ? Y_BYTES : 0);
    const bool threads_copy = opX.by != BY_TMA || opY.by != BY_TMA;

    Tensor sX = make_tensor(make_smem_ptr(sh.x), smem_layout<X_KMAJOR, XT>()); // (XT, BK, STAGES)
    Tensor sY = make_tensor(make_smem_ptr(sh.y), smem_layout<Y_KMAJOR, YT>()); // (YT, BK, STAGES)

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(&sh.full[s], 1 + (threads_copy ? 128 : 0));
            bar_init(&sh.empty[s], NC * 4);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        // The producer: registers to the consumers.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        const int ptid = tid;
        if (!threads_copy && ptid != 0) return;
        for (int kt = 0; kt < ktiles; kt++) {
            const int s = kt % STAGES, k0 = kt * BK;
            bar_wait(&sh.empty[s], ((kt / STAGES) & 1) ^ 1);
            if (ptid == 0) {
                if (tma_bytes) bar_expect_tx(&sh.full[s], tma_bytes);
                else bar_arrive(&sh.full[s]);
                opX.tma(&sh.full[s], sX(_, _, s), k0);
                opY.tma(&sh.full[s], sY(_, _, s), k0);
            }
            if (!threads_copy) continue;
            opX.threads(sX(_, _, s), K, k0, ptid);
            opY.threads(sY(_, _, s), K, k0, ptid);
            if constexpr (TF32) {
                bar_arrive_cp_async(&sh.full[s]);
            } else {
                // Stores of this thread, read next by the tensor cores (the async proxy).
                asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
                bar_arrive(&sh.full[s]);
            }
        }
        return;
    }

    // The consumers: warpgroup w multiplies rows (w - 1) * XT / NC .. of the tile.
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    const int ctid = tid - 128;
    auto mC = c_view<SWAP>(C, M, N);
    const int tx = SWAP ? tn : tm, ty = SWAP ? tm : tn, rows_x = SWAP ? N : M, rows_y = SWAP ? M : N;
    Tensor gC = local_tile(mC, make_shape(Int<XT>{}, Int<YT>{}), make_coord(tx, ty)); // (XT, YT)
    TiledMMA mma = make_tiled_mma(mma_atom<X_REG>(), Layout<Shape<Int<NC>, _1, _1>>{});
    ThrMMA thr_mma = mma.get_slice(ctid);
    Tensor tCsX = thr_mma.partition_A(sX);        // (MMA, MMA_M, MMA_K, STAGES)
    Tensor tCrY = thr_mma.make_fragment_B(thr_mma.partition_B(sY)); // descriptors
    Tensor tCgC = thr_mma.partition_C(gC);
    Tensor tCcC = thr_mma.partition_C(make_identity_tensor(make_shape(Int<XT>{}, Int<YT>{})));
    Tensor acc = thr_mma.make_fragment_C(tCgC);
    clear(acc);

    // One batch stays in flight: the stage before is released once its batch is known done.
    if constexpr (X_REG) {
        // X through registers, one k-block (k 8) at a time: a whole stage in registers, on top of the
        // accumulators, would spill.
        Tensor rX = thr_mma.partition_fragment_A(sX(_, _, 0)); // (MMA, MMA_M, MMA_K)
        for (int kt = 0; kt < ktiles; kt++) {
            const int s = kt % STAGES;
            bar_wait(&sh.full[s], (kt / STAGES) & 1);
            CUTE_UNROLL
            for (int kb = 0; kb < size<2>(rX); kb++)
                reg_step(mma, tCsX(_, _, kb, s), rX(_, _, kb), tCrY(_, _, kb, s), acc);
            if (kt > 0 && ctid % 32 == 0) bar_arrive(&sh.empty[(kt - 1) % STAGES]);
        }
    } else {
        Tensor tCrX = thr_mma.make_fragment_A(tCsX); // descriptors
        for (int kt = 0; kt < ktiles; kt++) {
            const int s = kt % STAGES;
            bar_wait(&sh.full[s], (kt / STAGES) & 1);
            warpgroup_fence_operand(acc);
            warpgroup_arrive();
            gemm(mma, tCrX(_, _, _, s), tCrY(_, _, _, s), acc);
            warpgroup_commit_batch();
            warpgroup_wait<1>();
            warpgroup_fence_operand(acc);
            if (kt > 0 && ctid % 32 == 0) bar_arrive(&sh.empty[(kt - 1) % STAGES]);
        }
    }
    warpgroup_wait<0>();
    warpgroup_fence_operand(acc);

    const int x0 = tx * XT, y0 = ty * YT;
#if defined(TL_BETA_NONZERO) && TL_BETA_NONZERO
    sgemm_store_c_cute(acc, tCcC, tCgC, x0, y0, rows_x, rows_y, alpha, beta);
#else
    CUTE_UNROLL
    for (int i = 0; i < size(acc); i++) {
        auto rc = tCcC(i);
        if (x0 + get<0>(rc) < rows_x && y0 + get<1>(rc) < rows_y) {
            float *c = &tCgC(i);
            *c = sgemm_epilogue(acc(i), alpha, beta, c);
        }
    }
#endif
}
