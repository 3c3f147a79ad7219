// The producer / consumer ring of the warp-specialised Hopper rungs (14_wgmma_tma, 17_tf32x3): mbarriers in
// shared memory, the copies that arrive on them, and the swizzled stages they fill. sm_90 PTX and CuTe.
#pragma once

#include <cute/tensor.hpp>

// STAGES tiles of ROWS x BK elements of T, swizzled in 128-byte rows as wgmma reads them, in the order TMA
// writes them: K-major as BK / (128 / sizeof T) blocks of ROWS rows of 128 bytes, M/N-major as ROWS / (128 /
// sizeof T) blocks of BK rows of 128 bytes.
template <class T, bool KMAJOR, int ROWS, int BK_, int STAGES_>
__device__ constexpr auto ring_sw128_stages()
{
    using namespace cute;
    if constexpr (KMAJOR)
        return tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, make_shape(Int<ROWS>{}, Int<BK_>{}, Int<STAGES_>{}));
    else
        return tile_to_shape(GMMA::Layout_MN_SW128_Atom<T>{}, make_shape(Int<ROWS>{}, Int<BK_>{}, Int<STAGES_>{}),
                             Step<_2, _1, _3>{});
}

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void bar_init(uint64_t *b, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(b)), "r"(count));
}

__device__ __forceinline__ void bar_wait(uint64_t *b, unsigned parity)
{
    asm volatile("{\n .reg .pred p;\n wait_%=:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 " @!p bra wait_%=;\n}\n" ::"r"(smem_u32(b)),
                 "r"(parity)
                 : "memory");
}

__device__ __forceinline__ void bar_arrive(uint64_t *b)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(b)) : "memory");
}

__device__ __forceinline__ void bar_expect_tx(uint64_t *b, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(b)), "r"(bytes) : "memory");
}

// The barrier gets one arrival from this thread once all its earlier cp.async copies have landed.
__device__ __forceinline__ void bar_arrive_cp_async(uint64_t *b)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_u32(b)) : "memory");
}

// 4 bytes to the shared address dst, or zeros when !in.
__device__ __forceinline__ void ring_cp_async4(uint32_t dst, const void *src, bool in)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(in ? 4 : 0) : "memory");
}

__device__ __forceinline__ void ring_cp_async4(void *dst, const void *src, bool in)
{
    ring_cp_async4(smem_u32(dst), src, in);
}

// 16 bytes to the shared address dst (both addresses 16-byte aligned), or zeros when !in (src is not read
// then, but must be a global address), through L2 only.
__device__ __forceinline__ void ring_cp_async16z(uint32_t dst, const void *src, bool in)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(in ? 16 : 0) : "memory");
}
