#include "runner/ops/data.h"

#include <math.h>

#include "runner/ops/data_gen.h"

void data_fill_uniform_f32(float *x, size_t n, uint64_t seed, uint64_t stream)
{
    uint64_t base = tl_uniform_base(seed, stream);
    for (size_t i = 0; i < n; i++) x[i] = tl_uniform_at(base, i);
}

/* (0, 1]: never 0, so log() is finite. */
static double unit_open(uint64_t bits)
{
    return ((double)(bits >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

void data_fill_normal_f32(float *x, size_t n, uint64_t seed, uint64_t stream)
{
    uint64_t base = tl_mix64(seed ^ tl_mix64(stream ^ 0x6e6f726d616cULL));
    for (size_t i = 0; i < n; i++) {
        double u1 = unit_open(tl_mix64(base + 2 * i)), u2 = unit_open(tl_mix64(base + 2 * i + 1));
        x[i] = (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

void data_fill_int_f32(float *x, size_t n, uint64_t seed, uint64_t stream)
{
    uint64_t base = tl_int_base(seed, stream);
    for (size_t i = 0; i < n; i++) x[i] = tl_int_at(base, i);
}

void data_fill_f32(reg_dist d, float *x, size_t n, uint64_t seed, uint64_t stream)
{
    switch (d) {
    case REG_NORMAL: data_fill_normal_f32(x, n, seed, stream); break;
    case REG_INT: data_fill_int_f32(x, n, seed, stream); break;
    default: data_fill_uniform_f32(x, n, seed, stream); break;
    }
}
