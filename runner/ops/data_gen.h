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
/* One 8-byte word's share of a buffer's fingerprint (runner/exec/inguard.h): its value mixed with its index, so that a
 * change of any byte, or two words swapped, moves the sum the host and the device both take of them. */
TL_HD uint64_t tl_hash_word(uint64_t w, uint64_t i)
{
    return tl_mix64(w ^ tl_mix64(i + 1));
}

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

/* FP32 -> FP16, round to nearest even (overflow to infinity, NaN stays NaN), as __float2half does; and back
 * (exact). */
TL_HD uint16_t tl_to_f16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    if (a >= 0x47800000u) return (uint16_t)(sign | 0x7c00u); /* 2^16 and up; 65520 .. 2^16 round up below */
    if (a < 0x38800000u) {                                    /* under 2^-14: a subnormal half, or zero */
        int e = (int)(a >> 23);
        if (e < 102) return (uint16_t)sign; /* under 2^-25 */
        uint32_t m = (a & 0x7fffffu) | 0x800000u, shift = (uint32_t)(126 - e);
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t h = (a - 0x38000000u) >> 13, rem = a & 0x1fffu; /* the exponent's bias 127 -> 15 */
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;   /* a carry into the exponent is right */
    return (uint16_t)(sign | h);
}

TL_HD float tl_from_f16(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
    float f;
    if (e == 0x1f) {
        u = sign | 0x7f800000u | (m << 13);
    } else if (e) {
        u = sign | ((e + 112) << 23) | (m << 13);
    } else {
        f = (float)m * (1.0f / 16777216.0f); /* m 2^-24, exact */
        memcpy(&u, &f, sizeof u);
        u |= sign;
    }
    memcpy(&f, &u, sizeof f);
    return f;
}

#endif
