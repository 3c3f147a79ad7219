/* The seeded generators' arithmetic, shared by the host (data.c) and the device (devdata.cu), so that
 * both make the same values bit for bit: integers only, and int -> float conversions and scalings by
 * powers of two, which are exact. Value i of stream s depends only on (seed, s, i). Plain C11 and CUDA
 * C++ both read this file. */
#ifndef TILELAB_DATA_GEN_H
#define TILELAB_DATA_GEN_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TL_HD __host__ __device__ __forceinline__
#else
#define TL_HD static inline
#endif

/* splitmix64's finaliser: a bijective mix, so distinct counters give distinct outputs. */
TL_HD uint64_t tl_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1), exactly representable in float (24-bit mantissa). */
TL_HD uint64_t tl_uniform_base(uint64_t seed, uint64_t stream)
{
    return tl_mix64(seed ^ tl_mix64(stream));
}

TL_HD float tl_uniform_at(uint64_t base, uint64_t i)
{
    int32_t r = (int32_t)(tl_mix64(base + i) >> 40); /* 24 random bits */
    return (float)(r - (1 << 23)) * (1.0f / (1 << 23));
}

/* Integers in [-3, 3]: products and sums of them are exact in float up to 2^24. */
TL_HD uint64_t tl_int_base(uint64_t seed, uint64_t stream)
{
    return tl_mix64(seed ^ tl_mix64(stream ^ 0x696e74ULL));
}

TL_HD float tl_int_at(uint64_t base, uint64_t i)
{
    return (float)((int)(tl_mix64(base + i) % 7) - 3);
}

/* FP32 -> BF16, round to nearest even (NaN stays NaN), as __float2bfloat16 does; and back (exact). */
TL_HD uint16_t tl_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

TL_HD float tl_from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#endif
