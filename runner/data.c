#include "runner/data.h"

#include <math.h>

/* splitmix64's finaliser: a bijective mix, so distinct counters give distinct outputs. */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void data_fill_uniform_f32(float *x, size_t n, uint64_t seed, uint64_t stream)
{
    uint64_t base = mix64(seed ^ mix64(stream));
    for (size_t i = 0; i < n; i++) {
        int32_t r = (int32_t)(mix64(base + i) >> 40); /* 24 random bits */
        x[i] = (float)(r - (1 << 23)) * (1.0f / (1 << 23));
    }
}

/* (0, 1]: never 0, so log() is finite. */
static double unit_open(uint64_t bits)
{
    return ((double)(bits >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

void data_fill_normal_f32(float *x, size_t n, uint64_t seed, uint64_t stream)
{
    uint64_t base = mix64(seed ^ mix64(stream ^ 0x6e6f726d616cULL));
    for (size_t i = 0; i < n; i++) {
        double u1 = unit_open(mix64(base + 2 * i)), u2 = unit_open(mix64(base + 2 * i + 1));
        x[i] = (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

void data_fill_int_f32(float *x, size_t n, uint64_t seed, uint64_t stream)
{
    uint64_t base = mix64(seed ^ mix64(stream ^ 0x696e74ULL));
    for (size_t i = 0; i < n; i++) x[i] = (float)((int)(mix64(base + i) % 7) - 3);
}

void data_fill_f32(reg_dist d, float *x, size_t n, uint64_t seed, uint64_t stream)
{
    switch (d) {
    case REG_NORMAL: data_fill_normal_f32(x, n, seed, stream); break;
    case REG_INT: data_fill_int_f32(x, n, seed, stream); break;
    default: data_fill_uniform_f32(x, n, seed, stream); break;
    }
}
