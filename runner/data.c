#include "runner/data.h"

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
