/* The inits of a declared op's buffers (runner/ops/dop.h) that the host and the device make alike, value by value:
 * uniform, ints, constant and sequence, each element from (seed, buffer, i) with integer arithmetic and
 * correctly rounded double operations (the device's explicitly, so that nvcc contracts nothing into an FMA), so
 * both make the same bits. normal (log, cos) and permutation (a shuffle) are the host's only. Plain C11 and CUDA
 * C++ both read this file. */
#ifndef TILELAB_DOP_GEN_H
#define TILELAB_DOP_GEN_H

#include <stdint.h>

#include "runner/ops/data_gen.h"

/* The element types and inits, by value: runner/ops/dop.h's dop_type and dop_init_kind are these. */
enum { TL_GEN_F32, TL_GEN_F64, TL_GEN_I32, TL_GEN_I64, TL_GEN_F16, TL_GEN_BF16, TL_GEN_I8, TL_GEN_U8, TL_GEN_I16,
       TL_GEN_U16, TL_GEN_U32, TL_GEN_U64 };
enum { TL_GEN_UNIFORM, TL_GEN_NORMAL, TL_GEN_INTS, TL_GEN_CONSTANT, TL_GEN_SEQUENCE, TL_GEN_PERMUTATION,
       TL_GEN_FILE /* the host's only: a file's elements, copied */ };

TL_HD double tl_gen_mul(double x, double y)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(x, y);
#else
    return x * y;
#endif
}

TL_HD double tl_gen_add(double x, double y)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(x, y);
#else
    return x + y;
#endif
}

/* [0, 1) in steps of 2^-53: exact. */
TL_HD double tl_gen_unit(uint64_t bits)
{
    return (double)(bits >> 11) * (1.0 / 9007199254740992.0);
}

/* Element i of a buffer of type t holding v (a float type) or w (an integer type). */
TL_HD void tl_gen_store(int t, void *out, int64_t i, double v, int64_t w)
{
    switch (t) {
    case TL_GEN_F32: ((float *)out)[i] = (float)v; break;
    case TL_GEN_F64: ((double *)out)[i] = v; break;
    case TL_GEN_F16: ((uint16_t *)out)[i] = tl_to_f16((float)v); break;
    case TL_GEN_BF16: ((uint16_t *)out)[i] = tl_to_bf16((float)v); break;
    case TL_GEN_I8: ((int8_t *)out)[i] = (int8_t)w; break;
    case TL_GEN_U8: ((uint8_t *)out)[i] = (uint8_t)w; break;
    case TL_GEN_I16: ((int16_t *)out)[i] = (int16_t)w; break;
    case TL_GEN_U16: ((uint16_t *)out)[i] = (uint16_t)w; break;
    case TL_GEN_I32: ((int32_t *)out)[i] = (int32_t)w; break;
    case TL_GEN_U32: ((uint32_t *)out)[i] = (uint32_t)w; break;
    case TL_GEN_I64: ((int64_t *)out)[i] = w; break;
    case TL_GEN_U64: ((uint64_t *)out)[i] = (uint64_t)w; break;
    default: break;
    }
}

TL_HD int tl_gen_is_float(int t)
{
    return t == TL_GEN_F32 || t == TL_GEN_F64 || t == TL_GEN_F16 || t == TL_GEN_BF16;
}

/* Element i of init kind (uniform a .. b, ints a .. b, constant a, sequence a + i b) from base into out. */
TL_HD void tl_gen_at(int t, int kind, double a, double b, uint64_t base, int64_t i, void *out)
{
    int fl = tl_gen_is_float(t);
    switch (kind) {
    case TL_GEN_UNIFORM:
        tl_gen_store(t, out, i, tl_gen_add(a, tl_gen_mul(b - a, tl_gen_unit(tl_mix64(base + (uint64_t)i)))), 0);
        break;
    case TL_GEN_INTS: {
        int64_t lo = (int64_t)a, w = lo + (int64_t)(tl_mix64(base + (uint64_t)i) % ((uint64_t)((int64_t)b - lo) + 1));
        tl_gen_store(t, out, i, (double)w, w);
        break;
    }
    case TL_GEN_CONSTANT: tl_gen_store(t, out, i, a, (int64_t)a); break;
    case TL_GEN_SEQUENCE:
        if (fl) tl_gen_store(t, out, i, tl_gen_add(a, tl_gen_mul((double)i, b)), 0);
        else tl_gen_store(t, out, i, 0, (int64_t)a + i * (int64_t)b);
        break;
    default: break;
    }
}

#endif
