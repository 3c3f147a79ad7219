/* data: seeded inputs. Value i of stream s depends only on (seed, s, i), so every machine and every
 * variant sees the same inputs for the same case, and nothing is ever zero-filled. */
#ifndef TILELAB_DATA_H
#define TILELAB_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "runner/ops/registry.h"

/* Uniform in [-1, 1), exactly representable in float (24-bit mantissa). */
void data_fill_uniform_f32(float *x, size_t n, uint64_t seed, uint64_t stream);
/* Standard normal (Box-Muller on two independent uniforms). */
void data_fill_normal_f32(float *x, size_t n, uint64_t seed, uint64_t stream);
/* Integers in [-3, 3]: products and sums of them are exact in float up to 2^24. */
void data_fill_int_f32(float *x, size_t n, uint64_t seed, uint64_t stream);
/* The one the case asks for. */
void data_fill_f32(reg_dist d, float *x, size_t n, uint64_t seed, uint64_t stream);

#endif
