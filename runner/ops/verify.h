/* verify: element-wise comparison of an output with its reference. An element passes when it is
 * finite and |got - want| <= atol + rtol * scale, where scale is the op's error scale for that
 * element (for sgemm |alpha| (|A||B|)_ij + |beta| |C_ij|: the classic bound of a dot product's
 * rounding error). NaN and Inf never pass. */
#ifndef TILELAB_VERIFY_H
#define TILELAB_VERIFY_H

#include <stddef.h>

#include "runner/ops/registry.h"

void verify_f32(const float *got, const float *want, const float *scale, size_t n, const reg_tolerance *t,
                reg_verify *v);

#endif
