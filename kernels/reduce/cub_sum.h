/* The CUB baseline of the reduce op (cub_sum.cu, compiled by nvcc). */
#ifndef TILELAB_CUB_SUM_H
#define TILELAB_CUB_SUM_H

#include <stddef.h>

/* Sum of n floats (half = 0) or halves (half = 1) into *out (device), in float, on stream. With
 * temp == NULL only sets *temp_bytes. Returns a cudaError_t. */
int tl_cub_sum(const void *in, int half, float *out, long long n, void *temp, size_t *temp_bytes, void *stream);

#endif
